"""Runs survive (short versions; `make soak` runs the long ones): worker processes SIGKILLed
at random plus a database crash, a SIGSTOPped worker fenced out, an approval sent while no
worker runs, a wait that times out, and cancellation of a sleeping, a waiting and a running
run. Every worker is a real process running actae.Worker; the truth is read back from
PostgreSQL and from the fake provider's books.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .pgserver import ThrowawayServer
from .runs_scenario import (
    approval_while_no_worker,
    cancel_each,
    check,
    stall,
    stall_between_steps,
    survive,
    timed_out_wait,
)


@pytest.fixture(scope="module")
def server() -> Iterator[ThrowawayServer]:
    with ThrowawayServer() as srv:
        yield srv


def test_runs_survive_sigkills_and_a_database_crash(
    server: ThrowawayServer, capsys: pytest.CaptureFixture[str]
) -> None:
    def restart() -> None:
        server.crash()
        server.start()

    figures = survive(server.dsn, runs=12, workers=3, kill_every=(1.0, 2.0), restart=restart,
                      restart_after=2.0, timeout=120, seed=13,
                      max_kills=15)
    with capsys.disabled():
        print(f"\n[runs] {figures.line()}")
    assert 1 <= figures.kills <= 15 and figures.db_restarts == 1
    check(figures)


def test_stalled_worker_is_taken_over_and_its_late_writes_rejected(dsn: str) -> None:
    figures = stall(dsn)
    assert figures.run.status == "completed" and figures.run.worker == "B"
    assert figures.run.result["by"] == "B", "the new owner's result stands"
    assert figures.execution.fence == 2, "the charge was reclaimed once"
    # A woke up, its tool finished, and every write it tried was refused by a fence.
    assert figures.a_stats.get("lease_lost", 0) >= 1, figures.a_stats
    assert figures.a_stats.get("completed", 0) == 0, figures.a_stats
    assert figures.effects == 1, "the provider's idempotency key kept the effect single"


def test_a_worker_stalled_between_steps_writes_nothing_after_its_run_ended(dsn: str) -> None:
    """Its next step's claim is not fenced by the run's token: the worker renews its lease
    first (it stalled past a third of it), finds the run ended and claims nothing. Before,
    it claimed and ran the refund of a cancelled run."""
    run, refund, effects, a_stats = stall_between_steps(dsn)
    assert run.status == "cancelled" and run.error == "cancelled: customer withdrew", run
    assert refund is None, f"the resumed worker claimed the refund: {refund}"
    assert effects == 1, "only the charge happened"
    assert a_stats.get("lease_lost", 0) >= 1 and a_stats.get("completed", 0) == 0, a_stats


def test_approval_sent_while_no_worker_runs_resumes_the_run(dsn: str) -> None:
    woken, done, effects = approval_while_no_worker(dsn)
    assert woken.status == "waiting" and woken.wake_reason == "event"
    assert done.status == "completed" and done.result["approved"] is True
    assert done.wake_reason == "event" and done.attempt == 2, "claimed once more, by the event"
    assert effects == 2


def test_wait_that_times_out_takes_the_timeout_branch(dsn: str) -> None:
    done = timed_out_wait(dsn)
    assert done.status == "completed"
    assert done.result["approved"] is None, "the timeout branch"
    assert done.wake_reason == "timeout"


def test_cancelling_a_sleeping_a_waiting_and_a_running_run_ends_each(dsn: str) -> None:
    done = cancel_each(dsn)
    for state, run in done.items():
        assert run.status == "cancelled", (state, run)
        assert run.error == "cancelled: soak", (state, run)
