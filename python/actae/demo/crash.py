"""Crash-recovery demo: a worker is killed mid-charge, and the customer is charged once.

    actae demo crash      (or: make demo; python -m actae.demo.crash)

The story, told step by step on stdout:

1. Worker A claims the tool call ``charge_customer`` (a 2-second lease), asks the payment
   provider to charge the card, the provider confirms — and A is killed with SIGKILL before
   it can record the result in Actae.
2. Actae's ledger still says "claimed, no result": nobody knows yet whether the card was
   charged. Worker B asks for the same tool call. While A's lease is live, Actae answers
   ``in_progress``; once it lapses, B gets ``reclaimed`` with ``ambiguous = true`` and a new
   fence. B calls the provider again with the same idempotency key (the execution's
   key_name), the provider recognises the key and returns the first charge, and B completes.
3. Worker C asks once more and gets ``replayed`` with the stored result, without calling the
   provider at all.

Every worker is a separate process running this module (``worker`` argument). The demo
exits non-zero when the story's invariant breaks: exactly one charge, two provider requests.
"""

from __future__ import annotations

import json
import logging
import os
import queue
import signal
import subprocess
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

import psycopg

from actae import SyncActaeClient
from actae.demo import require_migrated
from actae.errors import ActaeError
from actae.fakes import FakeProvider

KEY = "charge_customer:order-4471"
TOOL = "charge_customer"
PARAMS = {"order_id": "4471", "amount_cents": 4200, "currency": "EUR"}
LEASE_SECONDS = 2
STEP_TIMEOUT = 20.0


# --- the worker: what an agent process does for one tool call ---------------------------------

def worker(dsn: str, name: str, channel: str, crash_after_charge: bool) -> int:
    """Claim the charge, call the provider only when Actae says so, record the result."""

    def say(text: str) -> None:
        print(f"    [worker {name}, pid {os.getpid()}] {text}", flush=True)

    def tell(**facts: Any) -> None:  # machine-readable line for the demo
        print("@ " + json.dumps(facts, default=str), flush=True)

    # Actae's own warnings (the ambiguous takeover) are part of the story: told in its voice.
    log = logging.StreamHandler(sys.stdout)
    log.setFormatter(logging.Formatter(
        f"    [worker {name}, pid {os.getpid()}] Actae logs (%(levelname)s): %(message)s"))
    logging.getLogger("actae").addHandler(log)

    provider = FakeProvider(dsn, namespace=f"{channel}/")
    with SyncActaeClient(dsn, max_size=1) as client:
        waited = False
        while True:
            claim = client.claim_execution(channel, KEY, TOOL, PARAMS, ["order_id"],
                                           lease_seconds=LEASE_SECONDS)
            tell(outcome=claim.status, fence=claim.fence, attempt=claim.execution.attempt,
                 ambiguous=claim.ambiguous)
            if claim.status != "in_progress":
                break
            if not waited:
                say(f"claim -> in_progress: another worker holds the lease until "
                    f"{claim.lease_expires_at:%H:%M:%S.%f}; waiting for it to lapse")
                waited = True
            time.sleep(0.1)

        if claim.status == "replayed":
            say(f"claim -> replayed: stored result {json.dumps(claim.result)}; "
                "the provider is not called")
            tell(result=claim.result)
            return 0
        if claim.status == "failed":
            say(f"claim -> failed: {claim.error}")
            return 1

        say(f"claim -> {claim.status}: this worker owns the call now "
            f"(fence {claim.fence}, attempt {claim.execution.attempt}, "
            f"ambiguous = {str(claim.ambiguous).lower()})")
        if claim.ambiguous:
            say("the previous attempt ended without a recorded outcome, so the card may "
                "already be charged; calling the provider with the same idempotency key "
                f"'{claim.execution.key_name}' so it cannot charge twice")
        charge = provider.charge(claim.execution.key_name, TOOL, claim.execution.params)
        say(f"provider confirmed: charge effect #{charge['effect_id']}")
        tell(effect_id=charge["effect_id"])
        if crash_after_charge:
            tell(ready=True)  # the demo kills this process now, before complete_execution
            time.sleep(STEP_TIMEOUT)
            say("was not killed; giving up")
            return 3
        assert claim.claim_token is not None  # claimed or reclaimed: this worker owns it
        done = client.complete_execution(claim.execution.id, claim.claim_token, result=charge)
        say(f"complete_execution -> {done.status}; result stored in Actae")
        tell(result=done.result)
    return 0


# --- the demo: start workers, kill one, check the books ----------------------------------------

@dataclass
class Run:
    name: str
    proc: subprocess.Popen[str]
    facts: list[dict[str, Any]] = field(default_factory=lambda: [])
    lines: queue.Queue[str | None] = field(default_factory=lambda: queue.Queue())

    def __post_init__(self) -> None:
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def fact(self, key: str) -> Any:
        return next((f[key] for f in self.facts if key in f), None)

    def outcomes(self) -> list[str]:
        return [f["outcome"] for f in self.facts if "outcome" in f]


def start(dsn: str, name: str, channel: str, crash: bool = False) -> Run:
    args = [sys.executable, "-m", "actae.demo.crash", "worker", name, channel]
    if crash:
        args.append("--crash-after-charge")
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, text=True, bufsize=1,
                            env={**os.environ, "ACTAE_DSN": dsn})
    return Run(name, proc)


def follow(run: Run, until_ready: bool = False) -> None:
    """Echo the worker's lines and collect its facts until it exits (or says it is ready)."""
    deadline = time.monotonic() + STEP_TIMEOUT
    while True:
        try:
            line = run.lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            run.proc.kill()
            raise TimeoutError(f"worker {run.name} took longer than {STEP_TIMEOUT} s") from None
        if line is None:
            break
        if line.startswith("@ "):
            run.facts.append(json.loads(line[2:]))
            if until_ready and run.fact("ready"):
                return
        else:
            print(line, end="", flush=True)
    run.proc.wait(timeout=STEP_TIMEOUT)


def main(dsn: str) -> int:
    t0 = time.monotonic()
    channel = f"demo-{time.strftime('%Y%m%dT%H%M%S')}-{uuid.uuid4().hex[:8]}"
    provider = FakeProvider(dsn, namespace=f"{channel}/")
    problems: list[str] = []

    def check(ok: bool, what: str) -> None:
        print(f"  {'ok  ' if ok else 'FAIL'} {what}", flush=True)
        if not ok:
            problems.append(what)

    print("Actae crash-recovery demo")
    print(f"  agent run (channel): {channel}")
    print(f"  tool call: {TOOL} {json.dumps(PARAMS)}, key '{KEY}', lease {LEASE_SECONDS} s")
    print("  payment provider: idempotent; it deduplicates on the key it is given\n")

    print("Step 1. Worker A claims the charge, the provider charges the card, and A is killed")
    print("        with SIGKILL before it can tell Actae the result.")
    a = start(dsn, "A", channel, crash=True)
    follow(a, until_ready=True)
    if a.proc.poll() is not None or not a.fact("ready"):
        # A ended on its own (its error is on stderr above) before charging: no story to tell.
        print(f"    [demo] worker A (pid {a.proc.pid}) failed with exit status"
              f" {a.proc.returncode} before the charge; the demo stops here", flush=True)
        print("\nINVARIANT FAILED: worker A did not reach the charge", flush=True)
        return 1
    os.kill(a.proc.pid, signal.SIGKILL)  # A is alive (not reaped) and waiting to be killed
    a.proc.wait(timeout=STEP_TIMEOUT)
    print(f"    [demo] sent SIGKILL to worker A (pid {a.proc.pid}); "
          f"exit status {a.proc.returncode}")
    check(a.outcomes() == ["claimed"], "worker A got outcome claimed")
    check(a.proc.returncode == -signal.SIGKILL, "worker A died of SIGKILL")

    with SyncActaeClient(dsn, max_size=1) as client:
        row = client.get_execution(channel_id=channel, key_name=KEY)
    print("\nStep 2. What is known after the crash:")
    print(f"    ledger: status {row.status}, fence {row.fence}, result {json.dumps(row.result)}")
    print(f"    provider: {provider.effects()} charge(s), {provider.requests()} request(s)")
    print("    The card was charged, but Actae has no result: only the provider knows.")
    check(row.status == "claimed" and row.result is None, "ledger shows no recorded outcome")
    check(provider.effects() == 1, "the provider charged once")

    print("\nStep 3. Worker B takes over the same tool call. Actae makes it wait for A's lease,")
    print("        then hands it over, flagged ambiguous: A may or may not have charged.")
    b = start(dsn, "B", channel)
    follow(b)
    check(b.proc.returncode == 0, "worker B finished")
    check("reclaimed" in b.outcomes(), "worker B got outcome reclaimed after the lease lapsed")
    reclaim = next((f for f in b.facts if f.get("outcome") == "reclaimed"), None) or {}
    check(reclaim.get("ambiguous") is True and reclaim.get("fence") == 2,
          "the reclaim is ambiguous = true with fence 2")
    check(b.fact("effect_id") == a.fact("effect_id"),
          "the provider returned A's charge for the same key instead of charging again")

    print("\nStep 4. Worker C runs the agent step again later.")
    c = start(dsn, "C", channel)
    follow(c)
    check(c.outcomes() == ["replayed"], "worker C got outcome replayed")
    check(c.fact("result") == b.fact("result"), "worker C got B's stored result")

    with SyncActaeClient(dsn, max_size=1) as client:
        row = client.get_execution(channel_id=channel, key_name=KEY)
    effects, requests = provider.effects(), provider.requests()
    print("\nThe books:")
    print(f"    ledger: status {row.status}, attempt {row.attempt}, fence {row.fence}, "
          f"ambiguous {str(row.ambiguous).lower()}, result {json.dumps(row.result)}")
    print(f"    provider charge count: {effects}")
    print(f"    provider request count: {requests} (A and B; C never called it)")
    check(row.status == "completed" and row.fence == 2, "ledger: completed by the second owner")
    check(effects == 1, "the customer was charged exactly once")
    check(requests == 2, "the provider was asked exactly twice")

    print(f"\n{'INVARIANT HOLDS' if not problems else 'INVARIANT FAILED'}: "
          f"{effects} charge, {requests} provider requests, "
          f"{time.monotonic() - t0:.1f} s")
    return 1 if problems else 0


if __name__ == "__main__":
    dsn = os.environ.get("ACTAE_DSN")
    if not dsn:
        print("set ACTAE_DSN to a migrated Actae database (or run `actae demo`)",
              file=sys.stderr)
        sys.exit(2)
    if sys.argv[1:2] == ["worker"]:
        try:
            sys.exit(worker(dsn, sys.argv[2], sys.argv[3], "--crash-after-charge" in sys.argv))
        except (ActaeError, psycopg.Error) as exc:  # one line on stderr, not a traceback
            print(f"    [worker {sys.argv[2]}, pid {os.getpid()}] failed:"
                  f" {(str(exc).strip() or repr(exc)).splitlines()[0]}",
                  file=sys.stderr, flush=True)
            sys.exit(1)
    try:
        require_migrated(dsn)
    except (ActaeError, psycopg.Error) as exc:
        print(f"actae.demo.crash: {str(exc).strip().splitlines()[0]}", file=sys.stderr)
        sys.exit(1)
    sys.exit(main(dsn))
