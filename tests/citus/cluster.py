"""A throwaway three-node Citus cluster for Actae: a coordinator and two workers.

    cluster.py test [PYTEST ARGS]  build Citus if missing, start, migrate, distribute, run the
                                   ledger/events/forks/watch/runs/LangGraph suites and the
                                   SIGKILL sweep against the coordinator, stop
                                   (`make test-citus`)
    cluster.py start               start, migrate and distribute; leave it running
    cluster.py env                 print ACTAE_DSN (the coordinator) for a running cluster
    cluster.py stop                stop the nodes and delete their data

Citus is built by ``$ACTAE_CITUS_BUILD``, else ``<repo>/../shared/citus/build.sh``. When
Citus is not installed and that script does not exist (a clone outside this project's
machines), `test` says so and exits 0: install Citus from its own packages to run it.

Nodes listen on 127.0.0.1, ports ACTAE_CITUS_PORT (coordinator, default 54331) and the next
two; data and sockets live in /tmp/actae-citus-<port>/. As root the servers run as the
postgres user. Authentication on the throwaway cluster: the postgres superuser is trusted
on loopback (Citus' own maintenance connections), actae_owner logs in only over TCP from
the cluster's address with a random password that Citus reads from pg_dist_authinfo
(sql/citus/owner_login.psql; docs/SCALING.md explains the trade-off). Nothing else can
log in as actae_owner: its local-socket and other-address logins are rejected.
"""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PG_BIN = Path(os.environ.get("ACTAE_PG_BIN", "/usr/lib/postgresql/15/bin"))
PY = REPO / ".venv" / "bin" / "python"
DBNAME = "actae"
AS_ROOT = os.geteuid() == 0
HOST = "127.0.0.1"

# pytest files run against the coordinator: these suites, found by name wherever
# tests/python keeps them, then tests/citus/test_*.py. Not test_runs_plans.py: it checks
# the single-node plans of claim_run (index scans of actae.runs), which on Citus are
# distributed plans; docs/SCALING.md says what claim_run runs on the cluster.
# The LangGraph saver's suites (test_langgraph_*.py) run too, but for the tests that wait
# for a backend to show a lock wait in pg_stat_activity (DESELECT): on Citus the waiting
# row lock is on a worker, and the coordinator's backend waits for the worker's reply.
SUITES = ("test_ledger.py", "test_events.py", "test_forks.py", "test_watch.py",
          "test_runs_client.py", "test_runs_worker.py", "test_runs_cli.py",
          "test_runs_survive.py", "test_langgraph_*.py", "test_console_annotations.py",
          "test_console_fixes.py", "test_console_review.py", "test_console_safety.py",
          "test_kill.py", "test_caller_connections.py", "test_batch.py",
          "test_list_completed.py")
# The console's cli and browser suites, and three safety tests, start from
# console_harness.make_story, which expires a lease with an UPDATE using clock_timestamp()
# (refused by Citus); the browser suite's demo test also runs its own correlated query.
DESELECT = (
    "tests/python/integration/test_console_safety.py::test_the_console_role_cannot_write",
    "tests/python/integration/test_console_safety.py::test_no_claim_token_in_any_page",
    "tests/python/integration/test_console_safety.py::test_payloads_are_html_escaped",
    "tests/python/integration/test_langgraph_concurrency.py"
    "::test_a_write_behind_a_delete_starts_the_thread_afresh",
    "tests/python/integration/test_langgraph_concurrency.py"
    "::test_two_namespaces_wanting_one_channel_name_get_two_channels",
)

HBA = f"""\
# Actae throwaway Citus cluster (tests/citus/cluster.py)
local all actae_owner reject
host all actae_owner {HOST}/32 scram-sha-256
host all actae_owner all reject
local all all trust
host all all {HOST}/32 trust
"""


def say(text: str) -> None:
    print(f"citus: {text}", flush=True)


def as_postgres(args: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    command = ["runuser", "-u", "postgres", "--", *args] if AS_ROOT else args
    return subprocess.run(command, check=True, cwd="/", text=True, **kwargs)  # type: ignore[call-overload]


@dataclass(frozen=True)
class Node:
    name: str
    port: int
    base: Path
    citus: bool = True

    @property
    def data(self) -> Path:
        return self.base / self.name

    @property
    def dsn(self) -> str:
        return f"host={self.base / 'run'} port={self.port} user=postgres dbname={DBNAME}"

    def psql(self, *args: str, dbname: str = DBNAME, quiet: bool = True) -> str:
        command = [str(PG_BIN / "psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-tA",
                   "-h", str(self.base / "run"), "-p", str(self.port), "-U", "postgres",
                   "-d", dbname, *args]
        done = subprocess.run(command, check=False, text=True, capture_output=True)
        if done.returncode != 0:
            raise SystemExit(f"citus: psql on {self.name} failed:\n{done.stderr}")
        if not quiet:
            print(done.stdout, end="")
        return done.stdout.strip()

    def init(self) -> None:
        as_postgres([str(PG_BIN / "initdb"), "-D", str(self.data), "-U", "postgres",
                     "--auth=trust", "--encoding=UTF8", "--locale=C.UTF-8", "--no-sync"],
                    stdout=subprocess.DEVNULL)
        settings = f"""
# Actae throwaway Citus node {self.name}
port = {self.port}
listen_addresses = '{HOST}'
unix_socket_directories = '{self.base / 'run'}'
shared_preload_libraries = '{"citus" if self.citus else ""}'
max_connections = 300
max_prepared_transactions = 300
timezone = 'UTC'
log_min_messages = warning
"""
        self._write(self.data / "postgresql.conf", settings, append=True)
        self._write(self.data / "pg_hba.conf", HBA, append=False)

    def _write(self, path: Path, text: str, *, append: bool) -> None:
        as_postgres(["tee", "-a", str(path)] if append else ["tee", str(path)],
                    input=text, stdout=subprocess.DEVNULL)

    def start(self) -> None:
        as_postgres([str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-l",
                     str(self.base / f"{self.name}.log"), "-w", "-t", "60", "start"],
                    stdout=subprocess.DEVNULL)
        self.psql("-c", f"create database {DBNAME}", dbname="postgres")
        if self.citus:
            self.psql("-c", "create extension citus")

    def stop(self) -> None:
        if (self.data / "postmaster.pid").exists():
            as_postgres([str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w",
                         "stop"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


class Cluster:
    def __init__(self) -> None:
        port = int(os.environ.get("ACTAE_CITUS_PORT", "54331"))
        self.base = Path(f"/tmp/actae-citus-{port}")
        self.coordinator = Node("coordinator", port, self.base)
        self.workers = [Node(f"worker{i}", port + i, self.base) for i in (1, 2)]
        self.nodes = [self.coordinator, *self.workers]

    def start(self) -> None:
        self.stop()
        (self.base / "run").mkdir(parents=True)
        if AS_ROOT:
            for path in (self.base, self.base / "run"):
                shutil.chown(path, "postgres", "postgres")
        for node in self.nodes:
            node.init()
            node.start()
        coordinator = self.coordinator
        coordinator.psql("-c", f"select citus_set_coordinator_host('{HOST}', {coordinator.port})")
        for worker in self.workers:
            coordinator.psql("-c", f"select citus_add_node('{HOST}', {worker.port})")
        say(f"coordinator {HOST}:{coordinator.port}, workers "
            + ", ".join(f"{HOST}:{w.port}" for w in self.workers))

    def stop(self) -> None:
        for node in reversed(self.nodes):
            node.stop()
        shutil.rmtree(self.base, ignore_errors=True)

    def env(self) -> dict[str, str]:
        return {**os.environ, "ACTAE_DSN": self.coordinator.dsn}

    def migrate(self) -> None:
        subprocess.run([str(PY), "-m", "actae", "migrate"], check=True, env=self.env(),
                       cwd=REPO, stdout=subprocess.DEVNULL)

    def setup(self) -> None:
        """Migrate, let actae_owner log in from the cluster, distribute, migrate again (the
        second migrate is what an upgrade of a running cluster does)."""
        self.migrate()
        password = secrets.token_hex(24)
        self.coordinator.psql("-v", f"owner_password={password}",
                              "-f", str(REPO / "sql" / "citus" / "owner_login.psql"))
        self.coordinator.psql("-f", str(REPO / "sql" / "citus" / "distribute.sql"))
        self.migrate()
        say("migrated and distributed")


def citus_installed() -> bool:
    try:
        libdir = subprocess.run([str(PG_BIN / "pg_config"), "--pkglibdir"], check=False,
                                text=True, capture_output=True).stdout.strip()
    except OSError:  # no PostgreSQL there at all
        return False
    libdir = libdir or "/usr/lib/postgresql/15/lib"
    return (Path(libdir) / "citus.so").exists()


def ensure_citus() -> bool:
    """Build Citus through the project's build script when it is there; False to skip."""
    override = os.environ.get("ACTAE_CITUS_BUILD")
    script = Path(override) if override else REPO.parent / "shared" / "citus" / "build.sh"
    if script.is_file():
        subprocess.run([str(script)], check=True)
        return True
    if citus_installed():
        say(f"{script} not found; using the Citus already installed")
        return True
    say(f"skipped: Citus is not installed and {script} does not exist (set "
        "ACTAE_CITUS_BUILD to a build script, or install Citus from its packages)")
    return False


def test_files() -> list[str]:
    root = REPO / "tests" / "python"
    found: list[str] = []
    for pattern in SUITES:
        found += sorted(str(p.relative_to(REPO)) for p in root.rglob(pattern))
    found += sorted(str(p.relative_to(REPO)) for p in (REPO / "tests" / "citus").glob("test_*.py"))
    return found


def run_tests(cluster: Cluster, extra: list[str]) -> int:
    files = test_files()
    say("pytest " + " ".join(files))
    deselect = [f"--deselect={test}" for test in DESELECT]
    return subprocess.run([str(PY), "-m", "pytest", "-q", *files, *deselect, *extra],
                          check=False, env=cluster.env(), cwd=REPO).returncode


def main(argv: list[str]) -> int:
    action = argv[0] if argv else "test"
    cluster = Cluster()
    if action == "stop":
        cluster.stop()
        return 0
    if action == "env":
        print(f"export ACTAE_DSN='{cluster.coordinator.dsn}'")
        return 0
    if action == "start":
        cluster.start()
        cluster.setup()
        print(f"export ACTAE_DSN='{cluster.coordinator.dsn}'")
        return 0
    if action != "test":
        print(__doc__, file=sys.stderr)
        return 2
    started = time.monotonic()
    if not ensure_citus():
        return 0
    try:
        cluster.start()
        cluster.setup()
        status = run_tests(cluster, argv[1:])
    finally:
        cluster.stop()
    say(f"test {'passed' if status == 0 else 'FAILED'} in {time.monotonic() - started:.0f} s")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
