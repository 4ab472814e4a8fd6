"""The `grounding` check on spans: evidence from the trace, verdicts, annotations, rows, dynamic facts, queries."""

from __future__ import annotations

import json
from datetime import datetime, timedelta

import duckdb
import pytest

from claimwatch.checks import CheckContext, Identity
from claimwatch.checks.grounding import CHECK, FABRICATED_EVENT, MIGRATIONS, GroundingConfig, _build
from claimwatch.checks.trace import HeldTrace
from claimwatch.core.config import ClaimwatchConfig
from claimwatch.otel.extract import extract
from claimwatch.otel.records import SpanRecord
from claimwatch.store.queries import load_queries, run_query

TRACE = "0" * 31 + "7"
RESERVATION = json.dumps({"reservation_id": "ZFA04Y", "total_baggages": 1, "nonfree_baggages": 0,
                          "flights": [{"flight_number": "HAT069", "price": 121}]})  # fmt: skip


def Trace(spans):
    """The project's own trace view over these spans."""
    return HeldTrace({s.span_id: s for s in spans}.get, spans)


def tool_span(n, name, arguments, result):
    attrs = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name,
             "gen_ai.tool.call.arguments": json.dumps(arguments), "gen_ai.tool.call.result": result}  # fmt: skip
    return SpanRecord(TRACE, f"{n:016x}", "a" * 16, f"execute_tool {name}", attrs, start_ns=n * 10, end_ns=n * 10 + 5)


def llm_span(n, text, question=None):
    attrs = {
        "gen_ai.operation.name": "chat",
        "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": text}]}]),
    }
    if question is not None:
        attrs["gen_ai.input.messages"] = json.dumps(
            [{"role": "user", "parts": [{"type": "text", "content": question}]}]
        )
    return SpanRecord(TRACE, f"{n:016x}", "a" * 16, "chat m", attrs, start_ns=n * 10, end_ns=n * 10 + 5)


def run(check, span, spans=(), verbosity="info"):
    identity = Identity("airline-1", "airline", "s1", None)
    ctx = CheckContext(span, Trace([*spans, span]), lambda s: (identity, None, "audit"), verbosity, extract)
    return check.run(ctx)


def build(**section):
    return _build(GroundingConfig.model_validate(section), ClaimwatchConfig())


@pytest.fixture(scope="module")
def check():
    return build()


BAGS = [tool_span(1, "get_reservation_details", {"reservation_id": "ZFA04Y"}, RESERVATION)]
LIE = "Your reservation ZFA04Y has 2 checked bags and flight HAT069 costs $145."


def test_a_contradicted_amount_flags_by_default_and_the_reason_cites_the_tool_span(check):
    result = run(check, llm_span(2, LIE), BAGS)
    assert result.verdict == "flag"
    (finding,) = result.findings
    assert finding.verdict == "flag" and finding.columns["category"] == "fabricated"
    assert "claimed $145" in finding.reason and "says 121" in finding.reason
    assert f"span {BAGS[0].span_id[:8]}" in finding.reason and "get_reservation_details" in finding.reason


def test_nothing_blocks_unless_blocking_is_configured(check):
    assert run(check, llm_span(2, LIE), BAGS).verdict == "flag"
    blocking = build(fabricatedPolicy="block")
    result = run(blocking, llm_span(2, LIE), BAGS)
    assert result.verdict == "block"
    assert result.blocked_texts == (LIE,)
    assert result.block_reason


def test_a_grounded_answer_passes_with_its_score_and_decision(check):
    result = run(check, llm_span(2, "Flight HAT069 costs $121.", "How much is HAT069?"), BAGS)
    assert result.verdict == "pass" and result.findings == ()
    assert result.attributes["claimwatch.grounding.score"] == 1.0
    assert result.attributes["claimwatch.grounding.decision"] == "APPROVE"
    (row,) = result.rows["grounding_evaluations"]
    assert (row["decision"], row["grounded"], row["fabricated"], row["no_evidence"]) == ("APPROVE", 1, 0, False)


def test_factual_claims_with_no_evidence_pass_and_say_no_evidence(check):
    result = run(check, llm_span(2, "Flight HAT069 costs $121 and departs at 6:00 AM."))
    assert result.verdict == "pass"
    assert result.reason.startswith("no evidence")
    assert result.attributes["claimwatch.grounding.no_evidence"] is True
    (row,) = result.rows["grounding_evaluations"]
    assert row["no_evidence"] is True and row["grounding_score"] is None
    assert {r["grade"] for r in result.rows["grounding_claims"]} == {None}


def test_an_output_with_no_evidence_and_no_factual_claim_gets_no_result(check):
    assert run(check, llm_span(2, "Happy to help! Would you like anything else?")) is None


def test_one_event_per_fabricated_claim_with_the_output_text_only_at_debug(check):
    info = run(check, llm_span(2, LIE), BAGS)
    events = [e for e in info.events if e.name == FABRICATED_EVENT]
    assert len(events) == 2  # the bag count (below the flag threshold) and the price
    assert {e.attributes["claimwatch.grounding.issue"] for e in events} == {"number", "money"}
    assert all(e.attributes["claimwatch.grounding.evidence.span_id"] == BAGS[0].span_id for e in events)
    assert not any("claimwatch.grounding.claim.text" in e.attributes for e in events)
    assert not any("$145" in json.dumps(dict(e.attributes)) for e in events)
    debug = run(check, llm_span(2, LIE), BAGS, verbosity="debug")
    assert any("$145" in e.attributes.get("claimwatch.grounding.reason", "") for e in debug.events)
    silent = run(check, llm_span(2, LIE), BAGS, verbosity="silent")
    assert silent.attributes == {} and silent.events == ()


def test_a_claim_a_fresh_tool_result_contradicts_is_reported_like_a_registry_contradiction(check):
    which = tool_span(1, "bash", {"command": "which node"}, "/usr/bin/node")
    result = run(check, llm_span(2, "Node is not installed on this machine."), [which])
    assert result.verdict == "flag"
    (finding,) = result.findings
    assert finding.columns["category"] == "contradicted"
    assert finding.columns["contradicted_fact_id"].startswith("trace.")
    assert finding.columns["expected"] == "installed"
    assert f"span {which.span_id[:8]}" in finding.reason
    fact_rows = [r for r in result.rows["grounding_claims"] if r["issue"] == "dynamic_fact"]
    assert fact_rows[0]["evidence_span_id"] == which.span_id


def test_a_dynamic_fact_expires_after_its_ttl():
    check = build(dynamicFacts={"ttlSeconds": 1})
    which = tool_span(1, "bash", {"command": "which node"}, "/usr/bin/node")
    late = llm_span(2, "Node is not installed on this machine.")
    late = late._replace(end_ns=which.end_ns + 5_000_000_000)  # five seconds after the tool result
    result = run(check, late, [which])
    assert not any(f.columns.get("category") == "contradicted" for f in result.findings)


def test_a_bad_config_value_is_refused_naming_the_key():
    with pytest.raises(ValueError, match=r"inferred_weight|inferredWeight"):
        GroundingConfig.model_validate({"inferredWeight": 2})
    with pytest.raises(ValueError, match=r"fabricated_policy|fabricatedPolicy"):
        GroundingConfig.model_validate({"fabricatedPolicy": "explode"})


def test_wants_is_a_cheap_look_at_attribute_names(check):
    assert check.wants(llm_span(2, "x"))
    assert not check.wants(BAGS[0])


def test_an_internal_error_fails_open_with_the_error_named(check, monkeypatch):
    monkeypatch.setattr(check.grounder, "ground", lambda *a, **k: 1 / 0)
    result = run(check, llm_span(2, LIE), BAGS)
    assert result.verdict == "pass" and result.error.startswith("ZeroDivisionError")


def test_rows_fit_the_migrated_tables_and_the_queries_answer_from_them(check):
    con = duckdb.connect()
    for m in MIGRATIONS:
        for statement in filter(str.strip, m.sql.split(";")):
            con.execute(statement)
    now = datetime.now()
    results = [run(check, llm_span(2, LIE), BAGS), run(check, llm_span(2, "Flight HAT069 costs $121 today."))]
    for i, result in enumerate(results):
        base = {"evaluation_id": f"e{i}", "time": now - timedelta(minutes=i), "trace_id": TRACE, "span_id": f"{i:016x}",
                "agent_id": "airline-1", "session_id": "s1", "mode": "audit"}  # fmt: skip
        for table, rows in result.rows.items():
            for row in rows:
                full = {**base, **row}
                con.execute(
                    f"INSERT INTO {table} ({', '.join(full)}) VALUES ({', '.join('?' * len(full))})",
                    list(full.values()),
                )
    queries = load_queries()
    _, by_agent = run_query(con, queries["grounding_score_by_agent"], {})
    assert {r[1] for r in by_agent} == {"airline-1"}
    columns, kinds = run_query(con, queries["grounding_top_fabricated"], {})
    table = {r[0]: dict(zip(columns, r, strict=True)) for r in kinds}
    assert table["money"]["flagged"] == 1 and table["no_evidence"]["fabricated"] == 0
    _, empty = run_query(con, queries["grounding_no_evidence"], {})
    assert len(empty) == 1


def test_the_spec_registers_its_tables_and_namespace():
    assert CHECK.name == "grounding" and CHECK.attribute_prefix == "claimwatch.grounding"
    assert [m.version for m in CHECK.migrations] == [1]


def test_the_phase6_decision_maps_to_a_verdict_only_when_configured():
    quiet = build(fabricatedPolicy="ignore")
    result = run(quiet, llm_span(2, LIE), BAGS)
    assert result.attributes["claimwatch.grounding.decision"] in ("RETRY", "FAIL")
    assert result.verdict == "pass" and result.findings == ()
    mapped = build(fabricatedPolicy="ignore", decisionPolicy={"FAIL": "flag", "RETRY": "flag"})
    assert run(mapped, llm_span(2, LIE), BAGS).verdict == "flag"
