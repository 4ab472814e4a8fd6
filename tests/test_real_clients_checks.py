"""The grounding, actions and tool_policy checks on what real agent clients emit, end to end and offline.

`tests/test_real_clients.py` proves the output check reads each client; this
file proves the three checks that read tool calls and tool results do too.
Each client (pydantic-ai in its current and its older attribute format, the
OpenAI Agents SDK under OpenInference, the OpenAI client under OpenInference
with `@tracer.tool` spans, and under OpenLLMetry, which has no tool spans) runs
the help-desk scenario of `tests/helpers/real_clients.py` in a process of its
own against the fake LLM: the model looks up a reservation (`get_reservation`,
code K7QX2: 1 checked bag, $120), installs a package through `bash`, then
answers. One collector (real OTLP, real DuckDB file) judges every run:

- grounding: an answer giving 2 bags and $150 is FABRICATED, citing the tool
  result it contradicts; the answer giving 1 bag and $120 is not;
- actions: "I installed requests" is verified by the `bash` call, "I committed
  the changes" (no such call) is not;
- tool_policy: a deny rule of the config on `get_reservation`'s arguments
  blocks the client's call, on the tool span and on the LLM's request for it.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from dataclasses import dataclass

import duckdb
import pytest

from claimwatch.store.queries import load_queries
from tests.conftest import ROOT
from tests.helpers.fake_llm import FakeLLM, Reply
from tests.helpers.real_clients import AGENT, RESERVATION_CODE
from tests.otlp_helpers import FACTS, Sink, start_collector, wait_for

e2e = pytest.mark.e2e

# The model's script: look the reservation up, install a package, answer.
LOOKUP = Reply.tool_call("get_reservation", code=RESERVATION_CODE)
INSTALL = Reply.tool_call("bash", command="pip install requests")
# Contradicts the tool result twice (bags, price); one action done, one never done.
CONTRADICTING = (
    f"Your reservation {RESERVATION_CODE} has 2 checked bags and the total price is $150. "
    "I installed requests and I committed the changes."
)
CONSISTENT = f"Your reservation {RESERVATION_CODE} has 1 checked bag and the total price is $120. I installed requests."
DENY_RULE = "desk.no_k7qx2_lookups"
CHECKS = {
    "grounding": {"enabled": True},
    # The agent runs at trust 50 (the standard tier); unverified claims flag below 60 here.
    "actions": {"unverifiedFlagBelowTrust": 60},
    "tool_policy": {
        "denyPatterns": [
            {
                "id": DENY_RULE,
                "tools": ["get_reservation"],
                "pattern": RESERVATION_CODE,
                "reason": "reservation K7QX2 is under investigation",
            }
        ]
    },
}
AUDITING = {"rules": [{"match": AGENT, "trust": 50, "mode": "audit"}]}
CLIENT_TIMEOUT_S = 60
# Each check's own tables, scoped to a run's traces like `evaluations` and `violations`.
TABLES = (
    "evaluations",
    "violations",
    "grounding_evaluations",
    "grounding_claims",
    "action_checks",
    "action_findings",
    "tool_policy_decisions",
)


def installed(*modules: str) -> bool:
    return all(importlib.util.find_spec(m) is not None for m in modules)


def needs(*modules: str):
    return pytest.mark.skipif(not installed(*modules), reason=f"needs {', '.join(modules)} (pip install -e '.[test]')")


@dataclass
class Run:
    """One client's run of the desk scenario: its answer, the spans forwarded, and its rows."""

    client: str
    answer: str
    store: object  # what the rows are read from: the collector's store, or the in-process adapter's file
    spans: list

    @property
    def trace_ids(self) -> list[str]:
        return sorted({s.trace_id.hex() for s in self.spans})

    def tool_span(self, tool: str) -> str:
        """The id of the one forwarded span that ran `tool` (GenAI or OpenInference naming)."""
        found = [
            s.span_id.hex()
            for s in self.spans
            if tool in {kv.value.string_value for kv in s.attributes if kv.key in ("gen_ai.tool.name", "tool.name")}
        ]
        assert len(found) == 1, (tool, sorted(s.name for s in self.spans))
        return found[0]

    def rows(self, sql: str, params: dict | None = None) -> list[tuple]:
        """`sql` over this run's rows only (every table in TABLES holds only its traces)."""
        scoped = ", ".join(f"{t} AS (SELECT * FROM main.{t} WHERE list_contains($traces, trace_id))" for t in TABLES)
        cursor = self.store.cursor()
        try:
            return cursor.execute(f"WITH {scoped} {sql}", {**(params or {}), "traces": self.trace_ids}).fetchall()
        finally:
            cursor.close()


class FileStore:
    """The DuckDB file the in-process adapter wrote, read once its process has ended."""

    def __init__(self, path: str) -> None:
        self.path = path

    def cursor(self):
        return duckdb.connect(self.path, read_only=True)


def run_desk(collector, sink: Sink, client: str, answer: str, extra=(), in_process: dict | None = None) -> Run:
    """Run `client`'s desk scenario in its own process; wait until all it sent is stored and forwarded.

    With `in_process` (a config with a storage path), `ClaimwatchSpanProcessor` judges the spans in the
    client's process and the rows are read from its file."""
    llm = FakeLLM([LOOKUP, INSTALL, Reply.text(answer)])
    before = len(sink.spans())
    if in_process is not None:
        extra = (*extra, "--claimwatch", json.dumps(in_process))
    command = [
        sys.executable,
        "-m",
        "tests.helpers.real_clients",
        client,
        "--llm",
        llm.base_url,
        "--otlp",
        f"http://{collector.addresses.otlp_http}/v1/traces",
        "--service",
        AGENT,
        *extra,
    ]
    env = {
        **os.environ,
        "NO_PROXY": "127.0.0.1,localhost",
        "no_proxy": "127.0.0.1,localhost",
        "OPENAI_API_KEY": "test-key",
        "OTEL_BSP_SCHEDULE_DELAY": "60000",  # one export at shutdown: the whole trace in one request
    }
    try:
        done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=CLIENT_TIMEOUT_S)
        assert done.returncode == 0, done.stderr[-3000:]
        report = json.loads(done.stdout.strip().splitlines()[-1])
        wait_for(lambda: collector.engine.flush(10) and len(sink.spans()) >= before + report["spans"])
        collector.store.flush(10)
    finally:
        llm.close()
    assert len(llm.requests) == 3, "the client must call both tools, then answer"
    store = FileStore(in_process["storage"]["path"]) if in_process is not None else collector.store
    return Run(client, report["answer"], store, sink.spans()[before:])


@pytest.fixture(scope="module")
def desk(tmp_path_factory):
    """One collector for the module; each (client, answer) runs once, on first use."""
    sink = Sink()
    collector = start_collector(
        tmp_path_factory.mktemp("desk"),
        agents=AUDITING,
        checks=CHECKS,
        exporters={"otlp": {"endpoint": sink.endpoint, "protocol": "http/protobuf"}},
    )
    cache: dict[tuple, Run] = {}

    def get(client: str, answer: str = CONTRADICTING, extra: tuple = (), in_process: bool = False) -> Run:
        key = (client, answer, extra, in_process)
        if key not in cache:
            config = None
            if in_process:
                path = tmp_path_factory.mktemp("in-process") / "audit.duckdb"
                config = {"validation": FACTS, "agents": AUDITING, "checks": CHECKS, "storage": {"path": str(path)}}
            cache[key] = run_desk(collector, sink, client, answer, extra, config)
        return cache[key]

    try:
        yield get
    finally:
        collector.stop()
        sink.close()


# --- What each check must conclude, whichever client emitted the spans ---------------------------


def assert_no_check_failed(run: Run) -> None:
    failed = run.rows(
        "SELECT span_name, check_name, error FROM evaluations WHERE error IS NOT NULL OR verdict = 'error_fallback'"
    )
    assert failed == []


def grounding_claims(run: Run) -> list[tuple]:
    """(grade, issue, verdict, evidence span, source, tool) of each claim graded; only the answer has claims
    (the LLM calls before it asked for tools and said nothing)."""
    assert len(run.rows("SELECT DISTINCT span_id FROM grounding_claims")) == 1
    return run.rows(
        "SELECT grade, issue, verdict, evidence_span_id, evidence_source, evidence_tool "
        "FROM grounding_claims ORDER BY claim_offset"
    )


def assert_contradictions_fabricated(run: Run) -> None:
    """The price the answer makes up is FABRICATED and flagged, citing the reservation's tool result."""
    claims = grounding_claims(run)
    money = [c for c in claims if c[1] == "money"]
    assert [c[:3] for c in money] == [("FABRICATED", "money", "flag")], claims
    _, _, _, span_id, source, _ = money[0]
    assert source in ("tool_result", "tool_message") and span_id in {s.span_id.hex() for s in run.spans}, claims
    # The bag count is contradicted too: graded FABRICATED, below the confidence that flags.
    assert ("FABRICATED", "number") in {c[:2] for c in claims}, claims
    violations = run.rows("SELECT subject, category, verdict FROM violations WHERE check_name = 'grounding'")
    assert violations == [("money", "fabricated", "flag")]


def assert_fabrication_cites_the_tool_span(run: Run, tool: str) -> None:
    """The citation points at the span that ran the tool, where the result came from, not at the copy
    of it the client echoes in the next LLM call's input messages."""
    cited = {c[3:5] for c in grounding_claims(run) if c[0] == "FABRICATED"}
    assert cited == {(run.tool_span(tool), "tool_result")}, cited


def assert_fabrication_names_the_tool(run: Run, tool: str) -> None:
    cited = {c[5] for c in grounding_claims(run) if c[0] == "FABRICATED"}
    assert cited == {tool}, cited


# Every client echoes tool results into the next LLM call's input: the grade must cite the tool span
# (processors/grounding/trace.py keeps the span's copy of an echoed result).


def assert_consistent_answer_grounded(run: Run) -> None:
    claims = grounding_claims(run)
    assert claims and {c[0] for c in claims} == {"GROUNDED"}, claims
    assert run.rows("SELECT count(*) FROM violations WHERE check_name = 'grounding'") == [(0,)]


def assert_actions_graded(run: Run, bash_span: str | None) -> None:
    """The install is verified by the bash call (citing its span when the client traces its tools);
    the commit, which no call did, is unverified and flagged."""
    grades = run.rows(
        "SELECT claim_kind, subject, grade, category, verdict, evidence_span_id FROM action_findings "
        "WHERE level = 3 ORDER BY claim_kind, subject"
    )
    assert [g[:5] for g in grades] == [
        ("commit", None, "unverified", "no_matching_action", "flag"),
        ("install", "requests", "verified", "verified", "pass"),
    ], grades
    if bash_span is not None:
        assert grades[1][5] == bash_span, grades
    violations = run.rows("SELECT assertion, category, verdict FROM violations WHERE check_name = 'actions'")
    assert violations == [("commit", "no_matching_action", "flag")]


def assert_deny_rule_blocks_the_lookup(run: Run, tool_span: str | None, answer_tool: str | None = None) -> None:
    """The config's deny rule blocks the lookup wherever it shows: the LLM's request for it and, when the
    client traces its tools, the tool span; the bash call is decided and allowed. Both sightings carry the
    call's id, so the lookup is one blocked call: one violation, one decision in the policy queries. A client
    whose agent answers by calling a tool (`answer_tool`: smolagents' final_answer) has that call decided too."""
    rows = run.rows(
        "SELECT source, tool_name, decision, rule_id, span_id, tool_call_id FROM tool_policy_decisions "
        "ORDER BY source, tool_name"
    )
    lookups = [r for r in rows if r[1] == "get_reservation"]
    want = [("execute_tool", tool_span)] if tool_span is not None else []
    assert sorted((r[0], r[4]) for r in lookups if r[0] == "execute_tool") == want, rows
    assert [r[0] for r in lookups if r[0] == "llm_output"] == ["llm_output"], rows
    assert {r[2:4] for r in lookups} == {("block", DENY_RULE)}, rows
    assert {r[2] for r in rows if r[1] in ("bash", answer_tool)} == {"allow"}, rows
    # Every client's LLM output gives the call an id; a tool span without one takes its request's.
    assert len({r[5] for r in lookups}) == 1 and lookups[0][5], rows
    violations = run.rows(
        "SELECT subject, detector_id, verdict, count(*) FROM violations "
        "WHERE check_name = 'tool_policy' GROUP BY ALL"
    )
    assert violations == [("get_reservation", DENY_RULE, "block", 1)], violations
    answered = [(answer_tool, 1, 0)] if answer_tool else []
    assert policy_tools(run) == sorted([("bash", 1, 0), ("get_reservation", 1, 1), *answered])


def policy_tools(run: Run) -> list[tuple]:
    """(tool, decisions, blocks) from the `policy_tools` query over this run's rows."""
    query = load_queries()["policy_tools"]
    params = query.bind({"since": "2000-01-01T00:00:00"})
    return run.rows(f"SELECT tool_name, decisions, blocks FROM ({query.sql}) ORDER BY tool_name", params)


# --- 1. pydantic-ai: execute_tool spans (gen_ai.tool.call.arguments / .result) ---------------------


@e2e
@needs("pydantic_ai")
def test_pydantic_ai_answer_contradicting_its_tool_result_is_fabricated_citing_the_tool_span(desk):
    run = desk("pydantic-ai-desk")
    assert run.answer == CONTRADICTING
    assert_no_check_failed(run)
    assert_contradictions_fabricated(run)


@e2e
@needs("pydantic_ai")
def test_pydantic_ai_fabrication_cites_the_tool_span_not_its_echo_in_the_next_input(desk):
    assert_fabrication_cites_the_tool_span(desk("pydantic-ai-desk"), "get_reservation")


@e2e
@needs("pydantic_ai")
def test_pydantic_ai_answer_agreeing_with_its_tool_result_is_grounded(desk):
    run = desk("pydantic-ai-desk", CONSISTENT)
    assert_no_check_failed(run)
    assert_consistent_answer_grounded(run)


@e2e
@needs("pydantic_ai")
def test_pydantic_ai_action_claims_are_graded_against_its_tool_calls(desk):
    run = desk("pydantic-ai-desk")
    assert_actions_graded(run, run.tool_span("bash"))


@e2e
@needs("pydantic_ai")
def test_pydantic_ai_tool_call_is_blocked_by_a_deny_rule_on_its_arguments(desk):
    run = desk("pydantic-ai-desk")
    assert_deny_rule_blocks_the_lookup(run, run.tool_span("get_reservation"))


# --- 1b. pydantic-ai's older attribute format: `running tool` spans with tool_arguments / tool_response -----

OLD_FORMAT = ("--instrumentation-version", "2")


@e2e
@needs("pydantic_ai")
def test_pydantic_ai_old_format_tool_call_is_blocked_by_a_deny_rule_on_its_arguments(desk):
    run = desk("pydantic-ai-desk", extra=OLD_FORMAT)
    assert_no_check_failed(run)
    assert_deny_rule_blocks_the_lookup(run, run.tool_span("get_reservation"))


@e2e
@needs("pydantic_ai")
def test_pydantic_ai_old_format_action_claims_are_graded_against_its_tool_calls(desk):
    run = desk("pydantic-ai-desk", extra=OLD_FORMAT)
    assert_actions_graded(run, run.tool_span("bash"))


@e2e
@needs("pydantic_ai")
def test_pydantic_ai_old_format_answer_contradicting_its_tool_result_is_fabricated_citing_the_tool_span(desk):
    run = desk("pydantic-ai-desk", extra=OLD_FORMAT)
    assert_contradictions_fabricated(run)


@e2e
@needs("pydantic_ai")
def test_pydantic_ai_old_format_fabrication_cites_the_tool_span_not_its_echo_in_the_next_input(desk):
    assert_fabrication_cites_the_tool_span(desk("pydantic-ai-desk", extra=OLD_FORMAT), "get_reservation")


# --- 2. OpenAI Agents SDK under OpenInference: TOOL spans (tool.name, input.value, output.value) --------


@e2e
@needs("agents", "openinference.instrumentation.openai_agents")
def test_openai_agents_answer_contradicting_its_tool_result_is_fabricated_citing_the_tool_span(desk):
    run = desk("openai-agents-desk")
    assert run.answer == CONTRADICTING
    assert_no_check_failed(run)
    assert_contradictions_fabricated(run)


@e2e
@needs("agents", "openinference.instrumentation.openai_agents")
def test_openai_agents_fabrication_cites_the_tool_span_not_its_echo_in_the_next_input(desk):
    assert_fabrication_cites_the_tool_span(desk("openai-agents-desk"), "get_reservation")


@e2e
@needs("agents", "openinference.instrumentation.openai_agents")
def test_openai_agents_answer_agreeing_with_its_tool_result_is_grounded(desk):
    run = desk("openai-agents-desk", CONSISTENT)
    assert_no_check_failed(run)
    assert_consistent_answer_grounded(run)


@e2e
@needs("agents", "openinference.instrumentation.openai_agents")
def test_openai_agents_action_claims_are_graded_against_its_tool_spans(desk):
    run = desk("openai-agents-desk")
    assert_actions_graded(run, run.tool_span("bash"))


@e2e
@needs("agents", "openinference.instrumentation.openai_agents")
def test_openai_agents_tool_call_is_blocked_by_a_deny_rule_on_its_arguments(desk):
    run = desk("openai-agents-desk")
    assert_deny_rule_blocks_the_lookup(run, run.tool_span("get_reservation"))


# --- 3. OpenAI client under OpenInference, tools traced with `@tracer.tool` ---------------------------


@e2e
@needs("openinference.instrumentation.openai")
def test_openinference_openai_answer_contradicting_its_tool_result_is_fabricated_citing_the_tool_span(desk):
    run = desk("openinference-openai-desk")
    assert run.answer == CONTRADICTING
    assert_no_check_failed(run)
    assert_contradictions_fabricated(run)


@e2e
@needs("openinference.instrumentation.openai")
def test_openinference_openai_fabrication_cites_the_tool_span_not_its_echo_in_the_next_input(desk):
    assert_fabrication_cites_the_tool_span(desk("openinference-openai-desk"), "get_reservation")


@e2e
@needs("openinference.instrumentation.openai")
def test_openinference_openai_answer_agreeing_with_its_tool_result_is_grounded(desk):
    run = desk("openinference-openai-desk", CONSISTENT)
    assert_no_check_failed(run)
    assert_consistent_answer_grounded(run)


@e2e
@needs("openinference.instrumentation.openai")
def test_openinference_openai_action_claims_are_graded_against_its_tool_spans(desk):
    run = desk("openinference-openai-desk")
    assert_actions_graded(run, run.tool_span("bash"))


@e2e
@needs("openinference.instrumentation.openai")
def test_openinference_openai_tool_call_is_blocked_by_a_deny_rule_on_its_arguments(desk):
    run = desk("openinference-openai-desk")
    assert_deny_rule_blocks_the_lookup(run, run.tool_span("get_reservation"))


# --- 3b. The same without tool spans (only the OpenAI client instrumented, as most users run it) ----------

UNTRACED = ("--untraced-tools",)


@e2e
@needs("openinference.instrumentation.openai")
def test_openinference_openai_untraced_tools_answer_contradicting_its_tool_result_is_fabricated(desk):
    run = desk("openinference-openai-desk", extra=UNTRACED)
    assert not any(s.name in ("get_reservation", "bash") for s in run.spans)
    assert_no_check_failed(run)
    assert_contradictions_fabricated(run)


@e2e
@needs("openinference.instrumentation.openai")
def test_openinference_openai_untraced_tools_fabrication_names_the_tool_whose_result_it_contradicts(desk):
    assert_fabrication_names_the_tool(desk("openinference-openai-desk", extra=UNTRACED), "get_reservation")


@e2e
@needs("openinference.instrumentation.openai")
def test_openinference_openai_untraced_tools_action_claims_are_graded_against_the_calls_in_its_messages(desk):
    assert_actions_graded(desk("openinference-openai-desk", extra=UNTRACED), None)


@e2e
@needs("openinference.instrumentation.openai")
def test_openinference_openai_untraced_tools_requested_call_is_blocked_by_a_deny_rule(desk):
    assert_deny_rule_blocks_the_lookup(desk("openinference-openai-desk", extra=UNTRACED), None)


# --- 4. OpenAI client under OpenLLMetry: no tool spans, the calls and results are in the LLM spans ---------


@e2e
@needs("opentelemetry.instrumentation.openai")
def test_openllmetry_answer_contradicting_its_tool_result_is_fabricated_citing_the_tool_message(desk):
    run = desk("openllmetry-desk")
    assert run.answer == CONTRADICTING
    assert_no_check_failed(run)
    assert_contradictions_fabricated(run)


@e2e
@needs("opentelemetry.instrumentation.openai")
def test_openllmetry_answer_agreeing_with_its_tool_result_is_grounded(desk):
    run = desk("openllmetry-desk", CONSISTENT)
    assert_no_check_failed(run)
    assert_consistent_answer_grounded(run)


@e2e
@needs("opentelemetry.instrumentation.openai")
def test_openllmetry_action_claims_are_graded_against_the_tool_calls_in_its_messages(desk):
    assert_actions_graded(desk("openllmetry-desk"), None)


@e2e
@needs("opentelemetry.instrumentation.openai")
def test_openllmetry_requested_tool_call_is_blocked_by_a_deny_rule_on_its_arguments(desk):
    assert_deny_rule_blocks_the_lookup(desk("openllmetry-desk"), None)


@e2e
@needs("opentelemetry.instrumentation.openai")
def test_openllmetry_fabrication_names_the_tool_whose_result_it_contradicts(desk):
    assert_fabrication_names_the_tool(desk("openllmetry-desk"), "get_reservation")


# --- 4b. OpenLLMetry in events mode: the messages travel as GenAI event log records ----------------------

# The collector joins the user, assistant and tool message records of a call to its choice record
# (collector/engine.py `with_request_messages`): the evidence and the tool calls the answer is judged against.


@e2e
@needs("opentelemetry.instrumentation.openai")
def test_openllmetry_events_mode_requested_tool_call_is_blocked_by_a_deny_rule(desk):
    run = desk("openllmetry-desk-events")
    assert run.answer == CONTRADICTING
    assert_no_check_failed(run)
    assert_deny_rule_blocks_the_lookup(run, None)


@e2e
@needs("opentelemetry.instrumentation.openai")
def test_openllmetry_events_mode_answer_contradicting_its_tool_result_is_fabricated(desk):
    assert_contradictions_fabricated(desk("openllmetry-desk-events"))


@e2e
@needs("opentelemetry.instrumentation.openai")
def test_openllmetry_events_mode_action_claims_are_graded_against_the_tool_calls_sent_with_the_request(desk):
    assert_actions_graded(desk("openllmetry-desk-events"), None)


# --- 5. The in-process adapter: the same checks judge the spans in the agent's own process ---------------


@e2e
@needs("agents", "openinference.instrumentation.openai_agents")
def test_in_process_openai_agents_spans_get_the_same_grounding_actions_and_policy_rows(desk):
    # The OpenAI Agents SDK's spans reach ClaimwatchSpanProcessor as the SDK ends them (its agent span last).
    run = desk("openai-agents-desk", in_process=True)
    assert run.answer == CONTRADICTING
    assert_no_check_failed(run)
    assert_contradictions_fabricated(run)
    assert_actions_graded(run, run.tool_span("bash"))
    assert_deny_rule_blocks_the_lookup(run, run.tool_span("get_reservation"))
