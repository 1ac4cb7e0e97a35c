"""Run commands of the ``actae`` command line: worker, runs, run start|show|cancel, event send.

    actae worker myapp.agents:worker [--queue Q] [--concurrency N]
    actae runs [--status S] [--agent A] [--queue Q] [--limit N] [--json]
    actae run start CHANNEL AGENT [--input JSON] [--queue Q] [--at ISO-TIME] [--max-attempts N]
    actae run show CHANNEL [--json]
    actae run cancel CHANNEL --reason TEXT
    actae event send CHANNEL EVENT_TYPE [--payload JSON] [--operation-id ID] [--create]

``COMMANDS`` lists the adders (one per top-level command); the command line registers them.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
import logging
import sys
import traceback
from collections.abc import Callable
from datetime import datetime
from decimal import Decimal
from typing import Any

from actae import _json
from actae.cli.base import (
    MAX_ROWS,
    CommandError,
    Subparsers,
    at_least_one,
    count,
    open_client,
    pairs,
    printable,
    require_channel,
    table,
    to_json,
)
from actae.runs import RunRecord
from actae.worker import Worker

RUN_HEADERS = ("channel", "agent", "queue", "status", "attempt", "failures", "due_at",
               "wake_reason", "worker")


def _options(p: argparse.ArgumentParser, *, json_flag: bool = True) -> None:
    p.add_argument("--dsn", default=argparse.SUPPRESS,
                   help="PostgreSQL connection string (default: $ACTAE_DSN)")
    if json_flag:
        p.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                       help="print JSON instead of text")


def _json_arg(text: str | None, name: str) -> Any:
    """The JSON text given, checked, to be sent as it is: its numbers are stored as written
    (read into Python, 19.999999999999999999 would be stored as 20.0)."""
    if text is None:
        return None
    try:
        json.loads(text, parse_constant=_no_constant, parse_float=Decimal)
    except ValueError as exc:  # json.JSONDecodeError, or _no_constant's
        raise CommandError(f"{name} is not valid JSON: {exc}", code=2) from exc
    except RecursionError:
        pass  # nested deeper than Python reads: the server judges it (its depth limit)
    return _json.text(text)


def _no_constant(name: str) -> Any:
    """json.loads takes NaN and Infinity, which JSON (and jsonb) does not."""
    raise ValueError(f"{name} is not a JSON number")


def _rows(runs: list[RunRecord]) -> list[tuple[Any, ...]]:
    return [(r.channel_id, r.agent, r.queue, r.status, r.attempt, r.failures, r.due_at,
             r.wake_reason, r.worker) for r in runs]


def _show(run: RunRecord, as_json: bool) -> None:
    if as_json:
        print(to_json(run))
        return
    # The row keeps its last lease, sleep key and awaited event after the run moved on
    # (a finished run, a woken one): shown only while they are what the run is doing.
    waiting = run.status == "waiting" and run.wait_event_type is not None
    print(pairs([
        ("channel", run.channel_id), ("agent", run.agent), ("queue", run.queue),
        ("status", run.status), ("input", run.input), ("attempt", run.attempt),
        ("failures", f"{run.failures} of {run.max_attempts}"), ("due at", run.due_at),
        ("wake reason", run.wake_reason), ("worker", run.worker),
        ("lease expires", run.lease_expires_at if run.status == "running" else None),
        ("sleeping on", run.sleep_key if run.status == "sleeping" else None),
        ("waiting for", f"{run.wait_event_type} ({run.wait_key})" if waiting else None),
        ("cancel requested", run.cancel_reason if run.cancel_requested else None),
        ("result", run.result), ("error", run.error), ("finished at", run.finished_at),
    ]))


def load_worker(target: str) -> Worker:
    """``module:attribute`` (the attribute may be a Worker or a function returning one)."""
    module_name, _, attribute = target.partition(":")
    if not module_name or not attribute:
        raise CommandError(f"expected MODULE:WORKER, got {target!r}", code=2)
    sys.path.insert(0, "")
    try:
        found: Any = getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError) as exc:
        raise CommandError(f"cannot load {target}: {exc}", code=2) from exc
    if callable(found) and not isinstance(found, Worker):
        found = _call_factory(target, found)
        if inspect.iscoroutine(found):
            found.close()  # never awaited: no warning about it
            raise CommandError(f"{target} is an async function: give a Worker, or a plain "
                               "function returning one", code=2)
    if not isinstance(found, Worker):
        raise CommandError(f"{target} is not an actae.Worker", code=2)
    return found


def _call_factory(target: str, factory: Callable[[], Any]) -> Any:
    """What ``factory()`` returns. A callable that needs arguments is not a Worker factory
    (one line); one that raises says what it raised and where, keeping the exception as the
    cause."""
    try:
        inspect.signature(factory).bind()
    except TypeError as exc:
        raise CommandError(f"{target} is not an actae.Worker nor a function of no arguments "
                           f"returning one ({exc})", code=2) from None
    except ValueError:
        pass  # no signature to check (some built-ins): calling it tells
    try:
        return factory()
    except Exception as exc:
        what = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        where = traceback.extract_tb(exc.__traceback__)[-1]
        if where.filename != __file__:  # not a built-in raising from C: where it was raised
            what += f" (at {where.filename}:{where.lineno})"
        raise CommandError(f"{target}() raised {what}", code=2) from exc


def _worker(args: argparse.Namespace) -> int:
    if args.dsn is not None:
        raise CommandError("--dsn does not apply: the worker connects as its module builds "
                           "it (actae.Worker(dsn, ...), or the client it is given)", code=2)
    worker = load_worker(args.target)
    if args.queue is not None:
        worker.queue = args.queue
    if args.concurrency is not None:
        worker.concurrency = args.concurrency
    try:
        worker.check()
    except ValueError as exc:
        raise CommandError(f"{args.target}: {exc}", code=2) from exc
    # The worker's own log lines (a signal that stops it, a claim that failed) go to stderr
    # with the prefix of the lines printed here; the agents' loggers are left as they are.
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter(
        f"actae worker {worker.name.replace('%', '%%')}: %(message)s"))
    worker_log = logging.getLogger("actae.worker")
    worker_log.addHandler(handler)
    worker_log.propagate = False

    def ready() -> None:  # printed once signals are handled: a SIGTERM after it is graceful
        print(f"actae worker {worker.name}: queue {worker.queue}, agents "
              f"{', '.join(sorted(worker.agents))}, concurrency {worker.concurrency}",
              file=sys.stderr, flush=True)

    worker.run(ready=ready)
    print(f"actae worker {worker.name}: stopped {worker.stats}", file=sys.stderr, flush=True)
    return 0


def _add_worker(sub: Subparsers) -> None:
    p = sub.add_parser("worker", help="run a worker process: actae worker module:worker")
    p.add_argument("target", help="MODULE:ATTRIBUTE naming an actae.Worker")
    p.add_argument("--queue", help="override the worker's queue")
    p.add_argument("--concurrency", type=at_least_one, metavar="N",
                   help="override the worker's concurrency (at least 1)")
    p.set_defaults(handler=_worker)


def _runs(args: argparse.Namespace) -> int:
    with open_client(args) as client:
        found = client.list_runs(args.queue, args.status, args.agent, args.limit)
    print(to_json(found) if args.json else table(_rows(found), RUN_HEADERS))
    return 0


def _add_runs(sub: Subparsers) -> None:
    p = sub.add_parser("runs", help="list runs (oldest first)")
    _options(p)
    p.add_argument("--status", choices=("queued", "running", "sleeping", "waiting",
                                        "completed", "failed", "cancelled"))
    p.add_argument("--agent")
    p.add_argument("--queue")
    p.add_argument("--limit", type=count(1, MAX_ROWS), default=100, metavar="N",
                   help=f"at most N runs (1 to {MAX_ROWS}, default 100)")
    p.set_defaults(handler=_runs)


def _run_start(args: argparse.Namespace) -> int:
    run_at = None
    if args.at:
        try:
            run_at = datetime.fromisoformat(args.at)
        except ValueError as exc:
            raise CommandError(f"--at is not an ISO time: {args.at}", code=2) from exc
        # No offset: the user's local time (TZ), as the driver reads a naive run_at.
    with open_client(args) as client:
        started = client.start_run(args.channel, args.agent, _json_arg(args.input, "--input"),
                                   args.queue, run_at, args.max_attempts)
    if args.json:
        print(to_json(started))
    else:
        due = "" if started.due_at is None else f", due {started.due_at}"  # none once over
        print(printable(f"run {started.channel_id} {started.outcome}: {started.status}{due}"))
    return 0


def _run_show(args: argparse.Namespace) -> int:
    with open_client(args) as client:
        _show(client.get_run(args.channel), args.json)
    return 0


def _run_cancel(args: argparse.Namespace) -> int:
    with open_client(args) as client:
        done = client.cancel_run(args.channel, args.reason)
    if args.json:
        print(to_json(done))
    else:
        print(printable(f"run {done.channel_id} {done.outcome}: {done.status}"))
    return 0


def _add_run(sub: Subparsers) -> None:
    p = sub.add_parser("run", help="start, show or cancel one run")
    verbs = p.add_subparsers(dest="verb", required=True, metavar="VERB")
    start = verbs.add_parser("start", help="start a run of AGENT on CHANNEL")
    _options(start)
    start.add_argument("channel")
    start.add_argument("agent")
    start.add_argument("--input", help="the agent's input as JSON")
    start.add_argument("--queue", default="default")
    start.add_argument("--at", metavar="ISO-TIME",
                       help="start no earlier than this ISO 8601 time; without an offset "
                            "(2030-01-01T09:00) it is local time (TZ), with one "
                            "(2030-01-01T09:00+01:00, ...Z) that offset")
    start.add_argument("--max-attempts", type=count(1, 1000), default=5, metavar="N",
                       help="attempts before the run fails (1 to 1000, default 5)")
    start.set_defaults(handler=_run_start)
    show = verbs.add_parser("show", help="one run in detail")
    _options(show)
    show.add_argument("channel")
    show.set_defaults(handler=_run_show)
    cancel = verbs.add_parser("cancel", help="cancel a run (role actae_operator)")
    _options(cancel)
    cancel.add_argument("channel")
    cancel.add_argument("--reason", required=True)
    cancel.set_defaults(handler=_run_cancel)


def _event_send(args: argparse.Namespace) -> int:
    payload = _json_arg(args.payload, "--payload")
    with open_client(args) as client:
        # record_event creates a channel it does not find: an approval sent to a misspelled
        # run would be recorded where nothing waits for it, the run still waiting.
        if not args.create:
            require_channel(client, args.channel, "records the event in a new channel")
        done = client.record_event(args.channel, args.event_type, payload, args.operation_id)
    if args.json:
        print(to_json(done))
    else:
        print(printable(f"event {args.event_type} {done.outcome} in {args.channel}"
                        f" at cursor {done.cursor}"))
    return 0


def _add_event(sub: Subparsers) -> None:
    p = sub.add_parser("event", help="send an event to a channel (e.g. an approval)")
    verbs = p.add_subparsers(dest="verb", required=True, metavar="VERB")
    send = verbs.add_parser("send", help="record EVENT_TYPE in CHANNEL; wakes a run waiting "
                                         "for it")
    _options(send)
    send.add_argument("channel")
    send.add_argument("event_type")
    send.add_argument("--payload", help="the event's payload as JSON")
    send.add_argument("--operation-id", help="idempotency key: sending twice records once")
    send.add_argument("--create", action="store_true",
                      help="create the channel when it does not exist (refused otherwise)")
    send.set_defaults(handler=_event_send)


COMMANDS: list[Callable[[Subparsers], None]] = [_add_worker, _add_runs, _add_run, _add_event]
