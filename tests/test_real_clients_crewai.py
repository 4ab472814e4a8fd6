"""Interop with CrewAI, end to end and offline, under the two instrumentations its users run.

Each run (`tests/helpers/crewai_clients.py`) is a process of its own against the
fake OpenAI-compatible server, through CrewAI's native OpenAI provider: a crew of
two agents in a sequential process, a researcher with the tools and a writer who
answers from the research. It is traced by Arize's OpenInference CrewAI
instrumentation (with OpenInference's OpenAI instrumentation for the model calls),
or by Traceloop's OpenLLMetry CrewAI instrumentation (with OpenLLMetry's OpenAI
instrumentation). The spans go over real OTLP/HTTP (or first through
`ClaimwatchSpanProcessor`) to a running collector that stores rows in DuckDB and
forwards to a sink. The agents are known by their roles, as CrewAI users name them.

- ops: the writer, who may delegate, hands the question to the researcher with CrewAI's `Delegate work
  to coworker` tool; the researcher calls `check_docker` and reports that docker is not running; the
  writer answers that docker is not running and PostgreSQL is down. Both contradict a fact. The writer
  enforces: its answer is judged once and nothing of it may be forwarded, though CrewAI repeats it in the
  task's and the crew's outputs (task output objects with the whole conversation, Python reprs, the
  crew's result). The researcher's report is its own, not the writer's: no rule names the researcher, so
  it is audited, flagged, and travels as it was;
- desk: a sequential crew of two tasks: the researcher looks a reservation up and runs `pip install`, the
  writer answers from the research in a conversation of its own: grounding, actions and tool_policy must
  read what each instrumentation emits.
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
from tests.helpers.crewai_clients import AGENT, RESEARCHER
from tests.helpers.fake_llm import FakeLLM, Reply
from tests.helpers.real_clients import TOOL_RESULT
from tests.otlp_helpers import FACTS, Sink, wait_for
from tests.test_real_clients import ANSWER, everything, expected
from tests.test_real_clients_checks import (
    CHECKS,
    CONTRADICTING,
    INSTALL,
    LOOKUP,
    FileStore,
    assert_actions_graded,
    assert_contradictions_fabricated,
    assert_deny_rule_blocks_the_lookup,
)
from tests.test_real_clients_langchain import Run

e2e = pytest.mark.e2e
CLIENT_TIMEOUT_S = 120
ENFORCING = {"rules": [{"match": AGENT, "trust": 10, "mode": "enforce"}]}
AUDITING = {"rules": [{"match": AGENT, "trust": 50, "mode": "audit"}]}

_CREWAI = ("crewai",)
# client -> the modules it needs
CLIENTS = {
    "crewai-openinference": (*_CREWAI, "openinference.instrumentation.crewai", "openinference.instrumentation.openai"),
    "crewai-openllmetry": (*_CREWAI, "opentelemetry.instrumentation.crewai", "opentelemetry.instrumentation.openai"),
}
# The writer's call of CrewAI's delegation tool (its name as CrewAI gives it to the model).
DELEGATE = Reply.tool_call("delegate_work_to_coworker", task="Is docker running on the build host?",
                           context="The user asks about the build host.", coworker=RESEARCHER)  # fmt: skip
# The researcher's report: it contradicts the fact too, and is audited (no rule names the researcher).
REPORT = "Docker is not running on the build host."
# Pieces of the writer's answer only (the researcher's report shares "Docker is not running").
ANSWER_TELL_TALES = ("I checked the host", "PostgreSQL is down")
# The researcher's notes in the desk scenario: no claim of their own.
NOTES = "Here are my notes for the writer."
# Each run is a process that spends most of its time importing CrewAI (~15 s on two busy cores), so there
# are four: the ops and desk scenarios under each instrumentation, OpenLLMetry's ops run judged in process
# by ClaimwatchSpanProcessor (its rows read from the adapter's file, its spans from the collector's sink).
IN_PROCESS_CLIENTS = ("crewai-openllmetry",)


def each_client(names=tuple(CLIENTS)):
    """Parametrize over clients, skipping those whose packages are missing."""
    return pytest.mark.parametrize(
        "client",
        [
            pytest.param(
                c, marks=pytest.mark.skipif(not installed(*CLIENTS[c]), reason=f"needs {', '.join(CLIENTS[c])}")
            )
            for c in names
        ],
    )


def run(collector, sink: Sink, client: str, replies: list[Reply], in_process: dict | None = None) -> Run:
    """Run `client` in its own process; wait until all it sent is stored and forwarded."""
    llm = FakeLLM(replies)
    run_id = f"{client}-{id(llm)}"
    command = [sys.executable, "-m", "tests.helpers.crewai_clients", client, "--llm", llm.base_url,
               "--otlp", f"http://{collector.addresses.otlp_http}/v1/traces", "--service", "ops-app"]  # fmt: skip
    if in_process is not None:
        command += ["--claimwatch", json.dumps(in_process)]
    env = {
        **os.environ,
        "NO_PROXY": "127.0.0.1,localhost",
        "no_proxy": "127.0.0.1,localhost",
        "OPENAI_API_KEY": "test-key",
        "OTEL_BSP_SCHEDULE_DELAY": "60000",  # one export at shutdown: the whole run in one request
        "OTEL_RESOURCE_ATTRIBUTES": f"{RUN_TAG}={run_id}",
        # CrewAI's documented switches (set again by the client module): nothing is sent to CrewAI.
        "CREWAI_DISABLE_TELEMETRY": "true",
        "CREWAI_TRACING_ENABLED": "false",
    }
    env.pop("OTEL_SEMCONV_STABILITY_OPT_IN", None)
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


class Runs(ClientRuns):
    """This file's scenarios on the shared two collectors (the auditing one with grounding, actions and a
    tool deny rule)."""

    def __init__(self, tmp_path_factory) -> None:
        super().__init__(tmp_path_factory, ENFORCING, AUDITING, CHECKS)

    def _run(self, scenario: str, client: str, option) -> Run:
        if scenario == "desk":
            replies = [LOOKUP, INSTALL, Reply.text(NOTES), Reply.text(option)]
            return run(self.desk_collector, self.desk_sink, client + "-desk", replies)
        ops = [DELEGATE, Reply.tool_call("check_docker"), Reply.text(REPORT), Reply.text(ANSWER)]
        if client not in IN_PROCESS_CLIENTS:
            return run(self.ops_collector, self.ops_sink, client, ops)
        path = self.tmp.mktemp("in-process") / "audit.duckdb"
        config = {"validation": FACTS, "agents": ENFORCING, "storage": {"path": str(path)},
                  "annotations": {"verbosity": "debug"}}  # fmt: skip
        return run(self.ops_collector, self.ops_sink, client, ops, config)


@pytest.fixture(scope="module")
def runs(tmp_path_factory, request):
    runs_ = Runs(tmp_path_factory)
    runs_.start((i for i in request.session.items if i.module is request.module), RUN_OF_TEST, CLIENTS)
    try:
        yield runs_
    finally:
        runs_.close()


# --- ops: each agent's output is read once, for that agent; the writer's is kept from flowing on -------


@e2e
@each_client()
def test_answer_is_judged_once_for_the_writer_and_blocked_when_it_enforces(runs, client):
    r = runs.get("ops", client)
    assert r.answer == ANSWER
    want = expected()
    rows = output_rows(r)
    # One row per LLM call: the task, agent and crew spans that repeat an answer are not judged again.
    assert len(rows) == r.llm_calls == 4, rows
    assert_no_doubles_and_no_failures(r)
    answered = [x for x in rows if x[3] == "block"]
    assert len(answered) == 1, rows
    _, agent, mode, verdict, enforced, claims, violations, _ = answered[0]
    assert (agent, mode, verdict, enforced) == (AGENT, "enforce", "block", True), rows
    assert (claims, violations) == (len(want.claims), len(want.violations))


@e2e
@each_client()
def test_delegated_report_is_judged_for_the_researcher_and_audited(runs, client):
    r = runs.get("ops", client)
    rows = output_rows(r)
    # The writer's delegation call and answer are the writer's; the researcher's tool call and report are
    # the researcher's, though OpenInference traces them inside the writer's span.
    assert [x[1] for x in rows] == [AGENT, RESEARCHER, RESEARCHER, AGENT], rows
    reported = [x[1:5] for x in rows if x[1] == RESEARCHER and x[6]]
    assert reported == [(RESEARCHER, "audit", "flag", False)], rows
    assert any(REPORT in everything(s) for s in r.spans)


@e2e
@each_client()
def test_blocked_answer_leaves_no_copy_under_any_key(runs, client):
    r = runs.get("ops", client)
    assert leaks(r, ANSWER_TELL_TALES) == []
    # The tool's own result is not the agent's output: it travels untouched.
    assert any(TOOL_RESULT in everything(s) for s in r.spans)


# --- desk: grounding, actions and tool_policy ----------------------------------------------------------


def _tool_span(r: Run, tool: str) -> str | None:
    """OpenInference traces CrewAI's tool runs (TOOL spans); OpenLLMetry's CrewAI instrumentation does not."""
    return r.tool_span(tool) if r.client.startswith("crewai-openinference") else None


@e2e
@each_client()
def test_answer_contradicting_the_tool_result_is_fabricated_citing_it(runs, client):
    r = runs.get("desk", client, CONTRADICTING)
    assert r.answer == CONTRADICTING
    assert_no_doubles_and_no_failures(r)
    # The tool calls' arguments (in the LLM outputs, on the TOOL spans) are not judged as claims.
    assert len(output_rows(r)) == r.llm_calls == 4, output_rows(r)
    assert_contradictions_fabricated(r)
    cited = {c for (c,) in r.rows("SELECT evidence_tool FROM grounding_claims WHERE grade = 'FABRICATED'")}
    assert cited == {"get_reservation"}


@e2e
@each_client()
def test_action_claims_are_graded_against_the_tool_calls(runs, client):
    r = runs.get("desk", client, CONTRADICTING)
    assert_actions_graded(r, _tool_span(r, "bash"))


@e2e
@each_client()
def test_tool_call_is_blocked_by_a_deny_rule_on_its_arguments(runs, client):
    r = runs.get("desk", client, CONTRADICTING)
    assert_deny_rule_blocks_the_lookup(r, _tool_span(r, "get_reservation"))


# --- in-process: ClaimwatchSpanProcessor in the agent's own process ------------------------------------


@e2e
@each_client(IN_PROCESS_CLIENTS)
def test_in_process_processor_blocks_the_answer_for_the_writer_and_leaks_nothing(runs, client):
    r = runs.get("ops", client)
    assert r.answer == ANSWER
    assert r.rows(
        "SELECT agent_id, mode, verdict, enforced FROM evaluations WHERE check_name = 'output' AND verdict = 'block'"
    ) == [(AGENT, "enforce", "block", True)]
    assert_no_doubles_and_no_failures(r)
    assert r.processor_stats.get("enforced_blocks") == 1
    assert leaks(r, ANSWER_TELL_TALES) == []


# test -> the run it reads: (scenario, option)
RUN_OF_TEST = {
    test_answer_is_judged_once_for_the_writer_and_blocked_when_it_enforces.__name__: ("ops", None),
    test_delegated_report_is_judged_for_the_researcher_and_audited.__name__: ("ops", None),
    test_blocked_answer_leaves_no_copy_under_any_key.__name__: ("ops", None),
    test_answer_contradicting_the_tool_result_is_fabricated_citing_it.__name__: ("desk", CONTRADICTING),
    test_action_claims_are_graded_against_the_tool_calls.__name__: ("desk", CONTRADICTING),
    test_tool_call_is_blocked_by_a_deny_rule_on_its_arguments.__name__: ("desk", CONTRADICTING),
    test_in_process_processor_blocks_the_answer_for_the_writer_and_leaks_nothing.__name__: ("ops", None),
}


# --- What the instrumentations write, read span by span (attribute sets of the runs above) ---------------

from claimwatch.otel.extract import extract  # noqa: E402
from claimwatch.otel.records import SpanRecord  # noqa: E402

TRACE = "c" * 32
SYSTEM = f"You are {AGENT}. You write short, accurate answers for the user.\nYour personal goal is: Answer the user."
TASK = "Answer the user's question: Is docker running on the build host?"


def _span(span_id: str, name: str, attributes: dict, parent: SpanRecord | None = None, end: int = 0) -> SpanRecord:
    return SpanRecord(TRACE, span_id * 16, parent.span_id if parent else None, name, attributes, (),
                      end_ns=10**18 + end)  # fmt: skip


def _task_output(raw: str) -> dict:
    """CrewAI's TaskOutput as OpenInference writes it (model_dump_json): the answer and the whole conversation."""
    return {"description": TASK, "name": TASK, "expected_output": "A short answer.", "summary": TASK[:40] + "...",
            "raw": raw, "pydantic": None, "json_dict": None, "agent": AGENT, "output_format": "raw",
            "messages": [{"role": "system", "content": SYSTEM},
                         {"role": "user", "content": f"\nCurrent Task: {TASK}\n\nThis is the context you're working "
                                                     f"with:\n{REPORT}\n\nProvide your complete response:"},
                         {"role": "assistant", "content": raw}]}  # fmt: skip


def test_openinference_crewai_task_output_says_its_raw_answer_not_its_conversation():
    task = _span("1", f"{AGENT}._execute_core", {
        "openinference.span.kind": "AGENT", "graph.node.id": AGENT, "crew_id": "ee502f7f-cdb1-49a5-884d-f06434f109da",
        "output.value": json.dumps(_task_output(ANSWER)), "output.mime_type": "application/json"})  # fmt: skip
    assert extract(task).text == ANSWER
    # The crew's CrewOutput and an agent's LiteAgentOutput say their raw answer too.
    crew = {"raw": ANSWER, "pydantic": None, "json_dict": None, "tasks_output": [_task_output(ANSWER)],
            "token_usage": {"total_tokens": 108}}  # fmt: skip
    lite = {"raw": ANSWER, "pydantic": None, "agent_role": AGENT, "usage_metrics": {}, "messages": []}
    for value in (crew, lite):
        assert extract(_span("2", "Crew.kickoff", {"openinference.span.kind": "AGENT",
                                                   "output.value": json.dumps(value)})).text == ANSWER  # fmt: skip
    # Other JSON with a "raw" field is read as before: every string.
    other = extract(_span("3", "step", {"openinference.span.kind": "AGENT",
                                        "output.value": json.dumps({"raw": "a", "note": "b"})}))  # fmt: skip
    assert other.text == "a\n\nb"


def _pipeline(agents: dict | None = None):
    from claimwatch.checks.pipeline import Pipeline

    return Pipeline({"validation": FACTS, "agents": agents or ENFORCING, "storage": {"enabled": False}})


def test_openllmetry_crewai_task_span_names_its_agent_and_its_repeat_of_the_answer_is_not_judged_again():
    from claimwatch.checks.trace import HeldTrace

    crew = _span("1", "crewai.workflow", {"gen_ai.provider.name": "crewai", "gen_ai.operation.name": "invoke_agent",
                                          "crewai.crew.result": ANSWER})  # fmt: skip
    task = _span("2", f"{TASK}.task", {"traceloop.span.kind": "task", "gen_ai.provider.name": "crewai",
                                       "crewai.task.agent": AGENT, "crewai.task.description": TASK,
                                       "traceloop.entity.output": ANSWER}, crew, end=3)  # fmt: skip
    agent = _span("3", f"{AGENT}.agent", {"traceloop.span.kind": "agent", "gen_ai.agent.name": AGENT,
                                          "gen_ai.agent.id": "dd29b998-6098-40b0-9ac1-eedf05e91e84",
                                          "crewai.agent.role": AGENT}, task, end=2)  # fmt: skip
    answer = json.dumps(
        [{"role": "assistant", "parts": [{"content": ANSWER, "type": "text"}], "finish_reason": "stop"}]
    )
    chat = _span("4", "openai.chat", {"gen_ai.operation.name": "chat", "gen_ai.output.messages": answer,
                                      "gen_ai.response.id": "chatcmpl-3"}, agent, end=1)  # fmt: skip
    pipeline = _pipeline()
    trace = HeldTrace({s.span_id: s for s in (crew, task, agent, chat)}.get)
    assert pipeline.identify(task, trace.get).agent_id == AGENT
    seen: dict = {}
    first = pipeline.process(chat, trace, seen=seen)
    assert (first.identity.agent_id, first.verdict, first.enforced) == (AGENT, "block", True)
    repeat = pipeline.process(task, trace, seen=seen)
    assert repeat.duplicate_of == chat.span_id and repeat.identity.agent_id == AGENT


def test_openinference_crewai_coworker_run_inside_the_delegation_tool_span_is_the_coworkers():
    writer = _span("1", f"{AGENT}._execute_core", {"openinference.span.kind": "AGENT", "graph.node.id": AGENT})
    arguments = {"task": "Is docker running on the build host?", "context": "The user asks.", "coworker": RESEARCHER}
    delegation = _span("2", "Delegate work to coworker.run", {
        "openinference.span.kind": "TOOL", "tool.name": "Delegate work to coworker",
        "input.value": json.dumps(arguments), "input.mime_type": "application/json",
        "output.value": REPORT, "output.mime_type": "text/plain"}, writer)  # fmt: skip
    chat = _span("3", "ChatCompletion", {"openinference.span.kind": "LLM"}, delegation)
    tool = _span("4", "check_docker.run", {"openinference.span.kind": "TOOL", "tool.name": "check_docker"}, delegation)
    pipeline = _pipeline()
    spans = {s.span_id: s for s in (writer, delegation, chat, tool)}.get
    assert pipeline.identify(chat, spans).agent_id == RESEARCHER
    assert pipeline.identify(tool, spans).agent_id == RESEARCHER
    # The delegation call itself, and the writer's own calls beside it, are the writer's.
    assert pipeline.identify(delegation, spans).agent_id == AGENT
    assert (
        pipeline.identify(_span("5", "ChatCompletion", {"openinference.span.kind": "LLM"}, writer), spans).agent_id
        == AGENT
    )
    # An odd argument shape names nobody.
    for odd in ("not json", json.dumps(["x"]), json.dumps({"coworker": " "}), json.dumps({"coworker": 3})):
        bad = delegation._replace(attributes={**delegation.attributes, "input.value": odd})
        under = chat._replace(parent_span_id=bad.span_id)
        assert pipeline.identify(under, {s.span_id: s for s in (writer, bad, under)}.get).agent_id == AGENT


def _genai(*messages: dict) -> str:
    return json.dumps(list(messages))


_RESEARCH_PROMPT = [
    {"role": "system", "parts": [{"content": "You are Build Host Researcher.", "type": "text"}]},
    {"role": "user", "parts": [{"content": "\nCurrent Task: Research this question: What does reservation K7QX2 "
                                           "include? Also make sure requests is installed.", "type": "text"}]},
]  # fmt: skip
_LOOKED_UP = [
    {"role": "assistant", "parts": [{"type": "tool_call", "name": "get_reservation", "id": "call_1",
                                     "arguments": {"code": "K7QX2"}}]},
    {"role": "tool", "parts": [{"type": "tool_call_response", "id": "call_1",
                                "response": "Reservation K7QX2: 1 checked bag, total price $120, flight LH 404 on 2026-12-01."}]},
]  # fmt: skip
_INSTALLED = [
    {"role": "assistant", "parts": [{"type": "tool_call", "name": "bash", "id": "call_2",
                                     "arguments": {"command": "pip install requests"}}]},
    {"role": "tool", "parts": [{"type": "tool_call_response", "id": "call_2",
                                "response": "Successfully installed requests-2.32.3"}]},
]  # fmt: skip


def _openllmetry_desk_crew() -> tuple[list[SpanRecord], SpanRecord]:
    """The researcher's three calls (each sending its conversation again) and the writer's one, which starts a
    conversation of its own with the research as context: OpenLLMetry's spans, no tool spans."""
    calls = [
        _span("a", "openai.chat", {"gen_ai.input.messages": _genai(*_RESEARCH_PROMPT)}, end=1),
        _span("b", "openai.chat", {"gen_ai.input.messages": _genai(*_RESEARCH_PROMPT, *_LOOKED_UP)}, end=2),
        _span(
            "c", "openai.chat", {"gen_ai.input.messages": _genai(*_RESEARCH_PROMPT, *_LOOKED_UP, *_INSTALLED)}, end=3
        ),
    ]
    context = f"\nCurrent Task: {TASK}\n\nThis is the context you're working with:\n{NOTES}\n\nProvide your complete response:"
    writer = _span("d", "openai.chat", {
        "gen_ai.input.messages": _genai({"role": "system", "parts": [{"content": SYSTEM, "type": "text"}]},
                                        {"role": "user", "parts": [{"content": context, "type": "text"}]}),
        "gen_ai.output.messages": _genai({"role": "assistant", "parts": [{"content": CONTRADICTING, "type": "text"}]}),
    }, end=4)  # fmt: skip
    return calls, writer


def test_a_crews_next_agent_is_grounded_on_the_tool_results_in_the_agent_before_its_llm_inputs():
    from claimwatch.grounding.trace import evidence_for

    calls, writer = _openllmetry_desk_crew()
    passages, _ = evidence_for(writer, calls)
    results = [(p.text, p.tool_name, p.span_id) for p in passages if p.source == "tool_message"]
    # Each result once, though every later call of the researcher sends it again; the researcher's prompts
    # are not the writer's evidence.
    assert sorted({r[0] for r in results}) == ["Reservation K7QX2: 1 checked bag, total price $120, flight LH 404 "
                                               "on 2026-12-01.", "Successfully installed requests-2.32.3"]  # fmt: skip
    assert ("get_reservation" in {r[1] for r in results}) and all(r[2] in {"b" * 16, "c" * 16} for r in results)
    assert not [p for p in passages if p.source == "user_message" and "Research this question" in p.text]
    # A conversation that sends its history back is its own evidence: nothing is borrowed.
    own, _ = evidence_for(calls[2], calls[:2])
    assert [p.span_id for p in own if p.source == "tool_message"] == ["c" * 16, "c" * 16]


def _decoded(arguments):
    return json.loads(arguments) if isinstance(arguments, str) else arguments


def test_a_crews_next_agent_action_claims_see_the_calls_in_the_agent_before_its_llm_inputs():
    from claimwatch.verify.actions import actions_from_trace

    calls, writer = _openllmetry_desk_crew()
    actions = actions_from_trace(calls, writer)
    assert [(a.tool, _decoded(a.arguments), a.result) for a in actions] == [
        ("get_reservation", {"code": "K7QX2"}, "Reservation K7QX2: 1 checked bag, total price $120, flight LH 404 on 2026-12-01."),
        ("bash", {"command": "pip install requests"}, "Successfully installed requests-2.32.3"),
    ]  # fmt: skip
    # A conversation with calls of its own keeps to them.
    assert [a.tool for a in actions_from_trace(calls[:2], calls[2])] == ["get_reservation", "bash"]
    assert [a.tool for a in actions_from_trace(calls[:1], calls[1])] == ["get_reservation"]
