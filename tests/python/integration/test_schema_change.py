"""A migration that changes a row type the driver reads, applied while clients run: each of
their pooled connections had prepared the calls it repeats (psycopg prepares a statement
after prepare_threshold uses), and the server refuses such a statement for the connection's
life once the type has changed (0A000 "cached plan must not change result type"). Every call
failed until the pool replaced its connections (an hour by psycopg_pool's max_lifetime), and
a worker's runs failed for good; now the client closes that connection and sends the call
once more on another."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import psycopg
import pytest

from actae import ActaeClient, SyncActaeClient

_ROW = "actae._execution_row(actae.executions,text,boolean)"


def change_execution_row(admin: psycopg.Connection[Any]) -> None:
    """What a migration adding a field to execution_row does, with the reload of sql/ that
    follows it (every function replaced, so every plan that uses one is revalidated)."""
    (body,) = admin.execute("select pg_get_functiondef(%s::regprocedure)", (_ROW,)).fetchone() \
        or ("",)
    assert "p_row.cancel_reason\n    )::actae.execution_row" in body
    with admin.transaction():
        admin.execute("alter type actae.execution_row add attribute note text")
        admin.execute(body.replace("p_row.cancel_reason\n    )::actae.execution_row",
                                   "p_row.cancel_reason, null::text\n    )::actae.execution_row"))
        for (definition,) in admin.execute(
                "select pg_get_functiondef(p.oid) from pg_proc as p"
                " where p.pronamespace = 'actae'::regnamespace and p.prokind = 'f'"
                " and p.proname in ('get_execution', 'claim_execution')").fetchall():
            admin.execute(definition)


@pytest.mark.parametrize("flavour", ["sync", "async"])
def test_clients_go_on_after_a_migration_changes_a_row_type_they_read(
    actae_fresh_dsn: str, unique: Callable[..., str], flavour: str
) -> None:
    channel = unique("schema")
    with psycopg.connect(actae_fresh_dsn, autocommit=True) as admin:
        if flavour == "sync":
            with SyncActaeClient(actae_fresh_dsn, min_size=2, max_size=2) as client:
                claim = client.claim_execution(channel, "k", "t", {})
                # prepared on both of the pool's connections: the call sent again after
                # the first refusal goes to the other, as stale
                both = [client.pool.getconn(), client.pool.getconn()]
                for conn in both:
                    for _ in range(6):
                        client.get_execution(claim.execution.id, conn=conn)
                for conn in both:
                    client.pool.putconn(conn)
                change_execution_row(admin)
                for _ in range(4):
                    assert client.get_execution(claim.execution.id).id == claim.execution.id
                assert client.claim_execution(channel, "k", "t", {}).status == "in_progress"
            return

        async def run() -> None:
            async with ActaeClient(actae_fresh_dsn, min_size=2, max_size=2) as client:
                claim = await client.claim_execution(channel, "k", "t", {})
                both = [await client.pool.getconn(), await client.pool.getconn()]
                for conn in both:
                    for _ in range(6):
                        await client.get_execution(claim.execution.id, conn=conn)
                for conn in both:
                    await client.pool.putconn(conn)
                change_execution_row(admin)
                for _ in range(4):
                    got = await client.get_execution(claim.execution.id)
                    assert got.id == claim.execution.id
                again = await client.claim_execution(channel, "k", "t", {})
                assert again.status == "in_progress"

        asyncio.run(run())


def test_a_connection_given_as_conn_is_sent_again_outside_a_transaction(
    actae_fresh_dsn: str, unique: Callable[..., str]
) -> None:
    """A connection given as conn= (a caller's, or the one a watcher or the console's live
    view holds for as long as it follows a channel): outside a transaction the refused
    call is sent again on it, unprepared, each time; inside one the error (which aborted
    the transaction) is raised."""
    channel = unique("schema-conn")
    with psycopg.connect(actae_fresh_dsn, autocommit=True) as admin, psycopg.connect(
            actae_fresh_dsn, autocommit=True) as own, SyncActaeClient(
            actae_fresh_dsn, max_size=1) as client:
        claim = client.claim_execution(channel, "k", "t", {})
        for _ in range(6):
            client.get_execution(claim.execution.id, conn=own)
        change_execution_row(admin)
        for _ in range(3):
            assert client.get_execution(claim.execution.id, conn=own).id == claim.execution.id
        with own.transaction(), pytest.raises(psycopg.errors.FeatureNotSupported):
            client.get_execution(claim.execution.id, conn=own)


def test_a_connection_not_in_autocommit_gets_the_error_and_its_rollback_clears_it(
    actae_fresh_dsn: str, unique: Callable[..., str]
) -> None:
    """On a connection that is not autocommit the refused statement aborted a transaction
    (psycopg's implicit one may hold another thread's write): raised, not rolled back
    behind the caller's back; the caller's rollback makes psycopg forget its prepared
    statements, and the call then works."""
    channel = unique("schema-tx")
    with psycopg.connect(actae_fresh_dsn, autocommit=True) as admin, psycopg.connect(
            actae_fresh_dsn) as own, SyncActaeClient(actae_fresh_dsn, max_size=1) as client:
        claim = client.claim_execution(channel, "k", "t", {})
        for _ in range(6):
            client.get_execution(claim.execution.id, conn=own)
        own.commit()
        change_execution_row(admin)
        with pytest.raises(psycopg.errors.FeatureNotSupported):
            client.get_execution(claim.execution.id, conn=own)
        own.rollback()
        assert client.get_execution(claim.execution.id, conn=own).id == claim.execution.id
