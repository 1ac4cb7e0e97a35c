"""docs/reference.md is generated from the header comments in sql/ and must not go stale."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.tools import reference


def test_reference_page_matches_the_sql_headers() -> None:
    expected = reference.render(reference.REPO / "sql")
    assert reference.OUT.read_text() == expected, (
        "docs/reference.md is stale: run `python -m tests.tools.reference`")


def test_every_function_has_a_header_that_names_it() -> None:
    found = reference.functions(reference.REPO / "sql")
    assert len(found) >= 30
    assert {"actae.claim_execution", "actae.fork_channel", "actae.purge"} <= {
        f.name for f in found}
    for function in found:
        assert function.header, f"{function.name} in sql/{function.file} has no header comment"
        assert function.header[0].startswith(function.name), function.header[0]


def test_check_mode_reports_a_stale_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    stale = tmp_path / "reference.md"
    stale.write_text("# SQL reference\n")
    monkeypatch.setattr(reference, "OUT", stale)
    assert reference.main(["--check"]) == 1
    assert "is stale" in capsys.readouterr().err
    stale.write_text(reference.render(reference.REPO / "sql"))
    assert reference.main(["--check"]) == 0
