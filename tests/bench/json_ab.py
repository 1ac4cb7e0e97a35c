"""SyncActaeClient.transition_state with the driver's JSON encoding (pydantic_core.to_json,
actae/_json.py) against the old one (psycopg's Jsonb, json.dumps): client CPU per call
(time.process_time) and calls/s, one client, rounds interleaved (order alternating).

`.ci/with-db.sh .venv/bin/python tests/bench/json_ab.py [--rounds 3] [--calls 400]`
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import uuid
from pathlib import Path
from typing import Any

from psycopg.types.json import Jsonb

sys.path.insert(0, str(Path(__file__).resolve().parent))

from contenders import state_of  # noqa: E402

from actae import SyncActaeClient, _json, calls  # noqa: E402

ENCODINGS: dict[str, Any] = {"json.dumps": Jsonb, "to_json": _json.jsonb}


def measure(client: SyncActaeClient, size: int, encoding: str, n: int) -> tuple[float, float]:
    """(client CPU µs per call, calls/s) for n transitions of a state of about size bytes."""
    calls.jsonb = ENCODINGS[encoding]  # type: ignore[attr-defined]  # the builders' adapter
    channel = f"json-ab-{uuid.uuid4().hex}"
    client.create_channel(channel)
    base = state_of(size, 0)
    for version in range(20):  # warm-up
        client.transition_state(channel, "step", {"step": version + 1},
                                {**base, "step": version + 1}, version)
    cpu, wall = time.process_time(), time.perf_counter()
    for version in range(20, 20 + n):
        client.transition_state(channel, "step", {"step": version + 1},
                                {**base, "step": version + 1}, version)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return cpu / n * 1e6, n / wall


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--calls", type=int, default=400)
    args = parser.parse_args()
    results: dict[tuple[int, str], list[tuple[float, float]]] = {}
    with SyncActaeClient(os.environ["ACTAE_DSN"]) as client:
        for r in range(args.rounds):
            for size in (1024, 65536):
                order = list(ENCODINGS) if r % 2 == 0 else list(reversed(ENCODINGS))
                for encoding in order:
                    got = measure(client, size, encoding, args.calls)
                    results.setdefault((size, encoding), []).append(got)
                    print(f"round {r + 1} {size // 1024:>2} KB {encoding:<10} "
                          f"{got[0]:7.0f} µs CPU/call {got[1]:7.0f} calls/s", flush=True)
    print("\nmedian of rounds    client CPU µs/call    calls/s")
    for size in (1024, 65536):
        old, new = results[(size, "json.dumps")], results[(size, "to_json")]
        cpu_old, cpu_new = (statistics.median(c for c, _ in x) for x in (old, new))
        rate_old, rate_new = (statistics.median(s for _, s in x) for x in (old, new))
        print(f"{size // 1024:>2} KB  json.dumps {cpu_old:6.0f}  to_json {cpu_new:6.0f} "
              f"({cpu_new / cpu_old:.2f}x)   {rate_old:6.0f} -> {rate_new:6.0f} "
              f"({rate_new / rate_old:.2f}x)")


if __name__ == "__main__":
    main()
