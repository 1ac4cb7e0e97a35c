"""The seed README's first snippet, run verbatim against the real server.

Only the import, the client construction and the channel id (a unique suffix, so the test
can be re-run against the same database) differ from the snippet users copied. The snippet
branches on ``replayed`` only, so it handles claimed, reclaimed and replayed and gets two
outcomes wrong (docs/python.md, "Handling every claim outcome"): with another worker holding
the lease (``in_progress``) or a call that failed for good (``failed``) it runs the tool
anyway and then fails with AC400 "claim_token is required". The README's quick start now
branches on ``claim.owned`` (tests/python/integration/test_quickstart.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from actae import ActaeClient, InvalidInput, SyncActaeClient
from tests.python.support.helpers import run


async def seed_snippet(
    dsn: str, channel: str, charge_customer: Callable[[dict[str, Any]], Any]
) -> tuple[str, Any]:
    """The seed snippet, verbatim between the client and the return."""
    async with ActaeClient(dsn) as client:
        claim = await client.claim_execution(
            channel_id=channel, key_name="charge_customer:order-4471",
            tool_name="charge_customer", params={"order_id": "4471", "amount_cents": 4200},
            dedup_fields=["order_id"], lease_seconds=120)
        if claim.status == "replayed":
            result = claim.result
        else:
            result = await charge_customer(claim.execution.params)
            await client.complete_execution(claim.execution.id, claim.claim_token, result=result)  # noqa: E501 (verbatim)
    return claim.status, result


def test_seed_snippet_claims_completes_then_replays(dsn: str, unique: Callable[..., str]) -> None:
    channel = unique("run-7f2a")
    calls: list[dict[str, Any]] = []

    async def charge_customer(params: dict[str, Any]) -> dict[str, Any]:
        calls.append(params)
        return {"charge_id": f"ch_{len(calls)}", "amount_cents": params["amount_cents"]}

    def snippet() -> Any:
        return seed_snippet(dsn, channel, charge_customer)

    first_status, first_result = run(snippet())
    assert first_status == "claimed"
    assert first_result == {"charge_id": "ch_1", "amount_cents": 4200}
    assert calls == [{"order_id": "4471", "amount_cents": 4200}]

    second_status, second_result = run(snippet())
    assert second_status == "replayed"
    assert second_result == first_result
    assert len(calls) == 1, "a replay must not call charge_customer again"

    async def stored() -> Any:
        async with ActaeClient(dsn) as client:
            return await client.get_execution(
                channel_id=channel, key_name="charge_customer:order-4471")

    execution = run(stored())
    assert execution.status == "completed"
    assert execution.result == first_result
    assert execution.fence == 1 and execution.attempt == 1
    assert execution.lease_seconds == 120
    assert execution.dedup_fields == ["order_id"]


def test_seed_snippet_failure_branch_records_the_error(
    dsn: str, unique: Callable[..., str]
) -> None:
    """The snippet's `# on error:` line: a failed tool call is recorded, and with the
    default retryable = True the next run reclaims it (not ambiguous: the outcome is known)."""
    channel = unique("run-7f2a")

    async def charge_customer(params: dict[str, Any]) -> dict[str, Any]:
        raise RuntimeError("card declined")

    async def snippet() -> tuple[str, Any]:
        async with ActaeClient(dsn) as client:
            claim = await client.claim_execution(
                channel_id=channel, key_name="charge_customer:order-4471",
                tool_name="charge_customer", params={"order_id": "4471", "amount_cents": 4200},
                dedup_fields=["order_id"], lease_seconds=120)
            try:
                result = await charge_customer(claim.execution.params)
            except RuntimeError as exc:
                await client.fail_execution(claim.execution.id, str(exc),
                                            claim_token=claim.claim_token)
                failed = await client.get_execution(claim.execution.id)
                return claim.status, failed
            return claim.status, result

    status, failed = run(snippet())
    assert status == "claimed"
    assert failed.status == "failed" and failed.error == "card declined"
    assert failed.retryable is True

    async def again() -> Any:
        async with ActaeClient(dsn) as client:
            return await client.claim_execution(
                channel_id=channel, key_name="charge_customer:order-4471",
                tool_name="charge_customer", params={"order_id": "4471", "amount_cents": 4200},
                dedup_fields=["order_id"], lease_seconds=120)

    claim = run(again())
    assert claim.status == "reclaimed"
    assert claim.ambiguous is False
    assert claim.fence == 2 and claim.claim_token is not None


@pytest.mark.parametrize("outcome", ["in_progress", "failed"])
def test_seed_snippet_mishandles_in_progress_and_failed(
    dsn: str, unique: Callable[..., str], outcome: str
) -> None:
    """The documented gap: another worker owns the call (or it failed for good), and the
    snippet still charges, then cannot record the result."""
    channel = unique("run-7f2a")
    calls: list[dict[str, Any]] = []

    async def charge_customer(params: dict[str, Any]) -> dict[str, Any]:
        calls.append(params)
        return {"charge_id": f"ch_{len(calls)}"}

    with SyncActaeClient(dsn, max_size=1) as other_worker:
        held = other_worker.claim_execution(
            channel, "charge_customer:order-4471", "charge_customer",
            {"order_id": "4471", "amount_cents": 4200}, ["order_id"], 120)
        if outcome == "failed":
            other_worker.fail_execution(held.execution.id, "card declined", held.claim_token,
                                        retryable=False)
        with pytest.raises(InvalidInput, match="claim_token"):
            run(seed_snippet(dsn, channel, charge_customer))
        assert len(calls) == 1, "the snippet ran the tool although it did not own the call"
        row = other_worker.get_execution(channel_id=channel, key_name="charge_customer:order-4471")
    assert row.status == ("claimed" if outcome == "in_progress" else "failed")
    assert row.result is None and row.fence == 1
