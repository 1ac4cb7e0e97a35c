"""The stories ``actae demo`` tells, on a real database (see docs/demo.md).

* ``crash``: a worker is SIGKILLed after the payment provider charged but before Actae
  recorded it; the next worker reclaims (ambiguous), the provider's idempotency key prevents
  a second charge, a third run replays. Exits non-zero unless 1 charge, 2 provider requests.
* ``fork``: a research agent is forked at step 5 with a changed instruction and pays only for
  steps 6..8; every figure is measured in the run.
* ``report``: the fork's full token table.

They run on ``actae.fakes`` (a provider whose books live in PostgreSQL, a deterministic
model): no network, no API key.

The story modules are imported only when a story runs: ``actae.demo.crash`` is also run as
``python -m actae.demo.crash`` (its workers), which must not find it already imported by this
package (runpy warns about that).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from psycopg.conninfo import conninfo_to_dict

from actae import migrate
from actae.errors import ActaeError


def _story(module: str, function: str) -> Callable[[str], int]:
    def tell(dsn: str) -> int:
        told: Callable[[str], int] = getattr(
            importlib.import_module(f"actae.demo.{module}"), function)
        return told(dsn)

    return tell


STORIES: dict[str, Callable[[str], int]] = {
    "crash": _story("crash", "main"),
    "fork": _story("fork", "story"),
    "report": _story("fork", "report"),
}


def require_migrated(dsn: str) -> None:
    """Raise ActaeError (one line: which database, and to run ``actae migrate``) unless every
    migration is applied to ``dsn`` as written; connection errors propagate (psycopg.Error)."""
    rows = migrate.status(dsn)
    behind = [row for row in rows if row.state != "applied"]
    if not behind:
        return
    params = conninfo_to_dict(dsn)
    where = (f"database {params.get('dbname') or '(default)'} (host"
             f" {params.get('host') or 'default'}, port {params.get('port') or 5432})")
    if all(row.state == "pending" for row in rows):
        raise ActaeError(f"{where} is not migrated: run `actae migrate` on it first")
    raise ActaeError(f"{where} is not migrated as this actae expects ({len(behind)} of"
                     f" {len(rows)} migrations pending, edited or missing): run"
                     " `actae migrate` on it first")


def run(dsn: str, names: list[str]) -> int:
    """Tell the named stories in order on dsn (a migrated Actae database: ActaeError when it
    is not); the first non-zero exit status stops the run."""
    require_migrated(dsn)
    for i, name in enumerate(names):
        if i:
            print(flush=True)
        exit_status = STORIES[name](dsn)
        if exit_status:
            return exit_status
    return 0
