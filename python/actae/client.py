"""ActaeClient (asyncio) and SyncActaeClient: thin callers of Actae's SQL functions.

Both expose the same methods, generated from the builders in ``calls`` — there is one
definition of every call, not two. Each method takes an optional ``conn=`` so a caller can
put an Actae call inside its own transaction; without it the call runs on a pooled
autocommit connection: one statement, one transaction, one round trip.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import dataclasses
import functools
import inspect
import os
import time
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from typing import Any, Concatenate, ParamSpec, TypeVar, cast

import psycopg
from psycopg import postgres, pq, sql
from psycopg.adapt import Loader
from psycopg.conninfo import conninfo_to_dict
from psycopg.rows import tuple_row
from psycopg.types.json import JsonbBinaryLoader, JsonBinaryLoader, JsonbLoader, JsonLoader
from psycopg_pool import AsyncConnectionPool, ConnectionPool

from actae import _json, _runtime, calls, observe, plans
from actae._coalesce import Coalescer
from actae._pool import AsyncParkingPool, ParkingPool
from actae.errors import ConnectionFailed, InvalidInput, NotFound, map_error, mark_unreached
from actae.models import Event
from actae.plans import tools as tool_plans

P = ParamSpec("P")
T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])


def _like(builder: Callable[..., Any], cls: str) -> Callable[[F], F]:
    """functools.wraps for a client method made from a builder or plan factory, with the
    signature help() shows: ``self`` first, returning what the call or plan returns
    (``Claim`` for a builder's ``Call[Claim]``), not the step itself."""

    def decorate(method: F) -> F:
        functools.update_wrapper(method, builder)
        signature = inspect.signature(builder)
        returns = signature.return_annotation  # 'Call[Claim]' (annotations are strings here)
        if isinstance(returns, str) and returns.endswith("]") and "[" in returns:
            returns = returns[returns.index("[") + 1:-1]
        this = inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)
        method.__dict__["__signature__"] = signature.replace(
            parameters=[this, *signature.parameters.values()], return_annotation=returns)
        method.__qualname__ = f"{cls}.{builder.__name__}"
        method.__module__ = __name__
        return method

    return decorate


def _async_method(
    builder: Callable[P, calls.Call[T]],
) -> Callable[Concatenate[ActaeClient, P], Coroutine[Any, Any, T]]:
    @_like(builder, "ActaeClient")
    async def method(self: ActaeClient, *args: P.args, **kwargs: P.kwargs) -> T:
        return await self.run(builder(*args, **kwargs))

    return method


def _sync_method(
    builder: Callable[P, calls.Call[T]],
) -> Callable[Concatenate[SyncActaeClient, P], T]:
    @_like(builder, "SyncActaeClient")
    def method(self: SyncActaeClient, *args: P.args, **kwargs: P.kwargs) -> T:
        return self.run(builder(*args, **kwargs))

    return method


def _bound(signature: inspect.Signature, args: Any, kwargs: Any) -> inspect.BoundArguments:
    """A plan's arguments for its observer and for the plan itself: an iterator (run_tools'
    tool_calls given as a generator) is read once into a list both use, so the observer
    looking at it does not leave the plan an exhausted one."""
    bound = signature.bind(*args, **kwargs)
    for name, value in bound.arguments.items():
        if isinstance(value, Iterator):
            bound.arguments[name] = list(cast(Iterator[Any], value))
    return bound


def _async_plan(
    factory: Callable[P, plans.Plan[T]],
) -> Callable[Concatenate[ActaeClient, P], Coroutine[Any, Any, T]]:
    signature = inspect.signature(factory)

    @_like(factory, "ActaeClient")
    async def method(self: ActaeClient, *args: P.args, **kwargs: P.kwargs) -> T:
        watcher = observe.observer
        if watcher is None or not watcher.watches_plans():
            return await self.drive(factory(*args, **kwargs))
        bound = _bound(signature, args, kwargs)
        with watcher.plan(factory.__name__, bound.arguments):
            return await self.drive(factory(*bound.args, **bound.kwargs))

    return method


def _sync_plan(
    factory: Callable[P, plans.Plan[T]],
) -> Callable[Concatenate[SyncActaeClient, P], T]:
    signature = inspect.signature(factory)

    @_like(factory, "SyncActaeClient")
    def method(self: SyncActaeClient, *args: P.args, **kwargs: P.kwargs) -> T:
        watcher = observe.observer
        if watcher is None or not watcher.watches_plans():
            return self.drive(factory(*args, **kwargs))
        bound = _bound(signature, args, kwargs)
        with watcher.plan(factory.__name__, bound.arguments):
            return self.drive(factory(*bound.args, **bound.kwargs))

    return method


def stale_plan(exc: psycopg.Error) -> bool:
    """Whether a statement failed because psycopg had prepared it on this connection (after
    prepare_threshold uses) before a migration changed the row type it returns: the server
    refuses it (0A000 "cached plan must not change result type") before running anything,
    and on an autocommit connection it refuses it for the connection's life. The clients
    then close that pool connection (the pool opens another) and send the call once more,
    unprepared (the pool's other connections may hold the same stale plan; nothing of the
    first was run); on a connection given as ``conn=``, see _resendable."""
    return exc.sqlstate == "0A000" and (
        exc.diag.source_function == "RevalidateCachedQuery"
        or exc.diag.message_primary == "cached plan must not change result type")


def _resend(call: calls.Call[T]) -> calls.Call[T]:
    """A call refused for a stale plan (stale_plan), to send again unprepared."""
    return dataclasses.replace(call, prepare=False)


def _resendable(exc: psycopg.Error, conn: Any) -> bool:
    """Whether a call refused on a connection given as ``conn=`` (a caller's, or the one a
    watcher or the console's live view holds) is sent again on it: for a stale plan, when
    the connection is autocommit and is out of any transaction after the error (the refused
    statement was its own transaction; inside one, the status is in error). psycopg keeps
    the stale statement, so each such call costs one more round trip until the connection
    is replaced. On a connection that is not autocommit the error has aborted the caller's
    transaction (or psycopg's implicit one, which another thread sharing the connection may
    have written in): raised; the caller's rollback also makes psycopg forget the stale
    statements. Read after the error, so calls that succeed pay nothing for it."""
    return (stale_plan(exc) and conn.autocommit
            and conn.info.transaction_status == pq.TransactionStatus.IDLE)


def pool_kwargs() -> dict[str, Any]:
    """The connection settings of the pools clients open for themselves (the worker's, the
    console's and the command line's too). The client encoding is UTF-8 whatever the
    database's or PGCLIENTENCODING: JSON goes out as UTF-8 bytes, which a LATIN1 or WIN1252
    session would store as other characters (a fork's block policy on "café" then matched no
    tool), and a SQL_ASCII one returns text as bytes. ACTAE_PREPARE_THRESHOLD sets psycopg's
    prepare_threshold: ``none`` behind a transaction-mode pooler (PgBouncer), where a
    statement prepared on one server connection is run by name on another (errors, or
    another statement run with this one's arguments)."""
    return {"autocommit": True, "client_encoding": "UTF8",
            **prepare_threshold(os.environ.get("ACTAE_PREPARE_THRESHOLD"))}


# Actae's writes run under READ COMMITTED only (0A000 otherwise). A server, database or role
# whose default_transaction_isolation is another level (some managed servers are set to
# SERIALIZABLE) made every claim of a pool Actae opened fail; such a pool's connections set
# the session's default back to READ COMMITTED when they are made: one SHOW per new
# connection, and a SET only where the level differs (neither takes a snapshot, which a hot
# standby refuses under a SERIALIZABLE default). Not behind a transaction-mode pooler
# (ACTAE_PREPARE_THRESHOLD=none), where a session setting lands on whichever server
# connection the pooler picked, and stays there for its other clients: set the level on the
# role or database there. A caller's own pool keeps its settings.
_LEVEL = "show default_transaction_isolation"
_SET_LEVEL = "set default_transaction_isolation to 'read committed'"


def _read_committed(conn: psycopg.Connection[Any]) -> None:
    if conn.execute(_LEVEL).fetchone() != ("read committed",):
        conn.execute(_SET_LEVEL)


async def _aread_committed(conn: psycopg.AsyncConnection[Any]) -> None:
    if await (await conn.execute(_LEVEL)).fetchone() != ("read committed",):
        await conn.execute(_SET_LEVEL)


def own_pool_args(*, aio: bool) -> dict[str, Any]:
    """The arguments of a pool Actae opens for itself (a client given a DSN, the console's,
    the command line's): pool_kwargs() for its connections, and their READ COMMITTED."""
    kwargs = pool_kwargs()
    if "prepare_threshold" in kwargs and kwargs["prepare_threshold"] is None:
        return {"kwargs": kwargs}  # a transaction-mode pooler: see _read_committed
    return {"kwargs": kwargs, "configure": _aread_committed if aio else _read_committed}


def prepare_threshold(value: str | None) -> dict[str, Any]:
    """The prepare_threshold connection setting ACTAE_PREPARE_THRESHOLD gives: none for
    ``none`` (never prepare), N for a whole number N >= 0, nothing (psycopg's 5) when unset
    or empty. Anything else is InvalidInput naming the variable."""
    if value is None or not value.strip():
        return {}
    text = value.strip().lower()
    if text == "none":
        return {"prepare_threshold": None}
    if text.isdigit():
        return {"prepare_threshold": int(text)}
    raise InvalidInput(
        f"ACTAE_PREPARE_THRESHOLD must be none or a whole number, not {value!r}",
        {"argument": "ACTAE_PREPARE_THRESHOLD", "value": value})


_NAMES: dict[tuple[str, int], tuple[str, ...]] = {}


def _dict_rows(
    sql: str, cur: psycopg.Cursor[Any] | psycopg.AsyncCursor[Any], rows: list[tuple[Any, ...]]
) -> list[calls.Row]:
    """Rows as dicts keyed by column name. A statement's column names are read once per
    (statement, column count) and reused: the rows arrive as tuples (psycopg's C fast
    path) instead of through a row factory that decodes every name on every call."""
    if not rows or cur.pgresult is None:
        return []
    key = (sql, cur.pgresult.nfields)
    names = _NAMES.get(key)
    if names is None:
        names = _NAMES[key] = tuple(c.name for c in cur.description or ())
    return [dict(zip(names, row, strict=True)) for row in rows]


JsonLoaders = tuple[tuple[tuple[int, type[Loader]], ...], ...]


def json_loaders(loads: Callable[[str | bytes], Any]) -> JsonLoaders:
    """The json and jsonb loaders of a cursor of each format (text, binary) decoding with
    loads: pairs (oid, loader class) to register on a cursor (two registrations: about 2 µs
    per cursor, where psycopg's set_json_loads registers four by type name in about 8)."""
    json_oid, jsonb_oid = postgres.types["json"].oid, postgres.types["jsonb"].oid
    bases: tuple[tuple[type[Loader], type[Loader]], ...] = (
        (JsonLoader, JsonbLoader), (JsonBinaryLoader, JsonbBinaryLoader))

    def decoding(base: type[Loader]) -> type[Loader]:
        return cast("type[Loader]", type(base.__name__, (base,), {"_loads": loads}))

    return tuple(((json_oid, decoding(json_base)), (jsonb_oid, decoding(jsonb_base)))
                 for json_base, jsonb_base in bases)


_JSON_LOADERS = json_loaders(_json.loads)


def _styles_parsed(conn: Any) -> bool:
    """Whether text results of this session are ones psycopg parses: timestamps in
    DateStyle ISO and intervals in IntervalStyle postgres (the server's defaults). Both are
    reported parameters, read from the connection without a round trip."""
    pgconn = conn.pgconn
    return (pgconn.parameter_status(b"DateStyle") or b"ISO").startswith(b"ISO") and (
        pgconn.parameter_status(b"IntervalStyle") or b"postgres") == b"postgres"


def _cursor(conn: Any, binary: bool) -> Any:
    """A cursor reading rows as the driver maps them, whatever the connection was set up
    to return: a plain cursor (not the connection's cursor_factory: a RawCursor takes no
    named parameters, a ClientCursor no binary results), tuples (a connection made for
    LangGraph's saver has row_factory=dict_row), JSON decoded by actae._json.loads (not a
    loads function set on the connection), and binary results when the session's
    DateStyle or IntervalStyle would give timestamps or intervals psycopg cannot parse."""
    cur: Any
    if isinstance(conn, psycopg.AsyncConnection):
        cur = psycopg.AsyncCursor(cast("psycopg.AsyncConnection[Any]", conn),
                                  row_factory=tuple_row)
    else:
        cur = psycopg.Cursor(cast("psycopg.Connection[Any]", conn), row_factory=tuple_row)
    binary = binary or not _styles_parsed(conn)
    if binary:
        cur.format = pq.Format.BINARY
    for oid, loader in _JSON_LOADERS[binary]:
        cur.adapters.register_loader(oid, loader)
    return cur


# A pooled connection keeps one text cursor for the driver's calls and reuses it: a new
# cursor sets up its adapters afresh (dumpers for the arguments, loaders for every column),
# about a third of psycopg's client CPU per call. Only connections the driver has checked
# out alone use it; a caller's conn= gets a cursor of its own, as before, and so does a
# binary call (LangGraph's checkpoints: a reused cursor would keep the last one in memory).
# The cursor holds its last result until the connection's next driver call.
_CURSOR = "_actae_cursor"


def _reused_cursor(conn: Any, binary: bool) -> Any:
    if binary or not _styles_parsed(conn):
        return _cursor(conn, True)
    cur = getattr(conn, _CURSOR, None)
    if cur is None or cur.closed:
        cur = _cursor(conn, False)
        setattr(conn, _CURSOR, cur)
    return cur


CONNECT_TIMEOUT = 5  # seconds for the first connection, unless the DSN sets connect_timeout
GIVE_BACK_SECONDS = 1  # the lease left to a claim whose async tool was cancelled (_give_back)
GIVE_BACK_WAIT = 2.0  # seconds close() waits for those leases to be given back
# watch() registers for three times its poll, and watch_channel takes at most 86 400 seconds.
_MAX_POLL_SECONDS = 28800


def _check_target(dsn: object, pool: object, pool_type: type[Any]) -> None:
    """A client is given a DSN string or a pool of its own kind (an asyncio pool for
    ActaeClient, a blocking one for SyncActaeClient), not both: refused at once, not at the
    first call."""
    if (dsn is None) == (pool is None):
        raise ValueError("pass either dsn or pool")
    if dsn is not None and not isinstance(dsn, str):
        raise TypeError(f"dsn must be a connection string, got {type(dsn).__name__}")
    if pool is not None and not isinstance(pool, pool_type):
        raise TypeError(f"pool must be a psycopg_pool.{pool_type.__name__}, got "
                        f"{type(pool).__module__}.{type(pool).__name__}")


def _check_poll(value: object) -> None:
    """InvalidInput naming poll_seconds unless it is a number of seconds in (0, 28 800]."""
    if (isinstance(value, bool) or not isinstance(value, int | float)
            or not 0 < value <= _MAX_POLL_SECONDS):
        raise InvalidInput(f"poll_seconds must be a number of seconds above 0 and at most "
                           f"{_MAX_POLL_SECONDS}, got {value!r}", {"argument": "poll_seconds"})


def _probe_kwargs(dsn: str) -> dict[str, Any]:
    given = conninfo_to_dict(dsn).get("connect_timeout")
    return {"autocommit": True, "connect_timeout": int(given or CONNECT_TIMEOUT)}


def _connection_failed(dsn: str, exc: psycopg.Error) -> ConnectionFailed:
    """ConnectionFailed naming the host and port a DSN (or the PG* defaults) points at."""
    params = conninfo_to_dict(dsn)
    host = str(params.get("host") or params.get("hostaddr") or os.environ.get("PGHOST")
               or "localhost (default socket)")
    port = str(params.get("port") or os.environ.get("PGPORT") or 5432)
    reason = " ".join(str(exc).split()) or type(exc).__name__
    return ConnectionFailed(
        f"cannot connect to PostgreSQL at host {host} port {port}: {reason}",
        {"host": host, "port": port},
    )


class ActaeClient:
    """Asyncio client. ``async with ActaeClient(dsn) as client: ...`` or
    ``ActaeClient(pool=existing_async_pool)`` (the pool is then the caller's to open and close).
    With a dsn the client's pool holds up to ``max_size`` connections and opens ``min_size``
    of them in ``open()`` (a worker running N agents at once wants N ready).
    """

    def __init__(
        self, dsn: str | None = None, *, pool: AsyncConnectionPool[Any] | None = None,
        max_size: int = 10, min_size: int = 1,
    ) -> None:
        _check_target(dsn, pool, AsyncConnectionPool)
        self._owns_pool = pool is None
        self._dsn = dsn or ""
        # Any row factory: the driver reads rows as tuples on its own cursors.
        self.pool: AsyncConnectionPool[Any] = pool or self._own_pool(min_size, max_size)
        # The claims / completions of concurrent plans, sent as batches.
        self._coalescer = Coalescer(self._run)
        #: leases being given back (_give_back): held, since the loop keeps tasks weakly
        self._giving_back: set[asyncio.Task[None]] = set()

    def _own_pool(self, min_size: int, max_size: int) -> AsyncConnectionPool[Any]:
        """The pool a client given a DSN opens for itself (opened and closed with it)."""
        return AsyncParkingPool(self._dsn, min_size=min_size, max_size=max_size,
                                **own_pool_args(aio=True), open=False)

    async def open(self) -> None:
        """Open the pool; an unreachable database raises ConnectionFailed within seconds."""
        if self._owns_pool:
            try:
                await (await psycopg.AsyncConnection.connect(
                    self._dsn, **_probe_kwargs(self._dsn))).close()
            except psycopg.OperationalError as exc:
                raise _connection_failed(self._dsn, exc) from exc
            await self.pool.open(wait=True)

    async def close(self) -> None:
        pending = set(self._giving_back)
        try:
            if pending:
                # Leases being given back (_give_back): sent before the pool goes, unless
                # their tool does not end within the wait (its lease then lapses as it
                # would have).
                await asyncio.wait(pending, timeout=GIVE_BACK_WAIT)
        finally:  # a close cancelled in its wait still closes the pool
            for task in pending:
                task.cancel()
            if self._owns_pool:
                await self.pool.close()

    async def __aenter__(self) -> ActaeClient:
        await self.open()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    async def run(self, call: calls.Call[T]) -> T:
        """Execute one call (on call.conn, or a pooled connection) and map errors; the call
        is reported to ``actae.observe.observer`` (logging, tracing) unless it is None."""
        return await self._observed(self._run, call)

    @staticmethod
    async def _observed(
        execute: Callable[[calls.Call[T]], Coroutine[Any, Any, T]], call: calls.Call[T]
    ) -> T:
        watcher = observe.observer
        if watcher is None:
            return await execute(call)
        return await watcher.arun(execute, call)  # type: ignore[no-any-return]

    async def _run(self, call: calls.Call[T]) -> T:
        used: Any = None  # the pool's connection, for mark_unreached
        try:
            if call.conn is not None:
                conn = call.conn
                try:
                    return await self._execute(_cursor(conn, call.binary), call)
                except psycopg.errors.FeatureNotSupported as exc:
                    if not _resendable(exc, conn):
                        raise
                return await self._execute(_cursor(conn, call.binary), _resend(call))
            for again in (False, True):
                # getconn/putconn rather than pool.connection(): an autocommit connection has
                # no transaction to end, so the context manager's commit round is skipped.
                conn = used = await self.pool.getconn(call.wait)
                try:
                    cur = _reused_cursor(conn, call.binary)
                    if conn.autocommit:
                        return await self._execute(cur, call)
                    async with conn:  # a caller's pool of transactional connections
                        return await self._execute(cur, call)
                except psycopg.errors.FeatureNotSupported as exc:
                    if again or not stale_plan(exc):
                        raise
                    await conn.close()  # see stale_plan; the pool drops it and opens another
                    call = _resend(call)
                finally:
                    await self.pool.putconn(conn)
            raise AssertionError("unreachable")
        except (psycopg.Error, UnicodeEncodeError, ValueError, RecursionError) as exc:
            if call.conn is None:  # a connection of the pool's, not the caller's
                mark_unreached(exc, used, self.pool)
            raise map_error(exc, call.sql, call.params) from exc

    @staticmethod
    async def _execute(cur: psycopg.AsyncCursor[Any], call: calls.Call[T]) -> T:
        # The cursor is not closed: closing only drops its result, which its next execute
        # (or leaving the caller's frame) does too, for one coroutine less.
        await cur.execute(call.sql, call.params, prepare=call.prepare)
        return call.read(_dict_rows(call.sql, cur, await cur.fetchall()))

    async def drive(self, plan: plans.Plan[T]) -> T:
        """Run a plan to completion; Emit steps are ignored. The claims and completions of
        plans running at once on this client go to the database in batches
        (actae._coalesce)."""
        value: Any = None
        started: list[Any] = []  # the plan's tools (Start handles)
        self._coalescer.plans += 1
        try:
            while True:
                try:
                    step = plan.send(value)
                except StopIteration as stop:
                    return stop.value
                if type(step) is calls.Call:  # the common step, without a coroutine of its own
                    value = await self._observed(self._coalescer.run, step)
                else:
                    value = await self._step(step, started)
        except BaseException as exc:
            _runtime.stop_started(started)  # leaving early: no tool of it runs on unwatched
            if not isinstance(exc, Exception):  # cancelled or interrupted: nothing recorded
                for handle in started:
                    if isinstance(handle, _runtime.Running) and handle.thread is None:
                        self._give_back(handle.future, handle.ctx)
            raise
        finally:
            self._coalescer.plans -= 1

    def _give_back(self, tool: asyncio.Future[Any], ctx: Any) -> None:
        """Once the async tool of a plan left by a cancel (or an interrupt) has ended, its
        lease is given back, shortened by one heartbeat to GIVE_BACK_SECONDS, so the next
        claim of the key takes it over then (ambiguous, as after a crash: the tool's outcome
        was not recorded) instead of when the whole lease ends. A sync tool's thread cannot
        be stopped: its claim keeps its lease. When the outcome was recorded after all, or
        the claim was taken over, the heartbeat is refused (AC409, AC423) and changes
        nothing; any error is ignored (the lease then lapses as it would have). close()
        waits for these, briefly."""
        call = calls.heartbeat_execution(ctx.execution_id, ctx.claim_token, GIVE_BACK_SECONDS,
                                         channel_id=ctx.channel_id)

        async def send() -> None:
            await asyncio.wait({tool})
            with contextlib.suppress(Exception):
                await self.run(call)

        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # the plan's coroutine closed with no loop running (collected)
            return
        # In a context of its own: the plan's (its run_tool span, with OpenTelemetry) has
        # ended by the time the lease is given back.
        task = loop.create_task(send(), context=contextvars.Context())
        self._giving_back.add(task)
        task.add_done_callback(self._giving_back.discard)

    async def _step(self, step: plans.Step, started: list[Any]) -> Any:
        if isinstance(step, calls.Call):
            return await self._observed(self._coalescer.run, step)
        if isinstance(step, tool_plans.Attempt):
            # Through the coalescer too: a completion the plan attempts joins its batch.
            try:
                return await self._observed(self._coalescer.run, step.call)
            except Exception as exc:  # noqa: BLE001 - returned to the plan, which decides
                return exc
        if isinstance(step, tool_plans.Start):
            handle = _runtime.astart(step)
            started.append(handle)
            return handle
        if isinstance(step, plans.Sleep):
            await asyncio.sleep(step.seconds)
        if isinstance(step, plans.LocalStep):
            return await _runtime.arun(step)
        return None

    async def _emitted(self, plan: plans.Plan[Any]) -> AsyncIterator[Any]:
        value: Any = None
        started: list[Any] = []
        try:
            while True:
                try:
                    step = plan.send(value)
                except StopIteration:
                    return
                if isinstance(step, plans.Emit):
                    value = None
                    yield step.value
                else:
                    value = await self._step(step, started)
        except BaseException:
            _runtime.stop_started(started)
            raise

    claim_execution = _async_method(calls.claim_execution)
    heartbeat_execution = _async_method(calls.heartbeat_execution)
    complete_execution = _async_method(calls.complete_execution)
    fail_execution = _async_method(calls.fail_execution)
    get_execution = _async_method(calls.get_execution)
    list_executions = _async_method(calls.list_executions)
    list_expired_leases = _async_method(calls.list_expired_leases)
    create_channel = _async_method(calls.create_channel)
    get_channel = _async_method(calls.get_channel)
    record_event = _async_method(calls.record_event)
    transition_state = _async_method(calls.transition_state)
    fork_channel = _async_method(calls.fork_channel)
    list_events = _async_method(calls.list_events)
    get_state = _async_method(calls.get_state)
    watch_channel = _async_method(calls.watch_channel)
    run_tool = _async_plan(tool_plans.run_tool)
    run_tools = _async_plan(tool_plans.run_tools)
    compensate = _async_plan(tool_plans.compensate)
    cancel_execution = _async_method(calls.cancel_execution)
    close_channel = _async_method(calls.close_channel)
    set_key_ttl = _async_method(calls.set_key_ttl)
    purge = _async_method(calls.purge)
    ledger_status = _async_method(calls.ledger_status)
    tool_stats = _async_method(calls.tool_stats)
    channel_lineage = _async_method(calls.channel_lineage)
    start_run = _async_method(calls.start_run)
    claim_run = _async_method(calls.claim_run)
    claim_runs = _async_method(calls.claim_runs)
    claim_run_with_completed = _async_method(calls.claim_run_with_completed)
    claim_runs_with_completed = _async_method(calls.claim_runs_with_completed)
    complete_run_and_claim = _async_method(calls.complete_run_and_claim)
    heartbeat_run = _async_method(calls.heartbeat_run)
    complete_run = _async_method(calls.complete_run)
    fail_run = _async_method(calls.fail_run)
    sleep_run = _async_method(calls.sleep_run)
    wait_for_event = _async_method(calls.wait_for_event)
    cancel_run = _async_method(calls.cancel_run)
    get_run = _async_method(calls.get_run)
    list_runs = _async_method(calls.list_runs)
    queue_topic = _async_method(calls.queue_topic)
    set_execution_trace = _async_method(calls.set_execution_trace)
    get_execution_trace = _async_method(calls.get_execution_trace)
    list_channels = _async_method(calls.list_channels)
    timeline = _async_method(calls.timeline)
    fork_tree = _async_method(calls.fork_tree)
    diff_states = _async_method(calls.diff_states)
    decision_trail = _async_method(calls.decision_trail)
    annotate_channel = _async_method(calls.annotate_channel)
    follow_channel = _async_method(calls.follow_channel)
    role_can_write = _async_method(calls.role_can_write)
    # LangGraph checkpointer functions (actae.langgraph wraps them as LangGraph savers).
    langgraph_put = _async_method(calls.langgraph_put)
    langgraph_put_writes = _async_method(calls.langgraph_put_writes)
    langgraph_get_tuple = _async_method(calls.langgraph_get_tuple)
    langgraph_list = _async_method(calls.langgraph_list)
    langgraph_delete_thread = _async_method(calls.langgraph_delete_thread)
    langgraph_copy_thread = _async_method(calls.langgraph_copy_thread)
    langgraph_fork_thread = _async_method(calls.langgraph_fork_thread)
    langgraph_prune = _async_method(calls.langgraph_prune)
    langgraph_delete_for_runs = _async_method(calls.langgraph_delete_for_runs)
    langgraph_channel = _async_method(calls.langgraph_channel)
    claim_executions = _async_method(calls.claim_executions)
    complete_executions = _async_method(calls.complete_executions)
    list_completed = _async_method(calls.list_completed)

    def iter_events(
        self, channel_id: str, after_cursor: int = 0, *, page_size: int = 1000, conn: Any = None
    ) -> AsyncIterator[Event]:
        """Every event after after_cursor, paging through list_events."""
        return self._emitted(plans.iter_events(channel_id, after_cursor, page_size, conn))

    async def watch(
        self, channel_id: str, after_cursor: int = 0, *, page_size: int = 1000,
        poll_seconds: float = 5.0,
    ) -> AsyncIterator[Event]:
        """Catch up from the table, then yield new events as they commit, forever.

        The watcher registers with watch_channel (renewed while it runs), LISTENs on the
        topic it returns, then reads: an append either committed before the LISTEN (the read
        sees it) or is announced to it, and every read asks for cursors after the last one
        yielded, so no cursor is skipped or repeated. A channel that does not exist yet is
        created empty and waited for. One pooled connection is held while iterating;
        poll_seconds (above 0, at most 28 800) bounds the wait when no announcement comes.

        A channel purged while it is watched is watched again under its id, as a new one:
        each page is read with the channel's topic in one statement, and a page of another
        topic (a channel created again has a new one), or a channel found gone, makes the
        watcher register again and read the channel from its first event (cursors start
        again at 1), nothing of it yielded before.
        """
        _check_poll(poll_seconds)
        register_seconds = max(30, int(poll_seconds * 3))
        async with self.pool.connection() as conn:
            was_autocommit = conn.autocommit
            if not was_autocommit:
                await conn.set_autocommit(True)
            try:
                topic = ""
                renew_at = 0.0
                while True:
                    if time.monotonic() >= renew_at:
                        registered = await self.run(
                            calls.watch_channel(channel_id, register_seconds, conn=conn))
                        renew_at = time.monotonic() + register_seconds / 3
                        if registered != topic:
                            # The topic exists once the channel does (watch_channel creates
                            # it): LISTEN now, before the read below, misses nothing.
                            await conn.execute(
                                sql.SQL("listen {}").format(sql.Identifier(registered)))
                            if topic:  # a new channel under the id: from its start
                                await conn.execute(
                                    sql.SQL("unlisten {}").format(sql.Identifier(topic)))
                                after_cursor = 0
                            topic = registered
                    try:
                        while True:  # the pages of one read
                            page_topic, page = await self.run(calls.watch_page(
                                channel_id, after_cursor, page_size, conn=conn))
                            if page_topic != topic:
                                renew_at = 0.0  # another channel now: register again
                                break
                            for event in page:
                                after_cursor = event.cursor
                                yield event
                            if len(page) < page_size:
                                break
                    except NotFound:
                        renew_at = 0.0  # purged: register again, which creates it anew
                    if renew_at == 0.0:
                        continue
                    async for _ in conn.notifies(timeout=poll_seconds, stop_after=1):
                        pass
            except BaseException:  # every way out of the loop: GeneratorExit, an error...
                # Hand the connection back to the pool as it was lent. When the connection
                # is what failed, the pool drops it, and the caller gets the first error.
                with contextlib.suppress(psycopg.Error):
                    await conn.execute("unlisten *")
                    if not was_autocommit:
                        await conn.set_autocommit(False)
                raise


class SyncActaeClient:
    """The blocking twin of ActaeClient: same methods, same SQL, no asyncio (``max_size``
    and ``min_size`` alike)."""

    def __init__(
        self, dsn: str | None = None, *, pool: ConnectionPool[Any] | None = None,
        max_size: int = 10, min_size: int = 1,
    ) -> None:
        _check_target(dsn, pool, ConnectionPool)
        self._owns_pool = pool is None
        self._dsn = dsn or ""
        # Any row factory: the driver reads rows as tuples on its own cursors.
        self.pool: ConnectionPool[Any] = pool or ParkingPool(
            self._dsn, min_size=min_size, max_size=max_size, **own_pool_args(aio=False),
            open=False)

    def open(self) -> None:
        """Open the pool; an unreachable database raises ConnectionFailed within seconds."""
        if self._owns_pool:
            try:
                psycopg.Connection.connect(self._dsn, **_probe_kwargs(self._dsn)).close()
            except psycopg.OperationalError as exc:
                raise _connection_failed(self._dsn, exc) from exc
            self.pool.open(wait=True)

    def close(self) -> None:
        if self._owns_pool:
            self.pool.close()

    def __enter__(self) -> SyncActaeClient:
        self.open()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def run(self, call: calls.Call[T]) -> T:
        """Execute one call (on call.conn, or a pooled connection) and map errors; the call
        is reported to ``actae.observe.observer`` (logging, tracing) unless it is None."""
        watcher = observe.observer
        if watcher is None:
            return self._run(call)
        return watcher.run(self._run, call)  # type: ignore[no-any-return]

    def _run(self, call: calls.Call[T]) -> T:
        used: Any = None  # the pool's connection, for mark_unreached
        try:
            if call.conn is not None:  # see ActaeClient._run
                conn = call.conn
                try:
                    return self._execute(_cursor(conn, call.binary), call)
                except psycopg.errors.FeatureNotSupported as exc:
                    if not _resendable(exc, conn):
                        raise
                return self._execute(_cursor(conn, call.binary), _resend(call))
            for again in (False, True):  # see ActaeClient._run
                conn = used = self.pool.getconn(call.wait)
                try:
                    cur = _reused_cursor(conn, call.binary)
                    if conn.autocommit:
                        return self._execute(cur, call)
                    with conn:  # a caller's pool of transactional connections
                        return self._execute(cur, call)
                except psycopg.errors.FeatureNotSupported as exc:
                    if again or not stale_plan(exc):
                        raise
                    conn.close()
                    call = _resend(call)
                finally:
                    self.pool.putconn(conn)
            raise AssertionError("unreachable")
        except (psycopg.Error, UnicodeEncodeError, ValueError, RecursionError) as exc:
            if call.conn is None:  # a connection of the pool's, not the caller's
                mark_unreached(exc, used, self.pool)
            raise map_error(exc, call.sql, call.params) from exc

    @staticmethod
    def _execute(cur: psycopg.Cursor[Any], call: calls.Call[T]) -> T:
        cur.execute(call.sql, call.params, prepare=call.prepare)  # see ActaeClient._execute
        return call.read(_dict_rows(call.sql, cur, cur.fetchall()))

    def drive(self, plan: plans.Plan[T]) -> T:
        """Run a plan to completion; Emit steps are ignored."""
        value: Any = None
        started: list[Any] = []  # the plan's tools (Start handles)
        try:
            while True:
                try:
                    step = plan.send(value)
                except StopIteration as stop:
                    return stop.value
                value = self._step(step, started)
        except BaseException:
            _runtime.stop_started(started)  # leaving early (KeyboardInterrupt, a step raised)
            raise

    def _step(self, step: plans.Step, started: list[Any]) -> Any:
        if isinstance(step, calls.Call):
            return self.run(step)
        if isinstance(step, plans.Sleep):
            time.sleep(step.seconds)
        if isinstance(step, plans.LocalStep):
            value = _runtime.run(step, self)
            if isinstance(step, tool_plans.Start):
                started.append(value)
            return value
        return None

    def _emitted(self, plan: plans.Plan[Any]) -> Iterator[Any]:
        value: Any = None
        started: list[Any] = []
        try:
            while True:
                try:
                    step = plan.send(value)
                except StopIteration:
                    return
                if isinstance(step, plans.Emit):
                    value = None
                    yield step.value
                else:
                    value = self._step(step, started)
        except BaseException:
            _runtime.stop_started(started)
            raise

    claim_execution = _sync_method(calls.claim_execution)
    heartbeat_execution = _sync_method(calls.heartbeat_execution)
    complete_execution = _sync_method(calls.complete_execution)
    fail_execution = _sync_method(calls.fail_execution)
    get_execution = _sync_method(calls.get_execution)
    list_executions = _sync_method(calls.list_executions)
    list_expired_leases = _sync_method(calls.list_expired_leases)
    create_channel = _sync_method(calls.create_channel)
    get_channel = _sync_method(calls.get_channel)
    record_event = _sync_method(calls.record_event)
    transition_state = _sync_method(calls.transition_state)
    fork_channel = _sync_method(calls.fork_channel)
    list_events = _sync_method(calls.list_events)
    get_state = _sync_method(calls.get_state)
    watch_channel = _sync_method(calls.watch_channel)
    run_tool = _sync_plan(tool_plans.run_tool)
    run_tools = _sync_plan(tool_plans.run_tools)
    compensate = _sync_plan(tool_plans.compensate)
    cancel_execution = _sync_method(calls.cancel_execution)
    close_channel = _sync_method(calls.close_channel)
    set_key_ttl = _sync_method(calls.set_key_ttl)
    purge = _sync_method(calls.purge)
    ledger_status = _sync_method(calls.ledger_status)
    tool_stats = _sync_method(calls.tool_stats)
    channel_lineage = _sync_method(calls.channel_lineage)
    start_run = _sync_method(calls.start_run)
    claim_run = _sync_method(calls.claim_run)
    claim_runs = _sync_method(calls.claim_runs)
    claim_run_with_completed = _sync_method(calls.claim_run_with_completed)
    claim_runs_with_completed = _sync_method(calls.claim_runs_with_completed)
    complete_run_and_claim = _sync_method(calls.complete_run_and_claim)
    heartbeat_run = _sync_method(calls.heartbeat_run)
    complete_run = _sync_method(calls.complete_run)
    fail_run = _sync_method(calls.fail_run)
    sleep_run = _sync_method(calls.sleep_run)
    wait_for_event = _sync_method(calls.wait_for_event)
    cancel_run = _sync_method(calls.cancel_run)
    get_run = _sync_method(calls.get_run)
    list_runs = _sync_method(calls.list_runs)
    queue_topic = _sync_method(calls.queue_topic)
    set_execution_trace = _sync_method(calls.set_execution_trace)
    get_execution_trace = _sync_method(calls.get_execution_trace)
    list_channels = _sync_method(calls.list_channels)
    timeline = _sync_method(calls.timeline)
    fork_tree = _sync_method(calls.fork_tree)
    diff_states = _sync_method(calls.diff_states)
    decision_trail = _sync_method(calls.decision_trail)
    annotate_channel = _sync_method(calls.annotate_channel)
    follow_channel = _sync_method(calls.follow_channel)
    role_can_write = _sync_method(calls.role_can_write)
    # LangGraph checkpointer functions (actae.langgraph wraps them as LangGraph savers).
    langgraph_put = _sync_method(calls.langgraph_put)
    langgraph_put_writes = _sync_method(calls.langgraph_put_writes)
    langgraph_get_tuple = _sync_method(calls.langgraph_get_tuple)
    langgraph_list = _sync_method(calls.langgraph_list)
    langgraph_delete_thread = _sync_method(calls.langgraph_delete_thread)
    langgraph_copy_thread = _sync_method(calls.langgraph_copy_thread)
    langgraph_fork_thread = _sync_method(calls.langgraph_fork_thread)
    langgraph_prune = _sync_method(calls.langgraph_prune)
    langgraph_delete_for_runs = _sync_method(calls.langgraph_delete_for_runs)
    langgraph_channel = _sync_method(calls.langgraph_channel)
    claim_executions = _sync_method(calls.claim_executions)
    complete_executions = _sync_method(calls.complete_executions)
    list_completed = _sync_method(calls.list_completed)

    def iter_events(
        self, channel_id: str, after_cursor: int = 0, *, page_size: int = 1000, conn: Any = None
    ) -> Iterator[Event]:
        """Every event after after_cursor, paging through list_events."""
        return self._emitted(plans.iter_events(channel_id, after_cursor, page_size, conn))
