"""The `actions` check on spans: actions read from the trace, verdicts by trust, rows, annotations, queries."""

from __future__ import annotations

import json
from datetime import datetime, timedelta

import duckdb
import pytest

from claimwatch.checks import CheckContext, Identity, registered
from claimwatch.checks.actions import CHECK, FINDING_EVENT, MIGRATIONS, ActionsCheck
from claimwatch.checks.trace import HeldTrace
from claimwatch.otel.extract import extract
from claimwatch.otel.records import SpanRecord
from claimwatch.store.queries import load_queries, run_query
from claimwatch.verify import ActionsConfig

TRACE = "0" * 31 + "1"


def Trace(spans):
    """The project's own trace view over these spans."""
    return HeldTrace({s.span_id: s for s in spans}.get, spans)


def tool_span(n, name, arguments, result, status=None, convention="genai"):
    if convention == "genai":
        attrs = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name,
                 "gen_ai.tool.call.arguments": json.dumps(arguments), "gen_ai.tool.call.result": result}
    elif convention == "openinference":
        attrs = {"openinference.span.kind": "TOOL", "tool.name": name, "input.value": json.dumps(arguments),
                 "output.value": result}
    elif convention == "pydantic-ai-v2":  # `running tool` spans of pydantic-ai's older attribute format
        attrs = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name,
                 "tool_arguments": json.dumps(arguments), "tool_response": result}
    else:
        attrs = {"traceloop.span.kind": "tool", "traceloop.entity.name": name,
                 "traceloop.entity.input": json.dumps({"args": [], "kwargs": arguments}),
                 "traceloop.entity.output": json.dumps(result)}
    if status:
        attrs["otel.status_code"] = status
    return SpanRecord(TRACE, f"{n:016x}", "a" * 16, f"execute_tool {name}", attrs, start_ns=n * 10, end_ns=n * 10 + 5)


def llm_span(n, text, input_messages=None):
    attrs = {"gen_ai.operation.name": "chat",
             "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": text}]}])}
    if input_messages is not None:
        attrs["gen_ai.input.messages"] = json.dumps(input_messages)
    return SpanRecord(TRACE, f"{n:016x}", "a" * 16, "chat m", attrs, start_ns=n * 10, end_ns=n * 10 + 5)


def run(check, span, spans=(), trust=None, verbosity="info", mode="audit"):
    identity = Identity("coder-1", "coder", "s1", None)
    ctx = CheckContext(span, Trace([*spans, span]), lambda s: (identity, trust, mode), verbosity, extract)
    return check.run(ctx)


@pytest.fixture
def check():
    return ActionsCheck(ActionsConfig())


@pytest.mark.parametrize("convention", ["genai", "openinference", "traceloop", "pydantic-ai-v2"])
def test_a_passing_claim_after_a_failed_test_span_is_contradicted_and_flagged(check, convention):
    spans = [tool_span(1, "bash", {"command": "pytest -q"}, "=== 2 failed, 5 passed ===", "ERROR", convention)]
    result = run(check, llm_span(2, "Done: all tests pass."), spans)
    assert result.verdict == "flag"
    (finding,) = result.findings
    assert (finding.severity, finding.columns["category"], finding.columns["assertion"]) == ("high", "tests_failed", "tests")
    (row,) = [r for r in result.rows["action_findings"] if r["grade"] == "contradicted"]
    assert row["evidence_span_id"] == spans[0].span_id


def test_tool_calls_in_the_input_conversation_are_actions(check):
    history = [
        {"role": "assistant", "parts": [{"type": "tool_call", "id": "c1", "name": "write_file",
                                         "arguments": {"path": "src/parser.py", "content": "x"}}]},
        {"role": "tool", "parts": [{"type": "tool_call_response", "id": "c1", "response": "written"}]},
    ]
    result = run(check, llm_span(2, "I created `src/parser.py`.", history))
    assert result.verdict == "pass"
    assert [(r["claim_kind"], r["grade"]) for r in result.rows["action_findings"]] == [("file_create", "verified")]


def test_an_unverified_claim_flags_only_below_the_trust_threshold(check):
    span = llm_span(2, "I installed requests.")
    low, high = run(check, span, trust=30), run(check, span, trust=70)
    assert (low.verdict, [f.severity for f in low.findings]) == ("flag", ["low"])
    assert (high.verdict, high.findings) == ("pass", ())
    assert [r["grade"] for r in high.rows["action_findings"]] == ["unverified"]  # still recorded


def test_blocking_is_opt_in():
    spans = [tool_span(1, "bash", {"command": "pytest"}, "1 failed", "ERROR")]
    blocking = ActionsCheck(ActionsConfig(block_on=["contradicted"]))
    result = run(blocking, llm_span(2, "All tests pass."), spans)
    assert result.verdict == "block" and result.blocked_texts == ("All tests pass.",) and result.block_reason


def test_a_tool_result_that_breaks_its_schema_is_reported_on_the_tool_span_with_the_tool_named():
    check = ActionsCheck(ActionsConfig(tool_schemas={"get_reservation": {"type": "object", "required": ["reservation_id"]}}))
    span = tool_span(1, "get_reservation", {"id": "R1"}, '{"user_id": "u"}')
    assert check.wants(span)
    result = run(check, span)
    (finding,) = result.findings
    assert (finding.columns["subject"], finding.columns["category"], finding.severity) == ("get_reservation", "schema_mismatch", "low")
    (row,) = result.rows["action_findings"]
    assert (row["tool_name"], row["json_path"], row["level"]) == ("get_reservation", "$.reservation_id", 2)


def test_new_tool_results_in_the_input_get_level_two_once():
    check = ActionsCheck(ActionsConfig(tool_schemas={"lookup": {"type": "object"}}))
    history = [
        {"role": "assistant", "tool_calls": [{"id": "1", "function": {"name": "lookup", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "1", "content": "not json"},
        {"role": "assistant", "tool_calls": [{"id": "2", "function": {"name": "lookup", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "2", "content": "{}"},
    ]
    result = run(check, llm_span(3, "Here you go.", history))
    assert result.verdict == "pass"  # the bad result belongs to the previous turn


def test_spans_without_output_or_tools_are_not_wanted(check):
    span = SpanRecord(TRACE, "1" * 16, None, "db query", {"db.system": "postgresql"})
    assert not check.wants(span)


def test_annotations_follow_verbosity_and_keep_claim_text_for_debug(check):
    span = llm_span(2, "I deleted `old.txt`.")
    silent = run(check, span, trust=10, verbosity="silent")
    info = run(check, span, trust=10, verbosity="info")
    debug = run(check, span, trust=10, verbosity="debug")
    assert (silent.attributes, silent.events) == ({}, ())
    assert info.attributes["claimwatch.actions.claims.unverified"] == 1
    (event,) = info.events
    assert event.name == FINDING_EVENT and "claimwatch.actions.claim.text" not in event.attributes
    assert debug.events[0].attributes["claimwatch.actions.claim.text"] == "I deleted `old.txt`"


def test_an_internal_error_fails_open(check, monkeypatch):
    monkeypatch.setattr(check.verifier, "verify", lambda *a, **k: 1 / 0)
    result = run(check, llm_span(2, "All tests pass."))
    assert result.verdict == "pass" and "ZeroDivisionError" in result.error


def test_the_check_is_registered_with_its_migrations():
    assert registered()["actions"] is CHECK
    assert [m.version for m in CHECK.migrations] == list(range(1, len(CHECK.migrations) + 1))


# --- rows and queries on the real tables ---------------------------------------------------------
@pytest.fixture
def db():
    con = duckdb.connect()
    for migration in MIGRATIONS:
        for statement in filter(str.strip, migration.sql.split(";")):
            con.execute(statement)
    return con


def store(con, result, n, agent="coder-1"):
    shared = {"evaluation_id": f"e{n}", "time": datetime.now() - timedelta(minutes=n), "trace_id": TRACE,
              "span_id": f"{n:016x}", "agent_id": agent, "session_id": "s1", "mode": "audit"}
    for table, rows in result.rows.items():
        for row in rows:
            values = {**shared, **row}
            columns = ", ".join(values)
            con.execute(f"INSERT INTO {table} ({columns}) VALUES ({', '.join('?' * len(values))})", list(values.values()))


def test_rows_fit_the_tables_and_every_actions_query_answers(db):
    structured = ActionsCheck(ActionsConfig(schemas=[{"agent": "coder-*", "schema": {"type": "object", "required": ["summary"]}}],
                                            tool_schemas={"lookup": {"type": "object"}}))
    failing = [tool_span(1, "bash", {"command": "pytest"}, "1 failed", "ERROR")]
    store(db, run(structured, llm_span(2, "All tests pass. I created `a.py`."), failing, trust=10), 1)
    store(db, run(structured, llm_span(3, '{"summary": "ok"}'), trust=10), 2, agent="coder-2")
    store(db, run(structured, tool_span(4, "lookup", {}, "oops")), 3)
    queries = load_queries()
    names = [n for n in queries if n.startswith("actions_")]
    assert sorted(names) == ["actions_by_agent", "actions_errors_by_category", "actions_pass_rate_by_level", "actions_top_claims"]
    for name in names:
        _columns, rows = run_query(db, queries[name], {})
        assert rows, name
    _, top = run_query(db, queries["actions_top_claims"], {})
    assert {(r[0], r[1], r[2]) for r in top} == {("tests", "All tests", "contradicted"), ("file_create", "a.py", "unverified")}
    _, levels = run_query(db, queries["actions_pass_rate_by_level"], {})
    assert [(r[0], r[2], r[3]) for r in levels] == [(1, 2, 1), (2, 1, 0), (3, 1, 0)]
    _, categories = run_query(db, queries["actions_errors_by_category"], {})
    assert ("schema_mismatch", ["lookup"]) in [(r[1], r[4]) for r in categories]


def test_a_growing_trace_is_read_incrementally_and_a_late_span_rebuilds_it(check):
    passing = tool_span(1, "bash", {"command": "pytest"}, "5 passed\n<returncode>0</returncode>")
    first = run(check, llm_span(2, "All tests pass."), [passing])
    assert [r["grade"] for r in first.rows["action_findings"]] == ["verified"]
    failing = tool_span(3, "bash", {"command": "pytest"}, "1 failed\n<returncode>1</returncode>")
    second = run(check, llm_span(4, "All tests pass."), [passing, failing])
    assert [r["grade"] for r in second.rows["action_findings"]] == ["contradicted"]
    # A span that ended earlier but arrived late changes the order: the timeline is rebuilt, not extended.
    late_fix = SpanRecord(TRACE, "f" * 16, "a" * 16, "execute_tool write_file", {
        "gen_ai.tool.name": "write_file", "gen_ai.tool.call.arguments": json.dumps({"path": "a.py", "content": "x"}),
        "gen_ai.tool.call.result": "ok"}, start_ns=0, end_ns=1)
    third = run(check, llm_span(5, "I wrote `a.py`."), [late_fix, passing, failing])
    assert [(r["grade"], r["evidence_index"]) for r in third.rows["action_findings"]] == [("verified", 0)]


def openinference_llm_span(n, text, history):
    """An OpenInference LLM span: the conversation in indexed llm.input_messages attributes."""
    attrs = {"openinference.span.kind": "LLM", "llm.output_messages.0.message.role": "assistant",
             "llm.output_messages.0.message.content": text}
    for i, message in enumerate(history):
        prefix = f"llm.input_messages.{i}.message"
        attrs[f"{prefix}.role"] = message["role"]
        if "content" in message:
            attrs[f"{prefix}.content"] = message["content"]
        if "tool_call_id" in message:
            attrs[f"{prefix}.tool_call_id"] = message["tool_call_id"]
        for j, (call_id, name, arguments) in enumerate(message.get("calls", ())):
            attrs[f"{prefix}.tool_calls.{j}.tool_call.id"] = call_id
            attrs[f"{prefix}.tool_calls.{j}.tool_call.function.name"] = name
            attrs[f"{prefix}.tool_calls.{j}.tool_call.function.arguments"] = json.dumps(arguments)
    return SpanRecord(TRACE, f"{n:016x}", "a" * 16, "ChatCompletion", attrs, start_ns=n * 10, end_ns=n * 10 + 5)


def test_tool_calls_in_an_openinference_input_conversation_are_actions_when_no_tool_span_was_recorded(check):
    # The OpenAI client under OpenInference, its tools untraced: the calls are only in the LLM span's input.
    history = [
        {"role": "user", "content": "install requests"},
        {"role": "assistant", "calls": [("call_1", "bash", {"command": "pip install requests"})]},
        {"role": "tool", "tool_call_id": "call_1", "content": "Successfully installed requests-2.32.3"},
    ]
    result = run(check, openinference_llm_span(2, "I installed requests and I committed the changes.", history))
    graded = [(r["claim_kind"], r["grade"]) for r in result.rows["action_findings"]]
    assert sorted(graded) == [("commit", "unverified"), ("install", "verified")]


def test_a_tool_span_echoed_in_the_conversation_is_one_action_citing_the_span(check):
    spans = [tool_span(1, "bash", {"command": "pip install requests"}, "Successfully installed requests-2.32.3")]
    history = [
        {"role": "assistant", "parts": [{"type": "tool_call", "id": "c1", "name": "bash",
                                         "arguments": json.dumps({"command": "pip install requests"})}]},
        {"role": "user", "parts": [{"type": "tool_call_response", "id": "c1", "result": "Successfully installed"}]},
    ]
    result = run(check, llm_span(2, "I installed requests.", history), spans)
    (row,) = result.rows["action_findings"]
    assert (row["grade"], row["evidence_index"], row["evidence_span_id"]) == ("verified", 0, spans[0].span_id)


def anthropic_tool_span(n, name, call_id, arguments=None, content=None):
    """The anthropic SDK's own span of one tool run of its tool runner: the call id always; the arguments
    and the result's content blocks (`anthropic.tool_result.content`) only when it records content."""
    attrs = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name, "gen_ai.tool.call.id": call_id,
             "otel.status_code": "OK"}
    if arguments is not None:
        attrs["gen_ai.tool.call.arguments"] = json.dumps(arguments)
        attrs["anthropic.tool_result.content"] = json.dumps([{"type": "text", "text": content}])
    return SpanRecord(TRACE, f"{n:016x}", "a" * 16, f"anthropic.custom_tool_use {name}", attrs,
                      start_ns=n * 10, end_ns=n * 10 + 5)  # fmt: skip


@pytest.mark.parametrize("convention", ["genai", "openinference"])
def test_sdk_tool_span_without_arguments_takes_those_the_llm_asked_for_with_its_call_id(check, convention):
    # The SDK's tool runner on message threads: the answering call's input holds only the last tool result,
    # the tool span holds no arguments; the LLM span that asked for the call (OpenLLMetry's GenAI output, or
    # OpenInference's llm.output_messages) has them.
    if convention == "genai":
        parts = [{"type": "tool_call", "id": "toolu_02", "name": "bash", "arguments": {"command": "pip install requests"}}]
        asked = llm_span(1, "")
        asked = asked._replace(attributes={**asked.attributes, "gen_ai.output.messages": json.dumps(
            [{"role": "assistant", "parts": parts}])})  # fmt: skip
    else:
        asked = openinference_llm_span(1, "", [])
        asked = asked._replace(attributes={
            "openinference.span.kind": "LLM",
            "llm.output_messages.0.message.role": "assistant",
            "llm.output_messages.0.message.tool_calls.0.tool_call.id": "toolu_02",
            "llm.output_messages.0.message.tool_calls.0.tool_call.function.name": "bash",
            "llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments": '{"command": "pip install requests"}',
        })  # fmt: skip
    ran = anthropic_tool_span(2, "bash", "toolu_02")
    answer = llm_span(3, "I installed requests.", [
        {"role": "user", "parts": [{"type": "tool_call_response", "id": "toolu_02", "response": "Successfully installed"}]}
    ])  # fmt: skip
    result = run(check, answer, [asked, ran])
    (row,) = result.rows["action_findings"]
    assert (row["claim_kind"], row["grade"], row["evidence_span_id"]) == ("install", "verified", ran.span_id)


def test_sdk_tool_span_with_content_is_an_action_with_its_result(check):
    ran = anthropic_tool_span(1, "bash", "toolu_01", {"command": "pytest -q"}, "=== 2 failed, 5 passed ===")
    result = run(check, llm_span(2, "Done: all tests pass."), [ran])
    (row,) = [r for r in result.rows["action_findings"] if r["grade"] == "contradicted"]
    assert row["evidence_span_id"] == ran.span_id
