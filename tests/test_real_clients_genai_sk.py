"""Interop with Google's GenAI SDK under the OpenTelemetry project's own instrumentation, end to end and
offline.

Each run (`tests/helpers/genai_sk_clients.py`) is a process of its own: google-genai's
`generate_content` with Python functions as tools (its automatic function calling runs them and asks
the model again) against the fake Gemini REST server (`tests/helpers/fake_gemini.py`), traced by
opentelemetry-instrumentation-google-genai. One `generate_content <model>` span covers the whole
automatic-function-calling loop (its output is the last response only; the model's tool requests are
written nowhere), with an `execute_tool <name>` child per tool run. Where the messages go is the user's
choice (`OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`, with
`OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental`): on the span (SPAN_ONLY), on a
`gen_ai.client.inference.operation.details` log record only (EVENT_ONLY: the tool spans then carry no
arguments or results either), on both (SPAN_AND_EVENT), or in files util-genai's `upload` hook writes,
the spans and log records holding only their references. The spans and log records go over real
OTLP/HTTP (or the spans first through `ClaimwatchSpanProcessor`) to a running collector that stores
rows in DuckDB and forwards to a sink. google-genai has no agent: the process is the agent, named by
its `service.name`.

- ops: the model calls `check_docker`, then says docker is not running, which contradicts a fact;
  enforcing, nothing of the answer may be forwarded, and it is judged once wherever it is written;
- desk: the model looks a reservation up and runs `pip install`, then answers: grounding, actions and
  tool_policy read the tool spans.
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
from tests.helpers.fake_gemini import FakeGemini
from tests.helpers.fake_llm import FakeLLM, Reply
from tests.helpers.real_clients import AGENT, TOOL_RESULT
from tests.otlp_helpers import FACTS, Sink, wait_for
from tests.test_real_clients import ANSWER, ENFORCING, everything, expected
from tests.test_real_clients_checks import (
    AUDITING,
    CHECKS,
    CONSISTENT,
    CONTRADICTING,
    DENY_RULE,
    INSTALL,
    LOOKUP,
    FileStore,
    assert_actions_graded,
    assert_consistent_answer_grounded,
    assert_contradictions_fabricated,
)
from tests.test_real_clients_langchain import Run

e2e = pytest.mark.e2e
CLIENT_TIMEOUT_S = 90
GENAI = ("google.genai", "opentelemetry.instrumentation.google_genai")
SK = ("semantic_kernel",)
CLIENTS = {"genai": GENAI, "sk": SK}
# The content modes that put the answer on log records: option -> client variant
# (A streamed run with EVENT_ONLY was dropped for CI time: streaming is "stream", records are "events".)
LOG_MODES = ("events", "both-events")
OPERATION_DETAILS = "gen_ai.client.inference.operation.details"
GENERATE = "generate_content gemini-2.5-flash"
NOTHING_ELSE = "Nothing else."  # the chat's second answer
SK_PLUGIN = "HostTools"  # tests/helpers/genai_sk_clients.py: the plugin holding the shared tools
SK_SUB_AGENT = "docker_checker"
# Semantic Kernel's runs beside the plain one: its log records exported too; the agent's answer streamed.
# (A streamed run without its records was dropped for CI time: "stream-events" streams too.)
SK_MODES = ("events", "stream-events")
# Semantic Kernel's agent as a plugin of another: its function is `<agent name>-<agent name>`.
SK_TRANSFER = Reply.tool_call(f"{SK_SUB_AGENT}-{SK_SUB_AGENT}", messages="Is docker running on the build host?")
SUB_REPORT = "Docker is not running on the build host."  # the sub-agent's answer: contradicts the fact too


def each_client(names=("genai",)):
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
    llm = FakeLLM(replies) if client.startswith("sk") else FakeGemini(replies)
    run_id = f"{client}-{id(llm)}"
    command = [sys.executable, "-m", "tests.helpers.genai_sk_clients", client, "--llm", llm.base_url,
               "--otlp", f"http://{collector.addresses.otlp_http}/v1/traces", "--service", AGENT]  # fmt: skip
    if in_process is not None:
        command += ["--claimwatch", json.dumps(in_process)]
    env = {
        **os.environ,
        "NO_PROXY": "127.0.0.1,localhost",
        "no_proxy": "127.0.0.1,localhost",
        "GOOGLE_API_KEY": "test-key",
        "OTEL_BSP_SCHEDULE_DELAY": "60000",  # one export at shutdown: the whole run in one request
        "OTEL_RESOURCE_ATTRIBUTES": f"{RUN_TAG}={run_id}",
    }
    for key in ("OTEL_SEMCONV_STABILITY_OPT_IN", "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT",
                "OTEL_INSTRUMENTATION_GENAI_EMIT_EVENT", "OTEL_INSTRUMENTATION_GENAI_COMPLETION_HOOK",
                "GOOGLE_GENAI_USE_VERTEXAI"):  # fmt: skip
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


class Runs(ClientRuns):
    """This file's scenarios on the shared two collectors (the auditing one with grounding, actions and a
    tool deny rule)."""

    def __init__(self, tmp_path_factory) -> None:
        super().__init__(tmp_path_factory, ENFORCING, AUDITING, CHECKS)

    def _run(self, scenario: str, client: str, option) -> Run:
        if client == "sk":
            return self._run_sk(scenario, option)
        docker = [Reply.tool_call("check_docker"), Reply.text(ANSWER)]
        if scenario == "desk":
            return run(self.desk_collector, self.desk_sink, client + "-desk", [LOOKUP, INSTALL, Reply.text(option)])
        if scenario == "desk-chat":
            replies = [LOOKUP, INSTALL, Reply.text(option), Reply.text(NOTHING_ELSE)]
            return run(self.desk_collector, self.desk_sink, client + "-chat-desk", replies)
        if scenario == "chat":
            replies = [*docker, Reply.text(NOTHING_ELSE)]
            return run(self.ops_collector, self.ops_sink, client + "-chat", replies)
        if option in ("stream", *LOG_MODES, "upload-events"):
            return run(self.ops_collector, self.ops_sink, f"{client}-{option}", docker)
        if option != "in-process":
            return run(self.ops_collector, self.ops_sink, client, docker)
        path = self.tmp.mktemp("in-process") / "audit.duckdb"
        config = {"validation": FACTS, "agents": ENFORCING, "storage": {"path": str(path)},
                  "annotations": {"verbosity": "debug"}}  # fmt: skip
        return run(self.ops_collector, self.ops_sink, client, docker, config)

    def _run_sk(self, scenario: str, option) -> Run:
        """Semantic Kernel's scenarios: its tools are named `<plugin>-<function>` in the model's calls."""
        docker = [Reply.tool_call(f"{SK_PLUGIN}-check_docker"), Reply.text(ANSWER)]
        if scenario == "desk":
            replies = [Reply.tool_call(f"{SK_PLUGIN}-{LOOKUP.tool}", **LOOKUP.arguments),
                       Reply.tool_call(f"{SK_PLUGIN}-{INSTALL.tool}", **INSTALL.arguments), Reply.text(option)]  # fmt: skip
            return run(self.desk_collector, self.desk_sink, "sk-desk", replies)
        if scenario == "team":
            replies = [SK_TRANSFER, docker[0], Reply.text(SUB_REPORT), Reply.text(ANSWER)]
            return run(self.ops_collector, self.ops_sink, "sk-team", replies)
        if option in SK_MODES:
            return run(self.ops_collector, self.ops_sink, f"sk-{option}", docker)
        if option != "in-process":
            return run(self.ops_collector, self.ops_sink, "sk", docker)
        path = self.tmp.mktemp("in-process") / "audit.duckdb"
        config = {"validation": FACTS, "agents": ENFORCING, "storage": {"path": str(path)},
                  "annotations": {"verbosity": "debug"}}  # fmt: skip
        return run(self.ops_collector, self.ops_sink, "sk", docker, config)

    def start(self, items, run_of_test: dict, clients: dict) -> None:
        """As ClientRuns.start, and the log-record runs, whose option is the test's parameter."""
        items = list(items)
        super().start(items, run_of_test, clients)
        for item in items:
            params = getattr(getattr(item, "callspec", None), "params", {})
            if params.get("option") in (*LOG_MODES, *SK_MODES) and installed(
                *clients.get(params.get("client"), ("-",))
            ):
                self._submit("ops", params["client"], params["option"])


@pytest.fixture(scope="module")
def runs(tmp_path_factory, request):
    runs_ = Runs(tmp_path_factory)
    runs_.start((i for i in request.session.items if i.module is request.module), RUN_OF_TEST, CLIENTS)
    try:
        yield runs_
    finally:
        runs_.close()


def assert_answer_blocked_once_for_the_agent(r: Run, span_name: str) -> None:
    """One output evaluation, from `span_name`: the generate_content span covers the whole automatic
    function calling loop (two requests to the model) and says only its last answer."""
    assert r.answer == ANSWER and r.llm_calls == 2
    assert_no_doubles_and_no_failures(r)
    rows = output_rows(r)
    want = expected()
    assert [x[0] for x in rows] == [span_name], rows
    _, agent, mode, verdict, enforced, claims, violations, length = rows[0]
    assert (agent, mode, verdict, enforced) == (AGENT, "enforce", "block", True), rows
    assert (claims, violations, length) == (len(want.claims), len(want.violations), len(ANSWER)), rows
    assert r.rows("SELECT count(*) FROM violations WHERE check_name = 'output'") == [(len(want.violations),)]
    assert leaks(r) == []


# --- ops: the answer is read, judged once, for the agent, and kept from flowing downstream when enforced --


@e2e
@each_client()
def test_answer_on_the_span_is_judged_once_for_the_agent_and_blocked(runs, client):
    r = runs.get("ops", client)
    assert_answer_blocked_once_for_the_agent(r, GENERATE)
    # The tool's own result is not the agent's output: it travels untouched.
    assert any(TOOL_RESULT in everything(s) for s in r.spans)


@e2e
@each_client()
def test_streamed_answer_is_judged_whole_once_and_no_piece_of_it_is_forwarded(runs, client):
    r = runs.get("ops", client, "stream")
    assert_answer_blocked_once_for_the_agent(r, GENERATE)
    pieces = [ANSWER[i : i + 12] for i in range(0, len(ANSWER), 12)]  # the fake server's chunks
    assert [(s.name, p) for s in r.spans for p in pieces if p in everything(s)] == []


@e2e
@each_client()
@pytest.mark.parametrize("option", LOG_MODES)
def test_answer_on_log_records_is_judged_once_for_the_agent(runs, client, option):
    r = runs.get("ops", client, option)
    # From its operation.details log record (which carries the span's id); with SPAN_AND_EVENT the span's
    # copy is the same output, not judged again, and is not forwarded.
    assert_answer_blocked_once_for_the_agent(r, OPERATION_DETAILS)


@e2e
@each_client()
def test_uploaded_content_leaves_nothing_to_judge_and_nothing_fails(runs, client):
    r = runs.get("ops", client, "upload-events")
    assert r.answer == ANSWER
    assert_no_doubles_and_no_failures(r)
    # Only references to the uploaded files travel: no output is read from a file path.
    assert output_rows(r) == []
    refs = [s for s in r.spans if "gen_ai.output.messages_ref" in everything(s)]
    assert len(refs) == 1, [s.name for s in r.spans]


@e2e
@each_client()
def test_in_process_processor_blocks_the_answer_for_the_agent_and_leaks_nothing(runs, client):
    r = runs.get("ops", client, "in-process")
    assert r.answer == ANSWER
    assert r.rows(
        "SELECT agent_id, mode, verdict, enforced FROM evaluations WHERE check_name = 'output' AND verdict <> 'pass'"
    ) == [(AGENT, "enforce", "block", True)]
    assert_no_doubles_and_no_failures(r)
    assert r.processor_stats.get("enforced_blocks") == 1
    assert leaks(r) == []


# --- chat: a session of two turns, each model call a trace of its own, the tool run untraced ------------


@e2e
@each_client()
def test_chat_turns_are_judged_once_each_and_the_blocked_answer_leaves_no_copy_in_later_turns(runs, client):
    r = runs.get("chat", client)
    assert r.answer == ANSWER and r.llm_calls == 3
    assert_no_doubles_and_no_failures(r)
    rows = output_rows(r)
    # The tool request (no claim), the answer (blocked), the follow-up's answer (passes): one row each.
    assert [(x[0], x[1], x[3], x[5] > 0) for x in rows] == [
        (GENERATE, AGENT, "pass", False), (GENERATE, AGENT, "block", True), (GENERATE, AGENT, "pass", False)
    ], rows  # fmt: skip
    # The next turns' requests carry the blocked answer back in their history: redacted there too.
    assert leaks(r) == []
    assert any(NOTHING_ELSE in everything(s) for s in r.spans)


@e2e
@each_client()
def test_chat_answer_contradicting_the_tool_result_in_its_history_is_fabricated(runs, client):
    r = runs.get("desk-chat", client, CONTRADICTING)
    assert r.answer == CONTRADICTING
    assert_no_doubles_and_no_failures(r)
    # No tool span: the result is evidence as the `tool_call_response` part of the answering call's input.
    cited = r.rows("SELECT DISTINCT evidence_source, evidence_tool FROM grounding_claims WHERE grade = 'FABRICATED'")
    assert cited == [("tool_message", "get_reservation")], cited
    # The model's requests for the tools are LLM outputs with ids: the deny rule blocks the lookup there.
    rows = r.rows("SELECT source, tool_name, decision, rule_id FROM tool_policy_decisions ORDER BY tool_name")
    assert rows == [("llm_output", "bash", "allow", None), ("llm_output", "get_reservation", "block", DENY_RULE)], rows
    assert_actions_graded(r, None)


# --- desk: grounding, actions and tool_policy ----------------------------------------------------------


@e2e
@each_client()
def test_answer_contradicting_the_tool_result_is_fabricated_citing_the_tool_span(runs, client):
    r = runs.get("desk", client, CONTRADICTING)
    assert r.answer == CONTRADICTING
    assert_no_doubles_and_no_failures(r)
    assert_contradictions_fabricated(r)
    cited = r.rows("SELECT DISTINCT evidence_span_id, evidence_tool FROM grounding_claims WHERE grade = 'FABRICATED'")
    assert cited == [(r.tool_span("get_reservation"), "get_reservation")], cited


@e2e
@each_client()
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
    # The model's requests for the tools are written nowhere: the tool spans are the only sightings.
    rows = r.rows("SELECT source, tool_name, decision, rule_id, span_id FROM tool_policy_decisions ORDER BY tool_name")
    assert [x[:4] for x in rows] == [("execute_tool", "bash", "allow", None),
                                     ("execute_tool", "get_reservation", "block", DENY_RULE)], rows  # fmt: skip
    assert rows[1][4] == r.tool_span("get_reservation")
    violations = r.rows("SELECT subject, detector_id, verdict, count(*) FROM violations WHERE check_name = 'tool_policy' "
                        "GROUP BY ALL")  # fmt: skip
    assert violations == [("get_reservation", DENY_RULE, "block", 1)], violations
    # The calls' arguments are no claims of the agent's.
    assert [x[0] for x in output_rows(r)] == [GENERATE]


# --- Semantic Kernel: a ChatCompletionAgent with a plugin over its OpenAI connector -----------------------


@e2e
@each_client(("sk",))
@pytest.mark.parametrize("option", [None, *SK_MODES])
def test_sk_answer_is_judged_once_for_the_agent_and_blocked(runs, client, option):
    r = runs.get("ops", client, option)
    assert r.answer == ANSWER and r.llm_calls == 2
    assert_no_doubles_and_no_failures(r)
    rows = output_rows(r)
    # Without its log records, Semantic Kernel's chat spans hold no content: the agent span's output is
    # the answer. With them, each call's gen_ai.choice record is read, and the agent span is their repeat.
    judged = ["gen_ai.choice"] * 2 if option and option.endswith("events") else [f"invoke_agent {AGENT}"]
    assert [x[0] for x in rows] == judged, rows
    answered = [x for x in rows if x[5]]
    assert len(answered) == 1, rows
    want = expected()
    _, agent, mode, verdict, enforced, claims, violations, length = answered[0]
    assert (agent, mode, verdict, enforced) == (AGENT, "enforce", "block", True), rows
    assert (claims, violations, length) == (len(want.claims), len(want.violations), len(ANSWER)), rows
    assert leaks(r) == []
    assert any(TOOL_RESULT in everything(s) for s in r.spans)


@e2e
@each_client(("sk",))
def test_sk_sub_agent_answer_is_judged_for_the_sub_agent_and_the_root_answer_blocked(runs, client):
    r = runs.get("team", client)
    assert r.answer == ANSWER
    assert_no_doubles_and_no_failures(r)
    said = sorted(x[1:5] for x in output_rows(r) if x[5])
    # No rule names the sub-agent: what it says is flagged and travels; the root's answer is blocked.
    assert said == [(SK_SUB_AGENT, "audit", "flag", False), (AGENT, "enforce", "block", True)], output_rows(r)
    assert any(SUB_REPORT in everything(s) for s in r.spans)
    assert [s.name for s in r.spans if "PostgreSQL is down" in everything(s)] == []


@e2e
@each_client(("sk",))
def test_sk_in_process_processor_blocks_the_answer_and_leaks_nothing(runs, client):
    r = runs.get("ops", client, "in-process")
    assert r.answer == ANSWER
    assert r.rows(
        "SELECT agent_id, mode, verdict, enforced FROM evaluations WHERE check_name = 'output' AND verdict <> 'pass'"
    ) == [(AGENT, "enforce", "block", True)]
    assert_no_doubles_and_no_failures(r)
    assert leaks(r) == []


@e2e
@each_client(("sk",))
def test_sk_answer_contradicting_the_tool_result_is_fabricated_citing_the_tool_span(runs, client):
    r = runs.get("desk", client, CONTRADICTING)
    assert r.answer == CONTRADICTING
    assert_no_doubles_and_no_failures(r)
    assert_contradictions_fabricated(r)
    cited = r.rows("SELECT DISTINCT evidence_span_id, evidence_tool FROM grounding_claims WHERE grade = 'FABRICATED'")
    assert cited == [(r.tool_span(f"{SK_PLUGIN}-get_reservation"), f"{SK_PLUGIN}-get_reservation")], cited


@e2e
@each_client(("sk",))
def test_sk_answer_agreeing_with_the_tool_result_is_grounded(runs, client):
    r = runs.get("desk", client, CONSISTENT)
    assert_no_doubles_and_no_failures(r)
    assert_consistent_answer_grounded(r)


@e2e
@each_client(("sk",))
def test_sk_action_claims_are_graded_against_the_tool_calls(runs, client):
    r = runs.get("desk", client, CONTRADICTING)
    assert_actions_graded(r, r.tool_span(f"{SK_PLUGIN}-bash"))


@e2e
@each_client(("sk",))
def test_sk_tool_call_is_blocked_by_a_deny_rule_on_its_arguments(runs, client):
    r = runs.get("desk", client, CONTRADICTING)
    rows = r.rows("SELECT source, tool_name, decision, rule_id, span_id, tool_call_id FROM tool_policy_decisions "
                  "ORDER BY tool_name, source")  # fmt: skip
    lookup = f"{SK_PLUGIN}-get_reservation"
    assert [x[:4] for x in rows] == [("execute_tool", f"{SK_PLUGIN}-bash", "allow", None),
                                     ("execute_tool", lookup, "block", DENY_RULE)], rows  # fmt: skip
    assert rows[1][4] == r.tool_span(lookup)
    violations = r.rows("SELECT subject, detector_id, verdict, count(*) FROM violations WHERE check_name = 'tool_policy' "
                        "GROUP BY ALL")  # fmt: skip
    assert violations == [(lookup, DENY_RULE, "block", 1)], violations


# test -> the run it reads: (scenario, option)
RUN_OF_TEST = {
    test_answer_on_the_span_is_judged_once_for_the_agent_and_blocked.__name__: ("ops", None),
    test_streamed_answer_is_judged_whole_once_and_no_piece_of_it_is_forwarded.__name__: ("ops", "stream"),
    test_uploaded_content_leaves_nothing_to_judge_and_nothing_fails.__name__: ("ops", "upload-events"),
    test_in_process_processor_blocks_the_answer_for_the_agent_and_leaks_nothing.__name__: ("ops", "in-process"),
    test_chat_turns_are_judged_once_each_and_the_blocked_answer_leaves_no_copy_in_later_turns.__name__: ("chat", None),
    test_chat_answer_contradicting_the_tool_result_in_its_history_is_fabricated.__name__: ("desk-chat", CONTRADICTING),
    test_answer_contradicting_the_tool_result_is_fabricated_citing_the_tool_span.__name__: ("desk", CONTRADICTING),
    test_sk_sub_agent_answer_is_judged_for_the_sub_agent_and_the_root_answer_blocked.__name__: ("team", None),
    test_sk_in_process_processor_blocks_the_answer_and_leaks_nothing.__name__: ("ops", "in-process"),
    test_sk_answer_contradicting_the_tool_result_is_fabricated_citing_the_tool_span.__name__: ("desk", CONTRADICTING),
    test_sk_answer_agreeing_with_the_tool_result_is_grounded.__name__: ("desk", CONSISTENT),
    test_answer_agreeing_with_the_tool_result_is_grounded.__name__: ("desk", CONSISTENT),
    test_action_claims_are_graded_against_the_tool_calls.__name__: ("desk", CONTRADICTING),
    test_tool_call_is_blocked_by_a_deny_rule_on_its_arguments.__name__: ("desk", CONTRADICTING),
}


# --- What Semantic Kernel writes, read span by span (attributes copied from the runs above) --------------

from claimwatch.otel.records import SpanRecord  # noqa: E402

# Its invoke_agent span: gen_ai.agent.id is the agent object's uuid4, new each time the agent is built.
_SK_AGENT_SPAN = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.id": "c5d5c78f-99a2-4ee9-b64f-5f0b4c3e4c4c",
                  "gen_ai.agent.name": AGENT, "gen_ai.input.messages": "[]",
                  "gen_ai.output.messages": json.dumps([{"role": "assistant", "content": ANSWER, "name": AGENT}])}  # fmt: skip
# Its execute_tool span of a plugin's function: `<plugin>-<function>`.
_SK_TOOL_SPAN = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": f"{SK_PLUGIN}-bash",
                 "gen_ai.tool.call.id": "call_2", "gen_ai.tool.description": "Runs a shell command on the build host.",
                 "gen_ai.tool.call.arguments": '{"command": "pip install requests"}',
                 "gen_ai.tool.call.result": "Successfully installed requests-2.32.3"}  # fmt: skip


def _identify(span: SpanRecord, *above: SpanRecord):
    from claimwatch.checks.pipeline import Pipeline

    chain = [span, *above]
    linked = [s._replace(parent_span_id=chain[i + 1].span_id if i + 1 < len(chain) else None)
              for i, s in enumerate(chain)]  # fmt: skip
    return Pipeline({"validation": FACTS}).identify(linked[0], {s.span_id: s for s in linked}.get)


def test_a_uuid_agent_id_beside_the_agent_name_is_not_the_agent():
    agent = SpanRecord("t", "a1", None, f"invoke_agent {AGENT}", _SK_AGENT_SPAN, ())
    chat = SpanRecord(
        "t", "c1", None, "chat gpt-test", {"gen_ai.operation.name": "chat", "gen_ai.system": "openai"}, ()
    )
    assert _identify(agent).agent_id == AGENT
    assert _identify(chat, agent).agent_id == AGENT  # from the ancestor, as the LLM spans below it read it
    # An id that is no uuid is the agent's (a hosted agent's), and a uuid with no name beside it is all there is.
    named = {**_SK_AGENT_SPAN, "gen_ai.agent.id": "asst_7Kq2"}
    assert _identify(SpanRecord("t", "a2", None, "invoke_agent", named, ())).agent_id == "asst_7Kq2"
    bare = {k: v for k, v in _SK_AGENT_SPAN.items() if k != "gen_ai.agent.name"}
    assert _identify(SpanRecord("t", "a3", None, "invoke_agent", bare, ())).agent_id == bare["gen_ai.agent.id"]


def test_plugin_function_names_are_read_as_their_function_where_only_it_is_known():
    from claimwatch.policy import PolicyEngine
    from claimwatch.verify.actions import effects_of

    # The actions check: SK's `HostTools-bash` runs a shell command; a kebab-case tool keeps its own name.
    [effect] = effects_of(f"{SK_PLUGIN}-bash", '{"command": "pip install requests"}')
    assert effect.kind == "install", effect
    assert effects_of(f"{SK_PLUGIN}-bash", '{"command": "pip install requests"}') == effects_of(
        "bash", '{"command": "pip install requests"}'
    )
    assert effects_of("write-file", '{"path": "a.txt", "content": "x"}') == effects_of(
        "write_file", '{"path": "a.txt", "content": "x"}'
    )
    # The policy: the pack's shell rules and tier apply to `HostTools-bash`; a name nobody knows stays whole.
    engine = PolicyEngine()
    assert engine.decide(f"{SK_PLUGIN}-bash", {"command": "rm -rf /"}).decision == engine.decide(
        "bash", {"command": "rm -rf /"}
    ).decision == "block"  # fmt: skip
    assert engine._key(f"{SK_PLUGIN}-bash") == "bash" and engine._key("write-file") == "write_file"
    assert engine._key(f"{SK_PLUGIN}-get_reservation") == "hosttools_get_reservation"


def test_sk_tool_span_is_a_call_with_its_arguments_and_result():
    from claimwatch.grounding.trace import span_passages
    from claimwatch.verify.actions import tool_call_of_span

    span = SpanRecord("t", "s1", None, f"execute_tool {SK_PLUGIN}-bash", _SK_TOOL_SPAN, ())
    name, arguments, result, _, call_id = tool_call_of_span(span)
    assert (name, json.loads(arguments), result, call_id) == (f"{SK_PLUGIN}-bash", {"command": "pip install requests"},
                                                              "Successfully installed requests-2.32.3", "call_2")  # fmt: skip
    [passage] = span_passages(span)
    assert passage.source == "tool_result"


def test_google_genai_tool_arguments_written_as_code_attributes_are_read_as_named():
    from claimwatch.verify.actions import effects_of

    # opentelemetry-instrumentation-google-genai 1.1b1's execute_tool span (util-genai 1.1b0), as it wrote it.
    written = ('{"code.function.parameters.command.type": "str", '
               '"code.function.parameters.command.value": "pip install requests"}')  # fmt: skip
    assert effects_of("bash", written) == effects_of("bash", '{"command": "pip install requests"}')
    [effect] = effects_of("bash", written)
    assert effect.kind == "install"
    # Arguments that only partly look alike are not rebuilt: their command stays unread.
    assert effects_of("bash", '{"code.function.parameters.command.value": "pip install requests", "note": "x"}') == ()
