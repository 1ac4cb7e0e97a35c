"""Server backend CPU per call, read from /proc/<backend pid>/schedstat (its first field:
nanoseconds on CPU so far). Client and server must share the machine. Used by the peers
group of run.py and by tenant_overhead.py.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg


def backend_cpu_ns(conn: psycopg.Connection[Any]) -> int:
    """CPU time the connection's server backend has used so far (same machine only)."""
    return int(Path(f"/proc/{conn.info.backend_pid}/schedstat").read_text().split()[0])


def rate(conn: psycopg.Connection[Any], op: Callable[[], None], seconds: float,
         warmup_ops: int = 50) -> tuple[float, float]:
    """(operations per second, backend CPU microseconds per operation) of `op`, which runs
    its statements on `conn`, over `seconds` after `warmup_ops` untimed calls."""
    for _ in range(warmup_ops):
        op()
    done, cpu, start = 0, backend_cpu_ns(conn), time.perf_counter()
    while time.perf_counter() - start < seconds:
        op()
        done += 1
    elapsed = time.perf_counter() - start
    return done / elapsed, (backend_cpu_ns(conn) - cpu) / 1000 / done
