"""annotate_channel under real concurrency: writers racing on the same revision, one wins."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest

from actae import SyncActaeClient, VersionConflict

WRITERS = 8


def race(dsn: str, channel: str, expected_revision: int) -> list[object]:
    """WRITERS connections annotate the channel at once, each with its own name."""
    barrier = threading.Barrier(WRITERS)
    outcomes: list[object] = [None] * WRITERS

    def write(i: int) -> None:
        with SyncActaeClient(dsn, max_size=1) as client:
            client.get_channel(channel)  # connect before the start line
            barrier.wait()
            try:
                outcomes[i] = client.annotate_channel(
                    channel, f"writer {i}", [f"w{i}"], None, expected_revision)
            except VersionConflict as exc:
                outcomes[i] = exc

    threads = [threading.Thread(target=write, args=(i,)) for i in range(WRITERS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    return outcomes


@pytest.mark.parametrize("first", [True, False], ids=["first-annotation", "later-revision"])
def test_one_racing_writer_wins(dsn: str, unique: Callable[[str], str], first: bool) -> None:
    channel = unique("annotate")
    with SyncActaeClient(dsn, max_size=1) as client:
        client.create_channel(channel, {"created": "by the test"})
        expected = 0
        if not first:
            expected = client.annotate_channel(channel, "start", None, None, 0).revision
        outcomes = race(dsn, channel, expected)
        wins = [o for o in outcomes if not isinstance(o, Exception)]
        losses = [o for o in outcomes if isinstance(o, VersionConflict)]
        assert len(wins) == 1 and len(losses) == WRITERS - 1
        assert all(e.detail["current_revision"] == expected + 1 for e in losses)
        stored = client.list_channels(metadata={"created": "by the test"}, max_rows=1000)
        row = next(r for r in stored if r.channel_id == channel)
        assert (row.display_name, row.annotation_revision) == (wins[0].display_name, expected + 1)
        assert client.get_channel(channel).metadata == {"created": "by the test"}
