"""The stories ``actae demo`` tells, on a real database (see docs/demo.md).

* ``crash``: a worker is SIGKILLed after the payment provider charged but before Actae
  recorded it; the next worker reclaims (ambiguous), the provider's idempotency key prevents
  a second charge, a third run replays. Exits non-zero unless 1 charge, 2 provider requests.
* ``fork``: a research agent is forked at step 5 with a changed instruction and pays only for
  steps 6..8; every figure is measured in the run.
* ``report``: the fork's full token table.

They run on ``actae.fakes`` (a provider whose books live in PostgreSQL, a deterministic
model): no network, no API key.
"""

from __future__ import annotations

from collections.abc import Callable

from actae.demo import crash, fork

STORIES: dict[str, Callable[[str], int]] = {
    "crash": crash.main,
    "fork": fork.story,
    "report": fork.report,
}


def run(dsn: str, names: list[str]) -> int:
    """Tell the named stories in order on dsn (a migrated Actae database); the first non-zero
    exit status stops the run."""
    for i, name in enumerate(names):
        if i:
            print(flush=True)
        status = STORIES[name](dsn)
        if status:
            return status
    return 0
