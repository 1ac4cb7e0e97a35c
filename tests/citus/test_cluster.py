"""Actae on a Citus cluster: what distribute.sql did, and that hot calls stay on one shard.

Run by `make test-citus` (tests/citus/cluster.py) against the coordinator; ACTAE_DSN is the
coordinator's DSN. Every routing assertion reads the commands the coordinator actually
sent to the workers (routing.trace).
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from psycopg.conninfo import make_conninfo
from psycopg.types.json import Jsonb
from routing import Trace, shard_groups, trace

from actae import QuotaExceeded, SyncActaeClient
from actae.migrate import migrate

DISTRIBUTE = os.path.join(os.path.dirname(__file__), "../../sql/citus/distribute.sql")


@pytest.fixture(scope="module")
def conn() -> Iterator[psycopg.Connection[Any]]:
    with psycopg.connect(os.environ["ACTAE_DSN"], autocommit=True) as connection:
        yield connection


@pytest.fixture(scope="module")
def groups(conn: psycopg.Connection[Any]) -> dict[int, str]:
    return shard_groups(conn)


@pytest.fixture(scope="module")
def client() -> Iterator[SyncActaeClient]:
    with SyncActaeClient(os.environ["ACTAE_DSN"]) as actae:
        yield actae


def new_channel() -> str:
    return f"citus-{uuid.uuid4().hex}"


def run(conn: psycopg.Connection[Any], groups: dict[int, str], sql: str,
        *params: Any) -> tuple[Trace, list[Any]]:
    return trace(conn, sql, params, groups)


def test_every_actae_table_is_distributed_by_channel_or_a_reference_table(
    conn: psycopg.Connection[Any],
) -> None:
    rows = conn.execute(
        """select c.relname, p.partmethod, a.attname, p.colocationid
        from pg_class as c
        left join pg_dist_partition as p on p.logicalrelid = c.oid
        left join pg_attribute as a on a.attrelid = c.oid and a.attname = 'channel_id'
            and p.partkey is not null
            and a.attnum = (regexp_match(p.partkey, ':varattno (\\d+)'))[1]::int
        where c.relnamespace = 'actae'::regnamespace and c.relkind in ('r', 'p')""").fetchall()
    assert rows, "schema actae has no tables"
    hashed = {r[0]: r for r in rows if r[1] == "h"}
    reference = {r[0] for r in rows if r[1] == "n"}
    assert {r[0] for r in rows} == set(hashed) | reference, "a table is neither"
    assert all(r[2] == "channel_id" for r in hashed.values()), "hashed on another column"
    assert len({r[3] for r in hashed.values()}) == 1, "hashed tables are not co-located"
    assert "channels" in hashed and "executions" in hashed


def test_distribute_sql_can_run_again(conn: psycopg.Connection[Any]) -> None:
    before = conn.execute("select count(*) from pg_dist_partition").fetchone()
    with open(DISTRIBUTE, encoding="utf-8") as file:
        conn.execute(file.read())  # type: ignore[call-overload]
    assert conn.execute("select count(*) from pg_dist_partition").fetchone() == before


def test_actae_owner_logs_in_only_over_tcp_with_its_password(
    conn: psycopg.Connection[Any],
) -> None:
    info = conn.info
    with pytest.raises(psycopg.OperationalError, match="actae_owner"):
        psycopg.connect(host=info.host, port=info.port, dbname=info.dbname,
                        user="actae_owner", connect_timeout=5).close()
    with pytest.raises(psycopg.OperationalError, match="password"):
        psycopg.connect(host="127.0.0.1", port=info.port, dbname=info.dbname,
                        user="actae_owner", password="wrong", connect_timeout=5).close()
    assert conn.execute(
        "select rolcanlogin from pg_roles where rolname = 'actae_owner'").fetchone() == (True,)


def test_claim_and_keyed_complete_are_each_one_shard(
    conn: psycopg.Connection[Any], groups: dict[int, str]
) -> None:
    channel = new_channel()
    claim, rows = run(conn, groups,
                      "select * from actae.claim_execution(%s, 'k', 't', '{}')", channel)
    execution_id, token = rows[0][1], rows[0][6]
    assert rows[0][0] == "claimed"
    assert claim.statements >= 2 and len(claim.groups) == 1
    beat, _ = run(conn, groups,
                  "select * from actae.heartbeat_execution(%s, %s, null, %s)",
                  execution_id, token, channel)
    assert len(beat.groups) == 1
    done, rows = run(conn, groups,
                     "select * from actae.complete_execution(%s, %s, '1', %s)",
                     execution_id, token, channel)
    assert rows[0][5] == "completed"
    assert len(done.groups) == 1 and done.groups == claim.groups
    replay, rows = run(conn, groups,
                       "select * from actae.claim_execution(%s, 'k', 't', '{}')", channel)
    assert rows[0][0] == "replayed" and replay.groups == claim.groups


def test_a_batch_claim_and_keyed_batch_complete_are_each_one_shard(
    conn: psycopg.Connection[Any], groups: dict[int, str]
) -> None:
    """claim_executions' set path (one INSERT for the new keys) and complete_executions with
    channel_id (one UPDATE) run on the channel's shard, with per-element outcomes."""
    channel = new_channel()
    _, rows = run(conn, groups, "select * from actae.claim_execution(%s, 'old', 't', '{}')",
                  channel)
    claim, rows = run(conn, groups,
                      "select * from actae.claim_executions(%s, array['a', 'old', 'b'],"
                      " array['t', 't', 't'], array['{}', '{}', '{}']::jsonb[])", channel)
    assert [(r[3], r[0]) for r in rows] == [("a", "claimed"), ("old", "in_progress"),
                                            ("b", "claimed")]
    assert len(claim.groups) == 1
    owned = [r for r in rows if r[0] == "claimed"]
    done, rows = run(conn, groups,
                     "select * from actae.complete_executions(%s::uuid[], %s::uuid[],"
                     " array['1', '2']::jsonb[], %s)",
                     [r[1] for r in owned], [r[6] for r in owned], channel)
    assert [(r[3], r[5], r[12]) for r in rows] == [("a", "completed", 1), ("b", "completed", 2)]
    assert done.groups == claim.groups


def test_unkeyed_complete_looks_the_channel_up_on_every_shard(
    conn: psycopg.Connection[Any], groups: dict[int, str]
) -> None:
    channel = new_channel()
    _, rows = run(conn, groups, "select * from actae.claim_execution(%s, 'k', 't', '{}')",
                  channel)
    done, rows = run(conn, groups, "select * from actae.complete_execution(%s, %s, '1')",
                     rows[0][1], rows[0][6])
    shard_count = len({g for g in groups.values() if g != "reference"})
    assert rows[0][5] == "completed" and len(done.groups) == shard_count


def test_appends_and_reads_of_a_channel_are_one_shard(
    conn: psycopg.Connection[Any], groups: dict[int, str]
) -> None:
    channel = new_channel()
    calls = [
        ("select * from actae.record_event(%s, 'step', '{}', 'op-1')", (channel,)),
        ("select * from actae.transition_state(%s, 'step', '{}', '{\"n\": 1}', 0)", (channel,)),
        ("select * from actae.record_event(%s, 'step', '{}', 'op-1')", (channel,)),  # replay
        ("select * from actae.list_events(%s)", (channel,)),
        ("select * from actae.get_state(%s)", (channel,)),
    ]
    touched: set[str] = set()
    for sql, params in calls:
        found, _ = trace(conn, sql, params, groups)
        assert len(found.groups) == 1, sql
        touched |= found.groups
    assert len(touched) == 1


def test_a_fork_reads_one_shard_per_lineage_segment(
    conn: psycopg.Connection[Any], groups: dict[int, str], client: SyncActaeClient
) -> None:
    source = new_channel()
    client.record_event(source, "step", {"n": 1})
    client.record_event(source, "step", {"n": 2})
    claim = client.claim_execution(source, "k", "t", {})
    assert claim.claim_token is not None
    client.complete_execution(claim.execution.id, claim.claim_token, 7, channel_id=source)
    client.record_event(source, "step", {"n": 3})
    fork = client.fork_channel(source, 2).channel_id  # inherits the completion
    listed, rows = run(conn, groups, "select * from actae.list_events(%s)", fork)
    assert [r[0] for r in rows] == [1, 2]
    replayed, rows = run(conn, groups,
                         "select * from actae.claim_execution(%s, 'k', 't', '{}')", fork)
    assert rows[0][0] == "replayed" and rows[0][12] == 7
    source_group = trace(conn, "select * from actae.get_state(%s)", (source,), groups)[0].groups
    assert source_group <= listed.groups and len(listed.groups) <= 2
    assert source_group <= replayed.groups and len(replayed.groups) <= 2


def test_channel_lineage_walks_parents_on_citus(client: SyncActaeClient) -> None:
    """The view actae.channel_lineage is a recursive CTE, which Citus refuses; the function
    of the same name (what `actae channel show` reads) walks parent by parent."""
    root = new_channel()
    for n in range(1, 6):
        client.record_event(root, "step", {"n": n})
    a = client.fork_channel(root, 4).channel_id
    client.record_event(a, "step", {"n": 5})
    b = client.fork_channel(a, 5).channel_id
    c = client.fork_channel(b, 3).channel_id
    lineage = client.channel_lineage(c)
    assert [(x.ancestor_channel_id, x.generation, x.inherited_cursor) for x in lineage] == [
        (root, 3, 3), (a, 2, 3), (b, 1, 3)]
    assert client.channel_lineage(root) == []


def test_deleting_a_langgraph_thread_leaves_no_trace_behind(
    conn: psycopg.Connection[Any], client: SyncActaeClient
) -> None:
    """On one node a trigger deletes a deleted execution's trace; Citus tables have no
    triggers, so the channel's traces go with the channel (actae._delete_beside_channel)."""
    thread = f"thread-{uuid.uuid4().hex}"
    row = conn.execute("select actae.langgraph_channel(%s)", (thread,)).fetchone()
    assert row is not None
    channel = row[0]
    claim = client.claim_execution(channel, "k", "t", {})
    assert claim.claim_token is not None
    conn.execute("select actae.set_execution_trace(%s, %s, %s)", (
        claim.execution.id, claim.claim_token,
        "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"))
    traces = "select count(*) from actae.execution_traces where channel_id = %s"
    assert conn.execute(traces, (channel,)).fetchone() == (1,)
    conn.execute("select actae.langgraph_delete_thread(%s)", (thread,))
    assert conn.execute(traces, (channel,)).fetchone() == (0,)
    assert conn.execute("select count(*) from actae.executions where channel_id = %s",
                        (channel,)).fetchone() == (0,)


def test_a_null_channel_is_a_bad_argument_not_a_crash(
    conn: psycopg.Connection[Any], groups: dict[int, str]
) -> None:
    """distribute.sql delegates no function: Citus 13.2.2 crashes the coordinator when a
    delegated function gets NULL as its distribution argument."""
    delegated = conn.execute(
        "select count(*) from pg_dist_object where distribution_argument_index is not null"
    ).fetchone()
    assert delegated == (0,)
    for sql in ("select * from actae.get_channel(%s)", "select * from actae.create_channel(%s)",
                "select * from actae.record_event(%s, 'step', '{}')"):
        with pytest.raises(psycopg.Error) as raised:
            conn.execute(sql, (None,))
        assert raised.value.sqlstate == "AC400", sql
    assert conn.execute("select 1").fetchone() == (1,)


def test_watch_sees_an_append_made_through_the_coordinator(client: SyncActaeClient) -> None:
    channel = new_channel()
    with psycopg.connect(os.environ["ACTAE_DSN"], autocommit=True) as listener:
        topic = client.watch_channel(channel, 30, conn=listener)
        listener.execute(f'listen "{topic}"')
        client.record_event(channel, "step", {"n": 1})
        notes = list(listener.notifies(timeout=10, stop_after=1))
    assert [n.payload for n in notes] == ["1"]


def age(conn: psycopg.Connection[Any], channel: str, days: int) -> None:
    """Move a channel's timestamps `days` into the past (literal times: Citus refuses
    stable functions with column references in an UPDATE of a distributed table)."""
    past = conn.execute("select now() - make_interval(days => %s)", (days,)).fetchone()
    assert past is not None
    conn.execute("update actae.channels set closed_at = %s where channel_id = %s"
                 " and closed_at is not null", (past[0], channel))
    conn.execute("update actae.events set recorded_at = %s where channel_id = %s",
                 (past[0], channel))
    conn.execute("update actae.executions set created_at = %s, claimed_at = %s,"
                 " finished_at = %s where channel_id = %s", (past[0],) * 3 + (channel,))


def test_purge_deletes_quiet_closed_channels_and_expired_keys_but_not_inherited_ones(
    conn: psycopg.Connection[Any], client: SyncActaeClient
) -> None:
    gone, parent, keyed = new_channel(), new_channel(), new_channel()
    for channel in (gone, parent):
        client.record_event(channel, "step", {})
        claim = client.claim_execution(channel, "k", "t", {})
        assert claim.claim_token is not None
        client.complete_execution(claim.execution.id, claim.claim_token, 1, channel_id=channel)
        client.close_channel(channel)
    fork = client.fork_channel(parent, 1).channel_id
    client.set_key_ttl(keyed, "1 hour")
    for key in ("old", "inherited"):
        claim = client.claim_execution(keyed, key, "t", {})
        assert claim.claim_token is not None
        client.complete_execution(claim.execution.id, claim.claim_token, 1, channel_id=keyed)
    keyed_fork = client.fork_channel(keyed, 0).channel_id  # inherits both completions
    claim = client.claim_execution(keyed, "late", "t", {})
    assert claim.claim_token is not None
    client.complete_execution(claim.execution.id, claim.claim_token, 1, channel_id=keyed)
    for channel in (gone, parent, keyed):
        age(conn, channel, 2)
    while client.purge("1 day", 1000).more:
        pass
    left = {r[0] for r in conn.execute(
        "select channel_id from actae.channels where channel_id = any(%s)",
        ([gone, parent, fork, keyed, keyed_fork],))}
    assert left == {parent, fork, keyed, keyed_fork}, "only the quiet closed channel goes"
    keys = {r[0] for r in conn.execute(
        "select key_name from actae.executions where channel_id = %s", (keyed,))}
    assert keys == {"old", "inherited"}, "the key no fork inherits expired"


def test_quotas_are_set_enforced_measured_and_lifted(
    conn: psycopg.Connection[Any], client: SyncActaeClient
) -> None:
    """set_quota upserts the reference table actae.quotas (its timestamp is read before the
    statement: Citus refuses clock_timestamp() in an INSERT's DO UPDATE SET), an append past
    max_events_per_channel is AC429 and writes nothing, measure_usage counts the tenant's
    bytes, and a quota of nothing but nulls is removed."""
    tenant, channel = f"citus_q_{uuid.uuid4().hex[:12]}", new_channel()
    conn.execute(f'create role "{tenant}" nologin')
    conn.execute(f'grant actae_agent to "{tenant}"')
    client.record_event(channel, "step", {})
    conn.execute("update actae.channels set tenant = %s::regrole where channel_id = %s",
                 (tenant, channel))

    def set_quota(events: int | None) -> Any:
        return conn.execute("select max_events_per_channel, set_at from actae.set_quota("
                            "%s, null, null, %s)", (tenant, events)).fetchone()

    first = set_quota(2)
    assert first is not None and first[0] == 2
    assert client.record_event(channel, "step", {}).cursor == 2
    with pytest.raises(QuotaExceeded) as refused:
        client.record_event(channel, "step", {})
    assert refused.value.sqlstate == "AC429"
    assert (refused.value.detail or {}).get("quota") == "max_events_per_channel"
    events = conn.execute("select count(*) from actae.events where channel_id = %s",
                          (channel,)).fetchone()
    assert events == (2,), "the refused append wrote nothing"
    again = set_quota(3)  # the DO UPDATE path
    assert again is not None and again[0] == 3 and again[1] >= first[1]
    assert client.record_event(channel, "step", {}).cursor == 3
    used = conn.execute("select used_bytes from actae.measure_usage() where tenant = %s::regrole",
                        (tenant,)).fetchone()
    assert used is not None and used[0] > 0
    assert conn.execute("select count(*) from actae.set_quota(%s, null, null, null)",
                        (tenant,)).fetchone() == (0,)
    assert conn.execute("select count(*) from actae.quotas where tenant = %s::regrole",
                        (tenant,)).fetchone() == (0,)


@pytest.mark.parametrize("datestyle", ["SQL, DMY", "German"])
def test_a_day_first_datestyle_stores_the_time_it_means(
    conn: psycopg.Connection[Any], datestyle: str
) -> None:
    """The coordinator sends the times a function computed to the workers as text; a
    caller's day-first DateStyle stored 7 December as 12 July (a fresh lease already
    lapsed, reclaimed by the next caller), and failed every write from the 13th on."""
    channel = new_channel()
    claim = ("select outcome, fence from actae.claim_execution(%s, 'charge', 'pay',"
             " '{\"amount\": 5}', null, 300)")
    with psycopg.connect(os.environ["ACTAE_DSN"], autocommit=True,
                         options=f"-c DateStyle={datestyle.replace(' ', '')}") as caller:
        assert caller.execute(claim, (channel,)).fetchone() == ("claimed", 1)
        caller.execute("select actae.record_event(%s, 'step', '{}')", (channel,))
    # Another caller, ISO DateStyle: the lease is live, so the key is in progress.
    assert conn.execute(claim, (channel,)).fetchone() == ("in_progress", 1)
    times = conn.execute(
        "select e.created_at, e.lease_expires_at, v.recorded_at, c.created_at, now()"
        " from actae.executions as e join actae.events as v using (channel_id)"
        " join actae.channels as c using (channel_id) where e.channel_id = %s", (channel,)
    ).fetchone()
    assert times is not None
    created, expires, recorded, channel_created, now = times
    for written in (created, recorded, channel_created):
        assert abs((now - written).total_seconds()) < 60
    assert 240 < (expires - now).total_seconds() <= 300


def test_a_row_lock_held_on_a_worker_is_waited_for_5_s_at_most(
    conn: psycopg.Connection[Any],
) -> None:
    """hardening.md's lock_timeout: a function's own setting is the coordinator session's;
    the row lock is waited for in Citus' connection to the worker, opened as actae_owner,
    which owner_login.psql gives the same 5 s."""
    channel = new_channel()
    row = conn.execute(
        "select execution_id, claim_token from actae.claim_execution(%s, 'k', 't', '{}')",
        (channel,),
    ).fetchone()
    assert row is not None
    with psycopg.connect(os.environ["ACTAE_DSN"]) as holder, \
            psycopg.connect(os.environ["ACTAE_DSN"], autocommit=True) as waiter:
        holder.execute("select actae.heartbeat_execution(%s, %s, null, %s)", (*row, channel))
        waiter.execute("set statement_timeout = '20s'")
        with pytest.raises(psycopg.Error) as raised:
            waiter.execute("select actae.complete_execution(%s, %s, '1', %s)", (*row, channel))
        holder.rollback()
    assert raised.value.sqlstate == "55P03"


def test_backslashes_are_stored_as_given_without_standard_conforming_strings(
    conn: psycopg.Connection[Any],
) -> None:
    """A caller with standard_conforming_strings off had every backslash the coordinator
    sent to a worker doubled (a payload's, a state's, metadata)."""
    channel = new_channel()
    with psycopg.connect(os.environ["ACTAE_DSN"], autocommit=True,
                         options="-c standard_conforming_strings=off") as caller:
        caller.execute("select actae.create_channel(%s, %s)",
                       (channel, Jsonb({"re": "\\d+"})))
        caller.execute("select actae.record_event(%s, 'step', %s)",
                       (channel, Jsonb({"path": "C:\\tmp"})))
        # The same creation again is the same content, not another channel's metadata.
        caller.execute("select actae.create_channel(%s, %s)",
                       (channel, Jsonb({"re": "\\d+"})))
    assert conn.execute("select payload from actae.list_events(%s, 0, 10)",
                        (channel,)).fetchone() == ({"path": "C:\\tmp"},)
    assert conn.execute("select metadata from actae.get_channel(%s)",
                        (channel,)).fetchone() == ({"re": "\\d+"},)


def test_distribute_sql_refuses_a_database_migrated_before_citus(
    conn: psycopg.Connection[Any],
) -> None:
    """The functions' Citus settings are written by a migrate that finds the extension."""
    name = f"actae_late_{uuid.uuid4().hex[:8]}"
    conn.execute(f"create database {name}")
    try:
        late = make_conninfo(os.environ["ACTAE_DSN"], dbname=name)
        migrate(late)
        with psycopg.connect(late, autocommit=True) as db:
            db.execute("create extension citus")
            with (open(DISTRIBUTE, encoding="utf-8") as file,
                  pytest.raises(psycopg.Error, match="run actae migrate again") as raised):
                db.execute(file.read())  # type: ignore[call-overload]
            assert raised.value.sqlstate == "55000"
            assert db.execute("select count(*) from pg_dist_partition").fetchone() == (0,)
            migrate(late)  # with the extension: the settings are written, the check passes
            assert db.execute(
                "select 'DateStyle=ISO, MDY' = any(proconfig) from pg_proc"
                " where oid = 'actae.record_event'::regproc").fetchone() == (True,)
    finally:
        conn.execute(f"drop database {name} with (force)")
