"""The flagship workflow: a research agent whose every step and side effect is durable.

The agent plans, gathers sources from a (paid) search API, summarises them, drafts, reviews,
revises to the editor's instruction, charges the customer and sends a receipt. It runs on
``FakeModel`` (deterministic, no network; tokens counted with the tokenizer documented in
actae.fakes) and ``FakeProvider`` (a provider whose books live in PostgreSQL).

How it uses Actae (the ``Agent`` class below, about forty lines):

* every step is one ``transition_state`` with ``operation_id = "step-<n>:<name>"`` and the
  state version it expects, so the event log and the state advance together;
* every model call and every side effect is ``run_tool``: a model call's key is
  ``model:<name>:<sha256(prompt)[:16]>`` (the prompt is the call's identity), a side
  effect's key is its business identity (``search:0``, ``charge``, ``receipt``) and the tool
  hands ``ctx.idempotency_key`` to the provider.

So the workflow can always be run again *from the top*: after a crash, or in a fork. Steps
already recorded replay (same cursor, same version), completed model calls and side effects
replay their stored results (no tokens, no provider request), and only the unfinished rest
really runs. A fork at step 5 with a changed instruction therefore pays only for steps 6..8.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from actae import SyncActaeClient, ToolContext
from actae.fakes import FakeModel, FakeProvider

TOPIC = "durable execution for AI agents on PostgreSQL"
INSTRUCTION = "Write for engineers: precise, failure modes first, with examples."
CHANGED_INSTRUCTION = "Write for executives: brief, costs and risks first, no jargon."
CUSTOMER = "cus_4471"
PRICE_CENTS = 4900
QUERIES = 4
DOCUMENTS_PER_QUERY = 3


@dataclass(frozen=True)
class ToolRun:
    """A tool that really ran in this process (not replayed): in which step, under which key."""

    step: int
    key_name: str
    tool_name: str


@dataclass
class Agent:
    """One run of an agent on one channel (a fresh run, a resumed one, or a fork)."""

    client: SyncActaeClient
    channel_id: str
    model: FakeModel
    provider: FakeProvider
    step_no: int = 0
    version: int = 0
    state: dict[str, Any] = field(default_factory=dict)
    ran: list[ToolRun] = field(default_factory=list)
    tool_calls: int = 0  # run_tool calls made (ran + replayed)
    outcomes: list[str] = field(default_factory=list)  # per step: transitioned | replayed

    def think(self, name: str, prompt: str, max_tokens: int) -> dict[str, Any]:
        """A model call, durable: {"text", "tokens_in", "tokens_out"}."""
        digest = hashlib.sha256(prompt.encode()).hexdigest()[:16]
        answer: dict[str, Any] = self.act("model", f"model:{name}:{digest}",
                                          {"prompt": prompt, "max_tokens": max_tokens},
                                          lambda ctx: self.model.complete(prompt, max_tokens))
        return answer

    def act(self, tool_name: str, key_name: str, params: dict[str, Any],
            fn: Callable[[ToolContext], Any]) -> Any:
        """A side effect, durable: fn(ctx) runs at most once per successful outcome."""

        self.tool_calls += 1

        def tool(ctx: ToolContext) -> Any:
            self.ran.append(ToolRun(self.step_no + 1, key_name, tool_name))
            return fn(ctx)

        return self.client.run_tool(tool, channel_id=self.channel_id, key_name=key_name,
                                    tool_name=tool_name, params=params)

    def step(self, name: str, **updates: Any) -> None:
        """Record step n: its event (the updates) and the new state, atomically."""
        self.step_no += 1
        state = {**self.state, **updates}
        done = self.client.transition_state(
            self.channel_id, name, {"step": self.step_no, "set": updates}, state,
            self.version, None, f"step-{self.step_no}:{name}",
        )
        self.version, self.state = done.version, state
        self.outcomes.append(done.outcome)


def documents(query: str) -> list[dict[str, str]]:
    """What the fake search API finds for a query: deterministic pages of ~300 tokens."""
    rng = random.Random(hashlib.sha256(query.encode()).digest())
    found = []
    for n in range(DOCUMENTS_PER_QUERY):
        words = [rng.choice(_CORPUS) for _ in range(rng.randint(240, 300))]
        sentences = [" ".join(words[i:i + 12]).capitalize() + "."
                     for i in range(0, len(words), 12)]
        found.append({"title": f"{query} ({n + 1})",
                      "url": f"https://example.org/{rng.getrandbits(40):x}",
                      "text": " ".join(sentences)})
    return found


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def research(agent: Agent, topic: str = TOPIC, instruction: str = INSTRUCTION,
             customer: str = CUSTOMER) -> dict[str, Any]:
    """The workflow: eight steps. Only step 6 depends on the instruction."""
    provider = agent.provider

    plan = agent.think("plan", f"Plan research on {topic}: reliability, recovery, cost, "
                       f"operations and auditing of {topic}. One angle per sentence.", 80)
    angles = [s.strip() for s in plan["text"].split(".") if s.strip()][:QUERIES]
    queries = [f"{topic}: {angle}" for angle in angles]
    agent.step("plan", topic=topic, plan=plan["text"], queries=queries)

    def search(query: str) -> Callable[[ToolContext], Any]:
        def call(ctx: ToolContext) -> Any:
            paid = provider.charge(ctx.idempotency_key, "search", {"query": query})
            return {"effect_id": paid["effect_id"], "documents": documents(query)}
        return call

    sources = []
    for i, query in enumerate(queries):
        found = agent.act("search", f"search:{i}", {"query": query}, search(query))
        sources += [{"effect_id": found["effect_id"], **doc} for doc in found["documents"]]
    agent.step("gather", sources=sources)

    summaries = [
        agent.think("summarise", f"Summarise this source for a report on {topic}:\n"
                    f"{source['title']}\n{source['text']}", 60)["text"]
        for source in sources
    ]
    agent.step("summarise", summaries=summaries)

    draft = agent.think("draft", f"Draft a report on {topic} from these notes:\n"
                        + "\n".join(summaries), 300)["text"]
    agent.step("draft", draft=draft)

    review = agent.think("review", f"Review this draft for accuracy and gaps:\n{draft}",
                         120)["text"]
    agent.step("review", review=review)

    report = agent.think("revise", f"Instruction: {instruction}\nRevise the draft using the "
                         f"review.\nDraft:\n{draft}\nReview:\n{review}", 300)["text"]
    agent.step("revise", instruction=instruction, report=report)

    order = {"customer": customer, "amount_cents": PRICE_CENTS, "report": _digest(report)}
    charge = agent.act("charge", "charge", order,
                       lambda ctx: provider.charge(ctx.idempotency_key, "charge", order))
    agent.step("charge", charge=charge)

    receipt_for = {"customer": customer, "charge_effect_id": charge["effect_id"],
                   "amount_cents": PRICE_CENTS}
    receipt = agent.act("receipt", "receipt", receipt_for,
                        lambda ctx: provider.charge(ctx.idempotency_key, "receipt", receipt_for))
    agent.step("receipt", receipt=receipt)
    return agent.state


STEPS = ("plan", "gather", "summarise", "draft", "review", "revise", "charge", "receipt")

_CORPUS_TEXT = (
    "ledger lease fence claim replay fork cursor snapshot event state worker crash retry "
    "timeout idempotency key provider charge refund receipt agent model token prompt cost "
    "budget latency postgres transaction commit rollback lock isolation heartbeat recovery "
    "audit trail hash chain prefix lineage policy block live operator cancel purge retention "
    "tool call result error ambiguous reconcile queue backoff owner epoch clock database "
    "schema function role grant security definer search path migration index vacuum "
    "throughput benchmark baseline regression failure mode duplicate effect exactly once"
)
_CORPUS = _CORPUS_TEXT.split()

