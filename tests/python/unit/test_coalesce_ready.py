"""ActaeClient's coalescer reads the event loop's ready queue while other threads append to
it (a sync tool's worker thread hands its outcome back with call_soon_threadsafe)."""

from __future__ import annotations

import asyncio
import sys
import threading
import time

from actae._coalesce import _nothing_ready


def test_nothing_ready_survives_threads_appending_to_the_ready_queue() -> None:
    async def main() -> list[BaseException]:
        loop = asyncio.get_running_loop()
        stop = threading.Event()

        def hand_back() -> None:  # what sync tools ending in worker threads do
            while not stop.is_set():
                loop.call_soon_threadsafe(lambda: None)

        thread = threading.Thread(target=hand_back)
        thread.start()
        errors: list[BaseException] = []
        seen_cancelled = 0
        try:
            end = time.monotonic() + 2.0
            while time.monotonic() < end:
                # Cancelled callbacks first in the queue: _nothing_ready reads past them.
                for handle in [loop.call_soon(lambda: None) for _ in range(50)]:
                    handle.cancel()
                seen_cancelled += 1
                try:
                    _nothing_ready()
                except RuntimeError as exc:  # deque mutated during iteration
                    errors.append(exc)
                await asyncio.sleep(0)
        finally:
            stop.set()
            thread.join()
        assert seen_cancelled > 100
        return errors

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # hand the GIL over as often as possible
    try:
        errors = asyncio.run(main())
    finally:
        sys.setswitchinterval(interval)
    assert errors == []


def test_nothing_ready_tells_a_live_callback_from_cancelled_ones() -> None:
    async def main() -> tuple[bool, bool, bool]:
        loop = asyncio.get_running_loop()
        await asyncio.sleep(0)
        empty = _nothing_ready()
        loop.call_soon(lambda: None).cancel()
        only_cancelled = _nothing_ready()
        loop.call_soon(lambda: None)
        live = _nothing_ready()
        return empty, only_cancelled, live

    assert asyncio.run(main()) == (True, True, False)
