"""End to end with the real SDK: an agent's tool span and its reply through ClaimwatchSpanProcessor into DuckDB."""

from __future__ import annotations

import json

import duckdb
import pytest
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from claimwatch import ClaimwatchSpanProcessor

pytestmark = pytest.mark.e2e


def test_a_reply_claiming_passing_tests_after_a_failed_run_is_flagged_annotated_and_stored(tmp_path):
    db = tmp_path / "audit.duckdb"
    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "coder-svc"}))
    processor = ClaimwatchSpanProcessor(BatchSpanProcessor(exporter), config={"storage": {"path": str(db)}})
    provider.add_span_processor(processor)
    tracer = provider.get_tracer("test")
    with tracer.start_as_current_span("invoke_agent coder", attributes={"gen_ai.agent.name": "coder"}):
        with tracer.start_as_current_span("execute_tool bash", attributes={
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "bash",
            "gen_ai.tool.call.arguments": json.dumps({"command": "pytest -q"}),
            "gen_ai.tool.call.result": "=========== 1 failed, 3 passed in 0.21s ===========",
        }) as tool:
            tool_id = format(tool.get_span_context().span_id, "016x")
        with tracer.start_as_current_span("chat model") as llm:
            llm.set_attribute("gen_ai.operation.name", "chat")
            llm.set_attribute("gen_ai.output.messages", json.dumps(
                [{"role": "assistant", "parts": [{"type": "text", "content": "Fixed it: all tests pass."}]}]))
    provider.shutdown()

    (chat,) = [s for s in exporter.get_finished_spans() if s.name == "chat model"]
    assert chat.attributes["claimwatch.actions.claims.contradicted"] == 1
    (event,) = [e for e in chat.events if e.name == "claimwatch.actions.finding"]
    assert event.attributes["claimwatch.actions.grade"] == "contradicted"
    assert event.attributes["claimwatch.actions.evidence_span_id"] == tool_id

    con = duckdb.connect(str(db), read_only=True)
    try:
        findings = con.execute(
            "SELECT claim_kind, grade, category, evidence_span_id, agent_id FROM action_findings").fetchall()
        violations = con.execute(
            "SELECT verdict, severity, category FROM violations WHERE check_name = 'actions'").fetchall()
    finally:
        con.close()
    assert findings == [("tests", "contradicted", "tests_failed", tool_id, "coder")]
    assert violations == [("flag", "high", "tests_failed")]
