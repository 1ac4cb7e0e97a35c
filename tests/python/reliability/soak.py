"""The long reliability run: ``python -m tests.python.reliability.soak`` (``make soak``).

Runs the kill-at-every-moment scenario for each strategy, the 32-way races, the stalled
worker and the database restarts longer than ``make test`` does, then the bad-input
property tests with more examples; checks the same promises and writes docs/RELIABILITY.md
from the figures of this run. Exit status 1 if any promise
broke (the report says which). Needs ACTAE_DSN (a migrated database); the restart scenario
starts, crashes and removes its own throwaway server.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import psycopg

from . import REPO
from .crashes import STRATEGIES, STRATEGY_LABELS, Figures, Scenario, check, run_scenario
from .pgserver import ThrowawayServer, restarts
from .racing import run_race
from .stalling import check_fenced, run_stall, stale_writes_accepted


@dataclass
class Row:
    scenario: str
    faults: str
    operations: int
    duplicates: int | str
    lost: int | str
    seconds: float
    passed: bool = True
    note: str = ""


@dataclass
class Report:
    rows: list[Row] = field(default_factory=list)
    strategies: list[tuple[str, Figures]] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    def attempt(self, name: str, run: Callable[[], None]) -> None:
        print(f"== {name}", flush=True)
        try:
            run()
        except Exception:  # noqa: BLE001 — a broken promise is reported, the soak goes on
            self.failures.append(f"{name}:\n{traceback.format_exc()}")
            print(self.failures[-1], file=sys.stderr, flush=True)


# Where a killed worker last reported being (its last JSON line before the SIGKILL).
POINT_LABELS = {
    "start": "while starting", "claim": "just after a claim returned",
    "after_claim": "after claim", "in_tool": "in the tool call",
    "after_effect": "after the provider confirmed", "after_complete": "right after completion",
}


def kill_faults(f: Figures) -> str:
    points = ", ".join(f"{n} {POINT_LABELS.get(p, p)}" for p, n in
                       sorted(f.kills_by_point.items(), key=lambda item: -item[1]))
    text = f"{f.kills} SIGKILL ({points}; {f.timer_kills} at random moments)"
    if f.db_restarts:
        text = f"{f.db_restarts} × pg_ctl stop -m immediate + start, " + text
    return text


def crash_rows(report: Report, dsn: str, label: str, scale: int,
               fault: Callable[[str], Callable[..., None] | None] | None = None,
               strategies: tuple[str, ...] = STRATEGIES, kills_per_slot: int = 0) -> None:
    for strategy in strategies:
        def run(strategy: str = strategy) -> None:
            scenario = Scenario(strategy=strategy, slots=6, workflows_per_slot=scale,
                                steps=5, kills_per_slot=kills_per_slot or 4 * scale)
            figures = run_scenario(dsn, scenario, fault=fault(strategy) if fault else None)
            print(f"   {figures.line()}", flush=True)
            report.strategies.append((f"{label}: {STRATEGY_LABELS[strategy]}", figures))
            passed, note = True, ""
            try:
                check(figures)
            except AssertionError as exc:
                passed, note = False, str(exc)[:200]
                report.failures.append(f"{label} {strategy}: {exc}")
            if strategy == "ledger" and not note:
                note = (
                    f"{figures.duplicates} duplicates: at least the {figures.paused_window_kills}"
                    " kills made while paused between the provider's confirmation and"
                    " complete_execution, at most the"
                    f" {figures.window_kills + figures.tool_kills + figures.tool_unreachable}"
                    " kills (or lost connections) that may have landed there — a kill counts"
                    " by the worker's last report, so one just after the completion committed"
                    " can count as in the window")
            report.rows.append(Row(
                f"{label}: {STRATEGY_LABELS[strategy]}", kill_faults(figures),
                figures.operations, figures.duplicates, figures.lost, figures.seconds,
                passed, note))
        report.attempt(f"{label} / {strategy}", run)


def race_rows(report: Report, dsn: str, scale: int) -> None:
    for mode in ("connections", "processes"):
        def run(mode: str = mode) -> None:
            figures = run_race(dsn, mode, callers=32, epochs=4 * scale, lease=1)
            print(f"   {figures.line()}", flush=True)
            report.rows.append(Row(
                f"race: 32 {mode} claim one key at once",
                f"{figures.epochs} lease epochs (the owner stops heartbeating, the lease"
                f" lapses); {figures.stale_rejections} writes by stale owners",
                figures.claims, figures.extra_owners + figures.stale_accepted,
                figures.ownerless_epochs, figures.seconds, True,
                "one owner per epoch, fences 1..N each held by one caller, every stale"
                " owner's heartbeat/complete was LeaseLost"))
        report.attempt(f"race / {mode}", run)


def stall_rows(report: Report, dsn: str, scale: int) -> None:
    def run() -> None:
        started, rounds, accepted, overwritten = time.monotonic(), 0, 0, 0
        for n in range(2 * scale):
            stall = run_stall(dsn, reclaim=True, b_finishes_first=n % 2 == 0)
            rounds += 1
            accepted += stale_writes_accepted(stall)
            overwritten += stall.ledger[3] != {"by": "B"}
            check_fenced(stall)
        report.rows.append(Row(
            "stalled worker (fencing)",
            f"{rounds} × SIGSTOP past the 1 s lease, reclaim by another worker, SIGCONT",
            rounds, accepted, overwritten, time.monotonic() - started, True,
            "every resumed worker's heartbeat, complete and fail was LeaseLost; the"
            " reclaimer's result stood"))
    report.attempt("stalled worker", run)


def bad_input_rows(report: Report, examples: int) -> None:
    def run() -> None:
        started = time.monotonic()
        with tempfile.TemporaryDirectory() as folder:
            stats_path = Path(folder) / "stats.json"
            env = {**os.environ, "ACTAE_HYPOTHESIS_EXAMPLES": str(examples),
                   "ACTAE_RELIABILITY_STATS": str(stats_path)}
            done = subprocess.run(
                [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                 str(REPO / "tests" / "python" / "reliability" / "test_bad_input.py")],
                cwd=REPO, env=env, capture_output=True, text=True)
            stats = json.loads(stats_path.read_text()) if stats_path.exists() else {}
        summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else "no output"
        calls = stats.get("driver_calls", 0) + stats.get("raw_calls", 0)
        rejected = stats.get("driver_rejected", 0) + stats.get("raw_rejected", 0)
        codes = ", ".join(f"{k} {v}" for k, v in sorted(stats.items()) if k.startswith("AC"))
        passed = done.returncode == 0
        if not passed:
            report.failures.append(f"bad input: {done.stdout[-3000:]}")
        report.rows.append(Row(
            "bad input: generated arguments to every function (driver and raw SQL)",
            f"{examples} hypothesis examples per function; {rejected} of {calls} calls"
            f" rejected ({codes}); plus every limit at its edge",
            calls, "—", "—", time.monotonic() - started, passed,
            f"pytest: {summary}; only AC… errors, and no table changed by a rejected call"))
    report.attempt("bad input", run)


def restart_rows(report: Report, scale: int) -> None:
    with ThrowawayServer() as server:
        crash_rows(
            report, server.dsn, "database restart", scale,
            fault=lambda strategy: restarts(server, every=(1.0, 2.0), down=0.5,
                                            limit=2 + scale),
            kills_per_slot=scale,
        )


def write(report: Report, path: Path, started: float, scale: int) -> None:
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO,
                            capture_output=True, text=True).stdout.strip() or "unknown"
    with psycopg.connect(os.environ["ACTAE_DSN"]) as conn:
        version = conn.execute("show server_version").fetchone()
    lines = [
        "# Actae reliability report",
        "",
        "Generated by `make soak` (`python -m tests.python.reliability.soak"
        f" --scale {scale}`) from the run's own figures — do not edit by hand.",
        "",
        f"- run: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, commit {commit},"
        f" PostgreSQL {version[0] if version else '?'}, {os.cpu_count()} cores,"
        f" {platform.python_implementation()} {platform.python_version()},"
        f" {time.monotonic() - started:.0f} s in all",
        "- workers are real OS processes using the Actae driver (claim / heartbeat /"
        " complete); kills are real SIGKILL, stalls real SIGSTOP/SIGCONT, restarts real"
        " `pg_ctl stop -m immediate` of a throwaway server; leases are 1 s",
        "- operations = logical tool calls (kill/restart rows), claim calls (race) or"
        " rounds (stall); duplicates = extra effects at the provider (race: extra owners"
        " in an epoch plus stale owners' writes accepted; stall: the frozen worker's writes"
        " accepted after the reclaim); lost = operations with no completed ledger row or no"
        " effect (race: epochs without an owner; stall: reclaimer's result not standing)",
        "",
        "| scenario | faults injected | operations | duplicates | lost | time | result |",
        "|---|---|---:|---:|---:|---:|---|",
    ]
    for row in report.rows:
        lines.append(f"| {row.scenario} | {row.faults} | {row.operations} | {row.duplicates}"
                     f" | {row.lost} | {row.seconds:.0f} s |"
                     f" {'pass' if row.passed else 'FAIL'} |")
    lines += [
        "",
        "## Per strategy",
        "",
        "runs = worker processes started; reclaims = attempts that took over a lapsed"
        " lease (from the ledger's attempt counters); ambiguous = reclaims told"
        " `ambiguous = true`; replays = claims answered from the ledger; reconciled ="
        " ambiguous reclaims answered by `provider.find(key)`; window kills = SIGKILL"
        " after the provider confirmed and before `complete_execution` committed;"
        " window = time from the provider effect named in the ledger's result to the"
        " committed completion (median / max, database clock; the max includes recovery"
        " when a kill inside the window left the effect to be found again).",
        "",
        "| run | runs | kills | window kills | reclaims | ambiguous | replays | reconciled"
        " | effects | duplicates | lost | window ms |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for label, f in report.strategies:
        lines.append(f"| {label} | {f.runs} | {f.kills} | {f.window_kills} | {f.reclaims}"
                     f" | {f.ambiguous_reclaims} | {f.replays} | {f.reconciled} | {f.effects}"
                     f" | {f.duplicates} | {f.lost}"
                     f" | {f.window_ms_median:.1f} / {f.window_ms_max:.0f} |")
    lines += ["", "## Notes", ""]
    lines += [f"- {row.scenario}: {row.note}" for row in report.rows if row.note]
    if report.failures:
        lines += ["", "## Failures", "", "```", *report.failures, "```"]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=6,
                        help="how much longer than make test (default 6: ~5-6 minutes on 2 cores)")
    parser.add_argument("--examples", type=int, default=300,
                        help="hypothesis examples per function in the bad-input pass")
    parser.add_argument("--report", type=Path, default=REPO / "docs" / "RELIABILITY.md")
    args = parser.parse_args()
    dsn = os.environ.get("ACTAE_DSN")
    if not dsn:
        print("soak: ACTAE_DSN is not set (run `make soak`)", file=sys.stderr)
        return 2
    started = time.monotonic()
    report = Report()
    crash_rows(report, dsn, "kill at every moment", args.scale)
    race_rows(report, dsn, args.scale)
    stall_rows(report, dsn, args.scale)
    restart_rows(report, args.scale)
    bad_input_rows(report, args.examples)
    write(report, args.report, started, args.scale)
    print(f"soak: wrote {args.report} ({len(report.failures)} failures,"
          f" {time.monotonic() - started:.0f} s)")
    return 1 if report.failures else 0


if __name__ == "__main__":
    sys.exit(main())
