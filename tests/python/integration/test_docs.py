"""Every code block of the README and of the manual pages runs, straight from the markdown.

Each page gets a fresh database, migrated, and its blocks run in order: ``sql`` through psql
(ON_ERROR_STOP), ``sh`` through bash (-e, pipefail) with the ``actae`` console script on
PATH, ``python`` in one namespace per page (top-level ``await`` allowed). ACTAE_DSN points
at the page's database for all three.
"""

from __future__ import annotations

import ast
import asyncio
import inspect
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.python.support.databases import fresh_database
from tests.python.support.markdown import LANGUAGES, Block, blocks

# The documents' code blocks, the same SQL as the suites that run on every server: make test
# runs them in its PostgreSQL 18 pass only.
pytestmark = pytest.mark.second

REPO = Path(__file__).resolve().parents[3]
PAGES = ["README.md", "docs/python.md", "docs/sql.md", "docs/operations.md", "docs/demo.md",
         "docs/development.md", "docs/design.md", "docs/reference.md"]


@pytest.fixture
def page_dsn(dsn: str) -> Iterator[str]:
    """A new database on the test server with Actae migrated, dropped afterwards."""
    with fresh_database(dsn, "actae_docs") as scratch:
        yield scratch


def psql() -> str:
    found = shutil.which("psql")
    if found:
        return found
    return str(Path(os.environ.get("ACTAE_PG_BIN", "/usr/lib/postgresql/15/bin")) / "psql")


def run_block(block: Block, where: str, dsn: str, namespace: dict[str, Any]) -> None:
    env = {**os.environ, "ACTAE_DSN": dsn,
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    if block.language == "python":
        code = compile(block.code, where, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
        result = eval(code, namespace)  # noqa: S307 - the block is the documentation under test
        if inspect.iscoroutine(result):
            asyncio.run(result)
        return
    if block.language == "sql":
        command = [psql(), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", dsn, "-f", "-"]
    else:
        command = ["bash", "-e", "-o", "pipefail", "-c", block.code]
    done = subprocess.run(command, input=block.code if block.language == "sql" else None,
                          capture_output=True, text=True, env=env, cwd=REPO, timeout=300)
    assert done.returncode == 0, f"{where} failed:\n{block.code}\n{done.stdout}{done.stderr}"


@pytest.mark.parametrize("page", PAGES)
def test_every_block_runs(page: str, page_dsn: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACTAE_DSN", page_dsn)
    monkeypatch.chdir(REPO)
    namespace: dict[str, Any] = {"__name__": f"docs:{page}"}
    for block in blocks(REPO / page):
        assert block.language in LANGUAGES, (
            f"{page}:{block.line}: say what the block is (```{'/```'.join(LANGUAGES)})")
        if block.runs:
            run_block(block, f"{page}:{block.line}", page_dsn, namespace)


def test_the_pages_have_runnable_blocks_and_few_exceptions() -> None:
    found = {page: blocks(REPO / page) for page in PAGES}
    readme = found["README.md"]
    assert {b.language for b in readme if b.runs} == {"python", "sh"}
    for page in ("docs/python.md", "docs/sql.md", "docs/operations.md", "docs/demo.md"):
        assert any(b.runs for b in found[page]), page
    skipped = [(page, b.line) for page, bs in found.items() for b in bs if b.skip_reason]
    assert len(skipped) <= 3, skipped  # install commands and make targets only


def test_a_failing_block_fails_the_page(page_dsn: str, tmp_path: Path) -> None:
    """The runner really runs blocks: a wrong SQL call, a failing command and a Python error
    each fail, and a skip marker or a text block stops a block from running."""
    page = tmp_path / "page.md"
    page.write_text(
        "# A page\n\n```sql\nselect * from actae.get_channel('no-such-channel');\n```\n\n"
        "```sh\nactae channel show no-such-channel\n```\n\n"
        "```python\nraise RuntimeError('boom')\n```\n\n"
        "<!-- not run by the docs test: proves the marker -->\n```sh\nexit 3\n```\n\n"
        "```text\nexit 4\n```\n")
    found = blocks(page)
    assert [b.language for b in found] == ["sql", "sh", "python", "sh", "text"]
    assert [b.runs for b in found] == [True, True, True, False, False]
    assert found[3].skip_reason == "proves the marker"
    for block in found[:2]:
        with pytest.raises(AssertionError, match="AC404|does not exist"):
            run_block(block, "page.md", page_dsn, {})
    with pytest.raises(RuntimeError, match="boom"):
        run_block(found[2], "page.md", page_dsn, {})
