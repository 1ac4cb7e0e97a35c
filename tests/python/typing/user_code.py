"""Code as users write it from the README and docs/python.md, type-checked by `make lint`
(pyright, strict) and never run: the public API must accept what the docs show without a
cast or an assert. A change to the API's types that breaks this breaks the lint."""

from __future__ import annotations

from typing import Any

from psycopg import AsyncConnection, Connection
from psycopg.rows import DictRow, dict_row
from psycopg_pool import AsyncConnectionPool, ConnectionPool

from actae import ActaeClient, SyncActaeClient


def charge_customer(params: dict[str, Any]) -> dict[str, Any]:
    return {"charge_id": "ch_1", "amount_cents": params["amount_cents"]}


def quick_start(dsn: str) -> Any:
    """The README's quick start: the token of an owned claim goes back as it came."""
    with SyncActaeClient(dsn) as client:
        claim = client.claim_execution(
            "run-7f2a", "charge_customer:order-4471", "charge_customer",
            {"order_id": "4471", "amount_cents": 4200}, dedup_fields=["order_id"])
        if claim.owned:
            result = charge_customer(claim.execution.params)
            client.complete_execution(claim.execution.id, claim.claim_token, result=result)
            return result
        return claim.result


def a_worker_loop(dsn: str) -> None:
    """claim_run, then complete_run with the run's token."""
    with SyncActaeClient(dsn) as client:
        run = client.claim_run("default", "worker-1")
        if run is not None:
            client.complete_run(run.channel_id, run.claim_token, {"done": True})


def shared_pools(dsn: str) -> None:
    """docs/python.md: a pool made for another library (LangGraph's savers use dict_row)."""
    pool = ConnectionPool[Connection[DictRow]](
        dsn, kwargs={"autocommit": True, "row_factory": dict_row}, open=False)
    with SyncActaeClient(pool=pool) as client:
        client.get_channel("run-7f2a")


async def shared_async_pool(dsn: str) -> None:
    pool = AsyncConnectionPool[AsyncConnection[DictRow]](
        dsn, kwargs={"autocommit": True, "row_factory": dict_row}, open=False)
    async with ActaeClient(pool=pool) as client:
        await client.get_channel("run-7f2a")
