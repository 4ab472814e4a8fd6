"""The Vercel AI SDK's `ai.*` convention, read span by span (processors/otel/extract_vercel.py).

The attribute sets are what `tests/node/vercel_agent.js` made `ai` 6.0.326 emit (desk scenario with
generateText over Chat Completions, ops scenario with streamText over the Responses API), trimmed to the
keys claimwatch reads; the `args` / `result` shapes are those of `ai` 4.3's source.
"""

from __future__ import annotations

import json

from claimwatch.checks.pipeline import Pipeline
from claimwatch.checks.redact import redacted_attributes
from claimwatch.collector.prefilter import plain_wire
from claimwatch.grounding.trace import evidence_for, input_passages, span_passages
from claimwatch.otel.extract import ToolCall, extract, may_carry_output
from claimwatch.otel.extract_vercel import input_messages
from claimwatch.otel.records import SpanRecord
from claimwatch.verify.actions import actions_from_trace, input_conversation, tool_call_of_span
from tests.otlp_helpers import FACTS
from tests.test_prefilter import _spans

PROMPT = "What does reservation K7QX2 include? Also make sure requests is installed."
RESERVATION = "Reservation K7QX2: 1 checked bag, total price $120, flight LH 404 on 2026-12-01."
ANSWER = "Your reservation K7QX2 has 2 checked bags."
USER = {"role": "user", "content": [{"type": "text", "text": PROMPT}]}
LOOKUP = {"role": "assistant", "content": [{"type": "tool-call", "toolCallId": "call_1", "toolName": "get_reservation",
                                             "input": {"code": "K7QX2"}}]}  # fmt: skip
LOOKED_UP = {"role": "tool", "content": [{"type": "tool-result", "toolCallId": "call_1", "toolName": "get_reservation",
                                          "output": {"type": "text", "value": RESERVATION}}]}  # fmt: skip
INSTALL = {"role": "assistant", "content": [{"type": "tool-call", "toolCallId": "call_2", "toolName": "bash",
                                              "input": {"command": "pip install requests"}}]}  # fmt: skip
INSTALLED = {"role": "tool", "content": [{"type": "tool-result", "toolCallId": "call_2", "toolName": "bash",
                                          "output": {"type": "text", "value": "Successfully installed requests-2.32.3"}}]}  # fmt: skip
BASE = {"ai.telemetry.functionId": "ops-helper"}

# --- the desk run, generateText: three model calls, two tool runs, the root span -----------------------
ASK_LOOKUP = {**BASE, "ai.operationId": "ai.generateText.doGenerate", "ai.prompt.messages": json.dumps([USER]),
              "ai.response.toolCalls": '[{"toolCallId":"call_1","toolName":"get_reservation","input":"{\\"code\\": \\"K7QX2\\"}"}]',
              "gen_ai.response.id": "chatcmpl-1"}  # fmt: skip
RAN_LOOKUP = {**BASE, "ai.operationId": "ai.toolCall", "ai.toolCall.name": "get_reservation", "ai.toolCall.id": "call_1",
              "ai.toolCall.args": '{"code":"K7QX2"}', "ai.toolCall.result": json.dumps(RESERVATION)}  # fmt: skip
RAN_INSTALL = {**BASE, "ai.operationId": "ai.toolCall", "ai.toolCall.name": "bash", "ai.toolCall.id": "call_2",
               "ai.toolCall.args": '{"command":"pip install requests"}',
               "ai.toolCall.result": '"Successfully installed requests-2.32.3"'}  # fmt: skip
ANSWERED = {**BASE, "ai.operationId": "ai.generateText.doGenerate",
            "ai.prompt.messages": json.dumps([USER, LOOKUP, LOOKED_UP, INSTALL, INSTALLED], separators=(",", ":")),
            "ai.response.text": ANSWER, "gen_ai.response.id": "chatcmpl-3"}  # fmt: skip
ROOT = {**BASE, "ai.operationId": "ai.generateText", "ai.prompt": json.dumps({"prompt": PROMPT}),
        "ai.response.text": ANSWER}  # fmt: skip
# --- the ops run, streamText: the first model call asks for the tool, with its input as an object ---------
STREAM_ASK = {**BASE, "ai.operationId": "ai.streamText.doStream", "ai.response.text": "",
              "ai.response.toolCalls": '[{"type":"tool-call","toolCallId":"call_1","toolName":"check_docker","input":{},'
                                       '"providerMetadata":{"openai":{"itemId":"fc_1"}}}]'}  # fmt: skip


def span(name: str, attributes: dict, span_id: str = "s1", parent: str | None = "root", end: int = 1) -> SpanRecord:
    return SpanRecord("t" * 32, span_id, parent, name, attributes, (), {"service.name": "vercel-app"}, end - 1, end)


def test_a_model_calls_answer_is_read_and_its_root_spans_repeat_is_not():
    found = extract(span("ai.generateText.doGenerate", ANSWERED))
    assert (found.text, found.source, found.tool_calls, found.truncated) == (ANSWER, "ai.response.text", (), False)
    root = span("ai.generateText", ROOT, "root", None)
    assert may_carry_output(root) and extract(root) is None
    assert extract(span("ai.streamText", {**ROOT, "ai.operationId": "ai.streamText"})) is None


def test_a_model_calls_tool_calls_keep_their_ids_whether_the_input_is_json_text_or_an_object():
    asked = extract(span("ai.generateText.doGenerate", ASK_LOOKUP))
    assert asked.text == "" and asked.tool_calls == (ToolCall("get_reservation", '{"code": "K7QX2"}'),)
    assert asked.tool_calls[0].id == "call_1"
    streamed = extract(span("ai.streamText.doStream", STREAM_ASK))
    assert [(c.name, c.arguments, c.id) for c in streamed.tool_calls] == [("check_docker", "{}", "call_1")]
    # AI SDK 4 wrote the input as `args`.
    old = {"ai.response.toolCalls": '[{"toolCallType":"function","toolCallId":"c9","toolName":"bash","args":"{}"}]'}
    assert [(c.name, c.arguments, c.id) for c in extract(span("ai.generateText.doGenerate", old)).tool_calls] == [
        ("bash", "{}", "c9")]


def test_reasoning_and_an_objects_strings_are_the_answer_too():
    reasoned = {"ai.operationId": "ai.generateText.doGenerate", "ai.response.reasoning": "The tool says 1 bag.",
                "ai.response.text": ANSWER}  # fmt: skip
    assert extract(span("x", reasoned)).text == "The tool says 1 bag.\n\n" + ANSWER
    obj = {"ai.operationId": "ai.generateObject.doGenerate", "ai.response.object": json.dumps({"summary": ANSWER})}
    assert (extract(span("x", obj)).text, extract(span("x", obj)).source) == (ANSWER, "ai.response.object")
    cut = {"ai.operationId": "ai.generateObject.doGenerate", "ai.response.object": '{"summary": "Your reserv'}
    assert extract(span("x", cut)).truncated


def test_a_tool_run_gives_its_name_arguments_id_and_result_as_text():
    name, arguments, result, status, call_id = tool_call_of_span(span("ai.toolCall", RAN_LOOKUP))
    assert (name, json.loads(arguments), result, status, call_id) == (
        "get_reservation", {"code": "K7QX2"}, RESERVATION, None, "call_1")
    [passage] = span_passages(span("ai.toolCall", RAN_LOOKUP))
    assert (passage.source, passage.text, passage.tool_name, passage.key) == (
        "tool_result", RESERVATION, "get_reservation", "ai.toolCall.result")
    # A structured result stays the JSON the SDK wrote; a failed run has no result and an error status.
    structured = {**RAN_LOOKUP, "ai.toolCall.result": '{"bags":1,"price":120}'}
    assert tool_call_of_span(span("ai.toolCall", structured))[2] == '{"bags":1,"price":120}'
    failed = {k: v for k, v in RAN_LOOKUP.items() if k != "ai.toolCall.result"}
    assert tool_call_of_span(span("ai.toolCall", failed)._replace(status="ERROR"))[2] is None


def test_prompt_messages_are_the_conversation_the_actions_check_reads():
    answered = span("ai.generateText.doGenerate", ANSWERED, "s5", end=5)
    conversation = input_conversation(answered)
    assert [m["role"] for m in conversation] == ["user", "assistant", "tool", "assistant", "tool"]
    before = [span("ai.toolCall", RAN_LOOKUP, "s2", end=2), span("ai.toolCall", RAN_INSTALL, "s4", end=4)]
    actions = actions_from_trace(before, answered)
    # Each call once, in the conversation's order, citing the tool span that ran it (matched by call id).
    assert [(a.tool, a.call_id, a.span_id, a.result) for a in actions] == [
        ("get_reservation", "call_1", "s2", RESERVATION), ("bash", "call_2", "s4", "Successfully installed requests-2.32.3")]


def test_prompt_messages_give_the_query_and_the_tools_echo_is_left_to_the_tool_span():
    answered = span("ai.generateText.doGenerate", ANSWERED, "s5", end=5)
    own, query = input_passages(answered)
    assert query == PROMPT
    assert [(p.source, p.tool_name, p.key) for p in own] == [
        ("user_message", None, "ai.prompt.messages[0]"), ("tool_message", "get_reservation", "ai.prompt.messages[2]"),
        ("tool_message", "bash", "ai.prompt.messages[4]")]
    passages, _ = evidence_for(answered, [span("ai.toolCall", RAN_LOOKUP, "s2", end=2)])
    reservation = [p for p in passages if p.text == RESERVATION]
    assert [(p.source, p.span_id) for p in reservation] == [("tool_result", "s2")]


def test_a_json_tool_result_in_the_prompt_is_written_as_the_tool_span_writes_it():
    value = {"bags": 1, "price": 120, "note": "Gepäck"}
    message = {"role": "tool", "content": [{"type": "tool-result", "toolCallId": "c1", "toolName": "get_reservation",
                                            "output": {"type": "json", "value": value}}]}  # fmt: skip
    [converted] = input_messages(json.dumps([message]))
    # JSON.stringify: no spaces, non-ASCII as is.
    assert converted["parts"][0]["response"] == '{"bags":1,"price":120,"note":"Gepäck"}'
    # AI SDK 4 kept the result as it was, under `result`.
    old = {"role": "tool", "content": [{"type": "tool-result", "toolCallId": "c1", "toolName": "t", "result": "ok"}]}
    assert input_messages([old])[0]["parts"][0]["response"] == "ok"


def test_the_agent_is_the_function_the_call_serves_not_the_service():
    pipeline = Pipeline({"validation": FACTS})
    assert pipeline.identify(span("ai.generateText.doGenerate", ANSWERED)).agent_id == "ops-helper"
    # A GenAI agent name, where a framework writes one, still comes first.
    named = {**ANSWERED, "gen_ai.agent.name": "desk-agent"}
    assert pipeline.identify(span("ai.generateText.doGenerate", named)).agent_id == "desk-agent"
    unnamed = {k: v for k, v in ANSWERED.items() if k != "ai.telemetry.functionId"}
    assert pipeline.identify(span("ai.generateText.doGenerate", unnamed)).agent_id == "vercel-app"


def test_every_span_of_the_sdk_reaches_the_checks_past_the_prefilter():
    for attributes in (ASK_LOOKUP, RAN_LOOKUP, ANSWERED, ROOT, STREAM_ASK):
        assert plain_wire(_spans(attributes)[0].proto) is None, attributes["ai.operationId"]


def test_a_blocked_answer_is_redacted_under_every_key_that_carries_it():
    notice = "[blocked]"
    narration = "Docker is not running.\nPostgreSQL is down."
    echoed = {"ai.prompt.messages": json.dumps([USER, {"role": "assistant", "content": [
        {"type": "text", "text": narration}, LOOKUP["content"][0]]}])}  # fmt: skip
    for attributes in ({"ai.response.text": narration}, echoed):
        out = redacted_attributes(attributes, [narration], notice)
        assert out and "Docker is not running" not in json.dumps(out)
    turn = json.loads(redacted_attributes(echoed, [narration], notice)["ai.prompt.messages"])[1]
    assert [p["type"] for p in turn["content"]] == ["text", "tool-call"] and turn["content"][0]["text"] == notice
