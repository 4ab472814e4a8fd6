"""The grounding check through the real pipeline and audit store: a DuckDB file, its migrations, the queries."""

from __future__ import annotations

import time

import duckdb

from claimwatch.checks.grounding import CHECK, _build
from claimwatch.checks.grounding import GroundingConfig as Section
from claimwatch.checks.pipeline import Pipeline
from claimwatch.checks.trace import HeldTrace
from claimwatch.core.config import ClaimwatchConfig
from claimwatch.store import AuditStore, migrate
from claimwatch.store.queries import load_queries, run_query
from claimwatch.store.rows import outcome_rows
from tests.test_grounding_check import LIE, RESERVATION, llm_span, tool_span


def test_a_misquoted_reservation_lands_in_the_store_and_the_grounding_queries(tmp_path):
    path = tmp_path / "audit.duckdb"
    con = duckdb.connect(str(path))
    assert migrate(con, checks=[CHECK])  # the check's own tables, as registering it would create them
    con.close()
    pipeline = Pipeline(ClaimwatchConfig(), checks=[_build(Section(), ClaimwatchConfig())])
    now = time.time_ns()
    tool = tool_span(1, "get_reservation_details", {"reservation_id": "ZFA04Y"}, RESERVATION)._replace(end_ns=now)
    reply = llm_span(2, LIE, "How many bags do I have?")._replace(end_ns=now + 1_000)
    bare = llm_span(3, "Flight HAT069 costs $121.")._replace(trace_id="f" * 32, end_ns=now + 2_000)
    spans = {s.span_id: s for s in (tool, reply)}
    store = AuditStore(path, batch_rows=1)
    try:
        for span, trace in ((reply, HeldTrace(spans.get, spans.values())), (bare, HeldTrace(lambda _: None))):
            outcome = pipeline.process(span, trace)
            assert outcome is not None
            store.add_rows(outcome_rows(outcome))
        assert store.flush(30)
        cursor = store.cursor()
        evaluations = cursor.execute("SELECT check_name, verdict FROM evaluations ORDER BY verdict").fetchall()
        assert evaluations == [("grounding", "flag"), ("grounding", "pass")]
        (violation,) = cursor.execute("SELECT check_name, category, detector_id, reason FROM violations").fetchall()
        assert violation[:3] == ("grounding", "fabricated", "grounding.money")
        assert "claimed $145" in violation[3] and "says 121" in violation[3]
        grades = cursor.execute(
            "SELECT grade, issue, verdict, evidence_span_id FROM grounding_claims WHERE span_id = ? ORDER BY claim_offset",
            [reply.span_id],
        ).fetchall()
        assert {g[0] for g in grades} == {"FABRICATED"}
        assert all(g[3] == tool.span_id for g in grades)
        queries = load_queries()
        _, kinds = run_query(cursor, queries["grounding_top_fabricated"], {})
        assert {k[0] for k in kinds} == {"money", "number", "no_evidence"}
        _, bare_rows = run_query(cursor, queries["grounding_no_evidence"], {})
        assert [r[4] for r in bare_rows] == [bare.span_id]
        _, scores = run_query(cursor, queries["grounding_score_by_agent"], {"bucket": "1 day"})
        assert sum(r[2] for r in scores) == 2
        cursor.close()
    finally:
        store.close()
