"""The embedded PostgreSQL 18 (``actae[embedded]``, in the dev extra) runs Actae: migrations,
every API function, and a claim/complete/replay round trip. ``make test`` also runs the whole
suite on it (``make pytest-pg18``); this test keeps one check of 18 in any single pytest run.
"""

from __future__ import annotations

import re
from pathlib import Path

import psycopg
import pytest

from actae import SyncActaeClient, pg

REPO = Path(__file__).resolve().parents[3]


@pytest.mark.once
def test_actae_on_embedded_postgresql_18(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACTAE_PG_BIN", "embedded")
    pattern = re.compile(r"create\s+or\s+replace\s+function\s+actae\.(\w+)", re.IGNORECASE)
    expected = {name for path in (REPO / "sql").glob("*.sql")
                for name in pattern.findall(path.read_text())}
    with pg.throwaway() as dsn:
        with psycopg.connect(dsn) as conn:
            row = conn.execute("select current_setting('server_version_num')::int").fetchone()
            rows = conn.execute(
                "select proname from pg_proc where pronamespace = 'actae'::regnamespace")
            present = {name for (name,) in rows.fetchall()}
        assert row is not None and 180000 <= row[0] < 190000
        assert expected and expected <= present, sorted(expected - present)
        with SyncActaeClient(dsn) as client:
            claim = client.claim_execution("pg18", "charge:1", "charge", {"order": 1})
            assert claim.status == "claimed"
            client.complete_execution(claim.execution.id, claim.claim_token, result={"ok": 1})
            again = client.claim_execution("pg18", "charge:1", "charge", {"order": 1})
            assert (again.status, again.result) == ("replayed", {"ok": 1})

