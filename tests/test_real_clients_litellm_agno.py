"""Interop with LiteLLM and Agno, end to end and offline.

Each agent (`tests/helpers/litellm_agno_clients.py`) runs in a process of its own
against the fake OpenAI-compatible server: a `litellm.completion` tool loop
traced by Arize's OpenInference and by LiteLLM's own OpenTelemetry callback
(set up by its OTEL_* environment variables, with its own tracer provider, and
under an agent span of the process's own provider, where it writes its calls
onto that span and in its raw request spans only),
an Agno `Agent` and an Agno `Team` traced by Arize's OpenInference. The spans
go over real OTLP/HTTP (or first through `ClaimwatchSpanProcessor`) to a
running collector that stores rows in DuckDB and forwards to a sink.

- ops: the agent calls `check_docker`, then says docker is not running, which contradicts a fact.
  Agno's run span repeats the answer; LiteLLM's callback repeats it, as a Python repr, in its
  `raw_gen_ai_request` span. Enforcing, nothing of it may be forwarded and the repeats are not judged again;
- desk: the agent looks a reservation up and runs `pip install`, then answers: grounding, actions and
  tool_policy must read what each client emits (LiteLLM's loop runs its tools untraced, as users' loops do);
- team: the Agno team's leader delegates to a member, whose report is judged for the member, not the leader.
"""

from __future__ import annotations

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
from tests.helpers.fake_llm import FakeLLM, Reply
from tests.helpers.litellm_agno_clients import AGENT, SUB_AGENT
from tests.helpers.real_clients import TOOL_RESULT
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

e2e = pytest.mark.e2e
CLIENT_TIMEOUT_S = 90
ENFORCING = {"rules": [{"match": AGENT, "trust": 10, "mode": "enforce"}]}
AUDITING = {"rules": [{"match": AGENT, "trust": 50, "mode": "audit"}]}

LITELLM_OI = ("litellm", "openinference.instrumentation.litellm")
LITELLM_OTEL = ("litellm",)
AGNO = ("agno", "openinference.instrumentation.agno")
# client -> the modules it needs
CLIENTS = {"litellm-oi": LITELLM_OI, "litellm-otel": LITELLM_OTEL, "litellm-otel-agent": LITELLM_OTEL, "agno": AGNO}
TEAMS = {"agno-team": AGNO}
# The clients whose tools run traced (a TOOL span per call); LiteLLM's loops call them untraced.
TRACED_TOOLS = {"agno"}


def each_client(names=tuple(CLIENTS), table=CLIENTS):
    """Parametrize over clients, skipping those whose packages are missing."""
    return pytest.mark.parametrize(
        "client",
        [
            pytest.param(
                c, marks=pytest.mark.skipif(not installed(*table[c]), reason=f"needs {', '.join(table[c])}")
            )
            for c in names
        ],
    )


def run(collector, sink: Sink, client: str, replies: list[Reply], in_process: dict | None = None) -> Run:
    """Run `client` in its own process; wait until all it sent is stored and forwarded."""
    llm = FakeLLM(replies)
    run_id = f"{client}-{id(llm)}"
    command = [sys.executable, "-m", "tests.helpers.litellm_agno_clients", client, "--llm", llm.base_url,
               "--otlp", f"http://{collector.addresses.otlp_http}/v1/traces", "--service", AGENT]  # fmt: skip
    if in_process is not None:
        command += ["--claimwatch", json.dumps(in_process)]
    env = {
        **os.environ,
        "NO_PROXY": "127.0.0.1,localhost",
        "no_proxy": "127.0.0.1,localhost",
        "OPENAI_API_KEY": "test-key",
        "OTEL_BSP_SCHEDULE_DELAY": "60000",  # one export at shutdown: the whole run in one request
        "OTEL_RESOURCE_ATTRIBUTES": f"{RUN_TAG}={run_id}",
        # Offline: LiteLLM reads its bundled model price list instead of fetching it (3 tries, ~10 s);
        # Agno sends no usage telemetry.
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "AGNO_TELEMETRY": "false",
    }
    for key in ("OTEL_SEMCONV_STABILITY_OPT_IN", "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"):
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


# The team member's report: it contradicts the fact too.
SUB_REPORT = "Docker is not running on the build host."
DELEGATE = Reply.tool_call("delegate_task_to_member", member_id=SUB_AGENT, task="Is docker running on the build host?")


class Runs(ClientRuns):
    """This file's scenarios on the shared two collectors (the auditing one with grounding, actions and a
    tool deny rule)."""

    def __init__(self, tmp_path_factory) -> None:
        super().__init__(tmp_path_factory, ENFORCING, AUDITING, CHECKS)

    def _run(self, scenario: str, client: str, option) -> Run:
        docker = [Reply.tool_call("check_docker"), Reply.text(ANSWER)]
        if scenario == "desk":
            replies = [LOOKUP, INSTALL, Reply.text(option)]
            return run(self.desk_collector, self.desk_sink, client + "-desk", replies)
        if scenario == "team":
            replies = [DELEGATE, Reply.tool_call("check_docker"), Reply.text(SUB_REPORT), Reply.text(ANSWER)]
            return run(self.ops_collector, self.ops_sink, client, replies)
        if option != "in-process":
            return run(self.ops_collector, self.ops_sink, client, docker)
        path = self.tmp.mktemp("in-process") / "audit.duckdb"
        config = {"validation": FACTS, "agents": ENFORCING, "storage": {"path": str(path)},
                  "annotations": {"verbosity": "debug"}}  # fmt: skip
        return run(self.ops_collector, self.ops_sink, client, docker, config)


@pytest.fixture(scope="module")
def runs(tmp_path_factory, request):
    runs_ = Runs(tmp_path_factory)
    runs_.start((i for i in request.session.items if i.module is request.module), RUN_OF_TEST, {**CLIENTS, **TEAMS})
    try:
        yield runs_
    finally:
        runs_.close()


# --- ops: the answer is read, judged once, for the agent, and kept from flowing downstream when enforced --


@e2e
@each_client()
def test_answer_is_judged_once_for_the_agent_and_blocked_when_it_enforces(runs, client):
    r = runs.get("ops", client)
    assert r.answer == ANSWER
    want = expected()
    rows = output_rows(r)
    # One row per LLM call: the run span and the raw request span that repeat the answer are not judged again.
    assert len(rows) == r.llm_calls == 2, rows
    assert_no_doubles_and_no_failures(r)
    answered = [x for x in rows if x[6]]
    assert len(answered) == 1, rows
    _, agent, mode, verdict, enforced, claims, violations, _ = answered[0]
    assert (agent, mode, verdict, enforced) == (AGENT, "enforce", "block", True), rows
    assert (claims, violations) == (len(want.claims), len(want.violations))
    assert r.rows("SELECT count(*) FROM violations WHERE check_name = 'output'") == [(len(want.violations),)]


@e2e
@each_client()
def test_blocked_answer_leaves_no_copy_under_any_key(runs, client):
    r = runs.get("ops", client)
    assert leaks(r) == []
    # The tool's own result is not the agent's output: it travels untouched.
    assert any(TOOL_RESULT in everything(s) for s in r.spans)


# --- team: each agent's output is its own -------------------------------------------------------------


@e2e
@each_client(tuple(TEAMS), TEAMS)
def test_member_output_is_judged_for_the_member(runs, client):
    r = runs.get("team", client)
    assert r.answer == ANSWER
    assert_no_doubles_and_no_failures(r)
    rows = output_rows(r)
    assert len(rows) == r.llm_calls == 4, rows
    assert {x[1] for x in rows} == {AGENT, SUB_AGENT}, rows
    blocked = [x for x in rows if x[3] == "block"]
    assert [(x[1], x[4]) for x in blocked] == [(AGENT, True)], rows
    # The member is audited (no rule names it): what it said contradicts the fact too, is flagged, and
    # travels as it was; the blocked answer's own piece leaves no copy.
    audited = [x[1:5] for x in rows if x[1] == SUB_AGENT and x[6]]
    assert audited == [(SUB_AGENT, "audit", "flag", False)], rows
    assert any(SUB_REPORT in everything(s) for s in r.spans)
    assert [s.name for s in r.spans if "PostgreSQL is down" in everything(s)] == []


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
@each_client(("litellm-oi", "litellm-otel-agent"))  # their tool results are read from the LLM's input messages
def test_answer_agreeing_with_the_tool_result_is_grounded(runs, client):
    r = runs.get("desk", client, CONSISTENT)
    assert_no_doubles_and_no_failures(r)
    assert_consistent_answer_grounded(r)


@e2e
@each_client()
def test_action_claims_are_graded_against_the_tool_calls(runs, client):
    r = runs.get("desk", client, CONTRADICTING)
    assert_actions_graded(r, r.tool_span("bash") if client in TRACED_TOOLS else None)


@e2e
@each_client()
def test_tool_call_is_blocked_by_a_deny_rule_on_its_arguments(runs, client):
    r = runs.get("desk", client, CONTRADICTING)
    if client != "litellm-otel":
        assert_deny_rule_blocks_the_lookup(r, r.tool_span("get_reservation") if client in TRACED_TOOLS else None)
        return
    # LiteLLM's callback writes the model's calls without their ids (`gen_ai.completion.{i}.function_call.*`),
    # and the loop runs the tools untraced: each call is decided once, from the LLM's output, with no id.
    rows = r.rows("SELECT source, tool_name, decision, rule_id, tool_call_id FROM tool_policy_decisions ORDER BY ALL")
    assert rows == [("llm_output", "bash", "allow", None, None),
                    ("llm_output", "get_reservation", "block", DENY_RULE, None)], rows  # fmt: skip
    violations = r.rows("SELECT subject, detector_id, verdict FROM violations WHERE check_name = 'tool_policy'")
    assert violations == [("get_reservation", DENY_RULE, "block")], violations


# --- in-process: ClaimwatchSpanProcessor in the agent's own process ------------------------------------


@e2e
@each_client(("litellm-oi", "litellm-otel-agent", "agno"))  # LiteLLM's own callback in process: the user's provider
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
    test_member_output_is_judged_for_the_member.__name__: ("team", None),
    test_answer_contradicting_the_tool_result_is_fabricated_citing_it.__name__: ("desk", CONTRADICTING),
    test_answer_agreeing_with_the_tool_result_is_grounded.__name__: ("desk", CONSISTENT),
    test_action_claims_are_graded_against_the_tool_calls.__name__: ("desk", CONTRADICTING),
    test_tool_call_is_blocked_by_a_deny_rule_on_its_arguments.__name__: ("desk", CONTRADICTING),
    test_in_process_processor_blocks_the_answer_for_the_agent_and_leaks_nothing.__name__: ("ops", "in-process"),
}


# --- What the clients write, read span by span (attribute sets as the runs above emitted them) ----------

from claimwatch.otel.extract import extract  # noqa: E402
from claimwatch.otel.records import SpanRecord  # noqa: E402
from tests.helpers.real_clients import RESERVATION  # noqa: E402


def _span(name: str, attributes: dict) -> SpanRecord:
    return SpanRecord("t", name, None, name, attributes, ())


def _litellm_request(output: list, calls: dict[str, str] | None = None, messages: list | None = None) -> SpanRecord:
    """A `litellm_request` span of LiteLLM's own callback: GenAI messages, its tool calls beside them."""
    attrs = {"gen_ai.system": "openai", "gen_ai.operation.name": "chat", "llm.request.type": "completion",
             "gen_ai.output.messages": json.dumps(output), "gen_ai.input.messages": json.dumps(messages or [])}  # fmt: skip
    for i, (name, arguments) in enumerate((calls or {}).items()):
        attrs |= {f"gen_ai.completion.{i}.function_call.arguments": arguments,
                  f"gen_ai.completion.{i}.function_call.name": name}  # fmt: skip
    return _span("litellm_request", attrs)


def test_litellm_callback_tool_calls_are_read_beside_its_output_messages():
    asked = _litellm_request([{"role": "assistant", "parts": [], "finish_reason": "tool_calls"}],
                             {"get_reservation": '{"code": "K7QX2"}'})  # fmt: skip
    out = extract(asked)
    assert out.text == "" and [(t.name, t.arguments) for t in out.tool_calls] == [("get_reservation", '{"code": "K7QX2"}')]
    # Streamed, the call's message has one empty text part; the calls are read all the same.
    streamed = _litellm_request([{"role": "assistant", "parts": [{"type": "text", "content": ""}]}], {"bash": "{}"})
    assert [t.name for t in extract(streamed).tool_calls] == ["bash"]
    said = [{"role": "assistant", "parts": [{"type": "text", "content": ANSWER}], "finish_reason": "stop"}]
    answered = extract(_litellm_request(said))
    assert (answered.text, answered.tool_calls) == (ANSWER, ())
    # Written onto an open agent span, the answering call leaves the call before it behind: not read.
    stale = _litellm_request(said, {"bash": '{"command": "pip install requests"}'})
    stale = stale._replace(attributes={**stale.attributes, "gen_ai.response.finish_reasons": '["stop"]'})
    assert (extract(stale).text, extract(stale).tool_calls) == (ANSWER, ())


def _raw_request(choices: str, messages: list) -> SpanRecord:
    """A `raw_gen_ai_request` span of LiteLLM's callback: the provider's payloads, each field a Python repr."""
    return _span("raw_gen_ai_request", {"llm.openai.messages": str(messages), "llm.openai.extra_body": "{}",
                                        "llm.openai.id": "chatcmpl-2", "llm.openai.choices": choices,
                                        "llm.openai.object": "chat.completion", "llm.openai.created": 1700000002})  # fmt: skip


def test_litellm_raw_response_is_read_as_the_call_s_output_and_its_request_as_its_input():
    """Under an open span LiteLLM writes no span of its own per call: its raw request span is the one record."""
    from claimwatch.collector.prefilter import plain_wire
    from claimwatch.grounding.trace import input_passages
    from claimwatch.verify.actions import input_conversation

    call = {"id": "call_1", "function": {"arguments": '{"code": "K7QX2"}', "name": "get_reservation"}, "type": "function"}
    asked = _raw_request(str([{"finish_reason": "tool_calls", "index": 0, "logprobs": None,
                               "message": {"content": None, "role": "assistant", "tool_calls": [call]}}]), [])  # fmt: skip
    assert [(t.name, t.id) for t in extract(asked).tool_calls] == [("get_reservation", "call_1")]
    messages = [{"role": "user", "content": "What does reservation K7QX2 include?"},
                {"role": "assistant", "tool_calls": [call]},
                {"role": "tool", "tool_call_id": "call_1", "content": RESERVATION}]  # fmt: skip
    said = str([{"finish_reason": "stop", "index": 0, "logprobs": None,
                 "message": {"content": CONTRADICTING, "role": "assistant"}}])  # fmt: skip
    answered = _raw_request(said, messages)
    assert (extract(answered).text, extract(answered).tool_calls) == (CONTRADICTING, ())
    assert input_conversation(answered) == messages
    passages, _ = input_passages(answered)
    assert [(p.source, p.tool_name) for p in passages if p.text == RESERVATION] == [("tool_message", "get_reservation")]
    # Cut by the attribute length limit, the answer is read as far as it goes, and marked truncated.
    cut = extract(_raw_request(said[: said.index("2 checked")], []))
    assert cut.truncated and cut.text and CONTRADICTING.startswith(cut.text)
    # The collector's prefilter lets the span through to the checks.
    [received] = _received(answered)
    assert plain_wire(received.proto) is None


def _received(span: SpanRecord) -> list:
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    from claimwatch.collector.otlp import KeyValueOf, iter_spans

    request = ExportTraceServiceRequest()
    proto = request.resource_spans.add().scope_spans.add().spans.add(trace_id=b"t" * 16, span_id=b"s" * 8, name=span.name)
    for key, value in span.attributes.items():
        proto.attributes.append(KeyValueOf(key, value))
    return list(iter_spans(request))


# LiteLLM's callback: GenAI parts for the text, OpenAI's tool_calls and tool_call_id beside them.
LITELLM_DESK_INPUT = [
    {"role": "user", "parts": [{"type": "text", "content": "What does reservation K7QX2 include?"}]},
    {"role": "assistant", "parts": [{"type": "text", "content": ""}],
     "tool_calls": [{"function": {"arguments": '{"code": "K7QX2"}', "name": "get_reservation"}, "id": "call_1",
                     "type": "function"}]},
    {"role": "tool", "parts": [{"type": "text", "content": RESERVATION}], "tool_call_id": "call_1"},
]  # fmt: skip


def test_litellm_callback_messages_give_the_calls_and_name_the_tool_of_each_result():
    from claimwatch.grounding.trace import input_passages
    from claimwatch.verify.actions import messages_tool_calls

    assert messages_tool_calls(json.dumps(LITELLM_DESK_INPUT)) == [
        ("get_reservation", '{"code": "K7QX2"}', RESERVATION, None, "call_1")
    ]
    passages, query = input_passages(_litellm_request([], messages=LITELLM_DESK_INPUT))
    assert [(p.source, p.tool_name) for p in passages if p.text == RESERVATION] == [("tool_message", "get_reservation")]
    assert query == "What does reservation K7QX2 include?"
    # A message that carries its calls in parts is read from them alone (no call counted twice).
    both = {"role": "assistant", "parts": [{"type": "tool_call", "id": "call_1", "name": "get_reservation",
                                            "arguments": {"code": "K7QX2"}}], "tool_calls": LITELLM_DESK_INPUT[1]["tool_calls"]}  # fmt: skip
    assert [c[0] for c in messages_tool_calls([both])] == ["get_reservation"]


def test_openinference_litellm_tool_messages_without_a_call_id_are_named_by_position():
    from claimwatch.grounding.trace import input_passages

    prefix = "llm.input_messages"
    attrs = {"openinference.span.kind": "LLM", f"{prefix}.0.message.role": "user",
             f"{prefix}.0.message.content": "What does reservation K7QX2 include? Also install requests.",
             f"{prefix}.1.message.role": "assistant",
             f"{prefix}.1.message.tool_calls.0.tool_call.id": "call_1",
             f"{prefix}.1.message.tool_calls.0.tool_call.function.name": "get_reservation",
             f"{prefix}.1.message.tool_calls.1.tool_call.id": "call_2",
             f"{prefix}.1.message.tool_calls.1.tool_call.function.name": "bash",
             f"{prefix}.2.message.role": "tool", f"{prefix}.2.message.content": RESERVATION,
             f"{prefix}.3.message.role": "tool", f"{prefix}.3.message.content": "Successfully installed requests",
             f"{prefix}.4.message.role": "user", f"{prefix}.4.message.content": "Thanks.",
             f"{prefix}.5.message.role": "tool", f"{prefix}.5.message.content": "a result of no call"}  # fmt: skip
    passages, _ = input_passages(_span("completion", attrs))
    named = [(p.text[:20], p.tool_name) for p in passages if p.source == "tool_message"]
    assert named == [(RESERVATION[:20], "get_reservation"), ("Successfully install", "bash"),
                     ("a result of no call", None)]  # fmt: skip


def _agno_team_answering_directly():
    """An Agno team whose member answers the user directly (`respond_directly=True`), as OpenInference
    traced it: the team's run span hands on the member's words as its own output."""
    team = SpanRecord("a" * 32, "1" * 16, None, f"{AGENT}.run", {"openinference.span.kind": "AGENT", "agent.name": AGENT,
                      "graph.node.name": AGENT, "output.value": SUB_REPORT}, end_ns=4 * 10**18)  # fmt: skip
    delegate = SpanRecord("a" * 32, "2" * 16, team.span_id, "delegate_task_to_member",
                          {"openinference.span.kind": "TOOL", "tool.name": "delegate_task_to_member",
                           "output.value": SUB_REPORT}, end_ns=3 * 10**18)  # fmt: skip
    member = SpanRecord("a" * 32, "3" * 16, delegate.span_id, f"{SUB_AGENT}.run",
                        {"openinference.span.kind": "AGENT", "agent.name": SUB_AGENT, "output.value": SUB_REPORT},
                        end_ns=2 * 10**18)  # fmt: skip
    llm = SpanRecord("a" * 32, "4" * 16, member.span_id, "OpenAIChat.invoke",
                     {"openinference.span.kind": "LLM", "llm.output_messages.0.message.role": "assistant",
                      "llm.output_messages.0.message.content": SUB_REPORT}, end_ns=10**18)  # fmt: skip
    return llm, member, delegate, team


def test_a_team_handing_on_its_member_s_answer_relays_it_and_is_not_judged_again():
    from claimwatch.checks.pipeline import Pipeline
    from claimwatch.checks.trace import HeldTrace

    spans = _agno_team_answering_directly()
    trace = HeldTrace({s.span_id: s for s in spans}.get)

    def outcomes(rules: list) -> list:
        pipeline = Pipeline({"validation": FACTS, "agents": {"rules": rules}, "storage": {"enabled": False}})
        seen: dict = {}
        return [pipeline.process(s, trace, seen=seen) for s in spans]

    llm, member, _, team = outcomes([{"match": "*", "trust": 10, "mode": "enforce"}])
    assert (llm.identity.agent_id, llm.verdict, llm.enforced, llm.duplicate_of) == (SUB_AGENT, "block", True, None)
    assert member.duplicate_of == llm.span.span_id and team.duplicate_of == llm.span.span_id
    # A team judged otherwise than its member (here it enforces, the member is audited) judges what it
    # hands on by its own rules: its block is not the member's flag.
    llm, _, _, team = outcomes([{"match": AGENT, "trust": 10, "mode": "enforce"}])
    assert (llm.mode, llm.verdict, llm.duplicate_of) == ("audit", "flag", None)
    assert (team.identity.agent_id, team.mode, team.verdict, team.enforced, team.duplicate_of) == (
        AGENT, "enforce", "block", True, None)  # fmt: skip
