"""Interop with Haystack (deepset) and DSPy (stanfordnlp), end to end and offline.

Each run (`tests/helpers/haystack_dspy_clients.py`) is a process of its own against the fake
OpenAI-compatible server. Haystack: an `Agent` over `OpenAIChatGenerator`, run as the pipeline component
named AGENT, calls a Python tool and answers; then a RAG pipeline (BM25 retriever -> ChatPromptBuilder ->
OpenAIChatGenerator, no agent: known by the process's service.name) answers from the documents it
retrieved. Traced by Haystack's own tracer (deepset's OpenTelemetryTracer, content tracing on: JSON of
Haystack's objects under `haystack.*`, no GenAI attribute) or by Arize's OpenInference instrumentation.
The spans go over real OTLP/HTTP to a running collector that stores rows in DuckDB and forwards to a sink.

- ops: the agent calls `check_docker`, then says docker is not running, which contradicts a fact, and so
  does the RAG answer. Haystack repeats an answer in the agent's run span, the Agent component's output,
  the pipeline's output and the next call's input: judged once, and enforcing, no copy may be forwarded;
- desk: the agent looks a reservation up and runs `pip install`, then answers: grounding, actions and
  tool_policy must read what each tracing emits; the RAG answer contradicting its document is FABRICATED,
  citing the retriever's span.
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
from tests.helpers.haystack_dspy_clients import ANSWERS_SEPARATOR, SUB_AGENT
from tests.helpers.real_clients import AGENT, RESERVATION, RESERVATION_CODE, TOOL_RESULT
from tests.otlp_helpers import Sink, wait_for
from tests.test_real_clients import ANSWER, ENFORCING, everything, expected
from tests.test_real_clients_checks import (
    AUDITING,
    CHECKS,
    CONSISTENT,
    CONTRADICTING,
    DENY_RULE,
    INSTALL,
    LOOKUP,
    assert_actions_graded,
    assert_consistent_answer_grounded,
    assert_contradictions_fabricated,
    assert_deny_rule_blocks_the_lookup,
)
from tests.test_real_clients_langchain import Run

e2e = pytest.mark.e2e
CLIENT_TIMEOUT_S = 90

_HAYSTACK = ("haystack", "haystack.components.agents")
# client -> the modules it needs
CLIENTS = {
    "haystack-otel": (*_HAYSTACK, "haystack_integrations.tracing.opentelemetry"),
    "haystack-openinference": (*_HAYSTACK, "openinference.instrumentation.haystack"),
}
DSPY = {"dspy": ("dspy", "openinference.instrumentation.dspy")}
# The RAG answer contradicts the retrieved document (1 checked bag, $120).
RAG_CONTRADICTING = f"Your reservation {RESERVATION_CODE} has 2 checked bags and the total price is $150."
# The process's service.name: a rule names it for the RAG pipeline, which is no agent.
SERVICE = "hs-app"
ENFORCING_ALL = {"rules": [*ENFORCING["rules"], {**ENFORCING["rules"][0], "match": SERVICE}]}
AUDITING_ALL = {"rules": [*AUDITING["rules"], {**AUDITING["rules"][0], "match": SERVICE}]}
CONSISTENT_CLIENTS = ("haystack-otel",)
# Haystack's own tracing names the Agent component; OpenInference's Haystack spans (`Agent.run`, a CHAIN)
# carry no component or agent name: that agent is known by service.name.
NAMED = {"haystack-otel": AGENT, "haystack-openinference": SERVICE}


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


dspy_client = each_client(tuple(DSPY), DSPY)


def fields(**values) -> Reply:
    """A reply as DSPy's ChatAdapter asks for it: each output field after its `[[ ## name ## ]]` marker."""
    body = "\n\n".join(f"[[ ## {name} ## ]]\n{value}" for name, value in values.items())
    return Reply.text(body + "\n\n[[ ## completed ## ]]")


THOUGHT = "I should look at the host first."
# ReAct's steps: a thought and a tool call each, then `finish`; a last call extracts reasoning and answer.
# The bash step's arguments say what would be a claim in prose: they are a call, never judged as text.
NOTE = "The nginx service is not running"


def react(*calls: tuple[str, dict], answer: str) -> list[Reply]:
    steps = [fields(next_thought=THOUGHT, next_tool_name=name, next_tool_args=json.dumps(args)) for name, args in calls]
    return [*steps, fields(next_thought="I have what I need.", next_tool_name="finish", next_tool_args="{}"),
            fields(reasoning="The tools answered the question.", answer=answer)]  # fmt: skip


def tool_span(r: Run, tool: str) -> str | None:
    """The id of the one span that ran `tool` under Haystack's own tracing (`haystack.tool.name`);
    OpenInference's Haystack instrumentation traces no tool run (None)."""
    if r.client.startswith("haystack-openinference"):
        return None
    found = [s.span_id.hex() for s in r.spans if any(
        kv.key == "haystack.tool.name" and kv.value.string_value == tool for kv in s.attributes)]
    assert len(found) == 1, (tool, sorted(s.name for s in r.spans))
    return found[0]


def run(collector, sink: Sink, client: str, replies: list[Reply]) -> tuple[Run, Run]:
    """Run `client` in its own process; wait until all it sent is stored and forwarded. (the agent's run,
    the second run's): each holds its own traces."""
    llm = FakeLLM(replies)
    run_id = f"{client}-{id(llm)}"
    command = [
        sys.executable, "-m", "tests.helpers.haystack_dspy_clients", client, "--llm", llm.base_url,
        "--otlp", f"http://{collector.addresses.otlp_http}/v1/traces", "--service", SERVICE,
    ]  # fmt: skip
    env = {
        **os.environ,
        "NO_PROXY": "127.0.0.1,localhost",
        "no_proxy": "127.0.0.1,localhost",
        "OPENAI_API_KEY": "test-key",
        "OTEL_BSP_SCHEDULE_DELAY": "60000",  # one export at shutdown: the whole run in one request
        "OTEL_RESOURCE_ATTRIBUTES": f"{RUN_TAG}={run_id}",
        "HAYSTACK_TELEMETRY_ENABLED": "False",  # no posthog calls home
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
    spans = sorted(spans_of(sink, run_id), key=lambda s: s.start_time_unix_nano)
    first = spans[0].trace_id  # the agent's trace starts first; the second run is a trace of its own
    answer, _, second = report["answer"].partition(ANSWERS_SEPARATOR)  # the team scenario has one run
    calls = len(llm.requests)
    agent = Run(client, answer, collector.store, [s for s in spans if s.trace_id == first], calls - 1)
    other = Run(client, second, collector.store, [s for s in spans if s.trace_id != first], 1)
    return agent, other


class Runs(ClientRuns):
    """This file's scenarios on the shared two collectors (the auditing one with grounding, actions and a
    tool deny rule)."""

    def __init__(self, tmp_path_factory) -> None:
        super().__init__(tmp_path_factory, ENFORCING_ALL, AUDITING_ALL, CHECKS)

    def _run(self, scenario: str, client: str, option) -> tuple[Run, Run]:
        if client == "dspy":
            return self._dspy(scenario, option)
        if scenario == "team":
            ask = {"role": "user", "content": [{"text": "Is docker running on the build host?"}], "meta": {}, "name": None}
            replies = [Reply.tool_call(SUB_AGENT, messages=[ask]), Reply.tool_call("check_docker"),
                       Reply.text(SUB_REPORT), Reply.text(ANSWER)]  # fmt: skip
            return run(self.ops_collector, self.ops_sink, client + "-team", replies)
        if scenario == "desk":
            rag = RAG_CONTRADICTING if option == CONTRADICTING else ANSWER
            replies = [LOOKUP, INSTALL, Reply.text(option), Reply.text(rag)]
            return run(self.desk_collector, self.desk_sink, client + "-desk", replies)
        replies = [Reply.tool_call("check_docker"), Reply.text(ANSWER), Reply.text(ANSWER)]
        return run(self.ops_collector, self.ops_sink, client, replies)

    def _dspy(self, scenario: str, option) -> tuple[Run, Run]:
        """A dspy.ReAct agent, then a ChainOfThought question (its answer: ANSWER, contradicting a fact)."""
        cot = fields(reasoning="Docker usually runs there.", answer=ANSWER)
        if scenario == "desk":
            calls = (("get_reservation", {"code": RESERVATION_CODE}), ("bash", {"command": "pip install requests"}))
            return run(self.desk_collector, self.desk_sink, "dspy-desk", [*react(*calls, answer=option), cot])
        calls = (("check_docker", {}), ("bash", {"command": f"echo '{NOTE}'"}))
        return run(self.ops_collector, self.ops_sink, "dspy", [*react(*calls, answer=ANSWER), cot])

    def get(self, scenario: str, client: str, option=None) -> Run:
        """The agent's run."""
        return self._submit(scenario, client, option).result()[0]

    def second(self, scenario: str, client: str, option=None) -> Run:
        """The process's second run (Haystack's RAG pipeline)."""
        return self._submit(scenario, client, option).result()[1]


@pytest.fixture(scope="module")
def runs(tmp_path_factory, request):
    runs_ = Runs(tmp_path_factory)
    runs_.start((i for i in request.session.items if i.module is request.module), RUN_OF_TEST, {**CLIENTS, **DSPY})
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
    # One row per model call: not the agent's run span, the Agent component's output, the pipeline's
    # output or the next call's input, which all repeat it.
    assert len(rows) == r.llm_calls == 2, rows
    assert_no_doubles_and_no_failures(r)
    answered = [x for x in rows if x[6]]
    assert len(answered) == 1, rows
    _, agent, mode, verdict, enforced, claims, violations, _ = answered[0]
    # The agent is the pipeline component's name, not the process's service.name, where the spans say it.
    assert (agent, mode, verdict, enforced) == (NAMED[client], "enforce", "block", True), rows
    assert {x[1] for x in rows} == {NAMED[client]}, rows
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
@each_client()
def test_rag_blocked_answer_leaves_no_copy_in_the_pipelines_spans(runs, client):
    r = runs.second("ops", client)
    assert r.answer == ANSWER
    rows = output_rows(r)
    # One model call, one judged output: the prompt builder's prompt and the pipeline's output are not.
    assert [x[1:5] for x in rows] == [(SERVICE, "enforce", "block", True)], rows
    assert_no_doubles_and_no_failures(r)
    assert leaks(r) == []
    # The documents are not the answer: they travel untouched.
    assert any(RESERVATION in everything(s) for s in r.spans)


# --- team: a sub-agent (an Agent as a ComponentTool) is its own agent --------------------------------------


SUB_REPORT = "Docker is not running on the build host."


@e2e
@each_client(("haystack-otel",))
def test_sub_agent_output_is_judged_for_the_sub_agent(runs, client):
    r = runs.get("team", client)
    assert r.answer == ANSWER
    assert_no_doubles_and_no_failures(r)
    rows = output_rows(r)
    assert len(rows) == 4, rows  # the delegation, the sub-agent's tool call and report, the answer
    assert {x[1] for x in rows} == {AGENT, SUB_AGENT}, rows
    blocked = [x for x in rows if x[3] == "block"]
    assert [(x[1], x[4]) for x in blocked] == [(AGENT, True)], rows
    # The sub-agent is audited (no rule names it): its report contradicts the fact too, is flagged and
    # travels as it was, even inside the agent's conversation; the blocked answer leaves no copy.
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
    assert r.rows("SELECT DISTINCT agent_id FROM evaluations") == [(NAMED[client],)]
    assert_contradictions_fabricated(r)


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
    assert_actions_graded(r, tool_span(r, "bash"))


@e2e
@each_client()
def test_tool_call_is_blocked_by_a_deny_rule_on_its_arguments(runs, client):
    r = runs.get("desk", client, CONTRADICTING)
    if client == "haystack-otel":
        assert_deny_rule_blocks_the_lookup(r, tool_span(r, "get_reservation"))
        return
    # OpenInference's Haystack spans trace no tool run and give the model's calls no id: the request is
    # decided where the model made it, once.
    rows = r.rows("SELECT source, tool_name, decision, rule_id FROM tool_policy_decisions ORDER BY tool_name")
    assert rows == [("llm_output", "bash", "allow", None), ("llm_output", "get_reservation", "block", DENY_RULE)]
    violations = r.rows("SELECT subject, detector_id, verdict FROM violations WHERE check_name = 'tool_policy'")
    assert violations == [("get_reservation", DENY_RULE, "block")]


@e2e
@each_client()
def test_rag_answer_contradicting_a_retrieved_document_is_fabricated_citing_the_retriever(runs, client):
    r = runs.second("desk", client, CONTRADICTING)
    assert r.answer == RAG_CONTRADICTING
    assert_no_doubles_and_no_failures(r)
    assert len(output_rows(r)) == r.llm_calls == 1, output_rows(r)
    claims = r.rows(
        "SELECT grade, issue, verdict, evidence_span_id, evidence_source FROM grounding_claims ORDER BY claim_offset"
    )
    money = [c for c in claims if c[1] == "money"]
    assert [c[:3] for c in money] == [("FABRICATED", "money", "flag")], claims
    _, _, _, span_id, source = money[0]
    [cited] = [s for s in r.spans if s.span_id.hex() == span_id]
    assert source == "retrieval" and "Retriever" in everything(cited) and RESERVATION in everything(cited), (
        cited.name, source)


# --- DSPy: a ReAct agent's fields, tools and answer ------------------------------------------------------


@e2e
@dspy_client
def test_dspy_answer_field_is_judged_once_and_blocked_and_tool_fields_are_calls(runs, client):
    r = runs.get("ops", client)
    assert r.answer == ANSWER
    want = expected()
    rows = output_rows(r)
    # One row per model call (two tool steps, finish, the extraction): not the Predict, ChainOfThought and
    # ReAct module spans that repeat the fields as JSON. DSPy's spans name no agent: service.name does.
    assert len(rows) == r.llm_calls == 4, rows
    assert_no_doubles_and_no_failures(r)
    answered = [x for x in rows if x[6]]
    assert [x[1:7] for x in answered] == [(SERVICE, "enforce", "block", True, len(want.claims), len(want.violations))]
    # A step's text is its thought alone: no field marker, and the tool arguments (NOTE) are no claim.
    steps = [x for x in rows if not x[6]]
    assert sorted((x[5], x[7]) for x in steps) == sorted([(0, len(THOUGHT))] * 2 + [(0, len("I have what I need."))])
    decided = r.rows("SELECT tool_name, source FROM tool_policy_decisions ORDER BY ALL")
    assert ("bash", "llm_output") in decided and ("check_docker", "llm_output") in decided, decided


@e2e
@dspy_client
def test_dspy_blocked_answer_leaves_no_copy_under_any_key(runs, client):
    r = runs.get("ops", client)
    # The raw marked output, the Prediction JSON of every module span, the ReAct run's output.
    assert leaks(r) == []
    assert any(TOOL_RESULT in everything(s) for s in r.spans)


@e2e
@dspy_client
def test_dspy_chain_of_thought_answer_is_judged_once_and_blocked(runs, client):
    r = runs.second("ops", client)
    assert r.answer == ANSWER
    rows = output_rows(r)
    assert [x[1:5] for x in rows] == [(SERVICE, "enforce", "block", True)], rows
    assert_no_doubles_and_no_failures(r)
    assert leaks(r) == []


@e2e
@dspy_client
def test_dspy_answer_contradicting_the_tool_result_is_fabricated_and_actions_graded(runs, client):
    r = runs.get("desk", client, CONTRADICTING)
    assert r.answer == CONTRADICTING
    assert_no_doubles_and_no_failures(r)
    assert_contradictions_fabricated(r)
    cited = r.rows("SELECT DISTINCT evidence_tool FROM grounding_claims WHERE grade = 'FABRICATED' AND issue = 'money'")
    assert cited == [("get_reservation",)]
    assert_actions_graded(r, None)


@e2e
@dspy_client
def test_dspy_tool_call_is_blocked_by_a_deny_rule_on_its_arguments(runs, client):
    r = runs.get("desk", client, CONTRADICTING)
    rows = r.rows("SELECT source, tool_name, decision, rule_id FROM tool_policy_decisions ORDER BY ALL")
    lookups = {row for row in rows if row[1] == "get_reservation"}
    assert lookups == {("llm_output", "get_reservation", "block", DENY_RULE),
                       ("execute_tool", "get_reservation", "block", DENY_RULE)}, rows  # fmt: skip
    assert {row[2] for row in rows if row[1] != "get_reservation"} == {"allow"}, rows


# test -> the run it reads: (scenario, option)
RUN_OF_TEST = {
    test_answer_is_judged_once_for_the_agent_and_blocked_when_it_enforces.__name__: ("ops", None),
    test_blocked_answer_leaves_no_copy_under_any_key.__name__: ("ops", None),
    test_rag_blocked_answer_leaves_no_copy_in_the_pipelines_spans.__name__: ("ops", None),
    test_answer_contradicting_the_tool_result_is_fabricated_citing_it.__name__: ("desk", CONTRADICTING),
    test_answer_agreeing_with_the_tool_result_is_grounded.__name__: ("desk", CONSISTENT),
    test_action_claims_are_graded_against_the_tool_calls.__name__: ("desk", CONTRADICTING),
    test_tool_call_is_blocked_by_a_deny_rule_on_its_arguments.__name__: ("desk", CONTRADICTING),
    test_rag_answer_contradicting_a_retrieved_document_is_fabricated_citing_the_retriever.__name__: (
        "desk", CONTRADICTING),
    test_sub_agent_output_is_judged_for_the_sub_agent.__name__: ("team", None),
    test_dspy_answer_field_is_judged_once_and_blocked_and_tool_fields_are_calls.__name__: ("ops", None),
    test_dspy_blocked_answer_leaves_no_copy_under_any_key.__name__: ("ops", None),
    test_dspy_chain_of_thought_answer_is_judged_once_and_blocked.__name__: ("ops", None),
    test_dspy_answer_contradicting_the_tool_result_is_fabricated_and_actions_graded.__name__: ("desk", CONTRADICTING),
    test_dspy_tool_call_is_blocked_by_a_deny_rule_on_its_arguments.__name__: ("desk", CONTRADICTING),
}
