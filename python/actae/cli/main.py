"""``actae``: the parser built from every command module's ``COMMANDS``, and ``main``.

Global options (``--dsn``, ``--json``, ``--version``) go before or after the subcommand.
Failures are one line on stderr: ``CommandError`` with its own status, Actae and database
errors with status 1, an argument that is not valid UTF-8 with status 2; control characters
in the message are escaped. A reader that closes the pipe early (``actae executions | head -1``)
ends the command quietly with status 141, as a process killed by SIGPIPE would; Ctrl-C
ends any command quietly with status 130 (the statement it was waiting for is cancelled).
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import sys
from collections.abc import Sequence
from importlib import metadata

import psycopg

from actae.cli import admin, channels, console, demo, migrate, runs, tenants
from actae.cli.base import Command, CommandError, is_utf8, printable, undecodable
from actae.errors import ActaeError, with_hint
from actae.migrate import MigrationError

COMMANDS: list[Command] = [*migrate.COMMANDS, *admin.COMMANDS, *channels.COMMANDS,
                           *demo.COMMANDS, *runs.COMMANDS, *console.COMMANDS,
                           *tenants.COMMANDS]
BROKEN_PIPE_STATUS = 141
INTERRUPTED_STATUS = 130  # 128 + SIGINT, as a shell reports a command stopped by Ctrl-C


def version() -> str:
    """actae.__version__, else the installed distribution's version."""
    import actae

    found = getattr(actae, "__version__", None)
    if found:
        return str(found)
    try:
        return metadata.version("actae")
    except metadata.PackageNotFoundError:
        return "unknown"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="actae", description="Actae: a durable-execution ledger for AI agents.")
    parser.add_argument("--version", action="version", version=f"actae {version()}")
    parser.add_argument("--dsn", help="PostgreSQL connection string (default: $ACTAE_DSN)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in COMMANDS:
        add(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    for text in arguments:
        # Bytes that are not UTF-8 could reach neither the database nor the terminal.
        if not is_utf8(text):
            print(f"actae: an argument is not valid UTF-8: {undecodable(text)}",
                  file=sys.stderr)
            return 2
    args = build_parser().parse_args(arguments)
    # The pool logs a connection it drops (say, the server ended it) as a warning, which with
    # no logging set up Python prints before the command's own one-line error; a command
    # that sets logging up (actae worker) still gets it through its handlers.
    logging.getLogger("psycopg.pool").addHandler(logging.NullHandler())
    try:
        status = int(args.handler(args))
        sys.stdout.flush()
        return status
    except BrokenPipeError:
        # Python would report the failed flush at exit (status 120); point stdout and stderr
        # (either can be the closed pipe: --follow says on stderr that a channel is new) at
        # nothing instead.
        nothing = os.open(os.devnull, os.O_WRONLY)
        os.dup2(nothing, sys.stdout.fileno())
        os.dup2(nothing, sys.stderr.fileno())
        return BROKEN_PIPE_STATUS
    except KeyboardInterrupt:
        # Ctrl-C is how an operator stops a command (a slow purge, a migrate waiting for a
        # lock, a --follow): psycopg has cancelled the statement it interrupted; what was
        # printed stays, without a traceback.
        with contextlib.suppress(OSError, ValueError):
            sys.stdout.flush()
        return INTERRUPTED_STATUS
    except CommandError as exc:
        return _fail(args, str(exc), exc.code)
    except ActaeError as exc:
        suffix = f" [{exc.sqlstate}]" if exc.sqlstate else ""
        return _fail(args, f"{exc.message}{suffix}", 1)
    except psycopg.Error as exc:
        return _fail(args, with_hint(exc), 1)
    except MigrationError as exc:
        return _fail(args, str(exc), 1)


def _fail(args: argparse.Namespace, message: str, code: int) -> int:
    lines = message.strip().splitlines() or ["failed"]
    # an error can quote what an agent wrote (a channel id, a key): no control characters
    print(printable(f"actae {args.command}: {lines[0]}"), file=sys.stderr)
    return code
