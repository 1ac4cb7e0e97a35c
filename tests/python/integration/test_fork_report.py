"""The fork token report and the fork demo (actae.demo.fork), measured on real runs."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from actae import SyncActaeClient
from actae.demo import fork as fork_report
from actae.fakes import count_tokens


@pytest.fixture(scope="module")
def report(dsn: str) -> fork_report.Report:
    return fork_report.measure(dsn)


def recount(dsn: str, channel_id: str) -> int:
    """Tokens of the channel's own model executions, recounted from the stored prompt and
    completion text with the documented tokenizer."""
    with SyncActaeClient(dsn, max_size=1) as client:
        rows = client.list_executions(channel_id, "completed", False, 100000)
    return sum(count_tokens(r.params["prompt"]) + count_tokens(r.result["text"])
               for r in rows if r.tool_name == "model")


def test_token_figures_are_measured_and_match_the_ledger(
    dsn: str, report: fork_report.Report
) -> None:
    for run in (report.baseline, report.scratch, report.fork):
        assert run.usage.total == run.ledger_tokens == recount(dsn, run.channel_id) > 0
    assert report.saved == report.scratch.usage.total - report.fork.usage.total
    assert 0 < report.fork.usage.total < report.baseline.usage.total
    assert report.saved_percent == pytest.approx(
        100 * report.saved / report.scratch.usage.total)
    assert report.saved_percent > 50  # steps 1..5 carry most of the tokens


def test_the_fork_ran_only_steps_after_the_fork_point(report: fork_report.Report) -> None:
    assert report.fork_cursor == fork_report.FORK_AT == 5
    assert report.baseline.steps_run == list(range(1, 9))
    assert report.fork.steps_run == [6, 7, 8]
    assert [r.tool_name for r in report.fork.ran] == ["model", "charge", "receipt"]
    assert report.fork.usage.calls == 1
    assert report.fork.replayed == report.fork.tool_calls - 3 > 0
    assert report.fork_own_executions == 3
    assert report.fork.state["report"] != report.baseline.state["report"]
    assert report.fork.state["sources"] == report.baseline.state["sources"]


def test_prefix_tool_calls_were_not_sent_to_the_provider_again(
    report: fork_report.Report,
) -> None:
    before, after = report.requests_before_fork, report.requests_after_fork
    assert before == {"search": 4, "charge": 1, "receipt": 1}
    assert after == {"search": 4, "charge": 2, "receipt": 2}


def test_render_prints_the_measured_numbers(report: fork_report.Report) -> None:
    text = fork_report.render(report)
    assert f"baseline tokens: {report.baseline.usage.total}" in text
    assert f"forked tokens:   {report.fork.usage.total}" in text
    assert f"tokens saved:    {report.saved} of {report.scratch.usage.total}" in text
    assert f"({report.saved_percent:.1f}% less" in text


@pytest.mark.parametrize("script", ["report", "fork"])
def test_scripts_run_end_to_end(dsn: str, script: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "actae", "demo", script], env={**os.environ, "ACTAE_DSN": dsn},
        capture_output=True, text=True, timeout=60, check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "tokens" in done.stdout
    if script == "fork":
        assert "Fork demo: OK" in done.stdout
