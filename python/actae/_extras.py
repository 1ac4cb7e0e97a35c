"""The integrations' third-party imports, which come with an extra of the package."""

from __future__ import annotations

from collections.abc import Generator
from contextlib import contextmanager


@contextmanager
def needs(extra: str, module: str) -> Generator[None, None, None]:
    """Around a module's imports of an extra's packages: a missing one raises
    ModuleNotFoundError naming the extra to install (``No module named 'agents'`` did not
    say it comes with ``actae[openai-agents]``); the missing module's name is kept."""
    try:
        yield
    except ImportError as exc:
        raise ModuleNotFoundError(
            f"{module} needs its extra: pip install 'actae[{extra}]' ({exc})",
            name=exc.name) from exc
