"""The console's client: the driver's ActaeClient, with JSON results read number for number.

The driver reads a JSON number with a fraction as a float (actae._json.loads), so a page
would show 12345678901234567.25 as 1.2345678901234568e+16 and two different numbers as the
same one. The console's own client reads every number with a fraction or an exponent as a
decimal.Decimal instead, which pretty() writes back as the JSON number it is; integers stay
ints (a Decimal beyond Python's int limit, as the driver reads them). Only this client,
whose pool is the console's own, reads so: the driver's other callers are unchanged.
SyncConsoleClient is the same for the command line's console reads (actae timeline and
diff), so a terminal shows the numbers the web console shows.
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any, TypeVar

import psycopg
from psycopg import pq
from psycopg_pool import AsyncConnectionPool

from actae import _json, calls
from actae.client import ActaeClient, SyncActaeClient, json_loaders, own_pool_args

T = TypeVar("T")


def exact_loads(data: str | bytes) -> Any:
    """JSON text's value with every number exact: a number with a fraction or an exponent
    as a Decimal, an integer as an int (or a Decimal, past Python's int limit)."""
    return json.loads(data, parse_float=Decimal, parse_int=_json.int_or_decimal)


_LOADERS = json_loaders(exact_loads)


def _read_exactly(cur: psycopg.Cursor[Any] | psycopg.AsyncCursor[Any]) -> None:
    """exact_loads for the cursor's JSON results, over the driver's own loaders."""
    for oid, loader in _LOADERS[cur.format == pq.Format.BINARY]:
        cur.adapters.register_loader(oid, loader)


class ConsoleClient(ActaeClient):
    """ActaeClient whose JSON results keep every number exact (exact_loads). Each call's
    cursor gets these loaders just before it runs, over the driver's own. It takes a DSN
    only, never a pool: a pooled connection keeps its cursor (and these loaders) from one
    call to the next, so a pool shared with another client would hand that client Decimals.
    """

    def __init__(self, dsn: str, *, max_size: int = 10, min_size: int = 1,
                 timeout: float = 30.0) -> None:
        self._timeout = timeout  # how long a request waits for a free connection
        super().__init__(dsn, max_size=max_size, min_size=min_size)

    def _own_pool(self, min_size: int, max_size: int) -> AsyncConnectionPool:
        # A plain pool (no connection parked beside it: pool.check() sees every idle one,
        # which the console runs after a connection failed).
        return AsyncConnectionPool(self._dsn, min_size=min_size, max_size=max_size,
                                   **own_pool_args(aio=True), open=False,
                                   timeout=self._timeout)

    @staticmethod
    async def _execute(cur: psycopg.AsyncCursor[Any], call: calls.Call[T]) -> T:
        _read_exactly(cur)
        return await ActaeClient._execute(cur, call)


class SyncConsoleClient(SyncActaeClient):
    """ConsoleClient's blocking twin (same loaders, same rule: a DSN, never a shared pool)."""

    def __init__(self, dsn: str, *, max_size: int = 10, min_size: int = 1) -> None:
        super().__init__(dsn, max_size=max_size, min_size=min_size)

    @staticmethod
    def _execute(cur: psycopg.Cursor[Any], call: calls.Call[T]) -> T:
        _read_exactly(cur)
        return SyncActaeClient._execute(cur, call)
