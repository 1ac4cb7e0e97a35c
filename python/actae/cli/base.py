"""What every ``actae`` command shares: failures, options, one client, and output.

A command module exports ``COMMANDS``: functions that each add one subcommand to the parser
(``sub.add_parser(...)``) and set its ``handler``, a function of the parsed arguments that
returns the exit status. A handler talks to the database only through the client that
``open_client`` gives it and reports a readable failure by raising ``CommandError``; Actae
and database errors become one line on stderr in ``actae.cli.main``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import uuid
from collections.abc import Callable, Generator, Iterable, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol, cast

import psycopg
from psycopg.conninfo import conninfo_to_dict
from psycopg_pool import ConnectionPool
from pydantic import BaseModel

from actae.client import SyncActaeClient, own_pool_args
from actae.errors import InvalidInput, NotFound
from actae.migrate import CONNECT_SECONDS, connect_timeout
from actae.models import Execution


class Subparsers(Protocol):
    """What ``parser.add_subparsers()`` returns, as far as a command uses it (argparse has no
    public name for that type)."""

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser: ...


Command = Callable[[Subparsers], None]


class CommandError(Exception):
    """A one-line failure with its exit status."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


def dsn_from(args: argparse.Namespace) -> str:
    """--dsn, else $ACTAE_DSN, else exit status 2; a DSN libpq cannot parse is status 2 too
    (a usage mistake, found before any connection is tried)."""
    dsn: str | None = getattr(args, "dsn", None) or os.environ.get("ACTAE_DSN")
    if not dsn:
        raise CommandError("no database given: pass --dsn or set ACTAE_DSN", code=2)
    return checked_dsn(dsn)


def checked_dsn(dsn: str) -> str:
    """``dsn`` when libpq can parse it, else exit status 2 naming what is wrong."""
    if not is_utf8(dsn):
        raise CommandError(f"the DSN is not valid UTF-8: {undecodable(dsn)}", code=2)
    try:
        conninfo_to_dict(dsn)
    except psycopg.ProgrammingError as e:
        raise CommandError(f"the DSN cannot be read: {e}", code=2) from None
    return dsn


def is_utf8(text: str) -> bool:
    """False for a command-line argument or environment value that was not valid UTF-8
    (Python keeps such bytes as lone surrogates, which nothing can encode later)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def undecodable(text: str) -> str:
    """Such a value shown with its bad bytes as \\xNN, safe to print."""
    return printable(os.fsencode(text).decode("utf-8", "backslashreplace"))


def common_options() -> argparse.ArgumentParser:
    """--dsn and --json for a subcommand. They are also accepted before the subcommand
    (``actae --json status``); given here they win, absent here they leave that value alone."""
    parent = argparse.ArgumentParser(add_help=False)
    parent.add_argument("--dsn", default=argparse.SUPPRESS,
                        help="PostgreSQL connection string (default: $ACTAE_DSN)")
    parent.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                        help="print JSON instead of text")
    return parent


# --- argparse types (a bad value is argparse's one-line error naming the option, status 2) --

def _integer(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid int value: {text!r}") from None


def count(low: int, high: int | None = None) -> Callable[[str], int]:
    """``type=`` for a count from ``low`` (to ``high``, the server's own limit, when given):
    a value outside is argparse's error naming the option, not the server's naming its
    argument."""
    def check(text: str) -> int:
        value = _integer(text)
        if high is None and value < low:
            raise argparse.ArgumentTypeError(f"must be {_LOW.get(low, f'at least {low}')},"
                                             f" got {value}")
        if high is not None and not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be {low} to {high}, got {value}")
        return value
    return check


_LOW = {0: "0 or more", 1: "at least 1"}
#: a count of at least 1 (a concurrency)
at_least_one = count(1)
#: a count where 0 means something (none, or no limit: say which in the option's help)
at_least_zero = count(0)
#: the server's limit on a page of rows (max_rows, max_events, batch_size)
MAX_ROWS = 100000
#: the console reads' own limits (timeline, fork_tree, diff_states; list_channels: 1000)
MAX_CONSOLE_ROWS = 10000
#: the largest bigint (cursors, quotas), and the largest after_clock actae.timeline takes
MAX_BIGINT = 2**63 - 1
MAX_AFTER_CLOCK = MAX_BIGINT - 1


def reachable(dsn: str) -> str:
    """dsn, once a connection to it succeeded within CONNECT_SECONDS; else CommandError with
    libpq's own one-line reason (status 1)."""
    try:
        psycopg.connect(dsn, **connect_timeout(dsn)).close()
    except psycopg.OperationalError as exc:
        reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise CommandError(f"cannot connect to the database: {reason}") from None
    return dsn


@contextmanager
def open_client(args: argparse.Namespace) -> Generator[SyncActaeClient, None, None]:
    """A SyncActaeClient on one connection to the command's database. A database that cannot
    be reached fails at once (within CONNECT_SECONDS) with libpq's own one-line reason, rather
    than after the pool's retries."""
    dsn = reachable(dsn_from(args))
    pool: ConnectionPool = ConnectionPool(dsn, min_size=1, max_size=1,
                                          **own_pool_args(aio=False), open=False,
                                          timeout=CONNECT_SECONDS)
    with SyncActaeClient(pool=pool) as client:
        pool.open(wait=True, timeout=CONNECT_SECONDS)
        try:
            yield client
        finally:
            pool.close()


def require_channel(client: SyncActaeClient, channel_id: str, create: str) -> None:
    """Refuse (status 1) a channel that does not exist: the call about to be made would
    create it (a misspelled id then gets the event or setting, the real channel not).
    ``create``: what the command's --create does instead."""
    try:
        client.get_channel(channel_id)
    except NotFound:
        raise CommandError(f"channel {channel_id} does not exist (is the id misspelled?"
                           f" --create {create})") from None


def parse_uuid(text: str, argument: str) -> uuid.UUID:
    """An id given on the command line, or a one-line CommandError naming the argument."""
    try:
        return uuid.UUID(text)
    except ValueError:
        raise CommandError(f"{argument} must be a UUID, got {text!r}", code=2) from None


_BARE_NUMBER = re.compile(r"^\s*[+-]?(\d+\.?\d*|\.\d+)\s*$")


@contextmanager
def interval_argument(option: str, text: str | None) -> Generator[None, None, None]:
    """Turn PostgreSQL refusing ``text`` as an interval into one line naming the option. A
    number with no unit is refused first: PostgreSQL reads '30' as 30 seconds, and
    `purge --older-than 30` meant as days deleted every channel closed for 30 seconds."""
    if text is not None and _BARE_NUMBER.match(text):
        raise CommandError(f"{option} needs a unit, such as '{text.strip()} days' or "
                           f"'{text.strip()} seconds', got {text!r}", code=2)
    try:
        yield
    except InvalidInput as exc:
        if text is not None and isinstance(exc.__cause__, psycopg.DataError):
            raise CommandError(f"{option} must be an interval such as '30 days' or "
                               f"'12 hours', got {text!r}", code=2) from None
        raise


# --- output -------------------------------------------------------------------------------

def to_json(value: Any) -> str:
    """JSON for a model, a list of models or plain data (models by their column names)."""
    return json.dumps(_plain(value), default=str)


def _plain(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in cast(dict[Any, Any], value).items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in cast(Sequence[Any], value)]
    return value


_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def printable(text: str) -> str:
    """`text` with every C0 and C1 control character and DEL written as \\xNN, so a string
    an agent chose (event type, tool name, key, error, id) cannot move the cursor, send
    terminal escape sequences or start a line of its own on the operator's terminal."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def cell(value: Any) -> str:
    """One value as a short human string: times to the second in UTC, durations as 1h2m3s;
    control characters escaped (printable)."""
    return printable(_cell(value))


def _cell(value: Any) -> str:
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
    parts: list[str] = []
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60), ("s", 1)):
        amount, seconds = divmod(seconds, size)
        if amount >= 1:
            parts.append(f"{int(amount)}{unit}")
    return sign + "".join(parts[:2])


def interval_text(value: timedelta) -> str:
    """A duration in words that PostgreSQL also accepts as an interval: '7 days',
    '1 day 12 hours', '1 hour 30 minutes', '0.5 seconds'."""
    seconds = value.total_seconds()
    sign, seconds = ("-", -seconds) if seconds < 0 else ("", seconds)
    parts: list[str] = []
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        amount, seconds = divmod(seconds, size)
        if amount >= 1:
            parts.append(f"{int(amount)} {unit}{'s' if amount >= 2 else ''}")
    if seconds or not parts:
        number = f"{seconds:.6f}".rstrip("0").rstrip(".")
        parts.append(f"{number} second{'' if number == '1' else 's'}")
    return sign + " ".join(parts)


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
    width = max(len(printable(label)) for label, _ in items)
    return "\n".join(f"{printable(label).ljust(width)}  {cell(value)}" for label, value in items)


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
