"""The console's live stream is bounded and framed exactly, and the console answers only the
Host names it is served as (DNS rebinding), through the ``actae console`` command itself."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
import urllib.parse
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from actae.console.app import TIMELINE_ROWS
from tests.python.support.console_harness import free_port, serve

ACTAE = Path(sys.executable).parent / "actae"


@pytest.fixture(scope="module")
def reader(dsn: str) -> Iterator[str]:
    """A login granted only actae_auditor, dropped afterwards."""
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


@pytest.fixture(scope="module")
def console(reader: str) -> Iterator[str]:
    """`actae console` as an operator starts it, with a proxy name allowed."""
    port = free_port()
    process = subprocess.Popen(
        [str(ACTAE), "console", "--dsn", reader, "--port", str(port),
         "--allowed-host", "console.proxy.example"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=dict(os.environ))
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                httpx.get(url + "/", timeout=2)
                break
            except httpx.TransportError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("the console did not start") from None
                time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        process.wait(10)


@pytest.fixture(scope="module")
def app(reader: str) -> Iterator[str]:
    """The app alone, in a thread (for the stream tests)."""
    with serve(reader) as url:
        yield url


def first_message(url: str, channel: str, **params: str) -> str:
    """The data of the first `rows` message of the channel's live stream (data lines joined
    with LF, as an EventSource does)."""
    query = urllib.parse.urlencode({"id": channel, **params})
    with httpx.stream("GET", f"{url}/channel/stream?{query}", timeout=30) as response:
        assert response.status_code == 200
        buffer = ""
        for chunk in response.iter_text():
            buffer += chunk
            for message in buffer.split("\n\n")[:-1]:
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
