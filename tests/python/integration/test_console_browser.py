"""The console in a real browser: Debian's headless Chromium loads the pages served for a
read-only role, and the checks read the DOM.

Screenshots go to a temporary folder; with ACTAE_SCREENSHOTS=<folder> (docs/console for
the committed ones) they are written there instead.
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import psycopg
import pytest

from actae import SyncActaeClient
from tests.python.support.console_harness import REPO, Browser, Story, make_story, reader_dsn, serve
from tests.python.support.databases import fresh_database

# The pages in a browser, over the reads the other console tests run on every server: make
# test runs them in its PostgreSQL 18 pass only.
pytestmark = pytest.mark.second


@pytest.fixture(scope="module")
def story(dsn: str) -> Story:
    return make_story(dsn, f"refund-T4471-{uuid.uuid4().hex[:6]}")


@pytest.fixture(scope="module")
def console(dsn: str) -> Iterator[str]:
    with serve(reader_dsn(dsn)) as url:
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    b = Browser()
    try:
        yield b
    finally:
        b.close()


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = os.environ.get("ACTAE_SCREENSHOTS")
    return (REPO / folder) if folder else tmp_path_factory.mktemp("screenshots")


def page(console: str, path: str, **params: str | int) -> str:
    query = "&".join(f"{k}={quote(str(v))}" for k, v in params.items())
    return f"{console}{path}?{query}" if query else f"{console}{path}"


def test_run_list_shows_runs_with_their_health(
    console: str, browser: Browser, story: Story, shots: Path
) -> None:
    browser.load(page(console, "/", metadata='{"agent": "refund_desk"}'))
    row = browser.js(f"""(() => {{
        const tr = document.querySelector('tr[data-channel="{story.root}"]');
        return tr && tr.innerText; }})()""")
    assert row is not None, "the run is listed"
    assert "1 failed" in row and "1 ambiguous" in row and "1 in flight" in row
    browser.screenshot(shots / "runs.png")


def test_timeline_highlights_ambiguous_reclaim_and_failure(
    console: str, browser: Browser, story: Story, shots: Path
) -> None:
    browser.load(page(console, "/channel", id=story.root))
    kinds = browser.js("""Array.from(document.querySelectorAll('#timeline-rows tr'))
        .map(tr => tr.dataset.kind + ':' + tr.children[4].innerText.trim())""")
    events = [k for k in kinds if k.startswith("event:")]
    assert events == ["event:ticket_opened", "event:planned", "event:notified_failed"]
    # The tool lifecycle sits between the events it happened between.
    assert kinds.index("completed:search_orders search:T-4471") < kinds.index("event:planned")
    reclaim = "reclaimed:issue_refund refund:o-1 · attempt 2"
    assert kinds.index("event:planned") < kinds.index(reclaim)
    assert kinds.index("failed:send_email notify:T-4471") < kinds.index("event:notified_failed")
    highlighted = browser.js("""Array.from(document.querySelectorAll(
        '#timeline-rows tr.ambiguous, #timeline-rows tr.failed'))
        .map(tr => tr.dataset.kind + ':' + getComputedStyle(tr.children[0]).backgroundColor)""")
    assert any(h.startswith("reclaimed:") for h in highlighted)
    assert any(h.startswith("failed:") for h in highlighted)
    assert all(not h.endswith("rgba(0, 0, 0, 0)") for h in highlighted), "rows are coloured"
    # Payloads are expandable and closed until asked for.
    assert browser.js("document.querySelectorAll('#timeline-rows details[open]').length") == 0
    assert browser.js("document.querySelectorAll('#timeline-rows details').length") >= 5
    browser.screenshot(shots / "run.png")


def test_script_in_a_payload_renders_as_text(
    console: str, browser: Browser, story: Story
) -> None:
    browser.load(page(console, "/channel", id=story.root))
    text = browser.js("""Array.from(document.querySelectorAll('#timeline-rows pre'))
        .map(p => p.textContent).join('\\n')""")
    assert "<script>alert('pwned')</script>" in text, "shown as text"
    assert browser.js("document.querySelectorAll('#timeline-rows script').length") == 0
    assert browser.js("typeof window.pwned") == "undefined"


def test_fork_tree_is_an_svg_graph(console: str, browser: Browser, story: Story) -> None:
    browser.load(page(console, "/channel", id=story.fork))
    nodes = browser.js("""Array.from(document.querySelectorAll('#fork-tree g.node'))
        .map(g => [g.dataset.channel, g.dataset.parent, g.dataset.forkCursor,
                   g.classList.contains('current')])""")
    assert nodes == [[story.root, "", "", False], [story.fork, story.root, "2", True]]
    assert browser.js("document.querySelectorAll('#fork-tree path.edge').length") == 1
    links = browser.js("""Array.from(document.querySelectorAll('#fork-tree a'))
        .map(a => a.getAttribute('href'))""")
    assert any(story.root in link for link in links), "nodes link to their runs"


def test_state_at_a_cursor_and_diff_with_a_fork(
    console: str, browser: Browser, story: Story, shots: Path
) -> None:
    browser.load(page(console, "/channel/state", id=story.root, cursor=2))
    state = browser.js("document.getElementById('state-json').textContent")
    assert '"amount": 4200' in state and '"step": "refund"' in state
    known = browser.js("""Array.from(document.querySelectorAll('#known-results tbody tr'))
        .map(tr => tr.children[0].innerText)""")
    assert known == ["search:T-4471"]
    browser.load(page(console, "/channel", id=story.root))
    # "Diff with…" is a plain form: submit it as a person would.
    browser.js("document.querySelector('#diff ~ form button').click()")
    browser.wait_event("Page.loadEventFired")
    assert browser.js("document.getElementById('common-ancestor').innerText") == story.root
    assert browser.js("document.getElementById('shared-cursor').innerText") == "2"
    changes = browser.js("""Array.from(document.querySelectorAll('#changes tbody tr'))
        .map(tr => tr.children[0].innerText + ' ' + tr.children[1].innerText)""")
    assert changes == ["amount changed", "reason added"]
    browser.screenshot(shots / "diff.png")


def test_pages_work_with_javascript_off(
    console: str, browser: Browser, story: Story
) -> None:
    browser.scripts(False)
    try:
        browser.load(page(console, "/channel", id=story.root))
        assert browser.js("document.querySelectorAll('#timeline-rows tr').length") >= 10
        status = browser.js("document.getElementById('live-status').innerText")
        assert "need JavaScript" in status
        assert browser.js("document.querySelectorAll('#fork-tree g.node').length") == 2
    finally:
        browser.scripts(True)


def test_a_live_event_appears_without_reload(
    console: str, browser: Browser, story: Story, dsn: str, shots: Path
) -> None:
    browser.load(page(console, "/channel", id=story.root))
    browser.wait_for(
        "document.getElementById('live-status').innerText.startsWith('Live: new')")
    browser.js("window.__same_page = true")
    rows_before = browser.js("document.querySelectorAll('#timeline-rows tr').length")
    with SyncActaeClient(dsn, max_size=1) as client:
        head = client.get_channel(story.root).head_cursor
        client.record_event(story.root, "customer_replied", {"text": "thanks!"})
    browser.wait_for(f"document.querySelector('[id^=ev-{head + 1}-]') !== null")
    assert browser.js("window.__same_page") is True, "the page was not reloaded"
    assert browser.js(f"document.querySelector('[id^=ev-{head + 1}-]').innerText").count(
        "customer_replied") == 1
    assert browser.js("document.querySelectorAll('#timeline-rows tr').length") > rows_before
    assert browser.js(f"document.querySelector('[id^=ev-{head + 1}-]').classList.contains('fresh')")
    browser.screenshot(shots / "live.png")


def test_the_demo_crash_story_and_its_fork(
    console: str, browser: Browser, dsn: str, conn: psycopg.Connection, shots: Path
) -> None:
    """`make demo`'s two stories, as the console shows them: the crash (a charge reclaimed
    ambiguously, then completed once) and the research agent forked at step 5."""
    started = conn.execute("select clock_timestamp()").fetchone()[0]
    env = {**os.environ, "ACTAE_DSN": dsn}
    for story in ("crash", "fork"):
        subprocess.run([sys.executable, "-m", "actae", "demo", story],
                       env=env, check=True, capture_output=True, timeout=300)
    crash, fork, parent, cursor = conn.execute("""
        select (select channel_id from actae.channels
                where channel_id like 'demo-%%' and created_at >= %(t)s),
               f.channel_id, f.parent_channel_id, f.fork_cursor
        from actae.channels as f
        where f.parent_channel_id is not null and f.created_at >= %(t)s""",
        {"t": started}).fetchone()

    browser.load(page(console, "/channel", id=crash))
    kinds = browser.js("""Array.from(document.querySelectorAll('#timeline-rows tr'))
        .map(tr => tr.dataset.kind + (tr.classList.contains('ambiguous') ? '!' : ''))""")
    assert kinds == ["claimed", "reclaimed!", "completed"]
    assert "completed" in browser.js("document.getElementById('ledger-table').innerText")
    browser.screenshot(shots / "demo-crash.png")

    browser.load(page(console, "/channel", id=fork))
    nodes = browser.js("""Array.from(document.querySelectorAll('#fork-tree g.node'))
        .map(g => [g.dataset.channel, g.dataset.forkCursor])""")
    assert nodes == [[parent, ""], [fork, str(cursor)]]
    inherited = browser.js("""Array.from(document.querySelectorAll('#timeline-rows tr'))
        .filter(tr => tr.innerText.includes('(from ')).length""")
    assert inherited > 0, "the fork's inherited prefix is shown as coming from its parent"
    browser.screenshot(shots / "demo-fork.png")


def test_a_page_whose_channel_is_purged_and_created_again_loads_the_new_one(
    dsn: str, browser: Browser
) -> None:
    """The live view of a channel that is purged and created again under its id: the page
    loads again and shows the new channel only (it kept the old channel's rows and added
    the new one's)."""
    with fresh_database(dsn) as scratch, serve(reader_dsn(scratch)) as console:
        with psycopg.connect(scratch, autocommit=True) as conn:
            for event_type in ("old_one", "old_two"):
                conn.execute("select actae.record_event('reborn', %s, '{}')", (event_type,))
            browser.load(page(console, "/channel", id="reborn", after=0))
            browser.wait_for(
                "document.getElementById('live-status').innerText.startsWith('Live: new')")
            browser.js("window.__same_page = true")
            with conn.transaction():  # no read sees it purged and not created again
                conn.execute("select actae.close_channel('reborn')")
                conn.execute("select actae.purge('0 seconds')")
                conn.execute("select actae.record_event('reborn', 'new_one', '{}')")
        browser.wait_for("window.__same_page === undefined && document.readyState === 'complete'"
                         " && document.getElementById('timeline-rows') !== null")
        href = browser.js("window.location.href")
        texts = browser.js("Array.from(document.querySelectorAll('#timeline-rows tr'),"
                           " r => r.innerText)")
        browser.load("about:blank")  # its live stream ends before the console stops
    assert "after=" not in href
    assert len(texts) == 1 and "new_one" in texts[0], texts


def test_a_page_left_gives_its_live_view_back_and_takes_one_when_shown_again(
    console: str, browser: Browser, dsn: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With one live view allowed: a run page left for another page, which the browser
    keeps to come back to (the back-forward cache), held its stream, so the next run page
    was refused its live view; now the page left closes its stream, and opens one again
    when it is shown again."""
    monkeypatch.setattr("actae.console.app.MAX_STREAMS", 1)
    channel = f"bf-{uuid.uuid4().hex[:8]}"
    live = "document.getElementById('live-status').innerText.startsWith('Live: new')"
    with SyncActaeClient(dsn, max_size=1) as client:
        client.record_event(channel, "first", {})
        browser.load(page(console, "/channel", id=channel))
        browser.wait_for(live)
        browser.load(page(console, "/channel", id=channel, after=0))  # another run page
        browser.wait_for(live)
        client.record_event(channel, "second", {})
        browser.wait_for("document.querySelector('[id^=ev-2-]') !== null")
        browser.js("history.back()")  # the first page, as it was left
        browser.wait_for("document.querySelector('[id^=ev-2-]') !== null"
                         " && !window.location.search.includes('after=')")
        browser.wait_for(live)
        client.record_event(channel, "third", {})
        browser.wait_for("document.querySelector('[id^=ev-3-]') !== null")
        browser.load("about:blank")
