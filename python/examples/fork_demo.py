"""Fork demo: change your mind at step 5 without paying for steps 1..5 again.

    ACTAE_DSN=... python python/examples/fork_demo.py   (the second half of `make demo`)

The research agent (research_agent.py) runs end to end. Then the editor changes the
instruction for the final revision (step 6). Instead of running everything again, the run
is forked after step 5 and the same code runs on the fork: steps 1..5 replay from the
inherited history, only steps 6..8 really run. Every figure printed is measured in this run
(fork_report.py has the full table). Exits non-zero if the story's invariants break: the
fork must spend fewer tokens and send no new search request.
"""

from __future__ import annotations

import os
import sys

from fork_report import measure
from research_agent import CHANGED_INSTRUCTION, INSTRUCTION, STEPS


def main() -> int:
    dsn = os.environ.get("ACTAE_DSN")
    if not dsn:
        print("set ACTAE_DSN to a migrated Actae database", file=sys.stderr)
        return 2
    report = measure(dsn)
    b, f, s = report.baseline, report.fork, report.scratch
    before, after = report.requests_before_fork, report.requests_after_fork
    new_searches = after["search"] - before["search"]

    def say(text: str = "") -> None:
        print(text, flush=True)

    say("=== Part 2: forking a run instead of starting over ===")
    say()
    say(f"1. A research agent runs {len(STEPS)} steps: {', '.join(STEPS)}.")
    say("   Each step is recorded in Actae; each model call and paid API call goes through")
    say(f"   run_tool. Instruction: \"{INSTRUCTION}\"")
    say(f"   It used {b.usage.total} model tokens ({b.usage.calls} model calls) and made "
        f"{before['search']} paid searches, {before['charge']} charge, "
        f"{before['receipt']} receipt.")
    say()
    say("2. The editor changes the instruction for the final revision (step 6):")
    say(f"   \"{CHANGED_INSTRUCTION}\"")
    say(f"   We fork the run after step {report.fork_cursor} (nothing is copied) and run the "
        "same code on the fork.")
    replayed_steps = report.fork_cursor
    say(f"   Steps 1-{replayed_steps}: replayed from the inherited history — "
        f"{f.replayed} model calls and searches answered from the ledger,")
    say(f"   {new_searches} new search requests.")
    say(f"   Steps {replayed_steps + 1}-{len(STEPS)}: really ran — "
        + ", ".join(f"{r.tool_name} (step {r.step})" for r in f.ran)
        + f": {f.usage.total} tokens.")
    say()
    say(f"3. Starting over would have cost {s.usage.total} tokens and "
        f"{before['search']} more searches.")
    say(f"   The fork cost {f.usage.total} tokens: {report.saved} saved "
        f"({report.saved_percent:.1f}%).")
    say(f"   Fork receipt: prefix sha256 {report.prefix_sha256[:16]}... — anyone can check it")
    say("   by folding the hash chain over list_events of the fork.")
    ok = report.saved > 0 and new_searches == 0 and all(r.step > report.fork_cursor
                                                         for r in f.ran)
    say()
    say("Fork demo: OK" if ok else "Fork demo: INVARIANT BROKEN")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
