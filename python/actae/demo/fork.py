"""Forks pay off: what a fork at step 5 saves, measured on a real run.

    actae demo fork       the story, told step by step (the second half of `actae demo`)
    actae demo report     the full token table (make report)

1. Baseline: the research agent (actae.demo.research) runs end to end, steps 1..8.
2. Fork: ``fork_channel(baseline, at_cursor=5)``; the same workflow code runs from the top on
   the fork with a changed editor instruction (it only changes step 6). Steps 1..5 replay
   from the inherited prefix: their events, their model completions, their search requests.
   Only steps 6..8 really run.
3. Re-run from scratch: the same changed instruction on a new channel, steps 1..8 — what
   getting the revised report costs without a fork.

Every number is measured: tokens are counted by FakeModel as it processes prompts and
completions (tokenizer in actae.fakes), provider requests are counted in the provider's
own books (fake_provider.requests), and the report cross-checks the token totals against
the completions stored in Actae's ledger.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

import psycopg

from actae import SyncActaeClient
from actae.demo.research import (
    CHANGED_INSTRUCTION,
    INSTRUCTION,
    STEPS,
    Agent,
    ToolRun,
    research,
)
from actae.fakes import FakeModel, FakeProvider, Usage

FORK_AT = 5
KINDS = ("search", "charge", "receipt")


@dataclass(frozen=True)
class Run:
    """One run of the workflow on one channel, as measured."""

    label: str
    channel_id: str
    usage: Usage
    ran: list[ToolRun]
    state: dict[str, Any]
    ledger_tokens: int  # tokens of the model completions this channel itself recorded
    tool_calls: int  # run_tool calls the workflow made (really ran + replayed)

    @property
    def replayed(self) -> int:
        return self.tool_calls - len(self.ran)

    @property
    def steps_run(self) -> list[int]:
        return sorted({r.step for r in self.ran})


@dataclass(frozen=True)
class Report:
    baseline: Run
    fork: Run
    scratch: Run
    fork_cursor: int
    prefix_sha256: str
    requests_before_fork: dict[str, int]
    requests_after_fork: dict[str, int]
    fork_own_executions: int  # executions recorded in the fork channel itself

    @property
    def saved(self) -> int:
        return self.scratch.usage.total - self.fork.usage.total

    @property
    def saved_percent(self) -> float:
        return 100.0 * self.saved / self.scratch.usage.total


def requests_by_kind(dsn: str, namespace: str) -> dict[str, int]:
    """Requests the provider received in this namespace, per kind (its own books)."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        rows = conn.execute(
            "select kind, count(*) from fake_provider.requests"
            " where namespace = %s group by kind", (namespace,),
        ).fetchall()
    counts = {kind: 0 for kind in KINDS}
    counts.update({kind: int(n) for kind, n in rows})
    return counts


def ledger_tokens(client: SyncActaeClient, channel_id: str) -> int:
    """Tokens of the model completions recorded by this channel itself (not inherited)."""
    rows = client.list_executions(channel_id, "completed", False, 100000)
    return sum(r.result["tokens_in"] + r.result["tokens_out"]
               for r in rows if r.tool_name == "model")


def run_workflow(client: SyncActaeClient, provider: FakeProvider, label: str, channel_id: str,
                 instruction: str) -> Run:
    model = FakeModel()
    agent = Agent(client, channel_id, model, provider)
    state = research(agent, instruction=instruction)
    return Run(label, channel_id, model.usage(), agent.ran, state,
               ledger_tokens(client, channel_id), agent.tool_calls)


def measure(dsn: str) -> Report:
    run_id = uuid.uuid4().hex[:8]
    namespace = f"report-{run_id}/"
    provider = FakeProvider(dsn, namespace=namespace)
    with SyncActaeClient(dsn, max_size=2) as client:
        baseline = run_workflow(client, provider, "baseline", f"report-{run_id}-baseline",
                                INSTRUCTION)
        before = requests_by_kind(dsn, namespace)
        fork = client.fork_channel(baseline.channel_id, FORK_AT, f"report-{run_id}-fork")
        forked = run_workflow(client, provider, f"fork at step {FORK_AT}", fork.channel_id,
                              CHANGED_INSTRUCTION)
        after = requests_by_kind(dsn, namespace)
        scratch = run_workflow(client, provider, "re-run from scratch",
                               f"report-{run_id}-scratch", CHANGED_INSTRUCTION)
        own_in_fork = len(client.list_executions(fork.channel_id, None, False, 100000))
    return Report(baseline, forked, scratch, fork.fork_cursor, fork.prefix_sha256, before,
                  after, own_in_fork)


def _steps(run: Run) -> str:
    steps = run.steps_run
    return f"{steps[0]}-{steps[-1]}" if steps else "-"


def render(report: Report) -> str:
    b, f, s = report.baseline, report.fork, report.scratch
    lines = [
        "Actae fork token report — research agent, FakeModel "
        "(tokens: \\w+ runs and single punctuation marks)",
        "",
        f"{'run':<40}{'steps run':>10}{'model calls':>13}{'tokens in':>11}{'tokens out':>12}"
        f"{'total':>8}",
    ]
    for label, run in (("baseline (original instruction)", b),
                       ("re-run from scratch (new instruction)", s),
                       (f"fork at step {report.fork_cursor} (new instruction)", f)):
        u = run.usage
        lines.append(f"{label:<40}{_steps(run):>10}{u.calls:>13}{u.tokens_in:>11}"
                     f"{u.tokens_out:>12}{u.total:>8}")
    lines += [
        "",
        f"baseline tokens: {b.usage.total}",
        f"forked tokens:   {f.usage.total}",
        f"tokens saved:    {report.saved} of {s.usage.total} "
        f"({report.saved_percent:.1f}% less than re-running from scratch;"
        f" the fork cost {100.0 * f.usage.total / b.usage.total:.1f}% of the baseline)",
        "",
        "provider requests          " + "  ".join(f"{k:>8}" for k in KINDS),
        "  after the baseline       "
        + "  ".join(f"{report.requests_before_fork[k]:>8}" for k in KINDS),
        "  after the fork's run     "
        + "  ".join(f"{report.requests_after_fork[k]:>8}" for k in KINDS),
        "",
        f"The fork inherited cursors 1..{report.fork_cursor} (prefix sha256 "
        f"{report.prefix_sha256[:16]}...) and replayed {f.replayed} of its {f.tool_calls} "
        "tool calls from them (model completions and searches): "
        f"{report.requests_after_fork['search'] - report.requests_before_fork['search']} new "
        "search requests. It really ran: "
        + ", ".join(f"step {r.step} {r.tool_name}" for r in f.ran) + ".",
        f"Ledger cross-check: the fork channel recorded {report.fork_own_executions} executions"
        f" of its own; the model completions each run recorded hold {b.ledger_tokens}, "
        f"{s.ledger_tokens} and {f.ledger_tokens} tokens.",
    ]
    return "\n".join(lines)



def report(dsn: str) -> int:
    """Print the token table; exit status 1 when the fork saved nothing."""
    measured = measure(dsn)
    print(render(measured))
    return 0 if measured.saved > 0 else 1


def story(dsn: str) -> int:
    """Tell the fork story from a measured run; exit status 1 when an invariant breaks (the
    fork must spend fewer tokens and send no new search request)."""
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
