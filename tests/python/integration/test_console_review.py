"""Fixes from the console review: a huge number in agent data, the live view at the page's
last clock, `actae timeline --all / --follow` in text, the summary of a channel in a big
fork tree, writer roles the console must refuse, exact filter values, and bad input that
must be a 400."""

from __future__ import annotations

import html
import os
import re
import subprocess
import sys
import threading
import time
import urllib.parse
import uuid
from collections.abc import Callable, Iterator

import httpx
import psycopg
import pytest
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from actae import SyncActaeClient
from actae.cli.main import main
from actae.console.app import TREE_NODES
from tests.python.support.console_harness import (
    DIFF_PATHS,
    get,
    reader_dsn,
    serve,
    states_to_diff,
)

BIG = "1" + "0" * 5000  # what jsonb prints for 1e5000


@pytest.fixture(scope="module")
def reader(dsn: str) -> str:
    return reader_dsn(dsn)


@pytest.fixture(scope="module")
def console(reader: str) -> Iterator[str]:
    with serve(reader) as url:
        yield url


def _rows(body: str) -> list[str]:
    """The rows' ids, an event's as ev-<cursor> (without the time its id also holds)."""
    return [re.sub(r"^(ev-\d+)-\d+$", r"\1", row)
            for row in re.findall(r'<tr id="([^"]+)"', body)]


# 1. A number Python cannot read as an int (jsonb prints 1e5000 as 5001 digits).

def test_a_huge_number_in_metadata_leaves_the_run_list_working(
    console: str, conn: psycopg.Connection, unique: Callable[[str], str]
) -> None:
    channel = unique("big-meta")
    conn.execute("select actae.create_channel(%s, '{\"x\": 1e5000}')", (channel,))
    status, body = get(f"{console}/")
    assert status == 200
    assert f'data-channel="{channel}"' in body


def test_a_huge_number_in_a_payload_is_shown_as_a_number(
    console: str, conn: psycopg.Connection, unique: Callable[[str], str]
) -> None:
    channel = unique("big-payload")
    for payload in ('{"ok": 1}', '{"n": 1e5000}', '{"after": true}'):
        conn.execute("select actae.record_event(%s, 'step', %s::jsonb)", (channel, payload))
    status, body = get(f"{console}/channel?id={channel}")
    assert status == 200
    assert _rows(body) == ["ev-1", "ev-2", "ev-3"]
    assert f'"n": {BIG}' in html.unescape(body)  # a bare JSON number, not a string
    status, body = get(f"{console}/channel/state?id={channel}&cursor=2")
    assert status == 200
    assert f'"n": {BIG}' in html.unescape(body)


def test_actae_timeline_prints_a_huge_number(
    dsn: str, conn: psycopg.Connection, unique: Callable[[str], str],
    capsys: pytest.CaptureFixture[str],
) -> None:
    channel = unique("big-cli")
    conn.execute("select actae.record_event(%s, 'step', '{\"n\": 1e5000}')", (channel,))
    assert main(["timeline", channel, "--dsn", dsn]) == 0
    assert '{"n": 1000000' in capsys.readouterr().out
    assert main(["timeline", channel, "--dsn", dsn, "--json"]) == 0
    assert f'"payload": {{"n": {BIG}}}' in capsys.readouterr().out


# 2. The live view reads the page's last clock again.

def test_the_live_view_shows_tool_calls_at_the_pages_last_clock(
    console: str, dsn: str, unique: Callable[[str], str]
) -> None:
    channel = unique("live-last")
    with SyncActaeClient(dsn, max_size=1) as client:
        client.record_event(channel, "step", {"n": 1})
        client.record_event(channel, "step", {"n": 2})
        page = httpx.get(f"{console}/channel", params={"id": channel}, timeout=30).text
        assert _rows(page) == ["ev-1", "ev-2"]
        live = re.search(r'data-url="([^"]+)"', page)
        assert live is not None
        got: list[str] = []
        done = threading.Event()

        def read() -> None:
            with httpx.stream("GET", console + html.unescape(live.group(1)),
                              timeout=30) as response:
                for line in response.iter_lines():
                    got.extend(_rows(line))
                    if "ev-3" in got:
                        break
            done.set()

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        time.sleep(1.5)  # the stream is open and has read what is there
        claim = client.claim_execution(channel, "k1", "search", {"q": 1})
        assert claim.claim_token is not None
        client.complete_execution(claim.execution.id, claim.claim_token, {"ok": True})
        client.record_event(channel, "step", {"n": 3})
        assert done.wait(20), got
    key = f"x-{claim.execution.id}"
    assert [f"{key}-claimed-1", f"{key}-completed-1", "ev-3"] == [
        r for r in got if r != "ev-2"]  # ev-2 again is skipped by the page's script


def test_the_live_view_of_an_empty_channel_starts_at_the_beginning(
    console: str, conn: psycopg.Connection, unique: Callable[[str], str]
) -> None:
    channel = unique("live-empty")
    conn.execute("select actae.create_channel(%s)", (channel,))
    page = httpx.get(f"{console}/channel", params={"id": channel}, timeout=30).text
    live = re.search(r'data-url="([^"]+)"', page)
    assert live is not None
    path, _, query = html.unescape(live.group(1)).partition("?")
    params = urllib.parse.parse_qs(query)
    assert path == "/channel/stream" and "after" not in params  # from the channel's start
    assert params["id"] == [channel] and params["created"][0].isdigit()


# 3. actae timeline --all / --follow print every row in text.

def test_timeline_all_prints_every_row_once(
    dsn: str, conn: psycopg.Connection, unique: Callable[[str], str],
    capsys: pytest.CaptureFixture[str],
) -> None:
    channel = unique("cli-all")
    for i in range(1, 6):
        conn.execute("select actae.record_event(%s, %s, '{}')", (channel, f"step-{i}"))
    assert main(["timeline", channel, "--all", "--limit", "2", "--dsn", dsn]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:3] == ["CLOCK", "CURSOR", "KIND"]
    assert [line.split()[5] for line in lines[1:]] == [f"step-{i}" for i in range(1, 6)]


def test_timeline_follow_prints_every_row_in_text(
    dsn: str, conn: psycopg.Connection, unique: Callable[[str], str]
) -> None:
    channel = unique("cli-follow")
    conn.execute("select actae.record_event(%s, 'before', '{}')", (channel,))
    env = {**os.environ, "ACTAE_DSN": dsn, "PYTHONUNBUFFERED": "1"}
    follower = subprocess.Popen(
        [sys.executable, "-m", "actae", "timeline", channel, "--follow"],
        stdout=subprocess.PIPE, text=True, env=env)
    lines: list[str] = []

    def read() -> None:
        assert follower.stdout is not None
        lines.extend(follower.stdout)  # until the follower ends

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + 20
        while len(lines) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        for name in ("live-1", "live-2", "live-3"):
            time.sleep(0.3)
            conn.execute("select actae.record_event(%s, %s, '{}')", (channel, name))
        while not any("live-3" in line for line in lines) and time.monotonic() < deadline:
            time.sleep(0.1)
    finally:
        follower.terminate()
        follower.wait(10)
        reader.join(10)
    assert lines[0].startswith("CLOCK")
    assert [line.split()[5] if line.strip() else "" for line in lines[1:]] == [
        "before", "live-1", "live-2", "live-3"]


# 4. A channel's summary in a fork tree bigger than the page's cap.

def test_a_fork_past_the_tree_cap_keeps_its_summary(
    console: str, conn: psycopg.Connection, unique: Callable[[str], str]
) -> None:
    root = unique("big-tree")
    last = f"{root}-f{TREE_NODES + 50:04d}"
    conn.execute("select actae.record_event(%s, 'step', '{}')", (root,))
    conn.execute("select actae.fork_channel(%s, 1, %s || '-f' || lpad(i::text, 4, '0'))"
                 " from generate_series(1, %s) as i", (root, root, TREE_NODES + 50))
    conn.execute("select actae.annotate_channel(%s, 'Refund retry', array['retry'],"
                 " 'why this fork was made', 0)", (last,))
    status, body = get(f"{console}/channel?id={last}")
    assert status == 200
    assert '<h1 id="title">Refund retry</h1>' in body
    assert "why this fork was made" in body and "<td>tags</td>" in body
    assert f'data-channel="{last}"' in body  # drawn in the tree, beside its root
    assert f'data-channel="{root}"' in body
    assert body.count("data-channel=") == TREE_NODES


# 6. A role that can write through any writing function is refused.

@pytest.fixture
def janitor(dsn: str) -> Iterator[str]:
    """A login granted actae_auditor and EXECUTE on assign_tenant only, dropped afterwards."""
    role = f"cr_janitor_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(dsn, autocommit=True) as conn:
        names = {"role": sql.Identifier(role), "database": sql.Identifier(conn.info.dbname)}
        for statement in (
            "create role {role} login password 'cr-janitor'",
            "grant actae_auditor to {role}",
            "grant connect on database {database} to {role}",
            "grant execute on function actae.assign_tenant(text, text) to {role}",
        ):
            conn.execute(sql.SQL(statement).format(**names))  # pyright: ignore[reportArgumentType]
        try:
            yield make_conninfo(**{**conninfo_to_dict(dsn), "user": role,  # type: ignore[arg-type]
                                   "password": "cr-janitor"})
        finally:
            conn.execute("select pg_terminate_backend(pid) from pg_stat_activity"
                         " where usename = %s", (role,))
            for statement in ("drop owned by {role}",
                              "revoke connect on database {database} from {role}",
                              "drop role {role}"):
                conn.execute(sql.SQL(statement).format(**names))  # pyright: ignore[reportArgumentType]


def test_execute_on_any_writing_function_can_write(janitor: str, reader: str) -> None:
    with SyncActaeClient(janitor, max_size=1) as client:
        assert client.role_can_write() is True
    with SyncActaeClient(reader, max_size=1) as client:  # follow_channel alone is a read
        assert client.role_can_write() is False


# 7. Filters are the exact values given.

def test_tag_and_agent_filters_keep_their_spaces(
    console: str, dsn: str, unique: Callable[[str], str]
) -> None:
    tag = f"t{uuid.uuid4().hex[:8]}"
    spaced, bare = unique("spaced-tag"), unique("bare-tag")
    with SyncActaeClient(dsn, max_size=1) as client:
        client.start_run(spaced, f" {tag} ", {})
        client.start_run(bare, tag, {})
        client.annotate_channel(spaced, None, [f" {tag} "], None, 0)
        client.annotate_channel(bare, None, [tag], None, 0)
    for name in ("tag", "agent"):
        for value, channel in ((f" {tag} ", spaced), (tag, bare)):
            status, body = get(f"{console}/?{urllib.parse.urlencode({name: value})}")
            assert status == 200
            assert re.findall(r'<tr data-channel="([^"]+)"', body) == [channel], (name, value)


# 8. Bad input is a 400, a live stream's before it starts.

def test_a_deeply_nested_metadata_filter_is_a_bad_request(console: str) -> None:
    metadata = '{"a": ' + "[" * 3000 + "]" * 3000 + "}"
    status, body = get(f"{console}/?{urllib.parse.urlencode({'metadata': metadata})}")
    assert status == 400
    # Python 3.11's parser stops near 1000 levels (the console's message); 3.13's reads it
    # and the server refuses it (list_channels: nested at most 512 levels). Either names it.
    assert re.search(r"metadata must be (a JSON object|JSON nested at most 512)", body)


@pytest.mark.parametrize("after", ["-1", str(2**63), str(2**63 - 1), "99999999999999999999"])
def test_a_stream_with_a_bad_after_is_refused_before_it_starts(
    console: str, conn: psycopg.Connection, unique: Callable[[str], str], after: str
) -> None:
    channel = unique("stream-after")
    conn.execute("select actae.record_event(%s, 'step', '{}')", (channel,))
    url = f"{console}/channel/stream?{urllib.parse.urlencode({'id': channel, 'after': after})}"
    with httpx.stream("GET", url, timeout=30) as response:
        assert response.status_code == 400
        assert "after must be between 0 and 9223372036854775806" in response.read().decode()
    assert get(f"{console}/channel?id={channel}&after={after}")[0] == 400


# 9. Numbers are shown as stored.

def test_numbers_are_shown_as_stored(
    console: str, dsn: str, conn: psycopg.Connection, unique: Callable[[str], str]
) -> None:
    root, fork = unique("numbers"), unique("numbers-fork")
    conn.execute(
        "select actae.transition_state(%s, 'invoice', '{\"amount\": 12345678901234567.25,"
        " \"rate\": 0.10000000000000000001, \"huge\": 1e400, \"n\": 3}',"
        " '{\"amount\": 12345678901234567.25}', 0)", (root,))
    conn.execute("select actae.fork_channel(%s, 1, %s)", (root, fork))
    conn.execute("select actae.transition_state(%s, 'invoice', '{}',"
                 " '{\"amount\": 12345678901234567.26}', 1)", (fork,))
    status, body = get(f"{console}/channel?id={root}")
    assert status == 200
    shown = html.unescape(body)
    for text in ('"amount": 12345678901234567.25', '"rate": 0.10000000000000000001',
                 '"huge": 1' + "0" * 400 + ",", '"n": 3'):
        assert text in shown
    status, body = get(f"{console}/diff?{urllib.parse.urlencode({'a': root, 'b': fork})}")
    assert status == 200
    changes = body[body.index('<table id="changes">'):]
    assert "<pre>12345678901234567.25</pre>" in changes
    assert "<pre>12345678901234567.26</pre>" in changes
    with SyncActaeClient(dsn, max_size=1) as client:  # the driver's other callers: floats
        [event] = client.list_events(root)
        assert event.payload["amount"] == 12345678901234567.25
        assert type(event.payload["amount"]) is float and type(event.payload["n"]) is int


def test_the_console_client_owns_its_pool() -> None:
    """Its exact loaders stay on a pooled connection's cursor: a pool shared with another
    client would give that client Decimals, so ConsoleClient takes no pool."""
    from actae.console.exact import ConsoleClient

    with pytest.raises(TypeError):
        ConsoleClient(pool=object())  # type: ignore[call-arg]


def test_the_metadata_filter_compares_numbers_as_typed(dsn: str, console: str) -> None:
    """The filter's JSON goes to the server as typed: 12345678901234567.25 and 1e5000 find the
    channel holding them (read as floats by Python, the first found nothing and the second
    was refused), and a neighbouring number does not."""
    channel = f"meta-{uuid.uuid4().hex[:8]}"
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("select actae.create_channel(%s, %s::jsonb)", (
            channel, '{"price": 12345678901234567.25, "big": 1e5000, "tag": "t"}'))

    def found(metadata: str) -> bool:
        status, body = get(f"{console}/?metadata={urllib.parse.quote(metadata)}")
        assert status == 200, (status, body[:300])
        return channel in body

    assert found('{"price": 12345678901234567.25, "tag": "t"}')
    assert found('{"big": 1e5000}')
    assert not found('{"price": 12345678901234567.2, "tag": "t"}')
    assert not found('{"price": 12345678901234567, "tag": "t"}')
    status, body = get(f"{console}/?metadata={urllib.parse.quote('[1]')}")
    assert status == 400 and "metadata must be a JSON object" in body


def test_the_diff_page_shows_paths_unambiguously_in_numeric_order(dsn: str, console: str
                                                                   ) -> None:
    a, b = states_to_diff(dsn, "diff-page")
    status, body = get(f"{console}/diff?a={a}&b={b}")
    assert status == 200, body[:300]
    paths = [html.unescape(p) for p in re.findall(r'<tr class="\w+"><td><code>(.*?)</code>', body)]
    assert paths == DIFF_PATHS, paths


def test_times_are_shown_in_utc_whatever_the_session_time_zone(dsn: str, reader: str) -> None:
    """A console whose role's sessions run in another time zone showed that zone's times
    without saying so (and the state page in yet another format)."""
    channel = f"tz-{uuid.uuid4().hex[:8]}"
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("select actae.record_event(%s, 'e', '{}')", (channel,))
        row = conn.execute(
            "select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS.MS'),"
            " to_char(e.recorded_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS.MS')"
            " from actae.channels as c join actae.events as e using (channel_id)"
            " where channel_id = %s", (channel,)).fetchone()
    assert row is not None
    created, recorded = row
    params = conninfo_to_dict(reader)
    params["options"] = "-c timezone=Asia/Kolkata"
    with serve(make_conninfo(**params)) as url:  # type: ignore[arg-type]
        status, body = get(f"{url}/channel?id={channel}")
        assert status == 200 and f"{created} UTC" in body and f"{recorded} UTC" in body, body
        status, body = get(f"{url}/channel/state?id={channel}&cursor=1")
        assert status == 200 and f"{recorded} UTC" in body, body
