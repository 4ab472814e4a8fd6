"""Interop with the agent clients users run, end to end and offline.

Each client (pydantic-ai, the OpenAI Agents SDK under OpenInference, the OpenAI
client under OpenInference and under OpenLLMetry) runs in a process of its own
(`tests/helpers/real_clients.py`) against a fake OpenAI-compatible server on
127.0.0.1 (`tests/helpers/fake_llm.py`): the model first calls the agent's
`check_docker` tool, then answers. Spans go through the real OTLP/HTTP exporter
to a running collector that stores rows in DuckDB and forwards to a sink.
The answer contradicts the docker-running fact, and the agent is set to
enforce, so the block must leave no trace of the answer downstream.
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
from tests.conftest import ROOT
from tests.helpers.fake_llm import FakeLLM, Reply
from tests.helpers.real_clients import AGENT, TOOL_RESULT
from tests.otlp_helpers import FACTS, Sink, start_collector, wait_for

pytestmark = pytest.mark.e2e

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
    """One client's run against a collector: what the agent answered and what the collector made of it."""

    client: str
    answer: str
    exported: int
    processor_stats: dict
    llm: FakeLLM
    collector: object
    sink: Sink

    def rows(self, sql: str) -> list[tuple]:
        cursor = self.collector.store.cursor()
        try:
            return cursor.execute(sql).fetchall()
        finally:
            cursor.close()

    def forwarded(self) -> list:
        return self.sink.spans()

    def llm_calls(self) -> int:
        return len(self.llm.requests)


def run_client(tmp_path, client: str, *, agents=None, in_process: dict | None = None, service: str = AGENT) -> Run:
    """Start fake LLM, sink and collector, run `client` in its own process, wait until all it sent is forwarded."""
    llm = FakeLLM([Reply.tool_call("check_docker"), Reply.text(ANSWER)])
    sink = Sink()
    collector = start_collector(
        tmp_path,
        agents=agents or ENFORCING,
        exporters={"otlp": {"endpoint": sink.endpoint, "protocol": "http/protobuf"}},
        annotations={"verbosity": "debug"},  # the most talkative setting must still leak nothing
    )
    try:
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
        env = {
            **os.environ,
            "NO_PROXY": "127.0.0.1,localhost",
            "no_proxy": "127.0.0.1,localhost",
            "OPENAI_API_KEY": "test-key",
            # One export at shutdown: the whole trace reaches the collector in one request.
            "OTEL_BSP_SCHEDULE_DELAY": "60000",
        }
        done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=CLIENT_TIMEOUT_S)
        assert done.returncode == 0, done.stderr[-3000:]
        report = json.loads(done.stdout.strip().splitlines()[-1])
        collector.engine.flush(10)
        wait_for(lambda: len(sink.spans()) >= report["spans"])
        return Run(client, report["answer"], report["spans"], report["claimwatch"], llm, collector, sink)
    except BaseException:
        stop(collector, sink, llm)
        raise


def stop(collector, sink, llm) -> None:
    collector.stop()
    sink.close()
    llm.close()


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Each client runs once per module; the tests read its outcome."""
    cache: dict[tuple, Run] = {}

    def get(client: str, **kwargs) -> Run:
        key = (client, json.dumps(kwargs, sort_keys=True))
        if key not in cache:
            cache[key] = run_client(tmp_path_factory.mktemp(client), client, **kwargs)
        return cache[key]

    yield get
    for run in cache.values():
        stop(run.collector, run.sink, run.llm)


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


def assert_one_row_per_span_and_check(run: Run) -> None:
    doubled = run.rows("SELECT span_id, check_name, count(*) FROM evaluations GROUP BY ALL HAVING count(*) > 1")
    assert doubled == []


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


@needs("pydantic_ai")
def test_pydantic_ai_answer_reaches_the_agent_and_each_llm_call_is_evaluated_once(runs):
    run = runs("pydantic-ai")
    assert run.answer == ANSWER
    rows = output_rows(run)
    assert len(rows) == run.llm_calls() == 2
    assert {r[1] for r in rows} == {AGENT}
    assert_one_row_per_span_and_check(run)
    assert_enforced_answer(run, rows)


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


@needs("agents", "openinference.instrumentation.openai_agents")
def test_openai_agents_answer_is_read_once_when_content_and_contents_both_carry_it(runs):
    run = runs("openai-agents")
    assert run.answer == ANSWER
    rows = output_rows(run)
    assert len(rows) == run.llm_calls() == 2
    assert {r[1] for r in rows} == {AGENT}
    assert_one_row_per_span_and_check(run)
    assert_enforced_answer(run, rows)


@needs("agents", "openinference.instrumentation.openai_agents")
def test_openai_agents_blocked_answer_leaves_no_trace_when_the_agent_enforces(runs):
    assert leaks(runs("openai-agents")) == []


# --- 3. OpenAI client under OpenInference --------------------------------------------------------


@needs("openinference.instrumentation.openai")
def test_openinference_openai_chat_completions_get_verdicts_and_rows(runs):
    run = runs("openinference-openai")
    assert run.answer == ANSWER
    rows = output_rows(run)
    assert len(rows) == run.llm_calls() == 2
    assert {r[1] for r in rows} == {AGENT}
    assert_one_row_per_span_and_check(run)
    assert_enforced_answer(run, rows)
    assert {r[0] for r in run.rows("SELECT DISTINCT session_id FROM evaluations")} == {"s-1"}
    verdicts = [attrs(s).get("claimwatch.verdict") for s in run.forwarded() if s.name == "ChatCompletion"]
    assert sorted(verdicts) == ["block", "pass"]
    assert leaks(run) == []


# --- 4. OpenAI client under OpenLLMetry ----------------------------------------------------------


@needs("opentelemetry.instrumentation.openai")
def test_openllmetry_openai_chat_completions_get_verdicts_and_rows(runs):
    run = runs("openllmetry")
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


@needs("pydantic_ai")
def test_in_process_evaluation_reaches_the_sink_once_and_the_collector_records_it_as_upstream(runs):
    run = runs("pydantic-ai", in_process=IN_PROCESS, agents={"defaultMode": "audit"})
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
    stats = run.collector.engine.stats()
    upstream = sum(len(attrs(s)["claimwatch.checks"]) for s in evaluated)
    assert stats["evaluated_upstream"] == len(evaluated)
    assert run.rows("SELECT count(*) FROM evaluations") == [(upstream,)]
    assert run.rows(
        "SELECT agent_id, mode, verdict, enforced FROM evaluations WHERE check_name = 'output' AND verdict = 'block'"
    ) == [(AGENT, "enforce", "block", True)]
    assert_one_row_per_span_and_check(run)
    assert run.processor_stats.get("enforced_blocks") == 1
    assert leaks(run) == []
