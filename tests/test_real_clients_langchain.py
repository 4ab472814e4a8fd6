"""Interop with LangChain / LangGraph and Strands agents, end to end and offline.

Each agent (`tests/helpers/langchain_clients.py`) runs in a process of its own
against the fake OpenAI-compatible server: a LangGraph ReAct agent traced by
Arize's OpenInference and by Traceloop's OpenLLMetry LangChain
instrumentations, and a Strands agent with its own GenAI spans (its default
conventions, and the latest ones). The spans go over real OTLP/HTTP (or first
through `ClaimwatchSpanProcessor`) to a running collector that stores rows in
DuckDB and forwards to a sink.

Two scenarios, as in `tests/test_real_clients.py` and `tests/test_real_clients_checks.py`:
- ops: the agent calls `check_docker`, then says docker is not running, which contradicts a
  fact; enforcing, nothing of the answer may be forwarded (LangChain repeats it in the
  `output.value` / `traceloop.entity.output` JSON of its chain spans, Strands on its agent
  and cycle spans), and the repeats must not be judged again; auditing, it is forwarded;
- desk: the agent looks a reservation up and runs `pip install`, then answers: grounding,
  actions and tool_policy must read what each client emits.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass, field

import pytest

from claimwatch import OutputValidator, load_config
from claimwatch.checks.redact import redacted_attributes
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
from tests.helpers.real_clients import AGENT, TOOL_RESULT
from tests.otlp_helpers import FACTS, Sink, wait_for
from tests.test_real_clients import ANSWER, ENFORCING, everything, expected
from tests.test_real_clients_checks import (
    AUDITING,
    CHECKS,
    CONSISTENT,
    CONTRADICTING,
    INSTALL,
    LOOKUP,
    FileStore,
    assert_actions_graded,
    assert_consistent_answer_grounded,
    assert_contradictions_fabricated,
    assert_deny_rule_blocks_the_lookup,
)
from tests.test_real_clients_checks import Run as ChecksRun

e2e = pytest.mark.e2e
CLIENT_TIMEOUT_S = 90

# client -> the modules it needs
CLIENTS = {
    "langgraph-openinference": ("langgraph", "langchain_openai", "openinference.instrumentation.langchain"),
    "langgraph-openllmetry": ("langgraph", "langchain_openai", "opentelemetry.instrumentation.langchain"),
    "strands": ("strands", "openai"),
    "strands-latest": ("strands", "openai"),
}


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


@dataclass
class Run(ChecksRun):
    """A run as the checks' tests read it (rows scoped to its traces, its tool spans), plus what this
    file also asserts: how many calls reached the model and the in-process adapter's counters."""

    llm_calls: int = 0
    processor_stats: dict = field(default_factory=dict)


def run(collector, sink: Sink, client: str, replies: list[Reply], in_process: dict | None = None,
        service: str = "ops-app") -> Run:
    """Run `client` in its own process; wait until all it sent is stored and forwarded."""
    llm = FakeLLM(replies)
    run_id = f"{client}-{id(llm)}"
    desk = len(replies) == 3
    command = [
        sys.executable,
        "-m",
        "tests.helpers.langchain_clients",
        client + ("-desk" if desk else ""),
        "--llm",
        llm.base_url,
        "--otlp",
        f"http://{collector.addresses.otlp_http}/v1/traces",
        "--service",
        service,
    ]
    if in_process is not None:
        command += ["--claimwatch", json.dumps(in_process)]
    env = {
        **os.environ,
        "NO_PROXY": "127.0.0.1,localhost",
        "no_proxy": "127.0.0.1,localhost",
        "OPENAI_API_KEY": "test-key",
        "OTEL_BSP_SCHEDULE_DELAY": "60000",  # one export at shutdown: the whole trace in one request
        "OTEL_RESOURCE_ATTRIBUTES": f"{RUN_TAG}={run_id}",
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


# Which clients each scenario runs with (each run is a process that spends most of its time importing
# its client): the output, redaction and tool checks with every client; the rest with a few.
IN_PROCESS_CLIENTS = ("langgraph-openinference", "strands")
AUDIT_CLIENTS = ("strands",)
CONSISTENT_CLIENTS = ("langgraph-openinference",)
NARRATED_CLIENTS = ("langgraph-openinference",)
# The model says what it found on two lines and calls the tool in the same turn; then it closes.
NARRATION = "Docker is not running.\nPostgreSQL is down."
CLOSING = "Is there anything else I can check?"


class Runs(ClientRuns):
    """This file's scenarios on the shared two collectors (the auditing one with grounding, actions and a
    tool deny rule)."""

    def __init__(self, tmp_path_factory) -> None:
        super().__init__(tmp_path_factory, ENFORCING, AUDITING, CHECKS)

    def _run(self, scenario: str, client: str, option) -> Run:
        docker = [Reply.tool_call("check_docker"), Reply.text(ANSWER)]
        if scenario == "desk":
            return run(self.desk_collector, self.desk_sink, client, [LOOKUP, INSTALL, Reply.text(option)])
        if scenario == "audit":
            return run(self.desk_collector, self.desk_sink, client, docker)
        if scenario == "narrated":
            narrated = [Reply(content=NARRATION, tool="check_docker"), Reply.text(CLOSING)]
            return run(self.ops_collector, self.ops_sink, client, narrated)
        if option != "in-process":
            return run(self.ops_collector, self.ops_sink, client, docker)
        path = self.tmp.mktemp("in-process") / "audit.duckdb"
        config = {"validation": FACTS, "agents": ENFORCING, "storage": {"path": str(path)},
                  "annotations": {"verbosity": "debug"}}  # fmt: skip
        # OpenInference's LangChain instrumentation sets every attribute when a run ends: in process, an
        # LLM span is judged while its graph's span is still open and names no agent, so the agent is
        # known by the process's service.name only (the collector, which sees the whole trace, needs no help).
        service = AGENT if client == "langgraph-openinference" else "ops-app"
        return run(self.ops_collector, self.ops_sink, client, docker, config, service)




@pytest.fixture(scope="module")
def runs(tmp_path_factory, request):
    runs_ = Runs(tmp_path_factory)
    runs_.start((i for i in request.session.items if i.module is request.module), RUN_OF_TEST, CLIENTS)
    try:
        yield runs_
    finally:
        runs_.close()



# --- ops: the answer is read, judged once, and kept from flowing downstream when enforced -------------


@e2e
@each_client()
def test_answer_is_judged_once_for_the_agent_and_blocked_when_it_enforces(runs, client):
    r = runs.get("ops", client)
    assert r.answer == ANSWER
    want = expected()
    rows = output_rows(r)
    # Only spans that carry what a model said are judged: one row per LLM call, none for chain spans
    # or agent spans that repeat it.
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


@e2e
@each_client(AUDIT_CLIENTS)
def test_auditing_agent_answer_is_judged_and_forwarded_as_it_was(runs, client):
    r = runs.get("audit", client)
    want = OutputValidator(load_config({"validation": FACTS})).validate(ANSWER, trust=AUDITING["rules"][0]["trust"])
    assert want.violations and want.verdict != "pass"
    rows = [x for x in output_rows(r) if x[6]]
    assert [x[1:5] + x[6:7] for x in rows] == [(AGENT, "audit", want.verdict, False, len(want.violations))], rows
    assert_no_doubles_and_no_failures(r)
    assert any(ANSWER in everything(s) for s in r.spans)


@e2e
@each_client(NARRATED_CLIENTS)
def test_blocked_narration_before_a_tool_call_leaves_no_copy_in_the_graphs_routing_values(runs, client):
    # LangGraph routes the turn to its tool node with Send(node='tools', arg={... AIMessage(content='...')}):
    # the chain spans carry the narration in a Python repr, its newline escaped.
    r = runs.get("narrated", client)
    assert r.rows("SELECT verdict, enforced FROM evaluations WHERE check_name = 'output' AND verdict <> 'pass'") == [
        ("block", True)
    ]
    assert_no_doubles_and_no_failures(r)
    assert leaks(r) == []
    assert any(CLOSING in everything(s) for s in r.spans)


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
@each_client(CONSISTENT_CLIENTS)
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
    assert_deny_rule_blocks_the_lookup(r, r.tool_span("get_reservation"))


# --- in-process: ClaimwatchSpanProcessor in the agent's own process ------------------------------------


@e2e
@each_client(IN_PROCESS_CLIENTS)
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
    test_blocked_narration_before_a_tool_call_leaves_no_copy_in_the_graphs_routing_values.__name__: ("narrated", None),
    test_auditing_agent_answer_is_judged_and_forwarded_as_it_was.__name__: ("audit", None),
    test_answer_contradicting_the_tool_result_is_fabricated_citing_it.__name__: ("desk", CONTRADICTING),
    test_answer_agreeing_with_the_tool_result_is_grounded.__name__: ("desk", CONSISTENT),
    test_action_claims_are_graded_against_the_tool_calls.__name__: ("desk", CONTRADICTING),
    test_tool_call_is_blocked_by_a_deny_rule_on_its_arguments.__name__: ("desk", CONTRADICTING),
    test_in_process_processor_blocks_the_answer_for_the_agent_and_leaks_nothing.__name__: ("ops", "in-process"),
}


# --- What the clients write, read span by span ----------------------------------------------------------

from claimwatch.otel.extract import extract  # noqa: E402
from claimwatch.otel.records import EventRecord, SpanRecord  # noqa: E402


def _lc(cls: str, content, **kwargs) -> dict:
    """A message as LangChain serializes it for OpenLLMetry (the constructor form)."""
    return {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", cls],
            "kwargs": {"content": content, "type": cls[:-7].lower(), **kwargs}}  # fmt: skip


def _dumpd(kind: str, content, **data) -> dict:
    """A message as OpenInference writes it in output.value (the dumpd form)."""
    return {"type": kind, "data": {"content": content, "type": kind, "name": None, **data}}


def _span(name: str, attributes: dict, events=()) -> SpanRecord:
    return SpanRecord("t", name, None, name, attributes, tuple(events))


def test_openllmetry_langgraph_task_spans_say_only_their_last_ai_message():
    call = {"name": "check_docker", "args": {}, "id": "call_1", "type": "tool_call"}
    history = [_lc("HumanMessage", "Is docker running?"), _lc("AIMessage", "", tool_calls=[call]),
               _lc("ToolMessage", TOOL_RESULT, tool_call_id="call_1"), _lc("AIMessage", ANSWER,
               response_metadata={"model_name": "gpt-test", "finish_reason": "stop"})]  # fmt: skip
    kwargs = {"tags": ["graph:step:3"]}

    def task(outputs, kind="task") -> SpanRecord:
        value = json.dumps({"outputs": outputs, "kwargs": kwargs})
        return _span("execute_task x", {"traceloop.span.kind": kind, "traceloop.entity.output": value})

    # The graph's state and a node's update end on the answer: that is what they say, nothing around it.
    assert extract(task({"messages": history}, "workflow")).text == ANSWER
    assert extract(task({"messages": history[-1:]})).text == ANSWER
    assert extract(task(history[-1])).text == ANSWER
    # A prompt, a tool call, a tool's result and a routing decision are not the model speaking.
    assert extract(task(history[:1])) is None
    assert extract(task({"messages": history[1:2]})) is None
    assert extract(task({"messages": history[2:3]})) is None
    assert extract(task("__end__")) is None
    # A plain Traceloop task's return value is still read.
    plain = _span("t", {"traceloop.span.kind": "task", "traceloop.entity.output": json.dumps({"summary": ANSWER})})
    assert extract(plain).text == ANSWER


def test_openinference_langgraph_agent_node_says_only_its_last_ai_message():
    # OpenInference calls LangGraph's "agent" node an AGENT span; its output.value is the node's state update.
    value = json.dumps({"messages": [_dumpd("ai", ANSWER, response_metadata={"model_name": "gpt-test"},
                                             id="lc_run--1", tool_calls=[])]})  # fmt: skip
    node = _span("agent", {"openinference.span.kind": "AGENT", "output.value": value})
    assert extract(node).text == ANSWER
    tool_turn = json.dumps({"messages": [_dumpd("ai", "", tool_calls=[{"name": "check_docker"}])]})
    assert extract(_span("agent", {"openinference.span.kind": "AGENT", "output.value": tool_turn})) is None


def _identify(*chain: SpanRecord):
    """Identity of the first span of `chain`, each span the parent of the one before."""
    from claimwatch.checks.pipeline import Pipeline

    linked = [s._replace(parent_span_id=chain[i + 1].span_id if i + 1 < len(chain) else None)
              for i, s in enumerate(chain)]  # fmt: skip
    by_id = {s.span_id: s for s in linked}
    return Pipeline({"validation": FACTS}).identify(linked[0], by_id.get)


def test_openinference_langgraph_model_node_is_no_agent_and_the_graph_run_names_it():
    def meta(node=None) -> str:
        return json.dumps({"ls_integration": "langgraph", **({"langgraph_node": node} if node else {})})

    llm = _span("ChatOpenAI", {"openinference.span.kind": "LLM", "metadata": meta("agent")})
    sequence = _span("RunnableSequence", {"openinference.span.kind": "CHAIN", "metadata": meta("agent")})
    node = _span("agent", {"openinference.span.kind": "AGENT", "metadata": meta("agent")})
    graph = _span(AGENT, {"openinference.span.kind": "CHAIN", "metadata": meta()})
    assert _identify(llm, sequence, node, graph).agent_id == AGENT
    # A sub-agent run as a node of a supervisor graph keeps its own name; an unnamed graph names nothing.
    sub = _span("researcher_agent", {"openinference.span.kind": "AGENT", "metadata": meta("researcher_agent")})
    assert _identify(llm, sub, graph).agent_id == "researcher_agent"
    unnamed = _span("LangGraph", {"openinference.span.kind": "CHAIN", "metadata": meta()})
    assert _identify(llm, node, unnamed).agent_id == "unknown"
    # Outside LangGraph an AGENT span still names its agent.
    assert _identify(llm, _span("planner", {"openinference.span.kind": "AGENT"})).agent_id == "planner"


def test_openllmetry_langgraph_run_id_in_gen_ai_agent_id_is_not_the_agent():
    llm = _span("ChatOpenAI.chat", {"gen_ai.operation.name": "chat"})
    workflow = _span(f"{AGENT}.workflow", {"traceloop.span.kind": "workflow", "traceloop.entity.name": AGENT,
                                            "gen_ai.agent.name": AGENT,
                                            "gen_ai.agent.id": "01a22101-614c-70ce-9c6e-29a2ef42accc"})  # fmt: skip
    assert _identify(llm, workflow).agent_id == AGENT
    assert _identify(_span("s", {"gen_ai.agent.id": "agent-7", "gen_ai.agent.name": AGENT})).agent_id == "agent-7"


def test_strands_output_in_span_events_is_read_in_both_conventions_and_a_tool_result_is_not():
    chat = _span("chat", {"gen_ai.operation.name": "chat"}, [
        EventRecord("gen_ai.user.message", {"content": '[{"text": "Is docker running?"}]'}),
        EventRecord("gen_ai.choice", {"finish_reason": "end_turn", "message": json.dumps([{"text": ANSWER}])}),
    ])  # fmt: skip
    assert (extract(chat).text, extract(chat).source) == (ANSWER, "gen_ai.choice")
    asks = json.dumps([{"toolUse": {"toolUseId": "c1", "name": "get_reservation", "input": {"code": "K7QX2"}}}])
    call = extract(_span("chat", {"gen_ai.operation.name": "chat"}, [EventRecord("gen_ai.choice", {"message": asks})]))
    assert call.text == "" and [(t.name, json.loads(t.arguments)) for t in call.tool_calls] == [
        ("get_reservation", {"code": "K7QX2"})
    ]
    # The agent span repeats the answer as plain text.
    agent = _span("invoke_agent", {"gen_ai.operation.name": "invoke_agent"},
                  [EventRecord("gen_ai.choice", {"message": ANSWER + "\n"})])  # fmt: skip
    assert extract(agent).text == ANSWER + "\n"
    latest = json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": ANSWER}]}])
    details = EventRecord("gen_ai.client.inference.operation.details", {"gen_ai.output.messages": latest})
    assert extract(_span("chat", {"gen_ai.operation.name": "chat"}, [details])).text == ANSWER
    # A choice event holding an OpenAI-shaped message (other emitters of the same event name).
    shaped = EventRecord("gen_ai.choice", {"message": json.dumps({"role": "assistant", "content": ANSWER})})
    assert extract(_span("chat", {}, [shaped])).text == ANSWER
    # A tool span's choice event is the tool's result, not the model's output.
    tool = _span("execute_tool", {"gen_ai.operation.name": "execute_tool"},
                 [EventRecord("gen_ai.choice", {"message": json.dumps([{"text": TOOL_RESULT}])})])  # fmt: skip
    assert extract(tool) is None


def test_openllmetry_langgraph_call_model_step_beside_the_llm_span_is_a_repeat_not_a_new_output():
    from claimwatch.checks.pipeline import Pipeline
    from claimwatch.checks.trace import HeldTrace

    node = _span("execute_task agent", {"traceloop.span.kind": "task", "traceloop.entity.name": "agent"})
    sequence = _span("execute_task RunnableSequence", {"traceloop.span.kind": "task"})._replace(parent_span_id=node.span_id)
    messages = json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": ANSWER}]}])
    llm = _span("ChatOpenAI.chat", {"gen_ai.output.messages": messages})._replace(parent_span_id=sequence.span_id)
    step = json.dumps({"outputs": {"messages": [_lc("AIMessage", ANSWER)]}, "kwargs": {"tags": ["seq:step:2"]}})
    call_model = _span("execute_task call_model", {"traceloop.span.kind": "task", "traceloop.entity.output": step})
    call_model = call_model._replace(parent_span_id=node.span_id)
    spans = {s.span_id: s for s in (node, sequence, llm, call_model)}
    pipeline, seen = Pipeline({"validation": FACTS}), {}
    first = pipeline.process(llm, HeldTrace(spans.get), seen=seen)
    again = pipeline.process(call_model, HeldTrace(spans.get), seen=seen)
    assert first.duplicate_of is None and first.result("output").detail.violations
    assert again.duplicate_of == llm.span_id


def test_langchain_and_strands_tool_spans_give_the_tools_own_arguments_and_result():
    from claimwatch.grounding.trace import span_passages
    from claimwatch.verify.actions import tool_call_of_span

    result = "Reservation K7QX2: 1 checked bag, total price $120."
    openinference = _span("get_reservation", {
        "openinference.span.kind": "TOOL", "tool.name": "get_reservation", "input.value": "K7QX2",
        "output.value": json.dumps(_dumpd("tool", result, tool_call_id="call_1", status="success"))})  # fmt: skip
    kwargs = {"tags": ["seq:step:1"], "color": "green", "tool_call_id": "call_1"}
    envelope = json.dumps({"input_str": "{'code': 'K7QX2'}", "metadata": {"langgraph_step": 2},
                           "inputs": {"code": "K7QX2"}, "kwargs": kwargs})  # fmt: skip
    output = json.dumps({"output": _lc("ToolMessage", result, tool_call_id="call_1"), "kwargs": kwargs})
    openllmetry = _span("execute_tool get_reservation", {
        "traceloop.span.kind": "tool", "traceloop.entity.name": "get_reservation", "gen_ai.operation.name":
        "execute_tool", "gen_ai.tool.name": "get_reservation", "traceloop.entity.input": envelope,
        "gen_ai.tool.call.arguments": envelope, "traceloop.entity.output": output, "gen_ai.tool.call.result": output})  # fmt: skip
    strands = _span("execute_tool get_reservation", {"gen_ai.operation.name": "execute_tool",
                    "gen_ai.tool.name": "get_reservation", "gen_ai.tool.call.id": "call_1"}, [
        EventRecord("gen_ai.tool.message", {"role": "tool", "content": '{"code": "K7QX2"}', "id": "call_1"}),
        EventRecord("gen_ai.choice", {"message": json.dumps([{"text": result}]), "id": "call_1"})])  # fmt: skip
    for span, arguments in ((openinference, "K7QX2"), (openllmetry, {"code": "K7QX2"}), (strands, {"code": "K7QX2"})):
        name, args, got, _, _ = tool_call_of_span(span)
        assert (name, got) == ("get_reservation", result), span.name
        assert (json.loads(args) if isinstance(arguments, dict) else args) == arguments, span.name
        [passage] = span_passages(span)
        assert (passage.source, passage.text, passage.tool_name) == ("tool_result", result, "get_reservation")


def test_blocked_text_inside_a_python_repr_is_redacted_with_its_escapes():
    # As LangGraph's should_continue output reaches OpenInference's output.value and OpenLLMetry's entity output.
    text = "Docker is not running.\nIt's down."
    send = "Send(node='tools', arg={'state': {'messages': [AIMessage(content=" + repr(text) + ", tool_calls=[])]}})"
    for value in (json.dumps([send]), json.dumps({"outputs": [send], "kwargs": {}}), send):
        out = redacted_attributes({"output.value": value}, [text], "[blocked]")["output.value"]
        assert "Docker is not running" not in out and "[blocked]" in out
