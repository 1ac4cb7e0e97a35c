"""Render docs/BENCHMARKS.md and docs/bench/*.png from docs/bench/results.json.

Run on its own to re-render without re-measuring:
    tests/bench/.env/bin/python tests/bench/report.py
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from server import REPO

DOC = REPO / "docs" / "BENCHMARKS.md"
PNG = REPO / "docs" / "bench"
LIMIT = "pgbench: bare SQL (limit)"
ACTAE_PGBENCH = "pgbench: Actae functions"
ACTAE_RAW = "Python: Actae via psycopg"
ACTAE_DRIVER = "Python: Actae driver"
HAND = "Python: hand-written"
DBOS_STEPS = "Python: DBOS step in workflow"
DBOS_WF = "Python: DBOS workflow per call"
# The floors (tests/bench/scripts/floors.sql): the thinnest functions the spec allows.
FLOOR_PGBENCH = "pgbench: thinnest functions (floor)"
FLOOR_TRANSITION = "thinnest function via psycopg (floor)"
FLOOR_REPLAY = "bare PK read (floor)"
CONC = ("1", "8", "32")


def _fmt(x: float | None, digits: int = 0) -> str:
    if x is None:
        return "—"
    return f"{x:,.{digits}f}"


def _ratio(a: float | None, b: float | None) -> str:
    if not a or not b:
        return "—"
    return f"{a / b:.2f}×"


def _floor(floor: float | None, base: float | None) -> str:
    """A target's floor beside its ratio: the thinnest SPEC-shaped contender against the same
    baseline, measured in the same run (nothing when the group had none)."""
    return f" (floor: {_ratio(floor, base)})" if floor and base else ""


def _get(d: dict[str, Any], *path: str) -> Any:
    for p in path:
        if not isinstance(d, dict) or p not in d:
            return None
        d = d[p]
    return d


def _throughput_table(block: dict[str, Any], unit: str) -> list[str]:
    lines = ["| contender | " + " | ".join(
        f"c={c} {unit}/s | p50 ms | p99 ms" for c in CONC) + " |",
        "|---|" + "---:|" * (3 * len(CONC))]
    for name, per_c in block.items():
        lines.append(f"| {name} | " + " | ".join(_cells(per_c)) + " |")
    return lines


def _cells(per_c: dict[str, Any]) -> list[str]:
    """throughput, p50, p99 for every concurrency ("—" where not measured)."""
    cells: list[str] = []
    for c in CONC:
        r = per_c.get(c, {})
        cells += [_fmt(r.get("throughput")), _fmt(r.get("p50_ms"), 2), _fmt(r.get("p99_ms"), 2)]
    return cells


def _ratio_rows(block: dict[str, Any], pairs: list[tuple[str, str, str]]) -> list[str]:
    lines = ["| ratio (throughput) | " + " | ".join(f"c={c}" for c in CONC) + " |",
             "|---|" + "---:|" * len(CONC)]
    for label, a, b in pairs:
        lines.append(f"| {label} | " + " | ".join(
            _ratio(_get(block, a, c, "throughput"), _get(block, b, c, "throughput"))
            for c in CONC) + " |")
    return lines


def _plot(results: dict[str, Any], png: Path) -> list[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    made = []
    png.mkdir(parents=True, exist_ok=True)

    def bars(block: dict[str, Any], title: str, file: str, unit: str) -> None:
        names = list(block)
        fig, ax = plt.subplots(figsize=(10, 4.8))
        width = 0.8 / max(1, len(names))
        for i, name in enumerate(names):
            ys = [_get(block, name, c, "throughput") or 0 for c in CONC]
            ax.bar([x + i * width for x in range(len(CONC))], ys, width, label=name)
        ax.set_xticks([x + width * (len(names) - 1) / 2 for x in range(len(CONC))])
        ax.set_xticklabels([f"concurrency {c}" for c in CONC])
        ax.set_ylabel(f"{unit} per second")
        ax.set_title(title)
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(png / file, dpi=110)
        plt.close(fig)
        made.append(file)

    if claim := _get(results, "claim", "claim"):
        bars(claim, "Claim + complete (one durable tool call)", "claim_complete.png",
             "tool calls")
    if replay := _get(results, "claim", "replay"):
        bars(replay, "Replay (claim of a completed key)", "replay.png", "replays")
    if transitions := results.get("transitions"):
        for size, block in transitions.items():
            bars(block, f"State transitions, {int(size) // 1024} KB state",
                 f"transitions_{int(size) // 1024}kb.png", "transitions")
    if forks := results.get("forks"):
        fig, ax = plt.subplots(figsize=(8, 4.8))
        for name, per_n in forks.items():
            ns = sorted(per_n, key=int)
            ax.plot([int(n) for n in ns], [per_n[n]["p50_ms"] for n in ns], marker="o",
                    label=name)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("prefix length (events / steps / checkpoints)")
        ax.set_ylabel("fork time p50 (ms)")
        ax.set_title("Fork time vs prefix length")
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(png / "forks.png", dpi=110)
        plt.close(fig)
        made.append("forks.png")
    if scale := _get(results, "scale", "claim"):
        fig, ax = plt.subplots(figsize=(8, 4.8))
        for c in CONC:
            rows = sorted(scale, key=int)
            rows = [r for r in rows if c in scale[r]]
            ax.plot([int(r) / 1e6 for r in rows], [scale[r][c]["p50_ms"] for r in rows],
                    marker="o", label=f"claim+complete p50, c={c}")
            ax.plot([int(r) / 1e6 for r in rows], [scale[r][c]["p99_ms"] for r in rows],
                    marker="x", linestyle="--", label=f"claim+complete p99, c={c}")
        ax.set_xlabel("existing executions (millions)")
        ax.set_ylabel("latency (ms)")
        ax.set_title("Claim + complete latency vs ledger size")
        ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(png / "scale.png", dpi=110)
        plt.close(fig)
        made.append("scale.png")
    return made


def _driver_ratios() -> list[tuple[str, str, str, float]]:
    from driver import RATIOS

    return RATIOS


REPLAY_CPU = "Actae replay (claim of a completed key)"
BARE_CPU = "bare primary-key read of the same row"
PEERS = (("absurd", "Absurd"), ("pgtask", "pgtask"))
Row = tuple[str, str, bool | None]


def _peer_targets(results: dict[str, Any]) -> list[Row]:
    """Issue 18 items 1 and 8: replay CPU vs a bare read; one step vs Absurd and pgtask."""
    rows: list[Row] = []
    cpu = _get(results, "peers", "cpu") or {}
    a, b = _get(cpu, REPLAY_CPU, "cpu_us"), _get(cpu, BARE_CPU, "cpu_us")
    if a and b:
        rows.append(("replay server CPU ≤ 1.3× bare PK read (backend CPU per call, c=1)",
                     f"{a:.0f} / {b:.0f} µs = {a / b:.2f}×", a / b <= 1.3))
    steps = _get(results, "peers", "steps") or {}
    for case, path, target in (("replay", "raw", 1.2), ("replay", "sdk", 1.0),
                               ("new", "raw", 1.0), ("new", "sdk", 1.0)):
        for key, peer in PEERS:
            for c in CONC:
                x = _get(steps, case, path, "actae", c, "throughput")
                y = _get(steps, case, path, key, c, "throughput")
                if x is None and y is None:
                    continue
                what = "replay" if case == "replay" else "new step"
                goal = f"≥ {target}× {peer} raw replay" if target > 1 else f"ahead of {peer}"
                label = f"{what} {goal} ({path.upper() if path == 'sdk' else path} paths), c={c}"
                floor = _get(steps, case, path, "floor", c, "throughput")
                rows.append((label, _ratio(x, y) + _floor(floor, y),
                             None if not (x and y) else (x / y >= target if target > 1
                                                         else x > y)))
    return rows


def _batch_targets(results: dict[str, Any]) -> list[Row]:
    """Issue 18 item 3: N = 8 parallel calls per call vs singles, and their commits."""
    batch = results.get("batch") or {}
    rows: list[Row] = []
    for path, ratio in (batch.get("ratios") or {}).items():
        rows.append((f"N={batch.get('n')} parallel calls: per-call throughput ≥ 4× single "
                     f"({path})", f"{ratio:.2f}×", ratio >= 4))
    commits = _get(batch, "commits", "psycopg: batch")
    if commits is not None:
        single = _get(batch, "commits", "psycopg: single calls")
        rows.append((f"N={batch.get('n')} parallel calls cost 2 commits (commit records in "
                     "the WAL per batch)",
                     f"{commits:g}" + (f" (singles: {single:g})" if single is not None else ""),
                     commits <= 2))
    return rows


def _resume_targets(results: dict[str, Any]) -> list[Row]:
    """Issue 18 item 2 (no number given): prefetch resumes faster than step by step."""
    res = results.get("resume") or {}
    rows: list[Row] = []
    for where in ("own channel", "fork"):
        on = _get(res, "modes", f"{where}, prefetch", "p50_ms")
        off = _get(res, "modes", f"{where}, step by step", "p50_ms")
        if on and off:
            rows.append((f"resume of a {res.get('steps')}-step run ({where}): prefetch faster "
                         "than step-by-step replay (speed-up, p50)",
                         f"{on:,.0f} vs {off:,.0f} ms = {off / on:.2f}×", off > on))
    return rows


# WAL per step windows of the scale group (tests/bench/run.py WAL_WINDOWS), in run order:
# result key -> (row label, what the window measures).
WAL_STEPS_FIRST = "steps of runs, first after VACUUM"
WAL_STEPS_LATER = "steps of runs, later checkpoint"
WAL_WINDOWS = {
    WAL_STEPS_FIRST: (
        "steps of runs (target)",
        "what agents write: every run a new channel, its steps `step-1` .. `step-20` claimed "
        "and completed; the first window after the level's bulk load, VACUUM ANALYZE and "
        "CHECKPOINT"),
    "time-ordered ids (actae._uuid7)": (
        "random keys, time-ordered ids",
        "keys `k<random 1..9e18>` in one channel per pgbench client, channels the group's "
        "claim+complete runs keep filling with random keys; ids from `actae._uuid7()`"),
    "random ids (gen_random_uuid)": (
        "random keys, random ids",
        "the same with `actae._uuid7()` swapped for `gen_random_uuid()` (the ids before "
        "migration 0015), then restored"),
    WAL_STEPS_LATER: (
        "steps of runs, later checkpoint",
        "steps of runs again, after the three windows above, at a new checkpoint"),
}


def _wal_cell(r: dict[str, Any] | None) -> str:
    if not r or "bytes_per_step" not in r:
        return "—"
    return f"{r['bytes_per_step']:,} B · {r['fpi_per_step']:.3f} FPI"


def _wal_targets(results: dict[str, Any]) -> list[tuple[str, str, bool | None]]:
    """WAL ≤ 1 KB per step on the steps-of-runs window right after VACUUM + CHECKPOINT."""
    rows: list[tuple[str, str, bool | None]] = []
    for n, per_window in (_get(results, "scale", "wal") or {}).items():
        r = per_window.get(WAL_STEPS_FIRST) or {}
        label = (f"WAL per step ≤ 1 KB right after a checkpoint (steps of runs), "
                 f"{int(n):,} executions")
        if "bytes_per_step" not in r:
            rows.append((label, "not measured", None))
            continue
        later = per_window.get(WAL_STEPS_LATER)
        measured = _wal_cell(r) + (f" (later checkpoint: {_wal_cell(later)})" if later else "")
        rows.append((label, measured, r["bytes_per_step"] <= 1024))
    return rows


def _wal_section(wal: dict[str, Any]) -> list[str]:
    """One row per window, one column per level of existing executions."""
    levels = sorted(wal, key=int)
    keys = [k for k in WAL_WINDOWS if any(k in wal[n] for n in levels)]
    keys += [k for n in levels for k in wal[n] if k not in keys]
    steps = next((r.get("steps") for n in levels for r in wal[n].values()), None)
    lines = ["", "### WAL per step right after a checkpoint", "",
             f"Each window: `CHECKPOINT`, then {_fmt(steps)} claim+complete steps (two commits "
             "each, one pgbench client); WAL bytes from `pg_current_wal_lsn()`, full-page "
             "images (FPI) from `pg_stat_wal`. The windows run in the order below on the same "
             "server, right after each level's bulk load and `VACUUM ANALYZE`. The first window "
             "after a VACUUM meets the free-space map it filled (see the WAL item of the "
             "findings).",
             "", "| window | what it measures | " + " | ".join(
                 f"{int(n):,} executions" for n in levels) + " |",
             "|---|---|" + "---:|" * len(levels)]
    for key in keys:
        label, what = WAL_WINDOWS.get(key, (key, ""))
        lines.append(f"| {label} | {what} | "
                     + " | ".join(_wal_cell(wal[n].get(key)) for n in levels) + " |")
    return lines


def _targets(results: dict[str, Any]) -> list[str]:
    """The issue's targets, checked against this run's numbers."""
    rows: list[tuple[str, str, bool | None]] = []

    def thr(*path: str) -> float | None:
        return _get(results, *path, "throughput")

    claim = _get(results, "claim", "claim") or {}
    for c in CONC:
        a, b = _get(claim, ACTAE_PGBENCH, c, "throughput"), _get(claim, LIMIT, c, "throughput")
        rows.append((f"claim+complete ≥ 0.85× the pgbench limit, c={c}",
                     _ratio(a, b) + _floor(_get(claim, FLOOR_PGBENCH, c, "throughput"), b),
                     None if not (a and b) else a / b >= 0.85))
    # The bare-SQL limit over hand-written, beside the ratio: the most any implementation of
    # the two commits could reach against the same hand-written rounds.
    limit_ratio = _ratio(_get(claim, LIMIT, "1", "throughput"), _get(claim, HAND, "1",
                                                                      "throughput"))
    for label, name in (("via psycopg", ACTAE_RAW), ("driver", ACTAE_DRIVER)):
        a, b = _get(claim, name, "1", "throughput"), _get(claim, HAND, "1", "throughput")
        rows.append((f"claim+complete ≥ 3× hand-written at c=1 (Actae {label})",
                     f"{_ratio(a, b)} (the pgbench limit: {limit_ratio})",
                     None if not (a and b) else a / b >= 3))
    for c in CONC:
        a, b = _get(claim, ACTAE_DRIVER, c, "throughput"), _get(claim, DBOS_STEPS, c,
                                                                  "throughput")
        rows.append((f"claim+complete ahead of DBOS (driver vs step in workflow), c={c}",
                     _ratio(a, b), None if not (a and b) else a > b))
    for label, a, b, target in _driver_ratios():
        x, y = _get(results, "driver", a, "throughput"), _get(results, "driver", b, "throughput")
        rows.append((f"{label} ≥ {target}×, c=1", _ratio(x, y),
                     None if not (x and y) else x / y >= target))
    for size, block in (results.get("transitions") or {}).items():
        for c in CONC:
            a = _get(block, "Actae transition_state", c, "throughput")
            b = _get(block, "LangGraph PostgresSaver.put", c, "throughput")
            rows.append((f"transitions ≥ 1.2× LangGraph, {int(size) // 1024} KB, c={c}",
                         _ratio(a, b) + _floor(_get(block, FLOOR_TRANSITION, c, "throughput"),
                                               b),
                         None if not (a and b) else a / b >= 1.2))
    rows += _wal_targets(results)
    for case, target in (("new", 1.0), ("resume", 1.2)):
        for key, row in (_get(results, "runs", "throughput") or {}).items():
            if not key.startswith(case + " "):
                continue
            for peer in ("absurd", "pgtask"):
                a = _get(row, "actae", "runs_per_s")
                b = _get(row, peer, "runs_per_s")
                what = "ahead of" if target == 1.0 else f"≥ {target}×"
                rows.append((f"runs, {key} (5-step runs/s): Actae {what} {peer}",
                             _ratio(a, b), None if not (a and b) else a / b >= target
                             if target > 1 else a > b))
    rows += _peer_targets(results) + _batch_targets(results) + _resume_targets(results)
    for name in ("Actae fork_channel (at head)", "Actae fork_channel (one before head)",
                 "Actae fork_channel, work only (rolled back)"):
        per_n = _get(results, "forks", name) or {}
        if per_n:
            ns = sorted(per_n, key=int)
            a, b = per_n[ns[-1]]["p50_ms"], per_n[ns[0]]["p50_ms"]
            rows.append((f"{name}: p50 at {int(ns[-1]):,} within 2× of {int(ns[0]):,} events",
                         _ratio(a, b), a / b <= 2))
    out = ["## Targets (from the issue), checked against this run", "",
           "| target | measured | met |", "|---|---:|:---:|"]
    for label, measured, ok in rows:
        out.append(f"| {label} | {measured} | {'—' if ok is None else ('yes' if ok else 'NO')} |")
    return [*out, ""]


FINDINGS = """## What profiling found, what changed, what remains

Figures below come from A/B runs on one development server while these benchmarks were
built. This 2-core machine is shared with other workloads (load average 5-10 during the run
above), so single runs swing by 2x; CPU time per transaction of the server backend
(`perf stat -e task-clock` over 20 000 pgbench cycles) was the steadier yardstick.

- **Claim+complete vs the limit.** Before any change, on a quiet moment: pgbench limit 1 714
  and Actae 1 548 cycles/s at c=1 (0.90x), 4 535 vs 3 223 at c=8 (0.71x). With one client
  the cost is the two WAL flushes, which both pay; with more clients than cores the server
  is CPU-bound and the ratio is the ratio of CPU per cycle: about 68 us for the bare SQL,
  about 180-190 us for Actae before the change below, 115-135 us after. Under the heavier
  neighbour load of the run above, CPU-bound ratios drop further (the CPU-heavier path
  loses more); the targets table above has this run's ratios. Where 0.8x is missed, what
  remains above the limit is PL/pgSQL itself (two SECURITY
  DEFINER calls with their search_path switch, per-transaction expression set-up, the
  24-column result row) and the claim's extra statements (the replay probe a new key pays,
  the channel read that detects forks).
- **Claim+complete at c = 1 slowed down while a fresh table had no statistics** (fixed
  2026-12-03, migration 0017). The c = 1 rounds of `pgbench: Actae functions` fell from
  about 1 040 to 710 pairs/s while the limit stayed near 1 950. The cause was a plan: before
  the first ANALYZE of `actae.executions`, the generic plan of complete_execution's UPDATE
  (`channel_id = $1 and execution_id = $2`) was a BitmapAnd of the execution_id index and
  the primary key's `channel_id` prefix, and the latter read every key of the channel, so
  each completion cost more as the one pgbench channel grew. The lookup index now holds
  (execution_id, channel_id): both conditions are conditions of one index scan, with or
  without statistics (tests/python/integration/test_plans.py checks the plan with the
  table's statistics removed, and that the old index plans the BitmapAnd). A/B on one bench
  server (`tests/bench/claim_ab.py --base df2a692`, 3 interleaved rounds, medians): c = 1
  767 -> 1 430 pairs/s (0.40x -> 0.75x of the limit), c = 8 2 758 -> 3 088 (0.62x -> 0.69x).
- **Parallel tool calls as sets** (changed, sql/12_batch.sql). `claim_executions` called
  claim_execution once per element and `complete_executions` complete_execution once per
  element (each a SECURITY DEFINER call with its statements, and the completion looked its
  channel up by execution_id). Now a batch without dedup_fields in a channel that is not a
  fork claims all its new keys with one INSERT, and `complete_executions(..., channel_id)`
  completes the batch with one UPDATE behind the channel's clock guard; elements that need
  more (an existing key, a fenced token) take the single call, so outcomes and errors are
  unchanged (pgTAP counts the single calls with track_functions). perf also showed the
  batch statements planned anew on every call (custom plans for array arguments, a sixth
  of the time) and whole rows coerced through text; claim_executions now uses generic
  plans (not on Citus, which routes by the arguments' values) and rows are cast field by
  field. complete_executions keeps custom plans: the first full run with generic plans
  showed `psycopg: batch` falling from 2 993 to 1 348 calls/s over its rounds, because the
  UPDATE's generic plan, made while the table was empty, read every key of the channel
  through the primary key's prefix for the rest of the session (test_plans.py has the
  case and its control); with custom plans the same rounds held at 3 760-4 000 calls/s.
- **Large states: the driver's JSON and the server's JSON parser** (2026-12-03). perf of
  a 64 KB `transition_state` at c = 1: the server spends about a third of its time in
  `jsonb_in` (PostgreSQL 15's JSON lexer appends a string's characters one
  `appendStringInfoChar` call at a time) and a fifth writing the TOAST chunks;
  LangGraph's saver stores an opaque msgpack blob and parses nothing. On the client,
  `json.dumps` of the state cost about 195 us of the call's 350 us: the driver now encodes
  JSON with pydantic_core (already a dependency), about 44 us, the same JSON values
  (python/actae/_json.py; docs/python.md, "JSON arguments").
- **The floor of a SECURITY DEFINER call** (measured 2026-12-03, backend CPU per call from
  /proc/<pid>/schedstat, one read-only transaction per call, prepared, medians of 7 rounds
  of 3 000): `select $1` 24 us; the same through a PL/pgSQL function 28 us; SECURITY
  DEFINER 28 us; with `set search_path` (which SPEC section 3a requires) 34 us; plus one
  primary-key SELECT inside 48 us; plus a second 53 us. The bare primary-key read of the
  replay target is 37 us, so 1.3x of it (48 us) is exactly what a definer function costs
  that does nothing but that read: the replay target cannot be met by any function the
  spec allows; the replay (about 80-90 us now) is within 2x of that floor. A claim+complete
  pair pays two such entries, four statements and two commits against the limit's two
  statements and two commits.
- **Completions ordered by an advisory lock, not a row lock** (changed, sql/10_executions.sql,
  sql/20_channels.sql): complete_execution read the channel clock under `FOR SHARE`, which
  writes a lock into the channel's tuple (a WAL record per completion, the channel page
  dirtied after every checkpoint, a multixact when two completions of one channel overlap).
  It now takes the channel's clock guard (a transaction advisory lock) shared, and every
  writer of the channel (`_lock_channel`: appends, forks, TTL and watch changes) takes it
  exclusively, so the order is the same (isolation spec `completion_fork_cut` proves both
  orders), and the clock is read inside the completing UPDATE: one statement less. WAL per
  step at 1 M executions (pg_waldump over 1 000 steps after a checkpoint, one warm channel):
  937 -> 887 bytes, the Heap/LOCK record gone.
- **Replays skip two nested calls** (changed): the same-operation check runs inline (its
  helper only raises) and `_execution_row` is LANGUAGE sql, which the planner inlines into
  the caller's expression; about 8-10 us of backend CPU less per replay (A/B, interleaved).
- **Argument checks inline** (changed, sql/10_executions.sql). Each `perform
  actae._check_text(...)`-style helper call is a PL/pgSQL function with its own
  `set search_path`; the first call in every transaction sets that up again. claim_execution
  and complete_execution now evaluate the checks inline and call the helpers only when a
  check fails (same errors, same order); the fingerprint of a null `dedup_fields` is
  computed inline. Server CPU per cycle: about 180-190 us -> 115-135 us.
- **Replay took a row lock** (changed, sql/10_executions.sql). A claim of a completed key
  went through `SELECT ... FOR UPDATE`, which writes the lock into the tuple, so every replay
  was a write transaction waiting for a WAL flush. A completed row never changes again, so it
  is now read without the lock and a replay writes nothing: pgbench replays went from about
  1 900 to 5 100/s at c=1 and from 3 100 to 7 000/s at c=8 (A/B, same server).
- **Appends notified every time** (changed, migration 0003 + sql/21_events.sql).
  `record_event` / `transition_state` called `pg_notify` on every append. PostgreSQL holds a
  database-wide lock from a notifying transaction's pre-commit until its commit record is
  flushed, so notifying transactions never shared a WAL flush and transitions stopped
  scaling with concurrency (with the `pg_notify` line removed, pgbench transitions at c=8
  went from 300-415/s to 1 580-2 230/s). Appends now notify only channels with a live
  `actae.watch_channel` registration (the driver's `watch()` registers and renews), decided
  under the channel row lock, so a watcher still misses nothing.
- **Helpers reset search_path on every call** (changed, sql/). Each private `_` helper
  carried its own `set search_path`, so every call saved and restored the setting; about a
  dozen such calls ran per transition. Helpers now inherit the pinned search_path of the
  API function that calls them (only those functions, running as the owner, may execute
  them; pgTAP checks both).
- **Large states were compressed with pglz** (changed, migration 0005). A 64 KB state is
  TOAST-compressed on write; lz4 does it for a fraction of the CPU: pgbench transitions with
  a 64 KB state went from 100-370/s to 710-1 010/s at c=1 (A/B, same server,
  synchronous_commit off). States, payloads, params and results now use lz4.
- **Transitions vs LangGraph, what remains**: at c=1 the gap is per-call cost in the driver
  (pool checkout and model parsing, below) and in PL/pgSQL (channel lock, event + snapshot
  + channel update, hash chain) against one pipelined upsert; LangGraph also sends msgpack
  bytes where Actae sends JSON text that the server parses into jsonb. Measured per call on
  2026-12-06 (1 KB state, c = 1, one backend each, 5 interleaved rounds of 1 500 calls,
  synchronous_commit on; backend CPU from /proc/<pid>/schedstat, client CPU from
  time.process_time, WAL from the LSN): PostgresSaver.put 390 us of wall time, 164 us of
  client CPU, 139 us of server CPU, 2 154 B of WAL; transition_state 458 us, 79, 258 and
  1 907 B. The driver is the cheaper client by 85 us; the server does 119 us more. Even at
  LangGraph's own server cost (458 - 119 = 339 us) transition_state would be 1.15x at c = 1,
  short of the 1.2x target.
- **The driver's own cost, profiled** (changed, python/actae/client.py, _runtime.py). Client
  CPU per claim+complete (time.process_time over interleaved rounds, section 2b): bare
  psycopg 3 columns about 185-210 us, whole row 250-270 us, SyncActaeClient 425 us before.
  cProfile (with process time) and isolated timings put pydantic validation of the 24-field
  row at about 4.5 us per row (`model_construct` was slower, 10 us: not a cost worth
  removing) and a pool checkout at 7 us; the rest was the `pool.connection()` context (it
  also runs the connection's own context manager: a commit call through psycopg's lock and
  wait loop, no round trip, even on an autocommit connection), the `dict_row` factory
  decoding every column name on every call, and reading 24 columns instead of 3. Calls now
  take a pooled connection with getconn/putconn (the transactional context only for a
  caller's non-autocommit pool) and read tuple rows turned into dicts with column names
  cached per statement: 425 -> about 320 us per cycle, 0.77x -> 0.91x of bare psycopg (3
  columns) in the same rounds on a quiet moment. Named-argument SQL costs nothing measurable
  (psycopg caches the conversion; statements are prepared after 5 uses either way). The
  remaining gap is the whole row: 24 columns loaded (5 timestamps, 2 jsonb) against 3.
- **run_tool started a thread per call** (changed, python/actae/_runtime.py): thread start,
  context copy and join cost about 90 us of client CPU per call beyond the two database
  calls. Sync tools now run on reused daemon worker threads (a new one only when none is
  idle, at most 8 kept idle; a stopped tool keeps its thread).
- **A pool checkout per call** (changed, python/actae/_pool.py; measured 2026-12-03). Between
  statements, psycopg_pool's getconn + putconn cost 11-14 us of client CPU per call (a loop of
  getconn, `select 1`, putconn: 47-51 us against 37 us on a held connection), though 3.7 us
  when timed alone. The pool a client opens for itself now parks the connection last given
  back and hands it to the next call (a lock and two attribute swaps): 1.4 us alone, about
  4 us between statements. A caller waiting in the pool is served through it, a connection
  in a transaction or broken is never parked, and the parked one goes back through the
  pool's checks at least every 5 s (tests/python/integration/test_parking_pool.py, whose
  pool-of-one test fails with PoolTimeout when the waiting caller is not served). Section 2b
  of this run shows the result; an interleaved driver.py run on a loaded machine before this
  one read SyncActaeClient / bare psycopg (whole row) 0.93x (0.84x in the last report).
- **run_tool's remaining cost, profiled** (2026-12-03): the plan without the database costs
  about 44 us of wall time per owned call, 27 of them the hand-off of the tool to a worker
  thread and back; a replay costs nothing measurable over the claim. Running a sync tool in
  the caller's thread saved about 20 us of client CPU in an A/B, but it would change what a
  stopped tool means (today a cancelled or lost tool is abandoned and run_tool returns at
  once), so the thread stays. Under asyncio the cost is the tool's task, its waiter and its
  heartbeat timer.
- **Parallel tool calls of the frameworks** (changed, python/actae/_coalesce.py): claims of
  one channel that reach ActaeClient in the same loop rounds go as one claim_executions,
  their completions as one complete_executions (a batch that raises is sent again element by
  element). Section 7's `async driver: run_tool x N, gathered` counts 2 commits per 8 calls;
  LangGraph's ToolNode, Pydantic AI and the OpenAI Agents SDK batch this way
  (tests/python/integration/test_coalesce.py checks the rows' shared transaction).
- **transition_state's argument checks** (changed, sql/21_events.sql): inline, as in
  claim_execution; the helpers (each a PL/pgSQL call) run only on failure, `_check_json`
  only for a JSON value large or compressed enough to need its size or depth looked at.
  Same errors in the same order (pgTAP). The A/B on this shared machine was within noise.
- **WAL per step after a checkpoint** (changed, migration 0015; dissected 2026-12-03):
  execution ids were random UUIDs, so every claim inserted into a random leaf of the
  execution_id index, and the first change to a page after a checkpoint writes the whole
  page to WAL. Ids are now time-ordered (`actae._uuid7()`, UUIDv7 layout, generated in SQL);
  claim tokens stay random (they are secrets). Section 5 measures four windows per level; the
  target is on *steps of runs* (every run a new channel, keys `step-1` .. `step-20`: what an
  agent writes), the random-key windows stay as they were. Where the full-page images at
  1 M executions come from (the scale group's sequence on a scratch server: claim+complete
  runs at c = 1/8/32, 1 M bulk rows, VACUUM ANALYZE, CHECKPOINT; `pg_waldump -b` over 1 000
  steps, images counted per relfilenode):
  - random keys, time-ordered ids, as the first window after VACUUM (the order of the
    earlier reports): 9 819 B and 1.16 FPI per step; of 1 159 images 1 086 are heap pages
    of `actae.executions`, 70 primary-key leaves, 3 the execution_id index; 511 of the
    1 000 completions were not HOT (a Heap/UPDATE with its own image and new index entries).
  - random ids next: 6 936 B, 1.05 FPI: 955 in the execution_id index, 73 primary key,
    25 heap. Steps of runs after those two: 954 B, 0.010 FPI (3 id index, 2 primary key,
    4 pages of `actae.channels` and its indexes, 1 heap). Steps of runs as the first
    window after VACUUM: 7 921 B, 0.89 FPI (882 heap, 9 elsewhere); in the group itself
    7 730 B / 0.87, then 975 B / 0.016 at the later checkpoint.
  So primary-key leaves of the random-key channels cost about 0.07 images per step, the
  execution_id index 0.003 with time-ordered ids (0.95 with random ones, what 0015 fixed),
  and the rest is heap pages chosen by the free-space map. complete_execution updates the
  row its claim inserted moments before; the claim-state version dies, so every page the
  claim+complete runs wrote keeps about one claim-sized hole, which VACUUM records in the
  free-space map. The next claims take those holes in block order (heap blocks 0 .. 1 251
  one after the other in the dump): one page per insert and, the page now full, another
  for its completion, each an 8 KB image.
  The walk ends when the holes are used up (the later-checkpoint row). Not a bench
  artefact: autovacuum records the same holes in any ledger whose rows are claimed then
  completed, and the first claims after each vacuum walk back through the pages written
  since the one before: about one image per page of completed rows (29 rows a page here),
  once per vacuum cycle. Cycles of steps of runs on a fresh scratch server (5 000 steps
  after a CHECKPOINT, every second cycle with a VACUUM before it): 826 and 874 B per step
  (0.002-0.008 FPI) without the VACUUM, 1 116 and 1 552 B (0.037 and 0.090 FPI: 452 images
  for the 10 000 steps written since the previous VACUUM) with it.
  - fillfactor does not remove it (tried on the scratch server, not in migrations/):
    `alter table actae.executions set (fillfactor = 90)` from the start gives 1 491 B /
    0.153 FPI in the first window after VACUUM at 1 M (7 730 / 0.868 without), every
    completion HOT, 0 executions unchanged (802 vs 822 B: appends go to new pages, which
    need no image), a table 14 % larger (39 370 vs 34 646 pages); but 1 520 B / 0.158 at
    the later checkpoint (975 without): pages stop taking inserts at 90 % with the dead
    claim versions still in them, so VACUUM leaves some 2 260 pages about 45 % free, 5-7
    steps each. 95 gives 0.21 images per step in three windows in a row, 98 behaves like
    100 (300 k rows), and the VACUUM cycles above with 90 give 1 090 and 1 646 B per step
    (811 and 814 without VACUUM). The images per vacuum cycle stay about one per page
    written; only their spread changes. Meeting 1 KB in the first window after a VACUUM
    needs claims that do not reuse the completed pages, e.g. completions that do not leave
    a dead version on the claim's page (a separate insert-only completion record) or
    time-partitioned executions (neither tried), both schema changes. An earlier probe
    with fillfactor 80 saw no difference because it had no VACUUM before its window.
- **list_events near the tail of a long channel** (changed, sql/21_events.sql): when the
  planner expected few rows after `after_cursor` it picked a bitmap index scan and sorted
  every remaining row instead of reading one page in index order (a page at cursor 99 000 of
  100 000 took 0.7-0.8 ms vs 0.25 ms elsewhere). `list_events` now runs with bitmap scans
  off, so every page is an ordered primary-key range scan.
- **Changed on 2026-12-05** (each an A/B on one scratch server, interleaved rounds, before
  this run; the run above measures all of them together):
  - The driver sends every array argument in binary (python/actae/calls.py). psycopg's
    text form quoted and escaped each element with a regular expression, most of what a
    batch of 8 JSON values cost the client. batch.py, 3 rounds: driver batch 5 494 -> 5 982
    calls/s (3.90x -> 4.34x the single path), run_tools 4 911 -> 5 285.
  - complete_executions completes each element by (execution_id, channel_id) with generic
    plans instead of one UPDATE from unnest planned on every call (pg_stat_statements over
    1 000 batches of 8: 497 -> 238 us per call).
  - claim_run runs with generic plans (not on Citus). Its page query's optional filters
    ("argument is null or ...") made every custom plan look cheaper, so each statement was
    planned anew on every call: 300 -> 237 us of backend CPU per claim.
  - actae.runs' state machine is one CHECK constraint calling a PL/pgSQL function
    (migration 0019) instead of eleven: PostgreSQL rebuilds each CHECK constraint from its
    stored text in every writing statement (about 40 us per run write for the eleven).
    claim_run 246 -> 224 us, complete_run 186 -> 167 us of backend CPU.
  - The worker's claim brings the run's prefix: claim_run and list_completed in one
    statement (`claim_run_with_completed`), one round trip instead of two. 1 500 claims of
    runs with 5 recorded steps: about 830 -> 740 us per claim and prefix.
  - claim_execution decides the common replay (own completed row, same tool, no dedup
    fields, equal params) in one test before computing any fingerprint: 47.1 -> 44.0 us of
    backend CPU, 8 999 -> 9 430 replays/s.
  The report of that pass (21:52 UTC, on this Intel Xeon; the one of 2026-12-03 ran on an
  AMD EPYC, so absolute numbers do not compare across the two) met 29 targets.
- **Changed on 2026-12-05, second pass** (each an A/B on one scratch server, interleaved
  rounds; the report of that pass, 2026-12-06 00:30 UTC, measured them together):
  - The worker claims a run for every free slot in one call: `actae.claim_runs(queue,
    worker, max_runs, agents, lease_seconds)` (new, sql/40_runs.sql: claim_run up to
    max_runs times in one transaction, AC400 outside 1..1000) with each run's first
    list_completed page (`claim_runs_with_completed`). The claim loop used to send one
    claim per free slot, each waiting for its own commit before the next. Runs resume x8,
    5 interleaved rounds on a durable server: 945 runs/s against Absurd's 941 (0.87x in the
    previous report).
  - A finished run hands its slot to the next due run in the statement that completes it
    (`complete_run_and_claim`: complete_run, then claim_runs for one run in the same
    transaction), so a busy worker commits once per run instead of twice: 1 043 against
    988 runs/s completing and claiming apart (Absurd 1 002 in the same rounds).
  - ActaeClient sends a claim or completion that nothing could join at once, instead of
    after a loop round: a claim when no other callback is ready on the loop, a completion
    also when the client drives no other plan. Async run_tool 0.767 -> 0.799x bare async
    psycopg, 7 rounds. A batch's leader also stops waiting once nothing else is ready after a
    round: 225 -> 205 us of wall time per gathered call with commits unflushed, the same
    within noise on a durable server.
  - The clients take `min_size` (connections opened in open()).
  - How the numbers are taken: the runs group runs 1 000 runs a round, 3 rounds with the
    contenders taking turns (the previous report: one shot of 300 runs per cell, 0.3 s at
    x8, a sixth of it the worker's start: each new backend compiles the functions on first
    use, claim_run 3 ms, list_completed 1.7, complete_run 1 cold against 0.2 / 0.5 / 0.3
    warm); Actae's worker client opens its connections before the timer, as Absurd's one
    connection is. Section 2b's run_tool baselines send the statements run_tool sends (whole
    row) for both clients; the sync one read 3 columns before (shown beside as context).
  That report met 29 targets: against the one before, runs resume x8 0.87x -> 1.40x Absurd
  (every runs row met), gathered async run_tool 3.62x -> 4.46x. Its machine was busier than
  the one before (the same bare primary-key read cost 40.6 us of backend CPU against 33.9),
  and rows no change touched moved with it: SyncActaeClient claim+complete 0.91x -> 0.87x of
  bare psycopg, the psycopg batch 4.50x -> 4.00x, 1 KB transitions at c = 32 1.22x -> 1.16x.
- **Changed on 2026-12-06** (first measured by the run of 02:55-03:44 UTC; this run
  measures them too):
  - record_event, list_completed, start_run and complete_run check their arguments in one
    inline condition, as claim_execution and transition_state already did; the helpers run
    (in the same order, for the documented error) only when it fails. Backend CPU per call,
    synchronous_commit off, both versions in one scratch schema, each order 11 rounds:
    record_event 152 -> 133 and 142 -> 136 us; list_completed of 5 keys 80 -> 75 us (the old
    copy owned by the superuser, a bias in its favour: see the next item); start_run within
    noise.
  - How to A/B a function: a copy created by the superuser skips the table privilege checks
    the owner role's functions pay (SECURITY DEFINER runs as the function's owner), and the
    first contender of each round ran a few us slower here; both biases together made an
    inline copy of _append in transition_state look 17 us cheaper (167 -> 150 us). With both
    versions owned alike and each order measured, it saved 0-9 us of 156, and was not kept.
  - Fixed after a review of the code (tests for each; no row of this report is about
    them): heartbeat_run, complete_run and fail_run check the run's tenant (one more
    primary-key read per call: they accepted another tenant's login holding a leaked
    token); claim_execution's replay shortcut also compares the params' text (jsonb
    equality called 1.0 and 1.00 equal where the fingerprint does not; replay CPU unchanged
    within noise) and the worker's prefetch tells JSON types apart (true is not 1);
    list_completed picks a fork's nearest ancestor row before applying live policies;
    claim_executions names a null element's error; the watch-cap lock has its own class;
    a cancelled run_tools caller stops every tool of its batch (only the one it waited on
    stopped), and a cancellation that cannot be recorded no longer loses the other
    elements' results; past `shutdown_grace` the worker cancels the agents still running,
    not the runs recording their outcome (a completion cut off after its commit lost its
    count and, with `complete_run_and_claim`, left its claimed run leased but unstarted);
    the coalescer copies the loop's ready queue before reading it (another thread's
    `call_soon_threadsafe` could raise "deque mutated during iteration").
  - Section 2b takes 9 rounds of 1 200 operations per contender (7 of 400 before: rounds
    of about 0.2 s, short enough for one burst on this shared machine to move a ratio by
    0.05).
  The run of 02:55 ran on a busier machine than the one before it (the bare primary-key
  read cost 63.5 us of backend CPU against 40.6) and met 26 targets against 29.
- **Changed on 2026-12-06, second pass** (fixes after three reviews of the code, each with a
  test; this run measures the code with them):
  - complete_execution and complete_executions test the isolation level inline and refuse
    any but READ COMMITTED (0A000): about 0.15 us per call (200 000 evaluations in PL/pgSQL
    took 36 ms against 7 ms for an integer comparison). Creating a channel reads its row
    once more (`_new_channel_tenant` returns an existing channel's tenant first). Queue
    notifications carry no payload. purge, cancel_execution, fork_channel and the LangGraph
    saver's delete_thread, list, fork_thread and pending-write order changed for
    correctness; none of them is on a measured path but the saver's reads (one `collate
    "C"` sort key).
  - The LangGraph saver per step, profiled (docs/bench/langgraph_saver.md has the rows; no
    target is on them): aput + aput_writes of two writes, 1 KB, synchronous_commit off,
    one connection, 5 rounds of 500 steps. The server spends 510-530 us in
    `langgraph_put` and about 600 us in `langgraph_put_writes`, against 230-300 us for
    AsyncPostgresSaver's whole step; the client spends 530-680 us against its 930-1 010.
    Actae writes each checkpoint as a hash-chained event with a state snapshot and each
    write as an event with its operation id: three events, a snapshot, three index rows and
    the channel row per step; `track_functions` gives `_append` 88 us of its own time per
    event. A set-based `langgraph_put_writes` (one INSERT per table for all the writes, a
    window query to decide which are new) cost 943 us per call against 599: its statements
    are planned on every call. Not kept.
  The run of 04:56-05:38 UTC met 28 targets (26 in the run of 02:55): the driver rows moved
  above 0.9x (0.91x, 0.92x) and run_tools to 4.70x, the batch rows of psycopg and the driver
  just below 4x (3.97x, 3.95x); the transitions rows fell (0.72-1.12x against 0.73-1.09x) on
  a machine whose bare primary-key read cost 48 us of backend CPU.
- **Changed on 2026-12-06, third pass** (A/B runs on the development server, interleaved
  rounds; this run measures them together):
  - run_tool under ActaeClient: an async tool's first step runs in the loop round before
    run_tool first waits for it (`asyncio.sleep(0)`: its task was scheduled just before), so
    a tool that finishes there is read without a waiter future, a timer and the loop round
    its wake-up takes; the tool's task returns its outcome instead of raising it, so it needs
    no done callbacks (each one a round of its own); ToolContext's stop flag is a plain
    attribute (a `threading.Event`, with its Condition, was built per call); the coalescer's
    test of the loop's ready queue skips the copy when the queue is empty. Client CPU per
    async run_tool beyond the driver's claim+complete, 7 interleaved rounds of 1 500: about
    90 -> 60 us. Section 2b of the run of 07:35-08:11: 58 us (349 against 291), and
    ActaeClient.run_tool 0.72x -> 0.81x of bare async psycopg.
  - claim_executions and complete_executions run their set paths outside the block that
    names a failing element, a subtransaction that a batch of new keys (or of current
    tokens) does not need: 657 -> 642 us of backend CPU per batch of 8 (14 interleaved
    rounds of 300, both copies owned by actae_owner), within noise on its own.
  - Fixes after five reviews of the code (each with a test that fails before it) that touch
    measured paths: the NOTIFY topic of a watched channel comes from a secret (one more
    statement per append of a watched channel; no row here watches), and a read of a
    channel outside the caller's tenants checks agent membership (the superuser rows here
    take the membership test's first branch).
  The run of 07:35-08:11 met 29 targets (28 in the run of 04:56-05:38): the batch rows of
  psycopg and the driver are above 4x (4.25x, 4.29x), 1 KB transitions at c = 32 above 1.2x (1.28x);
  SyncActaeClient claim+complete fell below 0.9x (0.86x; its path did not change, and the
  bare rows it is divided by moved more than it did between the two runs), the gathered
  async run_tool batch rose to 3.85x.
- **Changed on 2026-12-06, fourth pass** (A/B runs on the development server; the run of
  10:06-10:43 UTC measured them together):
  - The driver decodes JSON results with `pydantic_core.from_json` (`actae._json.loads`:
    json.loads's values; json.loads itself for what that parser refuses, such as nesting
    deeper than 200 levels), about 10x faster than json.loads on the small objects of a
    tool call. Client CPU per SyncActaeClient claim+complete, one process, interleaved
    rounds (12 of 800): 172.6 -> 160.9 us; section 2b of two A/B runs of the driver bench:
    175-188 -> 159-162 us. The bare psycopg rows keep psycopg's default (json.loads), as a
    bare psycopg user has it.
  - Driver cursors are plain psycopg cursors with tuple rows and the driver's own JSON
    loaders, whatever the caller's connection is set up with (a `dict_row` connection, a
    RawCursor factory or a non-ISO DateStyle broke calls; docs/python.md): two loader
    registrations per new cursor (about 2 us; the reused cursor of a pooled connection
    registers them once). Claims that take ownership test the isolation level (one
    `current_setting` per new key or reclaim; a replay is untouched); the batches test
    each array's lower bound inline.
  - Measured and not kept: `transition_state` with the channel's lock and update folded
    into one `UPDATE ... RETURNING` and its two inserts into one statement cost 118-119
    against 137 us of backend CPU per 1 KB transition (10 interleaved rounds of 1 000,
    synchronous_commit off, both copies owned by actae_owner), but the hash chain computed
    in that UPDATE calls STABLE functions (`convert_to`, `text || bigint`) on the row's
    columns, which Citus refuses in an UPDATE of a distributed table (done in the seventh
    pass, with the link computed by an IMMUTABLE function). `claim_execution`
    reading the channel inside its INSERT (`INSERT ... SELECT` from actae.channels) cost
    113 against 118 us per new key (12 rounds of 800): within noise.
  - What Actae's semantics cost a claim+complete on the server (backend CPU, 9 interleaved
    rounds of 800, synchronous_commit off): the limit's INSERT + UPDATE on
    actae.executions 98 us; the same two statements inside two SECURITY DEFINER PL/pgSQL
    functions with a pinned search_path that return the execution row, nothing else (the
    thinnest shape SPEC allows), 146 us; `claim_execution` + `complete_execution` 229 us
    (the replay-first probe, the channel read for tenancy and forks, the fingerprint, the
    completion's clock guard and read). At 8 and 32 clients the two cores are busy, so
    the rate follows these costs: the pgbench rows' 0.58x and 0.56x, where even the
    thinnest pair would spend 1.49x the limit's backend CPU.
  The run of 10:06-10:43 met 32 targets (29 in the run of 07:35): SyncActaeClient
  claim+complete was back above 0.9x of bare psycopg (0.86x -> 0.97x),
  SyncActaeClient.run_tool reached 0.85x (0.81x -> 0.86x) and a new step through the SDK
  was ahead of Absurd's at c = 1 (0.99x -> 1.04x). Client CPU per operation in section 2b
  against the run before it: SyncActaeClient 189 -> 177 us, SyncActaeClient.run_tool
  238 -> 223, ActaeClient 291 -> 273, ActaeClient.run_tool 349 -> 339, while the bare
  psycopg rows they are divided by cost 144 -> 160 and 235 -> 245 (the same code: that
  run's machine). The gathered async run_tool batch fell to 3.65x (3.85x),
  ActaeClient.run_tool stayed at 0.82x.
- **Changed on 2026-12-06, fifth pass** (this run measures them, with the fixes of three
  reviews that landed beside them: the runs' lapse count in claim_run, a lock of the thread
  mapping in the LangGraph saver's put and put_writes):
  - ActaeClient's plan driver sends a plan's database calls without a coroutine of their
    own, starts a tool with a plain function call, and does not enter the default
    Observer's `plan()` (a no-op context manager) around each run_tool. Client CPU of the
    run_tool plan itself, measured without a database (the plan driven against rows read
    once, 30 000 calls, interleaved processes): 17.6-18.7 -> 15.9-16.3 us per call; with
    a database the same work costs two to three times that (each step runs after a wait
    for the server, with cold caches), so about 5 us of the 66 us that ActaeClient.run_tool
    spends beyond ActaeClient's claim+complete in section 2b.
  - `claim_execution`'s replay test compares the params text only: the jsonb equality it
    also tested follows from equal text (jsonb prints one text per value), so it was one
    comparison more on every replay. An A/B of backend CPU per replay on the development
    server, with other work running, was within its noise (46.7 vs 46.6 us, medians of 11).
  - Where the 1 KB transition target stands at c = 1 (development server, 5 interleaved
    rounds of 500 calls, synchronous_commit on as in section 3): the thinnest SECURITY
    DEFINER function that writes what a transition must (the channel head, the event, the
    snapshot: one UPDATE and two INSERTs, no checks, no tenancy), called from bare psycopg
    with a prepared statement, made 2,418 calls/s against PostgresSaver.put's 2,567
    (0.94x); `transition_state` through bare psycopg 2,271 (0.88x), through the driver
    2,115 (0.82x). With synchronous_commit off, backend CPU per call: `transition_state`
    127 us, put 64 us; client CPU: the driver 58 us, LangGraph's put 122 us.
  The run of 12:36-13:11 met 31 targets (32 in the run of 10:06-10:43): the gathered async
  run_tool batch reached 4x (3.65x -> 4.22x); SyncActaeClient.run_tool fell back under 0.85x
  (0.86x -> 0.84x; its client CPU did not move, 223 -> 221 us, its bare baseline did, 2,232
  -> 2,267/s) and a new step through the SDK fell behind Absurd's at c = 1 (1.04x -> 0.99x).
  Client CPU per operation in section 2b against the run before: ActaeClient 273 -> 267 us,
  ActaeClient.run_tool 339 -> 335, SyncActaeClient 177 -> 167, SyncActaeClient.run_tool 223
  -> 221; the bare async rows they are divided by 245 -> 242 and 242 -> 231.
  ActaeClient.run_tool stays at 0.83x (0.82x): the 68 us it spends beyond ActaeClient's
  claim+complete are the plan, the tool's task and its first loop round.
- **Sixth pass, 2026-12-06: the floors, measured in the run** (tests/bench/scripts/floors.sql).
  The bounds above were A/B runs on the development server. The run of 15:07-15:44 measured,
  in the same
  interleaved rounds as Actae and its peers, the thinnest SPEC-shaped contender for each
  bounded target: a claim and a completion as the limit's INSERT and UPDATE inside two
  SECURITY DEFINER PL/pgSQL functions with a pinned search_path that return the execution
  row (agents call functions, not tables: SPEC section 5), from pgbench; a transition as one
  such function that writes the channel head with its hash chain, the event and the
  snapshot into Actae's own tables (one UPDATE, two INSERTs; its chain is
  `transition_state`'s), from bare psycopg; the bare primary-key read of the replayed row in
  the peers' raw replay rounds. The targets table prints each floor beside its ratio. What
  they said in that run:
  - claim+complete against the pgbench limit: the floor is 0.91x at c = 1, 0.83x at 8 and
    0.80x at 32. With more clients than cores no SPEC-shaped pair reaches 0.85x here; at
    c = 1 the floor does, and Actae's pair runs at 0.83x of its floor (0.75x of the limit):
    the replay-first probe, the channel read for tenancy and forks, the fingerprint and the
    completion's clock guard, about 80 us of backend CPU per pair (the fourth-pass item).
  - transitions against PostgresSaver.put: 1 KB 0.92x / 1.41x / 1.56x (c = 1 / 8 / 32),
    64 KB 0.72x / 0.96x / 0.79x. The floor's client encoded its JSON with json.dumps in this
    run, slower than the driver's pydantic_core.to_json at 64 KB (the driver's row beat the
    floor at c = 1); the transitions group run again alone right after that run
    (15:45-15:50) with the driver's encoder, which the contender now uses, gave 1 KB 0.99x /
    1.35x / 1.69x and 64 KB 0.80x / 1.04x / 0.82x (Actae 0.85x / 1.04x / 1.19x and 0.83x /
    0.85x / 0.76x in that run). Either way 1 KB at c = 1 and every 64 KB row are out of
    reach; 1 KB at c = 8 is not: transition_state spends 43 us of backend CPU per 1 KB call
    more than its floor (138 vs 95 us, development server, 7 interleaved rounds): the
    channel lock read before the UPDATE, the guard, tenancy and quota checks, and the
    calls of `_lock_channel` and `_append`.
  - replay against the peers' raw replays: the bare read is 1.11x Absurd and 1.05x pgtask at
    c = 1 (below 1.2x: no replay can do better than the read it makes), 1.21x and 1.25x at
    c = 8, where Actae's replay is at 1.14x and 1.18x.
  That run met 33 targets (31 in the run of 12:36-13:11): both run_tool rows reached 0.85x
  (SyncActaeClient.run_tool 0.84x -> 0.87x, ActaeClient.run_tool 0.83x -> 0.85x; client CPU
  221 -> 211 and 335 -> 324 us, the code unchanged) and a new step through the SDK is ahead
  of Absurd's at c = 8 (0.98x -> 1.01x); the gathered async run_tool batch fell back under
  4x (4.22x -> 3.70x). These rows sit on their lines from run to run.
- **Seventh pass, 2026-12-06: an append in one UPDATE** (sql/21_events.sql; this run
  measures it). `transition_state` and `record_event` without an operation_id no longer lock
  the channel row with `SELECT ... FOR NO KEY UPDATE` before updating it: `actae._append`
  takes the channel's clock guard and moves the head with one `UPDATE ... RETURNING` whose
  WHERE clause carries the guards (expected_version, expected_cursor); a new channel or a
  stale guard matches no row and takes the full path as before (creation, AC412). The hash
  chain's next link is computed in that UPDATE by `actae._chain`, declared IMMUTABLE
  (convert_to is STABLE only because it reads the database encoding), which is what Citus
  refused in the earlier attempt ("Measured and not kept" above); `make test-citus` passes
  with it. Appends with an operation_id, LangGraph's puts and the runs'
  park events go through the same `_append` after their own checks. Measured on the
  development server, both versions owned by actae_owner, 1 KB states: backend CPU per
  transition 83.6 -> 73.4 us (synchronous_commit off, 9 rotated rounds of 2 000, in-server
  loop; the floor 51.2 us), pgbench at c = 8 with synchronous_commit on 7 420 -> 8 094
  transitions/s (the floor 10 039), WAL per append 2 223 -> 2 110 bytes (no lock record).
  Where the other 22 us over the floor go, by `perf` on the loop: about 8 us re-initialising
  PL/pgSQL's simple expressions, which it does once per transaction for every expression a
  call evaluates (about 20 on this path: the argument checks, the guards, the tenancy,
  quota, notify and wake tests), the rest spread over the second function call, the
  tenancy and quota probes and the return rows, none above 2 us. Not kept: `_append`'s body
  inlined into `transition_state` (+1 % at c = 8, within noise), the clock guard or the
  quota probe left out (each within noise at c = 8).
- **Eighth pass, 2026-12-07: LangGraph puts without blobs** (sql/50_langgraph.sql; after
  this run, so not in its numbers; no target is on the saver's rows). The saver sends every
  checkpoint with an array of blobs, empty when each channel value is plain JSON (the rows
  above), and `langgraph_put` rebuilt the checkpoint's channel values whenever the array
  was not null: one `jsonb_each`, a `jsonb_object_agg` and a `jsonb_set` over the whole
  state for an identical value. It rebuilds them only when the array has an element or a
  value refers to one. In-server loop of 1 000 puts of a 1 KB checkpoint, 4 interleaved
  rounds on the development server: 187-200 -> 163-176 us per put.
- **Targets that no implementation of the spec reaches here**, with the number that bounds
  each (ratios from this run; the costs named come from the A/B runs on a scratch server):
  - claim+complete at 0.85x the pgbench limit at c = 8 and 32: the floor, 0.82x and 0.79x
    (sixth pass).
  - claim+complete at 3x hand-written: the pgbench limit itself, bare SQL from a C client,
    is 2.08x the hand-written Python rows in this run (the table shows it beside each
    ratio).
  - Replay CPU within 1.3x of a bare primary-key read: a SECURITY DEFINER function with a
    pinned search_path that only does that read costs about 1.3x already (the floor item
    above); the replay has been at 1.36x-1.53x in the reports before this one and is 1.39x
    in this run (54 / 39 us).
  - 1 KB transitions at 1.2x LangGraph at c = 1: the floor, 0.85x in this run (0.92x and
    0.99x in the sixth pass), writes only the channel head, the event and the
    snapshot, where PostgresSaver.put writes one checkpoint row and its blobs; an event log
    beside the snapshots is what SPEC section 3 asks for (`transition_state` appends an
    event and a new state version in one transaction).
  - 64 KB transitions at 1.2x LangGraph: the floor, 0.77x / 1.08x / 1.05x in this run (c =
    1 / 8 / 32). PostgreSQL 15 parses the 64 KB of JSON a
    character at a time (`appendStringInfoChar`, about 150 us of the call's server CPU),
    where LangGraph stores an opaque msgpack blob; the WAL written is the same (68.7 vs
    70.1 KB per call, measured). SPEC 3a makes states jsonb.
  - A new step ahead of Absurd and pgtask on their raw paths: Actae commits twice per new
    step (the claim before the side effect, then the result), the peers once, after the
    step ran; at c = 1 each commit is a WAL flush.
  - A replay at 1.2x the peers' raw replays at c = 1: the floor, the bare primary-key read
    of the replayed row, is 1.04x Absurd and 1.09x pgtask in the same rounds of this run
    (1.11x and 1.05x in the sixth pass): at one client the round trip, not the server's
    work, sets the rate. At c = 8 against pgtask the floor is 1.15x in this run (1.25x in
    the sixth pass), where Actae's replay is at 1.19x; against Absurd Actae's is at 1.22x.
- **On the line**: SyncActaeClient.run_tool at 0.85x bare psycopg: 0.82x in this run (0.86x,
  0.84x, 0.87x in the three runs before, the same code). A sync tool runs in a worker
  thread, so run_tool can return at once when the execution is cancelled or its lease lost
  even if the tool ignores `ctx.should_stop()`; handing a tool that returns at once to that
  thread and back costs 49-53 us of client CPU in a tight loop, and running it in the
  caller's thread saved 10-40 us per run_tool in an interleaved A/B (2026-12-06), which
  would give that guarantee up.
- **Not measured, and why**: DBOS and LangGraph are Python libraries, so they have no C
  (pgbench) row; the apples-to-apples comparison with them is the Python rows. DBOS records a
  step after it ran and has no claim, lease or fence, so "claim+complete" compares the cost of
  making a tool call durable, not identical guarantees. LangGraph has no tool-call ledger (no
  claim/replay row) and its fork is a checkpoint lookup plus one new checkpoint, so its fork
  row is a latency reference, not a prefix copy. LangGraph's graph runtime is not measured
  (the checkpointer is called directly, its cheapest path). The DBOS 10 000/100 000-step
  workflows and LangGraph 10 000/100 000-checkpoint threads are bulk-cloned rows (running
  them for real would take most of the time budget); what their forks read and copy is the
  same either way. Fork latency is reported at one client only.
- **Python vs C clients**: the Python rows include the client's own CPU on the same two
  cores as the server; at c=32 the 32 client processes compete with the server, which is why
  every Python contender falls further behind pgbench as concurrency grows.
"""


PEER_PATHS = """\
One durable step, new and replayed, on Actae and the Postgres-native peers Absurd
(`absurd-sdk` + `absurdctl`) and pgtask (`pgtask`), all on one server in their own databases
(tests/bench/peer_steps.py). A *new step* makes one step's result durable;
a *replay* reads a completed step back. Raw paths are the statements each SDK sends,
prepared, one transaction per call, from one process per client:

- **Actae raw**: new = `actae.claim_execution` + `actae.complete_execution` (two commits: the
  claim is recorded before the side effect, so a crash mid-call is visible and a stale worker
  is fenced); replay = `actae.claim_execution` of a completed key.
- **Absurd raw**: new = `absurd.set_task_checkpoint_state(queue, task, step, state, run,
  null)` on a claimed task: its cheapest step write, one commit, written after the step ran;
  replay = `absurd.get_task_checkpoint_state(queue, task, step)`.
- **pgtask raw**: new = `pgtask.commit_checkpoint(task, attempt, lease_token, step, 0,
  value)` on a claimed task (one commit, after the step ran); replay =
  `pgtask.get_checkpoint(task, 1, step, 0)`.
- **bare PK read (floor)**, raw replay only: `select e.* from actae.executions` of the
  completed row the Actae replay returns, prepared, nothing else: the least any replay of a
  stored step reads, measured in the same rounds.

SDK paths: **Actae** `SyncActaeClient.run_tool` (new key: claim, call, complete; completed
key: the stored result, the tool not called). **Absurd** `ctx.step` inside a real task
handler run by its worker: new = a lookup (miss) + `set_task_checkpoint_state`; replay = the
SDK's own lookup of a recorded step, its per-context cache entry cleared first (a resumed
Absurd run instead reads all its checkpoints in one query when claimed, as Actae's worker
prefetch does, section 8). **pgtask** `task.step` inside a real handler: new =
`get_checkpoint` (miss) + `commit_checkpoint`; replay = `get_checkpoint` of a recorded step
(the SDK reads every step this way). SDK step times are taken inside the handler, one task
per client stepping back to back. Absurd keeps a queue's steps in the queue's own tables:
the raw clients share one queue, the SDK clients have one queue each (each worker runs its
own task); pgtask keeps every queue in the same tables.
"""


def _peers_section(results: dict[str, Any]) -> list[str]:
    peers = results.get("peers")
    if not peers:
        return []
    rounds = peers.get("rounds", {})
    lines = ["## 6. One step vs Absurd and pgtask", "", PEER_PATHS,
             f"Each (case, path, concurrency): the systems alternate round after round, "
             f"{peers.get('warmup_s')} s warm-up then {peers.get('duration_s')} s measured per "
             "run; the table shows the median round ("
             + ", ".join(f"c={c}: {n} round{'s' if n > 1 else ''}" for c, n in rounds.items())
             + ("; of 2 rounds, the faster" if 2 in rounds.values() else "")
             + "). A client is one process.", ""]
    if cpu := peers.get("cpu"):
        bare = _get(cpu, BARE_CPU, "cpu_us")
        lines += ["### Server CPU per call", "",
                  "Backend CPU of the server process serving one connection, read from "
                  "`/proc/<backend pid>/schedstat` before and after a timed loop (client and "
                  "server share the machine; tests/bench/backend_cpu.py), c = 1, one "
                  "transaction per call, prepared statements, paths interleaved round by "
                  "round (median). The bare primary-key read is `select e.* from "
                  "actae.executions` of the very row the Actae replay returns: the floor of a "
                  "replay. Every path connects as the server's superuser, as in the other "
                  "groups (tenant checks take their shortest path for a superuser; "
                  "tests/bench/tenant_overhead.py measures a tenant login).", "",
                  "| path | backend CPU µs/call | / bare PK read | calls/s (c=1) |",
                  "|---|---:|---:|---:|"]
        for name, r in cpu.items():
            lines.append(f"| {name} | {_fmt(r['cpu_us'], 1)} | {_ratio(r['cpu_us'], bare)} "
                         f"| {_fmt(r['ops_per_s'])} |")
        lines.append("")
    names = {"actae": "Actae", "absurd": "Absurd", "pgtask": "pgtask", "floor": FLOOR_REPLAY}
    for case, title in (("new", "New step"), ("replay", "Replay")):
        for path in ("raw", "sdk"):
            block = _get(peers, "steps", case, path)
            if not block:
                continue
            renamed = {names.get(k, k): v for k, v in block.items()}
            lines += [f"### {title}, {'raw SQL' if path == 'raw' else 'SDK'} paths", "",
                      *_throughput_table(renamed, "steps"), "",
                      *_ratio_rows(renamed, [(f"{who} / {p}", who, p)
                                             for who in ("Actae", FLOOR_REPLAY)
                                             if who in renamed
                                             for p in ("Absurd", "pgtask")]), ""]
    return lines


def _batch_section(results: dict[str, Any]) -> list[str]:
    batch = results.get("batch")
    if not batch:
        return []
    n = batch.get("n")
    lines = ["## 7. Parallel tool calls in one round trip", "",
             f"N = {n} tool calls as one `actae.claim_executions` + one "
             "`actae.complete_executions` (two commits for the N) against N "
             "`claim_execution` + `complete_execution` pairs (2N commits), one client, "
             "rounds interleaved (tests/bench/batch.py). Throughput counts tool calls made "
             "durable per second (median round). Commits are counted, not assumed: the "
             "`COMMIT` records the WAL holds (`pg_walinspect`) between the LSNs before and "
             "after 20 batches (or 20 × N single calls) on this group's own server, per "
             "N calls.", "",
             "| contender | calls/s (median) | rounds | commits per N calls |",
             "|---|---:|---|---:|"]
    for name, value in batch.get("median", {}).items():
        commits = _get(batch, "commits", name)
        lines.append(f"| {name} | {_fmt(value)} | "
                     + ", ".join(_fmt(v) for v in batch["rounds"][name])
                     + f" | {'—' if commits is None else f'{commits:g}'} |")
    lines += ["", "Batch / single per-call throughput: " + ", ".join(
        f"{path} {ratio:.2f}×" for path, ratio in batch.get("ratios", {}).items()) + ".", ""]
    return lines


def _resume_section(results: dict[str, Any]) -> list[str]:
    res = results.get("resume")
    if not res:
        return []
    lines = ["## 8. Resume of a run whose steps are all recorded", "",
             f"One run of {res.get('steps')} recorded steps is started and one worker "
             "(concurrency 1) claims it and replays every step; timed from `start_run` to the "
             "run completed (tests/bench/resume.py). Prefetch: the worker reads every "
             "completed execution the channel sees in one `list_completed` call and replays "
             "from memory; step by step: one claim round trip per step. 'fork' resumes a "
             "fork that inherits every step from its parent. "
             f"{res.get('repeats')} samples per mode, modes interleaved.", "",
             "| mode | p50 ms | best ms |", "|---|---:|---:|"]
    for mode, r in res.get("modes", {}).items():
        lines.append(f"| {mode} | {_fmt(r['p50_ms'], 1)} | {_fmt(r['best_ms'], 1)} |")
    return [*lines, ""]


def _whole_run(results: dict[str, Any]) -> str:
    """The whole run's wall clock, and which groups come from an earlier run (--only)."""
    meta = results.get("meta", {})
    text = f"Whole run: {_fmt(meta.get('total_seconds', 0) / 60, 1)} min (wall clock"
    this_run = meta.get("groups")
    earlier = [g for g in results.get("seconds", {}) if this_run and g not in this_run]
    if not earlier:
        return text + ", every group measured in this run)."
    when = results.get("measured", {})
    return (text + f" of groups {', '.join(this_run)}; "
            + ", ".join(f"{g} measured {when.get(g, 'earlier')}" for g in earlier) + ").")


def write(results: dict[str, Any], notes: str | None = None,
          out_dir: Path | None = None) -> None:
    """Render the report into docs/ (out_dir: BENCHMARKS.md and the plots there instead)."""
    global CONC
    CONC = tuple(str(c) for c in results.get("meta", {}).get("concurrency", CONC))
    doc, png = (out_dir / "BENCHMARKS.md", out_dir) if out_dir else (DOC, PNG)
    meta = results.get("meta", {})
    plots = _plot(results, png)
    lines: list[str] = [
        "# Actae benchmarks",
        "",
        "Generated by `make bench` (tests/bench/run.py, rendered by tests/bench/report.py) — "
        "do not edit by hand; the measured numbers are in docs/bench/results.json.",
        "",
        f"Measured {meta.get('date', '?')} on {meta.get('machine', {}).get('cpus', '?')} CPUs "
        f"({meta.get('machine', {}).get('cpu', '?')}), "
        f"{meta.get('machine', {}).get('postgres', '?')}. Every group runs on its own "
        "throwaway server, started with the same settings for every contender, client and "
        "server on the same machine. Warm-up "
        f"{meta.get('warmup_s')} s, then {meta.get('duration_s')} s measured per run; "
        f"claim+complete is the median of {meta.get('rounds')} interleaved rounds. "
        + _whole_run(results),
        "",
        "Server settings: " + ", ".join(f"`{k}={v}`" for k, v in
                                        meta.get("settings", {}).items()) + ".",
        "",
    ]
    if meta.get("quick"):
        lines += ["**Quick smoke run (`--quick`): durations and sizes are reduced; do not "
                  "quote these numbers.**", ""]
    if notes:
        lines += [notes, ""]
    lines += _targets(results)

    claim = _get(results, "claim", "claim")
    if claim:
        lines += [
            "## 1. Claim + complete: the cost of making one tool call durable",
            "",
            "One operation = claim a new key, then complete it: two commits, each fsynced. "
            "Each client works in its own channel (one agent run per client). "
            "pgbench rows are C clients; Python rows are one process per client "
            "(psycopg 3), competing with the server for the same CPUs.",
            "",
            "- **pgbench: bare SQL (limit)** — an `INSERT … ON CONFLICT DO NOTHING` and an "
            "`UPDATE` by key on a table shaped exactly like `actae.executions` (same columns "
            "and indexes): the minimum the two commits need.",
            "- **pgbench: Actae functions** — `actae.claim_execution` + "
            "`actae.complete_execution` from the same C client: the apples-to-apples ratio "
            "against the limit.",
            f"- **{FLOOR_PGBENCH}** — the limit's two statements inside two SECURITY "
            "DEFINER PL/pgSQL functions with a pinned search_path that return the execution "
            "row and do nothing else (tests/bench/scripts/floors.sql): the thinnest shape "
            "SPEC allows (agents call functions, not tables), so the most any "
            "implementation of claim_execution + complete_execution could reach here.",
            "- **Python: Actae via psycopg** — the same two calls as prepared statements.",
            "- **Python: Actae driver** — `SyncActaeClient.claim_execution` + "
            "`complete_execution` (pydantic models, pool of one).",
            "- **Python: hand-written** — the same semantics (fingerprint, lease, fence, "
            "token, replay) as a careful user writes them: `BEGIN; SELECT … FOR UPDATE; "
            "INSERT …; COMMIT` then `BEGIN; SELECT … FOR UPDATE; UPDATE …; COMMIT`.",
            "- **Python: DBOS step in workflow** — workflows of 10 `@DBOS.step()` calls; the "
            "latency is each step's, the throughput counts steps and includes each "
            "workflow's start and end. DBOS checkpoints a step *after* it runs (one commit "
            "per step), so it records no claim before the side effect: it cannot say "
            "'in progress elsewhere' or fence a stale worker the way a claim does.",
            "- **Python: DBOS workflow per call** — one workflow with one step per tool call.",
            "",
            *_throughput_table(claim, "ops"),
            "",
            *_ratio_rows(claim, [
                ("Actae (pgbench) / limit", ACTAE_PGBENCH, LIMIT),
                ("floor (pgbench) / limit", FLOOR_PGBENCH, LIMIT),
                ("Actae (pgbench) / floor", ACTAE_PGBENCH, FLOOR_PGBENCH),
                ("Actae via psycopg / hand-written", ACTAE_RAW, HAND),
                ("Actae driver / hand-written", ACTAE_DRIVER, HAND),
                ("Actae driver / Actae via psycopg (driver overhead)", ACTAE_DRIVER, ACTAE_RAW),
                ("Actae via psycopg / DBOS step in workflow", ACTAE_RAW, DBOS_STEPS),
                ("Actae driver / DBOS step in workflow", ACTAE_DRIVER, DBOS_STEPS),
                ("Actae driver / DBOS workflow per call", ACTAE_DRIVER, DBOS_WF),
                ("Actae via psycopg / limit (Python vs C client)", ACTAE_RAW, LIMIT),
            ]),
            "",
        ]
        rounds = [f"{name} c={c}: {r['rounds']}" for name, per_c in claim.items()
                  for c, r in per_c.items() if len(r.get("rounds", [])) > 1]
        if rounds:
            lines += ["<details><summary>Throughput of every round</summary>", "",
                      *[f"- {r}" for r in rounds], "", "</details>", ""]
        if "claim_complete.png" in plots:
            lines += ["![claim + complete](bench/claim_complete.png)", ""]
    replay = _get(results, "claim", "replay")
    if replay:
        lines += [
            "## 2. Replay: claim of a completed key",
            "",
            "After a crash every already-done tool call is a replay. The limit is a primary-key "
            "read of the stored result; DBOS's equivalent is starting a workflow whose ID "
            "already completed (it returns the recorded output without running it).",
            "",
            *_throughput_table(replay, "ops"),
            "",
            *_ratio_rows(replay, [
                ("Actae (pgbench) / limit", ACTAE_PGBENCH, LIMIT),
                ("Actae via psycopg / hand-written", ACTAE_RAW, HAND),
                ("Actae driver / DBOS", ACTAE_DRIVER, "Python: DBOS completed workflow"),
            ]),
            "",
        ]
        if "replay.png" in plots:
            lines += ["![replay](bench/replay.png)", ""]
    if driver := results.get("driver"):
        from driver import render

        lines += ["## 2b. The driver's own cost", "",
                  "One client, one process, contenders interleaved round after round "
                  "(tests/bench/driver.py): claim + complete through bare psycopg (one "
                  "autocommit connection, prepared statements, tuple rows, the same calls the "
                  "driver sends; '3 columns' reads outcome, id and token, 'whole row' reads "
                  "the row the driver reads; ActaeClient's baseline is the same through "
                  "psycopg's AsyncConnection) and through SyncActaeClient / ActaeClient (pool "
                  "of one, typed models); run_tool (the tool returns at once) against claim, "
                  "the same call, complete by hand with the statements run_tool sends (whole "
                  "row; the 3-column reading is shown as context). "
                  "Client CPU is `time.process_time()` per operation: the driver's own work. "
                  "This group's server runs with `synchronous_commit=off` (for every contender "
                  "alike): a WAL flush per commit on this shared disk swings 10× between "
                  "rounds and would hide the client's cost, which is what is measured here.",
                  "", *render(driver), ""]
    transitions = results.get("transitions")
    if transitions:
        lines += [
            "## 3. State transitions vs LangGraph's PostgresSaver",
            "",
            "Actae: `transition_state` through the driver — one event plus state version + 1, "
            "guarded by expected_version, one transaction. LangGraph: `PostgresSaver.put` "
            "called directly (no graph runtime, the checkpointer's cheapest path) with one "
            "checkpoint per step holding the same state, its blob written with the "
            "checkpoint (pipelined). Both from Python, one process per client, each client "
            "its own channel / thread. The floor: one SECURITY DEFINER function that writes "
            "what a transition must (the channel head with its hash chain, the event, the "
            "snapshot: one UPDATE and two INSERTs, no checks, no guard, no tenancy; "
            "tests/bench/scripts/floors.sql) called with a prepared statement from bare "
            "psycopg: the most any implementation of SPEC section 3 could reach here.",
            "",
        ]
        for size, block in transitions.items():
            lines += [f"### State of {int(size) // 1024} KB", "",
                      *_throughput_table(block, "ops"), "",
                      *_ratio_rows(block, [("Actae / LangGraph", "Actae transition_state",
                                            "LangGraph PostgresSaver.put"),
                                           ("floor / LangGraph", FLOOR_TRANSITION,
                                            "LangGraph PostgresSaver.put")]), ""]
            file = f"transitions_{int(size) // 1024}kb.png"
            if file in plots:
                lines += [f"![transitions {size}](bench/{file})", ""]
    forks = results.get("forks")
    if forks:
        sizes = sorted({n for per_n in forks.values() for n in per_n}, key=int)
        lines += [
            "## 4. Fork time vs prefix length",
            "",
            "Actae's fork copies nothing (it stores its lineage); the source channel is "
            "bulk-loaded with real hash-chained events. 'At head' forks at the last cursor, "
            "'one before head' makes the fork look up the next event's clock; 'work only' "
            "is that fork inside a transaction that is rolled back: the fork's own work "
            "without the commit's WAL flush, which on this shared disk is most of the "
            "latency and its noise. Sizes are interleaved sample by sample. DBOS: "
            "`DBOSClient.fork_workflow(id, start_step=n)` on a workflow whose first 100 steps "
            "ran for real and whose recorded steps were cloned up to n (DBOS copies the "
            "recorded steps before start_step into the new workflow). LangGraph: fork = "
            "`get_tuple` of a past checkpoint + `put` of a new checkpoint whose parent it is "
            "(what `update_state` on a past config does) in a thread of n checkpoints (100 "
            "written by the saver, the rest cloned rows). Latency of single forks, one "
            "client.",
            "",
            "| fork | " + " | ".join(f"n={int(n):,} p50 ms | p99 ms" for n in sizes)
            + " | p50 at largest / smallest |",
            "|---|" + "---:|" * (2 * len(sizes) + 1),
        ]
        for name, per_n in forks.items():
            cells = []
            for n in sizes:
                r = per_n.get(n)
                cells += [_fmt(r["p50_ms"], 2), _fmt(r["p99_ms"], 2)] if r else ["—", "—"]
            growth = _ratio(_get(per_n, sizes[-1], "p50_ms"), _get(per_n, sizes[0], "p50_ms"))
            lines.append(f"| {name} | " + " | ".join(cells) + f" | {growth} |")
        lines.append("")
        if "forks.png" in plots:
            lines += ["![forks](bench/forks.png)", ""]
    scale = results.get("scale")
    if scale:
        lines += [
            "## 5. Scale",
            "",
            "Executions are bulk-loaded straight into `actae.executions` (generate_series, "
            "100 per channel, completed), then `VACUUM ANALYZE`. Claim+complete (new keys) "
            "and replay (claim of a random bulk-loaded key, so mostly cold index pages) are "
            "driven by pgbench. `tests/python/test_plans.py` (part of `make test`) asserts "
            "that the plans behind claim and list_events are index paths.",
            "",
            "### Claim + complete vs existing executions", "",
            "| existing executions | " + " | ".join(
                f"c={c} ops/s | p50 ms | p99 ms" for c in CONC) + " |",
            "|---|" + "---:|" * (3 * len(CONC)),
        ]
        for rows, per_c in scale.get("claim", {}).items():
            cells = _cells(per_c)
            lines.append(f"| {int(rows):,} | " + " | ".join(cells) + " |")
        if wal := scale.get("wal"):
            lines += _wal_section(wal)
        lines += ["", "### Replay of a random existing key", "",
                  "| existing executions | " + " | ".join(
                      f"c={c} ops/s | p50 ms | p99 ms" for c in CONC) + " |",
                  "|---|" + "---:|" * (3 * len(CONC))]
        for rows, per_c in scale.get("replay", {}).items():
            cells = _cells(per_c)
            lines.append(f"| {int(rows):,} | " + " | ".join(cells) + " |")
        lines += ["", "### Events listing (`list_events`, a page of 100 at a random position)",
                  "", "| events in channel | " + " | ".join(
                      f"c={c} pages/s | p50 ms | p99 ms" for c in CONC) + " |",
                  "|---|" + "---:|" * (3 * len(CONC))]
        for n, per_c in scale.get("list_events", {}).items():
            cells = _cells(per_c)
            lines.append(f"| {int(n):,} | " + " | ".join(cells) + " |")
        if full := scale.get("list_all"):
            lines += ["", f"Reading the whole channel of {full['events']:,} events in pages of "
                      f"1,000 took {full['seconds']:.2f} s."]
        lines.append("")
        if "scale.png" in plots:
            lines += ["![scale](bench/scale.png)", ""]
    lines += _peers_section(results) + _batch_section(results) + _resume_section(results)
    lines += [FINDINGS]
    if secs := results.get("seconds"):
        lines += ["Group runtimes: " + ", ".join(f"{k} {v} s" for k, v in secs.items()) + ".",
                  ""]
    doc.write_text("\n".join(lines))


if __name__ == "__main__":
    write(json.loads((PNG / "results.json").read_text()))
