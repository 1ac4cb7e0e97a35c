"""Console page load times for a run with 10 000 events, next to their baselines.

Usage: .ci/with-db.sh .venv/bin/python tests/bench/console_pages.py [--events 10000]

Builds one run (events, a state transition every 100 events, a tool call completed every 50,
an ambiguous reclaim, a failure, a fork at the middle), serves the console for a read-only
role and measures, in the same run:
  * SQL: the timeline() page the console reads vs list_events() for the same page (the
    plain event read every client already does) — first and last page;
  * HTTP: the whole page as served (every read it makes plus rendering);
  * Chromium: navigation to the load event of the run page.
Medians of repeated runs; printed as a table (docs/console.md quotes it).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote

import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the checkout root
from tests.python.support.console_harness import Browser, get, reader_dsn, serve  # noqa: E402

BUILD = """
do $build$
declare
    v_claim actae.execution_row;
begin
    for i in 1 .. %(events)s loop
        if i %% 100 = 0 then
            perform actae.transition_state(%(channel)s, 'step', jsonb_build_object('i', i),
                jsonb_build_object('i', i, 'notes', repeat('n', 200)), i / 100 - 1);
        else
            perform actae.record_event(%(channel)s, 'observation',
                jsonb_build_object('i', i, 'text', repeat('x', 200)));
        end if;
        if i %% 50 = 0 then
            v_claim := actae.claim_execution(%(channel)s, 'tool:' || i, 'search',
                jsonb_build_object('i', i));
            perform actae.complete_execution(v_claim.execution_id, v_claim.claim_token,
                jsonb_build_object('hits', i));
        end if;
    end loop;
    v_claim := actae.claim_execution(%(channel)s, 'charge', 'charge', '{"amount": 1}');
    update actae.executions set lease_expires_at = clock_timestamp() - interval '1 second'
    where execution_id = v_claim.execution_id;
    v_claim := actae.claim_execution(%(channel)s, 'charge', 'charge', '{"amount": 1}');
    perform actae.fail_execution(v_claim.execution_id, 'declined', v_claim.claim_token, false);
    perform actae.fork_channel(%(channel)s, %(events)s / 2, %(channel)s || '-fork');
    perform actae.transition_state(%(channel)s || '-fork', 'changed', '{}',
        '{"i": 0, "changed": true}', %(events)s / 200);
end;
$build$;
"""


def median_ms(action: Callable[[], object], repeat: int) -> float:
    action()  # warm caches and plans
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        action()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()

    dsn = os.environ["ACTAE_DSN"]
    channel = f"bench-console-{uuid.uuid4().hex[:8]}"
    started = time.perf_counter()
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(BUILD % {"events": args.events, "channel": f"'{channel}'"})
        last_clock = conn.execute(
            "select clock from actae.events where channel_id = %s and cursor = %s",
            (channel, args.events - 150)).fetchone()[0]
    print(f"built {channel}: {args.events} events in {time.perf_counter() - started:.1f} s")

    rows: list[tuple[str, float, str]] = []
    with psycopg.connect(reader_dsn(dsn), autocommit=True) as conn:
        def sql(statement: str, *params: object) -> Callable[[], object]:
            return lambda: conn.execute(statement, params).fetchall()

        rows += [
            ("SQL list_events, first 200 (baseline)", median_ms(sql(
                "select * from actae.list_events(%s, 0, 200)", channel), args.repeat), ""),
            ("SQL timeline, first 200 rows", median_ms(sql(
                "select * from actae.timeline(%s, null, 200)", channel), args.repeat), ""),
            ("SQL list_events, last 150 (baseline)", median_ms(sql(
                "select * from actae.list_events(%s, %s, 200)", channel, args.events - 150),
                args.repeat), ""),
            ("SQL timeline, last page", median_ms(sql(
                "select * from actae.timeline(%s, %s, 200)", channel, last_clock),
                args.repeat), ""),
        ]
    with serve(reader_dsn(dsn)) as console:
        pages = {
            "HTTP run page, first timeline page": f"/channel?id={quote(channel)}",
            "HTTP run page, last timeline page": f"/channel?id={quote(channel)}&after={last_clock}",
            "HTTP state at cursor 5000": f"/channel/state?id={quote(channel)}&cursor=5000",
            "HTTP diff with the fork": f"/diff?a={quote(channel)}&b={quote(channel)}-fork",
            "HTTP run list": "/",
        }
        for label, path in pages.items():
            status, body = get(console + path)
            assert status == 200, (path, status)
            rows.append((label, median_ms(lambda p=path: get(console + p), args.repeat),
                         f"{len(body) // 1024} KiB"))
        browser = Browser()
        try:
            url = console + pages["HTTP run page, first timeline page"]
            browser.load(url)
            loads = [browser.load(url) * 1000 for _ in range(max(3, args.repeat // 3))]
            rows.append(("Chromium run page to load event", statistics.median(loads), ""))
            small = console + pages["HTTP diff with the fork"]
            browser.load(small)
            loads = [browser.load(small) * 1000 for _ in range(max(3, args.repeat // 3))]
            rows.append(("Chromium diff page (baseline: small page)", statistics.median(loads),
                         ""))
        finally:
            browser.close()

    width = max(len(r[0]) for r in rows)
    print(f"{'measure':<{width}}  median ms  size")
    for label, ms, size in rows:
        print(f"{label:<{width}}  {ms:9.1f}  {size}")


if __name__ == "__main__":
    main()
