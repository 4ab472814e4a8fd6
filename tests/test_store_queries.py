"""The DuckDB audit store and the named queries, on a real file populated through the pipeline."""

from __future__ import annotations

import io
import json
import re
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import duckdb
import pytest

from claimwatch.checks.pipeline import Pipeline
from claimwatch.collector.cli import main
from claimwatch.otel.records import SpanRecord
from claimwatch.store import MIGRATIONS, AuditStore, migrate
from claimwatch.store.queries import QueryError, load_queries, parse_query, run_query
from claimwatch.store.rows import outcome_rows
from tests.conftest import DOCKER_RUNNING

CONFIG = {
    "validation": {
        "factRegistries": [
            {
                "id": "infra",
                "facts": [
                    DOCKER_RUNNING,
                    {
                        "id": "pipeline-green",
                        "category": "operational_status",
                        "subject": "pipeline",
                        "value": {"type": "status", "status": "operational"},
                    },
                ],
            }
        ]
    },
    "agents": {"rules": [{"match": "sub-*", "trust": 10}, {"match": "main", "trust": 65}]},
}

OUTPUTS = [
    ("main", "Docker is not running."),
    ("main", "I refactored the parser and added tests."),
    ("sub-1", "Docker is not running. The pipeline is broken."),
    ("sub-1", "The pipeline is broken."),
    ("sub-2", "Redis is not installed. My system prompt says I should stop."),
    ("sub-2", "Everything went fine; the summary is below."),
]


def populate(path: Path) -> None:
    pipeline = Pipeline(CONFIG)
    store = AuditStore(path, batch_rows=2)
    base = datetime(2026, 11, 1, tzinfo=UTC)
    for i, (agent, text) in enumerate(OUTPUTS):
        end = int((base + timedelta(hours=i)).timestamp() * 1e9)
        span = SpanRecord(
            f"{i:032x}",
            f"{i + 1:016x}",
            None,
            "chat",
            {
                "gen_ai.agent.name": agent,
                "gen_ai.output.messages": json.dumps(
                    [{"role": "assistant", "parts": [{"type": "text", "content": text}]}]
                ),
            },
            end_ns=end,
        )
        store.add_rows(outcome_rows(pipeline.process(span)))
    store.close()


OUTPUT_TABLES = {"evaluations", "violations", "claims"}


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("store") / "audit.duckdb"
    populate(path)
    return path


@pytest.fixture
def con(db):
    c = duckdb.connect(str(db), read_only=True)
    yield c
    c.close()


def test_migrations_are_recorded_and_applied_once(tmp_path):
    c = duckdb.connect(str(tmp_path / "m.duckdb"))
    applied = migrate(c)
    assert applied[: len(MIGRATIONS)] == [f"core:{v}" for v, _, _ in MIGRATIONS]
    assert migrate(c) == []
    assert c.execute("SELECT version, name FROM schema_migrations ORDER BY version").fetchall() == [
        (v, n) for v, n, _ in MIGRATIONS
    ]


def test_rows_are_written_with_their_types(con):
    assert con.execute("SELECT count(*) FROM evaluations").fetchall() == [(6,)]
    row = con.execute(
        "SELECT time, category, iso_controls FROM violations WHERE agent_id = 'sub-1' ORDER BY time LIMIT 1"
    ).fetchall()[0]
    assert row[0] == datetime(2026, 11, 1, 2, 0)
    assert row[2] == ["A.8.10", "A.5.24", "A.5.28"]


def test_every_query_declares_exactly_the_parameters_it_uses_and_runs(con):
    queries = load_queries()
    assert {"violations", "verdict_counts", "top_contradicted_facts"} <= set(queries)
    for query in queries.values():
        # The populated rows are from 2026-11-01; reach back to them where a query takes a window.
        window = {"since": "2026-10-01T00:00:00"} if any(p.name == "since" for p in query.params) else {}
        columns, result = run_query(con, query, window)
        assert columns, query.name
        # The rows here are the output check's; each other check's tests populate its own tables.
        ctes = set(re.findall(r"\b(\w+)\s+AS\s*\(", query.sql, re.I))
        if set(re.findall(r"\b(?:FROM|JOIN)\s+(\w+)", query.sql, re.I)) - ctes <= OUTPUT_TABLES:
            assert result, f"{query.name} returned no rows on the populated schema"


def test_violations_filters(con):
    q = load_queries()["violations"]
    columns, by_agent = run_query(con, q, {"agent": "sub-*", "category": "operational_status"})
    agent = columns.index("agent_id")
    assert len(by_agent) == 2
    _, by_detector = run_query(con, q, {"detector": "self_referential.*"})
    assert [r[agent] for r in by_detector] == ["sub-2"]
    _, in_window = run_query(con, q, {"since": "2026-11-01T02:00:00Z", "until": "2026-11-01T03:00:00Z"})
    assert {r[agent] for r in in_window} == {"sub-1"}
    assert "matched_text" in columns  # the analyst sees what was matched without ad-hoc SQL (when stored)
    assert all(r[columns.index("matched_text")] for r in by_agent)
    _, by_check = run_query(con, q, {"check": "output"})
    assert len(by_check) == len(run_query(con, q, {})[1])
    _, by_trace = run_query(con, q, {"trace": f"{3:032x}".upper()})
    assert len(by_trace) == 1
    _, blocked = run_query(con, q, {"verdict": "block", "limit": "1"})
    assert len(blocked) == 1


def test_verdict_counts_by_agent_and_tier(con):
    columns, result = run_query(con, load_queries()["verdict_counts"], {})
    table = {r[0]: dict(zip(columns, r, strict=True)) for r in result}
    assert (table["sub-1"]["trust_tier"], table["sub-1"]["block"]) == ("untrusted", 2)
    assert (table["main"]["trust_tier"], table["main"]["flag"], table["main"]["pass"]) == ("trusted", 1, 1)


def test_top_contradicted_facts(con):
    _, result = run_query(con, load_queries()["top_contradicted_facts"], {})
    assert [(r[0], r[2], r[3]) for r in result] == [("docker-running", 2, 2), ("pipeline-green", 2, 1)]


def test_bad_parameters_are_named():
    q = load_queries()["violations"]
    with pytest.raises(QueryError, match="query 'violations' has no parameter 'agnet'"):
        q.bind({"agnet": "x"})
    with pytest.raises(QueryError, match="parameter 'limit' must be a integer, got 'ten'"):
        q.bind({"limit": "ten"})
    with pytest.raises(QueryError, match="parameter 'since' must be a timestamp, got 'yesterday'"):
        q.bind({"since": "yesterday"})


def test_relative_time_parameters(con):
    assert load_queries()["violations"].bind({"since": "24h"})["since"] > datetime.now() - timedelta(days=2)


def test_query_header_must_match_body(tmp_path):
    path = tmp_path / "bad.sql"
    path.write_text("-- name: bad\n-- param: a (text, optional): x\nSELECT $b\n")
    with pytest.raises(QueryError, match=r"declared parameters \['a'\] differ from those used \['b'\]"):
        parse_query(path)


def run_cli(argv, capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    code = main(argv)
    return code, *capsys.readouterr()


def test_cli_query_formats(db, capsys, monkeypatch):
    code, out, _ = run_cli(
        ["query", "violations", "--db", str(db), "--param", "agent=sub-2", "--format", "json"], capsys, monkeypatch
    )
    assert code == 0
    assert {r["category"] for r in json.loads(out)} == {"system_state", "self_referential"}
    code, out, _ = run_cli(["query", "verdict_counts", "--db", str(db), "--format", "csv"], capsys, monkeypatch)
    assert out.splitlines()[0].startswith("agent_id,trust_tier,evaluations,pass,flag,block")
    code, out, _ = run_cli(["query", "top_contradicted_facts", "--db", str(db)], capsys, monkeypatch)
    assert "docker-running" in out and out.rstrip().endswith("(2 rows)")


def test_cli_query_errors_are_one_line(tmp_path, db, capsys, monkeypatch):
    code, _, err = run_cli(["query", "nope", "--db", str(db)], capsys, monkeypatch)
    assert code == 2 and err.startswith("claimwatch: no query named 'nope' (known: ")
    code, _, err = run_cli(["query", "violations", "--db", str(tmp_path / "missing.duckdb")], capsys, monkeypatch)
    assert (
        err == f"claimwatch: no audit database at {tmp_path / 'missing.duckdb'} (start claimwatch or pass --db FILE)\n"
    )
    code, _, err = run_cli(["query", "violations", "--db", str(db), "--param", "oops"], capsys, monkeypatch)
    assert err == "claimwatch: --param takes KEY=VALUE, got 'oops'\n"


def test_cli_query_list(capsys, monkeypatch):
    code, out, _ = run_cli(["query", "--list"], capsys, monkeypatch)
    assert code == 0 and "violations:" in out and "--param agent=<text>" in out
