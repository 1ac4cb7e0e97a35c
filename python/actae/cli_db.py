"""Plumbing shared by the operator commands: options, one connection, one call at a time.

Commands send only the statements built in ``actae.calls`` (Actae functions and views), on
one autocommit connection, so each call is its own transaction as for any other client.
"""

from __future__ import annotations

import argparse
import functools
import uuid
from collections.abc import Callable
from typing import Any, TypeVar

import psycopg
from psycopg.rows import dict_row

from actae.calls import Call
from actae.cli import CommandError, dsn_from
from actae.errors import ActaeError, map_error

T = TypeVar("T")
Handler = Callable[[argparse.Namespace, psycopg.Connection[Any]], int]


def common_options() -> argparse.ArgumentParser:
    """The --dsn and --json options every operator command takes."""
    parent = argparse.ArgumentParser(add_help=False)
    parent.add_argument("--dsn", help="PostgreSQL connection string (default: $ACTAE_DSN)")
    parent.add_argument("--json", action="store_true", help="print JSON instead of tables")
    return parent


def with_connection(handler: Handler) -> Callable[[argparse.Namespace], int]:
    """Open the connection for a command; an Actae error becomes one line and exit status 1."""

    @functools.wraps(handler)
    def command(args: argparse.Namespace) -> int:
        with psycopg.connect(dsn_from(args), autocommit=True) as conn:
            try:
                return handler(args, conn)
            except ActaeError as exc:
                raise CommandError(f"{exc.message} [{exc.sqlstate}]") from exc

    return command


def run(conn: psycopg.Connection[Any], call: Call[T]) -> T:
    """Execute one call and read its rows; database errors are mapped to Actae's classes."""
    try:
        with conn.cursor(row_factory=dict_row) as cur:
            cur.execute(call.sql, call.params)
            return call.read(cur.fetchall())
    except (psycopg.Error, ValueError) as exc:
        raise map_error(exc) from exc


def parse_uuid(text: str, argument: str) -> uuid.UUID:
    """An id given on the command line, or a one-line CommandError."""
    try:
        return uuid.UUID(text)
    except ValueError:
        raise CommandError(f"{argument} must be a UUID, got {text!r}") from None
