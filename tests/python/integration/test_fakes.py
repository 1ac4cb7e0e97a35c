"""FakeProvider's books, as its docstring promises them: namespaces apart, keys compared
exactly, a repeated key answered with the first charge, usable by a role that may not create
schemas once the books exist."""

from __future__ import annotations

import uuid

import psycopg
from psycopg import sql
from psycopg.conninfo import make_conninfo

from actae.fakes import FakeProvider
from tests.python.support.databases import empty_database


def test_namespaces_and_keys_are_compared_exactly(dsn: str) -> None:
    run = uuid.uuid4().hex[:8]
    ten, one = FakeProvider(dsn, namespace=f"{run}10"), FakeProvider(dsn, namespace=f"{run}1")
    ten.charge("k", "charge", {})
    assert one.effects() == 0 and one.requests() == 0 and ten.effects() == 1
    # "ab" + "c" and "a" + "bc" are two charges, not one
    first = FakeProvider(dsn, namespace=f"{run}ab").charge("c", "charge", {})
    second = FakeProvider(dsn, namespace=f"{run}a").charge("bc", "charge", {})
    assert first["effect_id"] != second["effect_id"]
    keys = FakeProvider(dsn, namespace=f"{run}/")
    keys.charge("orderX1", "charge", {})
    keys.charge(r"path\to", "charge", {})
    assert keys.effects("order_1") == 0 and keys.effects("order%") == 0
    assert keys.effects("orderX1") == 1 and keys.effects(r"path\to") == 1
    assert keys.effects("") == 0 and keys.effects() == 2
    assert keys.find(r"path\to") is not None


def test_a_repeated_key_returns_the_first_charge(dsn: str) -> None:
    provider = FakeProvider(dsn, namespace=f"{uuid.uuid4().hex}/")
    first = provider.charge("k", "charge", {"amount": 1})
    again = provider.charge("k", "refund", {"amount": 2})
    assert again == first == {"effect_id": first["effect_id"], "idempotency_key": "k",
                              "kind": "charge"}
    assert provider.effects("k") == 1 and provider.requests("k") == 2


def test_books_of_the_earlier_layout_are_brought_up_to_date(dsn: str) -> None:
    with empty_database(dsn) as scratch:
        with psycopg.connect(scratch, autocommit=True) as conn:
            conn.execute("""
                create schema fake_provider;
                create table fake_provider.effects (
                    effect_id bigserial primary key, provider text not null,
                    idempotency_key text not null, kind text not null,
                    payload jsonb not null,
                    created_at timestamptz not null default clock_timestamp());
                create unique index effects_dedup_idx on fake_provider.effects
                    (provider, idempotency_key) where provider = 'keyed';
                create table fake_provider.requests (
                    request_id bigserial primary key, provider text not null,
                    idempotency_key text not null, kind text not null,
                    created_at timestamptz not null default clock_timestamp());
                insert into fake_provider.effects (provider, idempotency_key, kind, payload)
                values ('keyed', 'abc', 'charge', '{}');
            """)
        FakeProvider(scratch, namespace="a").charge("bc", "charge", {})
        assert FakeProvider(scratch, namespace="a").effects() == 1
        assert FakeProvider(scratch).effects("abc") == 1  # the earlier row, as it was
        with psycopg.connect(scratch, autocommit=True) as conn:  # the earlier index again
            conn.execute("create unique index effects_dedup_idx on fake_provider.effects"
                         " (provider, idempotency_key) where provider = 'keyed'")
        FakeProvider(scratch, namespace="ab").charge("c", "charge", {})
        assert FakeProvider(scratch, namespace="ab").effects("c") == 1


def test_a_role_that_may_not_create_uses_existing_books(dsn: str) -> None:
    role = f"actae_fake_{uuid.uuid4().hex[:8]}"
    try:
        with empty_database(dsn) as scratch:
            FakeProvider(scratch)  # the books, created by the test's superuser
            with psycopg.connect(scratch, autocommit=True) as conn:
                conn.execute(sql.SQL("create role {} login password 'fake'").format(
                    sql.Identifier(role)))
                conn.execute(sql.SQL("""
                    revoke create on database {db} from public;
                    grant usage on schema fake_provider to {role};
                    grant select, insert on all tables in schema fake_provider to {role};
                    grant usage on all sequences in schema fake_provider to {role};
                """).format(db=sql.Identifier(conn.info.dbname), role=sql.Identifier(role)))
            provider = FakeProvider(make_conninfo(scratch, user=role, password="fake"),
                                    namespace="least")
            provider.charge("k", "charge", {})
            assert provider.effects("k") == 1
    finally:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(sql.SQL("drop role if exists {}").format(sql.Identifier(role)))
