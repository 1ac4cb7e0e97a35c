"""The ``actae`` command line as a package: every module imports on its own, there is no
import cycle, and the global options work before and after the subcommand."""

from __future__ import annotations

import ast
import pkgutil
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest

import actae.cli
from actae.cli import base
from actae.cli.main import build_parser, main, version

MODULES = sorted(f"actae.cli.{m.name}" for m in pkgutil.iter_modules(actae.cli.__path__))


def test_the_package_has_a_base_a_main_and_command_modules() -> None:
    assert {"actae.cli.base", "actae.cli.main"} <= set(MODULES)
    assert len(MODULES) >= 5


@pytest.mark.parametrize("module", ["actae.cli", *MODULES])
def test_each_module_imports_alone_in_a_fresh_interpreter(module: str) -> None:
    done = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def _imports(path: Path) -> set[str]:
    """Every actae.cli module this file imports, at any depth (function-local too)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module == "actae.cli":
                found |= {f"actae.cli.{a.name}" for a in node.names
                          if f"actae.cli.{a.name}" in MODULES} or {"actae.cli"}
            elif node.module.startswith("actae.cli."):
                found.add(node.module)
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names
                      if a.name == "actae.cli" or a.name.startswith("actae.cli.")}
    return found


def test_no_import_cycle() -> None:
    folder = Path(actae.cli.__file__).parent
    graph = {"actae.cli": _imports(folder / "__init__.py")}
    for module in MODULES:
        graph[module] = _imports(folder / f"{module.rsplit('.', 1)[1]}.py")
    # command modules and base never import main; base imports no other CLI module
    assert all("actae.cli.main" not in deps for deps in graph.values())
    assert graph["actae.cli.base"] == set()
    visiting: list[str] = []

    def visit(name: str) -> None:
        assert name not in visiting, " -> ".join([*visiting, name])
        visiting.append(name)
        for dep in graph.get(name, set()) - {name}:
            visit(dep)
        visiting.pop()

    for name in graph:
        visit(name)


def test_commands_are_collected_from_every_command_module() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    names = set(sub.choices)  # type: ignore[arg-type]
    assert {"migrate", "status", "executions", "cancel", "purge", "channel", "fork", "demo",
            "dev"} <= names


@pytest.mark.parametrize("argv", [
    ["--dsn", "host=a", "--json", "status"],
    ["status", "--dsn", "host=a", "--json"],
    ["--json", "status", "--dsn", "host=a"],
    ["--dsn", "host=a", "status", "--json"],
])
def test_global_options_before_or_after_the_subcommand(argv: list[str]) -> None:
    args = build_parser().parse_args(argv)
    assert (args.command, args.dsn, args.json) == ("status", "host=a", True)


def test_an_option_after_the_subcommand_wins() -> None:
    args = build_parser().parse_args(["--dsn", "host=global", "channel", "show", "x",
                                      "--dsn", "host=local"])
    assert args.dsn == "host=local"
    assert build_parser().parse_args(["status"]).json is False


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    printed = capsys.readouterr().out.strip()
    assert printed == f"actae {version()}" and version() != "unknown"


def test_missing_database_is_one_line_with_status_2(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ACTAE_DSN", raising=False)
    assert main(["executions"]) == 2
    assert capsys.readouterr().err == (
        "actae executions: no database given: pass --dsn or set ACTAE_DSN\n")


@pytest.mark.parametrize("command", [
    ["status"], ["executions"], ["migrate"], ["tenant", "list"], ["demo"], ["timeline", "ch"],
])
def test_a_dsn_libpq_cannot_parse_is_a_usage_mistake(
    command: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ACTAE_DSN", raising=False)
    assert main([*command, "--dsn", "host=/tmp port"]) == 2
    assert capsys.readouterr().err == (
        f"actae {' '.join(command[:1])}: the DSN cannot be read: missing \"=\" after"
        ' "port" in connection info string\n')
    monkeypatch.setenv("ACTAE_DSN", "bogus=1")
    assert main(command) == 2
    assert capsys.readouterr().err == (
        f"actae {' '.join(command[:1])}: the DSN cannot be read:"
        ' invalid connection option "bogus"\n')


def test_an_unknown_demo_story_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "nonsense", "--dsn", "host=unused"]) == 2
    assert capsys.readouterr().err == (
        "actae demo: unknown story 'nonsense': choose from crash, fork, report\n")


@pytest.mark.parametrize(("value", "text"), [
    (timedelta(days=7), "7 days"),
    (timedelta(days=1, hours=12), "1 day 12 hours"),
    (timedelta(minutes=90), "1 hour 30 minutes"),
    (timedelta(hours=1), "1 hour"),
    (timedelta(seconds=1), "1 second"),
    (timedelta(seconds=0.5), "0.5 seconds"),
    (timedelta(days=36500), "36500 days"),
    (timedelta(days=2, seconds=5), "2 days 5 seconds"),
    (timedelta(0), "0 seconds"),
])
def test_interval_text_reads_as_words(value: timedelta, text: str) -> None:
    assert base.interval_text(value) == text
