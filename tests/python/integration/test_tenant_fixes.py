"""Tenant isolation fixes that need two connections, on a real server: a tenant's
max_channels quota and watch cap hold against REPEATABLE READ / SERIALIZABLE transactions
(whose snapshot predates the per-tenant lock), and a channel's NOTIFY topic is known only to
callers that may read the channel (and stays the same when the channel changes tenant)."""

from __future__ import annotations

import asyncio
import threading
import time
import uuid
from collections.abc import Iterator

import psycopg
import pytest
from psycopg import sql
from psycopg.conninfo import make_conninfo

from actae import ActaeClient
from actae.tenants import assign_tenant


@pytest.fixture
def roles(conn: psycopg.Connection) -> Iterator[dict[str, str]]:
    """Tenants tn_a / tn_b with one login each (fresh names); dropped with their rows."""
    tag = uuid.uuid4().hex[:8]
    made = {k: f"tn_{k}_{tag}" for k in ("ten_a", "ten_b", "login_a", "login_b")}
    for tenant, login in (("ten_a", "login_a"), ("ten_b", "login_b")):
        conn.execute(sql.SQL("create role {} nologin").format(sql.Identifier(made[tenant])))
        conn.execute(sql.SQL("grant actae_agent to {}").format(sql.Identifier(made[tenant])))
        conn.execute(sql.SQL("create role {} login").format(sql.Identifier(made[login])))
        conn.execute(sql.SQL("grant {} to {}").format(
            sql.Identifier(made[tenant]), sql.Identifier(made[login])))
    yield made
    for tenant in ("ten_a", "ten_b"):
        oid = conn.execute("select %s::regrole::oid", (made[tenant],)).fetchone()
        conn.execute("delete from actae.quotas where tenant = %s", oid)
        conn.execute("delete from actae.executions where tenant = %s", oid)
        conn.execute("delete from actae.channels where tenant = %s", oid)
    for role in reversed(list(made.values())):
        conn.execute(sql.SQL("drop owned by {}").format(sql.Identifier(role)))
        conn.execute(sql.SQL("drop role {}").format(sql.Identifier(role)))


def login(dsn: str, user: str) -> psycopg.Connection:
    return psycopg.connect(make_conninfo(dsn, user=user), autocommit=True)


@pytest.mark.parametrize("isolation", ["repeatable read", "serializable"])
def test_channel_quota_holds_against_an_old_snapshot(
        dsn: str, conn: psycopg.Connection, roles: dict[str, str], isolation: str) -> None:
    conn.execute("select actae.set_quota(%s, 3, null, null)", (roles["ten_a"],))
    tag = uuid.uuid4().hex[:6]
    with login(dsn, roles["login_a"]) as s1, login(dsn, roles["login_a"]) as s2:
        s2.execute(f"begin isolation level {isolation}")
        s2.execute("select 1")  # the snapshot: no channel yet
        for i in range(3):
            s1.execute("select actae.create_channel(%s)", (f"tn-q-{tag}-{i}",))
        with pytest.raises(psycopg.Error) as refused:
            s2.execute("select actae.create_channel(%s)", (f"tn-q-{tag}-late",))
        assert refused.value.sqlstate == "0A000"
        assert "READ COMMITTED" in (refused.value.diag.message_primary or "")
        s2.execute("rollback")
        with pytest.raises(psycopg.Error) as at_quota:  # READ COMMITTED: counted exactly
            s2.execute("select actae.create_channel(%s)", (f"tn-q-{tag}-rc",))
        assert at_quota.value.sqlstate == "AC429"
    count = conn.execute("select count(*) from actae.channels where tenant = %s::regrole",
                         (roles["ten_a"],)).fetchone()
    assert count == (3,)


def test_no_quota_no_refusal_in_repeatable_read(
        dsn: str, conn: psycopg.Connection, roles: dict[str, str]) -> None:
    with login(dsn, roles["login_a"]) as s:
        s.execute("begin isolation level repeatable read")
        s.execute("select actae.create_channel(%s)", (f"tn-free-{uuid.uuid4().hex[:6]}",))
        s.execute("commit")


def _watched_but_one(conn: psycopg.Connection, tenant: str, prefix: str) -> tuple[int, str]:
    """The tenant's watch cap less one of its channels watched, and two more unwatched
    (<prefix>-<tag>-x and -y); returns (the cap, tag)."""
    cap = conn.execute("select actae._limit('watched_channels')").fetchone()[0]
    tag = uuid.uuid4().hex[:6]
    conn.execute(
        "insert into actae.channels (channel_id, tenant, watched_until)"
        " select %s || i, %s::regrole, now() + interval '1 hour'"
        " from generate_series(1, %s) as i",
        (f"{prefix}-{tag}-", tenant, cap - 1))
    conn.execute("insert into actae.channels (channel_id, tenant) values (%s, %s::regrole),"
                 " (%s, %s::regrole)",
                 (f"{prefix}-{tag}-x", tenant, f"{prefix}-{tag}-y", tenant))
    return cap, tag


def test_watch_cap_holds_against_an_old_snapshot(
        dsn: str, conn: psycopg.Connection, roles: dict[str, str]) -> None:
    cap, tag = _watched_but_one(conn, roles["ten_a"], "tn-w")
    with login(dsn, roles["login_a"]) as s1, login(dsn, roles["login_a"]) as s2:
        s2.execute("begin isolation level repeatable read")
        s2.execute("select 1")  # the snapshot: cap - 1 watched
        s1.execute("select actae.watch_channel(%s, 60)", (f"tn-w-{tag}-x",))  # the cap
        with pytest.raises(psycopg.Error) as refused:
            s2.execute("select actae.watch_channel(%s, 60)", (f"tn-w-{tag}-y",))
        assert refused.value.sqlstate == "0A000"
        s2.execute("rollback")
        with pytest.raises(psycopg.Error) as at_cap:
            s2.execute("select actae.watch_channel(%s, 60)", (f"tn-w-{tag}-y",))
        assert at_cap.value.sqlstate == "AC429"
    watched = conn.execute(
        "select count(*) from actae.channels where tenant = %s::regrole"
        " and watched_until > now()", (roles["ten_a"],)).fetchone()
    assert watched == (cap,)


def _race(dsn: str, user: str, statement: str, first: str, second: str) -> object:
    """`statement` for `first` left uncommitted on one connection of `user`, the same for
    `second` on another in a thread; `first` commits a second later (the second call must be
    waiting for it on the per-tenant lock then). What the second call returned or raised."""
    outcome: list[object] = []
    with login(dsn, user) as s1, login(dsn, user) as s2:
        s1.execute("begin")
        s1.execute(statement, (first,))

        def call() -> None:
            try:
                outcome.append(s2.execute(statement, (second,)).fetchone())
            except psycopg.Error as exc:
                outcome.append(exc)

        thread = threading.Thread(target=call)
        thread.start()
        time.sleep(1.0)
        assert thread.is_alive(), "the second call did not wait for the first"
        s1.execute("commit")
        thread.join(10)
        assert not thread.is_alive()
    return outcome[0]


def test_two_concurrent_creations_never_pass_a_channel_quota(
        dsn: str, conn: psycopg.Connection, roles: dict[str, str]) -> None:
    """Both counted the tenant's channels before either committed: without the per-tenant
    lock each saw 0 of a quota of 1 and both channels were made."""
    conn.execute("select actae.set_quota(%s, 1, null, null)", (roles["ten_a"],))
    tag = uuid.uuid4().hex[:6]
    refused = _race(dsn, roles["login_a"], "select actae.create_channel(%s)",
                    f"tn-r-{tag}-a", f"tn-r-{tag}-b")
    assert isinstance(refused, psycopg.Error) and refused.sqlstate == "AC429"
    count = conn.execute("select count(*) from actae.channels where tenant = %s::regrole",
                         (roles["ten_a"],)).fetchone()
    assert count == (1,)


def test_two_concurrent_watches_never_pass_the_watch_cap(
        dsn: str, conn: psycopg.Connection, roles: dict[str, str]) -> None:
    cap, tag = _watched_but_one(conn, roles["ten_a"], "tn-rw")
    refused = _race(dsn, roles["login_a"], "select actae.watch_channel(%s, 60)",
                    f"tn-rw-{tag}-x", f"tn-rw-{tag}-y")
    assert isinstance(refused, psycopg.Error) and refused.sqlstate == "AC429"
    watched = conn.execute(
        "select count(*) from actae.channels where tenant = %s::regrole"
        " and watched_until > now()", (roles["ten_a"],)).fetchone()
    assert watched == (cap,)


@pytest.mark.parametrize("asked", ["after", "before"])
def test_another_tenant_cannot_listen_to_a_channel(
        dsn: str, conn: psycopg.Connection, roles: dict[str, str], asked: str) -> None:
    """Tenant b asks for the topic of a's channel, after a created it or before (an id it
    expects a to use), and LISTENs on it: it hears nothing."""
    channel = f"tn-topic-{uuid.uuid4().hex[:6]}"
    with login(dsn, roles["login_a"]) as a, login(dsn, roles["login_b"]) as b:
        if asked == "before":
            stolen = b.execute("select actae.channel_topic(%s)", (channel,)).fetchone()[0]
        a.execute("select actae.create_channel(%s)", (channel,))
        if asked == "after":
            stolen = b.execute("select actae.channel_topic(%s)", (channel,)).fetchone()[0]
        b.execute(sql.SQL("listen {}").format(sql.Identifier(stolen)))
        naive = "actae_" + b.execute("select md5(%s)", (channel,)).fetchone()[0]
        b.execute(sql.SQL("listen {}").format(sql.Identifier(naive)))
        topic = a.execute("select actae.watch_channel(%s, 60)", (channel,)).fetchone()[0]
        assert topic == a.execute("select actae.channel_topic(%s)", (channel,)).fetchone()[0]
        a.execute(sql.SQL("listen {}").format(sql.Identifier(topic)))
        for _ in range(2):
            a.execute("select actae.record_event(%s, 'private', '{}')", (channel,))
        assert [n.payload for n in a.notifies(timeout=2, stop_after=2)] == ["1", "2"]
        b.execute("select 1")
        assert list(b.notifies(timeout=0.5, stop_after=1)) == []


def test_a_watcher_keeps_receiving_after_the_channel_changes_tenant(
        dsn: str, conn: psycopg.Connection, roles: dict[str, str]) -> None:
    """The topic does not depend on the tenant: assign_tenant does not silence a watch()
    started before it (with a poll interval far longer than the wait, only a NOTIFY can
    deliver the event in time)."""
    channel = f"tn-move-{uuid.uuid4().hex[:6]}"

    async def main() -> list[int]:
        async with ActaeClient(dsn, max_size=2) as client:
            seen: list[int] = []

            async def follow() -> None:
                async for event in client.watch(channel, poll_seconds=60):
                    seen.append(event.cursor)
                    if len(seen) == 2:
                        return

            watcher = asyncio.create_task(follow())
            await client.record_event(channel, "before", {})
            while not seen:
                await asyncio.sleep(0.05)
            assign_tenant(conn, channel, roles["ten_b"])
            await client.record_event(channel, "after", {})
            await asyncio.wait_for(watcher, 5)
            return seen

    assert asyncio.run(main()) == [1, 2]


def test_a_channel_whose_32_bit_hash_is_anothers_does_not_share_its_guard(
        dsn: str, conn: psycopg.Connection, roles: dict[str, str]) -> None:
    """With guards keyed by hashtext (32 bits) a login found an id of its own with the key of
    another tenant's channel in a fraction of a second, and stalled that channel's appends
    (55P03 after their 5 s lock timeout) by leaving an append of its own open."""
    tag = uuid.uuid4().hex[:6]
    row = conn.execute(
        "select array_agg(n order by n) from (select %s || i as n, hashtext(%s || i) as h"
        " from generate_series(1, 300000) as i) as s group by h having count(*) > 1 limit 1",
        (f"tn-h-{tag}-", f"tn-h-{tag}-")).fetchone()
    assert row is not None
    theirs, mine = row[0][0], row[0][1]
    with login(dsn, roles["login_b"]) as b, login(dsn, roles["login_a"]) as a:
        b.execute("select actae.record_event(%s, 'step', '{}')", (theirs,))
        a.execute("begin")
        a.execute("select actae.record_event(%s, 'step', '{}')", (mine,))  # left open
        b.execute("set lock_timeout = '1s'")
        assert b.execute("select cursor from actae.record_event(%s, 'step', '{}')",
                         (theirs,)).fetchone() == (2,)
        a.execute("rollback")
