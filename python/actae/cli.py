"""The ``actae`` command line.

Each entry of ``SUBCOMMANDS`` adds one subcommand's parser and sets its ``handler``: a
function of the parsed arguments that returns the exit status. To add a command, write
such a pair and append the adder to the list. A handler reports a readable failure by
raising ``CommandError``; database errors become one line on stderr and exit status 1.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence

import psycopg

from actae import migrate as migrations

Subparsers = argparse._SubParsersAction  # argparse has no public name for this type


class CommandError(Exception):
    """A one-line failure with its exit status."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


def dsn_from(args: argparse.Namespace) -> str:
    """--dsn, else $ACTAE_DSN, else exit status 2."""
    dsn: str | None = getattr(args, "dsn", None) or os.environ.get("ACTAE_DSN")
    if not dsn:
        raise CommandError("no database given: pass --dsn or set ACTAE_DSN", code=2)
    return dsn


def _run_migrate(args: argparse.Namespace) -> int:
    dsn = dsn_from(args)
    if args.status:
        rows = migrations.status(dsn)
        if args.json:
            print(json.dumps([_status_json(r) for r in rows]))
        else:
            for r in rows:
                print(f"{r.state:<8} {r.name}")
        return 0
    applied = migrations.migrate(dsn)
    if args.json:
        print(json.dumps(applied))
    elif applied:
        print("\n".join(f"applied {name}" for name in applied))
    else:
        print("migrations up to date; sql/ reloaded")
    return 0


def _status_json(row: migrations.MigrationStatus) -> dict[str, object]:
    applied_at = row.applied_at.isoformat() if row.applied_at else None
    return {"version": row.version, "name": row.name, "state": row.state, "applied_at": applied_at}


def _add_migrate(sub: Subparsers) -> None:
    p = sub.add_parser("migrate", help="apply pending migrations and reload sql/ functions")
    p.add_argument("--dsn", help="PostgreSQL connection string (default: $ACTAE_DSN)")
    p.add_argument("--status", action="store_true", help="show applied/pending, change nothing")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.set_defaults(handler=_run_migrate)


SUBCOMMANDS: list[Callable[[Subparsers], None]] = [_add_migrate]


def build_parser() -> argparse.ArgumentParser:
    # Operator commands (status, channel, executions, fork, cancel, purge) import this
    # module, so they are loaded here rather than at the top.
    from actae.cli_ops import OPS_SUBCOMMANDS

    parser = argparse.ArgumentParser(
        prog="actae", description="Actae: a durable-execution ledger for AI agents."
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    from actae.cli_console import COMMANDS as CONSOLE_COMMANDS

    for add in [*SUBCOMMANDS, *OPS_SUBCOMMANDS, *CONSOLE_COMMANDS]:
        add(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.handler(args))
    except CommandError as exc:
        print(f"actae {args.command}: {exc}", file=sys.stderr)
        return exc.code
    except (migrations.MigrationError, psycopg.Error) as exc:
        lines = str(exc).strip().splitlines() or [type(exc).__name__]
        print(f"actae {args.command}: {lines[0]}", file=sys.stderr)
        return 1
