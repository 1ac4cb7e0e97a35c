"""sql/citus/distribute.sql names every table of schema actae (distributed by channel_id or
a reference table), so a new migration's table cannot be forgotten when a Citus deployment
distributes the schema. `make test-citus` checks the cluster itself (tests/citus)."""

from __future__ import annotations

import re
from pathlib import Path

import psycopg

DISTRIBUTE = Path(__file__).resolve().parents[3] / "sql" / "citus" / "distribute.sql"


def listed_tables() -> tuple[set[str], set[str]]:
    """(distributed, reference) table names in distribute.sql, from its two statements."""
    text = DISTRIBUTE.read_text(encoding="utf-8")
    code = "\n".join(line.split("--", 1)[0] for line in text.splitlines())
    statements = code.split(";")
    found: dict[str, set[str]] = {"create_distributed_table": set(),
                                  "create_reference_table": set()}
    for statement in statements:
        for function, names in found.items():
            if f"{function}(" in statement:
                # 'actae.name' literals, not 'actae.f(args)' signatures nor colocate targets
                names |= set(re.findall(r"\(\s*'actae\.(\w+)'", statement))
    return found["create_distributed_table"], found["create_reference_table"]


def test_every_actae_table_is_distributed_or_a_reference_table(
    conn: psycopg.Connection,
) -> None:
    distributed, reference = listed_tables()
    tables = {row[0] for row in conn.execute(
        "select c.relname from pg_catalog.pg_class as c"
        " where c.relnamespace = 'actae'::regnamespace and c.relkind in ('r', 'p')")}
    assert "channels" in distributed and "schema_migrations" in reference
    assert not distributed & reference
    assert tables - (distributed | reference) == set(), "tables missing from distribute.sql"
    assert (distributed | reference) - tables == set(), "distribute.sql names no such table"


def test_distributed_tables_have_a_channel_id_column(conn: psycopg.Connection) -> None:
    distributed, _ = listed_tables()
    without = {row[0] for row in conn.execute(
        "select c.relname from pg_catalog.pg_class as c"
        " where c.relnamespace = 'actae'::regnamespace and c.relname = any(%s)"
        " and not exists (select 1 from pg_catalog.pg_attribute as a"
        "   where a.attrelid = c.oid and a.attname = 'channel_id' and not a.attisdropped)",
        (sorted(distributed),))}
    assert without == set()
