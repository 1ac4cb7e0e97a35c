"""Behind PgBouncer in transaction mode (each transaction on whichever server connection is
free): with ACTAE_PREPARE_THRESHOLD=none the clients never prepare a statement, so their
calls from several threads all succeed and each tool runs once. With psycopg's default (a
statement prepared after 5 uses, on one server connection, then run by name on another)
calls failed with "prepared statement ... does not exist / already exists", or ran another
statement with their arguments, and a tool whose completion failed so ran again."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from actae import InvalidInput, SyncActaeClient
from actae.client import prepare_threshold
from tests.python.support.console_harness import free_port

PGBOUNCER = shutil.which("pgbouncer") or "/usr/sbin/pgbouncer"


@pytest.fixture
def pooled_dsn(dsn: str) -> Iterator[str]:
    """A PgBouncer in transaction mode in front of the test database (two server
    connections), as the OS user `postgres` when run as root (it refuses root)."""
    if not os.path.exists(PGBOUNCER):
        pytest.fail("pgbouncer is not installed (make deps installs it)")
    given = conninfo_to_dict(dsn)
    host = str(given.get("host") or "/var/run/postgresql")
    port = int(given.get("port") or 5432)
    user, dbname = str(given.get("user") or "postgres"), str(given.get("dbname") or "actae")
    listen = free_port()
    folder = Path(tempfile.mkdtemp(prefix="actae-pgbouncer-"))
    (folder / "users.txt").write_text(f'"{user}" ""\n')
    (folder / "pgbouncer.ini").write_text(
        f"[databases]\n{dbname} = host={host} port={port} dbname={dbname}\n"
        f"[pgbouncer]\nlisten_addr = 127.0.0.1\nlisten_port = {listen}\n"
        f"unix_socket_dir =\nauth_type = trust\nauth_file = {folder}/users.txt\n"
        "pool_mode = transaction\ndefault_pool_size = 2\nmax_client_conn = 100\n"
        f"logfile = {folder}/pgbouncer.log\n")
    as_root = os.geteuid() == 0
    if as_root:
        shutil.chown(folder, "postgres", "postgres")
        for item in folder.iterdir():
            shutil.chown(item, "postgres", "postgres")
    process = subprocess.Popen([PGBOUNCER, str(folder / "pgbouncer.ini")],
                               user="postgres" if as_root else None,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    pooled = make_conninfo(host="127.0.0.1", port=listen, user=user, dbname=dbname)
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                psycopg.connect(pooled, connect_timeout=2).close()
                break
            except psycopg.OperationalError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        yield pooled
    finally:
        process.terminate()
        process.wait(10)
        shutil.rmtree(folder, ignore_errors=True)


def test_calls_from_threads_through_a_transaction_pooler_never_fail(
    pooled_dsn: str, unique: Callable[..., str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ACTAE_PREPARE_THRESHOLD", "none")
    ran: Counter[str] = Counter()
    errors: list[BaseException] = []
    lock = threading.Lock()

    def tool(ctx: Any) -> str:
        with lock:
            ran[ctx.key_name] += 1
        return "ok"

    with SyncActaeClient(pooled_dsn, max_size=4) as client:
        def agent(n: int) -> None:
            channel = unique(f"pool-{n}")
            try:
                for i in range(15):
                    client.run_tool(tool, channel_id=channel, key_name=f"{n}-{i}",
                                    tool_name="t", params={"i": i})
                    client.record_event(channel, "step", {"i": i})
                    client.get_state(channel)
            except BaseException as exc:  # noqa: BLE001 - every error is the test's failure
                errors.append(exc)

        threads = [threading.Thread(target=agent, args=(n,)) for n in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(120)
    assert errors == []
    assert len(ran) == 60 and set(ran.values()) == {1}


def test_the_setting_is_checked() -> None:
    assert prepare_threshold(None) == prepare_threshold(" ") == {}
    assert prepare_threshold("None") == {"prepare_threshold": None}
    assert prepare_threshold("0") == {"prepare_threshold": 0}
    with pytest.raises(InvalidInput, match="ACTAE_PREPARE_THRESHOLD"):
        prepare_threshold("off")
