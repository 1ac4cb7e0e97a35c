"""Test harness for the console: a read-only login role, the app served on a free port, a
story to look at, and headless Chromium driven over the DevTools protocol.

Chromium is Debian's (/usr/bin/chromium, installed by `make deps`); the DevTools client is a
few lines over a websocket, so no browser is downloaded by any tool.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import urllib.request
import uuid
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import uvicorn
from psycopg.conninfo import conninfo_to_dict, make_conninfo
from websockets.sync.client import connect

from actae import SyncActaeClient
from actae.console.app import create_app

CHROMIUM = "/usr/bin/chromium"
READER = "actae_console_reader"
READER_PASSWORD = "console-reader"
REPO = Path(__file__).resolve().parents[3]


def reader_dsn(dsn: str) -> str:
    """A DSN for a login role that is granted only actae_auditor (created when missing)."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        exists = conn.execute("select 1 from pg_roles where rolname = %s", (READER,)).fetchone()
        if not exists:
            conn.execute(f"create role {READER} login password '{READER_PASSWORD}'")
        conn.execute(f"grant actae_auditor to {READER}")
        database = conn.execute("select current_database()").fetchone()[0]  # type: ignore[index]
        conn.execute(f'grant connect on database "{database}" to {READER}')
    params = conninfo_to_dict(dsn)
    params.update(user=READER, password=READER_PASSWORD)
    return make_conninfo(**params)  # type: ignore[arg-type]


def states_to_diff(dsn: str, prefix: str) -> tuple[str, str]:
    """Two new channels whose states differ where paths read alike: the key "a.b" and the
    key b inside a, the empty key, and an array whose indexes pass 9. Their changes, in
    order, read: "", a.b, "a.b", arr.2 .. arr.10 (DIFF_PATHS)."""
    a, b = (f"{prefix}-{uuid.uuid4().hex[:8]}-{side}" for side in "ab")
    with psycopg.connect(dsn, autocommit=True) as conn:
        for channel, state in ((a, '{"arr": [0, 0, 0], "a.b": 1, "a": {"b": 2}, "": 0}'),
                               (b, '{"arr": [0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1],'
                                   ' "a.b": 3, "a": {"b": 4}, "": 1}')):
            conn.execute("select actae.transition_state(%s, 't', '{}', %s::jsonb, 0)",
                         (channel, state))
    return a, b


DIFF_PATHS = ['""', "a.b", '"a.b"', "arr.2", *(f"arr.{i}" for i in range(3, 11))]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def serve(dsn: str, *, allow_writer: bool = False, **app_options: Any) -> Iterator[str]:
    """The console app for `dsn` (create_app's other options in ``app_options``: the host
    it is bound as, allowed_hosts) on 127.0.0.1:<free port>, in a thread; yields its base
    URL."""
    port = free_port()
    config = uvicorn.Config(create_app(dsn, allow_writer=allow_writer, **app_options),
                            host="127.0.0.1", port=port, log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the console did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


def get(url: str) -> tuple[int, str]:
    """Status and body of a GET (error statuses included)."""
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


@dataclass(frozen=True)
class Story:
    root: str
    fork: str
    claim_token: str


def make_story(dsn: str, root: str) -> Story:
    """A refund run: a search completed, a charge whose worker died (its lease lapses and the
    next claim is an ambiguous reclaim, which completes), a notification that fails for good,
    a payload with <script> in it, and a fork at cursor 2 that re-runs the charge live. The
    root keeps one execution in flight (its claim token must never be shown)."""
    fork = f"{root}-retry"
    with SyncActaeClient(dsn, max_size=2) as client, psycopg.connect(dsn, autocommit=True) as conn:
        client.create_channel(root, {"agent": "refund_desk", "ticket": "T-4471"})
        client.transition_state(root, "ticket_opened",
                                {"note": "<script>alert('pwned')</script>"},
                                {"ticket": "T-4471", "step": "triage"}, 0)
        search = client.claim_execution(root, "search:T-4471", "search_orders", {"q": "4471"})
        client.complete_execution(search.execution.id, search.claim_token, {"orders": ["o-1"]})
        client.transition_state(root, "planned", {"plan": "refund"},
                                {"ticket": "T-4471", "step": "refund", "amount": 4200}, 1)
        charge = client.claim_execution(root, "refund:o-1", "issue_refund",
                                        {"order": "o-1", "amount": 4200}, ["order"], 30)
        conn.execute("update actae.executions set lease_expires_at = clock_timestamp()"
                     " - interval '1 second' where execution_id = %s", (charge.execution.id,))
        again = client.claim_execution(root, "refund:o-1", "issue_refund",
                                       {"order": "o-1", "amount": 4200}, ["order"], 30)
        assert again.status == "reclaimed" and again.execution.ambiguous
        client.complete_execution(again.execution.id, again.claim_token, {"refund_id": "r-9"})
        notify = client.claim_execution(root, "notify:T-4471", "send_email", {"to": "c@x"})
        client.fail_execution(notify.execution.id, "smtp: mailbox unavailable",
                              notify.claim_token, retryable=False)
        client.record_event(root, "notified_failed", {"error": "smtp"})
        held = client.claim_execution(root, "audit:T-4471", "write_audit", {"t": 1}, None, 3600)
        client.fork_channel(root, 2, fork, None, {"issue_refund": "live"})
        client.transition_state(fork, "planned", {"plan": "partial refund"},
                                {"ticket": "T-4471", "step": "refund", "amount": 2100,
                                 "reason": "partial"}, 2)
    return Story(root=root, fork=fork, claim_token=str(held.claim_token))


class Browser:
    """Headless Debian Chromium and one page, driven over the DevTools protocol."""

    def __init__(self) -> None:
        if not os.path.exists(CHROMIUM):
            raise RuntimeError(f"{CHROMIUM} is missing: `make deps` installs Debian's chromium")
        self.profile = tempfile.mkdtemp(prefix="actae-chromium-")
        self.process = subprocess.Popen(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
             "--no-first-run", "--disable-background-networking", "--disable-component-update",
             "--disable-sync", "--disable-dev-shm-usage", "--hide-scrollbars",
             f"--user-data-dir={self.profile}", "--remote-debugging-port=0",
             "--remote-allow-origins=*", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
            start_new_session=True,  # its own process group: close() ends every process of it
        )
        ws_url = self._endpoint()
        self._stack = ExitStack()
        self.ws = self._stack.enter_context(connect(ws_url, max_size=None, open_timeout=20))
        self.next_id = 0
        self.pending: list[dict[str, Any]] = []
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.send("Target.attachToTarget",
                                 {"targetId": target, "flatten": True})["sessionId"]
        self.send("Page.enable", session=True)
        self.send("Runtime.enable", session=True)

    def _endpoint(self) -> str:
        assert self.process.stderr is not None
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            line = self.process.stderr.readline()
            if "DevTools listening on " in line:
                return line.split("DevTools listening on ", 1)[1].strip()
            if not line and self.process.poll() is not None:
                break
        raise RuntimeError("chromium did not open its DevTools endpoint")

    def send(self, method: str, params: dict[str, Any] | None = None, *,
             session: bool = False, timeout: float = 30) -> dict[str, Any]:
        self.next_id += 1
        message: dict[str, Any] = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = self.session
        self.ws.send(json.dumps(message))
        deadline = time.monotonic() + timeout
        while True:
            reply = json.loads(self.ws.recv(timeout=max(0.01, deadline - time.monotonic())))
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return dict(reply.get("result", {}))
            self.pending.append(reply)

    def wait_event(self, method: str, timeout: float = 30) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            for i, event in enumerate(self.pending):
                if event.get("method") == method:
                    return dict(self.pending.pop(i).get("params", {}))
            self.pending.append(json.loads(
                self.ws.recv(timeout=max(0.01, deadline - time.monotonic()))))

    def load(self, url: str) -> float:
        """Navigate and wait for the load event; returns the seconds it took."""
        self.pending = [e for e in self.pending if e.get("method") != "Page.loadEventFired"]
        started = time.monotonic()
        self.send("Page.navigate", {"url": url}, session=True)
        self.wait_event("Page.loadEventFired", timeout=60)
        return time.monotonic() - started

    def js(self, expression: str) -> Any:
        result = self.send("Runtime.evaluate",
                           {"expression": expression, "returnByValue": True}, session=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 20) -> Any:
        """Evaluate until truthy (the DOM is checked in the browser; no table is polled)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = self.js(expression)
            if value:
                return value
            time.sleep(0.1)
        raise AssertionError(f"timed out waiting for {expression}")

    def scripts(self, enabled: bool) -> None:
        self.send("Emulation.setScriptExecutionDisabled", {"value": not enabled}, session=True)

    def screenshot(self, path: Path, width: int = 1280) -> None:
        height = int(self.js("document.documentElement.scrollHeight") or 800)
        self.send("Emulation.setDeviceMetricsOverride", {
            "width": width, "height": min(height, 4000), "deviceScaleFactor": 1,
            "mobile": False,
        }, session=True)
        data = self.send("Page.captureScreenshot", {"format": "png"}, session=True)["data"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(data))

    def close(self) -> None:
        # Chromium keeps its singleton socket in a folder of its own under the temporary
        # folder (the profile links to it) and leaves it behind when it is terminated.
        link = os.path.join(self.profile, "SingletonSocket")
        singleton = os.path.dirname(os.readlink(link)) if os.path.islink(link) else None
        try:
            self._stack.close()
        finally:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
            # Its helper processes (the network service) can outlive it for a moment and
            # write into the profile after it is deleted: they are killed first.
            with suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            shutil.rmtree(self.profile, ignore_errors=True)
            if singleton and os.path.basename(singleton).startswith("org.chromium.Chromium."):
                shutil.rmtree(singleton, ignore_errors=True)
