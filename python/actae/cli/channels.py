"""Channel commands: ``channel show|close|key-ttl`` and ``fork``."""

from __future__ import annotations

import argparse
from typing import Any

from actae.cli.base import (
    EXECUTION_HEADERS,
    MAX_BIGINT,
    MAX_ROWS,
    Command,
    CommandError,
    Subparsers,
    cell,
    common_options,
    count,
    execution_rows,
    interval_argument,
    interval_text,
    open_client,
    pairs,
    require_channel,
    table,
    to_json,
)
from actae.models import Channel, Event


def _key_lifetime(channel: Channel) -> str:
    if channel.key_ttl is None:
        return "none"
    return interval_text(channel.key_ttl)


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
        ("key lifetime", _key_lifetime(channel)),
        ("tool policies", channel.tool_policies),
        ("chain head", channel.head_chain_sha256 or None),
    ]


def _show(args: argparse.Namespace) -> int:
    with open_client(args) as client:
        channel = client.get_channel(args.channel_id)
        lineage = client.channel_lineage(args.channel_id)
        events: list[Event] = []  # --events 0: none
        if args.events:
            after = max(0, channel.head_cursor - args.events)
            events = client.list_events(args.channel_id, after, args.events)
        executions = client.list_executions(args.channel_id, None, False, args.limit)
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


def _close(args: argparse.Namespace) -> int:
    with open_client(args) as client:
        channel = client.close_channel(args.channel_id)
    if args.json:
        print(to_json(channel))
    else:
        closed = channel.closed_at.isoformat() if channel.closed_at else "-"
        print(f"channel {cell(channel.channel_id)} closed at {closed}")
    return 0


def _key_ttl(args: argparse.Namespace) -> int:
    ttl = None if args.ttl.lower() == "none" else args.ttl
    with open_client(args) as client, interval_argument("TTL", ttl):
        if not args.create:  # set_key_ttl creates a channel it does not find
            require_channel(client, args.channel_id, "sets it on a new channel")
        channel = client.set_key_ttl(args.channel_id, ttl)
    if args.json:
        print(to_json(channel))
    else:
        print(f"channel {cell(channel.channel_id)} key lifetime: {_key_lifetime(channel)}")
    return 0


def _fork(args: argparse.Namespace) -> int:
    policies: dict[str, str] = {}
    given: list[str] = args.policy or []
    for item in given:
        tool, sep, policy = item.partition("=")
        if not sep or not tool:
            raise CommandError(f"--policy must look like TOOL=replay|live|block, got {item!r}",
                               code=2)
        policies[tool] = policy
    with open_client(args) as client:
        receipt = client.fork_channel(
            args.source, args.at, args.new_id, args.operation_id, policies or None
        )
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


def _add_channel(sub: Subparsers) -> None:
    channel = sub.add_parser("channel", help="show, close or set the key lifetime of a channel")
    actions = channel.add_subparsers(dest="action", required=True, metavar="ACTION")
    show = actions.add_parser("show", parents=[common_options()],
                              help="lineage, head, state version, last events, executions")
    show.add_argument("channel_id", metavar="ID")
    show.add_argument("--events", type=count(0, MAX_ROWS), default=10, metavar="N",
                      help=f"last N events (0 to {MAX_ROWS}, default 10; 0: none)")
    show.add_argument("--limit", type=count(1, MAX_ROWS), default=100, metavar="N",
                      help=f"at most N executions (1 to {MAX_ROWS}, default 100)")
    show.set_defaults(handler=_show)
    close = actions.add_parser("close", parents=[common_options()],
                               help="mark the run as over (starts its retention clock)")
    close.add_argument("channel_id", metavar="ID")
    close.set_defaults(handler=_close)
    ttl = actions.add_parser("key-ttl", parents=[common_options()],
                             help="how long finished keys replay, e.g. '7 days' (none: forever)")
    ttl.add_argument("channel_id", metavar="ID")
    ttl.add_argument("ttl", metavar="TTL")
    ttl.add_argument("--create", action="store_true",
                     help="create the channel when it does not exist (else refused)")
    ttl.set_defaults(handler=_key_ttl)


def _add_fork(sub: Subparsers) -> None:
    p = sub.add_parser("fork", parents=[common_options()],
                       help="new channel inheriting SOURCE's events 1..N and their results")
    p.add_argument("source", metavar="SOURCE")
    p.add_argument("--at", type=count(0, MAX_BIGINT), required=True, metavar="N",
                   help="last inherited cursor")
    p.add_argument("--new-id", help="id of the new channel (default: fork-<uuid>)")
    p.add_argument("--operation-id", help="idempotency key of the fork in SOURCE")
    p.add_argument("--policy", action="append", metavar="TOOL=POLICY",
                   help="replay (default), live or block; repeatable")
    p.set_defaults(handler=_fork)


COMMANDS: list[Command] = [_add_channel, _add_fork]
