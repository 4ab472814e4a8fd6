"""Interop with Anthropic's client under the two instrumentations its users run, end to end and offline.

The official `anthropic` SDK runs in a process of its own
(`tests/helpers/anthropic_clients.py`), instrumented by Arize's
openinference-instrumentation-anthropic (LLM spans under an AGENT span) or by
Traceloop's opentelemetry-instrumentation-anthropic (GenAI `anthropic.chat`
spans, each call a root span; the agent is known by service.name), against a
fake Messages API on 127.0.0.1 (`tests/helpers/fake_anthropic.py`): whole or
streamed answers, `tool_use` blocks (after a sentence, as Claude often sends
them), `tool_result` blocks sent back in a user message, then a text answer.
In the docs' own loop the tools run untraced: calls and results are only in
the LLM spans; the SDK's tool runner runs them in spans of its own and, on
message threads, sends only the new turn. Spans go over real OTLP/HTTP (some
through `ClaimwatchSpanProcessor` first) to one running collector (DuckDB
file, forwarding to a sink). `PLANS` lists the runs.

- the answer is read: a claim contradicting a fact is a violation, blocked and
  kept out of everything forwarded (under any key, in any later call's input)
  when the agent enforces, recorded and forwarded as it was when it audits;
  each LLM call judged once, however many spans write it;
- the desk scenario of `tests/test_real_clients_checks.py`: the tool call
  reaches tool_policy (a deny rule blocks it) and the actions check, and the
  tool result is the evidence that makes a contradicting answer FABRICATED.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import pytest

from claimwatch import OutputValidator, load_config
from tests.conftest import ROOT
from tests.helpers.fake_anthropic import FakeAnthropic
from tests.helpers.fake_llm import Reply
from tests.helpers.real_clients import RESERVATION_CODE
from tests.otlp_helpers import FACTS, Sink, start_collector, wait_for
from tests.test_real_clients import ANSWER, TELL_TALES, attrs, everything
from tests.test_real_clients_checks import (
    CHECKS,
    CONSISTENT,
    CONTRADICTING,
    INSTALL,
    FileStore,
    Run,
    assert_actions_graded,
    assert_consistent_answer_grounded,
    assert_contradictions_fabricated,
    assert_deny_rule_blocks_the_lookup,
    assert_fabrication_cites_the_tool_span,
    assert_fabrication_names_the_tool,
    assert_no_check_failed,
    installed,
)

e2e = pytest.mark.e2e

ENFORCED, AUDITED, DESK = "ops-helper", "ops-auditor", "desk-helper"
AGENTS = {
    "rules": [
        {"match": ENFORCED, "trust": 10, "mode": "enforce"},
        {"match": AUDITED, "trust": 10, "mode": "audit"},
        # The desk agent at trust 50 (the standard tier): unverified action claims flag below 60 (CHECKS).
        {"match": DESK, "trust": 50, "mode": "audit"},
    ]
}
# Claude's way: a sentence, then the call, in one message.
LOOKUP = Reply(content="Let me look that reservation up.", tool="get_reservation", arguments={"code": RESERVATION_CODE})
# A sentence before the call that is itself blocked: the client sends that turn back with the next request.
PREAMBLE = "Docker is not running on the build host. Let me check the service."
CHECK_AFTER_PREAMBLE = Reply(content=PREAMBLE, tool="check_docker")
CLIENT_TIMEOUT_S = 60
INSTRUMENTATIONS = {
    "openinference": "openinference.instrumentation.anthropic",
    "openllmetry": "opentelemetry.instrumentation.anthropic",
}


def client_param(name: str):
    missing = not installed("anthropic", INSTRUMENTATIONS[name])
    why = f"needs anthropic and {INSTRUMENTATIONS[name]} (pip install -e '.[test]')"
    return pytest.param(name, marks=pytest.mark.skipif(missing, reason=why), id=name)


CLIENTS = [client_param(name) for name in INSTRUMENTATIONS]


@dataclass(frozen=True)
class Plan:
    """One run: the scenario, the agent, the model's final answer, the client's options."""

    scenario: str
    agent: str
    answer: str
    extra: tuple[str, ...] = ()
    call: Reply | None = None  # the docker scenario's tool-use turn (default: the call alone)
    in_process: bool = False  # ClaimwatchSpanProcessor in the agent's process, its rows in a file

    def script(self) -> list[Reply]:
        if self.scenario == "docker":
            return [self.call or Reply.tool_call("check_docker"), Reply.text(self.answer)]
        return [LOOKUP, INSTALL, Reply.text(self.answer)]


# Every run of the module, once per instrumentation; they run two at a time when the module starts.
RUNNER = ("--runner", "--global")
PLANS = {
    # The enforcing agent: a blocked sentence before its tool call, then a blocked answer.
    "enforced": Plan("docker", ENFORCED, ANSWER, call=CHECK_AFTER_PREAMBLE),
    # The auditing agent, streamed, the provider global: the SDK's own (metadata only) spans come along.
    "audited": Plan("docker", AUDITED, ANSWER, ("--stream", "--global")),
    "desk": Plan("desk", DESK, CONTRADICTING),
    # Streamed with create(stream=True), the events put together by the agent; results as text blocks.
    "desk-consistent": Plan("desk", DESK, CONSISTENT, ("--raw-stream", "--result-blocks")),
    # The SDK's tool runner: message threads, its own execute_tool spans (no arguments, no result).
    "runner": Plan("desk", DESK, CONTRADICTING, RUNNER),
    # The same recording content; OpenLLMetry's calls inside an agent span, beside the SDK's call spans.
    "runner-content": Plan("desk", DESK, CONTRADICTING, (*RUNNER, "--sdk-content", "--outer")),
    "in-process": Plan("docker", ENFORCED, ANSWER, ("--stream",), CHECK_AFTER_PREAMBLE, in_process=True),
}


def forwarded_spans(sink: Sink, run_id: str) -> list:
    """The spans forwarded from one run (its processes' resource says which)."""
    found = []
    for request in list(sink.requests):
        for rs in request.resource_spans:
            if any(kv.key == "test.run.id" and kv.value.string_value == run_id for kv in rs.resource.attributes):
                found.extend(s for ss in rs.scope_spans for s in ss.spans)
    return found


def run_agent(collector, sink: Sink, client: str, plan: Plan, tmp_path) -> Run:
    """Run the agent in its own process; wait until all it sent is stored and forwarded."""
    run_id = f"{client}/{plan}"
    replies = plan.script()
    llm = FakeAnthropic(replies)
    extra = list(plan.extra)
    config = None
    if plan.in_process:
        config = {"validation": FACTS, "agents": AGENTS, "checks": CHECKS, "storage": {"path": str(tmp_path)}}
        extra += ["--claimwatch", json.dumps(config)]
    command = [sys.executable, "-m", "tests.helpers.anthropic_clients", client, plan.scenario, "--agent", plan.agent,
               "--run-id", run_id, "--llm", llm.base_url,
               "--otlp", f"http://{collector.addresses.otlp_http}/v1/traces", *extra]  # fmt: skip
    env = {
        **os.environ,
        "NO_PROXY": "127.0.0.1,localhost",
        "no_proxy": "127.0.0.1,localhost",
        "OTEL_BSP_SCHEDULE_DELAY": "60000",  # one export at shutdown: the whole trace in one request
    }
    try:
        done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=CLIENT_TIMEOUT_S)
        assert done.returncode == 0, done.stderr[-3000:]
        report = json.loads(done.stdout.strip().splitlines()[-1])
        wait_for(lambda: collector.engine.flush(10) and len(forwarded_spans(sink, run_id)) >= report["spans"])
        collector.store.flush(10)
    finally:
        llm.close()
    assert len(llm.requests) == len(replies), "the client must call every tool, then answer"
    store = FileStore(str(tmp_path)) if plan.in_process else collector.store
    return Run(client, report["answer"], store, forwarded_spans(sink, run_id))


@pytest.fixture(scope="module")
def agents(tmp_path_factory):
    """One collector for the module; every planned run of each installed client starts at once, two at a
    time (each is a process of its own, mostly importing), and a test waits for the one it reads."""
    sink = Sink()
    collector = start_collector(
        tmp_path_factory.mktemp("anthropic"),
        agents=AGENTS,
        checks=CHECKS,
        exporters={"otlp": {"endpoint": sink.endpoint, "protocol": "http/protobuf"}},
        annotations={"verbosity": "debug"},  # the most talkative setting must still leak nothing
    )
    pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="anthropic-run")
    runs = {
        (client, name): pool.submit(
            run_agent, collector, sink, client, plan, tmp_path_factory.mktemp("in-process") / "audit.duckdb"
        )
        for client, module in INSTRUMENTATIONS.items()
        if installed("anthropic", module)
        for name, plan in PLANS.items()
    }

    def get(client: str, name: str) -> Run:
        return runs[(client, name)].result(timeout=4 * CLIENT_TIMEOUT_S)

    try:
        yield get
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        collector.stop()
        sink.close()


# --- What the collector must conclude --------------------------------------------------------------


def output_rows(run: Run) -> list[tuple]:
    return run.rows(
        "SELECT span_name, agent_id, mode, verdict, enforced, claim_count, violation_count, text_length "
        "FROM evaluations WHERE check_name = 'output' ORDER BY time, span_name"
    )


def assert_one_row_per_span_and_check(run: Run) -> None:
    doubled = run.rows("SELECT span_id, check_name, count(*) FROM evaluations GROUP BY ALL HAVING count(*) > 1")
    assert doubled == []
    assert_no_check_failed(run)


@functools.cache
def judged(text: str) -> tuple[int, int]:
    """(claims, violations) the output check finds in `text` on its own, at the agents' trust."""
    result = validator().validate(text, trust=10)
    assert result.claims, "the text must hold claims for the test to mean anything"
    return len(result.claims), len(result.violations)


@functools.cache
def validator() -> OutputValidator:
    return OutputValidator(load_config({"validation": FACTS}))  # building it takes ~1 s: once


def assert_calls_judged(run: Run, agent: str, mode: str, blocked: dict[int, str]) -> None:
    """Each LLM call judged once by the output check, for `agent` in `mode`; the calls in `blocked`
    (index: text) blocked, with the claims and violations their text holds, enforced when enforcing."""
    rows = output_rows(run)
    assert len(rows) == 2, rows
    assert {r[1:3] for r in rows} == {(agent, mode)}, rows
    for index, row in enumerate(rows):
        if index in blocked:
            text = blocked[index]
            assert (row[3], row[4], *row[5:7], row[7]) == ("block", mode == "enforce", *judged(text), len(text)), rows
        else:
            assert row[3:5] == ("pass", False), rows
    assert_one_row_per_span_and_check(run)


def assert_no_doubled_events(run: Run) -> None:
    """Every judged span forwarded carries one evaluation event per check that judged it, and one set of
    verdict attributes, whoever judged it (the agent's process, the collector) and however many spans the
    call was written as."""
    for span in run.spans:
        a = attrs(span)
        names = [
            {kv.key: kv.value.string_value for kv in e.attributes}["gen_ai.evaluation.name"]
            for e in span.events
            if e.name == "gen_ai.evaluation.result"
        ]
        assert len(names) == len(set(names)) == len(a.get("claimwatch.checks") or ()), (span.name, names)
        assert sum(kv.key == "claimwatch.verdict" for kv in span.attributes) <= 1, span.name


def leaks(run: Run) -> list[str]:
    """Names of forwarded spans that still carry a blocked text, or any piece of it, under any key."""
    tell_tales = (*TELL_TALES, "Let me check the service")
    return [s.name for s in run.spans for t in tell_tales if t.lower() in everything(s).lower()]


# --- 1. The answer is read: enforce blocks it everywhere, audit records it ----------------------------


@e2e
@pytest.mark.parametrize("client", CLIENTS)
def test_enforcing_agent_blocked_turns_are_judged_once_and_no_piece_of_them_is_forwarded(agents, client):
    # OpenLLMetry makes each call a trace of its own: the blocked sentence before the tool call comes back
    # in the next call's input messages, in another trace.
    run = agents(client, "enforced")
    assert run.answer == ANSWER
    assert_calls_judged(run, ENFORCED, "enforce", {0: PREAMBLE, 1: ANSWER})
    assert_no_doubled_events(run)
    assert leaks(run) == []


@e2e
@pytest.mark.parametrize("client", CLIENTS)
def test_auditing_agent_streamed_answer_is_a_violation_and_travels_as_it_was(agents, client):
    run = agents(client, "audited")
    assert run.answer == ANSWER
    # The SDK's own call spans (metadata only) are not judged: one row per LLM call.
    assert_calls_judged(run, AUDITED, "audit", {1: ANSWER})
    violations = run.rows("SELECT verdict FROM violations WHERE check_name = 'output'")
    assert len(violations) == judged(ANSWER)[1]
    assert set(TELL_TALES) <= {t for s in run.spans for t in TELL_TALES if t in everything(s)}
    verdicts = [attrs(s).get("claimwatch.verdict") for s in run.spans]
    assert verdicts.count("block") == 1, verdicts


# --- 2. The desk scenario: tool_policy, actions and grounding read the calls and results -----------------


@e2e
@pytest.mark.parametrize("client", CLIENTS)
def test_answer_contradicting_the_tool_result_is_fabricated_citing_it(agents, client):
    run = agents(client, "desk")
    assert run.answer == CONTRADICTING
    assert_no_check_failed(run)
    assert_contradictions_fabricated(run)
    assert_fabrication_names_the_tool(run, "get_reservation")


@e2e
@pytest.mark.parametrize("client", CLIENTS)
def test_action_claims_are_graded_against_the_tool_use_blocks(agents, client):
    assert_actions_graded(agents(client, "desk"), None)


@e2e
@pytest.mark.parametrize("client", CLIENTS)
def test_requested_tool_call_is_blocked_by_a_deny_rule_on_its_input(agents, client):
    assert_deny_rule_blocks_the_lookup(agents(client, "desk"), None)


@e2e
@pytest.mark.parametrize("client", CLIENTS)
def test_desk_llm_calls_are_judged_once_each(agents, client):
    run = agents(client, "desk")
    assert len(output_rows(run)) == 3
    assert_one_row_per_span_and_check(run)


@e2e
@pytest.mark.parametrize("client", CLIENTS)
def test_raw_streamed_answer_agreeing_with_tool_results_given_as_blocks_is_grounded(agents, client):
    run = agents(client, "desk-consistent")
    assert run.answer == CONSISTENT
    assert_no_check_failed(run)
    assert_consistent_answer_grounded(run)
    assert_deny_rule_blocks_the_lookup(run, None)


# --- 3. The SDK's tool runner: it runs the tools (its own execute_tool spans) on message threads --------


@e2e
@pytest.mark.parametrize("client", CLIENTS)
def test_tool_runner_answer_contradicting_a_tool_result_the_server_holds_is_fabricated(agents, client):
    # Each request sends only the new tool results: the reservation is in an earlier call's input only.
    run = agents(client, "runner")
    assert run.answer == CONTRADICTING
    assert len(output_rows(run)) == 3
    assert_one_row_per_span_and_check(run)
    assert_contradictions_fabricated(run)


@e2e
@pytest.mark.parametrize("client", CLIENTS)
def test_tool_runner_spans_without_arguments_are_graded_and_decided_on_the_requested_ones(agents, client):
    run = agents(client, "runner")
    assert_actions_graded(run, run.tool_span("bash"))
    assert_deny_rule_blocks_the_lookup(run, run.tool_span("get_reservation"))


@e2e
@pytest.mark.parametrize("client", CLIENTS)
def test_tool_runner_recording_content_is_judged_once_citing_its_tool_span(agents, client):
    # Two spans per call (the SDK's and the instrumentation's), one judgement; the result is read from the
    # SDK's tool span (anthropic.tool_result.content).
    run = agents(client, "runner-content")
    assert run.answer == CONTRADICTING
    assert len(output_rows(run)) == 3
    assert_one_row_per_span_and_check(run)
    assert_contradictions_fabricated(run)
    assert_fabrication_cites_the_tool_span(run, "get_reservation")
    assert_no_doubled_events(run)
    assert_actions_graded(run, run.tool_span("bash"))
    assert_deny_rule_blocks_the_lookup(run, run.tool_span("get_reservation"))


# --- 4. In process: ClaimwatchSpanProcessor in the agent's process -------------------------------------


@e2e
@pytest.mark.parametrize("client", CLIENTS)
def test_in_process_enforcing_agent_streamed_turns_are_blocked_and_leave_no_trace(agents, client):
    run = agents(client, "in-process")
    assert run.answer == ANSWER
    assert_calls_judged(run, ENFORCED, "enforce", {0: PREAMBLE, 1: ANSWER})
    assert_no_doubled_events(run)
    assert leaks(run) == []
