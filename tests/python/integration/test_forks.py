"""Forks (SPEC section 3) through the async driver, ending with a whole agent run that is
forked at step 5 while the parent carries on.

A "provider" here is a dict of call counts: a tool result that replays must leave it alone.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from actae import (
    ActaeClient,
    Claim,
    ForkToolBlocked,
    IdempotencyConflict,
    InvalidInput,
    NotFound,
    VersionConflict,
)
from tests.python.support.helpers import all_events, fold_chain, with_client


async def call_tool(
    client: ActaeClient, channel: str, key: str, tool: str, params: dict[str, Any],
    provider: Counter[str],
) -> tuple[Claim, Any]:
    """Claim; run the tool (count a provider call) only when owned; complete."""
    claim = await client.claim_execution(channel, key, tool, params)
    if claim.status == "replayed":
        return claim, claim.result
    assert claim.owned, claim.status
    provider[f"{channel}/{key}"] += 1
    result = {"tool": tool, "params": params, "by": channel}
    await client.complete_execution(claim.execution.id, claim.claim_token, result=result)
    return claim, result


# --- the receipt and the prefix -----------------------------------------------------------

def test_fork_inherits_prefix_state_and_chain(dsn: str, unique: Callable[..., str]) -> None:
    async def body(client: ActaeClient) -> None:
        parent = unique("run")
        for n in range(1, 11):
            if n % 3 == 0:
                await client.transition_state(parent, "step", {"n": n}, {"at": n}, n // 3 - 1)
            else:
                await client.record_event(parent, "note", {"n": n})
        fork = await client.fork_channel(parent, 5)
        assert fork.outcome == "forked"
        assert fork.channel_id.startswith("fork-")
        assert (fork.source_channel_id, fork.fork_cursor, fork.version) == (parent, 5, 1)
        parent_events = await client.list_events(parent)
        fork_events = await all_events(client, fork.channel_id)
        assert fork_events == parent_events[:5]
        assert fork.prefix_sha256 == fold_chain(dsn, fork_events)[-1]
        assert fork.prefix_sha256 == parent_events[4].chain_sha256
        info = await client.get_channel(fork.channel_id)
        assert (info.head_cursor, info.state_version, info.fork_cursor) == (5, 1, 5)
        assert info.parent_channel_id == parent and info.lineage == [parent]
        assert info.fork_prefix_sha256 == info.head_chain_sha256 == fork.prefix_sha256
        state = await client.get_state(fork.channel_id)
        assert (state.version, state.cursor, state.state) == (1, 3, {"at": 3})
        with pytest.raises(NotFound):
            await client.get_state(fork.channel_id, version=2)  # parent's v2 is at cursor 6
        # The fork's next write continues the chain from the prefix.
        t = await client.transition_state(fork.channel_id, "alt", {"n": "6'"}, {"alt": 1}, 1)
        assert (t.cursor, t.version) == (6, 2)
        events = await client.list_events(fork.channel_id)
        assert fold_chain(dsn, events) == [e.chain_sha256 for e in events]
        assert events[5].chain_sha256 != parent_events[5].chain_sha256
        assert (await client.get_state(parent, version=2)).state == {"at": 6}

    with_client(dsn, body)


def test_fork_at_zero_and_at_head_and_errors(dsn: str, unique: Callable[..., str]) -> None:
    async def body(client: ActaeClient) -> None:
        parent = unique("run")
        for n in range(3):
            await client.record_event(parent, "e", n)
        empty = await client.fork_channel(parent, 0)
        assert empty.prefix_sha256 == "" and empty.version == 0
        assert await client.list_events(empty.channel_id) == []
        head = await client.fork_channel(parent, 3)
        assert head.prefix_sha256 == (await client.get_channel(parent)).head_chain_sha256
        with pytest.raises(NotFound) as beyond:
            await client.fork_channel(parent, 4)
        assert beyond.value.detail["head_cursor"] == 3
        with pytest.raises(NotFound):
            await client.fork_channel(unique("missing"), 0)
        with pytest.raises(InvalidInput) as bad_policy:
            await client.fork_channel(parent, 1, tool_policies={"charge": "sometimes"})
        assert bad_policy.value.detail["argument"] == "tool_policies"
        # Appends after a fork at the head stay in the parent.
        await client.record_event(parent, "e", 3)
        assert (await client.get_channel(head.channel_id)).head_cursor == 3

    with_client(dsn, body)


def test_fork_is_idempotent(dsn: str, unique: Callable[..., str]) -> None:
    async def body(client: ActaeClient) -> None:
        parent = unique("run")
        for n in range(4):
            await client.record_event(parent, "e", n)
        first = await client.fork_channel(parent, 2, operation_id="fork-op")
        again = await client.fork_channel(parent, 2, operation_id="fork-op")
        assert again.outcome == "replayed" and again.channel_id == first.channel_id
        assert again.prefix_sha256 == first.prefix_sha256
        with pytest.raises(IdempotencyConflict):
            await client.fork_channel(parent, 3, operation_id="fork-op")
        named = unique("branch")
        made = await client.fork_channel(parent, 2, named)
        assert made.outcome == "forked" and made.channel_id == named
        assert (await client.fork_channel(parent, 2, named)).outcome == "replayed"
        with pytest.raises(IdempotencyConflict) as other:
            await client.fork_channel(parent, 1, named)
        assert other.value.detail["fork_cursor"] == 2
        with pytest.raises(IdempotencyConflict):
            await client.fork_channel(parent, 0, parent)  # an existing ordinary channel

    with_client(dsn, body)


def test_fork_and_parent_never_see_each_others_writes(
    dsn: str, unique: Callable[..., str]
) -> None:
    async def body(client: ActaeClient) -> None:
        parent = unique("run")
        await client.record_event(parent, "e", 1, operation_id="op-1")
        await client.record_event(parent, "e", 2, operation_id="op-2")
        fork = (await client.fork_channel(parent, 1)).channel_id
        # An operation in the inherited prefix replays in the fork; one after the cut does not.
        replay = await client.record_event(fork, "e", 1, operation_id="op-1")
        assert replay.outcome == "replayed" and replay.cursor == 1
        fresh = await client.record_event(fork, "e", "fork-2", operation_id="op-2")
        assert fresh.outcome == "recorded" and fresh.cursor == 2
        await client.record_event(parent, "e", 3)
        await client.record_event(fork, "e", "fork-3")
        assert [e.payload for e in await client.list_events(parent)] == [1, 2, 3]
        assert [e.payload for e in await client.list_events(fork)] == [1, "fork-2", "fork-3"]
        # Executions: the fork's own claim is invisible in the parent and vice versa.
        await client.claim_execution(fork, "only-in-fork", "t", {})
        with pytest.raises(NotFound):
            await client.get_execution(channel_id=parent, key_name="only-in-fork")
        await client.claim_execution(parent, "only-in-parent", "t", {})
        with pytest.raises(NotFound):
            await client.get_execution(channel_id=fork, key_name="only-in-parent")

    with_client(dsn, body)


# --- which executions a fork inherits -----------------------------------------------------

def test_fork_inherits_exactly_the_completions_before_the_next_event(
    dsn: str, unique: Callable[..., str]
) -> None:
    async def body(client: ActaeClient) -> None:
        parent = unique("run")
        provider: Counter[str] = Counter()
        for n in range(1, 4):
            await client.record_event(parent, "e", n)
        await call_tool(client, parent, "a", "search", {"q": "a"}, provider)  # before event 4
        slow = await client.claim_execution(parent, "slow", "search", {"q": "slow"})
        await client.record_event(parent, "e", 4)
        await call_tool(client, parent, "b", "search", {"q": "b"}, provider)  # after event 4
        at3 = (await client.fork_channel(parent, 3)).channel_id
        at4 = (await client.fork_channel(parent, 4)).channel_id  # at the head
        await client.complete_execution(slow.execution.id, slow.claim_token, result="late")
        await call_tool(client, parent, "c", "search", {"q": "c"}, provider)  # after both forks

        a3, _ = await call_tool(client, at3, "a", "search", {"q": "a"}, provider)
        assert a3.status == "replayed" and a3.execution.channel_id == parent
        b3, _ = await call_tool(client, at3, "b", "search", {"q": "b"}, provider)
        assert b3.status == "claimed" and b3.execution.channel_id == at3
        b4, _ = await call_tool(client, at4, "b", "search", {"q": "b"}, provider)
        assert b4.status == "replayed"
        for fork in (at3, at4):
            # Claimed before the fork but completed after it: not inherited.
            slow_in_fork, _ = await call_tool(client, fork, "slow", "search", {"q": "slow"},
                                              provider)
            assert slow_in_fork.status == "claimed"
            c, _ = await call_tool(client, fork, "c", "search", {"q": "c"}, provider)
            assert c.status == "claimed"
        assert provider == Counter({
            f"{parent}/a": 1, f"{parent}/b": 1, f"{parent}/c": 1, f"{at3}/b": 1,
            f"{at3}/slow": 1, f"{at3}/c": 1, f"{at4}/slow": 1, f"{at4}/c": 1,
        })
        # get_execution by key resolves the same way a claim does.
        assert (await client.get_execution(channel_id=at3, key_name="a")).channel_id == parent
        # A replayed inherited key still checks it is the same operation.
        with pytest.raises(IdempotencyConflict):
            await client.claim_execution(at3, "a", "search", {"q": "different"})

    with_client(dsn, body)


def test_tool_policies_block_live_and_inheritance(dsn: str, unique: Callable[..., str]) -> None:
    async def body(client: ActaeClient) -> None:
        parent = unique("run")
        provider: Counter[str] = Counter()
        await client.record_event(parent, "start", {})
        await call_tool(client, parent, "charge:1", "charge_customer", {"amount": 1}, provider)
        await call_tool(client, parent, "search:1", "search", {"q": "x"}, provider)
        await client.record_event(parent, "charged", {})
        policies = {"charge_customer": "block", "search": "live"}
        fork = await client.fork_channel(parent, 2, tool_policies=policies)
        assert fork.tool_policies == policies
        f = fork.channel_id
        # block: an inherited result still replays (the card is never charged again)...
        charged, result = await call_tool(client, f, "charge:1", "charge_customer",
                                          {"amount": 1}, provider)
        assert charged.status == "replayed" and result["by"] == parent
        # ...but a claim that would run the tool raises, and writes nothing.
        with pytest.raises(ForkToolBlocked) as blocked:
            await client.claim_execution(f, "charge:2", "charge_customer", {"amount": 2})
        assert blocked.value.detail == {"channel_id": f, "tool_name": "charge_customer",
                                        "key_name": "charge:2"}
        with pytest.raises(NotFound):
            await client.get_execution(channel_id=f, key_name="charge:2")
        # live: the fork re-executes the tool under the same key.
        searched, result = await call_tool(client, f, "search:1", "search", {"q": "x"},
                                           provider)
        assert searched.status == "claimed" and result["by"] == f
        assert provider[f"{f}/search:1"] == 1
        assert provider[f"{parent}/charge:1"] == 1 and provider[f"{f}/charge:1"] == 0
        # The parent's row is untouched.
        own = await client.get_execution(channel_id=parent, key_name="search:1")
        assert own.result["by"] == parent and own.fence == 1
        # A fork of the fork inherits the policies unless it passes its own.
        await client.record_event(f, "more", {})
        child = await client.fork_channel(f, 3)
        assert child.tool_policies == policies
        with pytest.raises(ForkToolBlocked):
            await client.claim_execution(child.channel_id, "charge:3", "charge_customer", {})
        # The child inherits its parent fork's completed live search and the root's charge.
        s, _ = await call_tool(client, child.channel_id, "search:1", "search", {"q": "x"},
                               provider)
        assert s.status == "claimed"  # live in the child too: re-executed again
        c, _ = await call_tool(client, child.channel_id, "charge:1", "charge_customer",
                               {"amount": 1}, provider)
        assert c.status == "replayed" and c.execution.channel_id == parent
        relaxed = await client.fork_channel(f, 3, tool_policies={})
        assert relaxed.tool_policies == {}
        free = await client.claim_execution(relaxed.channel_id, "charge:3", "charge_customer",
                                            {})
        assert free.status == "claimed"

    with_client(dsn, body)


# --- end to end: a multi-step agent run forked at step 5 -----------------------------------

PARENT_TOOLS = ["search", "charge_customer", "lookup", "search", "send_email",
                "charge_customer", "search", "report"]
FORK_TOOLS = ["charge_customer", "apologise", "report"]


async def agent_step(
    client: ActaeClient, channel: str, n: int, tool: str, provider: Counter[str],
    params: dict[str, Any] | None = None,
) -> tuple[Claim, Any]:
    """Step n of an agent: call one tool, then record the step as a state transition."""
    params = params or {"step": n}
    claim, result = await call_tool(client, channel, f"{tool}:{n}", tool, params, provider)
    before = await client.get_state(channel)
    history = (before.state or {}).get("history", [])
    t = await client.transition_state(
        channel, f"step_{n}", {"tool": tool, "result": result},
        {"step": n, "history": [*history, tool]}, before.version, operation_id=f"step-{n}")
    assert (t.cursor, t.version, t.outcome) == (n, n, "transitioned")
    return claim, result


def test_agent_run_forked_at_step_5_end_to_end(dsn: str, unique: Callable[..., str]) -> None:
    async def body(client: ActaeClient) -> None:
        parent = unique("agent")
        provider: Counter[str] = Counter()
        for n, tool in enumerate(PARENT_TOOLS[:5], start=1):
            claim, _ = await agent_step(client, parent, n, tool, provider)
            assert claim.status == "claimed"

        # A stale writer (it read version 3) is rejected and writes nothing.
        with pytest.raises(VersionConflict) as stale:
            await client.transition_state(parent, "step_4", {}, {"step": 4}, 3)
        assert stale.value.detail["current_version"] == 5
        assert (await client.get_channel(parent)).head_cursor == 5

        fork = await client.fork_channel(parent, 5, unique("retry"), operation_id="retry-1")
        f = fork.channel_id
        assert (fork.fork_cursor, fork.version, fork.outcome) == (5, 5, "forked")

        # The fork replays steps 1..5 (no provider call)...
        calls_before = sum(provider.values())
        for n, tool in enumerate(PARENT_TOOLS[:5], start=1):
            claim, result = await call_tool(client, f, f"{tool}:{n}", tool, {"step": n},
                                            provider)
            assert claim.status == "replayed", (n, claim.status)
            assert claim.execution.channel_id == parent and result["by"] == parent
            redo = await client.transition_state(
                f, f"step_{n}", {"tool": tool, "result": result},
                {"step": n, "history": PARENT_TOOLS[:n]}, 0, operation_id=f"step-{n}")
            assert redo.outcome == "replayed" and redo.cursor == n
        assert sum(provider.values()) == calls_before, "replaying the prefix called a tool"

        # ...then parent and fork carry on side by side with different steps 6..8.
        # charge_customer:6 completes in the parent after the fork: fresh in the fork.
        for n in range(6, 9):
            claim, _ = await agent_step(client, parent, n, PARENT_TOOLS[n - 1], provider)
            assert claim.status == "claimed"
            params = {"step": n, "variant": "fork"}
            claim, _ = await agent_step(client, f, n, FORK_TOOLS[n - 6], provider, params)
            assert claim.status == "claimed" and claim.execution.channel_id == f
        assert provider[f"{f}/charge_customer:6"] == 1
        assert provider[f"{parent}/charge_customer:6"] == 1
        assert all(count == 1 for count in provider.values())

        # Histories: identical prefix (chain included), diverging suffixes.
        p_events = await all_events(client, parent)
        f_events = await all_events(client, f)
        assert [e.cursor for e in p_events] == list(range(1, 9))
        assert [e.cursor for e in f_events] == list(range(1, 9))
        assert f_events[:5] == p_events[:5]
        assert [e.event_type for e in f_events[5:]] == ["step_6", "step_7", "step_8"]
        assert [e.payload["tool"] for e in p_events[5:]] == PARENT_TOOLS[5:]
        assert [e.payload["tool"] for e in f_events[5:]] == FORK_TOOLS
        for a, b in zip(p_events[5:], f_events[5:], strict=True):
            assert a.chain_sha256 != b.chain_sha256
        p_chain = fold_chain(dsn, p_events)
        f_chain = fold_chain(dsn, f_events)
        assert p_chain == [e.chain_sha256 for e in p_events]
        assert f_chain == [e.chain_sha256 for e in f_events]
        assert fork.prefix_sha256 == f_chain[4] == p_chain[4]

        # States.
        p_state = await client.get_state(parent)
        f_state = await client.get_state(f)
        assert (p_state.version, p_state.state["history"]) == (8, PARENT_TOOLS)
        assert (f_state.version, f_state.state["history"]) == (8, PARENT_TOOLS[:5] + FORK_TOOLS)
        for v in range(6):
            assert await client.get_state(f, version=v) == await client.get_state(parent,
                                                                                version=v)
        assert (await client.get_state(f, at_cursor=6)).state["history"][-1] == FORK_TOOLS[0]
        info = await client.get_channel(f)
        assert (info.parent_channel_id, info.fork_cursor, info.lineage) == (parent, 5, [parent])
        assert (info.head_cursor, info.state_version) == (8, 8)
        assert info.head_chain_sha256 == f_chain[-1]
        # Replaying the fork request returns the same receipt.
        again = await client.fork_channel(parent, 5, f, operation_id="retry-1")
        assert again.outcome == "replayed" and again.prefix_sha256 == fork.prefix_sha256

        # Executions of each channel are its own (inherited ones are not copied).
        own = {e.key_name for e in await client.list_executions(f)}
        assert own == {f"{tool}:{n}" for n, tool in enumerate(FORK_TOOLS, start=6)}

        # A fork of the fork at its step 6 inherits root steps 1..5 and the fork's step 6.
        grandchild = await client.fork_channel(f, 6)
        g_events = await all_events(client, grandchild.channel_id)
        assert g_events == f_events[:6]
        assert grandchild.prefix_sha256 == f_chain[5]
        assert (await client.get_channel(grandchild.channel_id)).lineage == [parent, f]
        g1, _ = await call_tool(client, grandchild.channel_id, "search:1", "search",
                                {"step": 1}, provider)
        assert g1.status == "replayed" and g1.execution.channel_id == parent
        g6, _ = await call_tool(client, grandchild.channel_id, "charge_customer:6",
                                "charge_customer", {"step": 6, "variant": "fork"}, provider)
        assert g6.status == "replayed" and g6.execution.channel_id == f
        g7, _ = await call_tool(client, grandchild.channel_id, "apologise:7", "apologise",
                                {"step": 7, "variant": "fork"}, provider)
        assert g7.status == "replayed", "completed in the fork before its event 7"

    with_client(dsn, body)
