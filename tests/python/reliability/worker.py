"""A workflow worker: ``python -m tests.python.reliability.worker '<config json>'``.

It runs each of its workflows (channels) through ``steps`` charges against the fake
provider with the raw claim / heartbeat / complete API, records one event per finished step
(operation_id = the step's key, so a restarted worker replays it), and reports every move
as a JSON line. At the kill point named in the config it reports ``pause`` and blocks until
the supervisor SIGKILLs it.

Strategies (what the worker does with a ``reclaimed`` claim whose ``ambiguous`` is true):
  keyed      the provider dedups on the idempotency key (the execution's key_name): charge.
  ledger     an unkeyed provider and no reconciliation: charge again (may duplicate).
  reconcile  an unkeyed provider: ask provider.find(key) first and complete with its answer.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from functools import partial
from typing import Any

import psycopg

from actae.client import SyncActaeClient
from actae.fakes import FakeProvider
from actae.models import Claim

from .harness import emit, retry_connection

POINTS = ("after_claim", "in_tool", "after_effect", "after_complete")
EXIT_TOOL_UNREACHABLE = 75


class Worker:
    def __init__(self, config: dict[str, Any]) -> None:
        self.config = config
        self.strategy: str = config["strategy"]
        self.lease: int = config["lease"]
        self.latency: float = config.get("latency", 0.01)
        kill_at = config.get("kill_at")
        self.kill_at: tuple[str, int] | None = (kill_at[0], kill_at[1]) if kill_at else None
        self.seen = dict.fromkeys(POINTS, 0)
        self.client = SyncActaeClient(config["dsn"], max_size=2)
        self.provider = self.db(lambda: FakeProvider(
            config["dsn"], idempotent=self.strategy == "keyed", namespace=config["namespace"]
        ))

    def point(self, name: str, key: str) -> None:
        """Report reaching a kill point; pause there when it is the configured one."""
        self.seen[name] += 1
        emit(e="point", point=name, key=key)
        if self.kill_at == (name, self.seen[name]):
            emit(e="pause", point=name, key=key)
            sys.stdin.readline()  # the supervisor SIGKILLs us while we wait here

    def db(self, call: Any) -> Any:
        return retry_connection(call, lambda why: emit(e="conn_error", why=why))

    def run(self) -> None:
        # A worker may start while the database restarts: opening is retried like any call.
        self.db(self.client.open)
        try:
            emit(e="ready")
            for channel in self.config["workflows"]:
                for step in range(1, self.config["steps"] + 1):
                    self.step(channel, step)
        finally:
            self.client.close()
        emit(e="done")

    def step(self, channel: str, step: int) -> None:
        key = f"{channel}/s{step}"
        params = {"channel": channel, "step": step, "amount": 100 * step}
        result: dict[str, Any] | None = None
        while True:
            claim = self.db(lambda: self.client.claim_execution(
                channel, key, "charge", params, lease_seconds=self.lease))
            emit(e="claim", key=key, outcome=claim.status, fence=claim.fence,
                 ambiguous=claim.ambiguous, token=claim.claim_token)
            if claim.status == "replayed":
                result = claim.result
                break
            if claim.status == "in_progress":  # a dead predecessor's lease has not lapsed yet
                time.sleep(0.1)
                continue
            if not claim.owned:
                raise RuntimeError(f"unexpected claim outcome {claim.status} for {key}")
            self.point("after_claim", key)
            result = self.own(claim, key, params)
            break
        assert result is not None
        recorded = self.db(lambda: self.client.record_event(
            channel, "step_done", {"key": key, "effect_id": result["effect_id"]},
            operation_id=key))
        emit(e="event", channel=channel, key=key, cursor=recorded.cursor,
             outcome=recorded.outcome)

    def own(self, claim: Claim, key: str, params: dict[str, Any]) -> dict[str, Any]:
        """Run the tool for an owned claim (or reconcile it) and complete the execution."""
        execution_id, token = claim.execution.id, claim.claim_token
        assert token is not None
        result: dict[str, Any] | None = None
        if self.strategy == "reconcile" and claim.status == "reclaimed" and claim.ambiguous:
            result = self.db(partial(self.provider.find, key))
            emit(e="reconciled", key=key, found=result is not None)
        if result is None:
            self.db(partial(self.client.heartbeat_execution, execution_id, token))
            self.point("in_tool", key)
            result = self.charge(key, params)
            emit(e="effect", key=key, effect_id=result["effect_id"])
            self.point("after_effect", key)
        done = self.db(partial(self.client.complete_execution, execution_id, token, result))
        emit(e="completed", key=key, fence=done.fence, result=done.result)
        self.point("after_complete", key)
        return result

    def charge(self, key: str, params: dict[str, Any]) -> dict[str, Any]:
        """The tool call. Losing the database mid-charge leaves its effect unknown: a keyed
        provider may simply be asked again; otherwise the worker gives up like a crashed one
        and the next owner's reclaim is ambiguous."""
        time.sleep(self.latency)
        try:
            return self.provider.charge(key, "charge", {"amount": params["amount"]})
        except psycopg.OperationalError as exc:
            if self.strategy != "keyed":
                emit(e="tool_unreachable", key=key, why=type(exc).__name__)
                sys.exit(EXIT_TOOL_UNREACHABLE)
            return self.db(lambda: self.provider.charge(key, "charge",
                                                        {"amount": params["amount"]}))


def main() -> None:
    # The pool logs each failed reconnection attempt while PostgreSQL restarts; the
    # supervisor counts connection errors itself.
    logging.getLogger("psycopg.pool").setLevel(logging.ERROR)
    Worker(json.loads(sys.argv[1])).run()


if __name__ == "__main__":
    main()
