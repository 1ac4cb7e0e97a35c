"""A remote-controlled Actae caller: ``python -m tests.python.reliability.claimer '<config json>'``.

It reads one JSON command per line on stdin and answers one JSON line per command, keeping
the claim token of the last execution it owns — so a test can make 32 processes claim the
same key at the same moment, or freeze one with SIGSTOP and see what it believes afterwards.

Commands: {"op": "claim", "channel", "key", "lease", "barrier"} (waits for the shared
advisory lock ``barrier`` first, so every process starts its claim at once), {"op":
"heartbeat"}, {"op": "complete", "result"}, {"op": "fail"}, {"op": "heartbeat_loop",
"interval", "seconds"} (heartbeat until one is rejected or the time is up, then try
complete and fail; answer with the last heartbeat's and both other outcomes), {"op": "exit"}.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

import psycopg

from actae import calls
from actae.client import SyncActaeClient
from actae.errors import ActaeError

from .harness import emit


class Claimer:
    def __init__(self, dsn: str) -> None:
        self.conn = psycopg.connect(dsn, autocommit=True)
        self.client = SyncActaeClient(dsn)  # never opened: every call passes conn=
        self.execution_id: Any = None
        self.token: Any = None
        self.fence: int | None = None

    def attempt(self, call: calls.Call[Any]) -> dict[str, Any]:
        try:
            row = self.client.run(call)
        except ActaeError as exc:
            return {"ok": False, "error": type(exc).__name__, "sqlstate": exc.sqlstate}
        return {"ok": True, "status": row.status, "fence": row.fence}

    def claim(self, command: dict[str, Any]) -> dict[str, Any]:
        barrier = command.get("barrier")
        if barrier is not None:
            self.conn.execute("select pg_advisory_lock_shared(%s)", (barrier,))
            self.conn.execute("select pg_advisory_unlock_shared(%s)", (barrier,))
        claim = self.client.run(calls.claim_execution(
            command["channel"], command["key"], "race", {"n": 1},
            lease_seconds=command.get("lease", 1), conn=self.conn))
        if claim.owned:
            self.execution_id, self.token, self.fence = (
                claim.execution.id, claim.claim_token, claim.fence)
        return {"outcome": claim.status, "fence": claim.fence, "owned": claim.owned,
                "token": str(claim.claim_token) if claim.claim_token else None,
                "ambiguous": claim.ambiguous}

    def handle(self, command: dict[str, Any]) -> dict[str, Any]:
        op = command["op"]
        if op == "claim":
            return self.claim(command)
        if self.token is None:
            return {"ok": False, "error": "owns nothing"}
        if op == "heartbeat":
            return self.attempt(calls.heartbeat_execution(
                self.execution_id, self.token, conn=self.conn))
        if op == "complete":
            return self.attempt(calls.complete_execution(
                self.execution_id, self.token, command.get("result"), conn=self.conn))
        if op == "fail":
            return self.attempt(calls.fail_execution(
                self.execution_id, "worker gave up", self.token, conn=self.conn))
        if op == "heartbeat_loop":
            return self.heartbeat_loop(command)
        raise ValueError(f"unknown command {op}")

    def heartbeat_loop(self, command: dict[str, Any]) -> dict[str, Any]:
        """What a busy worker does: heartbeat every interval while it works; once a
        heartbeat is rejected, still try to finish — the ledger must refuse both."""
        beats = 0
        deadline = time.monotonic() + command.get("seconds", 60)
        while True:
            outcome = self.attempt(calls.heartbeat_execution(
                self.execution_id, self.token, conn=self.conn))
            if not outcome["ok"]:
                break
            beats += 1
            emit(e="beat", n=beats, fence=outcome["fence"])
            if time.monotonic() > deadline:
                break
            time.sleep(command.get("interval", 0.1))
        return {
            "beats": beats, "heartbeat": outcome,
            "complete": self.attempt(calls.complete_execution(
                self.execution_id, self.token, {"by": "A"}, conn=self.conn)),
            "fail": self.attempt(calls.fail_execution(
                self.execution_id, "A gave up", self.token, conn=self.conn)),
        }


def main() -> None:
    config = json.loads(sys.argv[1])
    claimer = Claimer(config["dsn"])
    emit(e="ready")
    for line in sys.stdin:
        command = json.loads(line)
        if command["op"] == "exit":
            break
        emit(e="reply", op=command["op"], **claimer.handle(command))


if __name__ == "__main__":
    main()
