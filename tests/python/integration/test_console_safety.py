"""The console is read-only by construction, shows no claim token, escapes what it shows
and bounds every page (HTTP-level checks; the browser checks are in test_console_browser)."""

from __future__ import annotations

import asyncio
import re
import uuid
from collections.abc import Callable, Iterator

import psycopg
import pytest

from actae import SyncActaeClient
from actae.console.app import JSON_CHARS, LIST_ROWS, TIMELINE_ROWS, ConsoleRoleCanWrite, create_app
from tests.python.support.console_harness import Story, get, make_story, reader_dsn, serve


@pytest.fixture(scope="module")
def reader(dsn: str) -> str:
    return reader_dsn(dsn)


@pytest.fixture(scope="module")
def story(dsn: str) -> Story:
    return make_story(dsn, f"safety-{uuid.uuid4().hex[:8]}")


@pytest.fixture(scope="module")
def console(reader: str) -> Iterator[str]:
    with serve(reader) as url:
        yield url


def _start(dsn: str, allow_writer: bool = False) -> None:
    app = create_app(dsn, allow_writer=allow_writer)

    async def run() -> None:
        async with app.router.lifespan_context(app):
            pass

    asyncio.run(run())


def test_console_refuses_a_role_that_can_write(dsn: str, reader: str) -> None:
    with pytest.raises(ConsoleRoleCanWrite):
        _start(dsn)  # the test database's superuser
    _start(reader)  # the read-only role starts


def test_the_console_role_cannot_write(reader: str, story: Story) -> None:
    with SyncActaeClient(reader, max_size=1) as client:
        assert client.role_can_write() is False
    attempts = [
        ("select actae.record_event(%s, 'x', '{}')", (story.root,)),
        ("insert into actae.events (channel_id, cursor, event_type, payload, clock,"
         " chain_sha256, recorded_at) values (%s, 99, 'x', '{}', 99, '', now())", (story.root,)),
        ("update actae.channels set metadata = '{}' where channel_id = %s", (story.root,)),
        ("select actae.annotate_channel(%s, 'x', null, null, 0)", (story.root,)),
        ("select actae.claim_execution(%s, 'k', 't', '{}')", (story.root,)),
        ("select actae.watch_channel(%s)", (f"{story.root}-new",)),
    ]
    with psycopg.connect(reader, autocommit=True) as conn:
        for statement, params in attempts:
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(statement, params)


def test_no_claim_token_in_any_page(
    console: str, story: Story, dsn: str, conn: psycopg.Connection
) -> None:
    tokens = [str(t) for (t,) in conn.execute(
        "select claim_token from actae.executions where channel_id in (%s, %s)",
        (story.root, story.fork))]
    assert story.claim_token in tokens
    pages = [
        "/", f"/channel?id={story.root}", f"/channel?id={story.fork}",
        f"/channel/state?id={story.root}&cursor=3", f"/diff?a={story.root}&b={story.fork}",
    ]
    for path in pages:
        status, body = get(console + path)
        assert status == 200, path
        for token in tokens:
            assert token not in body, f"{path} shows a claim token"


def test_payloads_are_html_escaped(console: str, story: Story) -> None:
    status, body = get(f"{console}/channel?id={story.root}")
    assert status == 200
    assert "&lt;script&gt;alert(&#39;pwned&#39;)&lt;/script&gt;" in body
    assert "<script>alert" not in body


def test_timeline_pages_are_bounded_and_cover_everything(
    console: str, dsn: str, unique: Callable[[str], str]
) -> None:
    channel = unique("bounded")
    with SyncActaeClient(dsn, max_size=1) as client:
        for n in range(450):
            client.record_event(channel, "step", {"n": n})
    seen: list[str] = []
    url = f"{console}/channel?id={channel}"
    pages = 0
    while url:
        status, body = get(url)
        assert status == 200
        rows = re.findall(r'<tr id="(ev-\d+)-\d+"', body)  # ev-<cursor>-<time>
        assert 0 < len(rows) <= TIMELINE_ROWS
        seen.extend(rows)
        pages += 1
        link = re.search(r'id="timeline-next" href="([^"]+)"', body)
        url = console + link.group(1).replace("&amp;", "&") if link else ""
    assert seen == [f"ev-{c}" for c in range(1, 451)]
    assert pages == 3
    assert 'id="live-status"' in body, "the live view is offered on the last page only"


def test_large_values_are_cut(console: str, dsn: str, unique: Callable[[str], str]) -> None:
    channel = unique("large")
    with SyncActaeClient(dsn, max_size=1) as client:
        client.record_event(channel, "big", {"blob": "x" * (JSON_CHARS * 3)})
    status, body = get(f"{console}/channel?id={channel}")
    assert status == 200
    assert "more characters not shown" in body
    assert len(body) < JSON_CHARS * 2


def test_run_list_is_bounded_and_paged(
    console: str, dsn: str, unique: Callable[[str], str]
) -> None:
    tag = unique("list")
    with SyncActaeClient(dsn, max_size=1) as client:
        for n in range(LIST_ROWS + 5):
            client.create_channel(f"{tag}-{n:03d}", {"suite": tag})
    status, body = get(f'{console}/?metadata={{"suite":"{tag}"}}')
    assert status == 200
    first = re.findall(r'<tr data-channel="([^"]+)"', body)
    assert len(first) == LIST_ROWS
    link = re.search(r'id="next" href="([^"]+)"', body)
    assert link is not None
    status, body = get(console + link.group(1).replace("&amp;", "&"))
    rest = re.findall(r'<tr data-channel="([^"]+)"', body)
    assert sorted(first + rest) == [f"{tag}-{n:03d}" for n in range(LIST_ROWS + 5)]


def test_bad_requests_are_clear(console: str) -> None:
    assert get(f"{console}/channel")[0] == 400
    assert get(f"{console}/channel?id=no-such-channel-{uuid.uuid4().hex}")[0] == 404
    status, body = get(f"{console}/?metadata=[1]")
    assert status == 400 and "metadata must be a JSON object" in body
    assert get(f"{console}/channel?id=x&after=soon")[0] == 400


def test_a_channel_id_is_taken_as_given(console: str, dsn: str,
                                        unique: Callable[[str], str]) -> None:
    # Channel ids may begin or end with spaces: "x " is not "x".
    channel = unique("spaced")
    with SyncActaeClient(dsn, max_size=1) as client:
        client.record_event(channel, "step", {"who": "bare"})
        client.record_event(channel + " ", "step", {"who": "spaced"})
    status, body = get(f"{console}/channel?id={channel}%20")
    assert status == 200
    assert "spaced" in body.replace(channel, "") and "bare" not in body
