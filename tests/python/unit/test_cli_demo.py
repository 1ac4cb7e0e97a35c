"""How ``actae demo`` and ``actae dev`` choose their database, without starting one: a
stand-in for ``actae.pg`` records what the commands asked of it."""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

import actae.demo
from actae.cli.main import main


class StandIn(types.ModuleType):
    """Plays actae.pg: ensure_dsn() yields a DSN, dev_main(data_dir, port) returns a status."""

    def __init__(self) -> None:
        super().__init__("actae.pg")
        self.calls: list[tuple[object, ...]] = []

    @contextmanager
    def ensure_dsn(self) -> Iterator[str]:
        self.calls.append(("ensure_dsn",))
        yield "host=stand-in"

    def dev_main(self, data_dir: Path | None, port: int | None) -> int:
        self.calls.append(("dev_main", data_dir, port))
        return 7


@pytest.fixture
def pg(monkeypatch: pytest.MonkeyPatch) -> StandIn:
    stand_in = StandIn()
    monkeypatch.setitem(sys.modules, "actae.pg", stand_in)
    return stand_in


@pytest.fixture
def told(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, list[str]]]:
    """What actae.demo.run was asked to tell, on which DSN."""
    calls: list[tuple[str, list[str]]] = []

    def run(dsn: str, names: list[str]) -> int:
        calls.append((dsn, names))
        return 0

    monkeypatch.setattr(actae.demo, "run", run)
    return calls


def test_demo_uses_actae_dsn_when_set(pg: StandIn, told: list[tuple[str, list[str]]],
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACTAE_DSN", "host=env")
    assert main(["demo"]) == 0
    assert main(["--dsn", "host=flag", "demo", "report"]) == 0
    assert told == [("host=env", ["crash", "fork"]), ("host=flag", ["report"])]
    assert pg.calls == []


def test_demo_starts_a_server_of_its_own_without_actae_dsn(
    pg: StandIn, told: list[tuple[str, list[str]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ACTAE_DSN", raising=False)
    assert main(["demo", "crash"]) == 0
    assert pg.calls == [("ensure_dsn",)]
    assert told == [("host=stand-in", ["crash"])]


def test_dev_passes_its_options_through(pg: StandIn) -> None:
    assert main(["dev", "--data-dir", "/tmp/actae-dev", "--port", "5499"]) == 7
    assert main(["dev"]) == 7
    assert pg.calls == [("dev_main", Path("/tmp/actae-dev"), 5499), ("dev_main", None, None)]


def test_without_a_server_module_the_error_says_what_to_do(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("ACTAE_DSN", raising=False)
    monkeypatch.setitem(sys.modules, "actae.pg", None)  # import fails
    assert main(["demo"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("actae demo: no database: set ACTAE_DSN")
    assert "pip install 'actae[embedded]'" in err
