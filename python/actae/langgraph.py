"""Actae as LangGraph's checkpointer, and LangGraph tools as durable Actae executions.

``ActaeSaver`` (blocking) and ``AsyncActaeSaver`` (asyncio) are LangGraph
``BaseCheckpointSaver`` implementations that store everything through Actae's SQL API
(``actae.langgraph_*`` in sql/50_langgraph.sql): a thread namespace ``(thread_id,
checkpoint_ns)`` is an Actae channel, a checkpoint is a state transition of it, a pending
write is an idempotent event. ``put`` and ``put_writes`` are one round trip each.

``durable_tool(tool, client)`` wraps a LangChain tool so that every call runs through
``run_tool``, keyed by the thread, the tool node's namespace and the tool-call id: a graph
resumed after a crash replays a call that completed instead of repeating it, and a thread
copied or forked with the saver inherits the completed calls. Needs ``actae[langgraph]``.

Values: a channel value or pending write that is None, a bool, an int, a finite float or
a string is stored as plain JSON (``{"value": ...}``); anything else through the saver's
serde (``{"type": ..., "data": <base64>}``), as LangGraph's own Postgres saver stores blobs.
"""

from __future__ import annotations

import asyncio
import base64
import contextvars
import json
import math
import weakref
from collections.abc import AsyncGenerator, AsyncIterator, Generator, Iterator, Mapping, Sequence
from contextlib import asynccontextmanager, contextmanager
from typing import Any, cast

import psycopg
from psycopg.conninfo import make_conninfo
from psycopg_pool import AsyncConnectionPool, ConnectionPool
from pydantic_core import to_jsonable_python

from actae import calls
from actae._extras import needs
from actae._runtime import retrieve
from actae.client import ActaeClient, SyncActaeClient
from actae.context import Tool, ToolContext
from actae.migrate import MigrationError, migrate
from actae.models import ForkResult

with needs("langgraph", "actae.langgraph"):
    from langchain_core.messages import ToolMessage
    from langchain_core.runnables import RunnableConfig
    from langchain_core.tools import BaseTool, StructuredTool
    from langchain_core.tools.base import TOOL_MESSAGE_BLOCK_TYPES
    from langgraph.checkpoint.base import (
        WRITES_IDX_MAP,
        BaseCheckpointSaver,
        ChannelVersions,
        Checkpoint,
        CheckpointMetadata,
        CheckpointTuple,
        get_checkpoint_id,
        get_serializable_checkpoint_metadata,
    )
    from langgraph.checkpoint.serde.base import SerializerProtocol

__all__ = [
    "ActaeSaver",
    "AsyncActaeSaver",
    "DurableTool",
    "current_tool_context",
    "durable_tool",
]

Row = dict[str, Any]


class _Codec:
    """Turns LangGraph checkpoints, values and rows into Actae's JSON and back."""

    serde: SerializerProtocol

    def _encode(self, value: Any) -> dict[str, Any]:
        if _plain(value):
            return {"value": value}
        kind, data = self.serde.dumps_typed(value)
        return {"type": kind, "data": base64.b64encode(data).decode("ascii")}

    def _decode(self, stored: Mapping[str, Any]) -> Any:
        if "value" in stored:
            return stored["value"]
        return self.serde.loads_typed((stored["type"], base64.b64decode(stored["data"])))

    def _state(self, checkpoint: Checkpoint) -> tuple[dict[str, Any], list[bytes]]:
        """The checkpoint as stored JSON, and the serialized channel values it refers to as
        {"type": t, "blob": i} (sent as bytes; the database stores them as base64)."""
        state: dict[str, Any] = {}
        encoded: dict[str, Any] = {}
        for key, value in checkpoint.items():
            if key == "channel_values":
                continue
            if _plain_tree(value):
                state[key] = value
            else:
                encoded[key] = self._encode(value)
        values: dict[str, Any] = {}
        blobs: list[bytes] = []
        for channel, value in checkpoint["channel_values"].items():
            if _plain(value):
                values[channel] = {"value": value}
            else:
                kind, data = self.serde.dumps_typed(value)
                blobs.append(data)
                values[channel] = {"type": kind, "blob": len(blobs)}
        state["channel_values"] = values
        if encoded:
            state["encoded"] = encoded
        return state, blobs

    def _checkpoint(self, state: Mapping[str, Any], blobs: Sequence[bytes] | None) -> Checkpoint:
        checkpoint: dict[str, Any] = {
            k: v for k, v in state.items() if k not in ("channel_values", "encoded")}
        encoded: Mapping[str, Any] = state.get("encoded") or {}
        for key, value in encoded.items():
            checkpoint[key] = self._decode(value)
        values: dict[str, Any] = {}
        channel_values: Mapping[str, Any] = state["channel_values"]
        for channel, value in channel_values.items():
            if "blob" in value:
                assert blobs is not None
                blob = cast("bytes", blobs[value["blob"] - 1])
                values[channel] = self.serde.loads_typed((value["type"], bytes(blob)))
            else:
                values[channel] = self._decode(value)
        checkpoint["channel_values"] = values
        return checkpoint  # type: ignore[return-value]

    def _put_call(
        self, config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata
    ) -> tuple[calls.Call[Row], RunnableConfig]:
        conf = _configurable(config)
        thread_id, ns = str(conf["thread_id"]), conf.get("checkpoint_ns", "")
        state, blobs = self._state(checkpoint)
        call = calls.langgraph_put(
            thread_id, ns, checkpoint["id"], _checkpoint_id(config), state,
            get_serializable_checkpoint_metadata(config, metadata), blobs,
        )
        next_config: RunnableConfig = {"configurable": {
            "thread_id": thread_id, "checkpoint_ns": ns, "checkpoint_id": checkpoint["id"],
        }}
        return call, next_config

    def _writes_call(
        self, config: RunnableConfig, writes: Sequence[tuple[str, Any]], task_id: str,
        task_path: str,
    ) -> calls.Call[int]:
        conf = _configurable(config)
        return calls.langgraph_put_writes(
            str(conf["thread_id"]), conf.get("checkpoint_ns", ""), conf["checkpoint_id"],
            task_id, task_path,
            [{"idx": WRITES_IDX_MAP.get(channel, idx), "channel": channel,
              "value": self._encode(value)} for idx, (channel, value) in enumerate(writes)],
        )

    @staticmethod
    def _get_call(config: RunnableConfig) -> calls.Call[list[Row]]:
        conf = _configurable(config)
        return calls.langgraph_get_tuple(
            str(conf["thread_id"]), conf.get("checkpoint_ns", ""), _checkpoint_id(config)
        )

    @staticmethod
    def _list_call(
        config: RunnableConfig | None, filter: dict[str, Any] | None,
        before: RunnableConfig | None, limit: int | None,
    ) -> calls.Call[list[Row]]:
        conf = (config or {}).get("configurable") or {}
        thread_id = conf.get("thread_id")
        return calls.langgraph_list(
            None if thread_id is None else str(thread_id), conf.get("checkpoint_ns"),
            filter or None, None if before is None else _checkpoint_id(before), limit,
            None if config is None else _checkpoint_id(config),
        )

    def _tuple(self, row: Row) -> CheckpointTuple:
        def config_of(checkpoint_id: str) -> RunnableConfig:
            return {"configurable": {
                "thread_id": row["thread_id"], "checkpoint_ns": row["checkpoint_ns"],
                "checkpoint_id": checkpoint_id,
            }}

        parent = row["parent_checkpoint_id"]
        return CheckpointTuple(
            config=config_of(row["checkpoint_id"]),
            checkpoint=self._checkpoint(row["checkpoint"], row["blobs"]),
            metadata=row["metadata"],
            parent_config=config_of(parent) if parent else None,
            pending_writes=[
                (task_id, channel, self._decode(value))
                for task_id, channel, value in row["pending_writes"]
            ],
        )


def _configurable(config: RunnableConfig) -> dict[str, Any]:
    """``config["configurable"]``: a KeyError when it is missing, as LangGraph's savers."""
    conf: dict[str, Any] = cast("Mapping[str, Any]", config)["configurable"]
    return conf


def _checkpoint_id(config: RunnableConfig) -> str | None:
    """The config's checkpoint id, None when it names none: a missing or empty one ("" means
    no id, the latest checkpoint, as for LangGraph's InMemorySaver and PostgresSaver)."""
    return get_checkpoint_id(config) or None


def _plain(value: Any) -> bool:
    """Stored as plain JSON: None, bool, int, a float that jsonb gives back as a float, str
    without NUL. jsonb keeps a number's digits, not its notation: 1e+16 comes back as
    10000000000000000 (an int), and -0.0 as 0.0, so those floats (every float of 1e16 or
    more, which JSON writes with a positive exponent) go through the serializer instead."""
    kind = cast("type[object]", type(value))
    if value is None or kind is bool or kind is int:
        return True
    if kind is float:
        return abs(value) < 1e16 and (value != 0 or math.copysign(1.0, value) > 0)
    return kind is str and "\x00" not in value


def _plain_tree(value: Any) -> bool:
    """JSON that comes back equal: plain values, lists and str-keyed dicts of them."""
    if type(value) is list:
        return all(_plain_tree(v) for v in cast("list[Any]", value))
    if type(value) is dict:
        return all(type(k) is str and "\x00" not in k and _plain_tree(v)
                   for k, v in cast("dict[Any, Any]", value).items())
    return _plain(value)


class ActaeSaver(_Codec, BaseCheckpointSaver[int]):
    """LangGraph checkpointer on Actae (blocking). ``ActaeSaver(client_or_pool)``, or
    ``with ActaeSaver.from_conn_string(dsn) as saver``. The async methods run the blocking
    ones in a worker thread; use AsyncActaeSaver under asyncio."""

    def __init__(
        self, client: SyncActaeClient | ConnectionPool, *, serde: SerializerProtocol | None = None,
    ) -> None:
        super().__init__(serde=serde)
        self.client = client if isinstance(client, SyncActaeClient) else SyncActaeClient(
            pool=client)

    @classmethod
    @contextmanager
    def from_conn_string(
        cls, conn_string: str, *, serde: SerializerProtocol | None = None, max_size: int = 10,
    ) -> Generator[ActaeSaver, None, None]:
        """A saver on its own connection pool, closed when the block ends."""
        with SyncActaeClient(conn_string, max_size=max_size) as client:
            yield cls(client, serde=serde)

    def setup(self) -> None:
        """Apply Actae's migrations (the saver's schema included); safe to repeat. For a
        login that may not migrate (an agent), a no-op when the saver's functions are
        installed for it, else a MigrationError saying to run ``actae migrate``."""
        _setup(_conninfo(self.client.pool))

    def get_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        rows = self.client.run(self._get_call(config))
        return self._tuple(rows[0]) if rows else None

    def list(
        self, config: RunnableConfig | None, *, filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None, limit: int | None = None,
    ) -> Iterator[CheckpointTuple]:
        for row in self.client.run(self._list_call(config, filter, before, limit)):
            yield self._tuple(row)

    def put(
        self, config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        call, next_config = self._put_call(config, checkpoint, metadata)
        self.client.run(call)
        return next_config

    def put_writes(
        self, config: RunnableConfig, writes: Sequence[tuple[str, Any]], task_id: str,
        task_path: str = "",
    ) -> None:
        self.client.run(self._writes_call(config, writes, task_id, task_path))

    def delete_thread(self, thread_id: str) -> None:
        self.client.run(calls.langgraph_delete_thread(str(thread_id)))

    def delete_for_runs(self, run_ids: Sequence[str]) -> None:
        self.client.run(calls.langgraph_delete_for_runs([str(r) for r in run_ids]))

    def copy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        self.client.run(calls.langgraph_copy_thread(str(source_thread_id),
                                                    str(target_thread_id)))

    def prune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        self.client.run(calls.langgraph_prune(_thread_ids(thread_ids), strategy))

    def fork_thread(
        self, config: RunnableConfig, new_thread_id: str,
        tool_policies: Mapping[str, str] | None = None,
    ) -> ForkResult:
        """Start thread new_thread_id at the checkpoint config names, one of the root
        namespace, with the subgraph namespaces of its step (Actae's fork_channel per
        namespace: constant cost; completed durable tool calls replay in the new thread)."""
        return self.client.run(_fork_call(config, new_thread_id, tool_policies))

    async def aget_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        return await asyncio.to_thread(self.get_tuple, config)

    async def alist(
        self, config: RunnableConfig | None, *, filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None, limit: int | None = None,
    ) -> AsyncIterator[CheckpointTuple]:
        rows = await asyncio.to_thread(
            self.client.run, self._list_call(config, filter, before, limit))
        for row in rows:
            yield self._tuple(row)

    async def aput(
        self, config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        return await asyncio.to_thread(self.put, config, checkpoint, metadata, new_versions)

    async def aput_writes(
        self, config: RunnableConfig, writes: Sequence[tuple[str, Any]], task_id: str,
        task_path: str = "",
    ) -> None:
        await asyncio.to_thread(self.put_writes, config, writes, task_id, task_path)

    async def adelete_thread(self, thread_id: str) -> None:
        await asyncio.to_thread(self.delete_thread, thread_id)

    async def adelete_for_runs(self, run_ids: Sequence[str]) -> None:
        await asyncio.to_thread(self.delete_for_runs, run_ids)

    async def acopy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        await asyncio.to_thread(self.copy_thread, source_thread_id, target_thread_id)

    async def aprune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        await asyncio.to_thread(self.prune, thread_ids, strategy=strategy)


class AsyncActaeSaver(_Codec, BaseCheckpointSaver[int]):
    """LangGraph checkpointer on Actae (asyncio). ``AsyncActaeSaver(client_or_pool)``, or
    ``async with AsyncActaeSaver.from_conn_string(dsn) as saver``. Construct it inside the
    event loop; its blocking methods may then be called from other threads (as LangGraph's
    sync graph API does), not from the loop's own thread."""

    def __init__(
        self, client: ActaeClient | AsyncConnectionPool, *,
        serde: SerializerProtocol | None = None,
    ) -> None:
        super().__init__(serde=serde)
        self.client = client if isinstance(client, ActaeClient) else ActaeClient(pool=client)
        self.loop = asyncio.get_running_loop()

    @classmethod
    @asynccontextmanager
    async def from_conn_string(
        cls, conn_string: str, *, serde: SerializerProtocol | None = None, max_size: int = 10,
    ) -> AsyncGenerator[AsyncActaeSaver, None]:
        """A saver on its own connection pool, closed when the block ends."""
        async with ActaeClient(conn_string, max_size=max_size) as client:
            yield cls(client, serde=serde)

    async def setup(self) -> None:
        """See ActaeSaver.setup."""
        await asyncio.to_thread(_setup, _conninfo(self.client.pool))

    async def aget_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        rows = await self.client.run(self._get_call(config))
        return self._tuple(rows[0]) if rows else None

    async def alist(
        self, config: RunnableConfig | None, *, filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None, limit: int | None = None,
    ) -> AsyncIterator[CheckpointTuple]:
        for row in await self.client.run(self._list_call(config, filter, before, limit)):
            yield self._tuple(row)

    async def aput(
        self, config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        call, next_config = self._put_call(config, checkpoint, metadata)
        await self.client.run(call)
        return next_config

    async def aput_writes(
        self, config: RunnableConfig, writes: Sequence[tuple[str, Any]], task_id: str,
        task_path: str = "",
    ) -> None:
        await self.client.run(self._writes_call(config, writes, task_id, task_path))

    async def adelete_thread(self, thread_id: str) -> None:
        await self.client.run(calls.langgraph_delete_thread(str(thread_id)))

    async def adelete_for_runs(self, run_ids: Sequence[str]) -> None:
        await self.client.run(calls.langgraph_delete_for_runs([str(r) for r in run_ids]))

    async def acopy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        await self.client.run(calls.langgraph_copy_thread(str(source_thread_id),
                                                          str(target_thread_id)))

    async def aprune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        await self.client.run(calls.langgraph_prune(_thread_ids(thread_ids), strategy))

    async def afork_thread(
        self, config: RunnableConfig, new_thread_id: str,
        tool_policies: Mapping[str, str] | None = None,
    ) -> ForkResult:
        """See ActaeSaver.fork_thread."""
        return await self.client.run(_fork_call(config, new_thread_id, tool_policies))

    # Blocking twins for LangGraph's sync API, run on the saver's loop from another thread.
    def _block(self, coro: Any) -> Any:
        try:
            if asyncio.get_running_loop() is self.loop:
                coro.close()
                raise asyncio.InvalidStateError(
                    "blocking calls to AsyncActaeSaver are only allowed from another thread;"
                    " use the async methods (aget_tuple, alist, ...) on the event loop")
        except RuntimeError:
            pass
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    def get_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        return self._block(self.aget_tuple(config))

    def list(
        self, config: RunnableConfig | None, *, filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None, limit: int | None = None,
    ) -> Iterator[CheckpointTuple]:
        rows = self._block(self.client.run(self._list_call(config, filter, before, limit)))
        for row in rows:
            yield self._tuple(row)

    def put(
        self, config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        return self._block(self.aput(config, checkpoint, metadata, new_versions))

    def put_writes(
        self, config: RunnableConfig, writes: Sequence[tuple[str, Any]], task_id: str,
        task_path: str = "",
    ) -> None:
        self._block(self.aput_writes(config, writes, task_id, task_path))

    def delete_thread(self, thread_id: str) -> None:
        self._block(self.adelete_thread(thread_id))

    def delete_for_runs(self, run_ids: Sequence[str]) -> None:
        self._block(self.adelete_for_runs(run_ids))

    def copy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        self._block(self.acopy_thread(source_thread_id, target_thread_id))

    def prune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        self._block(self.aprune(thread_ids, strategy=strategy))


def _conninfo(pool: Any) -> str:
    """The database the pool's connections reach: its conninfo with the connection
    parameters among its kwargs (dbname, user, host, ...) applied, as psycopg applies them."""
    conninfo = pool.conninfo
    if not isinstance(conninfo, str):  # psycopg_pool also allows a callable
        raise TypeError("the client's pool has no conninfo string to migrate with")
    libpq = {o.keyword.decode() for o in psycopg.pq.Conninfo.get_defaults()}
    kwargs: dict[str, Any] = dict(pool.kwargs or {})
    given = {k: v for k, v in kwargs.items() if k in libpq and v is not None}
    return make_conninfo(conninfo, **given)


# Every function the saver calls, with the signature it calls: setup() from a login that may
# not migrate checks that they are there for it.
_SAVER_FUNCTIONS = (
    "actae.langgraph_put(text, text, text, text, jsonb, jsonb, bytea[])",
    "actae.langgraph_put_writes(text, text, text, text, text, jsonb)",
    "actae.langgraph_get_tuple(text, text, text)",
    "actae.langgraph_list(text, text, jsonb, text, integer, text)",
    "actae.langgraph_delete_thread(text)",
    "actae.langgraph_copy_thread(text, text)",
    "actae.langgraph_fork_thread(text, text, text, text, jsonb)",
    "actae.langgraph_prune(text[], text)",
    "actae.langgraph_delete_for_runs(text[])",
    "actae.langgraph_channel(text, text)",
)


def _saver_installed(conninfo: str) -> bool:
    """True when every function the saver calls exists and the login may execute it, and
    the login is no migrator (it may not create objects in schema actae: a migrator's 42501
    is a failed migration, not something to skip)."""
    try:
        with psycopg.connect(conninfo, autocommit=True) as conn:
            row = conn.execute(
                "select coalesce(bool_and(f.oid is not null"
                " and has_function_privilege(f.oid, 'execute')), false)"
                " and coalesce((select not has_schema_privilege(n.oid, 'create')"
                " from pg_catalog.pg_namespace as n where n.nspname = 'actae'), false)"
                " from unnest(%s::text[]) as s (signature),"
                " lateral (select to_regprocedure(s.signature)::oid as oid) as f",
                (list(_SAVER_FUNCTIONS),)).fetchone()
    except psycopg.errors.InsufficientPrivilege:  # no usage of schema actae
        return False
    return row is not None and bool(row[0])


def _setup(conninfo: str) -> None:
    """migrate(conninfo). A login that may not migrate (an agent, refused with 42501 before
    anything is applied) gets a no-op when every function the saver calls exists and it may
    execute them (an operator migrated the database), else a MigrationError naming the fix.
    Such a login cannot read which migrations are applied: other pending ones stay pending."""
    try:
        migrate(conninfo)
    except psycopg.errors.InsufficientPrivilege as exc:
        if _saver_installed(conninfo):
            return
        raise MigrationError(
            f"saver.setup() cannot migrate as this login ({exc.diag.message_primary}): run"
            " `actae migrate` (or setup()) as a superuser; a login that"
            " may not migrate can use the saver (and its setup() does nothing) once the"
            " saver's functions are installed and it may execute them (actae_agent)"
        ) from exc


def _thread_ids(thread_ids: Sequence[str]) -> list[str]:
    if isinstance(thread_ids, str):
        raise TypeError("thread_ids must be a sequence of thread ids, not a str")
    return [str(t) for t in thread_ids]


def _fork_call(
    config: RunnableConfig, new_thread_id: str, tool_policies: Mapping[str, str] | None
) -> calls.Call[ForkResult]:
    conf = _configurable(config)
    checkpoint_id = _checkpoint_id(config)
    if checkpoint_id is None:
        raise ValueError("fork_thread needs a config with a checkpoint_id")
    return calls.langgraph_fork_thread(
        str(conf["thread_id"]), conf.get("checkpoint_ns", ""), checkpoint_id,
        str(new_thread_id), tool_policies,
    )


# --- durable tools ------------------------------------------------------------------------

_CURRENT: contextvars.ContextVar[ToolContext | None] = contextvars.ContextVar(
    "actae_langgraph_tool", default=None)


def current_tool_context() -> ToolContext:
    """Inside a durable tool: its Actae ToolContext (``idempotency_key`` for the provider,
    ``fence``, ``attempt``, ``ambiguous``)."""
    ctx = _CURRENT.get()
    if ctx is None:
        raise RuntimeError("current_tool_context() is only available inside a durable tool")
    return ctx


def _tool_call(tool_input: Any) -> tuple[str, dict[str, Any]]:
    if isinstance(tool_input, dict):
        call = cast("dict[str, Any]", tool_input)
        if call.get("type") == "tool_call":
            return str(call["id"]), dict(call["args"])
    raise ValueError("a durable tool must be called with a tool call (it is keyed by its id),"
                     " e.g. from LangGraph's ToolNode")


def _namespace(config: RunnableConfig | None) -> tuple[str, str]:
    conf = (config or {}).get("configurable") or {}
    if "thread_id" not in conf:
        raise ValueError("a durable tool needs a thread_id in its config")
    # The task's whole namespace, task ids included: LangGraph derives a task's id from the
    # checkpoint it runs from (its id, the step, the node), so it is the same when that task
    # runs again (a resume after a crash or an interrupt, a fork or copy of the thread) and
    # new for every other step, turn or branch (a run from an earlier checkpoint executes
    # its later steps as new ones). A tool call id alone is not unique: models number calls
    # per response (call_0), and an edited tool call (update_state) keeps its id.
    return str(conf["thread_id"]), str(conf.get("checkpoint_ns", ""))


#: a tool with response_format="content_and_artifact" is stored as {mark: its ToolMessage's
#: content, artifact (as JSON) and status} and its ToolMessage rebuilt, live and on replay
_TOOL_MESSAGE = "__actae_tool_message__"


def _stored(output: Any) -> Any:
    """What a call's output is recorded as: a ToolMessage (a tool with artifacts, invoked
    with its tool call) as its parts, anything else as it is."""
    if isinstance(output, ToolMessage):
        return {_TOOL_MESSAGE: {"content": output.content, "status": output.status,
                                "artifact": to_jsonable_python(output.artifact, fallback=str)}}
    return output


def _invocation(tool: BaseTool, args: dict[str, Any], call_id: str) -> Any:
    """The inner tool's input: its tool call for a tool with artifacts (LangChain returns
    only the content to plain arguments), the arguments otherwise."""
    if tool.response_format == "content_and_artifact":
        return {"type": "tool_call", "name": tool.name, "args": args, "id": call_id}
    return args


def _async_only(tool: BaseTool) -> bool:
    """A StructuredTool made from a coroutine alone: its sync invoke raises."""
    return (isinstance(tool, StructuredTool) and tool.func is None
            and tool.coroutine is not None)


def _message(result: Any, call_id: str, name: str) -> ToolMessage:
    if isinstance(result, dict) and len(cast(dict[str, Any], result)) == 1 \
            and _TOOL_MESSAGE in result:
        parts = cast(dict[str, Any], result[_TOOL_MESSAGE])
        return ToolMessage(content=parts["content"], artifact=parts["artifact"],
                           status=parts["status"], tool_call_id=call_id, name=name)
    return ToolMessage(content=_content(result), tool_call_id=call_id, name=name)


def _content(result: Any) -> Any:
    """A tool's output as LangChain makes it a ToolMessage's content: text and a list of
    content blocks (text, an image...) as they are, anything else as its JSON text
    (non-ASCII characters as they are)."""
    if isinstance(result, str):
        return result
    blocks = cast(list[Any], result) if isinstance(result, list) else None
    if blocks is not None and all(
            isinstance(block, str) or (isinstance(block, dict) and cast(
                dict[str, Any], block).get("type") in TOOL_MESSAGE_BLOCK_TYPES)
            for block in blocks):
        return blocks
    return json.dumps(result, ensure_ascii=False)


class DurableTool(BaseTool):
    """A LangChain tool whose calls are Actae executions (see durable_tool)."""

    inner: BaseTool
    client: Any
    loop: Any = None  # an AsyncActaeSaver's event loop, for the sync graph API
    lease_seconds: int = 60
    dedup_fields: list[str] | None = None

    def _key(self, config: RunnableConfig | None, call_id: str) -> tuple[str, str]:
        thread_id, ns = _namespace(config)
        return thread_id, f"langgraph:{ns}:{call_id}"

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        if not isinstance(self.client, SyncActaeClient):
            return self._invoke_on_loop(input, config, **kwargs)
        call_id, args = _tool_call(input)
        thread_id, key = self._key(config, call_id)
        client: SyncActaeClient = self.client

        channel_id = client.run(calls.langgraph_channel(thread_id))
        # A tool with only a coroutine (`@tool async def`, MCP adapters' tools) cannot be
        # invoked synchronously: the blocking client runs it on its tool thread's own loop.
        result = client.run_tool(
            self._effect(args, call_id, config, _async_only(self.inner)),
            channel_id=channel_id, key_name=key, tool_name=self.name, params=args,
            dedup_fields=self.dedup_fields, lease_seconds=self.lease_seconds)
        return _message(result, call_id, self.name)

    async def ainvoke(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Any:
        if isinstance(self.client, SyncActaeClient):
            # A blocking client under the async graph API: the blocking call in a worker
            # thread, as ActaeSaver's own async methods run.
            return await asyncio.to_thread(self.invoke, input, config, **kwargs)
        call_id, args = _tool_call(input)
        thread_id, key = self._key(config, call_id)
        client: ActaeClient = self.client
        effect = self._effect(args, call_id, config, True)

        channel_id = await _thread_channel(client, thread_id)
        result = await client.run_tool(
            effect, channel_id=channel_id, key_name=key, tool_name=self.name, params=args,
            dedup_fields=self.dedup_fields, lease_seconds=self.lease_seconds)
        return _message(result, call_id, self.name)

    def _effect(self, args: dict[str, Any], call_id: str, config: RunnableConfig | None,
                asynchronous: bool) -> Tool:
        """The call's body under run_tool: the inner tool (ainvoke, or invoke) with
        current_tool_context() set, its output in the form it is recorded in (_stored)."""
        given = _invocation(self.inner, args, call_id)
        if asynchronous:
            async def effect_async(ctx: ToolContext) -> Any:
                token = _CURRENT.set(ctx)
                try:
                    return _stored(await self.inner.ainvoke(given, config))
                finally:
                    _CURRENT.reset(token)

            return effect_async

        def effect(ctx: ToolContext) -> Any:
            token = _CURRENT.set(ctx)
            try:
                return _stored(self.inner.invoke(given, config))
            finally:
                _CURRENT.reset(token)

        return effect

    def _invoke_on_loop(self, input: Any, config: RunnableConfig | None, **kwargs: Any) -> Any:
        """invoke with an asyncio client: ainvoke on the AsyncActaeSaver's loop from this
        (another) thread, as AsyncActaeSaver's own blocking methods run."""
        try:
            running: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if self.loop is None or running is self.loop:
            raise TypeError(
                f"durable tool {self.name!r} was called synchronously (graph.invoke) but"
                " durable_tool was given an asyncio ActaeClient: give it an ActaeSaver or a"
                " SyncActaeClient, or an AsyncActaeSaver (then graph.invoke must run in"
                " another thread than the saver's event loop), or run the graph with"
                " graph.ainvoke")
        return asyncio.run_coroutine_threadsafe(
            self.ainvoke(input, config, **kwargs), self.loop).result()

    def _run(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("DurableTool runs through invoke / ainvoke")


# The thread lookups in flight per client: a ToolNode's parallel calls of one thread share
# one, so their claims reach the client in the same loop round and go as one batch.
_LOOKUPS: weakref.WeakKeyDictionary[ActaeClient, dict[str, asyncio.Task[str]]] = (
    weakref.WeakKeyDictionary())


async def _thread_channel(client: ActaeClient, thread_id: str) -> str:
    """The channel of thread_id (actae.langgraph_channel), one round trip for the
    concurrent callers of a thread."""
    lookups = _LOOKUPS.setdefault(client, {})
    task = lookups.get(thread_id)
    if task is None:
        task = lookups[thread_id] = asyncio.ensure_future(
            client.run(calls.langgraph_channel(thread_id)))
        task.add_done_callback(lambda _: lookups.pop(thread_id, None))
        task.add_done_callback(retrieve)  # its callers may all have been cancelled
    return await asyncio.shield(task)  # one caller cancelled does not cancel the others'


def durable_tool(
    tool: BaseTool,
    client: SyncActaeClient | ActaeClient | ActaeSaver | AsyncActaeSaver,
    *,
    lease_seconds: int = 60,
    dedup_fields: Sequence[str] | None = None,
) -> DurableTool:
    """Wrap a LangChain tool so each call runs through Actae's run_tool.

    The execution lives in the thread's root channel under key
    ``langgraph:<checkpoint_ns>:<tool_call_id>`` (the task's namespace, task id included);
    its params are the call's arguments (they must be JSON, so no injected state). A call
    that completed replays its stored result (the tool is not called again) after a crash,
    a retry, a resume, or in a thread copied or forked from this one; a call cut off mid-way
    is re-run with the same ``current_tool_context().idempotency_key``, which the tool
    should hand to its provider. The tool's result must be JSON (a str becomes the
    ToolMessage content as is); a tool with response_format="content_and_artifact" has its
    content, artifact (as JSON) and status recorded, and its ToolMessage rebuilt from them.
    return_direct, tags and metadata are the tool's. Any client works under both ``invoke``
    and ``ainvoke``: a blocking client under ``ainvoke`` runs in a worker thread, an
    AsyncActaeSaver under ``invoke`` (from another thread than its loop, as for the saver
    itself) runs on the saver's loop; a bare asyncio ActaeClient under ``invoke`` is a
    TypeError (it has no loop to run on).
    """
    # Checked at run time too: an untyped caller may pass anything.
    inner_client = cast("object", (
        client.client if isinstance(client, ActaeSaver | AsyncActaeSaver) else client))
    if not isinstance(inner_client, SyncActaeClient | ActaeClient):
        raise TypeError("durable_tool needs an ActaeSaver, AsyncActaeSaver, SyncActaeClient or"
                        f" ActaeClient, not {type(client).__name__}")
    return DurableTool(
        name=tool.name, description=tool.description, args_schema=tool.args_schema,
        return_direct=tool.return_direct, tags=tool.tags, metadata=tool.metadata, inner=tool,
        client=inner_client, lease_seconds=calls.check_lease_seconds(lease_seconds),
        loop=client.loop if isinstance(client, AsyncActaeSaver) else None,
        dedup_fields=calls.field_names(dedup_fields),
    )
