"""The Python contenders. Each factory runs inside a load.py worker process and returns
(op, close); op performs one durable tool call (or one state transition, or one replay).

args always carries "dsn" (the benchmark database) and "tag" (unique per run, so no run
sees another's keys or channels).
"""

from __future__ import annotations

import hashlib
import json
import random
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

Factory = tuple[Callable[[], Any], Callable[[], None]]

PARAMS = {"q": "actae"}
RESULT = {"ok": True}
REPLAY_KEYS = 50


def _keys(index: int) -> Callable[[], str]:
    prefix = f"k{index}-{uuid.uuid4().hex[:8]}-"
    counter = iter(range(1 << 62))
    return lambda: prefix + str(next(counter))


# --- the hand-written way: what a careful user writes without Actae ----------------------

HAND_SELECT = """
select execution_id, tool_name, fingerprint, status, claim_token, retryable,
       lease_expires_at > clock_timestamp() as leased, result
from bench.hand where channel_id = %s and key_name = %s for update
"""
HAND_INSERT = """
insert into bench.hand (
    channel_id, key_name, execution_id, tool_name, params, fingerprint, status, claim_token,
    fence, attempt, lease_seconds, lease_expires_at, created_at, claimed_at
) values (
    %s, %s, gen_random_uuid(), %s, %s, %s, 'claimed', gen_random_uuid(), 1, 1, 60,
    clock_timestamp() + interval '60 seconds', clock_timestamp(), clock_timestamp()
) on conflict do nothing
returning execution_id, claim_token
"""
HAND_RECLAIM = """
update bench.hand set status = 'claimed', claim_token = gen_random_uuid(), fence = fence + 1,
    attempt = attempt + 1, lease_expires_at = clock_timestamp() + interval '60 seconds',
    ambiguous = status <> 'failed', result = null, error = null, claimed_at = clock_timestamp()
where channel_id = %s and key_name = %s
returning execution_id, claim_token
"""
HAND_LOCK_BY_ID = """
select claim_token, status, result from bench.hand where execution_id = %s for update
"""
HAND_COMPLETE = """
update bench.hand set status = 'completed', result = %s, finished_at = clock_timestamp()
where execution_id = %s
"""


class HandLedger:
    """Claim and complete with the same semantics as Actae (fingerprint, lease, fence, token,
    replay), written as multi-statement transactions with SELECT ... FOR UPDATE."""

    def __init__(self, dsn: str) -> None:
        self.conn = psycopg.connect(dsn, autocommit=True)

    def claim(self, channel: str, key: str, tool: str, params: dict[str, Any]) -> tuple[
            str, Any, Any, Any]:
        canonical = json.dumps(params, sort_keys=True, separators=(", ", ": "))
        fingerprint = hashlib.sha256(canonical.encode()).hexdigest()
        with self.conn.transaction():
            row = self.conn.execute(HAND_SELECT, (channel, key)).fetchone()
            if row is None:
                created = self.conn.execute(
                    HAND_INSERT, (channel, key, tool, Jsonb(params), fingerprint)
                ).fetchone()
                if created is not None:
                    return ("claimed", created[0], created[1], None)
                row = self.conn.execute(HAND_SELECT, (channel, key)).fetchone()
                assert row is not None
            execution_id, stored_tool, stored_fp, status, _token, retryable, leased, result = row
            if stored_tool != tool or stored_fp != fingerprint:
                raise ValueError("idempotency conflict")
            if status == "completed":
                return ("replayed", execution_id, None, result)
            if status == "failed" and not retryable:
                return ("failed", execution_id, None, None)
            if status != "failed" and leased:
                return ("in_progress", execution_id, None, None)
            again = self.conn.execute(HAND_RECLAIM, (channel, key)).fetchone()
            assert again is not None
            return ("reclaimed", again[0], again[1], None)

    def complete(self, execution_id: Any, token: Any, result: Any) -> None:
        with self.conn.transaction():
            row = self.conn.execute(HAND_LOCK_BY_ID, (execution_id,)).fetchone()
            if row is None:
                raise LookupError("no such execution")
            if row[0] != token:
                raise PermissionError("lease lost")
            if row[1] == "completed":
                if row[2] != result:
                    raise ValueError("idempotency conflict")
                return
            if row[1] not in ("claimed", "in_progress"):
                raise ValueError(f"already {row[1]}")
            self.conn.execute(HAND_COMPLETE, (Jsonb(result), execution_id))


def claim_hand(args: dict[str, Any], index: int) -> Factory:
    ledger = HandLedger(args["dsn"])
    channel, key = f"c{index}-{args['tag']}", _keys(index)

    def op() -> None:
        outcome, execution_id, token, _ = ledger.claim(channel, key(), "search", PARAMS)
        assert outcome == "claimed", outcome
        ledger.complete(execution_id, token, RESULT)

    return op, ledger.conn.close


def replay_hand(args: dict[str, Any], index: int) -> Factory:
    ledger = HandLedger(args["dsn"])
    channel = f"r{index}-{args['tag']}"
    for k in range(REPLAY_KEYS):
        _, execution_id, token, _ = ledger.claim(channel, f"k{k}", "search", PARAMS)
        ledger.complete(execution_id, token, RESULT)

    def op() -> None:
        outcome, *_ = ledger.claim(channel, f"k{random.randrange(REPLAY_KEYS)}", "search", PARAMS)
        assert outcome == "replayed", outcome

    return op, ledger.conn.close


# --- Actae through psycopg (raw SQL) and through the driver ----------------------------

RAW_CLAIM = "select outcome, execution_id, claim_token from actae.claim_execution(%s, %s, %s, %s)"
RAW_COMPLETE = "select status from actae.complete_execution(%s, %s, %s)"


def claim_actae_raw(args: dict[str, Any], index: int) -> Factory:
    conn = psycopg.connect(args["dsn"], autocommit=True)
    channel, key = f"c{index}-{args['tag']}", _keys(index)
    params, result = Jsonb(PARAMS), Jsonb(RESULT)

    def op() -> None:
        row = conn.execute(RAW_CLAIM, (channel, key(), "search", params), prepare=True).fetchone()
        assert row is not None and row[0] == "claimed", row
        conn.execute(RAW_COMPLETE, (row[1], row[2], result), prepare=True).fetchone()

    return op, conn.close


def replay_actae_raw(args: dict[str, Any], index: int) -> Factory:
    conn = psycopg.connect(args["dsn"], autocommit=True)
    channel, params = f"r{index}-{args['tag']}", Jsonb(PARAMS)
    for k in range(REPLAY_KEYS):
        row = conn.execute(RAW_CLAIM, (channel, f"k{k}", "search", params)).fetchone()
        assert row is not None
        conn.execute(RAW_COMPLETE, (row[1], row[2], Jsonb(RESULT)))

    def op() -> None:
        row = conn.execute(RAW_CLAIM, (channel, f"k{random.randrange(REPLAY_KEYS)}", "search",
                                       params), prepare=True).fetchone()
        assert row is not None and row[0] == "replayed", row

    return op, conn.close


def _client(dsn: str) -> Any:
    from actae import SyncActaeClient

    client = SyncActaeClient(dsn, max_size=1)
    client.open()
    return client


def claim_actae_driver(args: dict[str, Any], index: int) -> Factory:
    client = _client(args["dsn"])
    channel, key = f"c{index}-{args['tag']}", _keys(index)

    def op() -> None:
        claim = client.claim_execution(channel, key(), "search", PARAMS)
        assert claim.status == "claimed", claim.status
        client.complete_execution(claim.execution.id, claim.claim_token, RESULT)

    return op, client.close


def replay_actae_driver(args: dict[str, Any], index: int) -> Factory:
    client = _client(args["dsn"])
    channel = f"r{index}-{args['tag']}"
    for k in range(REPLAY_KEYS):
        claim = client.claim_execution(channel, f"k{k}", "search", PARAMS)
        client.complete_execution(claim.execution.id, claim.claim_token, RESULT)

    def op() -> None:
        claim = client.claim_execution(channel, f"k{random.randrange(REPLAY_KEYS)}", "search",
                                       PARAMS)
        assert claim.status == "replayed", claim.status

    return op, client.close


# --- DBOS: one @DBOS.step() per tool call inside a workflow --------------------------------


def _dbos(args: dict[str, Any], index: int) -> Any:
    import dbos_app

    return dbos_app.launch(args["dbos_url"], f"bench-{args['tag']}-{index}")


def claim_dbos_steps(args: dict[str, Any], index: int) -> Factory:
    """A workflow of STEPS tool calls; each step's latency is timed inside the workflow, the
    throughput counts steps per second including the workflow's own start and end."""
    app = _dbos(args, index)
    prefix = f"w{index}-{args['tag']}-{uuid.uuid4().hex[:8]}-"
    counter = iter(range(1 << 62))

    def op() -> list[tuple[float, float]]:
        with app.SetWorkflowID(prefix + str(next(counter))):
            return [(at, s) for at, s in app.steps_workflow(app.STEPS)]

    return op, app.shutdown


def claim_dbos_workflow(args: dict[str, Any], index: int) -> Factory:
    """One workflow per tool call (a workflow with a single step)."""
    app = _dbos(args, index)
    prefix = f"o{index}-{args['tag']}-{uuid.uuid4().hex[:8]}-"
    counter = iter(range(1 << 62))

    def op() -> None:
        with app.SetWorkflowID(prefix + str(next(counter))):
            app.one_step_workflow()

    return op, app.shutdown


def replay_dbos(args: dict[str, Any], index: int) -> Factory:
    """Re-running a completed workflow ID returns its recorded result without running it."""
    app = _dbos(args, index)
    prefix = f"rw{index}-{args['tag']}-"
    for k in range(REPLAY_KEYS):
        with app.SetWorkflowID(prefix + str(k)):
            app.one_step_workflow()

    def op() -> None:
        with app.SetWorkflowID(prefix + str(random.randrange(REPLAY_KEYS))):
            app.one_step_workflow()

    return op, app.shutdown


# --- state transitions: Actae vs LangGraph's PostgresSaver --------------------------------


def state_of(size: int, step: int) -> dict[str, Any]:
    """A JSON state of about `size` bytes (agent messages), different at every step."""
    rng = random.Random(size)
    chunk = 100
    messages = ["".join(rng.choices("abcdefghijklmnopqrstuvwxyz ", k=chunk))
                for _ in range(max(1, size // (chunk + 4)))]
    return {"step": step, "messages": messages}


def transition_actae(args: dict[str, Any], index: int) -> Factory:
    client = _client(args["dsn"])
    channel = f"t{index}-{args['tag']}"
    base = state_of(args["size"], 0)
    version = [0]

    def op() -> None:
        state = {**base, "step": version[0] + 1}
        done = client.transition_state(channel, "step", {"step": version[0] + 1}, state,
                                       expected_version=version[0])
        version[0] = done.version

    return op, client.close


def transition_floor(args: dict[str, Any], index: int) -> Factory:
    """The floor of a transition (scripts/floors.sql: head, event, snapshot, nothing else)
    from bare psycopg, prepared, with the states transition_actae writes, encoded as the
    driver encodes them (pydantic_core.to_json: json.dumps costs the client more at 64 KB)."""
    from pydantic_core import to_json

    conn = psycopg.connect(args["dsn"], autocommit=True)
    channel = f"tf{index}-{args['tag']}"
    conn.execute("insert into actae.channels (channel_id) values (%s)", (channel,))
    base = state_of(args["size"], 0)
    step = [0]

    def op() -> None:
        step[0] += 1
        row = conn.execute("select version from bench.transition_floor(%s, %s, %s, %s)",
                           (channel, "step", Jsonb({"step": step[0]}, dumps=to_json),
                            Jsonb({**base, "step": step[0]}, dumps=to_json)),
                           prepare=True).fetchone()
        assert row is not None and row[0] == step[0], row

    return op, conn.close


def transition_langgraph(args: dict[str, Any], index: int) -> Factory:
    from langgraph.checkpoint.base import LATEST_VERSION
    from langgraph.checkpoint.base.id import uuid6
    from langgraph.checkpoint.postgres import PostgresSaver
    from psycopg.rows import dict_row

    conn = psycopg.connect(args["dsn"], autocommit=True, prepare_threshold=0,
                           row_factory=dict_row)
    saver = PostgresSaver(conn)
    base = state_of(args["size"], 0)
    config: list[Any] = [{"configurable": {"thread_id": f"t{index}-{args['tag']}",
                                           "checkpoint_ns": ""}}]
    version: list[Any] = [None]
    step = [0]

    def op() -> None:
        step[0] += 1
        version[0] = saver.get_next_version(version[0], None)
        checkpoint = {
            "v": LATEST_VERSION, "id": str(uuid6(clock_seq=step[0])),
            "ts": datetime.now(UTC).isoformat(),
            "channel_values": {"state": {**base, "step": step[0]}},
            "channel_versions": {"state": version[0]}, "versions_seen": {},
            "pending_sends": [], "updated_channels": ["state"],
        }
        config[0] = saver.put(config[0], checkpoint,  # type: ignore[arg-type]
                              {"source": "loop", "step": step[0]}, {"state": version[0]})

    return op, conn.close


# --- events listing -------------------------------------------------------------------------


def list_events_random(args: dict[str, Any], index: int) -> Factory:
    """One page of 100 events at a random position of a channel of args["events"] events."""
    conn = psycopg.connect(args["dsn"], autocommit=True)
    channel, total = args["channel"], args["events"]
    sql = "select cursor from actae.list_events(%s, %s, 100)"

    def op() -> None:
        after = random.randrange(max(1, total - 100))
        rows = conn.execute(sql, (channel, after), prepare=True).fetchall()
        assert len(rows) == min(100, total - after), (after, len(rows))

    return op, conn.close
