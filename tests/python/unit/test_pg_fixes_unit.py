"""actae.pg and the demo, where no server is needed: a throwaway that cannot get binaries
leaves no folder, a bad ACTAE_PG_PORT is one line, and running the demo's module as a
script prints no RuntimeWarning."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from actae import pg

REPO = Path(__file__).resolve().parents[3]


def clean_env(**extra: str) -> dict[str, str]:
    """This process's environment without ACTAE_DSN / ACTAE_WITH_DB, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if k not in {"ACTAE_DSN", "ACTAE_WITH_DB"}}
    return {**env, **extra}


def test_throwaway_without_binaries_leaves_no_folder(monkeypatch: pytest.MonkeyPatch,
                                                     tmp_path: Path) -> None:
    made: list[Path] = []
    real_mkdtemp = tempfile.mkdtemp

    def recording_mkdtemp(*args: object, **kwargs: object) -> str:
        folder: str = real_mkdtemp(*args, **kwargs)  # type: ignore[call-overload]
        made.append(Path(folder))
        return folder

    monkeypatch.setattr(pg.tempfile, "mkdtemp", recording_mkdtemp)
    monkeypatch.setenv("ACTAE_PG_BIN", str(tmp_path))  # a folder without pg_ctl
    with pytest.raises(pg.PostgresNotFound, match="has no pg_ctl"), pg.throwaway():
        pass
    assert made, "throwaway made its folder"
    assert not any(folder.exists() for folder in made), f"left behind: {made}"


@pytest.mark.parametrize("value", ["abc", "0", "70000", "-5"])
def test_bad_actae_pg_port_is_one_line(value: str, tmp_path: Path) -> None:
    for argv in (["-m", "actae.pg", "--data", str(tmp_path / "repo"), "status"],
                 ["-m", "actae", "dev", "--data-dir", str(tmp_path / "dev")]):
        done = subprocess.run([sys.executable, *argv], capture_output=True, text=True,
                              env=clean_env(ACTAE_PG_PORT=value), timeout=60, cwd=REPO)
        assert done.returncode == 1, (argv, done.stdout, done.stderr)
        assert "Traceback" not in done.stderr
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and "ACTAE_PG_PORT" in lines[0] and value in lines[0], lines
    assert not (tmp_path / "dev").exists(), "nothing was started or created"


def test_dev_main_with_a_bad_port_returns_1(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("ACTAE_PG_PORT", "abc")
    assert pg.dev_main(tmp_path / "dev", None) == 1
    assert "ACTAE_PG_PORT='abc' is not a port number" in capsys.readouterr().err


def test_running_the_demo_module_prints_no_runtime_warning() -> None:
    # Without ACTAE_DSN the module only says so; importing it is where runpy used to warn
    # (the package had imported actae.demo.crash already).
    done = subprocess.run([sys.executable, "-W", "default", "-m", "actae.demo.crash"],
                          capture_output=True, text=True, env=clean_env(), timeout=60,
                          cwd=REPO)
    assert done.returncode == 2
    assert "RuntimeWarning" not in done.stderr, done.stderr
    assert "ACTAE_DSN" in done.stderr


@pytest.mark.parametrize("value", ["0", "70000", "-1", "abc"])
def test_bad_dev_port_is_one_line(value: str, tmp_path: Path) -> None:
    """`actae dev --port` outside 1-65535 (or no number) is a usage error (status 2, as
    every such mistake) naming the option, before anything is made; 0 is not replaced by
    ACTAE_PG_PORT (made unusable here, so nothing could start)."""
    try:
        done = subprocess.run([sys.executable, "-m", "actae", "dev", "--data-dir",
                               str(tmp_path / "dev"), "--port", value], capture_output=True,
                              text=True, env=clean_env(ACTAE_PG_PORT="abc"), timeout=120,
                              cwd=REPO)
        assert done.returncode == 2, (done.stdout, done.stderr)
        last = done.stderr.strip().splitlines()[-1]
        assert last.startswith("actae dev: error: argument --port: "), last
        assert "Traceback" not in done.stderr
        assert not (tmp_path / "dev").exists(), "nothing was started or created"
    finally:  # a cluster made anyway (as root: in /tmp/actae-pg-<hash>) is deleted
        if (tmp_path / "dev").exists() or os.geteuid() == 0:
            with contextlib.suppress(pg.PostgresNotFound):
                pg.Server(tmp_path / "dev").remove()
