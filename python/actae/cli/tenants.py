"""Tenant commands: ``tenant create|add-login|list|assign|quota|quotas``
(docs/tenants.md)."""

from __future__ import annotations

import argparse
import sys
from dataclasses import asdict, fields

import psycopg

from actae import tenants
from actae.cli.base import (
    MAX_BIGINT,
    Command,
    Subparsers,
    common_options,
    count,
    dsn_from,
    table,
    to_json,
)
from actae.migrate import connect


def _connect(args: argparse.Namespace) -> psycopg.Connection[tuple[object, ...]]:
    return connect(dsn_from(args))


def _print(args: argparse.Namespace, tenant: tenants.Tenant) -> int:
    if args.json:
        print(to_json({"tenant": tenant.name, "logins": list(tenant.logins)}))
    else:
        print(f"tenant {tenant.name}: {', '.join(tenant.logins) or '(no logins)'}")
    return 0


def _create(args: argparse.Namespace) -> int:
    with _connect(args) as conn:
        return _print(args, tenants.create_tenant(conn, args.name))


def _add_login(args: argparse.Namespace) -> int:
    with _connect(args) as conn:
        return _print(args, tenants.add_tenant_login(conn, args.tenant, args.login,
                                                     create=args.create))


def _list(args: argparse.Namespace) -> int:
    with _connect(args) as conn:
        found = tenants.list_tenants(conn)
    if args.json:
        print(to_json([{"tenant": t.name, "logins": list(t.logins)} for t in found]))
    else:
        print(table([(t.name, ", ".join(t.logins)) for t in found], ("tenant", "logins")))
    return 0


def _assign(args: argparse.Namespace) -> int:
    with _connect(args) as conn:
        tenants.assign_tenant(conn, args.channel_id, args.tenant)
    print(f"channel {args.channel_id} now belongs to tenant {args.tenant}")
    return 0


QUOTA_HEADERS = tuple(f.name for f in fields(tenants.Quota))


def _quota(args: argparse.Namespace) -> int:
    limits = (args.max_channels, args.max_bytes, args.max_events_per_channel)
    if args.remove == any(limit is not None for limit in limits):
        print("actae: give at least one --max-... limit, or --remove alone", file=sys.stderr)
        return 2
    with _connect(args) as conn:
        quota = tenants.set_quota(conn, args.tenant, max_channels=args.max_channels,
                                  max_bytes=args.max_bytes,
                                  max_events_per_channel=args.max_events_per_channel)
    if args.json:
        print(to_json(None if quota is None else asdict(quota)))
    elif quota is None:
        print(f"tenant {args.tenant}: no quotas")
    else:
        shown = ", ".join(f"{k} {v}" for k, v in asdict(quota).items()
                          if k.startswith("max_") and v is not None)
        print(f"tenant {quota.tenant}: {shown}")
    return 0


def _quotas(args: argparse.Namespace) -> int:
    with _connect(args) as conn:
        found = tenants.list_quotas(conn, measure=args.measure)
    if args.json:
        print(to_json([asdict(q) for q in found]))
    else:
        rows = [tuple("-" if v is None else v for v in asdict(q).values()) for q in found]
        print(table(rows, QUOTA_HEADERS))
    return 0


def _add_tenant(sub: Subparsers) -> None:
    tenant = sub.add_parser("tenant", help="create tenants, add logins, assign channels")
    actions = tenant.add_subparsers(dest="action", required=True, metavar="ACTION")
    create = actions.add_parser("create", parents=[common_options()],
                                help="create tenant NAME (a NOLOGIN role granted actae_agent)")
    create.add_argument("name", metavar="NAME")
    create.set_defaults(handler=_create)
    add = actions.add_parser("add-login", parents=[common_options()],
                             help="grant tenant TENANT to login LOGIN")
    add.add_argument("tenant", metavar="TENANT")
    add.add_argument("login", metavar="LOGIN")
    add.add_argument("--create", action="store_true",
                     help="create LOGIN (LOGIN role, no password) when it does not exist")
    add.set_defaults(handler=_add_login)
    listing = actions.add_parser("list", parents=[common_options()],
                                 help="tenants and the roles granted them")
    listing.set_defaults(handler=_list)
    assign = actions.add_parser("assign", parents=[common_options()],
                                help="move a channel and its executions to TENANT (operator)")
    assign.add_argument("channel_id", metavar="CHANNEL")
    assign.add_argument("tenant", metavar="TENANT")
    assign.set_defaults(handler=_assign)
    quota = actions.add_parser("quota", parents=[common_options()],
                               help="set or remove TENANT's quotas (operator)")
    quota.add_argument("tenant", metavar="TENANT")
    for flag, what in (("--max-channels", "channels the tenant may own"),
                       ("--max-bytes", "stored bytes, against the last measure_usage"),
                       ("--max-events-per-channel", "events in one channel")):
        quota.add_argument(flag, type=count(0, MAX_BIGINT), metavar="N",
                           help=f"at most N {what} (0 forbids)")
    quota.add_argument("--remove", action="store_true", help="remove every quota of TENANT")
    quota.set_defaults(handler=_quota)
    quotas = actions.add_parser("quotas", parents=[common_options()],
                                help="tenants with quotas and their last measured usage")
    quotas.add_argument("--measure", action="store_true",
                        help="run actae.measure_usage first (operator; reads the ledger whole)")
    quotas.set_defaults(handler=_quotas)


COMMANDS: list[Command] = [_add_tenant]
