"""Interop with the Vercel AI SDK (TypeScript agents, its own `ai.*` telemetry), end to end and offline.

`tests/node/vercel_agent.js` runs an AI SDK agent (`ai` 6 with `@ai-sdk/openai`, pinned in
tests/node/package.json) in a Node process of its own against the fake OpenAI-compatible server,
with `experimental_telemetry: {isEnabled: true, functionId: AGENT}` and the OpenTelemetry Node SDK
exporting real OTLP/HTTP to a running collector that stores rows in DuckDB and forwards to a sink.
The agent's service is named otherwise (`SERVICE`): the agent must be known by its functionId.

Scenarios, as in `tests/test_real_clients_langchain.py`:
- ops: `generateText` (Chat Completions) and `streamText` (Responses API) call `check_docker`, then say
  docker is not running, which contradicts a fact; enforcing, nothing of the answer may be forwarded
  (the root span repeats it in its own `ai.response.text`) and the repeat is not judged again;
  auditing, it is judged and forwarded as it was;
- narrated: the model says what it found and calls the tool in the same turn; the next model call's
  `ai.prompt.messages` echoes the blocked words;
- desk: the agent looks a reservation up and runs `pip install`, then answers: grounding, actions
  and tool_policy read the `ai.toolCall` spans and the model calls' `ai.toolCall` requests.
"""

from __future__ import annotations

import json
import os
import subprocess
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

import pytest

from claimwatch import OutputValidator, load_config
from tests.helpers.client_rows import assert_no_doubles_and_no_failures, leaks, spans_of
from tests.helpers.fake_llm import FakeLLM, Reply
from tests.helpers.node import needs_node, npm_install
from tests.helpers.real_clients import AGENT, TOOL_RESULT
from tests.otlp_helpers import FACTS, Sink, start_collector, wait_for
from tests.test_real_clients import ANSWER, ENFORCING, attrs, everything, expected
from tests.test_real_clients_checks import (
    AUDITING,
    CHECKS,
    CONSISTENT,
    CONTRADICTING,
    INSTALL,
    LOOKUP,
    assert_actions_graded,
    assert_consistent_answer_grounded,
    assert_contradictions_fabricated,
    assert_deny_rule_blocks_the_lookup,
    assert_fabrication_cites_the_tool_span,
)
from tests.test_real_clients_checks import Run as ChecksRun

pytestmark = [pytest.mark.e2e, needs_node]
CLIENT_TIMEOUT_S = 60
SERVICE = "vercel-app"  # the process's service.name: not the agent's name, which is its functionId
NARRATION = "Docker is not running.\nPostgreSQL is down."
CLOSING = "Is there anything else I can check?"
GENERATE, STREAM = "generate", "stream"
PARALLEL_RUNS = 2


@dataclass
class Run(ChecksRun):
    """A run as the checks' tests read it (rows scoped to its traces), plus how many model calls it made."""

    llm_calls: int = 0

    def tool_span(self, tool: str) -> str:
        """The id of the one forwarded `ai.toolCall` span that ran `tool`."""
        found = [s.span_id.hex() for s in self.spans if attrs(s).get("ai.toolCall.name") == tool]
        assert len(found) == 1, (tool, sorted(s.name for s in self.spans))
        return found[0]


def run(node_dir, collector, sink: Sink, scenario: str, replies: list[Reply], api: str = GENERATE) -> Run:
    """Run the agent in its own Node process; wait until all it sent is stored and forwarded."""
    llm = FakeLLM(replies)
    run_id = f"{scenario}-{api}-{id(llm)}"
    command = ["node", "vercel_agent.js", scenario, "--llm", llm.base_url,
               "--otlp", f"http://{collector.addresses.otlp_http}/v1/traces",
               "--function-id", AGENT, "--service", SERVICE, "--run", run_id]  # fmt: skip
    if api == STREAM:
        command.append("--stream")
    env = {**os.environ, "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"}
    try:
        done = subprocess.run(command, cwd=node_dir, env=env, capture_output=True, text=True,
                              timeout=CLIENT_TIMEOUT_S)  # fmt: skip
        assert done.returncode == 0, done.stderr[-3000:]
        report = json.loads(done.stdout.strip().splitlines()[-1])
        wait_for(lambda: collector.engine.flush(10) and len(spans_of(sink, run_id)) >= report["spans"], timeout=30)
        collector.store.flush(10)
    finally:
        llm.close()
    return Run(f"vercel-ai-{api}", report["answer"], collector.store, spans_of(sink, run_id), len(llm.requests))


class Runs:
    """Two collectors (enforcing with debug annotations; auditing with grounding, actions and a tool deny
    rule), each forwarding to its sink; every run started ahead, two at a time, its outcome read on first use."""

    PLAN = (("ops", GENERATE), ("ops", STREAM), ("narrated", GENERATE), ("audit", GENERATE),
            ("desk", CONTRADICTING), ("desk", CONSISTENT))  # fmt: skip

    def __init__(self, tmp_path_factory, node_dir) -> None:
        self.node_dir = node_dir
        self.sinks, self.collectors = [], []
        self.ops = self._collector(tmp_path_factory, agents=ENFORCING, annotations={"verbosity": "debug"})
        self.desk = self._collector(tmp_path_factory, agents=AUDITING, checks=CHECKS)
        self.pool = ThreadPoolExecutor(PARALLEL_RUNS, thread_name_prefix="vercel-run")
        self.futures: dict[tuple, Future] = {key: self.pool.submit(self._run, *key) for key in self.PLAN}

    def _collector(self, tmp_path_factory, **sections):
        sink = Sink()
        collector = start_collector(tmp_path_factory.mktemp("collector"),
                                    exporters={"otlp": {"endpoint": sink.endpoint, "protocol": "http/protobuf"}},
                                    **sections)  # fmt: skip
        self.sinks.append(sink)
        self.collectors.append(collector)
        return collector, sink

    def _run(self, scenario: str, option: str) -> Run:
        docker = [Reply.tool_call("check_docker"), Reply.text(ANSWER)]
        if scenario == "ops":
            return run(self.node_dir, *self.ops, "ops", docker, option)
        if scenario == "narrated":
            narrated = [Reply(content=NARRATION, tool="check_docker"), Reply.text(CLOSING)]
            return run(self.node_dir, *self.ops, "ops", narrated)
        if scenario == "audit":
            return run(self.node_dir, *self.desk, "ops", docker)
        return run(self.node_dir, *self.desk, "desk", [LOOKUP, INSTALL, Reply.text(option)])

    def get(self, scenario: str, option: str = GENERATE) -> Run:
        return self.futures[(scenario, option)].result()

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)
        for collector, sink in zip(self.collectors, self.sinks, strict=True):
            collector.stop()
            sink.close()


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    runs_ = Runs(tmp_path_factory, npm_install())
    try:
        yield runs_
    finally:
        runs_.close()


def output_rows(run_: Run) -> list[tuple]:
    return run_.rows(
        "SELECT span_name, agent_id, mode, verdict, enforced, claim_count, violation_count, service "
        "FROM evaluations WHERE check_name = 'output' ORDER BY time, span_name"
    )


both_apis = pytest.mark.parametrize("api", [GENERATE, STREAM])


# --- ops: the answer is read, judged once, for the agent its functionId names ---------------------------


@both_apis
def test_answer_is_judged_once_for_the_function_and_blocked_when_it_enforces(runs, api):
    r = runs.get("ops", api)
    assert r.answer == ANSWER
    want = expected()
    rows = output_rows(r)
    # One row per model call (doGenerate / doStream); none for the root span that repeats the answer.
    model_call = "ai.generateText.doGenerate" if api == GENERATE else "ai.streamText.doStream"
    assert [x[0] for x in rows] == [model_call] * r.llm_calls and r.llm_calls == 2, rows
    assert {x[1] for x in rows} == {AGENT} and {x[7] for x in rows} == {SERVICE}, rows
    assert_no_doubles_and_no_failures(r)
    answered = [x for x in rows if x[6]]
    assert len(answered) == 1, rows
    assert answered[0][2:5] == ("enforce", "block", True), rows
    assert answered[0][5:7] == (len(want.claims), len(want.violations))
    assert r.rows("SELECT count(*) FROM violations WHERE check_name = 'output'") == [(len(want.violations),)]


@both_apis
def test_blocked_answer_leaves_no_copy_under_any_key(runs, api):
    r = runs.get("ops", api)
    assert leaks(r) == []
    # The model call's text and the root span's repeat of it both carry the notice instead.
    noticed = sorted(s.name for s in r.spans if "[claimwatch]" in str(attrs(s).get("ai.response.text", "")))
    root = "ai.generateText" if api == GENERATE else "ai.streamText"
    assert noticed == sorted([root, f"{root}.{'doGenerate' if api == GENERATE else 'doStream'}"]), noticed
    # The tool's own result is not the agent's output: it travels untouched.
    assert any(TOOL_RESULT in everything(s) for s in r.spans)


def test_blocked_narration_before_a_tool_call_leaves_no_copy_in_the_next_calls_prompt(runs):
    r = runs.get("narrated")
    assert r.rows("SELECT verdict, enforced FROM evaluations WHERE check_name = 'output' AND verdict <> 'pass'") == [
        ("block", True)
    ]
    assert_no_doubles_and_no_failures(r)
    assert leaks(r) == []
    # The next call's ai.prompt.messages keeps its shape: the notice stands in the assistant's text part.
    [prompt] = [attrs(s)["ai.prompt.messages"] for s in r.spans if "check_docker" in attrs(s).get(
        "ai.prompt.messages", "") and "tool-result" in attrs(s)["ai.prompt.messages"]]  # fmt: skip
    turn = next(m for m in json.loads(prompt) if m["role"] == "assistant")
    assert [p["type"] for p in turn["content"]] == ["text", "tool-call"] and "[claimwatch]" in turn["content"][0]["text"]
    assert any(CLOSING in everything(s) for s in r.spans)


def test_auditing_agent_answer_is_judged_and_forwarded_as_it_was(runs):
    r = runs.get("audit")
    want = OutputValidator(load_config({"validation": FACTS})).validate(ANSWER, trust=AUDITING["rules"][0]["trust"])
    assert want.violations and want.verdict != "pass"
    rows = [x for x in output_rows(r) if x[6]]
    assert [x[1:5] + x[6:7] for x in rows] == [(AGENT, "audit", want.verdict, False, len(want.violations))], rows
    assert_no_doubles_and_no_failures(r)
    assert sum(ANSWER in everything(s) for s in r.spans) == 2  # the model call's text and the root's repeat


# --- desk: grounding, actions and tool_policy read the ai.toolCall spans --------------------------------


def test_answer_contradicting_the_tool_result_is_fabricated_citing_the_tool_span(runs):
    r = runs.get("desk", CONTRADICTING)
    assert r.answer == CONTRADICTING and r.llm_calls == 3
    assert_no_doubles_and_no_failures(r)
    assert_contradictions_fabricated(r)
    # Cited: the ai.toolCall span the result came from, not its echo in the next call's ai.prompt.messages.
    assert_fabrication_cites_the_tool_span(r, "get_reservation")


def test_answer_agreeing_with_the_tool_result_is_grounded(runs):
    r = runs.get("desk", CONSISTENT)
    assert_no_doubles_and_no_failures(r)
    assert_consistent_answer_grounded(r)


def test_action_claims_are_graded_against_the_tool_calls(runs):
    r = runs.get("desk", CONTRADICTING)
    assert_actions_graded(r, r.tool_span("bash"))


def test_tool_call_is_blocked_by_a_deny_rule_on_its_arguments(runs):
    # On the model call's ai.response.toolCalls and on the ai.toolCall span: one call (one id), one violation.
    r = runs.get("desk", CONTRADICTING)
    assert_deny_rule_blocks_the_lookup(r, r.tool_span("get_reservation"))
