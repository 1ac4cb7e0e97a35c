"""The console's live stream is bounded and framed exactly, and the console answers only the
Host names it is served as (DNS rebinding), through the ``actae console`` command itself."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from actae.console.app import TIMELINE_ROWS, HostCheck, allowed_host, served_hosts
from tests.python.support.console_harness import free_port, serve

ACTAE = Path(sys.executable).parent / "actae"


@pytest.fixture(scope="module")
def reader(dsn: str) -> Iterator[str]:
    """A login granted only actae_auditor, dropped afterwards."""
    with reader_role(dsn) as login:
        yield login


@contextlib.contextmanager
def reader_role(dsn: str) -> Iterator[str]:
    """A new login granted only actae_auditor (its DSN), dropped afterwards."""
    role = f"cf_reader_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(dsn, autocommit=True) as conn:
        database = conn.info.dbname
        conn.execute(f"create role {role} login password 'cf-reader'")
        conn.execute(f"grant actae_auditor to {role}")
        conn.execute(f'grant connect on database "{database}" to {role}')
        try:
            yield make_conninfo(**{**conninfo_to_dict(dsn), "user": role,  # type: ignore[arg-type]
                                   "password": "cf-reader"})
        finally:
            conn.execute("select pg_terminate_backend(pid) from pg_stat_activity"
                         " where usename = %s", (role,))
            conn.execute(f'revoke connect on database "{database}" from {role}')
            conn.execute(f"revoke actae_auditor from {role}")
            conn.execute(f"drop role {role}")


def start_console(reader: str, *options: str, **env: str) -> tuple[subprocess.Popen[bytes], str]:
    """`actae console` for `reader` (with ``env`` added to its environment), answering; its
    process and URL."""
    port = free_port()
    process = subprocess.Popen(
        [str(ACTAE), "console", "--dsn", reader, "--port", str(port), *options],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env={**os.environ, **env})
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 20
    while True:
        try:
            httpx.get(url + "/", timeout=2)
            return process, url
        except httpx.TransportError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                raise RuntimeError("the console did not start") from None
            time.sleep(0.1)


@pytest.fixture(scope="module")
def console(reader: str) -> Iterator[str]:
    """`actae console` as an operator starts it, with a proxy name allowed."""
    process, url = start_console(reader, "--allowed-host", "console.proxy.example")
    try:
        yield url
    finally:
        process.terminate()
        process.wait(10)


@pytest.fixture(scope="module")
def app(reader: str) -> Iterator[str]:
    """The app alone, in a thread (for the stream tests)."""
    with serve(reader) as url:
        yield url


def stream_messages(url: str) -> Iterator[str]:
    """The messages of a live stream as they come (its `retry:` line first), until it ends;
    the stream is closed when the iterator is."""
    with httpx.stream("GET", url, timeout=30) as response:
        assert response.status_code == 200
        buffer = ""
        for chunk in response.iter_text():
            buffer += chunk
            *done, buffer = buffer.split("\n\n")
            yield from done


def first_message(url: str, channel: str, **params: str) -> str:
    """The data of the first `rows` message of the channel's live stream (data lines joined
    with LF, as an EventSource does)."""
    query = urllib.parse.urlencode({"id": channel, **params})
    with contextlib.closing(stream_messages(f"{url}/channel/stream?{query}")) as messages:
        for message in messages:
            if message.startswith("event: rows\n"):
                lines = message.split("\n")[1:]
                return "\n".join(line.removeprefix("data: ") for line in lines)
    raise AssertionError("no rows message")


def test_stream_without_after_sends_at_most_what_the_page_shows(dsn: str, app: str) -> None:
    channel = f"cf-big-{uuid.uuid4().hex[:8]}"
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("select actae.record_event(%s, 'e', '{}') from generate_series(1, %s)",
                     (channel, TIMELINE_ROWS * 2 + 50))
    data = first_message(app, channel)
    clocks = [int(c) for c in re.findall(r'data-clock="(\d+)"', data)]
    page = httpx.get(f"{app}/channel", params={"id": channel}, timeout=30).text
    shown = [int(c) for c in re.findall(r'data-clock="(\d+)"', page)]
    assert len(clocks) == TIMELINE_ROWS
    assert clocks == shown  # the page's own first page, nothing more


def test_stream_keeps_unicode_line_separators(dsn: str, app: str) -> None:
    channel = f"cf-sep-{uuid.uuid4().hex[:8]}"
    text = "line\u2028sep\u0085next\u2029end"  # no line breaks in SSE
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("select actae.record_event(%s, 'e', jsonb_build_object('t', %s::text))",
                     (channel, text))
    data = first_message(app, channel)
    assert text in data


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "[::1]",
                                  "console.proxy.example"])
def test_the_console_answers_its_own_host_names(console: str, host: str) -> None:
    port = console.rsplit(":", 1)[1]
    response = httpx.get(console + "/", headers={"Host": f"{host}:{port}"}, timeout=30)
    assert response.status_code == 200


@pytest.mark.parametrize("host", ["attacker.example", "attacker.example:80",
                                  "127.0.0.1.attacker.example"])
def test_the_console_refuses_other_host_names(console: str, host: str) -> None:
    response = httpx.get(console + "/", headers={"Host": host}, timeout=30)
    assert response.status_code == 400
    assert "actae" not in response.text.lower()


def test_the_app_refuses_other_host_names_by_default(app: str) -> None:
    assert httpx.get(app + "/", headers={"Host": "attacker.example"}, timeout=30).status_code == 400
    assert httpx.get(app + "/", timeout=30).status_code == 200


def test_follow_reads_points_that_join_the_last_clock_of_a_full_page(dsn: str) -> None:
    """A full page, then a tool claimed and completed at its last clock (no announcement),
    then an event: the next batch holds all three, and nothing comes twice."""
    from actae import ActaeClient
    from actae.console.live import follow_timeline

    channel = f"cf-join-{uuid.uuid4().hex[:8]}"

    async def run() -> list[list[tuple[int, str]]]:
        async with ActaeClient(dsn, max_size=2) as client:
            for i in range(3):
                await client.record_event(channel, "e", {"i": i})
            batches = follow_timeline(client, channel, None, max_rows=3)
            got = [[(r.clock, r.kind) for r in await anext(batches)]]

            async def later() -> None:
                await asyncio.sleep(0.5)
                claim = await client.claim_execution(channel, "tool-k", "t", {})
                await client.complete_execution(
                    claim.execution.id, claim.execution.claim_token, {"ok": 1})
                await client.record_event(channel, "e", {"i": 3})

            task = asyncio.create_task(later())
            with contextlib.suppress(TimeoutError):
                while sum(map(len, got)) < 6:
                    got.append([(r.clock, r.kind)
                                for r in await asyncio.wait_for(anext(batches), 10)])
            await task
            with contextlib.suppress(TimeoutError):  # and nothing more (no repeats)
                got.append([(r.clock, r.kind)
                            for r in await asyncio.wait_for(anext(batches), 1.5)])
            await batches.aclose()
            return got

    got = asyncio.run(run())
    assert got[0] == [(1, "event"), (2, "event"), (3, "event")]
    assert [row for batch in got[1:] for row in batch] == [
        (3, "claimed"), (3, "completed"), (4, "event")]


def _old_starlette_host_check(self: Any, scope: Any, receive: Any, send: Any) -> Any:
    """TrustedHostMiddleware.__call__ as starlette releases before mid-2026 have it: the port
    cut at the first ':' and no lowercasing."""
    from starlette.datastructures import Headers
    from starlette.responses import PlainTextResponse

    async def call() -> None:
        if self.allow_any or scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        host = Headers(scope=scope).get("host", "").split(":")[0]
        if any(host == p or (p.startswith("*") and host.endswith(p[1:]))
               for p in self.allowed_hosts):
            await self.app(scope, receive, send)
        else:
            await PlainTextResponse("Invalid host header", status_code=400)(
                scope, receive, send)

    return call()


@pytest.fixture(scope="module")
def v6_app(reader: str) -> Iterator[str]:
    """create_app as bound to ::1 with --allowed-host myhost and *.proxy.example (served on
    127.0.0.1; only the Host header matters), in a thread of this process."""
    with serve(reader, host="::1", allowed_hosts=["myhost", "*.proxy.example"]) as url:
        yield url


@pytest.fixture
def old_starlette(monkeypatch: pytest.MonkeyPatch) -> None:
    """The Host check must not depend on the installed starlette's (pyproject: >=0.37)."""
    from starlette.middleware.trustedhost import TrustedHostMiddleware

    monkeypatch.setattr(TrustedHostMiddleware, "__call__", _old_starlette_host_check)


@pytest.mark.usefixtures("old_starlette")
@pytest.mark.parametrize("host", ["[::1]:8480", "[::1]", "[0:0:0:0:0:0:0:1]:8480",
                                  "MyHost:8480", "myhost", "LOCALHOST:8480",
                                  "Console.Proxy.Example:443"])
def test_the_host_check_parses_brackets_and_case(v6_app: str, host: str) -> None:
    response = httpx.get(v6_app + "/", headers={"Host": host}, timeout=30)
    assert response.status_code == 200


@pytest.mark.usefixtures("old_starlette")
@pytest.mark.parametrize("host", ["attacker.example", "proxy.example", "[::2]:8480", "::1",
                                  "[::1", "[::1]x", "[::1]:80:80", "myhost:8x",
                                  "myhost.attacker.example", ""])
def test_the_host_check_refuses_other_hosts(v6_app: str, host: str) -> None:
    response = httpx.get(v6_app + "/", headers={"Host": host}, timeout=30)
    assert response.status_code == 400


def test_the_host_check_refuses_a_request_without_host(v6_app: str) -> None:
    """HTTP/1.0 without a Host header: refused (docs/console.md)."""
    port = int(v6_app.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(b"GET / HTTP/1.0\r\n\r\n")
        status = s.recv(64).split(b"\r\n", 1)[0]
    assert status.split()[1] == b"400"


@pytest.mark.parametrize(("given", "header"), [
    ("fd00::2", "[fd00::2]:8480"),  # an IPv6 address without its brackets
    ("[fd00:0::2]", "[fd00::2]"),  # in its long form
    ("Proxy.Example.", "proxy.example:443"),  # with a trailing dot
    ("proxy.example", "proxy.example.:443"),  # a Host header with one
    ("*.Proxy.Example", "console.proxy.example"),
])
def test_allowed_hosts_given_in_another_form_match(given: str, header: str) -> None:
    """Values a Host header names in its own form matched nothing before, silently."""
    check = HostCheck(app=None, allowed_hosts=served_hosts("127.0.0.1", [given]))  # type: ignore[arg-type]
    assert check.allows(header)
    assert not check.allows("other.example")


@pytest.mark.parametrize("given", ["proxy.example.com:8443", "a*.example", "*example.com",
                                   "", "exa mple.com", "[fd00::2]:8480"])
def test_allowed_hosts_no_host_header_could_match_are_refused(given: str) -> None:
    with pytest.raises(ValueError, match="not a host name or address without a port"):
        allowed_host(given)


def messages(url: str, count: int) -> list[str]:
    """The first `count` messages of a live stream (its `retry:` line first), or fewer when
    the stream ends."""
    with contextlib.closing(stream_messages(url)) as stream:
        return list(itertools.islice(stream, count))


def test_a_stream_opened_for_a_channel_since_purged_says_it_is_gone(dsn: str, app: str) -> None:
    """The run page's stream names the channel it shows by its created_at: a stream opened
    again (a reconnect, the page shown again) after the channel was purged and created
    again under its id says `gone` (the page loads again) instead of adding the new
    channel's rows to the old one's."""
    channel = f"cf-gone-{uuid.uuid4().hex[:8]}"
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("select actae.record_event(%s, 'e', '{}')", (channel,))
    html = httpx.get(f"{app}/channel", params={"id": channel}, timeout=30).text
    found = re.search(r'data-url="([^"]+)"', html)
    assert found is not None
    live = found.group(1).replace("&amp;", "&")
    assert "created=" in live
    assert messages(app + live, 2)[1].startswith("event: rows\n")
    other = re.sub(r"created=(\d+)", lambda m: f"created={int(m.group(1)) - 1}", live)
    assert messages(app + other, 3) == ["retry: 2000", "event: gone\ndata: "]
    bad = httpx.get(app + re.sub(r"created=\d+", "created=x", live), timeout=30)
    assert bad.status_code == 400 and "created must be a whole number" in bad.text
    # Purged and not created again: gone too (the page loads, and says so), not a 404 the
    # page's script cannot tell from a refusal (it asked again, every minute, for ever).
    missing = live.replace(channel, channel + "-purged")
    assert messages(app + missing, 3) == ["retry: 2000", "event: gone\ndata: "]
    plain = httpx.get(app + re.sub(r"&created=\d+", "", missing), timeout=30)
    assert plain.status_code == 404  # a stream asked for without a page's channel


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_the_console_stops_on_a_signal_while_a_live_view_is_open(
    dsn: str, reader: str, signum: int
) -> None:
    """A live view is a response that never ends: Ctrl-C or SIGTERM left the console
    waiting for it (a browser tab on a run page), running until killed. Now it ends the
    live views and stops at once, without a traceback (nor one for a live view closed by
    its browser before)."""
    channel = f"cf-stop-{uuid.uuid4().hex[:8]}"
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("select actae.record_event(%s, 'e', '{}')", (channel,))
    process, url = start_console(reader)
    opened = threading.Event()

    def live_view() -> None:
        with contextlib.suppress(httpx.HTTPError), httpx.stream(
                "GET", f"{url}/channel/stream?id={channel}", timeout=None) as response:
            for chunk in response.iter_text():
                if "event: rows" in chunk:
                    opened.set()

    try:
        # a live view its browser closes
        with httpx.stream("GET", f"{url}/channel/stream?id={channel}", timeout=30) as closed:
            next(chunk for chunk in closed.iter_text() if "event: rows" in chunk)
        threading.Thread(target=live_view, daemon=True).start()
        assert opened.wait(20)
        process.send_signal(signum)
        _, err = process.communicate(timeout=20)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == (130 if signum == signal.SIGINT else -signal.SIGTERM)
    assert b"Traceback" not in err and b"ERROR" not in err, err


def test_a_live_view_whose_connection_is_lost_ends_with_one_line(
    dsn: str, caplog: pytest.LogCaptureFixture
) -> None:
    """The server ends the live view's connection (a restart, a terminated backend): the
    stream ends (the browser opens it again) and the console logs one warning line; it
    logged an ASGI traceback and broke the response off."""
    channel = f"cf-lost-{uuid.uuid4().hex[:8]}"
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("select actae.record_event(%s, 'e', '{}')", (channel,))
        with reader_role(dsn) as login, serve(login) as url:
            role = conninfo_to_dict(login)["user"]
            with httpx.stream("GET", f"{url}/channel/stream?id={channel}", timeout=30) as live:
                chunks = live.iter_text()
                next(chunk for chunk in chunks if "event: rows" in chunk)
                conn.execute("select pg_terminate_backend(pid) from pg_stat_activity"
                             " where usename = %s", (role,))
                rest = "".join(chunks)  # to its end, which comes without an error
    assert "event:" not in rest
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert errors == [], [r.getMessage() for r in errors]
    assert any(f"live view of {channel} ended" in r.getMessage() for r in caplog.records)


def test_a_live_view_on_a_read_only_database_says_so_once(
    dsn: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A console on a hot standby (here a login whose transactions are read-only, which the
    live view's watch meets the same way: SQLSTATE 25006) serves its pages; a live view
    cannot be had there. The stream says `unavailable` (the page stops asking) and the
    console logs one line: it logged an ASGI traceback, and the page asked again every 2 s."""
    channel = f"cf-ro-{uuid.uuid4().hex[:8]}"
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("select actae.record_event(%s, 'e', '{}')", (channel,))
    with reader_role(dsn) as login:
        read_only = make_conninfo(login, options="-c default_transaction_read_only=on")
        with serve(read_only) as url:
            page = httpx.get(f"{url}/channel", params={"id": channel}, timeout=30)
            assert page.status_code == 200 and channel in page.text
            got = messages(f"{url}/channel/stream?id={channel}", 3)
    assert got == ["retry: 2000", "event: unavailable\ndata: "]
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert errors == [], [r.getMessage() for r in errors]
    assert any(f"live view of {channel} not available" in r.getMessage()
               for r in caplog.records)


def test_created_filters_are_read_in_utc_as_the_page_shows_times(dsn: str, reader: str) -> None:
    """The page shows every time in UTC; a filter time without an offset was read in the
    console process's zone (TZ), so a run created within the minutes typed vanished from
    the list (here 9 hours off, in Asia/Tokyo). Read as UTC now; an offset is still kept."""
    from datetime import UTC, timedelta

    from actae import SyncActaeClient

    channel, tag = f"tz-{uuid.uuid4().hex[:10]}", uuid.uuid4().hex
    with SyncActaeClient(dsn, max_size=1) as client:
        created = client.create_channel(channel, {"tz_test": tag}).created_at.astimezone(UTC)
    minute = "%Y-%m-%dT%H:%M"
    after = (created - timedelta(minutes=1)).strftime(minute)
    before = (created + timedelta(minutes=1)).strftime(minute)
    process, url = start_console(reader, TZ="Asia/Tokyo")
    try:
        for params in ({"created_after": after, "created_before": before},
                       {"created_after": f"{after}+00:00"},
                       {"created_before": f"{before}+09:00", "expect": "absent"}):
            expect = params.pop("expect", "listed")
            page = httpx.get(url + "/", params={**params, "metadata": f'{{"tz_test": "{tag}"}}'},
                             timeout=10)
            assert page.status_code == 200, page.text
            assert (channel in page.text) == (expect == "listed"), params
    finally:
        process.terminate()
        process.wait(10)
