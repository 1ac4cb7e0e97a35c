"""docs/reference.md from the header comment of every function in sql/*.sql.

    python -m tests.tools.reference           rewrite docs/reference.md
    python -m tests.tools.reference --check   exit 1 when docs/reference.md is stale

A function's header is the block of ``--`` lines right above its ``create or replace
function``; its first line is ``-- actae.name — summary``. The signature (arguments and
``returns``) is read from the definition itself. Public functions come first, file by file;
private helpers (``actae._name``) follow. Only top-level files are read, as migrate does.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "docs" / "reference.md"
CREATE = re.compile(r"^create or replace function (actae\.\w+)\(", re.MULTILINE)
SECTION = re.compile(r"^(Guarantees|Raises|Notes?)\b")


@dataclass(frozen=True)
class Function:
    name: str
    signature: str
    header: list[str]  # comment lines without the leading "-- "
    file: str

    @property
    def private(self) -> bool:
        return self.name.split(".", 1)[1].startswith("_")


def _arguments(text: str, start: int) -> tuple[str, int]:
    """The text between the parenthesis at start and its match, and the index after it."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return text[start + 1:i], i + 1
    raise ValueError("unbalanced parentheses")


def _returns(text: str, end: int) -> str:
    rest = text[end:]
    match = re.match(r"\s*returns\s+(.*?)\n(?:language|volatile|stable|immutable|security|set "
                     r"|as |strict|parallel)", rest, re.IGNORECASE | re.DOTALL)
    return " ".join(match.group(1).split()) if match else ""


def _header(text: str, start: int) -> list[str]:
    lines = text[:start].splitlines()
    header: list[str] = []
    while lines and lines[-1].startswith("--"):
        header.insert(0, lines.pop()[3:] if lines[-1].startswith("-- ") else lines.pop()[2:])
    return header


def functions(sql_dir: Path) -> list[Function]:
    found = []
    for path in sorted(sql_dir.glob("*.sql")):
        text = path.read_text()
        for match in CREATE.finditer(text):
            arguments, end = _arguments(text, match.end() - 1)
            args = [" ".join(a.split()) for a in arguments.split(",\n")] if arguments.strip() \
                else []
            signature = f"{match.group(1)}(" + (
                "\n    " + ",\n    ".join(args) + "\n" if args else "") + ")"
            returns = _returns(text, end)
            if returns:
                signature += f" returns {returns}"
            found.append(Function(match.group(1), signature, _header(text, match.start()),
                                  path.name))
    return found


def _file_intro(path: Path) -> str:
    """The file's first comment line (what the file holds), if it starts with one."""
    first = path.read_text().splitlines()[:1]
    return first[0][3:].strip() if first and first[0].startswith("-- ") else ""


def _entry(function: Function) -> list[str]:
    header = list(function.header)
    summary = ""
    if header and header[0].startswith(function.name):
        summary = header.pop(0)[len(function.name):].lstrip()
        summary = re.sub(r"^(\([^)]*\)\s*)?[—-]\s*", "", summary)
    lines = [f"### `{function.name}`", "", "```text", function.signature, "```", ""]
    if summary:
        lines.append(summary[:1].upper() + summary[1:])
        if not header or SECTION.match(header[0]):
            lines.append("")  # else the summary's sentence goes on in the next line
    for line in header:
        if SECTION.match(line) and lines[-1]:
            lines.append("")  # "Guarantees:" / "Raises:" start their own paragraph
        lines.append(line.rstrip())
    if header:
        lines.append("")
    if not function.header:
        lines += ["*(no header comment)*", ""]
    return lines


def render(sql_dir: Path) -> str:
    found = functions(sql_dir)
    lines = [
        "# SQL reference",
        "",
        "Every function in schema `actae`, generated from the header comment above its",
        "definition in `sql/` by `python -m tests.tools.reference` (do not edit by hand: a test",
        "fails when this page and `sql/` disagree). Positional argument order is the order",
        "shown; every argument can also be named (`p_channel_id => ...`). Errors are the",
        "SQLSTATEs of [docs/sql.md](sql.md#errors).",
        "",
    ]
    current = None
    for function in [f for f in found if not f.private]:
        if function.file != current:
            current = function.file
            intro = _file_intro(sql_dir / current)
            lines += [f"## `sql/{current}`" + (f": {intro}" if intro else ""), ""]
        lines += _entry(function)
    lines += ["## Private helpers", "",
              "Not granted to any role; listed so a reviewer can see what the API relies on.",
              ""]
    for function in [f for f in found if f.private]:
        lines += _entry(function)
    return "\n".join(lines).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when the page is stale")
    args = parser.parse_args(argv)
    text = render(REPO / "sql")
    if args.check:
        if OUT.read_text() != text:
            print(f"{OUT} is stale: run python -m tests.tools.reference", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text)
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
