"""Console commands of the ``actae`` command line: console, timeline, forks, diff.

``actae console`` serves the read-only web console (extra ``actae[console]``); the other
three print the same reads in a terminal; timeline and diff through the console's own
clients, so their values' numbers are exactly as stored (actae.console.exact).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Callable, Iterable
from typing import Any

from pydantic import BaseModel

from actae.cli.base import (
    MAX_AFTER_CLOCK,
    MAX_CONSOLE_ROWS,
    CommandError,
    Subparsers,
    count,
    dsn_from,
    open_client,
    printable,
    reachable,
    table,
)
from actae.console.exact import ConsoleClient, SyncConsoleClient
from actae.console.jsontext import json_text, path_text
from actae.console.models import StateDiff, TimelineEntry


def _dsn_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--dsn", default=argparse.SUPPRESS,
                   help="PostgreSQL connection string (default: $ACTAE_DSN)")


def _short(value: Any, limit: int = 60) -> str:
    text = json_text(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _timeline_line(r: TimelineEntry) -> tuple[Any, ...]:
    if r.kind == "event":
        what, detail = r.event_type, _short(r.payload)
    else:
        what = f"{r.tool_name} {r.key_name}"
        flags = [f"attempt {r.attempt}"] if (r.attempt or 1) > 1 else []
        if r.kind == "reclaimed" and r.ambiguous:
            flags.append("AMBIGUOUS")
        detail = " ".join([*flags, r.error or (_short(r.result) if r.kind == "completed" else "")])
    return (r.clock, r.cursor, r.kind, r.at, what, detail.strip())


TIMELINE_HEADERS = ("clock", "cursor", "kind", "at", "name", "details")


def _exact(model: BaseModel, **values: Any) -> dict[str, Any]:
    """``model`` as to_json writes it, with ``values`` (its JSON values) as read: for
    json_text, which writes a Decimal (a number read exactly) as the JSON number it is,
    where to_json would write a string."""
    row: dict[str, Any] = model.model_dump(mode="json", by_alias=True)
    row.update(values)
    return row


def _row_json(r: TimelineEntry) -> str:
    return json_text(_exact(r, payload=r.payload, params=r.params, result=r.result),
                     ensure_ascii=True)


def _print_timeline(rows: Iterable[TimelineEntry], as_json: bool, headers: bool) -> None:
    rows = list(rows)
    if as_json:
        for r in rows:
            print(_row_json(r))
        return
    if rows:
        text = table([_timeline_line(r) for r in rows], TIMELINE_HEADERS)
        # Without headers: every line but the first (cells have no line break of their own;
        # splitlines() would also split at U+2028 and the like, which cells keep).
        print(text if headers else text.split("\n", 1)[1])


def _run_timeline(args: argparse.Namespace) -> int:
    dsn = reachable(dsn_from(args))
    if args.follow:
        # Ctrl-C is how --follow ends: asyncio.run cancels the follow (its connection
        # released) and re-raises it, for actae.cli.main to end the command quietly.
        return asyncio.run(_follow(dsn, args))
    with SyncConsoleClient(dsn, max_size=1) as client:
        after = args.after
        first = True
        while True:
            rows = client.timeline(args.channel_id, after, args.limit)
            _print_timeline(rows, args.json, first)
            first = False
            if not rows or not args.all:
                # Pages never split a clock, so a page can hold more or fewer rows than
                # --limit: whether more follow is asked of the next page itself.
                if rows and not args.json and client.timeline(args.channel_id,
                                                              rows[-1].clock, 1):
                    print(f"actae timeline: more rows follow clock {rows[-1].clock}:"
                          f" --after {rows[-1].clock}, or --all", file=sys.stderr)
                return 0
            after = rows[-1].clock


async def _follow(dsn: str, args: argparse.Namespace) -> int:
    from actae.console.live import Recreated, follow_timeline

    first = True  # headers before the next rows printed
    async with ConsoleClient(dsn, max_size=1) as client:
        async for batch in follow_timeline(client, args.channel_id, args.after,
                                           max_rows=args.limit):
            if isinstance(batch, Recreated):
                # The rows above were the old channel's; the new one's follow from its
                # start (clocks begin again at 1). Said on stderr: stdout stays rows only.
                print(printable(f"actae timeline: channel {batch.channel_id} was purged and"
                                " created again; its rows follow from its start"),
                      file=sys.stderr, flush=True)
                first = True
                continue
            _print_timeline(batch, args.json, first)  # no row comes twice
            first = first and not batch
            sys.stdout.flush()  # a pipe (| jq) gets each batch as it comes, not at exit
    return 0


def _add_timeline(sub: Subparsers) -> None:
    p = sub.add_parser("timeline", help="a channel's events and tool calls in clock order")
    p.add_argument("channel_id")
    p.add_argument("--after", type=count(0, MAX_AFTER_CLOCK), default=None, metavar="CLOCK",
                   help="only rows after this clock")
    p.add_argument("--limit", type=count(1, MAX_CONSOLE_ROWS), default=200, metavar="N",
                   help=f"rows per page, or per batch with --follow (1 to {MAX_CONSOLE_ROWS},"
                   " default 200)")
    p.add_argument("--all", action="store_true", help="every page, not just the first")
    p.add_argument("--follow", action="store_true",
                   help="keep printing new rows as events are recorded (LISTEN/NOTIFY)")
    p.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                   help="one JSON object per line")
    _dsn_option(p)
    p.set_defaults(handler=_run_timeline)


def _run_forks(args: argparse.Namespace) -> int:
    with SyncConsoleClient(reachable(dsn_from(args)), max_size=1) as client:
        nodes = client.fork_tree(args.channel_id, args.limit)
    if args.json:
        print(json_text([_exact(n, metadata=n.metadata) for n in nodes], ensure_ascii=True))
        return 0
    for n in nodes:
        marks = [f"@{n.fork_cursor}" if n.fork_cursor is not None else "root",
                 f"head {n.head_cursor}"]
        if n.run_status:
            marks.append(n.run_status)
        if n.failed:
            marks.append(f"{n.failed} failed")
        if n.ambiguous:
            marks.append(f"{n.ambiguous} ambiguous")
        if n.tool_policies:
            marks.append(" ".join(f"{k}={v}" for k, v in sorted(n.tool_policies.items())))
        name = n.channel_id + (f" ({n.display_name})" if n.display_name else "")
        here = "  <" if n.channel_id == args.channel_id else ""
        line = f"{'  ' * n.depth}{'└ ' if n.depth else ''}{name}  [{', '.join(marks)}]{here}"
        print(printable(line))
    return 0


def _add_forks(sub: Subparsers) -> None:
    p = sub.add_parser("forks", help="the fork tree a channel belongs to")
    p.add_argument("channel_id")
    p.add_argument("--limit", type=count(1, MAX_CONSOLE_ROWS), default=1000, metavar="N",
                   help=f"at most N channels (1 to {MAX_CONSOLE_ROWS}, default 1000)")
    p.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                   help="print JSON instead of text")
    _dsn_option(p)
    p.set_defaults(handler=_run_forks)


def _print_diff(d: StateDiff) -> None:
    lines: list[str] = []
    if d.common_ancestor is None:
        lines.append(f"{d.channel_a} and {d.channel_b} share no ancestor")
    else:
        lines.append(f"common ancestor {d.common_ancestor}; they part after cursor"
                     f" {d.shared_cursor} ({d.channel_a} sees it to {d.cursor_a},"
                     f" {d.channel_b} to {d.cursor_b})")
    lines.append(f"state versions {d.version_a} / {d.version_b}: {len(d.changes)} change(s)"
                 + (" (more not shown)" if d.truncated else ""))
    for c in d.changes:
        path = path_text(c.path)
        if c.op == "added":
            lines.append(f"+ {path} = {_short(c.b)}")
        elif c.op == "removed":
            lines.append(f"- {path} = {_short(c.a)}")
        else:
            lines.append(f"~ {path}: {_short(c.a)} -> {_short(c.b)}")
    for line in lines:  # ids and state keys are the agents': no control characters reach us
        print(printable(line))


def _run_diff(args: argparse.Namespace) -> int:
    with SyncConsoleClient(reachable(dsn_from(args)), max_size=1) as client:
        d = client.diff_states(args.channel_a, args.channel_b, args.limit)
    if args.json:
        changes = [_exact(c, a=c.a, b=c.b) for c in d.changes]
        print(json_text(_exact(d, changes=changes), ensure_ascii=True))
    else:
        _print_diff(d)
    return 0


def _add_diff(sub: Subparsers) -> None:
    p = sub.add_parser("diff", help="how two channels relate and how their states differ")
    p.add_argument("channel_a")
    p.add_argument("channel_b")
    p.add_argument("--limit", type=count(1, MAX_CONSOLE_ROWS), default=1000, metavar="N",
                   help=f"at most N changes (1 to {MAX_CONSOLE_ROWS}, default 1000)")
    p.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                   help="print JSON instead of text")
    _dsn_option(p)
    p.set_defaults(handler=_run_diff)


def _run_console(args: argparse.Namespace) -> int:
    try:
        from actae.console.app import allowed_host
        from actae.console.server import serve
    except ImportError as exc:
        raise CommandError(
            "the console needs its extra: pip install 'actae[console]'", code=2) from exc
    for name in args.allowed_host:  # the Host check's own rule, as one line here
        try:
            allowed_host(name)
        except ValueError as exc:
            raise CommandError(f"--allowed-host {exc}", code=2) from None
    # Checked before uvicorn starts, so a bad DSN or a writer role is one line and status 1
    # (the app's lifespan checks the role again, for anyone serving create_app directly).
    with open_client(args) as client:
        # Asked with --allow-writer too: on a database never migrated it is the one-line
        # "is this database migrated?", not a console answering every page with an error.
        if client.role_can_write() and not args.allow_writer:
            raise CommandError(
                "the console's database role can write to the ledger; connect as a role "
                "granted only actae_auditor (see docs/console.md), or pass --allow-writer "
                "for a throwaway database")
    serve(dsn_from(args), host=args.host, port=args.port, log_level=args.log_level,
          allow_writer=args.allow_writer, allowed_hosts=args.allowed_host)
    return 0


def _add_console(sub: Subparsers) -> None:
    p = sub.add_parser("console", help="serve the read-only web console")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=count(1, 65535), default=8480, help="port (default 8480)")
    p.add_argument("--log-level", default="warning", help="uvicorn log level")
    p.add_argument("--allow-writer", action="store_true",
                   help="start even if the role can write (throwaway databases only)")
    p.add_argument("--allowed-host", action="append", default=[], metavar="NAME",
                   help="also answer requests for this Host name (e.g. a reverse proxy's);"
                   " repeatable. The bound host, 127.0.0.1, localhost and [::1] always are")
    _dsn_option(p)
    p.set_defaults(handler=_run_console)


COMMANDS: list[Callable[[Subparsers], None]] = [_add_console, _add_timeline, _add_forks, _add_diff]
