"""Interop with Hugging Face smolagents and Microsoft AutoGen AgentChat, end to end and offline.

Each agent (`tests/helpers/smol_autogen_clients.py`) runs in a process of its own
against the fake OpenAI-compatible server: a smolagents `ToolCallingAgent`
(and a manager with a managed sub-agent) traced by Arize's OpenInference, an
AutoGen `AssistantAgent` (and a `RoundRobinGroupChat` with a planner) traced
by Arize's OpenInference, and a team traced by AutoGen's own spans with the
chat calls traced by the OpenTelemetry project's OpenAI instrumentation. The
spans go over real OTLP/HTTP (or first through `ClaimwatchSpanProcessor`) to
a running collector that stores rows in DuckDB and forwards to a sink.

- ops: the agent calls `check_docker`, then says docker is not running, which contradicts a fact.
  smolagents' answer is the argument of its `final_answer` tool call, repeated by the tool span, the step
  span and the run span; AutoGen's runtime carries it in its message-passing spans. Enforcing, nothing of
  it may be forwarded and the repeats are not judged again;
- desk: the agent looks a reservation up and runs `pip install`, then answers: grounding, actions and
  tool_policy must read what each client emits;
- team: a sub-agent's (or a planner's) output is judged for that agent, not for the one above it; no rule
  names it, so it is audited: flagged and forwarded as it was, beside the enforced block of the answer.
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
from tests.helpers.fake_llm import FakeLLM, Reply
from tests.helpers.real_clients import RESERVATION_CODE, TOOL_RESULT
from tests.helpers.smol_autogen_clients import AGENT, PLANNER, SUB_AGENT
from tests.otlp_helpers import FACTS, Sink, wait_for
from tests.test_real_clients import ANSWER, everything, expected
from tests.test_real_clients_checks import (
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
from tests.test_real_clients_langchain import Run

e2e = pytest.mark.e2e
CLIENT_TIMEOUT_S = 90
ENFORCING = {"rules": [{"match": AGENT, "trust": 10, "mode": "enforce"}]}
AUDITING = {"rules": [{"match": AGENT, "trust": 50, "mode": "audit"}]}

SMOL = ("smolagents", "openinference.instrumentation.smolagents")
AUTOGEN = ("autogen_agentchat", "autogen_ext.models.openai", "openinference.instrumentation.autogen_agentchat")
NATIVE = ("autogen_agentchat", "autogen_ext.models.openai", "opentelemetry.instrumentation.openai_v2")
# client -> the modules it needs
CLIENTS = {"smolagents": SMOL, "autogen": AUTOGEN, "autogen-native": NATIVE}
TEAMS = {"smolagents-managed": SMOL, "autogen-team": AUTOGEN}
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


def answering(client: str, text: str) -> Reply:
    """The model's last turn: smolagents' ToolCallingAgent answers by calling its final_answer tool."""
    return Reply.tool_call("final_answer", answer=text) if client.startswith("smolagents") else Reply.text(text)


def run(collector, sink: Sink, client: str, replies: list[Reply], in_process: dict | None = None) -> Run:
    """Run `client` in its own process; wait until all it sent is stored and forwarded."""
    llm = FakeLLM(replies)
    run_id = f"{client}-{id(llm)}"
    command = [sys.executable, "-m", "tests.helpers.smol_autogen_clients", client, "--llm", llm.base_url,
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
        "HF_HUB_OFFLINE": "1",
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


# The sub-agent's report and the planner's turn in the team scenarios: both contradict the fact.
SUB_REPORT = "Docker is not running on the build host."
PLANNING = "Docker is not running on the build host. I will hand this to ops_helper to look into it."
REPORTS = {"smolagents-managed": SUB_REPORT, "autogen-team": PLANNING}


class Runs(ClientRuns):
    """This file's scenarios on the shared two collectors (the auditing one with grounding, actions and a
    tool deny rule)."""

    def __init__(self, tmp_path_factory) -> None:
        super().__init__(tmp_path_factory, ENFORCING, AUDITING, CHECKS)

    def _run(self, scenario: str, client: str, option) -> Run:
        docker = [Reply.tool_call("check_docker"), answering(client, ANSWER)]
        if scenario == "desk":
            replies = [LOOKUP, INSTALL, answering(client, option)]
            return run(self.desk_collector, self.desk_sink, client + "-desk", replies)
        if scenario == "team" and client == "smolagents-managed":
            replies = [Reply.tool_call(SUB_AGENT, task="Is docker running on the build host?"),
                       Reply.tool_call("check_docker"), answering(client, SUB_REPORT), answering(client, ANSWER)]  # fmt: skip
            return run(self.ops_collector, self.ops_sink, client, replies)
        if scenario == "team":
            return run(self.ops_collector, self.ops_sink, client, [Reply.text(PLANNING), *docker])
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
    # One row per LLM call: the tool, step and run spans that repeat the answer are not judged again.
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
def test_sub_agent_output_is_judged_for_the_sub_agent(runs, client):
    r = runs.get("team", client)
    assert r.answer == ANSWER
    assert_no_doubles_and_no_failures(r)
    rows = output_rows(r)
    assert len(rows) == r.llm_calls, rows
    other = SUB_AGENT if client == "smolagents-managed" else PLANNER
    said = {x[1] for x in rows}
    assert said == {AGENT, other}, rows
    blocked = [x for x in rows if x[3] == "block"]
    assert [(x[1], x[4]) for x in blocked] == [(AGENT, True)], rows
    # The other agent is audited (no rule names it): what it said contradicts the fact too, is flagged,
    # and travels as it was; the blocked answer's own piece leaves no copy.
    audited = [x[1:5] for x in rows if x[1] == other and x[6]]
    assert audited == [(other, "audit", "flag", False)], rows
    assert any(REPORTS[client] in everything(s) for s in r.spans)
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
@each_client(("autogen",))
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
    # smolagents' answer is a call of its final_answer tool: decided and allowed like any other call.
    answer_tool = "final_answer" if client.startswith("smolagents") else None
    assert_deny_rule_blocks_the_lookup(r, r.tool_span("get_reservation"), answer_tool)


# --- in-process: ClaimwatchSpanProcessor in the agent's own process ------------------------------------


@e2e
@each_client(("smolagents", "autogen"))
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
    test_sub_agent_output_is_judged_for_the_sub_agent.__name__: ("team", None),
    test_answer_contradicting_the_tool_result_is_fabricated_citing_it.__name__: ("desk", CONTRADICTING),
    test_answer_agreeing_with_the_tool_result_is_grounded.__name__: ("desk", CONSISTENT),
    test_action_claims_are_graded_against_the_tool_calls.__name__: ("desk", CONTRADICTING),
    test_tool_call_is_blocked_by_a_deny_rule_on_its_arguments.__name__: ("desk", CONTRADICTING),
    test_in_process_processor_blocks_the_answer_for_the_agent_and_leaks_nothing.__name__: ("ops", "in-process"),
}


# --- What the clients write, read span by span ----------------------------------------------------------

from claimwatch.checks.trace import HeldTrace  # noqa: E402
from claimwatch.otel.extract import extract  # noqa: E402
from claimwatch.otel.records import SpanRecord  # noqa: E402


def _span(name: str, attributes: dict, parent: SpanRecord | None = None) -> SpanRecord:
    return SpanRecord("t", name, parent.span_id if parent else None, name, attributes, ())


@functools.cache
def _pipeline():
    from claimwatch.checks.pipeline import Pipeline

    return Pipeline({"validation": FACTS})


def _identify(span: SpanRecord, *spans: SpanRecord):
    by_id = {s.span_id: s for s in (span, *spans)}
    return _pipeline().identify(span, by_id.get)


def test_openinference_agent_spans_of_smolagents_and_autogen_name_the_agent_not_its_method():
    run = _span(f"{AGENT}.run", {"openinference.span.kind": "AGENT", "smolagents.max_steps": 20})
    step = _span("Step 2", {"openinference.span.kind": "CHAIN"}, run)
    llm = _span("OpenAIModel.generate", {"openinference.span.kind": "LLM"}, step)
    assert _identify(llm, step, run).agent_id == AGENT
    sub = _span(f"{SUB_AGENT}.run", {"openinference.span.kind": "AGENT"}, step)
    assert _identify(_span("OpenAIModel.generate", {"openinference.span.kind": "LLM"}, sub), sub, step, run).agent_id == SUB_AGENT
    stream = _span(f"{AGENT}.on_messages_stream", {"openinference.span.kind": "AGENT", "graph.node.id": AGENT})
    assert _identify(_span("OpenAIChatCompletionClient.create", {}, stream), stream).agent_id == AGENT
    # Without graph.node.id the method is still not the agent's name; a plain AGENT span keeps its name.
    bare = _span(f"{PLANNER}.on_messages_stream", {"openinference.span.kind": "AGENT"})
    assert _identify(bare).agent_id == PLANNER
    assert _identify(_span("planner", {"openinference.span.kind": "AGENT"})).agent_id == "planner"


def test_autogen_runtime_agent_id_is_not_the_agent_its_name_is():
    team = "6bfe43eb-69b1-4515-a3d6-6aaf2d1920f1"
    invoke = _span(f"invoke_agent {AGENT}", {"gen_ai.operation.name": "invoke_agent", "gen_ai.system": "autogen",
                                             "gen_ai.agent.name": AGENT, "gen_ai.agent.id": f"{AGENT}_{team}/{team}"})  # fmt: skip
    chat = _span("chat gpt-test", {"gen_ai.operation.name": "chat"}, invoke)
    assert _identify(chat, invoke).agent_id == AGENT
    # Other emitters' gen_ai.agent.id still wins over the name.
    other = _span("invoke_agent", {"gen_ai.agent.name": AGENT, "gen_ai.agent.id": "agent-7"})
    assert _identify(other).agent_id == "agent-7"


def _smol_llm(*calls: tuple[str, dict]) -> SpanRecord:
    attrs: dict = {"openinference.span.kind": "LLM", "llm.output_messages.0.message.role": "assistant"}
    for j, (name, arguments) in enumerate(calls):
        prefix = f"llm.output_messages.0.message.tool_calls.{j}.tool_call."
        attrs |= {prefix + "id": f"call_{j}", prefix + "function.name": name,
                  prefix + "function.arguments": json.dumps(arguments)}  # fmt: skip
    return _span("OpenAIModel.generate", attrs)


def test_smolagents_final_answer_call_is_the_answer_and_other_calls_are_not():
    out = extract(_smol_llm(("final_answer", {"answer": ANSWER})))
    assert out.text == ANSWER and [t.name for t in out.tool_calls] == ["final_answer"]
    lookup = extract(_smol_llm(("get_reservation", {"code": RESERVATION_CODE})))
    assert lookup.text == "" and [t.name for t in lookup.tool_calls] == ["get_reservation"]
    # The same call in GenAI parts (another instrumentation of the same agent).
    parts = [{"role": "assistant", "parts": [{"type": "tool_call", "id": "c1", "name": "final_answer",
                                               "arguments": {"answer": ANSWER}}]}]  # fmt: skip
    assert extract(_span("chat", {"gen_ai.output.messages": json.dumps(parts)})).text == ANSWER
    # An answer cut by the attribute length limit is read as far as it goes, and marked truncated.
    cut = _smol_llm(("final_answer", {"answer": ANSWER}))
    key = "llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments"
    cut = cut._replace(attributes={**cut.attributes, key: cut.attributes[key][:40]})
    assert extract(cut).truncated and extract(cut).text == ANSWER[:28]


def test_smolagents_final_answer_tool_span_is_not_evidence_and_tool_inputs_are_unwrapped():
    from claimwatch.grounding.trace import span_passages
    from claimwatch.verify.actions import tool_call_of_span

    def tool(name: str, kwargs: dict, output: str) -> SpanRecord:
        envelope = {"args": [], "sanitize_inputs_outputs": True, "kwargs": kwargs}
        return _span(name, {"openinference.span.kind": "TOOL", "tool.name": name, "input.value": json.dumps(envelope),
                            "output.value": output, "output.mime_type": "text/plain"})  # fmt: skip

    answer = tool("final_answer", {"answer": CONTRADICTING}, CONTRADICTING)
    assert span_passages(answer) == []
    lookup = tool("get_reservation", {"code": RESERVATION_CODE}, "Reservation K7QX2: 1 checked bag.")
    [passage] = span_passages(lookup)
    assert (passage.tool_name, passage.text) == ("get_reservation", "Reservation K7QX2: 1 checked bag.")
    name, arguments, result, _, _ = tool_call_of_span(lookup)
    assert (name, json.loads(arguments), result) == ("get_reservation", {"code": RESERVATION_CODE}, "Reservation K7QX2: 1 checked bag.")


def test_autogen_runtime_message_of_a_blocked_agent_is_redacted_in_its_own_trace():
    from claimwatch.checks.pipeline import Pipeline

    team = "6bfe43eb-69b1-4515-a3d6-6aaf2d1920f1"
    pipeline = Pipeline({"validation": FACTS, "agents": ENFORCING, "storage": {"enabled": False}})
    invoke = SpanRecord("a" * 32, "1" * 16, None, f"invoke_agent {AGENT}",
                        {"gen_ai.system": "autogen", "gen_ai.agent.name": AGENT}, end_ns=2 * 10**18)  # fmt: skip
    answer = json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": ANSWER}]}])
    chat = SpanRecord("a" * 32, "2" * 16, invoke.span_id, "chat", {"gen_ai.output.messages": answer},
                      end_ns=2 * 10**18 - 5)  # fmt: skip
    assert pipeline.process(chat, HeldTrace({s.span_id: s for s in (invoke, chat)}.get)).enforced

    def delivered(trace: str, sender: str) -> SpanRecord:
        message = json.dumps({"message": {"source": AGENT, "content": ANSWER, "type": "TextMessage"}})
        return SpanRecord(trace, "3" * 16, None, "autogen process RoundRobinGroupChatManager",
                          {"sender_agent_type": sender, "messaging.operation": "process", "message": message},
                          end_ns=2 * 10**18 + 10)  # fmt: skip

    assert pipeline.process(delivered("b" * 32, f"{AGENT}_{team}")) is None  # nothing to judge: a repeat
    assert pipeline.blocked_in("b" * 32)[0] == (ANSWER,)
    # Another agent's message is not this block's business.
    pipeline.process(delivered("c" * 32, f"{PLANNER}_{team}"))
    assert pipeline.blocked_in("c" * 32) is None


def test_a_numbered_rule_of_the_system_prompt_is_no_evidence_for_a_count():
    from claimwatch.grounding.engine import ground
    from claimwatch.grounding.evidence import Passage

    rules = "Here are the rules you should always follow:\n1. ALWAYS provide a tool call.\n2. Always use the right arguments."
    result = Passage("Reservation K7QX2: 1 checked bag, total price $120.", "tool_result", "s1", "output.value", "get_reservation")
    prompt = Passage(rules, "system_message", "s0", "llm.input_messages.0")
    [claim] = ground("Your reservation K7QX2 has 2 checked bags.", [result, prompt]).claims
    assert (claim.grade.grade, claim.grade.issue) == ("FABRICATED", "number")
    # A number that starts a line but is a quantity still counts.
    [kept] = ground("The order has 2 items.", [Passage("Items in the order:\n2 items, shipped.", "tool_result", "s2",
                                                       "output.value")]).claims  # fmt: skip
    assert kept.grade.grade == "GROUNDED"
