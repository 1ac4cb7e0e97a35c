"""An integration imported without its extra says which extra to install, and the command
line still says it in one line (the console's)."""

from __future__ import annotations

import importlib
import sys

import pytest

# (module, a package of its extra, the extra)
INTEGRATIONS = [
    ("actae.langgraph", "langchain_core", "langgraph"),
    ("actae.langgraph", "langgraph", "langgraph"),
    ("actae.openai_agents", "agents", "openai-agents"),
    ("actae.otel", "opentelemetry", "otel"),
    ("actae.pydantic_ai", "pydantic_ai", "pydantic-ai"),
    ("actae.console.app", "starlette", "console"),
    ("actae.console.app", "jinja2", "console"),
    ("actae.console.server", "uvicorn", "console"),
]


@pytest.mark.parametrize(("module", "package", "extra"), INTEGRATIONS)
def test_a_missing_extra_is_named(monkeypatch: pytest.MonkeyPatch, module: str,
                                  package: str, extra: str) -> None:
    for name in [m for m in sys.modules if m in (module, package)
                 or m.startswith(("actae.console.", f"{package}."))]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, package, None)  # as if it were not installed
    with pytest.raises(ModuleNotFoundError) as raised:
        importlib.import_module(module)
    assert f"needs its extra: pip install 'actae[{extra}]'" in str(raised.value), raised.value
    assert (raised.value.name or "").split(".")[0] == package
