"""Channel commands of the ``actae`` command line: channel show / close / key-ttl, fork."""

from __future__ import annotations

import argparse
from typing import Any

import psycopg

from actae import calls
from actae.cli import CommandError, Subparsers
from actae.cli_db import common_options, run, with_connection
from actae.cli_render import EXECUTION_HEADERS, execution_rows, pairs, table, to_json
from actae.models import Channel


def _channel_pairs(channel: Channel, lineage_text: str) -> list[tuple[str, Any]]:
    parent = None
    if channel.parent_channel_id is not None:
        parent = f"{channel.parent_channel_id} at cursor {channel.fork_cursor}"
    return [
        ("channel", channel.channel_id),
        ("lineage", lineage_text),
        ("forked from", parent),
        ("head cursor", channel.head_cursor),
        ("state version", channel.state_version),
        ("created", channel.created_at),
        ("closed", channel.closed_at),
        ("key lifetime", channel.key_ttl),
        ("tool policies", channel.tool_policies),
        ("chain head", channel.head_chain_sha256 or None),
    ]


@with_connection
def _show(args: argparse.Namespace, conn: psycopg.Connection[Any]) -> int:
    channel = run(conn, calls.get_channel(args.channel_id))
    lineage = run(conn, calls.channel_lineage(args.channel_id))
    after = max(0, channel.head_cursor - args.events)
    events = run(conn, calls.list_events(args.channel_id, after, max(args.events, 1)))
    events = events[: args.events]
    executions = run(conn, calls.list_executions(args.channel_id, None, False, args.limit))
    if args.json:
        print(to_json({
            "channel": channel, "lineage": lineage, "events": events, "executions": executions,
        }))
        return 0
    steps = [f"{a.ancestor_channel_id}@{a.inherited_cursor}" for a in lineage]
    print(pairs(_channel_pairs(channel, " > ".join([*steps, channel.channel_id]))))
    print(f"\nLAST EVENTS ({len(events)} of {channel.head_cursor})")
    print(table(
        [(e.cursor, e.event_type, e.recorded_at, e.operation_id, _short(e.payload))
         for e in events],
        ("cursor", "event_type", "recorded_at", "operation_id", "payload"),
    ))
    print(f"\nEXECUTIONS ({len(executions)})")
    print(table(execution_rows(executions), EXECUTION_HEADERS))
    return 0


def _short(value: Any, width: int = 60) -> str:
    text = to_json(value)
    return text if len(text) <= width else text[: width - 3] + "..."


@with_connection
def _close(args: argparse.Namespace, conn: psycopg.Connection[Any]) -> int:
    channel = run(conn, calls.close_channel(args.channel_id))
    if args.json:
        print(to_json(channel))
    else:
        print(f"channel {channel.channel_id} closed at {_at(channel)}")
    return 0


def _at(channel: Channel) -> str:
    return channel.closed_at.isoformat() if channel.closed_at else "-"


@with_connection
def _key_ttl(args: argparse.Namespace, conn: psycopg.Connection[Any]) -> int:
    ttl = None if args.ttl.lower() == "none" else args.ttl
    channel = run(conn, calls.set_key_ttl(args.channel_id, ttl))
    if args.json:
        print(to_json(channel))
    else:
        print(f"channel {channel.channel_id} key lifetime: "
              f"{channel.key_ttl if channel.key_ttl is not None else 'none'}")
    return 0


@with_connection
def _fork(args: argparse.Namespace, conn: psycopg.Connection[Any]) -> int:
    policies: dict[str, str] = {}
    for item in args.policy or []:
        tool, sep, policy = item.partition("=")
        if not sep or not tool:
            raise CommandError(f"--policy must look like TOOL=replay|live|block, got {item!r}")
        policies[tool] = policy
    receipt = run(conn, calls.fork_channel(
        args.source, args.at, args.new_id, args.operation_id, policies or None
    ))
    if args.json:
        print(to_json(receipt))
        return 0
    print(pairs([
        ("fork", receipt.channel_id),
        ("outcome", receipt.outcome),
        ("source", f"{receipt.source_channel_id} at cursor {receipt.fork_cursor}"),
        ("state version", receipt.version),
        ("tool policies", receipt.tool_policies),
        ("prefix sha256", receipt.prefix_sha256 or "(empty prefix)"),
    ]))
    return 0


def add_channel(sub: Subparsers) -> None:
    """``actae channel show|close|key-ttl``."""
    channel = sub.add_parser("channel", help="show, close or set the key lifetime of a channel")
    actions = channel.add_subparsers(dest="action", required=True, metavar="ACTION")
    show = actions.add_parser("show", parents=[common_options()],
                              help="lineage, head, state version, last events, executions")
    show.add_argument("channel_id", metavar="ID")
    show.add_argument("--events", type=int, default=10, help="last N events (default 10)")
    show.add_argument("--limit", type=int, default=100, help="at most N executions")
    show.set_defaults(handler=_show)
    close = actions.add_parser("close", parents=[common_options()],
                               help="mark the run as over (starts its retention clock)")
    close.add_argument("channel_id", metavar="ID")
    close.set_defaults(handler=_close)
    ttl = actions.add_parser("key-ttl", parents=[common_options()],
                             help="how long finished keys replay, e.g. '7 days' (none: forever)")
    ttl.add_argument("channel_id", metavar="ID")
    ttl.add_argument("ttl", metavar="TTL")
    ttl.set_defaults(handler=_key_ttl)


def add_fork(sub: Subparsers) -> None:
    """``actae fork SOURCE --at N``."""
    p = sub.add_parser("fork", parents=[common_options()],
                       help="new channel inheriting SOURCE's events 1..N and their results")
    p.add_argument("source", metavar="SOURCE")
    p.add_argument("--at", type=int, required=True, metavar="N", help="last inherited cursor")
    p.add_argument("--new-id", help="id of the new channel (default: fork-<uuid>)")
    p.add_argument("--operation-id", help="idempotency key of the fork in SOURCE")
    p.add_argument("--policy", action="append", metavar="TOOL=POLICY",
                   help="replay (default), live or block; repeatable")
    p.set_defaults(handler=_fork)
