"""``actae migrate [--status] [--role-settings [LOGIN ...]] [--revoke-public-connect]
[--revoke-public-locks]``: apply pending migrations and reload the sql/ functions, then
optionally harden logins, CONNECT and the advisory-lock functions."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable

from actae import migrate as migrations
from actae.cli.base import Command, Subparsers, common_options, dsn_from


def _migrate(args: argparse.Namespace) -> int:
    dsn = dsn_from(args)
    if args.status:
        rows = migrations.status(dsn)
        if args.json:
            print(json.dumps([_status_json(r) for r in rows]))
        else:
            for r in rows:
                print(f"{r.state:<12} {r.name}")
        return 0 if migrations.status_ok(rows) else 1
    try:
        applied = migrations.migrate(dsn)
    except migrations.MigrationError as exc:
        if args.json and exc.applied:  # committed before the failure
            print(json.dumps(exc.applied))
        raise

    def say(*lines: str) -> None:  # text as each step is done (a later one may fail)
        if not args.json:
            print("\n".join(lines))

    say(*[f"applied {name}" for name in applied] or ["migrations up to date; sql/ reloaded"])
    # --json prints one JSON document: the applied names as an array, or, when a hardening
    # option is given, an object with the array under "applied" and what each option did.
    report: dict[str, object] = {"applied": applied}
    try:
        _harden(args, dsn, report, say)
    except BaseException:
        if args.json:  # what was done before the failure (the migrations are committed)
            print(json.dumps(report))
        raise
    if args.json:
        print(json.dumps(applied if len(report) == 1 else report))
    return 0


def _harden(args: argparse.Namespace, dsn: str, report: dict[str, object],
            say: Callable[..., None]) -> None:
    """--role-settings, --revoke-public-connect and --revoke-public-locks, each noted in
    report once done."""
    if args.role_settings is not None:
        changed = migrations.apply_role_settings(dsn, args.role_settings)
        settings = ", ".join(f"{k} = {v}" for k, v in migrations.AGENT_ROLE_SETTINGS.items())
        say(f"set {settings} for {', '.join(changed) or 'no login'}")
        report["role_settings"] = {"settings": dict(migrations.AGENT_ROLE_SETTINGS),
                                   "logins": changed}
    if args.revoke_public_connect:
        database = migrations.revoke_public_connect(dsn)
        say(f"revoked connect, temporary on database {database} from public")
        report["revoked_public_connect"] = database
    if args.revoke_public_locks:
        functions = migrations.revoke_public_locks(dsn)
        say(f"revoked execute on {len(functions)} advisory-lock functions from public"
            " (granted to actae_owner)")
        report["revoked_public_locks"] = functions


def _status_json(row: migrations.MigrationStatus) -> dict[str, object]:
    applied_at = row.applied_at.isoformat() if row.applied_at else None
    return {"version": row.version, "name": row.name, "state": row.state, "applied_at": applied_at}


def _add_migrate(sub: Subparsers) -> None:
    p = sub.add_parser("migrate", parents=[common_options()],
                       help="apply pending migrations and reload sql/ functions")
    p.add_argument("--status", action="store_true", help="show applied/pending, change nothing")
    p.add_argument("--role-settings", nargs="*", metavar="LOGIN",
                   help="then set idle_in_transaction_session_timeout, lock_timeout and"
                   " statement_timeout on these logins (none named: every agent login)")
    p.add_argument("--revoke-public-connect", action="store_true",
                   help="then revoke connect, temporary on this database from public"
                   " (Actae's roles keep CONNECT)")
    p.add_argument("--revoke-public-locks", action="store_true",
                   help="then revoke execute on the advisory-lock functions from public in"
                   " this database (tenants cannot then hold each other's channel guards)")
    p.set_defaults(handler=_migrate)


COMMANDS: list[Command] = [_add_migrate]
