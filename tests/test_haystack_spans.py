"""Haystack's spans as its two tracings really wrote them (haystack-ai 3.4.1; attribute values copied from
tests/test_real_clients_haystack_dspy.py's runs, shortened): what is read as output, tool run, evidence,
input conversation and agent, and what is not (the repeats and the prompts)."""

from __future__ import annotations

import json

import pytest

from claimwatch.checks.pipeline import Pipeline
from claimwatch.grounding.trace import input_passages, span_passages
from claimwatch.otel.extract import extract
from claimwatch.otel.records import SpanRecord
from claimwatch.verify.actions import input_conversation, tool_call_of_span
from tests.helpers.real_clients import AGENT, RESERVATION, TOOL_RESULT
from tests.test_real_clients import ANSWER

TRACE = "0" * 31 + "1"
_META = {"model": "gpt-4o-mini", "index": 0, "finish_reason": "stop", "usage": {"completion_tokens": 11}}


@pytest.fixture(scope="module")
def pipeline():
    return Pipeline()  # ~0.3 s to build: once for the file


def span(name, attrs, span_id="00000000000000aa", parent=None):
    return SpanRecord(TRACE, span_id, parent, name, attrs)


def message(role, *content, meta=None):
    return {"role": role, "meta": meta or {}, "name": None, "content": list(content)}


CALL = {"tool_name": "check_docker", "arguments": {}, "id": "call_1", "extra": None}
ASKED = message("assistant", {"tool_call": CALL}, meta={**_META, "finish_reason": "tool_calls"})
ANSWERED = message("assistant", {"text": ANSWER}, meta=_META)
RESULT = message("tool", {"tool_call_result": {"result": TOOL_RESULT, "origin": CALL, "error": False}})
CONVERSATION = [message("system", {"text": "Answer questions."}), message("user", {"text": "Is docker running?"}),
                ASKED, RESULT, ANSWERED]  # fmt: skip


def test_an_agent_steps_model_call_is_read_once_and_its_repeats_are_not():
    step = span("haystack.agent.step.llm", {
        "haystack.agent.step.llm.input": json.dumps({"messages": CONVERSATION[:4], "tools": []}),
        "haystack.agent.step.llm.output": json.dumps({"replies": [ANSWERED]}),
    })  # fmt: skip
    found = extract(step)
    assert (found.text, found.source, found.tool_calls) == (ANSWER, "haystack.agent.step.llm.output", ())
    repeats = [
        span("haystack.agent.run", {"haystack.agent.output": json.dumps({"messages": CONVERSATION})}),
        span("haystack.component.run", {"haystack.component.name": AGENT, "haystack.component.type": "Agent",
                                        "haystack.component.output": json.dumps(
                                            {"messages": CONVERSATION, "last_message": ANSWERED})}),
        span("haystack.pipeline.run", {"haystack.pipeline.output_data": json.dumps({AGENT: {"messages": CONVERSATION}})}),
        span("haystack.component.run", {"haystack.component.type": "ChatPromptBuilder", "haystack.component.output":
                                        json.dumps({"prompt": [message("user", {"text": "Docker is down?"})]})}),
    ]  # fmt: skip
    assert [extract(s) for s in repeats] == [None] * len(repeats)


def test_a_tool_request_is_a_call_with_its_id_and_not_text():
    step = span("haystack.agent.step.llm", {"haystack.agent.step.llm.output": json.dumps({"replies": [ASKED]})})
    found = extract(step)
    assert found.text == "" and [(c.name, c.arguments, c.id) for c in found.tool_calls] == [("check_docker", "{}", "call_1")]


def test_a_chat_generator_component_is_a_model_call():
    llm = span("haystack.component.run", {
        "haystack.component.name": "llm", "haystack.component.type": "OpenAIChatGenerator",
        "haystack.component.input": json.dumps({"messages": [message("user", {"text": f"Document: {RESERVATION}"})]}),
        "haystack.component.output": json.dumps({"replies": [ANSWERED]}),
    })  # fmt: skip
    assert extract(llm).text == ANSWER
    assert input_conversation(llm) == [{"role": "user", "content": f"Document: {RESERVATION}"}]


def test_a_cut_replies_value_is_read_for_what_it_holds():
    full = json.dumps({"replies": [ANSWERED]})
    cut = full[: full.index(ANSWER) + 20]
    found = extract(span("haystack.agent.step.llm", {"haystack.agent.step.llm.output": cut}))
    assert found.truncated and found.text and ANSWER.startswith(found.text)


def test_a_tool_run_is_a_tool_call_and_its_result_is_evidence():
    tool = span("haystack.agent.step.tool", {
        "haystack.tool.name": "get_reservation", "haystack.tool.description": "Looks up a reservation by its code.",
        "haystack.agent.step.tool.input": json.dumps({"code": "K7QX2"}),
        "haystack.agent.step.tool.output": RESERVATION,
    })  # fmt: skip
    assert extract(tool) is None
    name, arguments, result, status, _ = tool_call_of_span(tool)
    assert (name, json.loads(arguments), result, status) == ("get_reservation", {"code": "K7QX2"}, RESERVATION, None)
    [passage] = span_passages(tool)
    assert (passage.text, passage.source, passage.tool_name) == (RESERVATION, "tool_result", "get_reservation")
    failed = span("haystack.agent.step.tool", {**tool.attributes, "haystack.tool.error": True})
    assert tool_call_of_span(failed)[3] == "error"


def test_a_retrievers_documents_are_evidence_and_the_tool_result_in_the_next_input_is_a_tool_message():
    retriever = span("haystack.component.run", {
        "haystack.component.name": "retriever", "haystack.component.type": "InMemoryBM25Retriever",
        "haystack.component.output": json.dumps({"documents": [
            {"id": "4462", "content": RESERVATION, "blob": None, "score": 2.39, "embedding": None}]}),
    })  # fmt: skip
    assert extract(retriever) is None
    assert [(p.text, p.source) for p in span_passages(retriever)] == [(RESERVATION, "retrieval")]
    step = span("haystack.agent.step.llm", {"haystack.agent.step.llm.input": json.dumps({"messages": CONVERSATION[:4]})})
    passages, query = input_passages(step)
    assert ("tool_message", TOOL_RESULT) in {(p.source, p.text) for p in passages} and query == "Is docker running?"


def test_the_agent_is_the_agent_components_name(pipeline):
    component = span("haystack.component.run", {"haystack.component.name": AGENT, "haystack.component.type": "Agent"},
                     span_id="00000000000000a1")  # fmt: skip
    run = span("haystack.agent.run", {}, span_id="00000000000000a2", parent=component.span_id)
    step = span("haystack.agent.step.llm", {}, parent=run.span_id)
    spans = {s.span_id: s for s in (component, run)}
    assert pipeline.identify(step, spans.get).agent_name == AGENT
    # Another component's name is no agent's (a RAG pipeline's generator is known by service.name).
    llm = span("haystack.component.run", {"haystack.component.name": "llm", "haystack.component.type": "OpenAIChatGenerator"})
    assert pipeline.identify(llm).agent_name is None


def test_openinference_input_reprs_give_the_tool_calls_and_results_the_indexed_messages_leave_out():
    asked = ("ChatMessage(_role=<ChatRole.ASSISTANT: 'assistant'>, _content=[ToolCall(tool_name='get_reservation', "
             "arguments={'code': 'K7QX2'}, id='call_1', extra=None)], _name=None, _meta={'model': 'gpt-4o-mini'})")
    result = ("ChatMessage(_role=<ChatRole.TOOL: 'tool'>, _content=[ToolCallResult(result='" + RESERVATION + "', "
              "origin=ToolCall(tool_name='get_reservation', arguments={'code': 'K7QX2'}, id='call_1', extra=None), "
              "error=False)], _name=None, _meta={})")
    user = "ChatMessage(_role=<ChatRole.USER: 'user'>, _content=[TextContent(text=\"What's in K7QX2?\")], _name=None, _meta={})"
    llm = span("OpenAIChatGenerator.run", {
        "openinference.span.kind": "LLM", "input.mime_type": "application/json",
        "input.value": json.dumps({"messages": [user, asked, result], "tools": ["Tool(name='get_reservation')"]}),
        "llm.input_messages.0.message.role": "user", "llm.input_messages.0.message.content": "What's in K7QX2?",
        "llm.input_messages.1.message.role": "assistant", "llm.input_messages.2.message.role": "tool",
        "llm.output_messages.0.message.role": "assistant", "llm.output_messages.0.message.content": ANSWER,
    })  # fmt: skip
    assert extract(llm).text == ANSWER
    conversation = input_conversation(llm)
    assert conversation[1]["tool_calls"] == [{"id": "call_1", "type": "function",
                                              "function": {"name": "get_reservation", "arguments": '{"code": "K7QX2"}'}}]
    assert conversation[2] == {"role": "tool", "name": "get_reservation", "tool_call_id": "call_1", "content": RESERVATION}
    passages, query = input_passages(llm)
    assert [(p.source, p.text, p.tool_name) for p in passages if p.source == "tool_message"] == [
        ("tool_message", RESERVATION, "get_reservation")]
    assert query == "What's in K7QX2?"


def test_an_agent_run_as_another_agents_tool_is_named_by_the_tool(pipeline):
    component = span("haystack.component.run", {"haystack.component.name": AGENT, "haystack.component.type": "Agent"},
                     span_id="00000000000000a1")  # fmt: skip
    outer = span("haystack.agent.run", {}, span_id="00000000000000a2", parent=component.span_id)
    delegation = span("haystack.agent.step.tool", {"haystack.tool.name": "docker_checker"},
                      span_id="00000000000000a3", parent=outer.span_id)  # fmt: skip
    inner = span("haystack.agent.run", {}, span_id="00000000000000a4", parent=delegation.span_id)
    sub_llm = span("haystack.agent.step.llm", {}, parent=inner.span_id)
    spans = {s.span_id: s for s in (component, outer, delegation, inner)}
    assert pipeline.identify(sub_llm, spans.get).agent_name == "docker_checker"
    # The delegation call itself is the agent's that made it.
    assert pipeline.identify(delegation, spans.get).agent_name == AGENT


def test_odd_shapes_raise_nothing_and_read_nothing_they_do_not_hold(pipeline):
    odd = [None, 3, "", "not json", "[]", '{"replies": 5}', '{"replies": [5, {"role": "assistant"}]}',
           '{"replies": [{"role": "assistant", "content": "plain"}]}', ("a", "b"), '{"messages": [{"content": 7}]}',
           '{"documents": [{"content": 1}, "x"]}', '"ChatMessage(_role=<ChatRole.TOOL: \'tool\'>, _content=[)"']  # fmt: skip
    keys = ("haystack.agent.step.llm.output", "haystack.agent.step.llm.input", "haystack.component.output",
            "haystack.component.input", "haystack.agent.step.tool.output", "haystack.agent.step.tool.input")  # fmt: skip
    for value in odd:
        for key in keys:
            attrs = {key: value, "haystack.tool.name": "t", "haystack.component.type": "Agent"}
            record = span("haystack.agent.step.llm", attrs)
            found = extract(record)
            assert found is None or not found.text.strip() or found.truncated, (key, value, found)
            tool_call_of_span(record)
            input_conversation(record)
            input_passages(record)
            span_passages(record)
            pipeline.identify(record)
        oi = span("OpenAIChatGenerator.run", {"openinference.span.kind": "LLM", "input.value": value})
        input_conversation(oi)
        input_passages(oi)
