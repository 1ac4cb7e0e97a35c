"""Intruders: what the roles may not do, tried for real through login roles made for the
test (members of actae_agent / actae_auditor, or of nothing) and dropped afterwards."""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import psycopg
import pytest
from psycopg import sql
from psycopg.conninfo import make_conninfo
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

DENIED = "42501"  # insufficient_privilege
EVIL_UUID = "00000000-0000-0000-0000-00000000e1e1"


@dataclass(frozen=True)
class Logins:
    agent: str
    other_agent: str
    auditor: str
    nobody: str
    evil_schema: str


@pytest.fixture(scope="module")
def logins(dsn: str) -> Iterator[Logins]:
    tag = uuid.uuid4().hex[:8]
    names = Logins(f"rel_agent_{tag}", f"rel_agent2_{tag}", f"rel_auditor_{tag}",
                   f"rel_nobody_{tag}", f"rel_evil_{tag}")
    with psycopg.connect(dsn, autocommit=True) as admin:
        for role, group in ((names.agent, "actae_agent"), (names.other_agent, "actae_agent"),
                            (names.auditor, "actae_auditor"), (names.nobody, None)):
            admin.execute(sql.SQL("create role {} login").format(sql.Identifier(role)))
            if group:
                admin.execute(sql.SQL("grant {} to {}").format(
                    sql.Identifier(group), sql.Identifier(role)))
        admin.execute(sql.SQL("create schema {} authorization {}").format(
            sql.Identifier(names.evil_schema), sql.Identifier(names.agent)))
        try:
            yield names
        finally:
            admin.execute(sql.SQL("drop schema {} cascade").format(
                sql.Identifier(names.evil_schema)))
            for role in (names.agent, names.other_agent, names.auditor, names.nobody):
                admin.execute(sql.SQL("drop owned by {}").format(sql.Identifier(role)))
                admin.execute(sql.SQL("drop role {}").format(sql.Identifier(role)))


def connect(dsn: str, role: str) -> psycopg.Connection[Any]:
    return psycopg.connect(make_conninfo(dsn, user=role), autocommit=True)


def denied(conn: psycopg.Connection[Any], statement: str, *args: Any) -> None:
    with pytest.raises(psycopg.Error) as raised:
        conn.execute(statement, args or None)
    assert raised.value.sqlstate == DENIED, f"{statement}: {raised.value}"


def tables(conn: psycopg.Connection[Any], kinds: str = "r") -> list[str]:
    rows = conn.execute(
        "select c.oid::regclass::text from pg_catalog.pg_class as c"
        " where c.relnamespace = 'actae'::regnamespace and c.relkind = any(%s) order by 1",
        (list(kinds),)).fetchall()
    return [r[0] for r in rows]


def functions(conn: psycopg.Connection[Any], like: str = "%") -> list[tuple[str, str]]:
    """(name, call with typed null arguments) of every function in schema actae. Typed:
    ``actae._channel_row(null)`` would be a cast to the array type of actae.channel_row."""
    rows = conn.execute(
        "select p.proname, array(select format_type(t, null) from unnest(p.proargtypes) as t)"
        " from pg_catalog.pg_proc as p"
        " where p.pronamespace = 'actae'::regnamespace and p.proname like %s order by 1, 2",
        (like,)).fetchall()
    return [(str(name), f"select actae.{name}({', '.join(f'null::{t}' for t in types)})")
            for name, types in rows]


def first_column(conn: psycopg.Connection[Any], table: str) -> str:
    row = conn.execute("select attname from pg_catalog.pg_attribute where attrelid = %s::regclass"
                       " and attnum = 1", (table,)).fetchone()
    assert row is not None
    return str(row[0])


def denied_writes(conn: psycopg.Connection[Any], table: str) -> None:
    column = first_column(conn, table)
    denied(conn, f"insert into {table} default values")
    denied(conn, f"update {table} set {column} = {column}")
    denied(conn, f"delete from {table}")
    denied(conn, f"truncate {table}")


def test_agent_cannot_read_or_write_any_table(dsn: str, logins: Logins) -> None:
    with connect(dsn, logins.agent) as conn:
        found = tables(conn, "rvp")
        assert {"actae.executions", "actae.events", "actae.channels"} <= set(found)
        for table in found:
            denied(conn, f"select * from {table} limit 1")
        for table in tables(conn):
            denied_writes(conn, table)
        denied(conn, "copy actae.executions to stdout")


def test_agent_cannot_call_internal_helpers_or_operator_functions(
    dsn: str, logins: Logins
) -> None:
    with connect(dsn, logins.agent) as conn:
        helpers = functions(conn, r"\_%")
        assert len(helpers) >= 8
        for _name, call in helpers:
            denied(conn, call)
        operator_only = [call for name, call in functions(conn)
                         if name in ("cancel_execution", "purge")]
        assert len(operator_only) == 2
        for call in operator_only:
            denied(conn, call)


def test_agent_cannot_alter_drop_or_create_anything(dsn: str, logins: Logins) -> None:
    with connect(dsn, logins.agent) as conn:
        claim = "actae.claim_execution(text, text, text, jsonb, text[], integer)"
        for statement in (
            "alter table actae.executions add column evil int",
            "alter table actae.executions disable row level security",
            "drop table actae.executions",
            "drop table actae.events cascade",
            "create table actae.evil (x int)",
            f"drop function {claim}",
            f"alter function {claim} security invoker",
            f"alter function {claim} set search_path = public",
            f"alter function {claim} owner to {logins.agent}",
            "create or replace function actae.channel_topic(p_channel_id text) returns text"
            " language sql as $$ select 'evil' $$",
            "drop schema actae cascade",
            "alter schema actae rename to evil",
            "grant select on actae.executions to public",
            "set role actae_owner",
            "create index evil on actae.executions (status)",
        ):
            denied(conn, statement)


def test_auditor_can_read_but_not_write(dsn: str, logins: Logins) -> None:
    with connect(dsn, logins.auditor) as conn:
        conn.execute("select count(*) from actae.executions").fetchone()  # may read
        conn.execute("select * from actae.list_executions(null, null, false, 1)").fetchall()
        for table in tables(conn):
            denied_writes(conn, table)
        reads = {"get_execution", "list_executions", "list_expired_leases", "get_channel",
                 "list_events", "get_state", "channel_topic", "get_run", "list_runs",
                 "queue_topic", "get_execution_trace", "langgraph_get_tuple", "langgraph_list",
                 "list_completed", "channel_lineage",
                 "list_channels", "timeline", "fork_tree", "diff_states", "decision_trail",
                 "follow_channel"}
        writes = [f for f in functions(conn) if not f[0].startswith("_") and f[0] not in reads]
        assert {"claim_execution", "complete_execution", "record_event"} <= {w[0] for w in writes}
        for _name, call in writes:
            denied(conn, call)


def test_public_can_execute_nothing(dsn: str, logins: Logins) -> None:
    with psycopg.connect(dsn, autocommit=True) as admin:
        # No function carries the default ACL (null = PUBLIC may execute) or a PUBLIC grant.
        open_to_public = admin.execute(
            "select p.oid::regprocedure::text from pg_catalog.pg_proc as p"
            " where p.pronamespace = 'actae'::regnamespace and (p.proacl is null or exists ("
            " select 1 from aclexplode(p.proacl) as a"
            " where a.grantee = 0 and a.privilege_type = 'EXECUTE'))").fetchall()
        assert open_to_public == []
        # Even with USAGE on the schema, a role that is in no Actae role calls nothing.
        admin.execute(sql.SQL("grant usage on schema actae to {}").format(
            sql.Identifier(logins.nobody)))
    with connect(dsn, logins.nobody) as conn:
        found = functions(conn)
        assert len(found) >= 20
        for _name, call in found:
            denied(conn, call)
        for table in tables(conn, "rv"):
            denied(conn, f"select * from {table} limit 1")


PLANTS = """
create function {s}.gen_random_uuid() returns uuid language sql
    as $$ select '{evil}'::uuid $$;
create function {s}.clock_timestamp() returns timestamptz language sql
    as $$ select '2000-01-01'::timestamptz $$;
create function {s}.sha256(bytea) returns bytea language sql as $$ select '\\x00'::bytea $$;
create function {s}.md5(text) returns text language sql as $$ select 'evil' $$;
create function {s}.octet_length(text) returns integer language sql as $$ select 1 $$;
create function {s}.jsonb_typeof(jsonb) returns text language sql as $$ select 'object' $$;
create function {s}.always(text, text) returns boolean language sql as $$ select true $$;
create function {s}.never(text, text) returns boolean language sql as $$ select false $$;
create function {s}.glue(text, text) returns text language sql as $$ select 'evil' $$;
create function {s}.always_u(uuid, uuid) returns boolean language sql as $$ select true $$;
create operator {s}.= (leftarg = text, rightarg = text, function = {s}.always);
create operator {s}.<> (leftarg = text, rightarg = text, function = {s}.never);
create operator {s}.|| (leftarg = text, rightarg = text, function = {s}.glue);
create operator {s}.= (leftarg = uuid, rightarg = uuid, function = {s}.always_u);
create function pg_temp.gen_random_uuid() returns uuid language sql
    as $$ select '{evil}'::uuid $$;
"""


def test_planted_functions_and_operators_change_nothing(dsn: str, logins: Logins) -> None:
    """A caller puts look-alike functions and operators in a schema searched before
    pg_catalog; every SECURITY DEFINER function still uses the real ones."""
    channel = f"intrude-{uuid.uuid4().hex[:8]}"
    params = {"b": 2, "a": [1, "x"]}
    with psycopg.connect(dsn, autocommit=True) as admin:
        canonical = admin.execute("select %s::jsonb::text", (Jsonb(params),)).fetchone()
    assert canonical is not None
    with connect(dsn, logins.agent) as conn:
        conn.execute(PLANTS.format(s=logins.evil_schema, evil=EVIL_UUID))
        conn.execute(sql.SQL("set search_path = {}, pg_catalog, public").format(
            sql.Identifier(logins.evil_schema)))
        # The trap is armed: in the caller's own SQL the look-alikes win.
        armed = conn.execute("select gen_random_uuid()::text, 'a' = 'b', md5('x'),"
                             " clock_timestamp() < '2001-01-01'").fetchone()
        assert armed == (EVIL_UUID, True, "evil", True)

        row = conn.cursor(row_factory=dict_row).execute(
            "select * from actae.claim_execution(%s, 'k', 'charge', %s, null, 60)",
            (channel, Jsonb(params))).fetchone()
        assert row is not None and row["outcome"] == "claimed"
        assert str(row["claim_token"]) != EVIL_UUID and str(row["execution_id"]) != EVIL_UUID
        assert row["fingerprint"] == hashlib.sha256(canonical[0].encode()).hexdigest()
        lease_ok = conn.execute("select %s > pg_catalog.now()", (row["lease_expires_at"],))
        assert lease_ok.fetchone() == (True,)
        # Planted = / <> do not make a wrong token (or a planted uuid) pass.
        for token in (uuid.uuid4(), uuid.UUID(EVIL_UUID)):
            with pytest.raises(psycopg.Error) as raised:
                conn.execute("select * from actae.complete_execution(%s, %s, '{}')",
                             (row["execution_id"], token))
            assert raised.value.sqlstate == "AC423"
        # Planted octet_length / jsonb_typeof do not relax the checks.
        for statement, args in (
            ("select * from actae.claim_execution(%s, 'k2', 't', '{}')", ("x" * 257,)),
            ("select * from actae.claim_execution(%s, 'k3', 't', '[1]')", (channel,)),
        ):
            with pytest.raises(psycopg.Error) as raised:
                conn.execute(statement, args)
            assert raised.value.sqlstate == "AC400"
        # Planted sha256 / || do not change the hash chain; planted md5 not the topic.
        event = conn.execute("select * from actae.record_event(%s, 'e', '{\"n\": 1}')",
                             (channel,)).fetchone()
        assert event is not None
        chain = conn.execute("select chain_sha256 from actae.list_events(%s, 0, 1)",
                             (channel,)).fetchone()
        expected = hashlib.sha256(b':1:e:{"n": 1}').hexdigest()
        assert chain == (expected,)
        topic = conn.execute("select actae.channel_topic(%s)", (channel,)).fetchone()
        with psycopg.connect(dsn, autocommit=True) as admin:
            clean = admin.execute(
                "select actae._topic(c) from actae.channels as c where c.channel_id = %s",
                (channel,)).fetchone()
        assert topic == clean
        done = conn.execute("select status from actae.complete_execution(%s, %s, '{}')",
                            (row["execution_id"], row["claim_token"])).fetchone()
        assert done == ("completed",)


def test_no_one_completes_another_workers_execution_without_its_token(
    dsn: str, tenants: Tenants
) -> None:
    # Two workers of one tenant (another tenant's login gets AC404 for everything here:
    # see the tenant tests below).
    channel = f"theft-{uuid.uuid4().hex[:8]}"
    with connect(dsn, tenants.agent1) as owner, connect(dsn, tenants.agent1b) as thief:
        mine = owner.execute(
            "select execution_id, claim_token from actae.claim_execution(%s, 'k', 't', '{}')",
            (channel,)).fetchone()
        theirs = thief.execute(
            "select execution_id, claim_token from actae.claim_execution(%s, 'k2', 't', '{}')",
            (channel,)).fetchone()
        assert mine is not None and theirs is not None
        execution_id, token = mine
        # The thief cannot learn the token: reads never return it, tables are closed.
        seen = thief.execute("select claim_token from actae.get_execution(%s)",
                             (execution_id,)).fetchone()
        assert seen == (None,)
        listed = thief.execute("select claim_token from actae.list_executions(%s, null,"
                               " false, 100)", (channel,)).fetchall()
        assert listed and all(r == (None,) for r in listed)
        replay = thief.execute("select claim_token, outcome from actae.claim_execution("
                               "%s, 'k', 't', '{}')", (channel,)).fetchone()
        assert replay == (None, "in_progress")
        denied(thief, "select claim_token from actae.executions")
        # Guessing, or using its own token, is LeaseLost for every fenced call.
        for guess in (uuid.uuid4(), theirs[1]):
            for statement in (
                "select * from actae.complete_execution(%s, %s, '{\"stolen\": true}')",
                "select * from actae.heartbeat_execution(%s, %s)",
                "select * from actae.fail_execution(%s, 'stolen', %s)",
            ):
                with pytest.raises(psycopg.Error) as raised:
                    thief.execute(statement, (execution_id, guess))
                assert raised.value.sqlstate == "AC423", statement
        with pytest.raises(psycopg.Error) as raised:
            thief.execute("select * from actae.complete_execution(%s, null, '{}')",
                          (execution_id,))
        assert raised.value.sqlstate == "AC400"
        done = owner.execute("select status, result from actae.complete_execution(%s, %s,"
                             " '{\"mine\": true}')", (execution_id, token)).fetchone()
        assert done == ("completed", {"mine": True})
        thief.execute("select * from actae.complete_execution(%s, %s, '{}')", theirs)



# --- Tenants (issue 14 F1/F3): agent1 and agent1b log in to tenant t1, agent2 to tenant t2.

NOT_FOUND = "AC404"


@dataclass(frozen=True)
class Tenants:
    t1: str
    t2: str
    agent1: str
    agent1b: str
    agent2: str
    auditor: str


@pytest.fixture(scope="module")
def tenants(dsn: str) -> Iterator[Tenants]:
    tag = uuid.uuid4().hex[:8]
    names = Tenants(f"rel_t1_{tag}", f"rel_t2_{tag}", f"rel_a1_{tag}", f"rel_a1b_{tag}",
                    f"rel_a2_{tag}", f"rel_aud_{tag}")
    made: list[str] = []
    with psycopg.connect(dsn, autocommit=True) as admin:
        def run(statement: str, *names_: str) -> None:
            admin.execute(sql.SQL(statement).format(*map(sql.Identifier, names_)))
        try:
            for tenant in (names.t1, names.t2):
                run("create role {} nologin", tenant)
                made.append(tenant)
                run("grant actae_agent to {}", tenant)
            for login, group in ((names.agent1, names.t1), (names.agent1b, names.t1),
                                 (names.agent2, names.t2), (names.auditor, "actae_auditor")):
                run("create role {} login", login)
                made.append(login)
                run("grant {} to {}", group, login)
            yield names
        finally:
            for role in reversed(made):
                run("drop owned by {}", role)
                run("drop role {}", role)


def refused(conn: psycopg.Connection[Any], statement: str, *args: Any) -> psycopg.Error:
    """The call raises AC404 (and, autocommit, writes nothing)."""
    with pytest.raises(psycopg.Error) as raised:
        conn.execute(statement, args or None)
    assert raised.value.sqlstate == NOT_FOUND, f"{statement}: {raised.value}"
    return raised.value


def same_as_unknown(conn: psycopg.Connection[Any], statement: str, channel: str) -> None:
    """Another tenant's channel answers exactly as a channel that does not exist."""
    unknown = f"none-{uuid.uuid4().hex}"
    theirs = refused(conn, statement, channel)
    absent = refused(conn, statement, unknown)
    assert theirs.diag.message_primary == (absent.diag.message_primary or "").replace(
        unknown, channel)
    assert theirs.diag.message_detail == (absent.diag.message_detail or "").replace(
        unknown, channel)


def owned_run(conn: psycopg.Connection[Any], prefix: str) -> tuple[str, Any, Any]:
    """A channel of conn's tenant with a completed key 'k' (result {"mine": true}) and one
    event; returns (channel, execution_id, claim_token)."""
    channel = f"{prefix}-{uuid.uuid4().hex[:8]}"
    row = conn.execute("select execution_id, claim_token from actae.claim_execution("
                       "%s, 'k', 'charge', '{\"amount_cents\": 1000}')", (channel,)).fetchone()
    assert row is not None
    conn.execute("select actae.complete_execution(%s, %s, '{\"mine\": true}')", row)
    conn.execute("select actae.record_event(%s, 'step', '{}')", (channel,))
    return channel, row[0], row[1]


def channel_row(dsn: str, channel: str) -> tuple[Any, ...]:
    with psycopg.connect(dsn) as admin:
        row = admin.execute(
            "select head_cursor, state_version, key_ttl, closed_at, watched_until,"
            " tenant::regrole::text from actae.channels where channel_id = %s",
            (channel,)).fetchone()
    assert row is not None
    return tuple(row)


def test_tenant_cannot_preclaim_forge_or_replay_another_tenants_keys(
    dsn: str, tenants: Tenants
) -> None:
    with connect(dsn, tenants.agent1) as agent1, connect(dsn, tenants.agent2) as agent2:
        channel, execution_id, _ = owned_run(agent1, "f1")
        before = channel_row(dsn, channel)
        claim = "select * from actae.claim_execution(%s, {}, 'charge', '{{\"amount_cents\": 1}}')"
        # A new key, the completed key (replay) and a key claimed then lapsed (reclaim).
        same_as_unknown(agent2, "select * from actae.get_channel(%s)", channel)
        for key in ("'charge:order-4471'", "'k'"):
            refused(agent2, claim.format(key), channel)
        lapsed = agent1.execute("select execution_id from actae.claim_execution(%s, 'lapsed',"
                                " 't', '{}')", (channel,)).fetchone()
        assert lapsed is not None
        with psycopg.connect(dsn, autocommit=True) as admin:
            admin.execute("update actae.executions set lease_expires_at = now() - interval"
                          " '1 hour' where execution_id = %s", lapsed)
        assert agent2.execute("select count(*) from actae.list_expired_leases(1000)"
                              " where channel_id = %s", (channel,)).fetchone() == (0,)
        refused(agent2, "select * from actae.claim_execution(%s, 'lapsed', 't', '{}')", channel)
        refused(agent2, "select * from actae.claim_executions(%s, array['k9'], array['t'],"
                        " array['{}'::jsonb])", channel)
        assert channel_row(dsn, channel) == before
        with psycopg.connect(dsn) as admin:
            keys = admin.execute("select key_name, result from actae.executions"
                                 " where channel_id = %s order by 1", (channel,)).fetchall()
        assert keys == [("k", {"mine": True}), ("lapsed", None)]
        # The owner's replay is its own result, never a forged one.
        mine = agent1.execute("select outcome, result from actae.claim_execution(%s, 'k',"
                              " 'charge', '{\"amount_cents\": 1000}')", (channel,)).fetchone()
        assert mine == ("replayed", {"mine": True})
        # By execution id: unknown, exactly as a random id.
        for statement in ("select * from actae.get_execution(%s)",
                          "select * from actae.get_execution_trace(%s)"):
            theirs = refused(agent2, statement, execution_id)
            absent = refused(agent2, statement, uuid.uuid4())
            assert theirs.diag.message_primary is not None
            assert absent.diag.message_primary is not None


def test_a_channel_first_written_by_an_intruder_is_never_replayed_to_its_victim(
    dsn: str, tenants: Tenants
) -> None:
    """F1 on a predictable id: agent2 pre-claims and completes a key in a channel agent1 will
    use; the channel is agent2's, so agent1's claim is refused, never a forged replay."""
    channel = f"a1-future-{uuid.uuid4().hex[:8]}"
    with connect(dsn, tenants.agent1) as agent1, connect(dsn, tenants.agent2) as agent2:
        row = agent2.execute("select execution_id, claim_token from actae.claim_execution("
                             "%s, 'charge:order-4471', 'charge', '{}')", (channel,)).fetchone()
        assert row is not None
        agent2.execute("select actae.complete_execution(%s, %s, '{\"charge_id\": \"ch_FORGED\"}')",
                       row)
        refused(agent1, "select * from actae.claim_execution(%s, 'charge:order-4471', 'charge',"
                        " '{}')", channel)
        # A fork seeded into agent1's future id: the fork is agent2's, agent1 cannot use it.
        source, _, _ = owned_run(agent2, "seed")
        future = f"a1-next-{uuid.uuid4().hex[:8]}"
        agent2.execute("select actae.fork_channel(%s, 1, %s)", (source, future))
        refused(agent1, "select * from actae.claim_execution(%s, 'k', 'charge',"
                        " '{\"amount_cents\": 1000}')", future)
        refused(agent1, "select * from actae.get_state(%s)", future)


def test_tenant_cannot_read_write_fork_close_ttl_or_watch_another_tenants_channel(
    dsn: str, tenants: Tenants
) -> None:
    with connect(dsn, tenants.agent1) as agent1, connect(dsn, tenants.agent2) as agent2:
        channel, _, _ = owned_run(agent1, "f3")
        agent1.execute("select actae.start_run(%s, 'agent', '{}', %s)", (channel, channel))
        before = channel_row(dsn, channel)
        own, _, _ = owned_run(agent2, "own")
        for statement in (
            "select * from actae.get_channel(%s)",
            "select * from actae.list_events(%s)",
            "select * from actae.get_state(%s)",
            "select * from actae.timeline(%s)",
            "select * from actae.fork_tree(%s)",
            "select * from actae.fork_channel(%s, 1)",
            "select * from actae.close_channel(%s)",
            "select * from actae.follow_channel(%s, 60)",
            "select * from actae.annotate_channel(%s, 'x', null, null, 0)",
        ):
            same_as_unknown(agent2, statement, channel)
        # Writes that create an unknown channel refuse another tenant's with its AC404.
        for statement in (
            "select * from actae.record_event(%s, 'evil', '{}')",
            "select * from actae.transition_state(%s, 'evil', '{}', '{\"approved\": true}', 0)",
            "select * from actae.set_key_ttl(%s, '1 second')",
            "select * from actae.watch_channel(%s, 60)",
            "select * from actae.create_channel(%s)",
        ):
            error = refused(agent2, statement, channel)
            assert error.diag.message_primary == f"channel {channel} does not exist"
        refused(agent2, "select * from actae.get_run(%s)", channel)
        refused(agent2, "select * from actae.start_run(%s, 'agent', '{}')", channel)
        refused(agent2, "select * from actae.get_execution(%s, 'k')", channel)
        refused(agent2, "select * from actae.diff_states(%s, %s)", own, channel)
        # A fork into agent1's (existing) id is refused as well.
        refused(agent2, "select * from actae.fork_channel(%s, 1, %s)", own, channel)
        for statement in (
            "select count(*) from actae.list_executions(%s)",
            "select count(*) from actae.list_completed(%s)",
        ):
            assert agent2.execute(statement, (channel,)).fetchone() == (0,), statement
        listings = (
            ("select count(*) from actae.list_executions(null, null, false, 100000)"
             " where channel_id = %s"),
            "select count(*) from actae.list_channels(p_max_rows => 1000) where channel_id = %s",
            "select count(*) from actae.list_runs(p_max_rows => 100000) where channel_id = %s",
        )
        for statement in listings:
            assert agent2.execute(statement, (channel,)).fetchone() == (0,), statement
        assert channel_row(dsn, channel) == before
        assert before[2:5] == (None, None, None)
        # agent2's own channel still works for it, and the global auditor sees both.
        assert agent2.execute("select head_cursor from actae.get_channel(%s)",
                              (own,)).fetchone() == (1,)
    with connect(dsn, tenants.auditor) as auditor:
        for statement in listings[:2]:
            for name in (channel, own):
                assert auditor.execute(statement, (name,)).fetchone() == (1,), statement
        assert auditor.execute("select head_cursor from actae.get_channel(%s)",
                               (channel,)).fetchone() == (1,)


def test_logins_of_one_tenant_share_runs_and_the_writer_is_recorded(
    dsn: str, tenants: Tenants
) -> None:
    queue = f"q-{uuid.uuid4().hex[:8]}"
    with connect(dsn, tenants.agent1) as agent1, connect(dsn, tenants.agent1b) as agent1b, \
            connect(dsn, tenants.agent2) as agent2:
        channel, _, _ = owned_run(agent1, "shared")
        agent1.execute("select actae.start_run(%s, 'agent', '{}', %s)", (channel, queue))
        # agent2's worker on a queue of the same name never sees t1's run.
        assert agent2.execute("select * from actae.claim_run(%s, 'w2')", (queue,)).fetchall() == []
        got = agent1b.execute("select channel_id from actae.claim_run(%s, 'w1b')",
                              (queue,)).fetchall()
        assert got == [(channel,)]
        replay = agent1b.execute("select outcome, result from actae.claim_execution(%s, 'k',"
                                 " 'charge', '{\"amount_cents\": 1000}')", (channel,)).fetchone()
        assert replay == ("replayed", {"mine": True})
        agent1b.execute("select actae.record_event(%s, 'by-b', '{}')", (channel,))
    with psycopg.connect(dsn) as admin:
        writers = admin.execute(
            "select event_type, written_by::regrole::text from actae.events"
            " where channel_id = %s order by cursor", (channel,)).fetchall()
        assert writers == [("step", tenants.agent1), ("by-b", tenants.agent1b)]
        owner = admin.execute(
            "select c.tenant::regrole::text, e.tenant::regrole::text, e.written_by::regrole::text"
            " from actae.channels as c join actae.executions as e using (channel_id)"
            " where c.channel_id = %s and e.key_name = 'k'", (channel,)).fetchone()
        assert owner == (tenants.t1, tenants.t1, tenants.agent1)


# --- F9 quotas and caps (issue 14): an agent past a limit gets AC429 (AC400 for the fork
# depth) and writes nothing; nobody but the operator sets or measures quotas.

QUOTA = "AC429"


def refused_with(conn: psycopg.Connection[Any], sqlstate: str, statement: str, *args: Any) -> Any:
    with pytest.raises(psycopg.Error) as raised:
        conn.execute(statement, args or None)
    assert raised.value.sqlstate == sqlstate, f"{statement}: {raised.value}"
    return raised.value


@pytest.fixture
def quota(dsn: str, logins: Logins) -> Iterator[psycopg.Connection[Any]]:
    """An admin connection; the agent's quota row is removed afterwards."""
    with psycopg.connect(dsn, autocommit=True) as admin:
        try:
            yield admin
        finally:
            admin.execute("select actae.set_quota(%s)", (logins.agent,))


def test_only_the_operator_sets_or_measures_quotas(dsn: str, logins: Logins) -> None:
    for role in (logins.agent, logins.auditor, logins.nobody):
        with connect(dsn, role) as conn:
            denied(conn, "select actae.set_quota(%s, 1000000, 1000000, 1000000)", role)
            denied(conn, "select actae.measure_usage()")
            if role != logins.auditor:
                denied(conn, "select * from actae.quotas")


def test_agent_over_its_channel_quota_creates_nothing(
    dsn: str, logins: Logins, quota: psycopg.Connection[Any]
) -> None:
    tag = uuid.uuid4().hex[:8]
    with connect(dsn, logins.agent) as conn:
        conn.execute("select actae.record_event(%s, 'step', '{}')", (f"q-{tag}-1",))
        row = quota.execute("select count(*) from actae.channels where tenant = %s::regrole",
                            (logins.agent,)).fetchone()
        assert row is not None
        quota.execute("select actae.set_quota(%s, %s)", (logins.agent, row[0]))
        for statement in ("select actae.record_event(%s, 'step', '{}')",
                          "select actae.claim_execution(%s, 'k', 't', '{}')",
                          "select actae.create_channel(%s)",
                          "select actae.watch_channel(%s)",
                          "select actae.start_run(%s, 'agent', '{}')",
                          f"select actae.fork_channel('q-{tag}-1', 1, %s)"):
            error = refused_with(conn, QUOTA, statement, f"q-{tag}-2")
            assert "max_channels" in str(error)
        conn.execute("select actae.record_event(%s, 'step', '{}')", (f"q-{tag}-1",))
    with connect(dsn, logins.other_agent) as conn:
        conn.execute("select actae.record_event(%s, 'step', '{}')", (f"q-{tag}-other",))
    gone = quota.execute("select count(*) from actae.channels where channel_id = %s",
                         (f"q-{tag}-2",)).fetchone()
    assert gone == (0,)


def test_agent_past_events_per_channel_or_bytes_appends_nothing(
    dsn: str, logins: Logins, quota: psycopg.Connection[Any]
) -> None:
    channel = f"q-{uuid.uuid4().hex[:8]}"
    quota.execute("select actae.set_quota(%s, null, null, 2)", (logins.agent,))
    with connect(dsn, logins.agent) as conn:
        conn.execute("select actae.record_event(%s, 'step', '{}')", (channel,))
        conn.execute("select actae.record_event(%s, 'step', '{}')", (channel,))
        refused_with(conn, QUOTA, "select actae.record_event(%s, 'step', '{}')", channel)
        refused_with(conn, QUOTA, "select actae.transition_state(%s, 's', '{}', '{}', 0)", channel)
        quota.execute("select actae.set_quota(%s, null, 1)", (logins.agent,))
        quota.execute("select actae.measure_usage()")
        error = refused_with(conn, QUOTA, "select actae.record_event(%s, 'step', '{}')", channel)
        assert "max_bytes" in str(error)
    head = quota.execute("select head_cursor from actae.channels where channel_id = %s",
                         (channel,)).fetchone()
    assert head == (2,)


def test_agent_cannot_watch_more_than_the_cap(dsn: str, logins: Logins) -> None:
    prefix = f"w-{uuid.uuid4().hex[:8]}-"
    with psycopg.connect(dsn, autocommit=True) as admin:
        live = admin.execute(
            "select count(*) from actae.channels where tenant = %s::regrole"
            " and watched_until > clock_timestamp() + interval '10 seconds'",
            (logins.agent,)).fetchone()
    assert live is not None
    with connect(dsn, logins.agent) as conn:
        row = conn.execute(
            "select count(actae.watch_channel(%s || i, 60)) from generate_series(1, %s) as i",
            (prefix, 1000 - live[0])).fetchone()
        assert row is not None and row[0] > 0
        error = refused_with(conn, QUOTA, "select actae.watch_channel(%s, 60)", prefix + "extra")
        assert "watched_channels" in str(error)
    with psycopg.connect(dsn, autocommit=True) as admin:
        assert admin.execute("select count(*) from actae.channels where channel_id = %s",
                             (prefix + "extra",)).fetchone() == (0,)
        admin.execute("update actae.channels set watched_until = null"
                      " where channel_id like %s", (prefix + "%",))


def test_fork_chain_stops_at_the_depth_limit(dsn: str, logins: Logins) -> None:
    prefix = f"chain-{uuid.uuid4().hex[:8]}-"
    with connect(dsn, logins.agent) as conn:
        conn.execute("select actae.record_event(%s, 'step', '{}')", (prefix + "0",))
        for depth in range(1, 101):
            conn.execute("select actae.fork_channel(%s, %s, %s)",
                         (f"{prefix}{depth - 1}", depth, f"{prefix}{depth}"))
            conn.execute("select actae.record_event(%s, 'step', '{}')", (f"{prefix}{depth}",))
        error = refused_with(conn, "AC400", "select actae.fork_channel(%s, 101, %s)",
                        prefix + "100", prefix + "101")
        assert error.diag.message_detail is not None
        assert '"argument": "source_channel_id"' in error.diag.message_detail
        denied_row = conn.execute("select count(*) from actae.get_channel(%s)",
                                  (prefix + "100",)).fetchone()
        assert denied_row == (1,)
        with pytest.raises(psycopg.Error):
            conn.execute("select actae.get_channel(%s)", (prefix + "101",))
