"""Interop with Google's Agent Development Kit (ADK), end to end and offline.

Each agent (`tests/helpers/adk_clients.py`) runs in a process of its own with
ADK's own Gemini model class (google-genai underneath) against the fake Gemini
REST server (`tests/helpers/fake_gemini.py`), traced three ways: ADK's native
OpenTelemetry spans in their current schema (`invoke_workflow`, `invoke_agent`,
`generate_content` with `gen_ai.output.messages`, `execute_tool` with
`gen_ai.tool.call.*`), ADK's legacy schema (`call_llm` with the exchange in
`gcp.vertex.agent.llm_request` / `llm_response`, tools in
`gcp.vertex.agent.tool_call_args` / `tool_response`), and Arize's
openinference-instrumentation-google-adk (AGENT `agent_run [<name>]`, CHAIN
`invocation [<app>]`, TOOL spans; with ADK 2.13 it writes no LLM span: the
answer is in the ADK Event JSON of the agent's `output.value`). The spans go
over real OTLP/HTTP (or first through `ClaimwatchSpanProcessor`) to a running
collector that stores rows in DuckDB and forwards to a sink.

- ops: the agent calls `check_docker`, then says docker is not running, which contradicts a fact;
  enforcing, nothing of the answer may be forwarded and its repeats are not judged again;
- desk: the agent looks a reservation up and runs `pip install`, then answers: grounding, actions and
  tool_policy must read what each schema emits;
- team: the agent transfers to a sub-agent (ADK's `transfer_to_agent`), which calls the tool and answers
  the user itself: that answer is judged for the sub-agent, which no rule names, so it is audited.

google-adk caps the OpenTelemetry SDK at 1.44, so the test extra pins the SDK 1.44.0 and runs these
tests with the rest. Where google-adk is missing they skip, except in CI (`CI` set, as `.ci/run` runs):
there a missing client fails its tests, so they cannot quietly stop running again. The unit tests at
the end run everywhere, on attributes copied from real runs.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT
from tests.helpers.client_rows import (
    RUN_TAG,
    ClientRuns,
    assert_no_doubles_and_no_failures,
    installed,
    leaks,
    output_rows,
    spans_of,
)
from tests.helpers.fake_gemini import FakeGemini
from tests.helpers.fake_llm import Reply
from tests.helpers.real_clients import RESERVATION, RESERVATION_CODE, TOOL_RESULT
from tests.otlp_helpers import FACTS, Sink, wait_for
from tests.test_real_clients import ANSWER, everything, expected
from tests.test_real_clients_checks import (
    CHECKS,
    CONSISTENT,
    CONTRADICTING,
    DENY_RULE,
    INSTALL,
    LOOKUP,
    FileStore,
    assert_actions_graded,
    assert_consistent_answer_grounded,
    assert_contradictions_fabricated,
    assert_deny_rule_blocks_the_lookup,
)
from tests.test_real_clients_langchain import Run

AGENT = "ops_helper"  # tests/helpers/adk_clients.py: ADK wants identifiers
SUB_AGENT = "docker_checker"
e2e = pytest.mark.e2e
CLIENT_TIMEOUT_S = 90
ENFORCING = {"rules": [{"match": AGENT, "trust": 10, "mode": "enforce"}]}
AUDITING = {"rules": [{"match": AGENT, "trust": 50, "mode": "audit"}]}

NATIVE = ("google.adk", "google.genai")
OPENINFERENCE = (*NATIVE, "openinference.instrumentation.google_adk")
# client -> the modules it needs
CLIENTS = {"adk": NATIVE, "adk-legacy": NATIVE, "adk-openinference": OPENINFERENCE}
# OpenInference's instrumentation of ADK 2.13 writes no LLM span: the agent's run span holds its answer.
NO_LLM_SPANS = frozenset({"adk-openinference"})
# Each run is a process that spends most of its time importing ADK: the output, redaction and tool checks
# run with every client, the rest with the ones whose spans differ there (any client runs each of them).
STREAM_CLIENTS = ("adk",)  # the legacy schema and OpenInference keep the whole answer when streamed
TEAM_CLIENTS = ("adk", "adk-openinference")


# In CI the test extra installs every client: one missing there is a broken install, not a reason to skip.
SKIP_MISSING = not os.environ.get("CI")


def each_client(names=tuple(CLIENTS)):
    """Parametrize over clients, skipping those whose packages are missing (outside CI)."""

    def missing(c: str) -> bool:
        return SKIP_MISSING and not installed(*CLIENTS[c])

    def why(c: str) -> str:
        return f"needs {', '.join(CLIENTS[c])} (pip install -e '.[test]')"

    return pytest.mark.parametrize(
        "client", [pytest.param(c, marks=pytest.mark.skipif(missing(c), reason=why(c))) for c in names]
    )


def run(collector, sink: Sink, client: str, replies: list[Reply], in_process: dict | None = None) -> Run:
    """Run `client` in its own process; wait until all it sent is stored and forwarded."""
    llm = FakeGemini(replies)
    run_id = f"{client}-{id(llm)}"
    command = [sys.executable, "-m", "tests.helpers.adk_clients", client, "--llm", llm.base_url,
               "--otlp", f"http://{collector.addresses.otlp_http}/v1/traces", "--service", "ops-app"]  # fmt: skip
    if in_process is not None:
        command += ["--claimwatch", json.dumps(in_process)]
    env = {
        **os.environ,
        "NO_PROXY": "127.0.0.1,localhost",
        "no_proxy": "127.0.0.1,localhost",
        "GOOGLE_API_KEY": "test-key",
        "OTEL_BSP_SCHEDULE_DELAY": "60000",  # one export at shutdown: the whole run in one request
        "OTEL_RESOURCE_ATTRIBUTES": f"{RUN_TAG}={run_id}",
    }
    for key in ("OTEL_SEMCONV_STABILITY_OPT_IN", "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT",
                "ADK_TELEMETRY_SCHEMA_VERSION_OPT_IN", "GOOGLE_GENAI_USE_VERTEXAI"):  # fmt: skip
        env.pop(key, None)
    try:
        done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=CLIENT_TIMEOUT_S)
        assert done.returncode == 0, done.stderr[-3000:]
        report = json.loads(done.stdout.strip().splitlines()[-1])
        wait_for(lambda: collector.engine.flush(10) and len(spans_of(sink, run_id)) >= report["spans"], timeout=30)
        collector.store.flush(10)
    finally:
        llm.close()
    store = FileStore(in_process["storage"]["path"]) if in_process else collector.store
    return Run(client, report["answer"], store, spans_of(sink, run_id), len(llm.requests), report["claimwatch"])


# The sub-agent's answer to the user in the team scenario: it contradicts the fact too.
SUB_REPORT = "Docker is not running on the build host."
TRANSFER = Reply.tool_call("transfer_to_agent", agent_name=SUB_AGENT)


class Runs(ClientRuns):
    """This file's scenarios on the shared two collectors (the auditing one with grounding, actions and a
    tool deny rule)."""

    def __init__(self, tmp_path_factory) -> None:
        super().__init__(tmp_path_factory, ENFORCING, AUDITING, CHECKS)

    def _run(self, scenario: str, client: str, option) -> Run:
        docker = [Reply.tool_call("check_docker"), Reply.text(ANSWER)]
        if scenario == "desk":
            return run(self.desk_collector, self.desk_sink, client + "-desk", [LOOKUP, INSTALL, Reply.text(option)])
        if scenario == "team":
            replies = [TRANSFER, Reply.tool_call("check_docker"), Reply.text(SUB_REPORT)]
            return run(self.ops_collector, self.ops_sink, client + "-team", replies)
        if option in ("stream", "events", "stream-events", "both-events"):
            name = client + "-" + option if option == "stream" else "adk-" + option
            return run(self.ops_collector, self.ops_sink, name, docker)
        if option != "in-process":
            return run(self.ops_collector, self.ops_sink, client, docker)
        path = self.tmp.mktemp("in-process") / "audit.duckdb"
        config = {"validation": FACTS, "agents": ENFORCING, "storage": {"path": str(path)},
                  "annotations": {"verbosity": "debug"}}  # fmt: skip
        return run(self.ops_collector, self.ops_sink, client, docker, config)


@pytest.fixture(scope="module")
def runs(tmp_path_factory, request):
    runs_ = Runs(tmp_path_factory)
    runs_.start((i for i in request.session.items if i.module is request.module), RUN_OF_TEST, CLIENTS)
    try:
        yield runs_
    finally:
        runs_.close()


def outputs_judged(r: Run) -> int:
    """One output evaluation per model answer: per LLM call, or per agent run where no LLM span is written."""
    return 1 if r.client.startswith(tuple(NO_LLM_SPANS)) else r.llm_calls


# --- ops: the answer is read, judged once, for the agent, and kept from flowing downstream when enforced --


@e2e
@each_client()
def test_answer_is_judged_once_for_the_agent_and_blocked_when_it_enforces(runs, client):
    r = runs.get("ops", client)
    assert r.answer == ANSWER
    want = expected()
    rows = output_rows(r)
    # One row per model answer: the spans that repeat the answer are not judged again.
    assert len(rows) == outputs_judged(r), rows
    assert_no_doubles_and_no_failures(r)
    answered = [x for x in rows if x[6]]
    assert len(answered) == 1, rows
    _, agent, mode, verdict, enforced, claims, violations, length = answered[0]
    assert (agent, mode, verdict, enforced) == (AGENT, "enforce", "block", True), rows
    assert (claims, violations) == (len(want.claims), len(want.violations))
    assert length == len(ANSWER), rows  # the answer's text, not the envelope around it
    assert r.rows("SELECT count(*) FROM violations WHERE check_name = 'output'") == [(len(want.violations),)]


@e2e
@each_client()
def test_blocked_answer_leaves_no_copy_under_any_key(runs, client):
    r = runs.get("ops", client)
    assert leaks(r) == []
    # The tool's own result is not the agent's output: it travels untouched.
    assert any(TOOL_RESULT in everything(s) for s in r.spans)


@e2e
@each_client(STREAM_CLIENTS)
def test_streamed_answer_is_judged_whole_once_and_no_piece_of_it_is_forwarded(runs, client):
    r = runs.get("ops", client, "stream")
    assert r.answer == ANSWER
    assert_no_doubles_and_no_failures(r)
    rows = output_rows(r)
    assert len(rows) == outputs_judged(r), rows
    [answered] = [x for x in rows if x[6]]
    assert (answered[1:5], answered[7]) == ((AGENT, "enforce", "block", True), len(ANSWER)), rows
    # The fake server sends the text in pieces of 12 characters; ADK writes each piece as a message.
    pieces = [ANSWER[i : i + 12] for i in range(0, len(ANSWER), 12)]
    assert [(s.name, p) for s in r.spans for p in pieces if p in everything(s)] == []


@e2e
@each_client(("adk",))
@pytest.mark.parametrize("option", ["stream-events", "both-events"])
def test_answer_on_log_records_only_is_judged_once_for_the_agent(runs, client, option):
    r = runs.get("ops", client, option)
    assert r.answer == ANSWER
    assert_no_doubles_and_no_failures(r)
    rows = output_rows(r)
    # One row per LLM call, from its operation.details log record (which carries the span's id); with
    # SPAN_AND_EVENT the span's copy is the same output, not judged again, and is not forwarded.
    assert [x[0] for x in rows] == ["gen_ai.client.inference.operation.details"] * r.llm_calls, rows
    [answered] = [x for x in rows if x[6]]
    assert (answered[1:5], answered[7]) == ((AGENT, "enforce", "block", True), len(ANSWER)), rows
    assert leaks(r) == []


# --- team: the sub-agent the root transfers to answers the user itself -----------------------------------


@e2e
@each_client(TEAM_CLIENTS)
def test_sub_agent_answer_is_judged_for_the_sub_agent_and_audited(runs, client):
    r = runs.get("team", client)
    assert r.answer == SUB_REPORT
    assert_no_doubles_and_no_failures(r)
    rows = output_rows(r)
    assert len(rows) == (1 if client in NO_LLM_SPANS else r.llm_calls), rows
    said = [x[1:5] for x in rows if x[6]]
    # No rule names the sub-agent: what it says contradicts the fact, is flagged, and travels as it was.
    assert said == [(SUB_AGENT, "audit", "flag", False)], rows
    assert any(SUB_REPORT in everything(s) for s in r.spans)
    # The root's transfer call is no claim of its own.
    assert all(x[5] == 0 for x in rows if x[1] == AGENT), rows


# --- desk: grounding, actions and tool_policy ----------------------------------------------------------


@e2e
@each_client()
def test_answer_contradicting_the_tool_result_is_fabricated_citing_it(runs, client):
    r = runs.get("desk", client, CONTRADICTING)
    assert r.answer == CONTRADICTING
    assert_no_doubles_and_no_failures(r)
    assert_contradictions_fabricated(r)
    cited = {c for (c,) in r.rows("SELECT evidence_tool FROM grounding_claims WHERE grade = 'FABRICATED'")}
    assert cited == {"get_reservation"}


@e2e
@each_client(("adk",))
def test_answer_agreeing_with_the_tool_result_is_grounded(runs, client):
    r = runs.get("desk", client, CONSISTENT)
    assert_no_doubles_and_no_failures(r)
    assert_consistent_answer_grounded(r)


@e2e
@each_client()
def test_action_claims_are_graded_against_the_tool_calls(runs, client):
    r = runs.get("desk", client, CONTRADICTING)
    assert_actions_graded(r, r.tool_span("bash"))


@e2e
@each_client()
def test_tool_call_is_blocked_by_a_deny_rule_on_its_arguments(runs, client):
    r = runs.get("desk", client, CONTRADICTING)
    if client not in NO_LLM_SPANS:
        assert_deny_rule_blocks_the_lookup(r, r.tool_span("get_reservation"))
        return
    # No LLM span names the calls: the tool spans are the only sightings, and the deny rule reads their input.
    rows = r.rows("SELECT source, tool_name, decision, rule_id, span_id FROM tool_policy_decisions ORDER BY tool_name")
    assert [x[:4] for x in rows] == [("execute_tool", "bash", "allow", None),
                                     ("execute_tool", "get_reservation", "block", DENY_RULE)], rows  # fmt: skip
    assert rows[1][4] == r.tool_span("get_reservation")
    violations = r.rows("SELECT subject, detector_id, verdict, count(*) FROM violations WHERE check_name = 'tool_policy' "
                        "GROUP BY ALL")  # fmt: skip
    assert violations == [("get_reservation", DENY_RULE, "block", 1)], violations


# --- in-process: ClaimwatchSpanProcessor in the agent's own process ------------------------------------


@e2e
@each_client(("adk",))
def test_in_process_processor_blocks_the_answer_for_the_agent_and_leaks_nothing(runs, client):
    r = runs.get("ops", client, "in-process")
    assert r.answer == ANSWER
    assert r.rows(
        "SELECT agent_id, mode, verdict, enforced FROM evaluations WHERE check_name = 'output' AND verdict <> 'pass'"
    ) == [(AGENT, "enforce", "block", True)]
    assert_no_doubles_and_no_failures(r)
    assert r.processor_stats.get("enforced_blocks") == 1
    assert leaks(r) == []


# test -> the run it reads: (scenario, option)
RUN_OF_TEST = {
    test_answer_is_judged_once_for_the_agent_and_blocked_when_it_enforces.__name__: ("ops", None),
    test_blocked_answer_leaves_no_copy_under_any_key.__name__: ("ops", None),
    test_streamed_answer_is_judged_whole_once_and_no_piece_of_it_is_forwarded.__name__: ("ops", "stream"),
    test_sub_agent_answer_is_judged_for_the_sub_agent_and_audited.__name__: ("team", None),
    test_answer_contradicting_the_tool_result_is_fabricated_citing_it.__name__: ("desk", CONTRADICTING),
    test_answer_agreeing_with_the_tool_result_is_grounded.__name__: ("desk", CONSISTENT),
    test_action_claims_are_graded_against_the_tool_calls.__name__: ("desk", CONTRADICTING),
    test_tool_call_is_blocked_by_a_deny_rule_on_its_arguments.__name__: ("desk", CONTRADICTING),
    test_in_process_processor_blocks_the_answer_for_the_agent_and_leaks_nothing.__name__: ("ops", "in-process"),
}


# --- What ADK writes, read span by span (attributes copied from the runs above) -------------------------

from claimwatch.otel.extract import extract  # noqa: E402
from claimwatch.otel.records import SpanRecord  # noqa: E402


def _span(name: str, attributes: dict, parent: SpanRecord | None = None) -> SpanRecord:
    return SpanRecord("t", name, parent.span_id if parent else None, name, attributes, ())


@functools.cache
def _pipeline():
    from claimwatch.checks.pipeline import Pipeline

    return Pipeline({"validation": FACTS})


_EVENT = "gcp.vertex.agent.event_id"
# ADK's legacy call_llm span (ADK_TELEMETRY_SCHEMA_VERSION_OPT_IN=1), as google-adk 2.13.0 wrote it.
_CALL_LLM = {"gen_ai.system": "gcp.vertex.agent", "gen_ai.request.model": "gemini-2.5-flash",
             "gcp.vertex.agent.invocation_id": "e-47e9e183", "gcp.vertex.agent.session_id": "9ed10374", _EVENT: "784a84b4",
             "gcp.vertex.agent.llm_request": '{"model": "gemini-2.5-flash", "contents": [{"parts": [{"text": '
                                             '"Is docker running on the build host?"}], "role": "user"}]}'}  # fmt: skip


def _llm_response(*parts: dict) -> str:
    return json.dumps({"model_version": "gemini-2.5-flash", "content": {"parts": list(parts), "role": "model"},
                       "finish_reason": "STOP", "usage_metadata": {"total_token_count": 18}}, separators=(",", ":"))  # fmt: skip


def test_legacy_call_llm_response_is_the_answer_and_its_calls_are_named_as_adk_names_them():
    answer = extract(_span("call_llm", {**_CALL_LLM, "gcp.vertex.agent.llm_response": _llm_response({"text": ANSWER})}))
    assert (answer.text, answer.source, answer.tool_calls) == (ANSWER, "gcp.vertex.agent.llm_response", ())
    # The model gave the call no id: named `<name>_<part index>`, as ADK's GenAI output names it.
    asked = extract(_span("call_llm", {**_CALL_LLM, "gcp.vertex.agent.llm_response": _llm_response(
        {"function_call": {"args": {"code": RESERVATION_CODE}, "name": "get_reservation"}})}))  # fmt: skip
    assert asked.text == "" and [(c.name, json.loads(c.arguments), c.id) for c in asked.tool_calls] == [
        ("get_reservation", {"code": RESERVATION_CODE}, "get_reservation_0")]  # fmt: skip
    # Content capture off ("{}"), a tool span's placeholder, odd shapes: nothing read, nothing raised.
    for value in ("{}", '{"content": null}', '{"content": {"parts": [null, 3, {"text": 7}]}}', "[]", "not json"):
        assert extract(_span("call_llm", {**_CALL_LLM, "gcp.vertex.agent.llm_response": value})) is None, value
    # Cut by the attribute length limit: read as far as it goes, marked truncated.
    cut = extract(_span("call_llm", {**_CALL_LLM, "gcp.vertex.agent.llm_response": _llm_response({"text": ANSWER})[:80]}))
    assert cut.truncated and ANSWER.startswith(cut.text) and cut.text


def _oi_agent_run(event: dict) -> SpanRecord:
    return _span("agent_run [ops_helper]", {"agent.name": AGENT, "session.id": "e053b3e0", "user.id": "u-1",
                                            "output.value": json.dumps(event), "output.mime_type": "application/json",
                                            "openinference.span.kind": "AGENT"})  # fmt: skip


def test_openinference_agent_run_event_is_read_as_its_model_content():
    event = {"model_version": "gemini-2.5-flash", "content": {"parts": [{"text": ANSWER}], "role": "model"},
             "finish_reason": "STOP", "invocation_id": "e-16078fe5", "author": AGENT,
             "actions": {"state_delta": {}, "artifact_delta": {}}, "node_info": {"path": ""},
             "id": "1acc57b9-a1a1-4f00-bd94-4bc7e01a1d65", "timestamp": 1795873106.88}  # fmt: skip
    assert extract(_oi_agent_run(event)).text == ANSWER
    # A run that ends on a tool call, or on the user's words, says nothing of its own.
    call = {**event, "content": {"parts": [{"function_call": {"name": "check_docker", "args": {}}}], "role": "model"}}
    user = {**event, "content": {"parts": [{"text": "Is docker running?"}], "role": "user"}}
    assert extract(_oi_agent_run(call)) is None and extract(_oi_agent_run(user)) is None
    assert extract(_oi_agent_run({**event, "content": None})) is None


# An execute_tool span of the legacy schema, and OpenInference's TOOL attributes on ADK's own span.
_LEGACY_TOOL = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_reservation",
                "gen_ai.tool.type": "FunctionTool", "gen_ai.agent.name": AGENT, "gcp.vertex.agent.llm_request": "{}",
                "gcp.vertex.agent.llm_response": "{}", "gcp.vertex.agent.tool_call_args": '{"code": "K7QX2"}',
                "gen_ai.tool.call.id": "adk-cc51432b-9ea2-4320-af80-bdf9343176af", _EVENT: "3dafb4a7",
                "gcp.vertex.agent.tool_response": json.dumps({"result": RESERVATION})}  # fmt: skip
_OI_TOOL = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_reservation",
            "gen_ai.tool.type": "FunctionTool", "gen_ai.agent.name": AGENT, _EVENT: "90de7d28",
            "gen_ai.tool.call.id": "adk-1bb6a037-6130-421b-b836-779a70140887", "tool.name": "get_reservation",
            "tool.parameters": '{"code": "K7QX2"}', "input.value": '{"code": "K7QX2"}', "tool.id": "adk-1bb6a037",
            "output.value": json.dumps({"id": "adk-1bb6a037", "name": "get_reservation", "response": {"result": RESERVATION}}),
            "output.mime_type": "application/json", "openinference.span.kind": "TOOL"}  # fmt: skip


@pytest.mark.parametrize("attrs", [_LEGACY_TOOL, _OI_TOOL], ids=["legacy", "openinference"])
def test_adk_tool_span_gives_the_call_its_arguments_and_result(attrs):
    from claimwatch.grounding.trace import span_passages
    from claimwatch.verify.actions import tool_call_of_span

    span = _span("execute_tool get_reservation", attrs)
    name, arguments, result, _, call_id = tool_call_of_span(span)
    assert (name, json.loads(arguments), result) == ("get_reservation", {"code": RESERVATION_CODE}, RESERVATION)
    assert call_id == attrs["gen_ai.tool.call.id"]
    [passage] = span_passages(span)
    assert (passage.tool_name, passage.text, passage.source) == ("get_reservation", RESERVATION, "tool_result")
    # No content captured: ADK's "{}" placeholders are no arguments and no evidence.
    bare = {k: ("{}" if k.startswith("gcp.vertex.agent.tool") else v) for k, v in _LEGACY_TOOL.items()}
    assert tool_call_of_span(_span("execute_tool get_reservation", bare))[1:3] == (None, None)
    assert span_passages(_span("execute_tool get_reservation", bare)) == []
    # The extract reads no output from a tool span's "{}" llm_response.
    assert extract(span) is None


def _policy_rows(*spans: SpanRecord) -> list[tuple]:
    from claimwatch.checks.pipeline import Pipeline
    from claimwatch.checks.trace import HeldTrace

    pipeline = Pipeline({"validation": FACTS, "checks": CHECKS, "storage": {"enabled": False}})
    held = HeldTrace({s.span_id: s for s in spans}.get, spans)
    rows = []
    for span in sorted(spans, key=lambda s: s.end_ns):
        outcome = pipeline.process(span, held)
        result = outcome.result("tool_policy") if outcome is not None else None
        rows += [(r["source"], r["decision"], r["tool_call_id"]) for r in (result.rows if result else {}).get(
            "tool_policy_decisions", ())]  # fmt: skip
    return rows


def test_adk_own_call_id_and_the_requests_name_are_one_call_in_either_order():
    trace = "b" * 32
    agent = SpanRecord(trace, "1" * 16, None, f"invoke_agent {AGENT}", {"gen_ai.operation.name": "invoke_agent",
                       "gen_ai.agent.name": AGENT}, start_ns=10, end_ns=100)  # fmt: skip
    parts = [{"role": "assistant", "parts": [{"id": "get_reservation_0", "name": "get_reservation",
                                              "arguments": {"code": RESERVATION_CODE}, "type": "tool_call"}]}]  # fmt: skip
    current = SpanRecord(trace, "2" * 16, agent.span_id, "generate_content gemini-2.5-flash",
                         {"gen_ai.operation.name": "generate_content", "gen_ai.agent.name": AGENT, _EVENT: "f4ffb353",
                          "gen_ai.output.messages": json.dumps(parts)}, start_ns=20, end_ns=30)  # fmt: skip
    tool = {k: v for k, v in _LEGACY_TOOL.items() if not k.startswith("gcp.vertex.agent.tool")}
    tool |= {"gen_ai.tool.call.arguments": '{"code": "K7QX2"}', "gen_ai.tool.call.result": json.dumps({"result": RESERVATION})}
    executed = SpanRecord(trace, "3" * 16, agent.span_id, "execute_tool get_reservation", tool, start_ns=40, end_ns=50)
    # The current schema: the request's span ends first; the execution takes the request's id.
    assert _policy_rows(agent, current, executed) == [("llm_output", "block", "get_reservation_0"),
                                                      ("execute_tool", "block", "get_reservation_0")]  # fmt: skip
    # The legacy schema: call_llm ends after the tool it asked for ran; the request takes the execution's id.
    legacy = SpanRecord(trace, "4" * 16, agent.span_id, "call_llm", {**_CALL_LLM, "gcp.vertex.agent.llm_response":
                        _llm_response({"function_call": {"args": {"code": RESERVATION_CODE}, "name": "get_reservation"}})},
                        start_ns=20, end_ns=60)  # fmt: skip
    ran = SpanRecord(trace, "5" * 16, agent.span_id, "execute_tool get_reservation", _LEGACY_TOOL, start_ns=40, end_ns=50)
    adk_id = _LEGACY_TOOL["gen_ai.tool.call.id"]
    assert _policy_rows(agent, legacy, ran) == [("execute_tool", "block", adk_id), ("llm_output", "block", adk_id)]


# ADK's generate_content span of a streamed turn (RunConfig(streaming_mode=SSE)): a message per piece sent.
_STREAMED = ('[{"role":"assistant","parts":[{"content":"I checked th","type":"text"}],"finish_reason":""},'
             '{"role":"assistant","parts":[{"content":"e host. Dock","type":"text"}],"finish_reason":""},'
             '{"role":"assistant","parts":[{"content":"er is not ru","type":"text"}],"finish_reason":""},'
             '{"role":"assistant","parts":[{"content":"nning and Po","type":"text"}],"finish_reason":""},'
             '{"role":"assistant","parts":[{"content":"stgreSQL is ","type":"text"}],"finish_reason":""},'
             '{"role":"assistant","parts":[{"content":"down.","type":"text"}],"finish_reason":"stop"}]')


def test_streamed_turn_written_in_pieces_is_read_and_redacted_as_one_message():
    from claimwatch.checks.redact import redacted_value

    span = _span("generate_content gemini-2.5-flash", {"gen_ai.operation.name": "generate_content",
                                                       "gen_ai.agent.name": AGENT, "gen_ai.output.messages": _STREAMED})  # fmt: skip
    assert extract(span).text == ANSWER
    redacted = json.loads(redacted_value(_STREAMED, [ANSWER], "[blocked]"))
    assert redacted == [{"role": "assistant", "parts": [{"content": "[blocked]", "type": "text"}], "finish_reason": "stop"}]
    # Choices, or messages that name no finish reason, are not pieces: read apart as before.
    choices = json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": "Docker is up."}], "finish_reason": "stop"},
                          {"role": "assistant", "parts": [{"type": "text", "content": "Docker is down."}]}])  # fmt: skip
    assert extract(_span("chat", {"gen_ai.output.messages": choices})).text == "Docker is up.\n\nDocker is down."
    # A streamed turn that calls a tool after its text keeps the call.
    called = [*json.loads(_STREAMED)[:2], {"role": "assistant", "finish_reason": "stop", "parts": [
        {"type": "tool_call", "id": "c1", "name": "check_docker", "arguments": {}}]}]  # fmt: skip
    out = extract(_span("chat", {"gen_ai.output.messages": json.dumps(called)}))
    assert out.text == "I checked the host. Dock" and [c.name for c in out.tool_calls] == ["check_docker"]
