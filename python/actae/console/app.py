"""The console's ASGI app: server-rendered pages over the console reads, live timeline via SSE.

Every page is plain HTML (Jinja2, autoescaped) and works with JavaScript off; only the live
update of an open timeline uses a few lines of script (EventSource). All database access
goes through ActaeClient (console.exact.ConsoleClient: JSON numbers read exactly, shown
as stored). Pages are bounded: a timeline page holds at most TIMELINE_ROWS
rows, lists and trees have fixed caps, and long JSON values are cut to JSON_CHARS characters.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import ipaddress
import logging
import re
from collections.abc import (
    AsyncGenerator,
    AsyncIterator,
    Awaitable,
    Callable,
    Iterable,
    Mapping,
)
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlencode

import psycopg
from psycopg.types.json import Jsonb
from psycopg_pool import AsyncConnectionPool, PoolTimeout

from actae import calls
from actae._extras import needs
from actae._runtime import detach, retrieve
from actae.console import tree
from actae.console.exact import ConsoleClient, exact_loads
from actae.console.jsontext import json_text, path_text
from actae.console.live import Recreated, follow_timeline
from actae.console.models import TimelineEntry, micros
from actae.errors import ActaeError, InvalidInput, NotFound

with needs("console", "actae.console.app"):
    import jinja2
    from starlette.applications import Starlette
    from starlette.middleware import Middleware
    from starlette.requests import Request
    from starlette.responses import HTMLResponse, Response, StreamingResponse
    from starlette.routing import Route
    from starlette.types import ASGIApp, Receive, Scope, Send

log = logging.getLogger("actae.console")

TIMELINE_ROWS = 200
LIST_ROWS = 50
LEDGER_ROWS = 200
TREE_NODES = 200
DIFF_CHANGES = 500
TRAIL_RESULTS = 200
JSON_CHARS = 20_000
MAX_STREAMS = 8
#: how long a page may wait for the database (a free connection, then its reads) before
#: the console answers 503; a read cut off is cancelled in the server first (psycopg gives
#: that up to 5 s when the server does not answer, then drops the connection)
REQUEST_SECONDS = 15.0
LOCAL_HOSTS = ("127.0.0.1", "localhost", "[::1]")
#: the line breaks of the SSE format; str.splitlines() also breaks at U+2028, U+0085, ...
_SSE_LINES = re.compile(r"\r\n|\r|\n")
RUN_STATUSES = ("queued", "running", "sleeping", "waiting", "completed", "failed", "cancelled")
#: the largest after_clock actae.timeline takes
MAX_AFTER = 2**63 - 2

_ENV = jinja2.Environment(
    loader=jinja2.FileSystemLoader(Path(__file__).with_name("templates")),
    autoescape=True,
    undefined=jinja2.StrictUndefined,
)


class ConsoleRoleCanWrite(RuntimeError):
    """The console was given a DSN whose role can write to the ledger."""


def pretty(value: Any, limit: int = JSON_CHARS) -> str:
    """Indented JSON, cut to `limit` characters (the rest is counted, not shown). A Decimal
    (an integer beyond Python's int limit, as the driver reads it) is a bare JSON number."""
    text = json_text(value, indent=2, sort_keys=True)
    if len(text) > limit:
        return f"{text[:limit]}\n… ({len(text) - limit} more characters not shown)"
    return text


def when(value: datetime | str | None) -> str:
    """A time in UTC, to the millisecond, saying so (whatever the session's time zone); a
    time inside JSON (a decision trail's event) comes as its ISO text."""
    if value is None:
        return "-"
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    if value.tzinfo is None:
        return value.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]
    return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3] + " UTC"


def query(base: str, **params: Any) -> str:
    """A URL with the non-empty parameters encoded."""
    kept = {k: v for k, v in params.items() if v not in (None, "")}
    return f"{base}?{urlencode(kept)}" if kept else base


# jinja2 leaves Environment.filters and .globals untyped (dicts inferred from its defaults).
_ENV.filters["pretty"] = pretty  # pyright: ignore[reportUnknownMemberType]
_ENV.filters["when"] = when  # pyright: ignore[reportUnknownMemberType]
_ENV.filters["path_text"] = path_text  # pyright: ignore[reportUnknownMemberType]
_ENV.globals["url"] = query  # pyright: ignore[reportUnknownMemberType]


def render(name: str, status_code: int = 200, **context: Any) -> HTMLResponse:
    return HTMLResponse(_ENV.get_template(name).render(**context), status_code=status_code)


def timeline_rows_html(rows: list[TimelineEntry], channel_id: str) -> str:
    """The <tr> rows of a timeline (the page and the live stream render the same rows)."""
    return _ENV.get_template("_timeline_rows.html").render(rows=rows, channel_id=channel_id)


def _text(params: Mapping[str, str], name: str) -> str | None:
    value = params.get(name, "").strip()
    return value or None


def _int(params: Mapping[str, str], name: str) -> int | None:
    value = _text(params, name)
    if value is None:
        return None
    try:
        return int(value)
    except ValueError as exc:
        raise InvalidInput(f"{name} must be a whole number") from exc


def _time(params: Mapping[str, str], name: str) -> datetime | None:
    value = _text(params, name)
    if value is None:
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError as exc:
        raise InvalidInput(f"{name} must be an ISO date or time") from exc
    # UTC unless it says otherwise, as the page shows times (not the console process's zone)
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _json_object(params: Mapping[str, str], name: str) -> Jsonb | None:
    """A JSON object parameter as typed, to be sent as it is: the server reads its numbers
    (12345678901234567.25, 1e5000) exactly, where the driver would send the float or the
    string Python reads. Checked here first, so a mistake names the parameter."""
    value = _text(params, name)
    if value is None:
        return None
    try:
        parsed = exact_loads(value)
    except ValueError as exc:
        raise InvalidInput(f"{name} must be a JSON object") from exc
    except RecursionError as exc:  # nested deeper than the parser goes (about 1000 levels)
        raise InvalidInput(f"{name} must be a JSON object (this one is nested too deeply)"
                           ) from exc
    if not isinstance(parsed, dict):
        raise InvalidInput(f"{name} must be a JSON object")
    return Jsonb(value, dumps=str)


def _id(params: Mapping[str, str], name: str) -> str | None:
    """A value exactly as given: a channel id, an agent or a tag may begin or end with
    spaces. None when empty."""
    return params.get(name) or None


def _after(params: Mapping[str, str]) -> int | None:
    """The `after` clock of a timeline page or stream, checked here (0..MAX_AFTER, as
    actae.timeline takes it) so a live stream is refused before it starts."""
    after = _int(params, "after")
    if after is not None and not 0 <= after <= MAX_AFTER:
        raise InvalidInput(f"after must be between 0 and {MAX_AFTER}")
    return after


# A live stream's message when the channel its page shows is no longer there: purged, and
# maybe created again under its id. The page loads again (channel.html): the new channel
# from its start, or the page saying there is no such channel.
GONE = "event: gone\ndata: \n\n"
# A live stream's message when the console's database takes no writes (a hot standby, or a
# read-only default for its login): a live view registers its watch and LISTENs, which such
# a server refuses (25006). The page stops asking for one, where it asked every 2 s.
UNAVAILABLE = "event: unavailable\ndata: \n\n"


def _required(params: Mapping[str, str], name: str) -> str:
    value = _id(params, name)
    if value is None:
        raise InvalidInput(f"{name} is required")
    return value


def sse_data(text: str) -> str:
    """`text` as the data lines of one SSE message: split only where the client joins lines
    again (CR LF, CR, LF), so every other character arrives as it was."""
    return "".join(f"data: {line}\n" for line in _SSE_LINES.split(text))


_NAME = re.compile(r"[a-z0-9_-]+(?:\.[a-z0-9_-]+)*")


def allowed_host(value: str) -> str:
    """An --allowed-host value in the form host_name() gives a Host header: an IP address
    (an IPv6 one in brackets, in its short form, given with or without them), a name
    (lowercased, without a trailing dot), "*.<name>" or "*". ValueError for anything no
    Host header could match: a port, a wildcard elsewhere, an empty or malformed name."""
    text = value.strip().lower()
    if text == "*":
        return text
    try:
        address = ipaddress.ip_address(text[1:-1] if text.startswith("[") else text)
    except ValueError:
        pass
    else:
        return f"[{address}]" if address.version == 6 else str(address)
    name = text[2:] if text.startswith("*.") else text
    if not _NAME.fullmatch(name.rstrip(".")):
        raise ValueError(f"{value!r} is not a host name or address without a port (a wildcard"
                         " may only lead a name, '*.example.com', or be '*' alone)")
    return text.rstrip(".")


def served_hosts(host: str, allowed_hosts: Iterable[str] = ()) -> list[str]:
    """The Host header values the console answers to: the loopback names, the address it is
    bound to (an IPv6 one in brackets, as a Host header has it) and the names given
    (allowed_host: ValueError for one no Host header could match)."""
    hosts = [*LOCAL_HOSTS, *(allowed_host(h) for h in allowed_hosts)]
    try:
        bound = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        hosts.append(host)
    else:
        hosts.append(f"[{bound}]" if bound.version == 6 else str(bound))
    return list(dict.fromkeys(h.lower() for h in hosts if h))


_PORT = re.compile(r"(?::[0-9]*)?")


def host_name(header: str | None) -> str | None:
    """The host a Host header names, lowercased, without its port: an IPv6 literal stays in
    brackets, in its short form ("[::1]"). None when there is no header or it is malformed
    (an unbracketed IPv6 address, a bad port, an empty name)."""
    if not header:
        return None
    header = header.strip().lower()
    if header.startswith("["):
        end = header.find("]")
        if end < 0 or not _PORT.fullmatch(header[end + 1:]):
            return None
        try:
            address = ipaddress.IPv6Address(header[1:end])
        except ValueError:
            return None
        return f"[{address}]"
    name, _, port = header.partition(":")
    if not name or not _PORT.fullmatch(":" + port if port else ""):
        return None
    return name.rstrip(".") or None


class HostCheck:
    """Answers only requests whose Host header names one of allowed_hosts (any port, any
    case); others, and requests without a Host header (HTTP/1.0), get 400. A pattern
    "*.example.com" matches the names under example.com, "*" matches any request."""

    def __init__(self, app: ASGIApp, allowed_hosts: Iterable[str]) -> None:
        self.app = app
        allowed_hosts = list(allowed_hosts)
        self.names = {h.lower() for h in allowed_hosts if not h.startswith("*")}
        self.suffixes = tuple(h[1:].lower() for h in allowed_hosts if h.startswith("*."))
        self.allow_any = "*" in allowed_hosts

    def allows(self, header: str | None) -> bool:
        if self.allow_any:
            return True
        name = host_name(header)
        return name is not None and (name in self.names or name.endswith(self.suffixes))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            header = next((value.decode("latin-1") for key, value in scope["headers"]
                           if key == b"host"), None)
            if not self.allows(header):
                await Response("Invalid host header", status_code=400,
                               media_type="text/plain")(scope, receive, send)
                return
        await self.app(scope, receive, send)


Handler = Callable[[Request], Awaitable[Response]]


async def _prepended(first: str, rest: AsyncGenerator[str, None]) -> AsyncIterator[str]:
    """``first``, then what ``rest`` yields; ``rest`` is closed when this one is."""
    try:
        yield first
        async for item in rest:
            yield item
    finally:
        await rest.aclose()


class PoolChecker:
    """pool.check() (every idle connection tried, the broken ones replaced), one at a time,
    in a task of its own: a caller cancelled while it waits (its request's time is up)
    leaves it running. pool.check() takes a cancellation for a broken connection and goes
    on to the next, so cancelling it would not stop it, and the caller would wait on."""

    def __init__(self, pool: AsyncConnectionPool) -> None:
        self.pool = pool
        self.task: asyncio.Task[None] | None = None

    async def __call__(self) -> None:
        if self.task is None or self.task.done():
            self.task = asyncio.create_task(self.pool.check())
        await asyncio.shield(self.task)


def bounded(handler: Handler, seconds: float, check: Callable[[], Awaitable[None]]
            ) -> Handler:
    """``handler`` within ``seconds``: a database that does not answer (stopped, a lock
    held) gets a 503 page, not a request that hangs. A page whose connection failed (the
    server restarted, a backend was terminated: every pooled connection may be dead) is
    read once more after ``check()`` has replaced the broken ones; the console only reads,
    so reading again is safe."""

    @functools.wraps(handler)
    async def run(request: Request) -> Response:
        try:
            async with asyncio.timeout(seconds):
                try:
                    return await handler(request)
                except (psycopg.OperationalError, psycopg.InterfaceError) as exc:
                    if isinstance(exc, PoolTimeout):
                        raise
                    log.info("%s: %s; checking the pool's connections", request.url.path,
                             exc)
                    await check()
                    return await handler(request)
        except TimeoutError:
            log.warning("%s: the database did not answer within %g s", request.url.path,
                        seconds)
            return unavailable(f"the database did not answer within {seconds:g} s")

    return run


def unavailable(reason: str) -> HTMLResponse:
    return render("error.html", status_code=503, status=503,
                  message=f"{reason}; reload the page to try again.")


T = TypeVar("T")


async def _until_set(
    stopping: asyncio.Event, items: AsyncGenerator[T, None]
) -> AsyncGenerator[T, None]:
    """The items, until `stopping` is set: then this ends at once, also while it waits for
    the next item. Items are read in a task of their own and closed in one (not in this
    task: when the response is cancelled, a client gone, the awaits of this task's clean-up
    are cancelled too, and the connection items holds would not go back to its pool)."""
    stop = asyncio.ensure_future(stopping.wait())
    step: asyncio.Future[T] | None = None
    try:
        while True:
            step = asyncio.ensure_future(anext(items))
            await asyncio.wait({step, stop}, return_when=asyncio.FIRST_COMPLETED)
            if not step.done():
                return
            try:
                item = step.result()
            except StopAsyncIteration:
                return
            step = None
            yield item
    finally:
        stop.cancel()
        if step is not None and not step.done():
            step.cancel()  # items end in that task, as an error inside them ends them
            detach(step)
        else:
            if step is not None:
                retrieve(step)  # an error that came as the response was cancelled
            detach(asyncio.ensure_future(items.aclose()))  # a stream's end: no log line


def create_app(dsn: str, *, allow_writer: bool = False, host: str = "127.0.0.1",
               allowed_hosts: Iterable[str] = (),
               request_seconds: float = REQUEST_SECONDS,
               stopping: asyncio.Event | None = None) -> Starlette:
    """The console app for the database at `dsn`. It refuses to start when the DSN's role can
    write to the ledger (unless allow_writer, for a throwaway database). It answers only
    requests whose Host header names it (served_hosts: `host`, the address it is bound to,
    the loopback names and `allowed_hosts`), others get 400, so a page on another site cannot
    read it through DNS rebinding. A page waits at most `request_seconds` for the
    database, then answers 503, as it does when the database fails. Once `stopping` is set
    (the server is shutting down), live views end, so the server does not wait for them."""
    if stopping is None:
        stopping = asyncio.Event()  # never set: live views end with their clients
    # Numbers read exactly; request_seconds at most waiting for a connection (the pool's own
    # wait a little shorter, so its error is the one shown); connections checked after one
    # failed (bounded).
    client = ConsoleClient(dsn, max_size=MAX_STREAMS + 4, timeout=request_seconds * 0.9)
    streams = 0  # live views open
    check = PoolChecker(client.pool)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncGenerator[None, None]:
        await client.open()
        try:
            if not allow_writer and await client.role_can_write():
                raise ConsoleRoleCanWrite(
                    "the console's database role can write to the ledger; connect as a "
                    "role granted only actae_auditor (see docs/console.md)"
                )
            yield
        finally:
            if check.task is not None:
                check.task.cancel()  # a check still waiting on a connection that is gone
            await client.close()

    async def index(request: Request) -> Response:
        p = request.query_params
        filters = {
            "status": _text(p, "status"), "agent": _id(p, "agent"), "tag": _id(p, "tag"),
            "parent": _id(p, "parent"), "metadata": _text(p, "metadata"),
            "created_after": _text(p, "created_after"),
            "created_before": _text(p, "created_before"),
        }
        read = calls.list_channels(
            parent_channel_id=filters["parent"],
            created_after=_time(p, "created_after"), created_before=_time(p, "created_before"),
            status=filters["status"], agent=filters["agent"], tag=filters["tag"],
            before_created_at=_time(p, "before_created_at"),
            before_channel_id=_id(p, "before_channel_id"), max_rows=LIST_ROWS,
        )
        metadata = _json_object(p, "metadata")
        if metadata is not None:  # the filter's text as typed (_json_object)
            read = dataclasses.replace(read, params={**read.params, "metadata": metadata})
        rows = await client.run(read)
        next_url = None
        if len(rows) == LIST_ROWS:
            last = rows[-1]
            next_url = query("/", **filters, before_created_at=last.created_at.isoformat(),
                             before_channel_id=last.channel_id)
        return render("index.html", rows=rows, filters=filters, next_url=next_url,
                      statuses=RUN_STATUSES)

    async def channel(request: Request) -> Response:
        p = request.query_params
        channel_id = _required(p, "id")
        after = _after(p)
        info = await client.get_channel(channel_id)
        rows = await client.timeline(channel_id, after, TIMELINE_ROWS)
        next_page = await client.timeline(
            channel_id, rows[-1].clock, 1) if rows else []
        nodes = await client.fork_tree(channel_id, TREE_NODES)
        ledger = await client.list_executions(channel_id, max_rows=LEDGER_ROWS)
        summary = next((n for n in nodes if n.channel_id == channel_id), None)
        # The live view reads the page's last clock again: a tool call's claim or failure
        # can join it later (it takes the clock of the last event before it); the page's
        # script skips the rows it already has.
        live_after = after
        if rows:
            live_after = rows[-1].clock - 1 if rows[-1].clock > 0 else None
        live = not next_page
        return render(
            "channel.html", channel=info, summary=summary, rows=rows,
            rows_html=timeline_rows_html(rows, channel_id), after=after,
            next_url=query("/channel", id=channel_id, after=rows[-1].clock) if next_page else None,
            live_url=query("/channel/stream", id=channel_id, after=live_after,
                           created=micros(info.created_at)) if live else None,
            ledger=ledger, ledger_full=len(ledger) == LEDGER_ROWS,
            tree=tree.layout(nodes), nodes=nodes, tree_full=len(nodes) == TREE_NODES,
            box_w=tree.BOX_W, box_h=tree.BOX_H,
        )

    async def state_at(request: Request) -> Response:
        p = request.query_params
        channel_id = _required(p, "id")
        info = await client.get_channel(channel_id)
        cursor = _int(p, "cursor")
        if cursor is None:
            cursor = info.head_cursor
        trail = await client.decision_trail(channel_id, cursor, TRAIL_RESULTS)
        return render("state.html", channel=info, trail=trail,
                      results_full=len(trail.tool_results) == TRAIL_RESULTS)

    async def diff(request: Request) -> Response:
        p = request.query_params
        a, b = _required(p, "a"), _required(p, "b")
        result = await client.diff_states(a, b, DIFF_CHANGES)
        return render("diff.html", diff=result)

    async def stream(request: Request) -> Response:
        p = request.query_params
        channel_id = _required(p, "id")
        after = _after(p)
        # The page's channel (its created_at, as the page sent it) is not this one, or none
        # is there: purged (and maybe created again) since the page was read, the stream
        # opened again later (a reconnect, a page shown again). Without `created`, a channel
        # that is not there is a 404, as for any page.
        created = _int(p, "created")
        try:
            info = await client.get_channel(channel_id)
        except NotFound:
            if created is None:
                raise
            info = None
        stale = created is not None and (info is None or created != micros(info.created_at))

        async def events() -> AsyncGenerator[str, None]:
            nonlocal streams
            streams += 1
            try:
                yield "retry: 2000\n\n"
                if stale:
                    yield GONE
                    return
                # One message per read of at most TIMELINE_ROWS rows: without `after` the
                # first holds what /channel shows (its first page), a backlog comes in
                # messages of the same size.
                checked = created is None
                async with contextlib.aclosing(_until_set(stopping, follow_timeline(
                        client, channel_id, after, max_rows=TIMELINE_ROWS))) as batches:
                    async for batch in batches:
                        if not checked:
                            # Once more now that the reader has taken the channel's topic:
                            # a purge and re-creation after the check above and before
                            # that would otherwise have it follow the new channel on the
                            # old one's page.
                            current = await client.get_channel(channel_id)
                            if created != micros(current.created_at):
                                batch = Recreated(channel_id)
                            checked = True
                        if isinstance(batch, Recreated):
                            yield GONE
                            return
                        html = timeline_rows_html(batch, channel_id)
                        yield f"event: rows\n{sse_data(html)}\n"
            except NotFound:  # purged, not created again (yet)
                yield GONE
            except psycopg.errors.ReadOnlySqlTransaction as exc:
                log.warning("live view of %s not available: %s", channel_id, exc)
                yield UNAVAILABLE
            except (psycopg.OperationalError, psycopg.InterfaceError) as exc:
                # The connection was lost (a restart, a terminated backend): the stream ends,
                # and the browser opens it again. One line, not an ASGI traceback.
                log.warning("live view of %s ended: %s: %s", channel_id,
                            type(exc).__name__, exc)
            finally:
                streams -= 1

        if streams >= MAX_STREAMS:
            return Response("too many live views open", status_code=503)
        # The slot is taken here, with nothing awaited since the count was read: requests
        # arriving together cannot all pass it. Should the response never read on, the
        # started generator is closed when collected, which gives the slot back.
        body = events()
        first = await anext(body)
        return StreamingResponse(
            _prepended(first, body), media_type="text/event-stream",
            headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
        )

    async def on_error(request: Request, exc: Exception) -> Response:
        status = 404 if isinstance(exc, NotFound) else 400
        return render("error.html", status_code=status, status=status, message=str(exc))

    async def on_database_error(request: Request, exc: Exception) -> Response:
        # The page names the kind of failure only; the log has the driver's words (which
        # may name hosts and paths).
        log.warning("%s: %s: %s", request.url.path, type(exc).__name__, exc)
        return unavailable(f"the database is unreachable or failed ({type(exc).__name__})")

    routes = [
        Route("/", bounded(index, request_seconds, check)),
        Route("/channel", bounded(channel, request_seconds, check)),
        Route("/channel/state", bounded(state_at, request_seconds, check)),
        Route("/channel/stream", bounded(stream, request_seconds, check)),
        Route("/diff", bounded(diff, request_seconds, check)),
    ]
    return Starlette(
        routes=routes, lifespan=lifespan,
        exception_handlers={ActaeError: on_error, psycopg.OperationalError: on_database_error,
                            psycopg.InterfaceError: on_database_error},
        middleware=[Middleware(HostCheck, allowed_hosts=served_hosts(host, allowed_hosts))],
    )

