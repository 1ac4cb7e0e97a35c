"""Fenced code blocks of a markdown page, as the docs tests execute them.

A block is run according to its language: ``sql`` (psql), ``python`` and ``sh`` (bash).
``text`` blocks are never run. A runnable-looking block that must not run is preceded, on
the line right above its fence, by ``<!-- not run by the docs test: <reason> -->``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

FENCE = re.compile(r"^```([\w-]*)\s*$")
SKIP = re.compile(r"^<!-- not run by the docs test: (\S.*\S) -->$")
RUNNABLE = ("sql", "python", "sh")
LANGUAGES = (*RUNNABLE, "text")


@dataclass(frozen=True)
class Block:
    language: str
    code: str
    line: int  # 1-based line of the opening fence
    heading: str  # the nearest heading above the block
    skip_reason: str | None = None

    @property
    def runs(self) -> bool:
        return self.language in RUNNABLE and self.skip_reason is None


def blocks(path: Path) -> list[Block]:
    """Every fenced block of the page, in order; an unterminated fence is an error."""
    lines = path.read_text().splitlines()
    found: list[Block] = []
    heading = ""
    i = 0
    while i < len(lines):
        if lines[i].startswith("#"):
            heading = lines[i].lstrip("#").strip()
        match = FENCE.match(lines[i])
        if not match:
            i += 1
            continue
        end = i + 1
        while end < len(lines) and lines[end].strip() != "```":
            end += 1
        if end == len(lines):
            raise ValueError(f"{path}:{i + 1}: unterminated code block")
        skip = SKIP.match(lines[i - 1]) if i else None
        found.append(Block(match.group(1), "\n".join(lines[i + 1:end]) + "\n", i + 1, heading,
                           skip.group(1) if skip else None))
        i = end + 1
    return found


def first_python_after(path: Path, heading_part: str) -> Block:
    """The first python block under a heading that contains heading_part."""
    for block in blocks(path):
        if block.language == "python" and heading_part.lower() in block.heading.lower():
            return block
    raise LookupError(f"{path}: no python block under a heading with {heading_part!r}")
