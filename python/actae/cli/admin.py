"""Operator commands: status, executions, cancel, purge (tables by default, ``--json``)."""

from __future__ import annotations

import argparse

from actae.cli.base import (
    EXECUTION_HEADERS,
    MAX_ROWS,
    Command,
    Subparsers,
    at_least_zero,
    cell,
    common_options,
    count,
    execution_rows,
    interval_argument,
    open_client,
    pairs,
    parse_uuid,
    table,
    to_json,
)


def _status(args: argparse.Namespace) -> int:
    with open_client(args) as client:
        status = client.ledger_status()
        tools = client.tool_stats()
    if args.json:
        print(to_json({"status": status, "tools": tools}))
        return 0
    print(pairs([
        ("schema version", status.schema_version),
        ("channels", f"{status.channels} ({status.closed_channels} closed, "
                     f"{status.forks} forks)"),
        ("executions", f"{status.executions} (claimed {status.claimed}, in_progress "
                       f"{status.in_progress}, completed {status.completed}, "
                       f"failed {status.failed}, cancelled {status.cancelled})"),
        ("expired leases", status.expired_leases),
        ("oldest expired lease", status.oldest_expired_lease_at),
        ("oldest in-flight claim", status.oldest_in_flight_claimed_at),
    ]))
    print()
    print(table(
        [(t.tool_name, t.executions, t.claimed + t.in_progress, t.completed, t.failed,
          t.cancelled, t.attempts, t.p50_seconds, t.p95_seconds) for t in tools],
        ("tool", "executions", "in_flight", "completed", "failed", "cancelled", "attempts",
         "p50_s", "p95_s"),
    ))
    return 0


def _executions(args: argparse.Namespace) -> int:
    with open_client(args) as client:
        if args.stuck and args.channel is None and args.status is None:
            found = client.list_expired_leases(args.limit)  # oldest lease first
        else:  # --stuck narrowed by --channel / --status: lapsed leases among those
            found = client.list_executions(args.channel, args.status, args.stuck, args.limit)
    if args.json:
        print(to_json(found))
    else:
        print(table(execution_rows(found), EXECUTION_HEADERS))
    return 0


def _cancel(args: argparse.Namespace) -> int:
    execution_id = parse_uuid(args.execution_id, "EXECUTION_ID")
    with open_client(args) as client:
        done = client.cancel_execution(execution_id, args.reason)
    if args.json:
        print(to_json(done))
    elif done.status == "failed":
        print(f"execution {done.id} failed: {cell(done.error)}")
    else:
        print(f"cancel requested for execution {done.id} ({done.status}); its owner stops "
              "at its next heartbeat, or the next claim fails it")
    return 0


def _purge(args: argparse.Namespace) -> int:
    totals = dict.fromkeys(("channels", "events", "snapshots", "executions", "operations"), 0)
    batches = 0
    more = True
    with open_client(args) as client, interval_argument("--older-than", args.older_than):
        while more and (args.max_batches == 0 or batches < args.max_batches):
            done = client.purge(args.older_than, args.batch_size)
            batches += 1
            for name in totals:
                totals[name] += getattr(done, name)
            more = done.more
    if args.json:
        print(to_json({**totals, "batches": batches, "more": more}))
        return 0
    print(f"purged {totals['channels']} channels, {totals['events']} events, "
          f"{totals['snapshots']} snapshots, {totals['executions']} executions and "
          f"{totals['operations']} operation ids in {batches} batch(es)")
    if more:
        print("stopped at --max-batches; more is left to purge")
    return 0


def _add_status(sub: Subparsers) -> None:
    p = sub.add_parser("status", parents=[common_options()],
                       help="schema version, executions by status, expired leases, tools")
    p.set_defaults(handler=_status)


def _add_executions(sub: Subparsers) -> None:
    p = sub.add_parser("executions", parents=[common_options()],
                       help="list executions (--stuck: lapsed leases, oldest first)")
    p.add_argument("--stuck", action="store_true",
                   help="only claimed/in_progress executions whose lease has lapsed")
    p.add_argument("--channel", help="only this channel's own executions")
    p.add_argument("--status", choices=("claimed", "in_progress", "completed", "failed",
                                              "cancelled"))
    p.add_argument("--limit", type=count(1, MAX_ROWS), default=100, metavar="N",
                   help=f"at most N (1 to {MAX_ROWS}, default 100)")
    p.set_defaults(handler=_executions)


def _add_cancel(sub: Subparsers) -> None:
    p = sub.add_parser("cancel", parents=[common_options()],
                       help="ask a running execution to stop (it then fails for good)")
    p.add_argument("execution_id", metavar="EXECUTION_ID")
    p.add_argument("--reason", required=True, help="why; stored as 'cancelled: <reason>'")
    p.set_defaults(handler=_cancel)


def _add_purge(sub: Subparsers) -> None:
    p = sub.add_parser("purge", parents=[common_options()],
                       help="delete closed channels and expired keys past their lifetime")
    p.add_argument("--older-than", required=True,
                   help="how long a closed channel must have been quiet, e.g. '30 days'")
    p.add_argument("--batch-size", type=count(1, MAX_ROWS), default=1000, metavar="N",
                   help=f"rows per transaction (1 to {MAX_ROWS}, default 1000)")
    p.add_argument("--max-batches", type=at_least_zero, default=0, metavar="N",
                   help="stop after N batches (default 0: until done)")
    p.set_defaults(handler=_purge)


COMMANDS: list[Command] = [_add_status, _add_executions, _add_cancel, _add_purge]
