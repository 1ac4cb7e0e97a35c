"""Actae's exceptions and the one place that maps database errors onto them.

Every Actae function raises with its own SQLSTATE (class ``AC``); the driver branches on
``diag.sqlstate``, never on message text. DETAIL is JSON and becomes ``exc.detail``.
``ActaeError.sqlstate`` is only ever such a SQLSTATE, or None for errors the driver raises
about an execution's state (ToolFailed, Cancelled, ToolInProgress); those say the
execution's status in ``status`` instead.
"""

from __future__ import annotations

import json
import math
import re
import time
from collections.abc import Mapping, Sequence
from typing import Any, cast

import psycopg
import pydantic
from psycopg.types.json import Jsonb
from psycopg_pool import PoolClosed, PoolTimeout

from actae._pool import CONNECT_FAILED_AT


class ActaeError(Exception):
    """Base class of every error Actae raises on purpose."""

    #: the SQLSTATE the database raised (``AC400``...), None when the driver raised it.
    sqlstate: str | None = None
    #: the execution status behind a ToolFailed, Cancelled or ToolInProgress, else None.
    status: str | None = None

    def __init__(self, message: str, detail: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.detail: dict[str, Any] = detail or {}


class InvalidInput(ActaeError):
    """AC400: an argument is missing, empty, the wrong shape or out of range."""

    sqlstate = "AC400"


class ForkToolBlocked(ActaeError):
    """AC403: a fork claimed a tool that its fork policy blocks."""

    sqlstate = "AC403"


class NotFound(ActaeError):
    """AC404: channel, execution, version or cursor does not exist."""

    sqlstate = "AC404"


class IdempotencyConflict(ActaeError):
    """AC409: a key or operation_id reused with different content."""

    sqlstate = "AC409"


class VersionConflict(ActaeError):
    """AC412: expected_version / expected_cursor is stale; detail has the current values."""

    sqlstate = "AC412"


class LeaseLost(ActaeError):
    """AC423: the claim token is not the current owner's."""

    sqlstate = "AC423"


class QuotaExceeded(ActaeError):
    """AC429: the tenant is at a quota (channels, bytes, events per channel) or a cap
    (watched channels); ``detail`` names the quota, its limit and the usage."""

    sqlstate = "AC429"


class ToolFailed(ActaeError):
    """An execution failed non-retryably; ``detail`` holds the stored error."""

    status = "failed"


class Cancelled(ToolFailed):
    """The execution was cancelled (actae.cancel_execution): its status is ``cancelled``;
    run_tool stopped the tool. The message is the stored error (``cancelled: <reason>``)."""

    status = "cancelled"


class ToolInProgress(ActaeError):
    """The execution is still owned by another attempt: run_tool's wait_timeout elapsed, or
    compensate was asked to undo an execution whose outcome is not recorded yet."""

    status = "in_progress"


class PermanentError(Exception):
    """Raise this (or a subclass) from a tool when retrying cannot help (a declined card, an
    invalid request): the execution is failed non-retryably and every later claim of its key
    raises ToolFailed. Any other exception is recorded as retryable."""


_BY_SQLSTATE: dict[str, type[ActaeError]] = {
    cls.sqlstate: cls
    for cls in (InvalidInput, ForkToolBlocked, NotFound, IdempotencyConflict, VersionConflict,
                LeaseLost, QuotaExceeded)
    if cls.sqlstate is not None
}


# The statement's arguments as the driver sends them (actae.calls._sql): %(name)s::type,
# an array type with [].
_ARGUMENT = re.compile(r"%\((\w+)\)[sb]::(\w+)(\[\])?")
_INTEGERS = {"smallint": 2**15, "integer": 2**31, "bigint": 2**63}


def _refused_argument(sql: str, params: Mapping[str, Any], sqlstate: str,
                      message: str) -> tuple[str, str] | None:
    """The argument whose cast the server refused before the function ran (class 22), as
    its ``sqlstate`` and ``message`` say: an integer beyond its SQL type (22003), JSON with
    NaN or Infinity (22P02 naming type json); and why. None when no argument explains it
    (another argument's refusal is not blamed on it). Only the SQLSTATE and the type's name
    are read: lc_messages translates the rest ("Typ json"). Only looked for once the server
    has refused the statement."""
    for name, sql_type, array in _ARGUMENT.findall(sql):
        value = params.get(name)
        values: Sequence[Any] = (cast(Sequence[Any], value)
                                 if array and isinstance(value, list | tuple) else [value])
        bound = _INTEGERS.get(sql_type)
        if bound and sqlstate == "22003":
            beyond = [v for v in values if isinstance(v, int) and not -bound <= v < bound]
            if beyond:
                return name, f"is out of range for a PostgreSQL {sql_type}: {beyond[0]}"
        if sql_type == "jsonb" and sqlstate == "22P02" and "json" in message and any(
                isinstance(v, Jsonb) and _not_finite(v.obj) for v in values):
            return name, "is not valid JSON: NaN and Infinity are not JSON numbers"
    return None


def _not_finite(value: Any) -> bool:
    """Whether a JSON value holds a NaN or infinite float (walked without recursion: the
    value may be nested deeper than Python's stack; each container once: it may hold
    itself, which the encoder refused)."""
    stack: list[Any] = [value]
    seen: set[int] = set()
    while stack:
        item = stack.pop()
        if isinstance(item, float) and not math.isfinite(item):
            return True
        if id(item) in seen:
            continue
        if isinstance(item, dict):
            seen.add(id(cast(object, item)))
            stack.extend(cast(dict[Any, Any], item).values())
        elif isinstance(item, list | tuple):
            seen.add(id(cast(object, item)))
            stack.extend(cast(Sequence[Any], item))
    return False


def _unsendable_text(params: Mapping[str, Any]) -> tuple[str, str] | None:
    """The first text argument (or element of a text array) PostgreSQL cannot store: a NUL
    byte, or a lone surrogate UTF-8 cannot encode. Refused before it was sent, by psycopg,
    whose error does not say which argument it was."""
    for name, value in params.items():
        texts = [value] if isinstance(value, str) else [
            v for v in cast(Sequence[Any], value) if isinstance(v, str)
        ] if isinstance(value, list | tuple) else []
        for text in texts:
            if "\x00" in text:
                return name, "cannot contain a NUL byte (PostgreSQL text cannot hold one)"
            try:
                text.encode()
            except UnicodeEncodeError:
                return name, "is not valid UTF-8 text (a lone surrogate)"
    return None


_UNREACHED = "_actae_unreached"  # set on an error of one of Actae's own statements
# The server ended the connection or refused it (class 08, admin / crash shutdown, "cannot
# connect now"); any error that leaves the connection broken is counted too (57P05, an
# idle session ended, ...).
_CONNECTION_STATES = ("08", "57P01", "57P02", "57P03")
_RECENT = 35.0  # seconds: a pool's failure to connect this recent explains its timeout


def mark_unreached(exc: BaseException, conn: Any, pool: Any) -> None:
    """Mark ``exc``, raised by an Actae statement on a connection of the client's pool
    ``pool`` (``conn``, None when none was had), when it says the database could not be
    reached: "server" for a connection the server ended or refused, or one left broken
    under the statement, or a pool timeout of a pool that failed to connect moments ago (a
    pool of the client's own records when); "pool" for another pool timeout (the database
    may be down, or the pool's connections all busy: the worker asks which). A closed pool,
    or a connection of the caller's own (never passed here), are not marked."""
    if isinstance(exc, PoolTimeout):
        failed_at = getattr(pool, CONNECT_FAILED_AT, None)
        recent = failed_at is not None and time.monotonic() - failed_at < _RECENT
        setattr(exc, _UNREACHED, "server" if recent else "pool")
    elif isinstance(exc, psycopg.OperationalError) and not isinstance(exc, PoolClosed) and (
            (exc.sqlstate or "").startswith(_CONNECTION_STATES)
            or (conn is not None and conn.broken)):
        setattr(exc, _UNREACHED, "server")


def unreached(exc: BaseException) -> str | None:
    """How ``exc``, from one of Actae's own statements, failed to reach the database:
    "server" (the connection was ended, refused or lost), "pool" (no connection in time),
    or None (anything else: the caller's, the statement's). The worker leaves a run stopped
    so as after a crash, uncounted, instead of failing it as the agent's own error."""
    return cast(str | None, getattr(exc, _UNREACHED, None))


# Undefined table, schema or function of schema actae: the database has no Actae yet, or an
# older one than this install.
_MISSING_OBJECT = {"42P01", "3F000", "42883"}


def with_hint(exc: BaseException) -> str:
    """The error's text; when a database error names a missing object of Actae's, only its
    first line, which says what to do (the command line's one-line errors, the worker's
    log)."""
    text = str(exc).strip()
    if getattr(exc, "sqlstate", None) in _MISSING_OBJECT and "actae" in text:
        return f"{text.splitlines()[0]} (is this database migrated? run actae migrate)"
    return text


def map_error(exc: BaseException, sql: str | None = None,
              params: Mapping[str, Any] | None = None) -> BaseException:
    """The Actae exception for a database or encoding error, or ``exc`` unchanged.

    Text the server could never store (a NUL byte, a lone surrogate) is rejected before it is
    sent, so it surfaces as InvalidInput too, as does JSON nested too deeply to encode. An
    argument the server could not take as its SQL type (``sql`` and ``params``, the
    statement sent: an integer beyond it, JSON with NaN) is InvalidInput naming it.
    """
    if isinstance(exc, psycopg.Error) and exc.diag.sqlstate in _BY_SQLSTATE:
        detail: dict[str, Any] = {}
        if exc.diag.message_detail:
            try:
                detail = json.loads(exc.diag.message_detail)
            except ValueError:
                detail = {"detail": exc.diag.message_detail}
        return _BY_SQLSTATE[exc.diag.sqlstate](exc.diag.message_primary or str(exc), detail)
    if isinstance(exc, RecursionError):
        # JSON nested deeper than Python's json module can encode (or decode) — about 1000
        # levels; PostgreSQL itself would stop somewhere near 100 000 (stack depth).
        return InvalidInput(f"a JSON value is nested too deeply for the driver: {exc}")
    if isinstance(exc, pydantic.ValidationError):
        # A row that does not fit its model is a driver/schema mismatch, not bad input.
        return exc
    if isinstance(exc, UnicodeDecodeError):
        # A row read back in another client encoding (a caller's pool): not an argument.
        return exc
    if isinstance(exc, psycopg.DataError | UnicodeEncodeError | ValueError):
        refused = None
        # Refused by the server (class 22) before the function ran, not by the encoder.
        if (isinstance(exc, psycopg.DataError) and (exc.sqlstate or "").startswith("22")
                and sql and params):
            refused = _refused_argument(sql, params, exc.sqlstate or "",
                                        exc.diag.message_primary or "")
        if refused is None and params:
            refused = _unsendable_text(params)
        if refused is not None:
            name, why = refused
            return InvalidInput(f"{name} {why}", {"argument": name})
        return InvalidInput(f"an argument cannot be sent to PostgreSQL: {exc}")
    return exc


class ConnectionFailed(ActaeError):
    """The database cannot be reached or refuses us (host, port, name, credentials); the
    message and ``detail`` name the host and port tried. Clients raise it from ``open()``
    within seconds instead of waiting for the pool's timeout."""
