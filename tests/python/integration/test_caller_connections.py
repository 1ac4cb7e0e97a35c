"""The driver reads its rows the same way whatever the caller's connections were set up to
return: a connection or pool made for LangGraph's saver (``row_factory=dict_row``), one
with its own JSON ``loads`` (floats as Decimal), a ``cursor_factory`` (RawCursor,
ClientCursor) and a session DateStyle / IntervalStyle psycopg cannot parse in text give
the driver's usual models, through ``conn=`` and through ``pool=``, sync and async; the
tenant helpers take such a connection too. JSON too deep for the driver's fast parser is
read back as json.loads reads it. A pool whose transactions are REPEATABLE READ gets 0A000
at the claim, before the tool runs (real database)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from datetime import timedelta
from decimal import Decimal
from functools import partial
from typing import Any

import psycopg
import pytest
from psycopg.conninfo import make_conninfo
from psycopg.rows import dict_row
from psycopg.types.json import set_json_loads
from psycopg_pool import AsyncConnectionPool, ConnectionPool

from actae import ActaeClient, SyncActaeClient, calls, tenants
from actae.plans.tools import ToolCall

PARAMS = {"amount": 1.5, "items": [{"sku": "a", "n": 2}]}
RESULT = {"charged": 12.25, "ok": True}


def decimal_loads(conn: psycopg.Connection[Any] | psycopg.AsyncConnection[Any]) -> None:
    set_json_loads(partial(json.loads, parse_float=Decimal), conn)


def check_story(claim: Any, done: Any, again: Any) -> None:
    """What the driver returns for claim, complete and the replay of one tool call."""
    assert claim.status == "claimed" and claim.execution.params == PARAMS
    assert type(claim.execution.params["amount"]) is float
    assert done.status == "completed" and done.result == RESULT
    assert type(done.result["charged"]) is float
    assert again.status == "replayed" and again.result == RESULT
    assert type(again.result["charged"]) is float


def sync_story(client: SyncActaeClient, channel: str, **conn: Any) -> None:
    claim = client.claim_execution(channel, "k", "charge", PARAMS, **conn)
    done = client.complete_execution(claim.execution.id, claim.claim_token, RESULT, **conn)
    check_story(claim, done, client.claim_execution(channel, "k", "charge", PARAMS, **conn))
    events = [client.record_event(channel, "step", {"n": 1.5}, **conn)]
    assert events[0].cursor == 1
    listed = client.list_events(channel, **conn)
    assert [e.payload for e in listed] == [{"n": 1.5}] and type(listed[0].payload["n"]) is float


SETUPS: dict[str, dict[str, Any]] = {
    "raw_cursor": {"cursor_factory": psycopg.RawCursor},
    "client_cursor": {"cursor_factory": psycopg.ClientCursor},
    "date_and_interval_styles": {"options": "-c DateStyle=SQL,DMY -c IntervalStyle=iso_8601"},
}


@pytest.mark.parametrize("setup", [dict_row, decimal_loads], ids=["dict_row", "json_loads"])
def test_sync_client_through_a_callers_connection(
        dsn: str, unique: Callable[..., str], setup: Any) -> None:
    with psycopg.connect(dsn, autocommit=True) as conn, \
            SyncActaeClient(dsn, max_size=1) as client:
        if setup is dict_row:
            conn.row_factory = dict_row
        else:
            setup(conn)
        sync_story(client, unique("conn"), conn=conn)


def ttl_story(client: SyncActaeClient, channel: str, **conn: Any) -> None:
    """Timestamps and intervals read back as the server holds them."""
    with psycopg.connect(client.pool.conninfo, autocommit=True) as plain:
        row = plain.execute("select now()").fetchone()
    assert row is not None
    created = client.create_channel(channel, **conn)
    assert abs((created.created_at - row[0]).total_seconds()) < 60
    done = client.set_key_ttl(channel, timedelta(days=90), **conn)
    assert done.key_ttl == timedelta(days=90)


@pytest.mark.parametrize("setup", list(SETUPS))
def test_sync_client_with_a_callers_cursor_factory_or_styles(
        dsn: str, unique: Callable[..., str], setup: str) -> None:
    kwargs = {"autocommit": True, **SETUPS[setup]}
    with ConnectionPool(dsn, min_size=1, max_size=1, kwargs=kwargs, open=True) as pool:
        client = SyncActaeClient(pool=pool)
        sync_story(client, unique("fpool"))
        ttl_story(client, unique("fttl"))
        out = client.run_tools(
            [client_tool(k) for k in ("a", "b")], channel_id=unique("frun"))
        assert out == [RESULT, RESULT]
        # A binary call (the LangGraph saver's reads) on the same pool.
        assert client.run(calls.langgraph_get_tuple(unique("thread"), "")) == []
    with psycopg.connect(dsn, **kwargs) as conn, SyncActaeClient(dsn, max_size=1) as client:
        sync_story(client, unique("fconn"), conn=conn)
        ttl_story(client, unique("fttl"), conn=conn)


@pytest.mark.parametrize("setup", ["dict_row", "json_loads"])
def test_sync_client_on_a_callers_pool(dsn: str, unique: Callable[..., str], setup: str) -> None:
    kwargs: dict[str, Any] = {"autocommit": True}
    if setup == "dict_row":
        kwargs["row_factory"] = dict_row
    with ConnectionPool(dsn, min_size=1, max_size=1, kwargs=kwargs, open=True,
                        configure=decimal_loads if setup == "json_loads" else None) as pool:
        sync_story(SyncActaeClient(pool=pool), unique("pool"))
        with pool.connection() as conn:  # the caller's own reads are theirs, unchanged
            row = conn.execute("select '{\"x\": 1.5}'::jsonb as j").fetchone()
            assert row is not None
            value = row["j"] if setup == "dict_row" else row[0]  # type: ignore[call-overload]
            assert type(value["x"]) is (float if setup == "dict_row" else Decimal)


@pytest.mark.parametrize("setup", ["dict_row", "json_loads", *SETUPS])
def test_async_client_through_a_callers_connection_and_pool(
        dsn: str, unique: Callable[..., str], setup: str) -> None:
    async def configure(conn: psycopg.AsyncConnection[Any]) -> None:
        decimal_loads(conn)

    async def story(client: ActaeClient, channel: str, **conn: Any) -> None:
        claim = await client.claim_execution(channel, "k", "charge", PARAMS, **conn)
        done = await client.complete_execution(claim.execution.id, claim.claim_token, RESULT,
                                               **conn)
        again = await client.claim_execution(channel, "k", "charge", PARAMS, **conn)
        check_story(claim, done, again)
        if not conn:  # run_tool takes its connections from the pool
            out = await client.run_tool(lambda ctx: RESULT, channel_id=channel, key_name="r",
                                        tool_name="charge", params=PARAMS)
            assert out == RESULT and type(out["charged"]) is float

    async def main() -> None:
        kwargs: dict[str, Any] = {"autocommit": True}
        if setup == "dict_row":
            kwargs["row_factory"] = dict_row
        elif setup in SETUPS:
            kwargs.update(SETUPS[setup])
            if setup.endswith("_cursor"):  # the async classes of the same cursors
                kwargs["cursor_factory"] = {"raw_cursor": psycopg.AsyncRawCursor,
                                            "client_cursor": psycopg.AsyncClientCursor}[setup]
        async with AsyncConnectionPool(
                dsn, min_size=1, max_size=2, kwargs=kwargs, open=False,
                configure=configure if setup == "json_loads" else None) as pool:
            client = ActaeClient(pool=pool)
            await story(client, unique("apool"))
            async with pool.connection() as conn:
                await story(client, unique("aconn"), conn=conn)

    asyncio.run(main())


@pytest.fixture
def tenant_name(conn: psycopg.Connection[Any]) -> Iterator[str]:
    name = f"tcc_{uuid.uuid4().hex[:8]}"
    yield name
    if conn.execute("select 1 from pg_roles where rolname = %s", (name,)).fetchone():
        conn.execute(f'drop role "{name}"')


@pytest.mark.parametrize("setup", ["dict_row", *SETUPS])
def test_tenant_helpers_take_a_callers_connection(
        dsn: str, tenant_name: str, setup: str) -> None:
    kwargs = SETUPS.get(setup, {"row_factory": dict_row})
    with psycopg.connect(dsn, autocommit=True, **kwargs) as conn:
        made = tenants.create_tenant(conn, tenant_name)
        assert made == tenants.Tenant(tenant_name, ())
        assert tenant_name in [t.name for t in tenants.list_tenants(conn)]
        quota = tenants.set_quota(conn, tenant_name, max_channels=3)
        assert quota is not None and quota.tenant == tenant_name and quota.max_channels == 3
        assert tenant_name in [q.tenant for q in tenants.list_quotas(conn, measure=True)]
        assert tenants.set_quota(conn, tenant_name) is None


def test_json_deeper_than_the_fast_parser_reads_as_json_loads_reads_it(
        dsn: str, unique: Callable[..., str]) -> None:
    deep: Any = "leaf"
    for _ in range(400):  # the server takes 512 levels; pydantic_core's parser 200
        deep = [deep]
    text = json.dumps(deep).encode()
    from pydantic_core import from_json

    from actae._json import loads
    with pytest.raises(ValueError):
        from_json(text)
    assert loads(text) == deep
    with SyncActaeClient(dsn, max_size=1) as client:
        channel = unique("deep")
        claim = client.claim_execution(channel, "k", "t", {"deep": deep})
        done = client.complete_execution(claim.execution.id, claim.claim_token, deep)
        assert done.params == {"deep": deep} and done.result == deep


def client_tool(key: str) -> ToolCall:
    return ToolCall(lambda ctx: RESULT, key_name=key, tool_name="charge", params=PARAMS)


def test_a_repeatable_read_pool_is_refused_at_the_claim_before_the_tool_runs(
        dsn: str, unique: Callable[..., str], conn: psycopg.Connection[Any]) -> None:
    ran: list[str] = []

    def charge(ctx: Any) -> Any:
        ran.append(ctx.key_name)
        return RESULT

    options = "-c default_transaction_isolation=repeatable\\ read"
    channel = unique("rr")
    with ConnectionPool(dsn, min_size=1, max_size=1, open=True,
                        kwargs={"autocommit": True, "options": options}) as pool:
        client = SyncActaeClient(pool=pool)
        with pytest.raises(psycopg.errors.FeatureNotSupported, match="READ COMMITTED only"):
            client.run_tool(charge, channel_id=channel, key_name="k", tool_name="charge",
                            params=PARAMS)
    assert ran == []
    row = conn.execute("select count(*) from actae.executions where channel_id = %s",
                       (channel,)).fetchone()
    assert row == (0,)
    with SyncActaeClient(dsn, max_size=1) as plain:  # under READ COMMITTED it runs once
        assert plain.run_tool(charge, channel_id=channel, key_name="k", tool_name="charge",
                              params=PARAMS) == RESULT
    assert ran == ["k"]


def test_langgraph_setup_migrates_the_database_the_pool_reaches(dsn: str) -> None:
    """ActaeSaver(client on a caller's pool).setup() migrates the database the pool's
    connections reach: the pool's kwargs (here dbname) apply over its conninfo, as psycopg
    applies them (it migrated the conninfo's database, or failed on it)."""
    from psycopg.conninfo import conninfo_to_dict

    from actae.langgraph import ActaeSaver, AsyncActaeSaver
    from tests.python.support.databases import empty_database

    wrong = make_conninfo(dsn, dbname="actae_no_such_database")
    for saver_class in (ActaeSaver, AsyncActaeSaver):
        with empty_database(dsn, "actae_lg_setup") as target:
            name = conninfo_to_dict(target)["dbname"]
            if saver_class is ActaeSaver:
                with ConnectionPool(wrong, min_size=0, max_size=1, open=True,
                                    kwargs={"dbname": name, "autocommit": True}) as pool:
                    ActaeSaver(SyncActaeClient(pool=pool)).setup()
            else:
                async def main(name: str = name) -> None:
                    kwargs = {"dbname": name, "autocommit": True}
                    async with AsyncConnectionPool(wrong, min_size=0, max_size=1, open=False,
                                                   kwargs=kwargs) as pool:
                        await AsyncActaeSaver(ActaeClient(pool=pool)).setup()
                asyncio.run(main())
            with psycopg.connect(target) as check:
                row = check.execute("select to_regproc('actae.claim_execution') is not null"
                                    ).fetchone()
            assert row == (True,), saver_class


def test_a_client_is_refused_a_pool_of_the_other_kind_or_a_dsn_that_is_no_string(
    dsn: str
) -> None:
    sync_pool = ConnectionPool(dsn, min_size=1, max_size=1, open=False)
    async_pool = AsyncConnectionPool(dsn, min_size=1, max_size=1, open=False)
    with pytest.raises(TypeError, match="^pool must be a psycopg_pool.AsyncConnectionPool, "
                       "got psycopg_pool.pool.ConnectionPool"):
        ActaeClient(pool=sync_pool)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="^pool must be a psycopg_pool.ConnectionPool, got "
                       "psycopg_pool.pool_async.AsyncConnectionPool"):
        SyncActaeClient(pool=async_pool)  # type: ignore[arg-type]
    for client in (ActaeClient, SyncActaeClient):
        with pytest.raises(TypeError, match="^dsn must be a connection string, got int"):
            client(123)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="^pass either dsn or pool"):
            client()
    # Each of its own kind (a NullConnectionPool is one) is taken.
    ActaeClient(pool=async_pool)
    SyncActaeClient(pool=sync_pool)


def test_a_key_ttl_read_back_is_accepted_when_written_again(
    dsn: str, unique: Callable[..., str]
) -> None:
    """psycopg reads '100 years' as 36 500 days; writing the model's value back is the same
    lifetime to a user, so it is accepted."""
    channel = unique("ttl")
    with SyncActaeClient(dsn, max_size=1) as client:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute("select actae.set_key_ttl(%s, interval '100 years')", (channel,))
        read = client.get_channel(channel).key_ttl
        assert read == timedelta(days=36500)
        assert client.set_key_ttl(channel, read).key_ttl == read


def test_pools_actae_opens_run_under_read_committed_whatever_the_servers_default(
        dsn: str, unique: Callable[..., str], conn: psycopg.Connection[Any]) -> None:
    """A server, database or role whose default_transaction_isolation is SERIALIZABLE (as
    some managed servers are set): the pools Actae opens for itself (a client given a DSN,
    sync and async, and the command line's) set READ COMMITTED on each connection they
    make, so claims work there; every call was 0A000 before. A caller's own pool keeps its
    own setting (the test above)."""
    serializable = make_conninfo(
        dsn, options="-c default_transaction_isolation=serializable")
    channel = unique("serializable")
    with SyncActaeClient(serializable, max_size=1) as client:
        assert client.run_tool(lambda ctx: RESULT, channel_id=channel, key_name="sync",
                               tool_name="charge", params=PARAMS) == RESULT
        with client.pool.connection() as own:
            row = own.execute("show default_transaction_isolation").fetchone()
        assert row == ("read committed",)

    async def run_async() -> Any:
        async with ActaeClient(serializable, max_size=1) as client:
            return await client.run_tool(lambda ctx: RESULT, channel_id=channel,
                                         key_name="async", tool_name="charge", params=PARAMS)

    assert asyncio.run(run_async()) == RESULT
    done = subprocess.run(
        [sys.executable, "-m", "actae", "run", "start", channel, "agent", "--queue",
         unique("q"), "--dsn", serializable],
        capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    rows = conn.execute(
        "select count(*) from actae.executions where channel_id = %s and status = 'completed'"
        " union all select count(*) from actae.runs where channel_id = %s",
        (channel, channel)).fetchall()
    assert rows == [(2,), (1,)]


def test_behind_a_transaction_pooler_the_level_is_not_set_per_session(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """With ACTAE_PREPARE_THRESHOLD=none (a transaction-mode pooler) a session SET would
    land on whichever server connection the pooler picked and stay there for its other
    clients: Actae's pools do not make it (docs/python.md: set the level on the role)."""
    from actae.client import own_pool_args

    assert "configure" in own_pool_args(aio=False)
    monkeypatch.setenv("ACTAE_PREPARE_THRESHOLD", "none")
    for aio in (False, True):
        args = own_pool_args(aio=aio)
        assert "configure" not in args and args["kwargs"]["prepare_threshold"] is None
