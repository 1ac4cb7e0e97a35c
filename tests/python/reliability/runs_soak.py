"""The long run suites: ``python -m tests.python.reliability.runs_soak`` (part of ``make
soak``, after the ledger soak, which rewrites docs/RELIABILITY.md).

200 runs of the 5-step agent on 3 worker processes SIGKILLed at random plus a ``pg_ctl stop
-m immediate`` restart (on a throwaway server), a SIGSTOPped worker, an approval sent while
no worker runs, a timed-out wait, and cancellation of a sleeping, a waiting and a running
run. Writes its figures as the "Runs" section of docs/RELIABILITY.md (between markers, so the
rest of the file is left as the ledger soak wrote it). Exit status 1 if a promise broke.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import traceback
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from . import REPO
from .pgserver import ThrowawayServer
from .runs_scenario import (
    approval_while_no_worker,
    cancel_each,
    check,
    stall,
    survive,
    timed_out_wait,
)

BEGIN, END = "<!-- runs:begin -->", "<!-- runs:end -->"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--report", type=Path, default=REPO / "docs" / "RELIABILITY.md")
    args = parser.parse_args()
    dsn = os.environ.get("ACTAE_DSN")
    if not dsn:
        print("runs_soak: ACTAE_DSN is not set (run `make soak`)", file=sys.stderr)
        return 2
    rows: list[str] = []
    failures: list[str] = []

    def attempt(name: str, run: Callable[[], str]) -> None:
        print(f"== runs: {name}", flush=True)
        started = time.monotonic()
        try:
            rows.append(f"| {name} | {run()} | {time.monotonic() - started:.0f} s | pass |")
        except Exception:  # noqa: BLE001 - a broken promise is reported, the soak goes on
            failures.append(f"{name}:\n{traceback.format_exc()}")
            rows.append(f"| {name} | see Failures | {time.monotonic() - started:.0f} s"
                        " | FAIL |")
            print(failures[-1], file=sys.stderr, flush=True)

    def survival() -> str:
        with ThrowawayServer() as server:
            def restart() -> None:
                server.crash()
                server.start()

            figures = survive(server.dsn, runs=args.runs, workers=args.workers,
                              kill_every=(1.0, 3.0), restart=restart, restart_after=20.0,
                              timeout=1800)
        print(f"   {figures.line()}", flush=True)
        check(figures)
        return (f"{figures.runs} runs, {figures.workers} workers; {figures.kills} SIGKILL at"
                f" random moments, {figures.db_restarts} × `pg_ctl stop -m immediate` +"
                f" start; completed {figures.completed}, lost {figures.lost}; provider"
                f" effects {figures.effects} (2 per run) from {figures.requests} requests,"
                f" duplicates {figures.duplicates}; {figures.claims} claims,"
                f" {figures.retries} retried failures, {figures.approvals} approvals sent"
                " by a separate process")

    def stalled() -> str:
        f = stall(dsn)
        assert f.run.status == "completed" and f.run.worker == "B", f.run
        assert f.a_stats.get("lease_lost", 0) >= 1 and f.a_stats.get("completed", 0) == 0
        assert f.effects == 1
        return (f"A SIGSTOPped 5 s inside a 3 s charge (lease 2 s); B reclaimed (charge fence"
                f" {f.execution.fence}) and completed; A resumed: {f.a_stats.get('lease_lost')}"
                f" write(s) rejected (LeaseLost), 0 accepted; provider effects {f.effects}")

    def approval() -> str:
        woken, done, effects = approval_while_no_worker(dsn)
        assert woken.wake_reason == "event" and done.status == "completed"
        return (f"worker stopped while the run waited; `actae event send` made it due"
                f" (wake_reason {woken.wake_reason}); a new worker completed it (attempt"
                f" {done.attempt}); provider effects {effects}")

    def timeout() -> str:
        done = timed_out_wait(dsn)
        assert done.status == "completed" and done.result["approved"] is None
        return (f"1 s wait, no approval: resumed with wake_reason {done.wake_reason},"
                " timeout branch")

    def cancelled() -> str:
        done = cancel_each(dsn)
        assert all(r.status == "cancelled" for r in done.values()), done
        return "; ".join(f"{state} → {r.status}" for state, r in done.items())

    started = time.monotonic()
    attempt("200 runs × 5 steps, SIGKILL + database crash", survival)
    attempt("stalled worker (SIGSTOP past its lease)", stalled)
    attempt("approval sent while no worker runs", approval)
    attempt("wait that times out", timeout)
    attempt("cancel a sleeping, a waiting and a running run", cancelled)
    section = [
        BEGIN,
        "## Runs (workers, sleep, approval)",
        "",
        "Generated by `python -m tests.python.reliability.runs_soak`"
        f" ({datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {time.monotonic() - started:.0f} s)."
        " Workers are real processes running"
        " `actae.Worker` (lease 2 s); the agent: lookup, charge (provider idempotency key),"
        " durable sleep 1 s, wait for an approval sent by a separate process, receipt (a"
        " second keyed effect). Figures are read back from PostgreSQL and the provider's books.",
        "",
        "| scenario | figures | time | result |",
        "|---|---|---:|---|",
        *rows,
    ]
    if failures:
        section += ["", "### Failures", "", "```", *failures, "```"]
    section.append(END)
    text = args.report.read_text() if args.report.exists() else ""
    if BEGIN in text and END in text:
        text = text[:text.index(BEGIN)] + "\n".join(section) + text[text.index(END) + len(END):]
    else:
        text = text.rstrip("\n") + "\n\n" + "\n".join(section) + "\n"
    args.report.write_text(text)
    print(f"runs_soak: wrote {args.report} ({len(failures)} failures)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
