"""Fork fidelity suite: does a fork reproduce the run it was forked from?

    ACTAE_DSN=... python -m tests.tools.fidelity [--judge module:factory] [--out PATH]
    (make fidelity)

For every scenario in tests/tools/scenarios/ (six unrelated agents) it runs, against a real
database:

1. the original run, steps 1..N;
2. a fork at a middle step k, with the same workflow code run again from the top on the
   fork (steps 1..k replay from the inherited prefix, k+1..N really run);
3. a re-run from scratch on a new channel, with the same inputs.

Deterministic checks (all must hold for the fork):
* identical inherited prefix: the fork's events 1..k equal the original's (type, payload,
  hash chain) and the receipt's prefix_sha256 is the original's chain value at k;
* the fork's steps 1..k replayed (transition outcome ``replayed``), none was rewritten;
* no tool re-executed that completed in the prefix: no tool of steps 1..k ran in the fork,
  the fork channel recorded no execution under any of their keys, and the provider received
  no new request under their idempotency keys;
* equal final state where inputs are equal: the fork's final state equals the original's
  once identifiers of effects the fork itself performed (``effect_id``, ``*_effect_id``,
  ``idempotency_key``: assigned by the provider to the fork's new charges, emails, ...) are
  masked. A re-run from scratch is not held to this: its tools answered anew.

Judge: anything with ``name`` and ``score(scenario, original, candidate) -> float`` (0..10)
— the ``Judge`` protocol — so an LLM judge can be plugged in with ``--judge``. The default,
``StructuralJudge``, is deterministic and offline: 10 x (0.4 event-log similarity + 0.4
final-state similarity + 0.2 deliverable similarity), where a similarity is the share of
equal JSON leaves (same path, same value) and the deliverable is compared token by token
(difflib ratio over actae.fakes.tokenize). A scenario passes when every check holds, its fork
scores >= 7.0 and the fork scores no worse than the re-run minus 1.5. The table goes to
docs/FIDELITY.md.
"""

from __future__ import annotations

import argparse
import difflib
import importlib
import os
import sys
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import psycopg

from actae import SyncActaeClient, idempotency_key
from actae.demo.research import Agent
from actae.fakes import FakeModel, FakeProvider, tokenize
from tests.tools.scenarios import SCENARIOS, Scenario

PASS_SCORE = 7.0
MAX_BEHIND_RERUN = 1.5
DEFAULT_OUT = Path(__file__).resolve().parents[2] / "docs" / "FIDELITY.md"


@dataclass(frozen=True)
class RunRecord:
    """One run of a scenario as a judge sees it, read back from the ledger."""

    channel_id: str
    events: list[dict[str, Any]]  # cursor, event_type, payload, chain_sha256
    state: dict[str, Any]
    output: str
    ran: list[tuple[int, str, str]]  # (step, key_name, tool_name) of tools that really ran
    outcomes: list[str]  # per step: transitioned | replayed


class Judge(Protocol):
    name: str

    def score(self, scenario: Scenario, original: RunRecord, candidate: RunRecord) -> float:
        """0 (unrelated) .. 10 (indistinguishable from the original)."""
        ...


def _leaves(value: Any, path: str = "") -> dict[str, Any]:
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            out.update(_leaves(item, f"{path}/{key}"))
        return out or {path: {}}
    if isinstance(value, list):
        out = {}
        for index, item in enumerate(value):
            out.update(_leaves(item, f"{path}/{index}"))
        return out or {path: []}
    return {path: value}


def leaf_similarity(a: Any, b: Any) -> float:
    """Share of JSON leaves (path and value) the two documents have in common."""
    la, lb = _leaves(a), _leaves(b)
    paths = la.keys() | lb.keys()
    if not paths:
        return 1.0
    same = sum(1 for p in paths if p in la and p in lb and la[p] == lb[p])
    return same / len(paths)


class StructuralJudge:
    """The default judge: deterministic, offline (see the module docstring)."""

    name = "structural (default, offline)"

    def score(self, scenario: Scenario, original: RunRecord, candidate: RunRecord) -> float:
        length = max(len(original.events), len(candidate.events), 1)
        history = sum(
            leaf_similarity(a["payload"], b["payload"])
            for a, b in zip(original.events, candidate.events, strict=False)
            if a["event_type"] == b["event_type"]
        ) / length
        state = leaf_similarity(original.state, candidate.state)
        text = difflib.SequenceMatcher(
            None, tokenize(original.output), tokenize(candidate.output), autojunk=False
        ).ratio()
        return round(10 * (0.4 * history + 0.4 * state + 0.2 * text), 2)


_MASKED = "<effect of this run>"


def mask_own_effects(value: Any) -> Any:
    """The document with provider-assigned identifiers of effects masked."""
    if isinstance(value, dict):
        return {k: _MASKED if (k in ("effect_id", "idempotency_key") or k.endswith("_effect_id"))
                else mask_own_effects(v) for k, v in value.items()}
    if isinstance(value, list):
        return [mask_own_effects(v) for v in value]
    return value


@dataclass
class Result:
    scenario: Scenario
    fork_score: float
    rerun_score: float
    checks: dict[str, bool] = field(default_factory=dict)
    original: RunRecord | None = None
    fork: RunRecord | None = None
    rerun: RunRecord | None = None

    @property
    def passed(self) -> bool:
        return (all(self.checks.values()) and self.fork_score >= PASS_SCORE
                and self.fork_score >= self.rerun_score - MAX_BEHIND_RERUN)


def requests_per_key(dsn: str, namespace: str, keys: list[str]) -> dict[str, int]:
    """Requests the provider received under each idempotency key of a namespace."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        rows = conn.execute(
            "select idempotency_key, count(*) from fake_provider.requests"
            " where namespace = %s and idempotency_key = any(%s) group by idempotency_key",
            (namespace, keys),
        ).fetchall()
    return {key: int(n) for key, n in rows}


def execute(client: SyncActaeClient, provider: FakeProvider, scenario: Scenario,
            channel_id: str) -> RunRecord:
    agent = Agent(client, channel_id, FakeModel(), provider)
    scenario.run(agent)
    events = [e.model_dump(include={"cursor", "event_type", "payload", "chain_sha256"})
              for e in client.iter_events(channel_id)]
    state = client.get_state(channel_id).state
    return RunRecord(channel_id, events, state, scenario.output(state),
                     [(r.step, r.key_name, r.tool_name) for r in agent.ran], agent.outcomes)


def evaluate(client: SyncActaeClient, dsn: str, scenario: Scenario, judge: Judge,
             run_id: str, tool_policies: dict[str, str] | None = None) -> Result:
    base = f"fidelity-{run_id}-{scenario.name}"
    provider = FakeProvider(dsn, namespace=f"{base}/")
    original = execute(client, provider, scenario, f"{base}-original")
    k = scenario.fork_at
    prefix_keys = [key for step, key, _ in original.ran if step <= k]
    provider_keys = [idempotency_key(original.channel_id, key) for key in prefix_keys]
    requests_before = requests_per_key(dsn, provider.namespace, provider_keys)

    receipt = client.fork_channel(original.channel_id, k, f"{base}-fork", None, tool_policies)
    fork = execute(client, provider, scenario, receipt.channel_id)
    rerun = execute(client, provider, scenario, f"{base}-rerun")

    own_in_fork = {e.key_name for e in client.list_executions(receipt.channel_id, None, False,
                                                              100000)}
    checks = {
        "ran all steps": len(original.events) == len(fork.events) == scenario.steps,
        "identical inherited prefix": (
            fork.events[:k] == original.events[:k]
            and receipt.prefix_sha256 == original.events[k - 1]["chain_sha256"]
        ),
        "prefix steps replayed": (fork.outcomes[:k] == ["replayed"] * k
                                  and "replayed" not in fork.outcomes[k:]),
        "no prefix tool re-executed": (
            all(step > k for step, _, _ in fork.ran)
            and not own_in_fork & set(prefix_keys)
            and requests_per_key(dsn, provider.namespace, provider_keys) == requests_before
        ),
        "equal final state (own effects masked)": (
            mask_own_effects(fork.state) == mask_own_effects(original.state)
        ),
    }
    return Result(scenario, judge.score(scenario, original, fork),
                  judge.score(scenario, original, rerun), checks, original, fork, rerun)


def run_suite(dsn: str, judge: Judge | None = None,
              only: list[str] | None = None) -> list[Result]:
    judge = judge or StructuralJudge()
    run_id = uuid.uuid4().hex[:8]
    chosen = [s for s in SCENARIOS if only is None or s.name in only]
    with SyncActaeClient(dsn, max_size=2) as client:
        return [evaluate(client, dsn, s, judge, run_id) for s in chosen]


def render(results: list[Result], judge: Judge) -> str:
    mean_fork = sum(r.fork_score for r in results) / len(results)
    mean_rerun = sum(r.rerun_score for r in results) / len(results)
    lines = [
        "# Fork fidelity",
        "",
        "Generated by `make fidelity` (`python -m tests.tools.fidelity`; its docstring has the"
        " method).",
        "Each scenario runs once (original), is forked at a middle step and re-run from the top",
        "on the fork (inherited steps replay, the rest really runs), and is re-run from scratch",
        "on a new channel with the same inputs. Scores compare each run with the original,",
        f"0-10, judge: {judge.name}. Pass: every deterministic check holds, fork score >= "
        f"{PASS_SCORE} and >= re-run score - {MAX_BEHIND_RERUN}.",
        "",
        "| scenario | steps | fork at | fork score | re-run score | checks | result |",
        "|---|---:|---:|---:|---:|---|---|",
    ]
    for r in results:
        failed = [name for name, ok in r.checks.items() if not ok]
        checks = "all hold" if not failed else "failed: " + ", ".join(failed)
        lines.append(
            f"| {r.scenario.name} | {r.scenario.steps} | {r.scenario.fork_at} | "
            f"{r.fork_score:.2f} | {r.rerun_score:.2f} | {checks} | "
            f"{'pass' if r.passed else 'FAIL'} |"
        )
    lines += [
        f"| **mean** | | | **{mean_fork:.2f}** | **{mean_rerun:.2f}** | | "
        f"**{sum(r.passed for r in results)}/{len(results)} pass** |",
        "",
        "Deterministic checks per scenario: " + "; ".join(
            results[0].checks) + ".",
        "",
        "Scenarios:",
        "",
    ]
    lines += [f"- `{r.scenario.name}`: {r.scenario.description}." for r in results]
    lines += [
        "",
        "Why a re-run scores lower: tools whose answers vary between requests (quotes, stock",
        "levels, order totals, provider-assigned effect ids) answer anew in a re-run, and the",
        "run diverges from there; a fork inherits those answers for its prefix. So re-run",
        "scores change from one generation of this file to the next; fork scores do not.",
        "",
    ]
    return "\n".join(lines)


def load_judge(spec: str) -> Judge:
    """``module:factory`` -> factory() (a class or a function returning a Judge)."""
    module, _, attr = spec.partition(":")
    judge: Judge = getattr(importlib.import_module(module), attr)()
    return judge


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--judge", help="module:factory of a Judge (default: structural)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="markdown table path")
    parser.add_argument("--only", help="comma-separated scenario names (default: all)")
    args = parser.parse_args(argv)
    dsn = os.environ.get("ACTAE_DSN")
    if not dsn:
        print("set ACTAE_DSN to a migrated Actae database", file=sys.stderr)
        return 2
    judge = load_judge(args.judge) if args.judge else StructuralJudge()
    results = run_suite(dsn, judge, args.only.split(",") if args.only else None)
    text = render(results, judge)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
    print(text)
    return 0 if all(r.passed for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
