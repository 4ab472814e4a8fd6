"""Interop with the agent clients users run, end to end and offline.

Each client (pydantic-ai, the OpenAI Agents SDK under OpenInference, the OpenAI
client under OpenInference and under OpenLLMetry, in span and in events mode)
runs in a process of its own (`tests/helpers/real_clients.py`) against a fake
OpenAI-compatible server on 127.0.0.1 (`tests/helpers/fake_llm.py`): the model
first calls the agent's `check_docker` tool, then answers (as text, streamed,
in parts, or through pydantic-ai's output tool). Spans go through the real
OTLP/HTTP exporter, some through `ClaimwatchSpanProcessor` first, to one
running collector that stores rows in DuckDB and forwards to a sink. The answer
contradicts the docker-running fact and the agent enforces, so the block must
leave no trace of the answer downstream, under any key.

Defects these tests found outside span reading were fixed where they were (pipeline, redaction, engine).
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from dataclasses import dataclass

import pytest

from claimwatch import OutputValidator, load_config
from claimwatch.collector.otlp import any_value
from claimwatch.otel.extract import extract
from claimwatch.otel.records import SpanRecord
from tests.conftest import ROOT
from tests.helpers.fake_llm import FakeLLM, Reply
from tests.helpers.real_clients import AGENT, TOOL_RESULT
from tests.otlp_helpers import FACTS, Sink, start_collector, wait_for

e2e = pytest.mark.e2e

# Two claims the detectors find: docker's state (contradicts the fact) and PostgreSQL's (no fact on it).
ANSWER = "I checked the host. Docker is not running and PostgreSQL is down."
# What must never leave once the answer is blocked: any piece of it, not only the whole.
TELL_TALES = ("Docker is not running", "PostgreSQL is down")
ENFORCING = {"rules": [{"match": AGENT, "trust": 10, "mode": "enforce"}]}
CLIENT_TIMEOUT_S = 60


def installed(*modules: str) -> bool:
    return all(importlib.util.find_spec(m) is not None for m in modules)


def needs(*modules: str):
    return pytest.mark.skipif(not installed(*modules), reason=f"needs {', '.join(modules)} (pip install -e '.[test]')")


@dataclass
class Run:
    """One client's run: what the agent answered and what the collector made of it.

    Runs share one collector and one sink (building the detectors dominates a collector's start);
    a run sees only its own traces: the spans forwarded while it ran and the rows of those traces."""

    client: str
    answer: str
    exported: int
    processor_stats: dict
    llm: FakeLLM
    collector: object
    spans: list
    stats: dict  # the collector's counters, this run's share

    @property
    def trace_ids(self) -> list[str]:
        return sorted({s.trace_id.hex() for s in self.spans})

    def rows(self, sql: str) -> list[tuple]:
        """`sql` over this run's rows: `evaluations` (and `violations`) hold only its traces."""
        scoped = (
            "WITH evaluations AS (SELECT * FROM main.evaluations WHERE list_contains($traces, trace_id)), "
            "violations AS (SELECT * FROM main.violations WHERE list_contains($traces, trace_id)) "
        )
        cursor = self.collector.store.cursor()
        try:
            return cursor.execute(scoped + sql, {"traces": self.trace_ids}).fetchall()
        finally:
            cursor.close()

    def forwarded(self) -> list:
        return self.spans

    def llm_calls(self) -> int:
        return len(self.llm.requests)


def run_client(
    collector,
    sink: Sink,
    client: str,
    *,
    in_process: dict | None = None,
    service: str = "ops-app",
    extra=(),
    answer: Reply | None = None,
) -> Run:
    """Run `client` in its own process against a fresh fake LLM; wait until all it sent is stored and forwarded.

    The model calls the agent's tool first, then gives `answer`."""
    llm = FakeLLM([Reply.tool_call("check_docker"), answer or Reply.text(ANSWER)])
    before, counts = len(sink.spans()), collector.engine.stats()
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
        service,
    ]
    if in_process is not None:
        command += ["--claimwatch", json.dumps(in_process)]
    command += list(extra)
    env = {
        **os.environ,
        "NO_PROXY": "127.0.0.1,localhost",
        "no_proxy": "127.0.0.1,localhost",
        "OPENAI_API_KEY": "test-key",
        # One export at shutdown: the whole trace reaches the collector in one request.
        "OTEL_BSP_SCHEDULE_DELAY": "60000",
    }
    try:
        done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=CLIENT_TIMEOUT_S)
        assert done.returncode == 0, done.stderr[-3000:]
        report = json.loads(done.stdout.strip().splitlines()[-1])
        wait_for(lambda: collector.engine.flush(10) and len(sink.spans()) >= before + report["spans"])
        collector.store.flush(10)
    finally:
        llm.close()
    after = collector.engine.stats()
    share = {k: v - counts.get(k, 0) for k, v in after.items() if isinstance(v, int)}
    return Run(
        client, report["answer"], report["spans"], report["claimwatch"], llm, collector, sink.spans()[before:], share
    )


@pytest.fixture(scope="module", params=[1, 2], ids=["one-process", "two-workers"])
def runs(tmp_path_factory, request):
    """Each client runs once per collector setup, the checks in one process or in two
    worker processes (processor.workers); the tests read its outcome."""
    sink = Sink()
    collector = start_collector(
        tmp_path_factory.mktemp("collector"),
        processor={"workers": request.param},
        agents=ENFORCING,
        exporters={"otlp": {"endpoint": sink.endpoint, "protocol": "http/protobuf"}},
        annotations={"verbosity": "debug"},  # the most talkative setting must still leak nothing
    )
    cache: dict[tuple, Run] = {}

    def get(client: str, **kwargs) -> Run:
        key = (client, repr(sorted(kwargs.items())))
        if key not in cache:
            cache[key] = run_client(collector, sink, client, **kwargs)
        return cache[key]

    try:
        yield get
    finally:
        collector.stop()
        sink.close()


def attrs(span) -> dict:
    return {kv.key: any_value(kv.value) for kv in span.attributes}


def everything(span) -> str:
    """Every attribute and event value of a forwarded span, as one string."""
    parts = [span.name, json.dumps(attrs(span), ensure_ascii=False, default=str)]
    for event in span.events:
        parts.append(event.name)
        parts.append(
            json.dumps({kv.key: any_value(kv.value) for kv in event.attributes}, ensure_ascii=False, default=str)
        )
    return "\n".join(parts)


def leaks(run: Run) -> list[str]:
    """Names of forwarded spans that still carry the blocked answer, or any piece of it, under any key."""
    return [s.name for s in run.forwarded() for t in TELL_TALES if t.lower() in everything(s).lower()]


def expected() -> object:
    """What the output check concludes about ANSWER on its own, with the collector's facts."""
    return OutputValidator(load_config({"validation": FACTS})).validate(ANSWER, trust=10)


def output_rows(run: Run) -> list[tuple]:
    return run.rows(
        "SELECT span_name, agent_id, mode, verdict, enforced, claim_count, violation_count, text_length "
        "FROM evaluations WHERE check_name = 'output' ORDER BY time, span_name"
    )


def agent_names(run: Run) -> set:
    """The agent names the collector resolved from the spans' attributes (not from service.name)."""
    return {r[0] for r in run.rows("SELECT DISTINCT agent_name FROM evaluations")}


def assert_one_row_per_span_and_check(run: Run) -> None:
    """Each span judged once by each check that wanted it, and no check failed on the client's spans."""
    doubled = run.rows("SELECT span_id, check_name, count(*) FROM evaluations GROUP BY ALL HAVING count(*) > 1")
    assert doubled == []
    failed = run.rows(
        "SELECT span_name, check_name, error FROM evaluations WHERE error IS NOT NULL OR verdict = 'error_fallback'"
    )
    assert failed == []


def assert_enforced_answer(run: Run, rows: list[tuple]) -> None:
    """The answer's row: the enforcing agent, blocked and enforced, its claims counted once."""
    want = expected()
    assert want.claims, "ANSWER must hold claims for this test to mean anything"
    answered = [r for r in rows if r[7] == len(ANSWER)]
    assert len(answered) == 1, rows
    _, agent, mode, verdict, enforced, claims, violations, _ = answered[0]
    assert (agent, mode, verdict, enforced) == (AGENT, "enforce", "block", True)
    assert (claims, violations) == (len(want.claims), len(want.violations))


# --- 1. pydantic-ai ------------------------------------------------------------------------------


@e2e
@needs("pydantic_ai")
def test_pydantic_ai_answer_reaches_the_agent_and_each_llm_call_is_evaluated_once(runs):
    run = runs("pydantic-ai")
    assert run.answer == ANSWER
    rows = output_rows(run)
    assert len(rows) == run.llm_calls() == 2
    assert {r[1] for r in rows} == {AGENT}
    assert agent_names(run) == {AGENT}
    assert_one_row_per_span_and_check(run)
    assert_enforced_answer(run, rows)


@e2e
@needs("pydantic_ai")
def test_pydantic_ai_blocked_answer_leaves_no_trace_when_the_agent_enforces(runs):
    run = runs("pydantic-ai")
    by_name = {s.name: s for s in run.forwarded()}
    agent_span = attrs(by_name[f"invoke_agent {AGENT}"])
    # The agent run span repeats the answer under pydantic-ai's own keys: both were rewritten, shapes kept.
    assert agent_span["final_result"].startswith("[claimwatch]")
    assert json.loads(agent_span["pydantic_ai.all_messages"])[-1]["role"] == "assistant"
    assert leaks(run) == []
    # The tool's own result is not the agent's output: it travels untouched.
    assert TOOL_RESULT in everything(by_name["execute_tool check_docker"])


# --- 2. OpenAI Agents SDK under OpenInference --------------------------------------------------


@e2e
@needs("agents", "openinference.instrumentation.openai_agents")
def test_openai_agents_answer_is_read_once_when_content_and_contents_both_carry_it(runs):
    run = runs("openai-agents")
    assert run.answer == ANSWER
    rows = output_rows(run)
    assert len(rows) == run.llm_calls() == 2
    assert {r[1] for r in rows} == {AGENT}
    assert agent_names(run) == {AGENT}
    assert_one_row_per_span_and_check(run)
    assert_enforced_answer(run, rows)


@e2e
@needs("agents", "openinference.instrumentation.openai_agents")
def test_openai_agents_blocked_answer_leaves_no_trace_when_the_agent_enforces(runs):
    assert leaks(runs("openai-agents")) == []


@e2e
@needs("agents", "openinference.instrumentation.openai_agents")
def test_openai_agents_answer_in_short_parts_leaves_no_part_behind_when_blocked(runs):
    # One message, two output_text parts, each shorter than redaction's guess at "a piece of the answer".
    run = runs("openai-agents", answer=Reply.text("Docker is not running.", "PostgreSQL is down."))
    rows = output_rows(run)
    assert [r[3:5] for r in rows if r[7]] == [("block", True)]
    assert leaks(run) == []


# --- 3. OpenAI client under OpenInference --------------------------------------------------------


@e2e
@needs("openinference.instrumentation.openai")
def test_openinference_openai_chat_completions_get_verdicts_and_rows(runs):
    run = runs("openinference-openai")
    assert run.answer == ANSWER
    rows = output_rows(run)
    assert len(rows) == run.llm_calls() == 2
    assert {r[1] for r in rows} == {AGENT}
    assert agent_names(run) == {AGENT}
    assert_one_row_per_span_and_check(run)
    assert_enforced_answer(run, rows)
    assert {r[0] for r in run.rows("SELECT DISTINCT session_id FROM evaluations")} == {"s-1"}
    verdicts = [attrs(s).get("claimwatch.verdict") for s in run.forwarded() if s.name == "ChatCompletion"]
    assert sorted(verdicts) == ["block", "pass"]
    assert leaks(run) == []


# --- 4. OpenAI client under OpenLLMetry ----------------------------------------------------------


@e2e
@needs("opentelemetry.instrumentation.openai")
def test_openllmetry_openai_chat_completions_get_verdicts_and_rows(runs):
    run = runs("openllmetry", service=AGENT)
    assert run.answer == ANSWER
    rows = output_rows(run)
    assert len(rows) == run.llm_calls() == 2
    assert {r[1] for r in rows} == {AGENT}  # known by service.name only
    assert_one_row_per_span_and_check(run)
    assert_enforced_answer(run, rows)
    verdicts = [attrs(s).get("claimwatch.verdict") for s in run.forwarded() if s.name == "openai.chat"]
    assert sorted(verdicts) == ["block", "pass"]
    assert leaks(run) == []


# --- 5. The in-process processor in front of the collector --------------------------------------

IN_PROCESS = {
    "validation": FACTS,
    "agents": ENFORCING,
    "storage": {"enabled": False},
    "annotations": {"verbosity": "debug"},
}


@e2e
@needs("pydantic_ai")
def test_in_process_evaluation_reaches_the_sink_once_and_the_collector_records_it_as_upstream(runs):
    run = runs("pydantic-ai", in_process=IN_PROCESS)
    assert run.answer == ANSWER
    evaluated = [s for s in run.forwarded() if "claimwatch.verdict" in attrs(s)]
    # Every LLM call's output was judged in process (the actions check may judge the tool span too).
    assert sum("output" in attrs(s)["claimwatch.checks"] for s in evaluated) == run.llm_calls() == 2
    for span in evaluated:
        checks = attrs(span)["claimwatch.checks"]
        names = [
            {kv.key: any_value(kv.value) for kv in e.attributes}["gen_ai.evaluation.name"]
            for e in span.events
            if e.name == "gen_ai.evaluation.result"
        ]
        assert len(names) == len(checks) and len(set(names)) == len(names), (span.name, names)
    stats = run.stats
    upstream = sum(len(attrs(s)["claimwatch.checks"]) for s in evaluated)
    assert stats["evaluated_upstream"] == len(evaluated)
    assert run.rows("SELECT count(*) FROM evaluations") == [(upstream,)]
    assert run.rows(
        "SELECT agent_id, mode, verdict, enforced FROM evaluations WHERE check_name = 'output' AND verdict = 'block'"
    ) == [(AGENT, "enforce", "block", True)]
    assert_one_row_per_span_and_check(run)
    assert run.processor_stats.get("enforced_blocks") == 1
    assert leaks(run) == []


# --- Spans that reach the collector one by one, the trace split by a slow tool ---------------------


@e2e
@needs("pydantic_ai")
def test_pydantic_ai_spans_exported_one_by_one_across_the_decision_wait_leak_nothing(runs):
    # The tool takes longer than the collector's decision wait (150 ms): the LLM call that asked for
    # it is judged alone, and the agent run span repeating the answer arrives after the block.
    run = runs("pydantic-ai", extra=("--simple", "--tool-delay", "0.5"))
    assert run.answer == ANSWER
    rows = output_rows(run)
    assert len(rows) == run.llm_calls() == 2
    assert {r[1] for r in rows} == {AGENT}
    assert agent_names(run) == {AGENT}
    assert_one_row_per_span_and_check(run)
    assert_enforced_answer(run, rows)
    assert leaks(run) == []


@e2e
@needs("pydantic_ai")
def test_pydantic_ai_streamed_answer_is_judged_once_and_leaves_no_trace(runs):
    run = runs("pydantic-ai", extra=("--stream",))
    assert run.answer == ANSWER
    assert all(body.get("stream") for _, body in run.llm.requests)
    rows = output_rows(run)
    assert len(rows) == run.llm_calls() == 2
    assert agent_names(run) == {AGENT}
    assert_one_row_per_span_and_check(run)
    assert_enforced_answer(run, rows)
    assert leaks(run) == []


# --- A structured answer: pydantic-ai's output tool -------------------------------------------------


@e2e
@needs("pydantic_ai")
def test_pydantic_ai_structured_answer_is_judged_and_blocked_when_given_through_the_output_tool(runs):
    # pydantic-ai's default for a structured output type: the model calls the `final_result` tool, whose
    # arguments are the answer. Read as a mere tool call, the answer was never judged and left unblocked.
    structured = Reply.tool_call("final_result", summary=ANSWER, healthy=False)
    run = runs("pydantic-ai-structured", answer=structured)
    assert json.loads(run.answer) == {"summary": ANSWER, "healthy": False}
    rows = output_rows(run)
    assert len(rows) == run.llm_calls() == 2
    assert_one_row_per_span_and_check(run)
    assert_enforced_answer(run, rows)
    assert leaks(run) == []
    agent_span = attrs(next(s for s in run.forwarded() if s.name == f"invoke_agent {AGENT}"))
    assert json.loads(agent_span["final_result"])["healthy"] is False  # the answer's shape is kept


# --- What the clients write, read span by span -----------------------------------------------------


def test_openinference_message_written_as_content_and_as_parts_is_read_once():
    # As openinference-instrumentation-openai-agents writes a Responses API message with two text parts.
    span = SpanRecord(
        "t",
        "s",
        None,
        "response",
        {
            "openinference.span.kind": "LLM",
            "llm.output_messages.0.message.role": "assistant",
            "llm.output_messages.0.message.contents.0.message_content.type": "text",
            "llm.output_messages.0.message.contents.0.message_content.text": "Docker is not running.",
            "llm.output_messages.0.message.contents.1.message_content.type": "text",
            "llm.output_messages.0.message.contents.1.message_content.text": "PostgreSQL is down.",
            "llm.output_messages.0.message.content": "Docker is not running.\nPostgreSQL is down.",
            "llm.output_messages.1.message.role": "assistant",
            "llm.output_messages.1.message.contents.0.message_content.type": "reasoning",
            "llm.output_messages.1.message.contents.0.message_content.text": "The service check said so.",
        },
    )
    found = extract(span)
    assert found.text == "Docker is not running.\nPostgreSQL is down.\n\nThe service check said so."


def test_pydantic_ai_output_tool_arguments_are_read_as_the_answer():
    parameters = {
        "function_tools": [{"name": "check_docker"}],
        "output_mode": "tool",
        "output_tools": [{"name": "final_result", "kind": "output"}],
    }
    messages = [
        {
            "role": "assistant",
            "parts": [
                {"type": "tool_call", "id": "c1", "name": "check_docker", "arguments": '{"host": "build-1 is fine"}'},
                {
                    "type": "tool_call",
                    "id": "c2",
                    "name": "final_result",
                    "arguments": json.dumps({"summary": ANSWER, "healthy": False, "notes": ["Restarted nothing."]}),
                },
            ],
        }
    ]
    span = SpanRecord(
        "t",
        "s",
        None,
        "chat gpt-test",
        {
            "gen_ai.output.messages": json.dumps(messages),
            "model_request_parameters": json.dumps(parameters),
        },
    )
    found = extract(span)
    assert found.text == f"{ANSWER}\n\nRestarted nothing."
    assert [t.name for t in found.tool_calls] == ["check_docker", "final_result"]


def test_output_tool_arguments_cut_by_the_length_limit_are_read_as_far_as_they_go():
    cut = json.dumps({"summary": ANSWER, "healthy": False})[:40]
    messages = json.dumps(
        [{"role": "assistant", "parts": [{"type": "tool_call", "name": "final_result", "arguments": cut}]}]
    )
    span = SpanRecord(
        "t",
        "s",
        None,
        "chat",
        {
            "gen_ai.output.messages": messages,
            "model_request_parameters": json.dumps({"output_tools": [{"name": "final_result"}]}),
        },
    )
    found = extract(span)
    assert found.truncated and ANSWER.startswith(found.text) and len(found.text) > 10


def test_a_tool_call_is_not_an_answer_when_no_output_tool_is_declared():
    messages = json.dumps(
        [
            {
                "role": "assistant",
                "parts": [{"type": "tool_call", "name": "final_result", "arguments": json.dumps({"summary": ANSWER})}],
            }
        ]
    )
    found = extract(SpanRecord("t", "s", None, "chat", {"gen_ai.output.messages": messages}))
    assert found.text == "" and [t.name for t in found.tool_calls] == ["final_result"]


@e2e
@needs("agents", "openinference.instrumentation.openai_agents")
def test_in_process_openai_agents_answer_is_enforced_for_the_agent_that_gave_it(runs):
    # An output guardrail reviewing the answer keeps the agent span open after the LLM span has ended.
    # The process is named for the app, not the agent, so only the agent span can name the agent.
    run = runs(
        "openai-agents",
        in_process=IN_PROCESS,
        service="ops-app",
        extra=("--review-delay", "1.0"),
    )
    assert run.answer == ANSWER
    assert run.rows(
        "SELECT agent_id, mode, verdict, enforced FROM evaluations WHERE check_name = 'output' AND verdict <> 'pass'"
    ) == [(AGENT, "enforce", "block", True)]
    assert leaks(run) == []


# --- OpenLLMetry in events mode: the messages travel as log records ---------------------------------


@e2e
@needs("opentelemetry.instrumentation.openai")
def test_openllmetry_events_mode_answer_is_judged_from_its_choice_log_record(runs):
    run = runs("openllmetry-events", service=AGENT)
    assert run.answer == ANSWER
    rows = [r for r in output_rows(run) if r[0] == "gen_ai.choice"]
    assert {r[1] for r in rows} == {AGENT}
    assert_enforced_answer(run, rows)


@e2e
@needs("opentelemetry.instrumentation.openai")
def test_openllmetry_events_mode_history_sent_with_a_request_is_not_judged_again(runs):
    run = runs("openllmetry-events", service=AGENT)
    assert len(output_rows(run)) == run.llm_calls()
    assert_one_row_per_span_and_check(run)


@e2e
@needs("opentelemetry.instrumentation.openai")
def test_openllmetry_events_mode_tool_call_choice_is_recorded(runs):
    run = runs("openllmetry-events", service=AGENT)
    calls = run.rows("SELECT tool_calls FROM evaluations WHERE check_name = 'output' AND span_name = 'gen_ai.choice'")
    assert sorted(c for (c,) in calls) == [[], ["check_docker"]]


@e2e
@needs("pydantic_ai")
def test_collector_queue_depth_returns_to_zero_once_everything_is_processed(runs):
    # The slow tool makes sure the decision wait, not a flush, releases the first part of the trace.
    run = runs("pydantic-ai", extra=("--simple", "--tool-delay", "0.5"))
    run.collector.engine.flush(10)
    assert run.collector.engine.stats()["queue_depth"] == 0
