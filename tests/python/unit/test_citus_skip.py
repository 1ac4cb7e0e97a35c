"""`make test-citus` outside this project's machines: without Citus and without the build
script it says it skipped and succeeds, and starts no cluster (tests/citus/cluster.py)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

CLUSTER = Path(__file__).resolve().parents[2] / "citus" / "cluster.py"


def load_cluster() -> ModuleType:
    spec = importlib.util.spec_from_file_location("actae_citus_cluster", CLUSTER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_without_citus_or_its_build_script_test_citus_skips_and_exits_0(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    cluster = load_cluster()
    monkeypatch.setenv("ACTAE_CITUS_BUILD", str(tmp_path / "no-such-build.sh"))
    monkeypatch.setattr(cluster, "citus_installed", lambda: False)

    def no_cluster(*_: object) -> None:
        raise AssertionError("a cluster was started without Citus")

    monkeypatch.setattr(cluster.Cluster, "start", no_cluster)
    assert cluster.main(["test"]) == 0
    out = capsys.readouterr().out
    assert "citus: skipped: Citus is not installed" in out
    assert "no-such-build.sh does not exist" in out


def test_without_postgresql_citus_counts_as_not_installed(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    cluster = load_cluster()
    monkeypatch.setattr(cluster, "PG_BIN", tmp_path / "no-postgresql")
    assert cluster.citus_installed() is False
