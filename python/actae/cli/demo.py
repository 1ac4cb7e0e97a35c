"""``actae demo`` (the crash-recovery story and the fork saving) and ``actae dev`` (a local
PostgreSQL with Actae migrated, until Ctrl-C). Both use ``actae.pg`` for a server of their
own, which needs the ``embedded`` extra when PostgreSQL is not installed."""

from __future__ import annotations

import argparse
import importlib
import os
from pathlib import Path
from types import ModuleType

from actae import demo as stories
from actae.cli.base import Command, CommandError, Subparsers, checked_dsn, count

STORIES = tuple(stories.STORIES)
DEFAULT_STORIES = ["crash", "fork"]


def _demo(args: argparse.Namespace) -> int:
    names = args.stories or DEFAULT_STORIES
    unknown = [name for name in names if name not in STORIES]
    if unknown:
        raise CommandError(f"unknown story {unknown[0]!r}: choose from {', '.join(STORIES)}",
                           code=2)
    dsn = getattr(args, "dsn", None) or os.environ.get("ACTAE_DSN")
    if dsn:
        return stories.run(checked_dsn(dsn), names)
    pg = _pg_module()
    with pg.ensure_dsn() as dsn:
        return stories.run(dsn, names)


def _dev(args: argparse.Namespace) -> int:
    return int(_pg_module().dev_main(args.data_dir, args.port))


def _pg_module() -> ModuleType:
    """actae.pg, imported only when a command needs a server of its own."""
    try:
        return importlib.import_module("actae.pg")
    except ImportError as exc:
        raise CommandError(
            "no database: set ACTAE_DSN (or --dsn), or install a local server with "
            f"pip install 'actae[embedded]' ({exc})", code=2) from None


def _add_demo(sub: Subparsers) -> None:
    p = sub.add_parser(
        "demo", help="the crash-recovery story and the fork saving, on a real database",
        description="Runs on --dsn / $ACTAE_DSN (a migrated Actae database), else on a "
                    "throwaway local server (actae.pg) stopped afterwards.")
    p.add_argument("stories", nargs="*", metavar="STORY",
                   help=f"any of {', '.join(STORIES)} (default: crash fork)")
    p.add_argument("--dsn", default=argparse.SUPPRESS,
                   help="PostgreSQL connection string (default: $ACTAE_DSN)")
    p.set_defaults(handler=_demo)


def _add_dev(sub: Subparsers) -> None:
    p = sub.add_parser("dev", help="start a local PostgreSQL with Actae migrated; print its "
                                   "DSN; run until Ctrl-C")
    p.add_argument("--data-dir", type=Path, default=None,
                   help="where the server keeps its data (default: under your cache folder)")
    p.add_argument("--port", type=count(1, 65535), default=None,
                   help="TCP port (default: $ACTAE_PG_PORT, else 54320 when free, else a free one)")
    p.set_defaults(handler=_dev)


COMMANDS: list[Command] = [_add_demo, _add_dev]
