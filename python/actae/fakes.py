"""Test doubles for agents built on Actae: a payment provider and a language model.

The demos (``actae demo``), Actae's own test suites and your tests import them from here::

    from actae.fakes import FakeModel, FakeProvider

They need no network and no extra dependency (psycopg only).

FakeProvider
------------
A payment provider that keeps its books in PostgreSQL (schema ``fake_provider``).

It behaves like a real payments API seen from an agent: ``charge`` has an effect (a row in
``fake_provider.effects``) and every request is counted in ``fake_provider.requests``. With
``idempotent=True`` it deduplicates on the idempotency key, as Stripe-style APIs do: a
repeated key returns the first charge instead of charging again. ``find`` answers "did the
charge with this key happen?", which is how a worker reconciles an ambiguous attempt.

Because the books live in the database, they survive a SIGKILL of the worker that called
the provider, which is exactly what the crash demo and the reliability suite need.

FakeModel
---------
A deterministic language model with a documented tokenizer (no network, no weights).

Tokenizer: a token is a maximal run of word characters (regex ``\\w+``: letters, digits,
underscore) or a single character that is neither a word character nor whitespace (regex
``[^\\w\\s]``: each punctuation mark is its own token). Whitespace is not a token.
``count_tokens("Fork at step 5, re-run the rest.") == 11``. Every token figure in the
examples is this count of the prompt (tokens in) plus this count of the completion (tokens
out), so anyone can recompute it from the stored text.

Completion: a pure function of (prompt, max_tokens). A PRNG seeded with sha256(prompt) draws
sentences of 6..12 words from the prompt's own words (runs of four or more ASCII letters,
lower-cased; "nothing" when there is none), until the next sentence drawn would exceed
max_tokens (it is not kept, so a small max_tokens can give an empty text). Same prompt,
same text, same token counts, on every machine.

``FakeModel`` counts what it actually processed (calls, tokens in, tokens out), so a run's
token bill is measured, never estimated: a step whose completion is replayed from Actae's
ledger costs nothing because the model is not called.
"""

from __future__ import annotations

import hashlib
import random
import re
import threading
from dataclasses import dataclass
from typing import Any, Literal

import psycopg
from psycopg.rows import DictRow, dict_row
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
create table if not exists fake_provider.requests (
    request_id bigserial primary key,
    provider text not null,
    idempotency_key text not null,
    kind text not null,
    created_at timestamptz not null default clock_timestamp()
);
alter table fake_provider.effects add column if not exists namespace text not null default '';
alter table fake_provider.requests add column if not exists namespace text not null default '';
drop index if exists fake_provider.effects_dedup_idx;
create unique index if not exists effects_dedup_ns_idx
    on fake_provider.effects (provider, namespace, idempotency_key) where provider = 'keyed';
"""

# True when SCHEMA's last layout is there already (it then needs no privilege to create):
# both namespace columns, and not the earlier unique index, which ignored namespaces.
_SCHEMA_READY = """
select count(*) = 2 and pg_catalog.to_regclass('fake_provider.effects_dedup_idx') is null
from pg_catalog.pg_attribute
where attname = 'namespace' and attrelid in (
    pg_catalog.to_regclass('fake_provider.effects'),
    pg_catalog.to_regclass('fake_provider.requests'))
"""


class FakeProvider:
    """Charges and receipts recorded in PostgreSQL. ``idempotent`` selects whether the
    provider deduplicates on the idempotency key (provider name ``keyed``) or not
    (``unkeyed``); ``namespace`` separates independent runs in one database: it is stored
    in its own column, and keys and namespaces are compared exactly (no pattern)."""

    def __init__(self, dsn: str, *, idempotent: bool = True, namespace: str = "") -> None:
        self.dsn = dsn
        self.idempotent = idempotent
        self.namespace = namespace
        with psycopg.connect(dsn, autocommit=True) as conn:
            ready = conn.execute(_SCHEMA_READY).fetchone()
            if ready and ready[0]:
                return
            conn.execute("select pg_advisory_lock(4242)")
            try:
                conn.execute(SCHEMA)
            finally:
                conn.execute("select pg_advisory_unlock(4242)")

    @property
    def provider(self) -> str:
        return "keyed" if self.idempotent else "unkeyed"

    def charge(self, idempotency_key: str, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        """Perform the effect (once per key when idempotent) and return the provider's record:
        for a key it has seen, the first charge's (its effect_id and kind)."""
        with psycopg.Connection[DictRow].connect(self.dsn, autocommit=True,
                                                 row_factory=dict_row) as conn:
            conn.execute(
                "insert into fake_provider.requests (provider, namespace, idempotency_key, kind)"
                " values (%s, %s, %s, %s)", (self.provider, self.namespace, idempotency_key, kind),
            )
            row = conn.execute(
                "insert into fake_provider.effects"
                " (provider, namespace, idempotency_key, kind, payload)"
                " values (%s, %s, %s, %s, %s) on conflict do nothing returning effect_id, kind",
                (self.provider, self.namespace, idempotency_key, kind, Jsonb(payload)),
            ).fetchone()
            if row is None:
                row = self._first(conn, idempotency_key)
        assert row is not None
        return {"effect_id": row["effect_id"], "idempotency_key": idempotency_key,
                "kind": row["kind"]}

    def find(self, idempotency_key: str) -> dict[str, Any] | None:
        """The first effect recorded under this key, or None: reconcile by query."""
        with psycopg.Connection[DictRow].connect(self.dsn, autocommit=True,
                                                 row_factory=dict_row) as conn:
            row = self._first(conn, idempotency_key)
        if row is None:
            return None
        return {"effect_id": row["effect_id"], "idempotency_key": idempotency_key,
                "kind": row["kind"]}

    def _first(self, conn: psycopg.Connection[Any], key: str) -> dict[str, Any] | None:
        return conn.execute(
            "select effect_id, kind from fake_provider.effects where provider = %s"
            " and namespace = %s and idempotency_key = %s order by effect_id limit 1",
            (self.provider, self.namespace, key),
        ).fetchone()

    def effects(self, idempotency_key: str | None = None) -> int:
        """How many effects happened (for one key, or for the whole namespace)."""
        return self._count("effects", idempotency_key)

    def requests(self, idempotency_key: str | None = None) -> int:
        """How many requests reached the provider (for one key, or the whole namespace)."""
        return self._count("requests", idempotency_key)

    def _count(self, table: Literal["effects", "requests"], idempotency_key: str | None) -> int:
        with psycopg.connect(self.dsn, autocommit=True) as conn:
            row = conn.execute(
                f"select count(*) from fake_provider.{table} where provider = %s"
                " and namespace = %s and (%s::text is null or idempotency_key = %s)",
                (self.provider, self.namespace, idempotency_key, idempotency_key),
            ).fetchone()
        assert row is not None
        return int(row[0])


# --- FakeModel ----------------------------------------------------------------------------

TOKEN = re.compile(r"\w+|[^\w\s]")
_WORD = re.compile(r"[A-Za-z]{4,}")


def tokenize(text: str) -> list[str]:
    """The tokens of text (see the module docstring)."""
    return TOKEN.findall(text)


def count_tokens(text: str) -> int:
    return len(tokenize(text))


@dataclass(frozen=True)
class Usage:
    calls: int
    tokens_in: int
    tokens_out: int

    @property
    def total(self) -> int:
        return self.tokens_in + self.tokens_out


class FakeModel:
    """complete(prompt, max_tokens) -> {"text", "tokens_in", "tokens_out"}; thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._calls = 0
        self._in = 0
        self._out = 0

    def complete(self, prompt: str, max_tokens: int) -> dict[str, Any]:
        text = generate(prompt, max_tokens)
        tokens_in, tokens_out = count_tokens(prompt), count_tokens(text)
        with self._lock:
            self._calls += 1
            self._in += tokens_in
            self._out += tokens_out
        return {"text": text, "tokens_in": tokens_in, "tokens_out": tokens_out}

    def usage(self) -> Usage:
        with self._lock:
            return Usage(self._calls, self._in, self._out)


def generate(prompt: str, max_tokens: int) -> str:
    """The completion of prompt: deterministic, at most max_tokens tokens (see the module
    docstring: it ends before the first sentence drawn that does not fit)."""
    seed = int.from_bytes(hashlib.sha256(prompt.encode()).digest()[:8], "big")
    rng = random.Random(seed)
    vocabulary = sorted(set(w.lower() for w in _WORD.findall(prompt))) or ["nothing"]
    sentences: list[str] = []
    used = 0
    while True:
        words = [rng.choice(vocabulary) for _ in range(rng.randint(6, 12))]
        sentence = " ".join(words).capitalize() + "."
        cost = count_tokens(sentence)
        if used + cost > max_tokens:
            break
        sentences.append(sentence)
        used += cost
    return " ".join(sentences)
