"""Upgrades of existing databases by ``actae migrate``: from an old level with data in it, from
earlier bytes of landed migrations, refusals that name their cause, and privileges put back
to the shipped ones (docs/operations.md)."""

from __future__ import annotations

import shutil
import uuid
from pathlib import Path

import psycopg
import pytest

from actae.migrate import MigrationError, migrate
from tests.python.support.databases import REPO, empty_database, fresh_database, tree_at

# Upgrades from the repository's own history and privileges reset by migrate: what they
# check does not depend on the server's version; make test's first pass only.
pytestmark = pytest.mark.once

BEFORE_0006 = "6a5b40a501e443f7708ddaf02a2104ee72d43490"  # schema 0005, with its sql/

# Earlier bytes of landed migrations (actae.migrate._EQUIVALENT_BYTES), as databases recorded
# them: (file, commit whose bytes they are).
EARLIER = [
    ("0020_topic_secret.sql", "725204f"),
    ("0022_tool_policies_and_key_ttl.sql", "63cf6dc"),
    ("0023_run_lease_lapses.sql", "a37e230"),
]

ROLES = "('-', 'actae_agent', 'actae_auditor', 'actae_operator')"  # '-': PUBLIC
PRIVILEGES = f"""
select 'function', p.oid::regprocedure::text, a.grantee::regrole::text, a.privilege_type,
    a.grantor::regrole::text, a.is_grantable
from pg_proc as p cross join lateral aclexplode(coalesce(p.proacl, acldefault('f', p.proowner)))
    as a
where p.pronamespace = 'actae'::regnamespace and a.grantee::regrole::text in {ROLES}
union all
select 'relation', c.oid::regclass::text, a.grantee::regrole::text, a.privilege_type,
    a.grantor::regrole::text, a.is_grantable
from pg_class as c cross join lateral aclexplode(c.relacl) as a
where c.relnamespace = 'actae'::regnamespace and a.grantee::regrole::text in {ROLES}
union all
select 'column', c.oid::regclass::text || '.' || t.attname, a.grantee::regrole::text,
    a.privilege_type, a.grantor::regrole::text, a.is_grantable
from pg_class as c join pg_attribute as t on t.attrelid = c.oid and not t.attisdropped
cross join lateral aclexplode(t.attacl) as a
where c.relnamespace = 'actae'::regnamespace and a.grantee::regrole::text in {ROLES}
order by 1, 2, 3, 4, 5
"""


def test_a_fork_with_tool_policies_upgrades_from_before_0006(dsn: str, tmp_path: Path) -> None:
    # 0022 checks every stored policy with a function that called actae._limit, which a
    # database at 0005 does not have until sql/ is loaded after the migrations.
    old = tree_at(BEFORE_0006, tmp_path)
    with empty_database(dsn) as scratch:
        migrate(scratch, old)
        with psycopg.connect(scratch, autocommit=True) as conn:
            conn.execute("select actae.create_channel('c1')")
            conn.execute("""select actae.fork_channel('c1', 0, 'c1f', null,
                                                      '{"search": "live", "charge": "block"}')""")
        applied = migrate(scratch)
        assert "0022_tool_policies_and_key_ttl" in applied
        with psycopg.connect(scratch, autocommit=True) as conn:
            policies = conn.execute(
                "select tool_policies from actae.channels where channel_id = 'c1f'").fetchone()
            with pytest.raises(psycopg.Error, match="blocked") as blocked:
                conn.execute("select actae.claim_execution('c1f', 'k', 'charge', '{}')")
        assert policies == ({"search": "live", "charge": "block"},)
        assert blocked.value.sqlstate == "AC403"


def test_earlier_bytes_of_landed_migrations_are_accepted(dsn: str, tmp_path: Path) -> None:
    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("needs the git history of the repository")
    tree = tmp_path / "tree"
    shutil.copytree(REPO / "migrations", tree / "migrations")
    shutil.copytree(REPO / "sql", tree / "sql", ignore=shutil.ignore_patterns("citus"))
    for name, commit in EARLIER:
        (tmp_path / commit).mkdir()
        old = tree_at(commit, tmp_path / commit)
        shutil.copy(old / "migrations" / name, tree / "migrations" / name)
        earlier = (tree / "migrations" / name).read_bytes()
        assert earlier != (REPO / "migrations" / name).read_bytes()
    with empty_database(dsn) as scratch:
        migrate(scratch, tree)
        assert migrate(scratch) == []
        with psycopg.connect(scratch, autocommit=True) as conn:
            # 0024 made 0022's first function the same as the new one's
            body = conn.execute("select prosrc from pg_proc"
                                " where oid = 'actae._tool_policies_valid'::regproc").fetchone()
        assert body is not None and "_limit" not in body[0]


def test_a_database_of_a_newer_actae_is_refused_by_name(dsn: str) -> None:
    with fresh_database(dsn) as scratch:
        with psycopg.connect(scratch, autocommit=True) as conn:
            conn.execute("insert into actae.schema_migrations (version, name, checksum)"
                         " values (9999, '9999_from_the_future', 'x')")
        with pytest.raises(MigrationError, match="migrated by a newer Actae.*9999_from_the"):
            migrate(scratch)


def test_tables_without_a_history_are_refused_by_name(dsn: str) -> None:
    with fresh_database(dsn) as scratch:
        with psycopg.connect(scratch, autocommit=True) as conn:
            conn.execute("drop table actae.schema_migrations cascade")
        with pytest.raises(MigrationError, match="no actae.schema_migrations"):
            migrate(scratch)


def test_migrate_puts_actae_roles_privileges_back(dsn: str) -> None:
    run = uuid.uuid4().hex[:8]
    roles = [f"actae_test_{name}_{run}" for name in ("grantor", "later_super", "z", "x")]
    try:
        with fresh_database(dsn) as scratch:
            hand_grants_are_undone(scratch, *roles)
    finally:
        with psycopg.connect(dsn, autocommit=True) as conn:
            for role in roles:
                conn.execute(f'drop role if exists "{role}"')


def hand_grants_are_undone(scratch: str, other: str, later_super: str, z: str, x: str) -> None:
    """Grants and revokes by hand, some with grant option or by another grantor, then
    migrate: the privileges are the shipped ones again, and a second migrate writes none."""
    with psycopg.connect(scratch, autocommit=True) as conn:
        shipped = conn.execute(PRIVILEGES).fetchall()
        conn.execute(f"""
            create role "{other}";
            grant usage on schema actae to "{other}";
            grant select on actae.channels to "{other}" with grant option;
            set role "{other}";
            grant select on actae.channels to actae_agent;
            reset role;
            grant select on actae.quotas to actae_auditor with grant option;
            grant execute on function actae.get_channel(text) to actae_auditor
                with grant option;
            grant select on actae.topic_secret to public;
            revoke select on actae.snapshots from actae_auditor;
            grant select on actae.snapshots to public;
            grant execute on function actae.get_run(text) to "{other}" with grant option;
            set role "{other}";
            grant execute on function actae.get_run(text) to actae_agent;
            reset role;
            revoke usage on schema actae from "{other}";
            -- a grantor that became a superuser after it granted
            create role "{later_super}";
            grant usage on schema actae to "{later_super}";
            grant execute on function actae.purge(interval, integer) to "{later_super}"
                with grant option;
            set role "{later_super}";
            grant execute on function actae.purge(interval, integer) to public;
            reset role;
            alter role "{later_super}" superuser;
            -- a chain through a role that can no longer reach the schema
            create role "{z}";
            create role "{x}";
            grant usage on schema actae to "{z}", "{x}";
            grant execute on function actae.set_quota(text, bigint, bigint, bigint) to "{z}"
                with grant option;
            set role "{z}";
            grant execute on function actae.set_quota(text, bigint, bigint, bigint) to "{x}"
                with grant option;
            reset role;
            set role "{x}";
            grant execute on function actae.set_quota(text, bigint, bigint, bigint) to public;
            reset role;
            revoke usage on schema actae from "{x}";
        """)
        conn.execute("""
            grant execute on function actae.purge(interval, integer) to actae_auditor;
            grant execute on function actae._limit(text) to actae_agent;
            revoke execute on function actae.get_run(text) from actae_auditor;
            grant select on actae.executions to actae_agent;
            grant select on actae.executions to actae_auditor;
            revoke select (status) on actae.runs from actae_auditor;
            grant update (result) on actae.runs to actae_auditor;
            revoke select on actae.events from actae_auditor;
            grant select on actae.topic_secret to actae_operator;
        """)
        assert conn.execute(PRIVILEGES).fetchall() != shipped
    migrate(scratch)
    with psycopg.connect(scratch, autocommit=True) as conn:
        assert conn.execute(PRIVILEGES).fetchall() == shipped
        # a column of runs the auditor was granted, then dropped (its grant stays behind)
        conn.execute("alter table actae.runs add column dropped_later integer")
    migrate(scratch)
    with psycopg.connect(scratch, autocommit=True) as conn:
        conn.execute("alter table actae.runs drop column dropped_later")
        # and a migrate with nothing to put back changes nothing
        acl = "select array_agg(relacl::text order by oid) from pg_class" \
              " where relnamespace = 'actae'::regnamespace"
        before = conn.execute(acl).fetchone()
        xmin = "select array_agg(xmin::text order by oid) from pg_class" \
               " where relnamespace = 'actae'::regnamespace"
        rows_before = conn.execute(xmin).fetchone()
    migrate(scratch)
    with psycopg.connect(scratch, autocommit=True) as conn:
        assert conn.execute(acl).fetchone() == before
        assert conn.execute(xmin).fetchone() == rows_before
