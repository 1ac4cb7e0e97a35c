"""`actae migrate` after a logical restore into another cluster: the tenants' role oids of
the source are moved back onto the roles of their names here, and the command says so on
stderr. The restore is staged in a new database of the test's own (a restore into a database
with tenants of its own is refused): two tenants' registry rows name another cluster, and
their oids are swapped in the tables that store them (as when the new cluster gave the two
roles each other's numbers)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import psycopg
import pytest

from actae import tenants
from tests.python.integration.test_cli_global import actae


@pytest.fixture
def two_tenants(actae_fresh_dsn: str) -> Iterator[tuple[str, str, str, str]]:
    """Tenants a and b, each owning one channel: (tenant a, tenant b, channel a, channel b)."""
    tag = uuid.uuid4().hex[:8]
    a, b = f"tr_a_{tag}", f"tr_b_{tag}"
    ca, cb = f"tr-a-{tag}", f"tr-b-{tag}"
    with psycopg.connect(actae_fresh_dsn, autocommit=True) as conn:
        for tenant, channel in ((a, ca), (b, cb)):
            tenants.create_tenant(conn, tenant)
            conn.execute("select actae.create_channel(%s)", (channel,))
            tenants.assign_tenant(conn, channel, tenant)
        try:
            yield a, b, ca, cb
        finally:
            conn.execute("delete from actae.channels where channel_id in (%s, %s)", (ca, cb))
            conn.execute("delete from actae.tenant_names where name in (%s, %s)", (a, b))
            conn.execute(f"drop role {a}")
            conn.execute(f"drop role {b}")


def tenant_of(conn: psycopg.Connection, channel: str) -> str:
    row = conn.execute("select tenant::regrole::text from actae.channels where channel_id = %s",
                       (channel,)).fetchone()
    assert row is not None
    return str(row[0])


def test_migrate_moves_swapped_tenant_oids_back_and_says_so(
    actae_fresh_dsn: str, two_tenants: tuple[str, str, str, str],
) -> None:
    a, b, ca, cb = two_tenants
    dsn = actae_fresh_dsn
    with psycopg.connect(dsn, autocommit=True) as conn:
        with conn.transaction():
            swap = ("update actae.{} set tenant = case tenant when %(a)s::regrole"
                    " then %(b)s::regrole when %(b)s::regrole then %(a)s::regrole end"
                    " where tenant in (%(a)s::regrole, %(b)s::regrole)")
            conn.execute(swap.format("channels"), {"a": a, "b": b})  # type: ignore[arg-type]
            # the registry's rows, as the other cluster recorded them
            rename = "update actae.tenant_names set tenant = %s where name = %s"
            conn.execute(rename, (0, a))
            conn.execute("update actae.tenant_names set tenant = %s::regrole where name = %s",
                         (a, b))
            conn.execute("update actae.tenant_names set tenant = %s::regrole where name = %s",
                         (b, a))
            conn.execute("update actae.tenant_names set cluster = 1 where name in (%s, %s)",
                         (a, b))
        assert (tenant_of(conn, ca), tenant_of(conn, cb)) == (b, a)  # the restore's state
        done = actae("migrate", dsn=dsn, timeout=120)
        assert done.returncode == 0, done.stderr
        assert "moved to their roles here" in done.stderr
        assert a in done.stderr and b in done.stderr
        assert (tenant_of(conn, ca), tenant_of(conn, cb)) == (a, b)
        here = conn.execute("select count(*) from actae.tenant_names where cluster <>"
                            " (select system_identifier from pg_control_system())")
        assert here.fetchone() == (0,)
        again = actae("migrate", dsn=dsn, timeout=120)
        assert again.returncode == 0 and "moved" not in again.stderr
