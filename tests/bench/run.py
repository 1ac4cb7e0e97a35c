"""`make bench`: measure Actae against the physical limit and its peers, write the report.

Usage: tests/bench/.env/bin/python tests/bench/run.py [--quick] [--only GROUP ...] [--out DIR]

--quick is a smoke run of every group in under 3 minutes (shorter measurements, c = 1 only,
smaller sizes) that writes to a scratch folder (tests/bench/.quick/, or --out) and never
touches the committed report. A full run writes docs/bench/results.json, docs/BENCHMARKS.md
and its plots; with --only it re-measures those groups and keeps the others' earlier
numbers, and the report says which groups were measured when.

Groups (each on its own throwaway server, ports 55445-55448 unless said):
  claim       claim+complete cycle and replay: pgbench limit, Actae, hand-written, DBOS
  driver      SyncActaeClient / ActaeClient / run_tool vs bare psycopg (driver.py, port 55438)
  transitions state transitions: Actae vs LangGraph PostgresSaver, 1 KB and 64 KB states
  forks       fork time vs prefix length: Actae, DBOS fork_workflow, LangGraph fork
  scale       claim latency with 0 / 1 M / 5 M executions, WAL per step after a checkpoint
              (steps of agent runs; random keys with time-ordered vs random execution ids);
              events listing at 100 000 events
  runs        runs/s of a 5-step agent: Actae's Worker vs Absurd, DBOS; claim_run latency
  langgraph   AsyncActaeSaver vs AsyncPostgresSaver (langgraph_saver.py, port 55449; writes
              docs/bench/langgraph_saver.md)
  peers       one step, new and replayed, Actae vs Absurd and pgtask, raw SQL and SDK paths,
              c = 1 and 8 (peer_steps.py); server CPU of a replay vs a bare primary-key read
              of the same row (backend_cpu.py); port 55454
  batch       N = 8 parallel tool calls: claim_executions + complete_executions vs N single
              calls, commits per batch counted in the WAL (batch.py, port 55452)
  resume      resume of a 100-step run: prefetch (list_completed) vs step-by-step replay
              (resume.py, port 55453)
Results go to docs/bench/results.json; report.py turns them into docs/BENCHMARKS.md + PNGs.
Progress: every line carries the elapsed time of the whole run; each group starts with
"phase k/N".
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import langgraph_saver
import load
import pgbench
import psycopg
import report
from psycopg.types.json import Jsonb
from server import REPO, SETTINGS, Server, machine

CONCURRENCY = (1, 8, 32)
PORTS = {"claim": 55445, "transitions": 55446, "forks": 55447, "scale": 55448, "peers": 55454}
RESULTS = REPO / "docs" / "bench" / "results.json"
QUICK_OUT = REPO / "tests" / "bench" / ".quick"
STARTED = time.monotonic()


class Plan:
    def __init__(self, quick: bool) -> None:
        self.quick = quick
        self.warmup = 0.2 if quick else 2.0
        self.duration = 0.5 if quick else 4.0
        # Interleaved rounds: the pgbench rows of claim (the headline ratio) and the peers group.
        self.rounds = 1 if quick else 3
        self.concurrency = (1,) if quick else CONCURRENCY
        self.fork_sizes = (100, 1000) if quick else (100, 10000, 100000)
        self.scale_rows = (0, 20000) if quick else (0, 1000000, 5000000)
        self.list_events = 2000 if quick else 100000
        self.forks = 5 if quick else 40
        self.wal_steps = 200 if quick else 1000
        self.driver_ops, self.driver_rounds = (40, 3) if quick else (1200, 9)
        self.peer_concurrency = (1,) if quick else (1, 8)
        # A full peers group: 2 cases x 2 paths x 3 systems x (3 rounds at c=1 + 1 at c=8),
        # about 8 min: a c=8 run spends ~15 s starting and preparing its 8 processes.
        self.peer_warmup, self.peer_duration = (0.1, 0.3) if quick else (1.0, 2.0)
        self.peer_rounds = {"1": 1, "8": 1} if quick else {"1": 3, "8": 1}
        self.cpu_seconds, self.cpu_rounds = (0.3, 1) if quick else (2.0, 5)
        self.batch_seconds, self.batch_rounds = (0.5, 1) if quick else (3.0, 3)
        self.resume_repeats = 1 if quick else 7


def log(message: str) -> None:
    elapsed = int(time.monotonic() - STARTED)
    print(f"[{time.strftime('%H:%M:%S')} +{elapsed // 60}:{elapsed % 60:02d}] {message}",
          flush=True)


def tag() -> str:
    return uuid.uuid4().hex[:8]


def median_of(rounds: list[load.Result]) -> dict[str, Any]:
    """The round with the median throughput (its own p50/p99), plus every round's figure."""
    ordered = sorted(rounds, key=lambda r: r.throughput)
    chosen = ordered[(len(ordered) - 1) // 2] if len(ordered) % 2 else ordered[len(ordered) // 2]
    out = chosen.summary()
    out["rounds"] = [round(r.throughput, 1) for r in rounds]
    return out


def _dbos_migrate(server: Server) -> str:
    url = server.url("dbos_sys")
    subprocess.run(
        [sys.executable, "-c", f"import dbos_app; dbos_app.migrate({url!r})"],
        check=True, cwd=Path(__file__).parent,
    )
    return url


# --- 1. claim + complete, replay ----------------------------------------------------------

FLOORS = Path(__file__).parent / "scripts" / "floors.sql"
FLOOR_PGBENCH = "pgbench: thinnest functions (floor)"
FLOOR_TRANSITION = "thinnest function via psycopg (floor)"
CLAIM_CONTENDERS: list[tuple[str, str, str]] = [
    # (name, kind, script or factory)
    ("pgbench: bare SQL (limit)", "pgbench", "limit_claim_complete.sql"),
    ("pgbench: Actae functions", "pgbench", "actae_claim_complete.sql"),
    (FLOOR_PGBENCH, "pgbench", "floor_claim_complete.sql"),
    ("Python: Actae via psycopg", "python", "contenders:claim_actae_raw"),
    ("Python: Actae driver", "python", "contenders:claim_actae_driver"),
    ("Python: hand-written", "python", "contenders:claim_hand"),
    ("Python: DBOS step in workflow", "python", "contenders:claim_dbos_steps"),
    ("Python: DBOS workflow per call", "python", "contenders:claim_dbos_workflow"),
]
REPLAY_CONTENDERS: list[tuple[str, str, str]] = [
    ("pgbench: bare SQL (limit)", "pgbench", "limit_replay.sql"),
    ("pgbench: Actae functions", "pgbench", "actae_replay.sql"),
    ("Python: Actae via psycopg", "python", "contenders:replay_actae_raw"),
    ("Python: Actae driver", "python", "contenders:replay_actae_driver"),
    ("Python: hand-written", "python", "contenders:replay_hand"),
    ("Python: DBOS completed workflow", "python", "contenders:replay_dbos"),
]

REPLAY_SETUP = """
insert into bench.ledger (
    channel_id, key_name, execution_id, tool_name, params, fingerprint, status, claim_token,
    fence, attempt, lease_seconds, lease_expires_at, result, created_at, claimed_at
)
select 'r' || c, 'k' || k, gen_random_uuid(), 'search', '{"q": "actae"}', 'fp', 'completed',
    gen_random_uuid(), 1, 1, 60, now(), '{"ok": true}', now(), now()
from generate_series(0, 31) as c, generate_series(1, 200) as k;
do $$
declare
    v actae.execution_row;
begin
    for c in 0 .. 31 loop
        for k in 1 .. 200 loop
            v := actae.claim_execution('r' || c, 'k' || k, 'search', '{"q": "actae"}');
            perform actae.complete_execution(v.execution_id, v.claim_token, '{"ok": true}');
        end loop;
    end loop;
end;
$$;
"""


def _run_one(server: Server, plan: Plan, name: str, kind: str, what: str, c: int,
             args: dict[str, Any]) -> load.Result:
    if kind == "pgbench":
        result = pgbench.run(server, name, what, c, plan.warmup, plan.duration)
    else:
        result = load.run(name, what, {**args, "tag": tag()}, c, plan.warmup, plan.duration)
    server.checkpoint()
    log(f"  {name:34s} c={c:<2d} {result.throughput:9.1f}/s  p50 {result.pct(0.5):7.2f} ms"
        f"  p99 {result.pct(0.99):7.2f} ms")
    return result


def bench_claim(plan: Plan) -> dict[str, Any]:
    out: dict[str, Any] = {"claim": {}, "replay": {}}
    with Server(PORTS["claim"]) as server:
        server.psql(FLOORS.read_text())  # bench.ledger and the floor functions
        server.psql("create table bench.hand (like actae.executions including all);")
        args = {"dsn": server.dsn(), "dbos_url": _dbos_migrate(server)}
        log("claim + complete")
        raw: dict[tuple[str, int], list[load.Result]] = {}
        for c in plan.concurrency:
            # The limit and Actae-through-pgbench alternate for several rounds: their ratio
            # is the headline, and this machine's fsync time drifts between runs.
            for _ in range(plan.rounds):
                for name, kind, what in CLAIM_CONTENDERS:
                    if kind == "pgbench":
                        raw.setdefault((name, c), []).append(
                            _run_one(server, plan, name, kind, what, c, args))
            for name, kind, what in CLAIM_CONTENDERS:
                if kind != "pgbench":
                    raw.setdefault((name, c), []).append(
                        _run_one(server, plan, name, kind, what, c, args))
        for (name, c), rounds in raw.items():
            out["claim"].setdefault(name, {})[str(c)] = median_of(rounds)
        log("replay")
        server.psql(REPLAY_SETUP)
        for c in plan.concurrency:
            for name, kind, what in REPLAY_CONTENDERS:
                result = _run_one(server, plan, name, kind, what, c, args)
                out["replay"].setdefault(name, {})[str(c)] = median_of([result])
    return out


# --- 2. state transitions ------------------------------------------------------------------

TRANSITION_CONTENDERS = (("Actae transition_state", "transition_actae"),
                         ("LangGraph PostgresSaver.put", "transition_langgraph"),
                         (FLOOR_TRANSITION, "transition_floor"))


def bench_transitions(plan: Plan) -> dict[str, Any]:
    out: dict[str, Any] = {}
    with Server(PORTS["transitions"]) as server:
        from langgraph.checkpoint.postgres import PostgresSaver

        with PostgresSaver.from_conn_string(server.dsn()) as saver:
            saver.setup()
        server.psql(FLOORS.read_text())
        args = {"dsn": server.dsn()}
        for size in (1024, 65536):
            log(f"transitions, state of {size} bytes")
            for c in plan.concurrency:
                for name, factory in TRANSITION_CONTENDERS:
                    result = load.run(name, f"contenders:{factory}",
                                      {**args, "size": size, "tag": tag()}, c, plan.warmup,
                                      plan.duration)
                    server.checkpoint()
                    log(f"  {name:30s} c={c:<2d} {result.throughput:9.1f}/s"
                        f"  p50 {result.pct(0.5):7.2f} ms  p99 {result.pct(0.99):7.2f} ms")
                    out.setdefault(str(size), {}).setdefault(name, {})[str(c)] = (
                        result.summary())
    return out


# --- 3. forks ------------------------------------------------------------------------------

# Bulk-load a channel of n events with the real hash chain (as actae._append computes it).
EVENTS_LOAD = """
insert into actae.channels (channel_id) values (%(ch)s);
insert into actae.events (
    channel_id, cursor, event_type, payload, operation_id, clock, chain_sha256, recorded_at
)
with recursive chain (cursor, sha) as (
    select 1::bigint, encode(sha256(convert_to(
        ':1:step:' || jsonb_build_object('step', 1)::text, 'UTF8')), 'hex')
    union all
    select c.cursor + 1, encode(sha256(convert_to(
        c.sha || ':' || (c.cursor + 1) || ':step:'
        || jsonb_build_object('step', c.cursor + 1)::text, 'UTF8')), 'hex')
    from chain as c where c.cursor < %(n)s
)
select %(ch)s, cursor, 'step', jsonb_build_object('step', cursor), null, cursor, sha,
    clock_timestamp()
from chain;
update actae.channels set head_cursor = %(n)s, clock = %(n)s,
    head_chain = (select chain_sha256 from actae.events where channel_id = %(ch)s
                  and cursor = %(n)s)
where channel_id = %(ch)s;
"""


def load_events(conn: psycopg.Connection[Any], channel: str, n: int) -> None:
    with conn.transaction():
        for statement in EVENTS_LOAD.split(";\n"):
            if statement.strip():
                conn.execute(statement, {"ch": channel, "n": n})
    # A state snapshot in the middle, so the fork resolves a real inherited version.
    conn.execute("select actae.transition_state(%s, 'step', '{}', %s, 0)",
                 (channel, Jsonb({"at": n + 1})))
    conn.execute("analyze actae.events")


def _timed(fn: Any, times: int) -> list[float]:
    out = []
    for _ in range(times):
        t0 = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t0) * 1000.0)
    return out


def _lat(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {"p50_ms": round(statistics.median(ordered), 3),
            "p99_ms": round(ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))], 3),
            "n": len(ordered)}


FORK_SQL = "select * from actae.fork_channel(%s, %s)"


def bench_forks(plan: Plan) -> dict[str, Any]:
    out: dict[str, Any] = {"Actae fork_channel (at head)": {},
                           "Actae fork_channel (one before head)": {},
                           "Actae fork_channel, work only (rolled back)": {},
                           "DBOS fork_workflow": {}, "LangGraph fork from checkpoint": {}}
    with Server(PORTS["forks"]) as server:
        url = _dbos_migrate(server)
        conn = psycopg.connect(server.dsn(), autocommit=True)
        for n in plan.fork_sizes:
            t0 = time.perf_counter()
            load_events(conn, f"src-{n}", n)
            log(f"forks: {n} events loaded in {time.perf_counter() - t0:.1f}s")
        # Sizes interleaved, so drifting fsync times hit every size alike.
        samples: dict[tuple[str, int], list[float]] = {}
        for _ in range(plan.forks):
            for n in plan.fork_sizes:
                channel, head = f"src-{n}", n + 1
                for name, at in (("Actae fork_channel (at head)", head),
                                 ("Actae fork_channel (one before head)", head - 1)):
                    samples.setdefault((name, n), []).extend(_timed(
                        lambda ch=channel, at=at: conn.execute(FORK_SQL, (ch, at)).fetchone(),
                        1))
                # The fork's own work, without the commit's WAL flush (the noisy part here).
                with conn.transaction(force_rollback=True):
                    samples.setdefault(("Actae fork_channel, work only (rolled back)", n),
                                       []).extend(_timed(
                        lambda ch=channel, at=head - 1: conn.execute(FORK_SQL, (ch, at))
                        .fetchone(), 1))
        for (name, n), values in samples.items():
            out[name][str(n)] = _lat(values)
            log(f"  {name} n={n}: {out[name][str(n)]}")
        conn.close()
        out["DBOS fork_workflow"] = _dbos_forks(server, url, plan)
        out["LangGraph fork from checkpoint"] = _langgraph_forks(server, plan)
    return out


def _dbos_forks(server: Server, url: str, plan: Plan) -> dict[str, Any]:
    """A workflow of 100 real steps, its recorded steps cloned up to n, forked at step n."""
    code = f"""
import dbos_app
app = dbos_app.launch({url!r}, "fork-source")
for n in {list(plan.fork_sizes)!r}:
    with app.SetWorkflowID(f"fork-src-{{n}}"):
        app.counted_workflow(100)
app.shutdown()
"""
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).parent)
    out: dict[str, Any] = {}
    with psycopg.connect(server.dsn("dbos_sys"), autocommit=True) as conn:
        for n in plan.fork_sizes:
            if n > 100:
                conn.execute(
                    "insert into dbos.operation_outputs (workflow_uuid, function_id,"
                    " function_name, output, serialization, started_at_epoch_ms,"
                    " completed_at_epoch_ms, application_name)"
                    " select o.workflow_uuid, g, o.function_name, o.output, o.serialization,"
                    " o.started_at_epoch_ms, o.completed_at_epoch_ms, o.application_name"
                    " from dbos.operation_outputs as o, generate_series(101, %s) as g"
                    " where o.workflow_uuid = %s and o.function_id = 100",
                    (n, f"fork-src-{n}"))
        conn.execute("analyze dbos.operation_outputs")
    from dbos import DBOSClient

    client = DBOSClient(system_database_url=url)
    try:
        for n in plan.fork_sizes:
            times = _timed(lambda n=n: client.fork_workflow(f"fork-src-{n}", n),
                           max(5, plan.forks // 4))
            out[str(n)] = _lat(times)
            log(f"  DBOS   n={n}: {out[str(n)]}")
    finally:
        client.destroy()
    return out


def _langgraph_forks(server: Server, plan: Plan) -> dict[str, Any]:
    """A thread of 100 real checkpoints, cloned up to n; fork = get_tuple of the last one +
    put of a new checkpoint whose parent it is (what update_state on a past config does)."""
    from datetime import UTC, datetime

    from contenders import state_of
    from langgraph.checkpoint.base import LATEST_VERSION
    from langgraph.checkpoint.base.id import uuid6
    from langgraph.checkpoint.postgres import PostgresSaver

    out: dict[str, Any] = {}
    with PostgresSaver.from_conn_string(server.dsn()) as saver:
        saver.setup()
        for n in plan.fork_sizes:
            thread = f"thread-{n}"
            config: Any = {"configurable": {"thread_id": thread, "checkpoint_ns": ""}}
            version: Any = None
            state = state_of(1024, 0)
            for step in range(1, 101):
                version = saver.get_next_version(version, None)
                checkpoint: Any = {
                    "v": LATEST_VERSION, "id": str(uuid6(clock_seq=step)),
                    "ts": datetime.now(UTC).isoformat(),
                    "channel_values": {"state": {**state, "step": step}},
                    "channel_versions": {"state": version}, "versions_seen": {},
                    "pending_sends": [], "updated_channels": ["state"],
                }
                config = saver.put(config, checkpoint, {"source": "loop", "step": step},
                                   {"state": version})
            if n > 100:
                saver.conn.execute(  # type: ignore[union-attr]
                    "insert into checkpoints (thread_id, checkpoint_ns, checkpoint_id,"
                    " parent_checkpoint_id, type, checkpoint, metadata)"
                    " select thread_id, checkpoint_ns,"
                    " '00000000-0000-6000-8000-' || lpad(g::text, 12, '0'),"
                    " parent_checkpoint_id, type, checkpoint, metadata"
                    " from checkpoints, generate_series(1, %s) as g"
                    " where thread_id = %s and checkpoint_id = %s",
                    (n - 100, thread, config["configurable"]["checkpoint_id"]))
                saver.conn.execute("analyze checkpoints")  # type: ignore[union-attr]
            last = config

            def fork(last: Any = last) -> None:
                tup = saver.get_tuple(last)
                assert tup is not None
                ck = dict(tup.checkpoint)
                ck["id"] = str(uuid6(clock_seq=0))
                saver.put(tup.config, ck, {"source": "fork", "step": -1}, {})  # type: ignore

            out[str(n)] = _lat(_timed(fork, plan.forks))
            log(f"  LangGraph n={n}: {out[str(n)]}")
    return out


# --- 4. scale ------------------------------------------------------------------------------

BULK = """
insert into actae.channels (channel_id)
select 'bulk-' || g from generate_series(%(lo)s::bigint / 100, %(hi)s::bigint / 100) as g
on conflict do nothing;
insert into actae.executions (
    channel_id, key_name, execution_id, tool_name, params, fingerprint, status, claim_token,
    fence, attempt, lease_seconds, lease_expires_at, result, completed_clock, created_at,
    claimed_at, finished_at
)
select 'bulk-' || (i / 100), 'k' || i, gen_random_uuid(), 'search', '{"q": "actae"}',
    encode(sha256(convert_to('{"q": "actae"}', 'UTF8')), 'hex'), 'completed',
    gen_random_uuid(), 1, 1, 60, now(), '{"ok": true}', 0, now(), now(), now()
from generate_series(%(lo)s::bigint, %(hi)s::bigint) as i;
"""


# WAL per step right after a checkpoint. Each window: CHECKPOINT, then `steps` claim+complete
# cycles (one pgbench client, two commits each), WAL bytes from pg_current_wal_lsn and
# full-page images from pg_stat_wal over the window. The windows run in this order, on the
# same server and table, right after the bulk load + VACUUM ANALYZE of the level:
#   steps of runs       what agents write: every run a new channel, its steps 'step-1' ..
#                       'step-20' (actae_run_steps.sql); the WAL target row. It runs first,
#                       so it meets the free-space map VACUUM has just filled.
#   random keys         'k' || random(1, 9e18) in one channel per pgbench client (the 32
#                       channels every claim+complete run of this group has filled), with
#                       the ids Actae makes (time-ordered, actae._uuid7()) and with random
#                       ids (the function swapped for gen_random_uuid() and restored after).
#   steps of runs again after those windows, at a later checkpoint.
RANDOM_IDS = ("create or replace function actae._uuid7() returns uuid language sql volatile"
              " as 'select pg_catalog.gen_random_uuid()'")
STEPS_FIRST = "steps of runs, first after VACUUM"
STEPS_LATER = "steps of runs, later checkpoint"
WAL_WINDOWS: tuple[tuple[str, str, bool], ...] = (
    # (result key, pgbench script, random ids)
    (STEPS_FIRST, "actae_run_steps.sql", False),
    ("time-ordered ids (actae._uuid7)", "actae_claim_complete.sql", False),
    ("random ids (gen_random_uuid)", "actae_claim_complete.sql", True),
    (STEPS_LATER, "actae_run_steps.sql", False),
)


def _pgbench_count(server: Server, script: str, count: int, defines: dict[str, str]) -> None:
    """Exactly `count` runs of a script by one client, with -D variables."""
    from server import PG_BIN

    subprocess.run(
        [str(PG_BIN / "pgbench"), "-n", "-M", "prepared", "-f", str(pgbench.SCRIPTS / script),
         "-c", "1", "-t", str(count), *(f"-D{k}={v}" for k, v in defines.items()),
         "-d", server.dsn()],
        check=True, capture_output=True, text=True,
    )


def wal_per_step(server: Server, steps: int, level: int) -> dict[str, Any]:
    """{window: {steps, bytes_per_step, fpi_per_step}} for the WAL_WINDOWS, in order."""
    out: dict[str, Any] = {}
    with psycopg.connect(server.dsn(), autocommit=True) as conn:
        original = conn.execute(
            "select pg_get_functiondef('actae._uuid7()'::regprocedure)").fetchone()
        assert original is not None
        for k, (window, script, random_ids) in enumerate(WAL_WINDOWS):
            if random_ids:
                conn.execute(RANDOM_IDS)
            try:
                # One run of 20 steps before the checkpoint (channels 'run-<tag>-0-<n>' are
                # unique to this level and window): the first statements after a server
                # start prune catalog pages (pg_proc rows replaced by the migration), 29 FPIs
                # that belong to the migration, not to a step.
                tag = level * 100 + 10 * k
                _pgbench_count(server, script, 20, {"step": "0", "run": "0", "tag": str(tag)})
                conn.execute("checkpoint")
                before = conn.execute("select pg_current_wal_lsn(), wal_fpi from pg_stat_wal"
                                      ).fetchone()
                _pgbench_count(server, script, steps,
                               {"step": "0", "run": "0", "tag": str(tag + 1)})
                after = conn.execute(
                    "select pg_wal_lsn_diff(pg_current_wal_lsn(), %s), wal_fpi - %s"
                    " from pg_stat_wal", before).fetchone()
                assert after is not None
            finally:
                if random_ids:
                    conn.execute(original[0])
            out[window] = {"steps": steps, "bytes_per_step": round(float(after[0]) / steps),
                           "fpi_per_step": round(float(after[1]) / steps, 3)}
            log(f"  WAL per step, {window}: {out[window]}")
    return out


def bench_scale(plan: Plan) -> dict[str, Any]:
    out: dict[str, Any] = {"claim": {}, "replay": {}, "list_events": {}, "wal": {}}
    with Server(PORTS["scale"]) as server:
        conn = psycopg.connect(server.dsn(), autocommit=True)
        loaded = 0
        for rows in plan.scale_rows:
            if rows > loaded:
                t0 = time.perf_counter()
                with conn.transaction():
                    for statement in BULK.split(";\n"):
                        if statement.strip():
                            conn.execute(statement, {"lo": loaded + 1, "hi": rows})
                conn.execute("vacuum analyze actae.executions")
                conn.execute("vacuum analyze actae.channels")
                server.checkpoint()
                log(f"scale: {rows} executions loaded in {time.perf_counter() - t0:.1f}s")
                loaded = rows
            out["wal"][str(rows)] = wal_per_step(server, plan.wal_steps, rows)
            for c in plan.concurrency:
                result = pgbench.run(server, "claim+complete", "actae_claim_complete.sql", c,
                                     plan.warmup, plan.duration)
                server.checkpoint()
                out["claim"].setdefault(str(rows), {})[str(c)] = result.summary()
                log(f"  rows={rows} claim+complete c={c}: {result.summary()}")
                if rows:
                    result = pgbench.run(server, "replay", "actae_replay_bulk.sql", c,
                                         plan.warmup, plan.duration, defines={"rows": str(rows)})
                    out["replay"].setdefault(str(rows), {})[str(c)] = result.summary()
                    log(f"  rows={rows} replay c={c}: {result.summary()}")
        # Events listing: a page of 100 at a random position, small channel vs big channel.
        for n in (100, plan.list_events):
            channel = f"list-{n}"
            load_events(conn, channel, n)
            for c in plan.concurrency:
                result = load.run("list_events", "contenders:list_events_random",
                                  {"dsn": server.dsn(), "channel": channel, "events": n}, c,
                                  plan.warmup, plan.duration)
                out["list_events"].setdefault(str(n), {})[str(c)] = result.summary()
                log(f"  list_events n={n} c={c}: {result.summary()}")
        # The whole channel, page by page (1000 per call).
        t0 = time.perf_counter()
        after, total = 0, 0
        while True:
            rows_ = conn.execute("select cursor from actae.list_events(%s, %s, 1000)",
                                 (f"list-{plan.list_events}", after)).fetchall()
            if not rows_:
                break
            total += len(rows_)
            after = rows_[-1][0]
        out["list_all"] = {"events": total, "seconds": round(time.perf_counter() - t0, 3)}
        log(f"  full listing: {out['list_all']}")
        conn.close()
    return out


def bench_runs(plan: Plan) -> dict[str, Any]:
    """Runs: Actae's worker vs Absurd and DBOS, prefetch, claim_run latency (runs_bench.py,
    which also writes docs/bench/runs.md)."""
    import runs_bench

    runs_bench.log = log  # its progress lines carry the whole run's elapsed time too
    out = runs_bench.bench_runs(quick=plan.quick)
    if plan.quick:
        runs_bench.write(out, QUICK_OUT / "runs.json", QUICK_OUT / "runs.md")
    else:
        runs_bench.write(out)
    return out


def bench_driver(plan: Plan) -> dict[str, Any]:
    """The driver against bare psycopg, c = 1, interleaved rounds (driver.py). Commits are
    not waited for (synchronous_commit off, for every contender alike): with a WAL flush per
    commit this shared disk's fsync time swings 10x between rounds and hides the client's
    cost, which is what this group measures."""
    import driver

    with Server(driver.PORT, extra={"synchronous_commit": "off"}) as server:
        return driver.measure(server.dsn(), plan.driver_ops, plan.driver_rounds, log)


# --- one step vs the peers; replay CPU vs a bare read; batches; resume -----------------------

PEER_SYSTEMS = ("actae", "absurd", "pgtask")


def _peer_databases(server: Server) -> dict[str, str]:
    """Absurd (schema by absurdctl) and pgtask (its own migrate) beside Actae's database."""
    import asyncio
    import os

    from pgtask import Client
    from server import PG_BIN

    with psycopg.connect(server.dsn("postgres"), autocommit=True) as conn:
        conn.execute("create database absurd")
        conn.execute("create database pgtask")
    subprocess.run(["absurdctl", "init", "-d", server.url("absurd")], check=True,
                   capture_output=True,
                   env={**os.environ, "PATH": f"{Path(sys.executable).parent}:{PG_BIN}:"
                                             f"{os.environ.get('PATH', '')}"})
    # pgtask's driver wants a host in the URL even for a Unix socket (?host= overrides it).
    pgtask_url = server.url("pgtask").replace("@/", "@localhost/", 1)

    async def migrate() -> None:
        await (await Client.connect(pgtask_url)).migrate()

    asyncio.run(migrate())
    return {"dsn": server.dsn(), "absurd_dsn": server.dsn("absurd"),
            "pgtask_dsn": server.dsn("pgtask"), "pgtask_url": pgtask_url}


def _replay_cpu(args: dict[str, str], plan: Plan) -> dict[str, Any]:
    """Server backend CPU per call (us, median of rounds, paths interleaved), c = 1, one
    connection per path, prepared statements, one transaction per call."""
    import backend_cpu
    import peer_steps as ps

    paths = {
        "Actae replay (claim of a completed key)": ("dsn", ps.actae_replay_one),
        "bare primary-key read of the same row": ("dsn", ps.bare_read),
        "Absurd raw replay (get_task_checkpoint_state)": ("absurd_dsn", ps.absurd_replay),
        "pgtask raw replay (get_checkpoint)": ("pgtask_dsn", ps.pgtask_replay),
        "Actae new step (claim + complete)": ("dsn", ps.actae_new),
        "Absurd raw new step (set_task_checkpoint_state)": ("absurd_dsn", ps.absurd_new),
        "pgtask raw new step (commit_checkpoint)": ("pgtask_dsn", ps.pgtask_new),
    }
    conns = {name: psycopg.connect(args[key], autocommit=True) for name, (key, _) in
             paths.items()}
    channel = f"cpu-{tag()}"
    ops = {name: make(conns[name], channel if key == "dsn" else f"q{tag()}")
           for name, (key, make) in paths.items()}
    cpu: dict[str, list[float]] = {name: [] for name in paths}
    rate: dict[str, list[float]] = {name: [] for name in paths}
    try:
        for r in range(plan.cpu_rounds):
            names = list(paths)
            for name in names[r % len(names):] + names[:r % len(names)]:
                ops_s, us = backend_cpu.rate(conns[name], ops[name], plan.cpu_seconds)
                rate[name].append(ops_s)
                cpu[name].append(us)
    finally:
        for conn in conns.values():
            conn.close()
    out = {name: {"cpu_us": round(statistics.median(cpu[name]), 1),
                  "ops_per_s": round(statistics.median(rate[name]), 1),
                  "rounds_cpu_us": [round(v, 1) for v in cpu[name]]} for name in paths}
    for name, r in out.items():
        log(f"  backend CPU {name}: {r['cpu_us']} us/call ({r['ops_per_s']}/s)")
    return out


def bench_peers(plan: Plan) -> dict[str, Any]:
    """{"cpu": backend CPU per call, "steps": {case: {path: {system: {c: summary}}}}}."""
    import peer_steps

    out: dict[str, Any] = {"steps": {}, "warmup_s": plan.peer_warmup,
                           "duration_s": plan.peer_duration,
                           "rounds": {str(c): plan.peer_rounds[str(c)]
                                      for c in plan.peer_concurrency}}
    with Server(PORTS["peers"]) as server:
        args = _peer_databases(server)
        log("backend CPU per call (replay vs bare primary-key read, peers' raw paths)")
        out["cpu"] = _replay_cpu(args, plan)
        for case in ("new", "replay"):
            for path in ("raw", "sdk"):
                log(f"one step, {case}, {path} path")
                for c in plan.peer_concurrency:
                    # Systems alternate round after round: this disk's fsync time drifts.
                    raw: dict[str, list[load.Result]] = {}
                    for _ in range(plan.peer_rounds[str(c)]):
                        systems = PEER_SYSTEMS + (("floor",) if (case, path) == ("replay", "raw")
                                                  else ())
                        for system in systems:
                            name = f"{system} {path} {case}"
                            result = load.run(name, peer_steps.CONTENDERS[(system, path, case)],
                                              {**args, "tag": tag()}, c, plan.peer_warmup,
                                              plan.peer_duration)
                            if not plan.quick:  # quick: every second counts (3 min)
                                server.checkpoint()
                            log(f"  {name:20s} c={c:<2d} {result.throughput:9.1f}/s"
                                f"  p50 {result.pct(0.5):7.2f} ms"
                                f"  p99 {result.pct(0.99):7.2f} ms")
                            raw.setdefault(system, []).append(result)
                    for system, rounds in raw.items():
                        out["steps"].setdefault(case, {}).setdefault(path, {}).setdefault(
                            system, {})[str(c)] = median_of(rounds)
    return out


def bench_batch(plan: Plan) -> dict[str, Any]:
    """N = 8 parallel tool calls as one batch vs N single calls (batch.py)."""
    import batch

    with Server(batch.PORT) as server:
        return batch.measure_all(server.dsn(), 8, plan.batch_seconds, plan.batch_rounds, log)


def bench_resume(plan: Plan) -> dict[str, Any]:
    """Resume of a 100-step run, prefetch vs step by step (resume.py)."""
    import resume

    with Server(resume.PORT) as server:
        return resume.measure_all(server.dsn(), 100, plan.resume_repeats, log)


GROUPS = {"claim": bench_claim, "driver": bench_driver, "transitions": bench_transitions,
          "forks": bench_forks, "scale": bench_scale, "runs": bench_runs,
          "peers": bench_peers, "batch": bench_batch, "resume": bench_resume}
# A quick run writes its langgraph_saver.{json,md} to the scratch folder too.
GROUPS["langgraph"] = lambda plan: langgraph_saver.run(
    plan.quick, QUICK_OUT if plan.quick else None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true",
                        help="~3 min smoke run into a scratch folder (tests/bench/.quick/)")
    parser.add_argument("--only", nargs="*", choices=sorted(GROUPS), default=None)
    parser.add_argument("--out", type=Path, default=None,
                        help="folder for results.json, BENCHMARKS.md and plots")
    parser.add_argument("--no-report", action="store_true")
    ns = parser.parse_args()
    plan = Plan(ns.quick)
    out_dir = ns.out or (QUICK_OUT if ns.quick else None)
    results_path = out_dir / "results.json" if out_dir else RESULTS
    # Only a full run into the committed report keeps earlier groups' numbers (--only).
    results: dict[str, Any] = (json.loads(results_path.read_text())
                               if ns.only and results_path.exists() else {})
    groups = ns.only or list(GROUPS)
    for k, name in enumerate(groups, 1):
        t0 = time.monotonic()
        log(f"== phase {k}/{len(groups)}: {name}")
        results[name] = GROUPS[name](plan)
        results.setdefault("seconds", {})[name] = round(time.monotonic() - t0)
        results.setdefault("measured", {})[name] = time.strftime("%Y-%m-%d %H:%M UTC",
                                                                 time.gmtime())
        log(f"== phase {k}/{len(groups)}: {name} done in {results['seconds'][name]} s")
        results_path.parent.mkdir(parents=True, exist_ok=True)
        results_path.write_text(json.dumps(results, indent=1) + "\n")
    results["meta"] = {
        "machine": machine(), "settings": SETTINGS, "quick": ns.quick,
        "warmup_s": plan.warmup, "duration_s": plan.duration, "rounds": plan.rounds,
        "concurrency": list(plan.concurrency),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "groups": groups,
        # Wall clock of this invocation (server setup included) up to the report.
        "total_seconds": round(time.monotonic() - STARTED),
    }
    results_path.write_text(json.dumps(results, indent=1) + "\n")
    if not ns.no_report:
        report.write(results, out_dir=out_dir)
    log(f"done in {time.monotonic() - STARTED:.0f} s; results in {results_path}")


if __name__ == "__main__":
    main()
