"""``actae migrate`` and the command line after a review: a reload of sql/ that fails after
migrations were committed says which; a server that accepts a connection and never answers
fails a migrate instead of hanging it; a --json migrate whose hardening step fails still
prints what it did; a database never migrated is named as such; usage mistakes exit 2."""

from __future__ import annotations

import json
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from actae import InvalidInput, SyncActaeClient
from actae import migrate as migrations
from tests.python.integration.test_cli_global import actae, one_line
from tests.python.integration.test_migrate import recorded, root, write
from tests.python.integration.test_migrate_fixes import scratch_dsn

__all__ = ["root", "scratch_dsn"]  # fixtures, used by name


@pytest.mark.parametrize(("broken", "text", "error"), [
    ("sql/99_broken.sql", "create function actae.broken( returns int",
     "sql/99_broken.sql line 1: syntax error"),
    ("migrations/0003_broken.sql", "select 1 / 0;",
     "migrations/0003_broken.sql: division by zero"),
])
def test_a_failure_after_migrations_were_committed_names_them(
    scratch_dsn: str, root: Path, broken: str, text: str, error: str
) -> None:
    """A reload of sql/, or a later migration, that fails after migrations of the same run
    were committed: they stay, and the error says which."""
    write(root, broken, text)
    with pytest.raises(migrations.MigrationError) as raised:
        migrations.migrate(scratch_dsn, root)
    assert str(raised.value).startswith(error)
    assert "after applying 0001_widgets, 0002_names: those are committed" in str(raised.value)
    assert raised.value.applied == ["0001_widgets", "0002_names"]
    assert recorded(scratch_dsn) == [(1, "0001_widgets"), (2, "0002_names")]
    # Nothing applied this time: the error is the failure's alone.
    with pytest.raises(migrations.MigrationError) as again:
        migrations.migrate(scratch_dsn, root)
    assert str(again.value).startswith(error) and "after applying" not in str(again.value)


@pytest.fixture
def silent_server() -> Iterator[int]:
    """A TCP port that accepts connections and never says a word."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])
            except TimeoutError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        stop.set()
        thread.join()
        for s in held:
            s.close()
        listener.close()


# Client-side connect timeouts against a server that never answers (no database involved):
# make test runs these in its PostgreSQL 18 pass only (marker `second`).
@pytest.mark.second
@pytest.mark.parametrize("call", ["migrate", "status"])
def test_migrate_gives_up_on_a_server_that_never_answers(
    silent_server: int, monkeypatch: pytest.MonkeyPatch, call: str
) -> None:
    monkeypatch.setattr(migrations, "CONNECT_SECONDS", 2)
    monkeypatch.delenv("PGCONNECT_TIMEOUT", raising=False)
    dsn = f"host=127.0.0.1 port={silent_server} user=postgres dbname=actae sslmode=disable"
    outcome: list[BaseException] = []

    def attempt() -> None:
        try:
            getattr(migrations, call)(dsn)
        except BaseException as exc:  # noqa: BLE001 - recorded for the assertion
            outcome.append(exc)

    started = time.monotonic()
    thread = threading.Thread(target=attempt, daemon=True)
    thread.start()
    thread.join(20)
    assert not thread.is_alive(), "still waiting for a server that never answers"
    assert time.monotonic() - started < 15
    assert len(outcome) == 1 and isinstance(outcome[0], psycopg.OperationalError)
    assert "timeout" in str(outcome[0])


@pytest.mark.second  # see test_migrate_gives_up_on_a_server_that_never_answers
def test_every_command_gives_up_as_the_others_do(
        silent_server: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The run, event and console commands connected with the client's own 5 s (PGCONNECT_
    TIMEOUT ignored) where the others took CONNECT_SECONDS or what the environment says: now
    each one checks the connection as they do, in one line."""
    monkeypatch.setenv("PGCONNECT_TIMEOUT", "2")
    dsn = f"host=127.0.0.1 port={silent_server} user=postgres dbname=actae sslmode=disable"
    for command in (["runs"], ["run", "show", "x"], ["event", "send", "x", "y"],
                    ["timeline", "x"], ["forks", "x"], ["status"]):
        started = time.monotonic()
        line = one_line(actae(*command, dsn=dsn, timeout=30))
        assert line.startswith(f"actae {command[0]}: cannot connect to the database"), line
        assert 1.5 < time.monotonic() - started < 4.5, command


@pytest.mark.second  # see test_migrate_gives_up_on_a_server_that_never_answers
def test_a_connect_timeout_in_the_dsn_is_kept(silent_server: int) -> None:
    dsn = f"host=127.0.0.1 port={silent_server} dbname=actae connect_timeout=3"
    started = time.monotonic()
    with pytest.raises(psycopg.OperationalError):
        migrations.status(dsn)
    assert 2.5 < time.monotonic() - started < 9  # its 3 s, not CONNECT_SECONDS' 10


def test_a_json_migrate_whose_role_settings_fail_prints_what_it_did(scratch_dsn: str) -> None:
    done = actae("--json", "migrate", "--role-settings", "no_such_login_x9", dsn=scratch_dsn)
    assert done.returncode == 1
    assert 'role "no_such_login_x9" does not exist' in done.stderr
    report = json.loads(done.stdout)
    assert report["applied"][0] == "0001_ledger" and "role_settings" not in report
    assert recorded(scratch_dsn)[0] == (1, "0001_ledger")


@pytest.mark.parametrize("command", [["status"], ["executions"], ["runs"]])
def test_a_database_never_migrated_is_named_as_such(scratch_dsn: str,
                                                    command: list[str]) -> None:
    line = one_line(actae(*command, dsn=scratch_dsn))
    assert line.endswith("(is this database migrated? run actae migrate)"), line


def test_usage_mistakes_exit_2(dsn: str) -> None:
    assert "must be a UUID" in one_line(actae("cancel", "not-a-uuid", "--reason", "x",
                                              dsn=dsn), 2)
    assert "--policy" in one_line(actae("fork", "any", "--at", "1", "--policy", "charge",
                                        dsn=dsn), 2)
    assert "must be an interval" in one_line(actae("purge", "--older-than", "thirty days",
                                                   dsn=dsn), 2)
    # PostgreSQL reads a bare number as seconds: `--older-than 30` purged channels closed
    # 30 seconds ago. Refused before anything is sent (the channel is not created).
    assert "needs a unit, such as '30 days'" in one_line(
        actae("purge", "--older-than", "30", dsn=dsn), 2)
    assert "needs a unit" in one_line(actae("channel", "key-ttl", "bare-ttl", " 1.5 ",
                                            "--create", dsn=dsn), 2)
    with psycopg.connect(dsn) as conn:
        assert conn.execute("select count(*) from actae.channels"
                            " where channel_id = 'bare-ttl'").fetchone() == (0,)
    # A value the database refuses is not a usage mistake: status 1 (AC400).
    assert "AC400" in one_line(actae("channel", "key-ttl", "any-ttl", "200 years", "--create",
                                     dsn=dsn))


def test_a_json_migrate_that_fails_prints_what_it_committed(
    scratch_dsn: str, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(root, "migrations/0003_broken.sql", "select 1 / 0;")
    monkeypatch.setenv("ACTAE_SQL_ROOT", str(root))
    done = actae("--json", "migrate", dsn=scratch_dsn)
    assert done.returncode == 1
    assert json.loads(done.stdout) == ["0001_widgets", "0002_names"]
    assert "division by zero" in done.stderr


@pytest.mark.parametrize(("dsn", "environ", "expected"), [
    ("dbname=x", {}, {"connect_timeout": 10}),
    ("dbname=x connect_timeout=3", {}, {}),
    ("postgresql:///x?connect_timeout=0", {}, {}),
    ("service=mine", {}, {}),  # its file may set one: libpq's to read
    ("dbname=x", {"PGCONNECT_TIMEOUT": "4"}, {}),
    ("dbname=x", {"PGSERVICE": "mine"}, {}),
])
def test_the_connect_timeout_is_the_users_when_they_give_one(
    monkeypatch: pytest.MonkeyPatch, dsn: str, environ: dict[str, str],
    expected: dict[str, int],
) -> None:
    for name in ("PGCONNECT_TIMEOUT", "PGSERVICE"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    assert migrations.connect_timeout(dsn) == expected


@pytest.mark.second  # see test_migrate_gives_up_on_a_server_that_never_answers
@pytest.mark.parametrize("command", [["status"], ["tenant", "list"]])
def test_commands_keep_the_dsns_connect_timeout(silent_server: int,
                                                command: list[str]) -> None:
    dsn = f"host=127.0.0.1 port={silent_server} dbname=actae connect_timeout=3"
    started = time.monotonic()
    line = one_line(actae(*command, dsn=dsn, timeout=30))
    assert "timeout" in line
    assert 2.5 < time.monotonic() - started < 9  # its 3 s, not CONNECT_SECONDS' 10


def test_a_migrate_without_standard_conforming_strings_grants_as_shipped(dsn: str) -> None:
    """A migrate in a session with standard_conforming_strings off (a database's or role's
    setting, or PGOPTIONS) grants actae_agent the API functions as any other migrate: the
    grants' pattern read with its backslash dropped revoked every one of them."""
    off = psycopg.conninfo.make_conninfo(dsn, options="-c standard_conforming_strings=off")
    try:
        migrations.migrate(off)
        with psycopg.connect(dsn, autocommit=True) as conn:
            row = conn.execute(
                "select count(*) filter (where has_function_privilege('actae_agent', p.oid,"
                " 'EXECUTE')), count(*) from pg_proc as p"
                " where p.pronamespace = 'actae'::regnamespace"
                " and p.proname in ('claim_execution', 'complete_execution', 'record_event')"
            ).fetchone()
        assert row == (3, 3)
    finally:
        migrations.migrate(dsn)  # the shipped grants back for the tests after this one


def test_a_latin1_database_is_migrated_and_used(dsn: str) -> None:
    """A database in LATIN1: migrate sends the files in the database's own encoding (their
    few non-ASCII characters, in comments, have no LATIN1 form: a UTF8 session made the
    server refuse the first file), and a client, which talks UTF8, stores text LATIN1 holds
    as it was sent and is refused, naming the argument, what it cannot hold."""
    name = f"actae_latin1_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(dsn, autocommit=True) as admin:
        admin.execute(f"create database {name} encoding 'LATIN1' lc_collate 'C'"
                      " lc_ctype 'C' template template0")
    latin1 = psycopg.conninfo.make_conninfo(dsn, dbname=name)
    try:
        migrations.migrate(latin1)
        with SyncActaeClient(latin1) as client:
            client.record_event("ç-1", "step", {"who": "Jürgen"})
            assert client.list_events("ç-1")[0].payload == {"who": "Jürgen"}
            with pytest.raises(InvalidInput):
                client.record_event("ç-1", "step", {"amount": "5 €"})
    finally:
        with psycopg.connect(dsn, autocommit=True) as admin:
            admin.execute(f"drop database {name} with (force)")
