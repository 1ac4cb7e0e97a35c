"""Text and JSON output for the ``actae`` command line: aligned tables, key/value blocks."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from pydantic import BaseModel

from actae.models import Execution


def to_json(value: Any) -> str:
    """JSON for a model, a list of models or plain data (models by their column names)."""
    return json.dumps(_plain(value), default=str)


def _plain(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def cell(value: Any) -> str:
    """One value as a short human string: times to the second in UTC, durations as 1h2m3s."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, datetime):
        return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%SZ")
    if isinstance(value, timedelta):
        return duration(value)
    if isinstance(value, float):
        return f"{value:.3f}"
    if isinstance(value, dict | list):
        return json.dumps(value, default=str)
    return str(value)


def duration(value: timedelta) -> str:
    """A duration as 2d3h, 4m5s, 0.250s (negative durations keep their sign)."""
    seconds = value.total_seconds()
    sign, seconds = ("-", -seconds) if seconds < 0 else ("", seconds)
    if seconds < 60:
        return f"{sign}{seconds:.3f}s"
    parts = []
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60), ("s", 1)):
        amount, seconds = divmod(seconds, size)
        if amount >= 1:
            parts.append(f"{int(amount)}{unit}")
    return sign + "".join(parts[:2])


def table(rows: Iterable[Sequence[Any]], headers: Sequence[str]) -> str:
    """Rows under upper-case headers, columns left-aligned and separated by two spaces."""
    lines = [[h.upper() for h in headers]] + [[cell(v) for v in row] for row in rows]
    if len(lines) == 1:
        return "(none)"
    widths = [max(len(line[i]) for line in lines) for i in range(len(headers))]
    return "\n".join(
        "  ".join(text.ljust(width) for text, width in zip(line, widths, strict=True)).rstrip()
        for line in lines
    )


def pairs(items: Iterable[tuple[str, Any]]) -> str:
    """``label  value`` lines with the labels aligned."""
    items = list(items)
    width = max(len(label) for label, _ in items)
    return "\n".join(f"{label.ljust(width)}  {cell(value)}" for label, value in items)


EXECUTION_HEADERS = (
    "execution_id", "channel", "key", "tool", "status", "attempt", "lease_expires", "cancel",
)


def execution_rows(executions: list[Execution]) -> list[tuple[Any, ...]]:
    """Table rows for executions (EXECUTION_HEADERS)."""
    return [
        (e.id, e.channel_id, e.key_name, e.tool_name, e.status, e.attempt, e.lease_expires_at,
         e.cancel_reason if e.cancel_requested else None)
        for e in executions
    ]
