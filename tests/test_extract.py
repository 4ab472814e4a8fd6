"""Reading LLM output from spans in every convention claimwatch supports."""

from __future__ import annotations

import json

import pytest

from claimwatch.checks.pipeline import Pipeline
from claimwatch.otel.extract import extract
from claimwatch.otel.records import EventRecord, SpanRecord


def span(attrs=None, events=(), parent=None, span_id="00000000000000aa", resource=None, name="chat m"):
    return SpanRecord("0" * 31 + "1", span_id, parent, name, attrs or {}, tuple(events), resource or {})


GENAI_MESSAGES = [
    {
        "role": "assistant",
        "parts": [
            {"type": "reasoning", "content": "The user wants the status."},
            {"type": "text", "content": "Docker is not running."},
            {"type": "tool_call", "id": "c1", "name": "restart_service", "arguments": {"name": "docker"}},
            {"type": "image", "uri": "x"},
        ],
        "finish_reason": "tool_calls",
    },
]


def test_genai_output_messages_json_string():
    out = extract(span({"gen_ai.output.messages": json.dumps(GENAI_MESSAGES)}))
    assert out.source == "gen_ai.output.messages"
    assert out.text == "The user wants the status.\n\nDocker is not running."
    assert [(t.name, json.loads(t.arguments)) for t in out.tool_calls] == [("restart_service", {"name": "docker"})]
    assert not out.truncated


def test_genai_output_messages_structured_value():
    out = extract(span({"gen_ai.output.messages": GENAI_MESSAGES}))
    assert out.text.endswith("Docker is not running.")
    as_tuples = ({"role": "assistant", "parts": ({"type": "text", "content": "Docker is not running."},)},)
    assert extract(span({"gen_ai.output.messages": as_tuples})).text == "Docker is not running."


def test_genai_user_messages_are_not_validated():
    value = [
        {"role": "user", "parts": [{"type": "text", "content": "Is docker running?"}]},
        {"role": "assistant", "parts": [{"type": "text", "content": "It is."}]},
    ]
    assert extract(span({"gen_ai.output.messages": json.dumps(value)})).text == "It is."


def test_truncated_json_is_read_for_its_text_and_marked():
    full = json.dumps(GENAI_MESSAGES)
    cut = full[: full.index("running") + 3]
    out = extract(span({"gen_ai.output.messages": cut}))
    assert out.truncated
    assert out.text == "The user wants the status.\n\nDocker is not run"


def test_older_completion_event():
    completion = json.dumps(
        [
            {
                "role": "assistant",
                "content": "The pipeline is broken.",
                "tool_calls": [{"function": {"name": "get_status", "arguments": "{}"}}],
            }
        ]
    )
    out = extract(span(events=[EventRecord("gen_ai.content.completion", {"gen_ai.completion": completion})]))
    assert (out.source, out.text, [t.name for t in out.tool_calls]) == (
        "gen_ai.content.completion",
        "The pipeline is broken.",
        ["get_status"],
    )


def test_openllmetry_indexed_attributes():
    attrs = {
        "gen_ai.completion.0.role": "assistant",
        "gen_ai.completion.0.content": "Redis is not installed.",
        "gen_ai.completion.0.tool_calls.0.name": "apt_install",
        "gen_ai.completion.0.tool_calls.0.arguments": '{"pkg": "redis"}',
        "gen_ai.prompt.0.content": "Is redis installed?",
    }
    out = extract(span(attrs))
    assert (out.source, out.text) == ("gen_ai.completion.indexed", "Redis is not installed.")
    assert [(t.name, t.arguments) for t in out.tool_calls] == [("apt_install", '{"pkg": "redis"}')]


def test_openinference_output_messages_and_contents():
    attrs = {
        "openinference.span.kind": "LLM",
        "llm.output_messages.0.message.role": "assistant",
        "llm.output_messages.0.message.content": "The gateway is down.",
        "llm.output_messages.1.message.role": "assistant",
        "llm.output_messages.1.message.contents.0.message_content.text": "The user is Iulia.",
        "llm.output_messages.1.message.tool_calls.0.tool_call.function.name": "lookup",
    }
    out = extract(span(attrs))
    assert out.source == "llm.output_messages"
    assert out.text == "The gateway is down.\n\nThe user is Iulia."
    assert [t.name for t in out.tool_calls] == ["lookup"]


def test_openinference_redacted_content_is_skipped():
    attrs = {"openinference.span.kind": "LLM", "llm.output_messages.0.message.content": "__REDACTED__"}
    assert extract(span(attrs)) is None


@pytest.mark.parametrize("kind", ["LLM", "AGENT"])
def test_openinference_output_value_on_llm_and_agent_spans(kind):
    out = extract(span({"openinference.span.kind": kind, "output.value": "Node.js is not installed."}))
    assert (out.source, out.text) == ("output.value", "Node.js is not installed.")


def test_openinference_output_value_on_tool_span_is_not_agent_text():
    assert extract(span({"openinference.span.kind": "TOOL", "output.value": "docker: not found"})) is None


def test_traceloop_entity_output_json():
    value = json.dumps({"answer": "The build failed.", "meta": {"steps": 3}})
    out = extract(span({"traceloop.span.kind": "agent", "traceloop.entity.output": value}))
    assert (out.source, out.text) == ("traceloop.entity.output", "The build failed.")


def test_span_without_output_yields_nothing():
    assert extract(span({"http.method": "GET"})) is None


def test_identity_comes_from_ancestors_in_the_same_trace():
    root = span(
        {
            "gen_ai.agent.name": "planner",
            "gen_ai.agent.id": "agent-7",
            "gen_ai.conversation.id": "c-1",
            "claimwatch.agent.trust": 95,
        },
        span_id="00000000000000a1",
        name="invoke_agent planner",
    )
    child = span({"gen_ai.output.messages": "[]"}, parent="00000000000000a1", span_id="00000000000000a2")
    pipeline = Pipeline()
    identity = pipeline.identify(child, {"00000000000000a1": root}.get)
    assert (identity.agent_id, identity.agent_name, identity.session_id) == ("agent-7", "planner", "c-1")
    assert pipeline.trust_for(identity) is None  # attribute trust is ignored unless allowed


def test_trust_rules_first_then_attribute_only_when_allowed():
    pipeline = Pipeline({"agents": {"trustFromAttributes": True, "rules": [{"match": "sub-*", "trust": 15}]}})
    sub = pipeline.identify(span({"gen_ai.agent.name": "sub-3", "claimwatch.agent.trust": 99}))
    assert pipeline.trust_for(sub) == 15
    other = pipeline.identify(span({"gen_ai.agent.name": "main", "claimwatch.agent.trust": 70}))
    assert pipeline.trust_for(other) == 70


def test_agent_falls_back_to_service_name():
    identity = Pipeline().identify(span({}, resource={"service.name": "billing-bot"}))
    assert identity.agent_id == "billing-bot"


def test_mode_per_agent_glob():
    pipeline = Pipeline({"agents": {"rules": [{"match": "sub-*", "mode": "enforce"}]}})
    assert pipeline.mode_for(pipeline.identify(span({"gen_ai.agent.name": "sub-1"}))) == "enforce"
    assert pipeline.mode_for(pipeline.identify(span({"gen_ai.agent.name": "main"}))) == "audit"


def test_malformed_attribute_values_never_raise():
    weird = span(
        {
            "gen_ai.output.messages": [1, None, {"role": "assistant", "parts": "nope"}],
            "llm.output_messages.x.message.content": 5,
        }
    )
    assert extract(weird) is None
    assert Pipeline().process(weird) is None
