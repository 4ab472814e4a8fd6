"""A database written by release 0.1.0 opens, migrates forward and keeps its rows."""

from __future__ import annotations

import gzip
import shutil
from datetime import datetime
from pathlib import Path

import duckdb

from claimwatch.store import AuditStore
from claimwatch.store.queries import load_queries, run_query

FIXTURE = Path(__file__).parent / "fixtures" / "release-0.1.0.duckdb.gz"


def _copy(tmp_path: Path) -> Path:
    path = tmp_path / "old.duckdb"
    with gzip.open(FIXTURE) as src, path.open("wb") as dst:
        shutil.copyfileobj(src, dst)
    return path


def test_release_database_migrates_forward_with_its_rows(tmp_path):
    path = _copy(tmp_path)
    store = AuditStore(path)
    columns, rows = run_query(store, load_queries()["verdict_counts"], {"since": "2000-01-01"})
    store.close()
    counts = dict(zip(columns, rows[0], strict=True))
    assert (counts["agent_id"], counts["evaluations"], counts["flag"], counts["pass"]) == ("old-agent", 3, 2, 1)
    con = duckdb.connect(str(path), read_only=True)
    assert con.execute("SELECT DISTINCT check_name FROM evaluations").fetchall() == [("output",)]
    assert con.execute("SELECT count(*) FROM violations WHERE check_name = 'output'").fetchall() == [(2,)]
    versions = [v for (v,) in con.execute("SELECT version FROM schema_migrations ORDER BY version").fetchall()]
    con.close()
    assert versions[:3] == [1, 2, 3]


def test_migrated_database_takes_rows_of_every_check(tmp_path):
    path = _copy(tmp_path)
    AuditStore(path).close()
    store = AuditStore(path)  # a second open applies nothing and still writes
    store.add_rows({"evaluations": [{"evaluation_id": "n1", "time": datetime(2026, 11, 1), "check_name": "output", "verdict": "pass"}]})
    store.flush()
    assert store.cursor().execute("SELECT count(*) FROM evaluations").fetchall() == [(4,)]
    store.close()
