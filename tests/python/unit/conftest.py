"""Unit tests touch no database, so their result does not depend on the server: they are all
marked ``once`` and run in make test's first pass only (see the marker in pyproject.toml)."""

from __future__ import annotations

from pathlib import Path

import pytest

_HERE = Path(__file__).parent


@pytest.hookimpl(tryfirst=True)  # before -m 'not once' deselects
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if _HERE in item.path.parents:
            item.add_marker(pytest.mark.once)
