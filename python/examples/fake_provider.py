"""A fake payment provider that keeps its books in PostgreSQL (schema ``fake_provider``).

It behaves like a real payments API seen from an agent: ``charge`` has an effect (a row in
``fake_provider.effects``) and every request is counted in ``fake_provider.requests``. With
``idempotent=True`` it deduplicates on the idempotency key, as Stripe-style APIs do: a
repeated key returns the first charge instead of charging again. ``find`` answers "did the
charge with this key happen?", which is how a worker reconciles an ambiguous attempt.

Because the books live in the database, they survive a SIGKILL of the worker that called
the provider, which is exactly what the crash demo and the reliability suite need.
"""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

SCHEMA = """
create schema if not exists fake_provider;
create table if not exists fake_provider.effects (
    effect_id bigserial primary key,
    provider text not null,
    idempotency_key text not null,
    kind text not null,
    payload jsonb not null,
    created_at timestamptz not null default clock_timestamp()
);
create unique index if not exists effects_dedup_idx
    on fake_provider.effects (provider, idempotency_key) where provider = 'keyed';
create table if not exists fake_provider.requests (
    request_id bigserial primary key,
    provider text not null,
    idempotency_key text not null,
    kind text not null,
    created_at timestamptz not null default clock_timestamp()
);
"""


class FakeProvider:
    """Charges and receipts recorded in PostgreSQL. ``idempotent`` selects whether the
    provider deduplicates on the idempotency key (provider name ``keyed``) or not
    (``unkeyed``); ``namespace`` separates independent runs in one database."""

    def __init__(self, dsn: str, *, idempotent: bool = True, namespace: str = "") -> None:
        self.dsn = dsn
        self.idempotent = idempotent
        self.namespace = namespace
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute("select pg_advisory_lock(4242)")
            try:
                conn.execute(SCHEMA)
            finally:
                conn.execute("select pg_advisory_unlock(4242)")

    @property
    def provider(self) -> str:
        return "keyed" if self.idempotent else "unkeyed"

    def _key(self, idempotency_key: str) -> str:
        return f"{self.namespace}{idempotency_key}"

    def charge(self, idempotency_key: str, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        """Perform the effect (once per key when idempotent) and return the provider's record."""
        key = self._key(idempotency_key)
        with psycopg.connect(self.dsn, autocommit=True, row_factory=dict_row) as conn:
            conn.execute(
                "insert into fake_provider.requests (provider, idempotency_key, kind)"
                " values (%s, %s, %s)", (self.provider, key, kind),
            )
            row = conn.execute(
                "insert into fake_provider.effects (provider, idempotency_key, kind, payload)"
                " values (%s, %s, %s, %s) on conflict do nothing returning effect_id",
                (self.provider, key, kind, Jsonb(payload)),
            ).fetchone()
            if row is None:
                row = self._first(conn, key)
        assert row is not None
        return {"effect_id": row["effect_id"], "idempotency_key": idempotency_key, "kind": kind}

    def find(self, idempotency_key: str) -> dict[str, Any] | None:
        """The first effect recorded under this key, or None: reconcile by query."""
        key = self._key(idempotency_key)
        with psycopg.connect(self.dsn, autocommit=True, row_factory=dict_row) as conn:
            row = self._first(conn, key)
        if row is None:
            return None
        return {"effect_id": row["effect_id"], "idempotency_key": idempotency_key,
                "kind": row["kind"]}

    def _first(self, conn: psycopg.Connection[Any], key: str) -> dict[str, Any] | None:
        return conn.execute(
            "select effect_id, kind from fake_provider.effects"
            " where provider = %s and idempotency_key = %s order by effect_id limit 1",
            (self.provider, key),
        ).fetchone()

    def effects(self, idempotency_key: str | None = None) -> int:
        """How many effects happened (for one key, or for the whole namespace)."""
        return self._count("effects", idempotency_key)

    def requests(self, idempotency_key: str | None = None) -> int:
        """How many requests reached the provider (for one key, or the whole namespace)."""
        return self._count("requests", idempotency_key)

    def _count(self, table: str, idempotency_key: str | None) -> int:
        pattern = self._key(idempotency_key) if idempotency_key else f"{self.namespace}%"
        with psycopg.connect(self.dsn, autocommit=True) as conn:
            row = conn.execute(
                f"select count(*) from fake_provider.{table}"
                " where provider = %s and idempotency_key like %s",
                (self.provider, pattern),
            ).fetchone()
        assert row is not None
        return int(row[0])
