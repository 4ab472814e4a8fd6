"""Interop with Anthropic's client under the two instrumentations its users run, end to end and offline.

The official `anthropic` SDK runs in a process of its own
(`tests/helpers/anthropic_clients.py`), instrumented by Arize's
openinference-instrumentation-anthropic (LLM spans under an AGENT span) or by
Traceloop's opentelemetry-instrumentation-anthropic (GenAI `anthropic.chat`
spans; the agent is known by service.name), against a fake Messages API on
127.0.0.1 (`tests/helpers/fake_anthropic.py`): whole or streamed answers,
`tool_use` blocks (after a sentence, as Claude often sends them), `tool_result`
blocks sent back in a user message, then a text answer. The tools run untraced,
as most users run them: the calls and results are only in the LLM spans.
Spans go over real OTLP/HTTP (some through `ClaimwatchSpanProcessor` first) to
one running collector (DuckDB file, forwarding to a sink).

- the answer is read: a claim contradicting a fact is a violation, blocked and
  kept out of everything forwarded (under any key) when the agent enforces,
  recorded and forwarded as it was when it audits; each LLM call judged once;
- the desk scenario of `tests/test_real_clients_checks.py`: the tool call
  reaches tool_policy (a deny rule blocks it) and the actions check, and the
  tool result is the evidence that makes a contradicting answer FABRICATED.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT
from tests.helpers.fake_anthropic import FakeAnthropic
from tests.helpers.fake_llm import Reply
from tests.helpers.real_clients import RESERVATION_CODE
from tests.otlp_helpers import FACTS, Sink, start_collector, wait_for
from tests.test_real_clients import ANSWER, TELL_TALES, attrs, everything, expected
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


def text(answer: str | tuple[str, ...]) -> Reply:
    return Reply.text(*answer) if isinstance(answer, tuple) else Reply.text(answer)


def run_agent(collector, sink: Sink, client: str, scenario: str, agent: str, replies: list[Reply], extra=(),
              in_process: dict | None = None) -> Run:  # fmt: skip
    """Run the agent in its own process; wait until all it sent is stored and forwarded."""
    llm = FakeAnthropic(replies)
    before = len(sink.spans())
    if in_process is not None:
        extra = (*extra, "--claimwatch", json.dumps(in_process))
    command = [sys.executable, "-m", "tests.helpers.anthropic_clients", client, scenario, "--agent", agent,
               "--llm", llm.base_url, "--otlp", f"http://{collector.addresses.otlp_http}/v1/traces", *extra]  # fmt: skip
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
        wait_for(lambda: collector.engine.flush(10) and len(sink.spans()) >= before + report["spans"])
        collector.store.flush(10)
    finally:
        llm.close()
    assert len(llm.requests) == len(replies), "the client must call every tool, then answer"
    store = FileStore(in_process["storage"]["path"]) if in_process is not None else collector.store
    return Run(client, report["answer"], store, sink.spans()[before:])


@pytest.fixture(scope="module")
def agents(tmp_path_factory):
    """One collector for the module; each run happens once, on first use."""
    sink = Sink()
    collector = start_collector(
        tmp_path_factory.mktemp("anthropic"),
        agents=AGENTS,
        checks=CHECKS,
        exporters={"otlp": {"endpoint": sink.endpoint, "protocol": "http/protobuf"}},
        annotations={"verbosity": "debug"},  # the most talkative setting must still leak nothing
    )
    cache: dict[tuple, Run] = {}

    def get(client: str, scenario: str, agent: str, answer: str | tuple[str, ...], extra: tuple = (),
            in_process: dict | None = None) -> Run:  # fmt: skip
        """A run; an answer given as a tuple comes in one text block per part."""
        key = (client, scenario, agent, answer, extra, json.dumps(in_process, sort_keys=True))
        if key not in cache:
            if scenario == "docker":
                replies = [Reply.tool_call("check_docker"), text(answer)]
            else:
                replies = [LOOKUP, INSTALL, text(answer)]
            config = None
            if in_process is not None:
                path = tmp_path_factory.mktemp("in-process") / "audit.duckdb"
                config = {"validation": FACTS, "agents": AGENTS, "checks": CHECKS, **in_process}
                config["storage"] = {"path": str(path), **in_process.get("storage", {})}
            cache[key] = run_agent(collector, sink, client, scenario, agent, replies, extra, config)
        return cache[key]

    try:
        yield get
    finally:
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


def assert_answer_judged(run: Run, agent: str, mode: str, enforced: bool) -> None:
    """Both LLM calls judged once by the output check; the answer's row holds its claims and violations."""
    rows = output_rows(run)
    assert len(rows) == 2, rows
    assert {r[1] for r in rows} == {agent}, rows
    want = expected()
    answered = [r for r in rows if r[7] == len(ANSWER)]
    assert len(answered) == 1, rows
    assert answered[0][2:7] == (mode, "block", enforced, len(want.claims), len(want.violations)), rows
    assert_one_row_per_span_and_check(run)


def leaks(run: Run) -> list[str]:
    """Names of forwarded spans that still carry the answer, or any piece of it, under any key."""
    return [s.name for s in run.spans for t in TELL_TALES if t.lower() in everything(s).lower()]


# --- 1. The answer is read: enforce blocks it everywhere, audit records it ----------------------------


@e2e
@pytest.mark.parametrize("client", CLIENTS)
def test_enforcing_agent_answer_is_blocked_and_no_piece_of_it_is_forwarded(agents, client):
    run = agents(client, "docker", ENFORCED, ANSWER)
    assert run.answer == ANSWER
    assert_answer_judged(run, ENFORCED, "enforce", True)
    assert leaks(run) == []


@e2e
@pytest.mark.parametrize("client", CLIENTS)
def test_enforcing_agent_streamed_answer_is_blocked_and_no_piece_of_it_is_forwarded(agents, client):
    run = agents(client, "docker", ENFORCED, ANSWER, ("--stream",))
    assert run.answer == ANSWER
    assert_answer_judged(run, ENFORCED, "enforce", True)
    assert leaks(run) == []


@e2e
@pytest.mark.parametrize("client", CLIENTS)
def test_auditing_agent_answer_is_a_violation_and_travels_as_it_was(agents, client):
    # The provider is also the global one: the SDK's own tracing adds a (metadata only) span per call,
    # which must not be judged a second time.
    run = agents(client, "docker", AUDITED, ANSWER, ("--global",))
    assert run.answer == ANSWER
    assert_answer_judged(run, AUDITED, "audit", False)
    violations = run.rows("SELECT verdict FROM violations WHERE check_name = 'output'")
    assert len(violations) == len(expected().violations) > 0
    assert len(leaks(run)) >= len(TELL_TALES)  # audit changes nothing downstream
    verdicts = sorted(attrs(s).get("claimwatch.verdict") for s in run.spans if "claimwatch.verdict" in attrs(s))
    assert verdicts.count("block") == 1, verdicts


# --- 2. The desk scenario: tool_policy, actions and grounding read the calls and results -----------------


@e2e
@pytest.mark.parametrize("client", CLIENTS)
def test_answer_contradicting_the_tool_result_is_fabricated_citing_it(agents, client):
    run = agents(client, "desk", DESK, CONTRADICTING)
    assert run.answer == CONTRADICTING
    assert_no_check_failed(run)
    assert_contradictions_fabricated(run)
    assert_fabrication_names_the_tool(run, "get_reservation")


@e2e
@pytest.mark.parametrize("client", CLIENTS)
def test_action_claims_are_graded_against_the_tool_use_blocks(agents, client):
    assert_actions_graded(agents(client, "desk", DESK, CONTRADICTING), None)


@e2e
@pytest.mark.parametrize("client", CLIENTS)
def test_requested_tool_call_is_blocked_by_a_deny_rule_on_its_input(agents, client):
    assert_deny_rule_blocks_the_lookup(agents(client, "desk", DESK, CONTRADICTING), None)


@e2e
@pytest.mark.parametrize("client", CLIENTS)
def test_desk_llm_calls_are_judged_once_each(agents, client):
    run = agents(client, "desk", DESK, CONTRADICTING)
    assert len(output_rows(run)) == 3
    assert_one_row_per_span_and_check(run)


@e2e
@pytest.mark.parametrize("client", CLIENTS)
def test_streamed_answer_agreeing_with_the_tool_result_is_grounded(agents, client):
    run = agents(client, "desk", DESK, CONSISTENT, ("--stream",))
    assert run.answer == CONSISTENT
    assert_no_check_failed(run)
    assert_consistent_answer_grounded(run)
    assert_deny_rule_blocks_the_lookup(run, None)


# --- 3. In process: ClaimwatchSpanProcessor in the agent's process -------------------------------------


@e2e
@pytest.mark.parametrize("client", CLIENTS)
def test_in_process_desk_gets_the_same_grounding_actions_and_policy_rows(agents, client):
    run = agents(client, "desk", DESK, CONTRADICTING, in_process={})
    assert run.answer == CONTRADICTING
    assert_no_check_failed(run)
    assert_contradictions_fabricated(run)
    assert_actions_graded(run, None)
    assert_deny_rule_blocks_the_lookup(run, None)


@e2e
@pytest.mark.parametrize("client", CLIENTS)
def test_in_process_enforcing_agent_answer_leaves_no_trace(agents, client):
    run = agents(client, "docker", ENFORCED, ANSWER, in_process={"annotations": {"verbosity": "debug"}})
    assert run.answer == ANSWER
    assert_answer_judged(run, ENFORCED, "enforce", True)
    assert leaks(run) == []
