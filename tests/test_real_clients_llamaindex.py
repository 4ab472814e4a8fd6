"""Interop with LlamaIndex, end to end and offline, under the two instrumentations its users run.

Each run (`tests/helpers/llamaindex_clients.py`) is a process of its own against
the fake OpenAI-compatible server: a LlamaIndex `FunctionAgent` (streaming, its
default) calls a tool and answers, then a RAG query engine over in-memory
Documents with a deterministic embedding answers a question (no agent: it is
known by the process's service.name). It is traced by Arize's OpenInference
LlamaIndex instrumentation, or by Traceloop's OpenLLMetry LlamaIndex
instrumentation (with OpenLLMetry's OpenAI instrumentation for the model calls,
as Traceloop's SDK runs them). The spans go over real OTLP/HTTP (or first
through `ClaimwatchSpanProcessor`) to a running collector that stores rows in
DuckDB and forwards to a sink.

Scenarios, as in `tests/test_real_clients_langchain.py`:
- ops: the agent calls `check_docker`, then says docker is not running, which contradicts a
  fact, and so does the query's answer; enforcing, nothing of either may be forwarded (LlamaIndex
  repeats an answer in its workflow steps and query engine steps: Python reprs cut at 200
  characters under OpenInference, JSON under OpenLLMetry), and the repeats must not be judged
  again; auditing, an answer is forwarded as it was;
- desk: the agent looks a reservation up and runs `pip install`, then answers: grounding,
  actions and tool_policy must read what each instrumentation emits; the query's answer
  contradicts the retrieved document: FABRICATED, citing the retriever's span.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from claimwatch import OutputValidator, load_config
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
from tests.helpers.llamaindex_clients import ANSWERS_SEPARATOR
from tests.helpers.real_clients import AGENT, RESERVATION, RESERVATION_CODE, TOOL_RESULT
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
from tests.test_real_clients_langchain import Run

e2e = pytest.mark.e2e
CLIENT_TIMEOUT_S = 90

_CORE = ("llama_index.core", "llama_index.llms.openai")
# client -> the modules it needs
CLIENTS = {
    "llamaindex-openinference": (*_CORE, "openinference.instrumentation.llama_index"),
    "llamaindex-openllmetry": (*_CORE, "opentelemetry.instrumentation.llamaindex", "opentelemetry.instrumentation.openai"),
}
# The RAG answer contradicts the retrieved document (1 checked bag, $120).
RAG_CONTRADICTING = f"Your reservation {RESERVATION_CODE} has 2 checked bags and the total price is $150."


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


def run(collector, sink: Sink, client: str, replies: list[Reply], in_process: dict | None = None
        ) -> tuple[Run, Run]:
    """Run `client` in its own process; wait until all it sent is stored and forwarded. (the agent's run,
    the query's run): each holds its own traces (the index's building goes with the query)."""
    llm = FakeLLM(replies)
    run_id = f"{client}-{id(llm)}"
    command = [
        sys.executable, "-m", "tests.helpers.llamaindex_clients", client, "--llm", llm.base_url,
        "--otlp", f"http://{collector.addresses.otlp_http}/v1/traces", "--service", SERVICE,
    ]  # fmt: skip
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
    spans = spans_of(sink, run_id)
    agent_traces = {s.trace_id for s in spans if s.name.startswith("FunctionAgent.")}
    answer, query_answer = report["answer"].split(ANSWERS_SEPARATOR)
    calls = len(llm.requests)
    agent = Run(client, answer, store, [s for s in spans if s.trace_id in agent_traces], calls - 1, report["claimwatch"])
    query = Run(client, query_answer, store, [s for s in spans if s.trace_id not in agent_traces], 1)
    return agent, query


# The agent's process: a rule of the collector's names it when the agent's own name is not read.
SERVICE = "li-app"
ENFORCING_ALL = {"rules": [*ENFORCING["rules"], {**ENFORCING["rules"][0], "match": SERVICE}]}
AUDITING_ALL = {"rules": [*AUDITING["rules"], {**AUDITING["rules"][0], "match": SERVICE}]}
# Which clients each run is made with (each run is a process that spends most of its time importing
# LlamaIndex): ops and desk with both; the consistent answer and the in-process adapter with one.
CONSISTENT_CLIENTS = ("llamaindex-openinference",)
IN_PROCESS_CLIENTS = ("llamaindex-openllmetry",)


class Runs(ClientRuns):
    """This file's scenarios on the shared two collectors (the auditing one with grounding, actions and a
    tool deny rule)."""

    def __init__(self, tmp_path_factory) -> None:
        super().__init__(tmp_path_factory, ENFORCING_ALL, AUDITING_ALL, CHECKS)

    def _run(self, scenario: str, client: str, option) -> tuple[Run, Run]:
        if scenario == "desk":
            # The agent's answer `option`; the query's contradicts its document, or (auditing) says ANSWER.
            query = RAG_CONTRADICTING if option == CONTRADICTING else ANSWER
            replies = [LOOKUP, INSTALL, Reply.text(option), Reply.text(query)]
            return run(self.desk_collector, self.desk_sink, client + "-desk", replies)
        replies = [Reply.tool_call("check_docker"), Reply.text(ANSWER), Reply.text(ANSWER)]
        if option != "in-process":
            return run(self.ops_collector, self.ops_sink, client, replies)
        path = self.tmp.mktemp("in-process") / "audit.duckdb"
        config = {"validation": FACTS, "agents": ENFORCING_ALL, "storage": {"path": str(path)},
                  "annotations": {"verbosity": "debug"}}  # fmt: skip
        return run(self.ops_collector, self.ops_sink, client, replies, config)

    def get(self, scenario: str, client: str, option=None) -> Run:
        """The agent's run."""
        return self._submit(scenario, client, option).result()[0]

    def query(self, scenario: str, client: str, option=None) -> Run:
        """The query engine's run of the same process."""
        return self._submit(scenario, client, option).result()[1]



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
    # Only what a model said is judged: one row per LLM call, none for the workflow steps that repeat it,
    # the prompts LlamaIndex prepares, the tool's result or the messages it hands between steps.
    assert len(rows) == r.llm_calls == 2, rows
    assert_no_doubles_and_no_failures(r)
    answered = [x for x in rows if x[6]]
    assert len(answered) == 1, rows
    _, agent, mode, verdict, enforced, claims, violations, _ = answered[0]
    # The agent is the FunctionAgent's name, not the process's service.name.
    assert (agent, mode, verdict, enforced) == (AGENT, "enforce", "block", True), rows
    assert {x[1] for x in rows} == {AGENT}, rows
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
@each_client(CONSISTENT_CLIENTS)
def test_auditing_query_answer_is_judged_and_forwarded_as_it_was(runs, client):
    r = runs.query("desk", client, CONSISTENT)
    assert r.answer == ANSWER
    want = OutputValidator(load_config({"validation": FACTS})).validate(ANSWER, trust=AUDITING["rules"][0]["trust"])
    assert want.violations and want.verdict != "pass"
    rows = output_rows(r)
    assert [x[1:5] + x[6:7] for x in rows] == [(SERVICE, "audit", want.verdict, False, len(want.violations))], rows
    assert_no_doubles_and_no_failures(r)
    assert any(ANSWER in everything(s) for s in r.spans)


# --- desk: grounding, actions and tool_policy ----------------------------------------------------------


@e2e
@each_client()
def test_answer_contradicting_the_tool_result_is_fabricated_citing_it(runs, client):
    r = runs.get("desk", client, CONTRADICTING)
    assert r.answer == CONTRADICTING
    assert_no_doubles_and_no_failures(r)
    assert r.rows("SELECT DISTINCT agent_id FROM evaluations") == [(AGENT,)]
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


# --- rag: the retrieved documents are evidence -----------------------------------------------------------


@e2e
@each_client()
def test_rag_answer_contradicting_a_retrieved_document_is_fabricated_citing_the_retriever(runs, client):
    r = runs.query("desk", client, CONTRADICTING)
    assert r.answer == RAG_CONTRADICTING
    assert_no_doubles_and_no_failures(r)
    # One model call, one judged output: the synthesizer's and the query engine's repeats are not new ones.
    assert len(output_rows(r)) == r.llm_calls == 1, output_rows(r)
    claims = r.rows(
        "SELECT grade, issue, verdict, evidence_span_id, evidence_source FROM grounding_claims ORDER BY claim_offset"
    )
    money = [c for c in claims if c[1] == "money"]
    assert [c[:3] for c in money] == [("FABRICATED", "money", "flag")], claims
    _, _, _, span_id, source = money[0]
    [cited] = [s for s in r.spans if s.span_id.hex() == span_id]
    assert source == "retrieval" and "Retriever" in cited.name and RESERVATION in everything(cited), (cited.name, source)
    violations = r.rows("SELECT subject, category, verdict FROM violations WHERE check_name = 'grounding'")
    assert violations == [("money", "fabricated", "flag")]


@e2e
@each_client()
def test_rag_blocked_answer_leaves_no_copy_in_the_query_engines_spans(runs, client):
    r = runs.query("ops", client)
    assert r.answer == ANSWER
    rows = output_rows(r)
    assert [x[1:5] for x in rows] == [(SERVICE, "enforce", "block", True)], rows
    assert_no_doubles_and_no_failures(r)
    assert leaks(r) == []
    # The documents are not the answer: they travel untouched.
    assert any(RESERVATION in everything(s) for s in r.spans)


# --- in-process: ClaimwatchSpanProcessor in the agent's own process ------------------------------------


@e2e
@each_client(IN_PROCESS_CLIENTS)
def test_in_process_processor_blocks_the_answers_for_the_agent_and_the_query_and_leaks_nothing(runs, client):
    r, query = runs.get("ops", client, "in-process"), runs.query("ops", client, "in-process")
    assert r.answer == query.answer == ANSWER
    # In process the agent is named while its workflow runs, from the steps that ended before the model's call.
    blocked = "SELECT agent_id, mode, verdict, enforced FROM evaluations WHERE check_name = 'output' AND verdict <> 'pass'"
    assert r.rows(blocked) == [(AGENT, "enforce", "block", True)]
    assert query.rows(blocked) == [(SERVICE, "enforce", "block", True)]
    assert_no_doubles_and_no_failures(r)
    assert_no_doubles_and_no_failures(query)
    assert r.processor_stats.get("enforced_blocks") == 2
    assert leaks(r) == leaks(query) == []


# test -> the run it reads: (scenario, option)
RUN_OF_TEST = {
    test_answer_is_judged_once_for_the_agent_and_blocked_when_it_enforces.__name__: ("ops", None),
    test_blocked_answer_leaves_no_copy_under_any_key.__name__: ("ops", None),
    test_auditing_query_answer_is_judged_and_forwarded_as_it_was.__name__: ("desk", CONSISTENT),
    test_answer_contradicting_the_tool_result_is_fabricated_citing_it.__name__: ("desk", CONTRADICTING),
    test_answer_agreeing_with_the_tool_result_is_grounded.__name__: ("desk", CONSISTENT),
    test_action_claims_are_graded_against_the_tool_calls.__name__: ("desk", CONTRADICTING),
    test_tool_call_is_blocked_by_a_deny_rule_on_its_arguments.__name__: ("desk", CONTRADICTING),
    test_rag_answer_contradicting_a_retrieved_document_is_fabricated_citing_the_retriever.__name__: (
        "desk", CONTRADICTING),
    test_rag_blocked_answer_leaves_no_copy_in_the_query_engines_spans.__name__: ("ops", None),
    test_in_process_processor_blocks_the_answers_for_the_agent_and_the_query_and_leaks_nothing.__name__: (
        "ops", "in-process"),
}
