"""What one Actae call sends to the Citus workers: statements, shards, shard groups.

With ``citus.log_remote_commands`` on and ``client_min_messages = log``, the coordinator
reports every command it sends to a worker as a LOG notice ("issuing <command>"). A call is
single-shard (router) when every ledger statement it sends names shards of one shard group
(co-located shards of the same hash range: one channel's rows).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import psycopg

_SHARD = re.compile(r"\bactae\.(\w+?)_(\d{6,})\b")
_DELEGATED = re.compile(r"\bactae\.[a-z_]+\(")
_CONTROL = re.compile(r"^(BEGIN|COMMIT|ROLLBACK|PREPARE|SELECT assign_distributed|"
                      r"SET |RESET )", re.IGNORECASE)


@dataclass
class Trace:
    """Remote commands of one call."""

    commands: list[str] = field(default_factory=list)
    statements: int = 0  # commands that read or write a ledger shard
    control: int = 0  # transaction control (BEGIN, COMMIT, PREPARE, ...)
    delegated: int = 0  # whole function calls sent to a worker (create_distributed_function)
    shards: set[int] = field(default_factory=set)
    groups: set[str] = field(default_factory=set)  # shard hash ranges touched


def shard_groups(conn: psycopg.Connection[Any]) -> dict[int, str]:
    """shardid -> its hash range (the same for co-located shards of one channel range)."""
    rows = conn.execute(
        "select shardid, coalesce(shardminvalue, 'reference') from pg_dist_shard").fetchall()
    return {int(r[0]): str(r[1]) for r in rows}


def trace(conn: psycopg.Connection[Any], sql: str,
          params: Sequence[Any] | Mapping[str, Any] | None = None,
          groups: dict[int, str] | None = None) -> tuple[Trace, list[Any]]:
    """Run one statement with remote-command logging; return its trace and its rows."""
    groups = groups if groups is not None else shard_groups(conn)
    found = Trace()

    def collect(diag: psycopg.errors.Diagnostic) -> None:
        text = diag.message_primary or ""
        if text.startswith("issuing "):
            found.commands.append(text[len("issuing "):])

    conn.add_notice_handler(collect)
    try:
        conn.execute("set citus.log_remote_commands = on")
        conn.execute("set client_min_messages = log")
        rows = conn.execute(sql, params).fetchall()  # type: ignore[arg-type]
    finally:
        conn.execute("reset client_min_messages")
        conn.execute("reset citus.log_remote_commands")
        conn.remove_notice_handler(collect)
    for command in found.commands:
        shards = {int(m.group(2)) for m in _SHARD.finditer(command)}
        if shards:
            found.statements += 1
            found.shards |= shards
            found.groups |= {groups.get(s, "?") for s in shards}
        elif _DELEGATED.search(command):
            found.delegated += 1
        elif _CONTROL.match(command.strip()):
            found.control += 1
    return found, rows
