"""LlamaIndex's objects in span values: what a model said, what a tool gave, which agent runs.

LlamaIndex's instrumentation dispatcher opens a span for every step of its
agent workflows, query engines, retrievers, splitters and tools, and both
instrumentations put the step's result on it: OpenLLMetry in
`traceloop.entity.output` as JSON (a `ChatMessage` `{"role", "blocks": [...]}`,
an agent step's event, a query `Response` `{"response", "metadata"}`, a list of
nodes, a `ToolOutput`), OpenInference in `output.value` (JSON, or a Python repr
cut at 200 characters). Read as "every string", each step was judged as a new
output of the agent: the question and system prompt handed between steps, the
tool's result, the documents split for the index. What a step says is the model
message it carries (an assistant `ChatMessage`, alone or as the response of an
`AgentOutput` or a `StopEvent`) or a query engine's response; anything else says
nothing. OpenInference marks the step that prepares a chat request
(`OpenAI._prepare_chat_with_tools`) as an LLM span: its output is the request's
messages and tools, not a model's words.

A `FunctionAgent` or an `AgentWorkflow` names its agent only inside the events
its steps hand on (`current_agent_name`), and no span carries an agent attribute.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from . import attributes as A
from .records import SpanRecord

_ASSISTANT = "assistant"
# A step of LlamaIndex's agent workflows, by the class that defines it (the dispatcher names a span
# after the method's class: FunctionAgent and ReActAgent steps are BaseWorkflowAgent's).
_AGENT_STEPS = ("BaseWorkflowAgent.", "AgentWorkflow.")
# `current_agent_name` as JSON (OpenLLMetry) or in a repr (OpenInference), closed: OpenInference cuts
# output reprs at 200 characters, and a cut name ("ops-he...") is no name.
_CURRENT_AGENT = re.compile(r"""current_agent_name(?:"\s*:\s*"([^"\\]{1,200})"|='([^'\\]{1,200})')""")
_AGENT_VALUES = (A.INPUT_VALUE, A.OUTPUT_VALUE, A.TRACELOOP_ENTITY_INPUT, A.TRACELOOP_ENTITY_OUTPUT)
_MAX_EARLIER_STEPS = 64


def is_step(span: SpanRecord) -> bool:
    """An OpenLLMetry span of LlamaIndex's dispatcher: named `<Class>.<kind>`, entity name and all (the
    Traceloop SDK's own decorators name the entity without the kind)."""
    attrs = span.attributes
    kind = attrs.get(A.TRACELOOP_SPAN_KIND)
    name = attrs.get(A.TRACELOOP_ENTITY_NAME)
    return isinstance(kind, str) and name == span.name and isinstance(name, str) and name.endswith("." + kind)


def step_output(value: Any) -> str:
    """What a LlamaIndex step's decoded result says: the model's message or a query's response, else ""."""
    if isinstance(value, str):  # a synthesizer's answer
        return value
    if not isinstance(value, Mapping):
        return ""  # nodes, split texts, embeddings
    if "blocks" in value and "role" in value:
        return message_text(value) if value.get("role") == _ASSISTANT else ""
    response = value.get("response")
    if isinstance(response, str) and "metadata" in value:  # a query Response (its source nodes left out)
        return response
    if isinstance(response, Mapping):  # an AgentOutput
        return step_output(response)
    result = value.get("result")  # a StopEvent
    return step_output(result) if isinstance(result, Mapping) else ""


def message_text(message: Mapping[str, Any]) -> str:
    """A ChatMessage's text blocks, joined."""
    blocks = message.get("blocks")
    if not isinstance(blocks, list):
        return ""
    texts = [b["text"] for b in blocks if isinstance(b, Mapping) and isinstance(b.get("text"), str)]
    return "\n\n".join(t for t in texts if t)


def prepared_request(value: Any) -> bool:
    """OpenInference's output of the step that prepares a chat request: its messages, as ChatMessage reprs."""
    if not isinstance(value, Mapping):
        return False
    messages = value.get("messages")
    return (
        isinstance(messages, list)
        and bool(messages)
        and all(isinstance(m, str) and m.startswith("ChatMessage(") for m in messages)
    )


# --- tools ---------------------------------------------------------------------------------------


def tool_output_text(value: Any) -> Any:
    """A tool's result as LlamaIndex serializes it (a `ToolOutput`, or the `ToolCallResult` around one): the
    text the tool returned. Anything else unchanged."""
    decoded = value
    if isinstance(value, str):
        if '"tool_name"' not in value or value.lstrip()[:1] != "{":
            return value
        try:
            decoded = json.loads(value)
        except ValueError:
            return value
    if not isinstance(decoded, Mapping):
        return value
    inner = decoded.get("tool_output")
    if isinstance(inner, Mapping) and "tool_id" in decoded:
        decoded = inner
    if "tool_name" not in decoded or "raw_output" not in decoded:
        return value
    raw = decoded["raw_output"]
    if isinstance(raw, str):
        return raw
    return message_text(decoded) or value


def tool_step(span: SpanRecord) -> tuple[str, Any, Any, str | None] | None:
    """(tool, arguments, result, call id) of OpenLLMetry's span of a workflow agent's `call_tool` step: the
    one span it names the tool on (`tool.name`, `tool.arguments`), its result the `ToolCallResult`."""
    attrs = span.attributes
    name = attrs.get(A.TOOL_NAME)
    if not isinstance(name, str) or not is_step(span):
        return None
    output = attrs.get(A.TRACELOOP_ENTITY_OUTPUT)
    call_id = None
    if isinstance(output, str) and '"tool_id"' in output:
        try:
            decoded = json.loads(output)
        except ValueError:
            decoded = None
        if isinstance(decoded, Mapping) and isinstance(decoded.get("tool_id"), str):
            call_id = decoded["tool_id"] or None
    return name, attrs.get(A.TOOL_ARGUMENTS), tool_output_text(output), call_id


# --- retrieval -------------------------------------------------------------------------------------


def retrieved_texts(span: SpanRecord) -> list[str]:
    """The texts of the nodes an OpenLLMetry LlamaIndex retriever step returned (`NodeWithScore`s, each
    serialized as JSON of its own); none for any other span (a splitter's nodes have no score)."""
    value = span.attributes.get(A.TRACELOOP_ENTITY_OUTPUT)
    if not isinstance(value, str) or "NodeWithScore" not in value or not is_step(span):
        return []
    try:
        items = json.loads(value)
    except ValueError:
        return []
    texts = []
    for item in items if isinstance(items, list) else ():
        if isinstance(item, str):
            try:
                item = json.loads(item)
            except ValueError:
                continue
        node = item.get("node") if isinstance(item, Mapping) and item.get("class_name") == "NodeWithScore" else None
        text = _node_text(node) if isinstance(node, Mapping) else None
        if text:
            texts.append(text)
    return texts


def _node_text(node: Mapping[str, Any]) -> str | None:
    text = node.get("text")
    if not isinstance(text, str):  # newer nodes keep it in a text resource
        resource = node.get("text_resource")
        text = resource.get("text") if isinstance(resource, Mapping) else None
    return text if isinstance(text, str) else None


# --- the agent -------------------------------------------------------------------------------------


def agent_name(span: SpanRecord) -> str | None:
    """The agent a LlamaIndex agent-workflow step runs for (`current_agent_name` of the event it got or gave)."""
    if not span.name.startswith(_AGENT_STEPS):
        return None
    for key in _AGENT_VALUES:
        value = span.attributes.get(key)
        if isinstance(value, str) and "current_agent_name" in value:
            m = _CURRENT_AGENT.search(value)
            if m:
                return m.group(1) or m.group(2)
    return None


def earlier_agent_name(earlier: Sequence[SpanRecord]) -> str | None:
    """The agent of the latest agent-workflow step among `earlier` (newest last): OpenLLMetry leaves the
    step that calls the model without input or output, so the step before it names the agent."""
    for span in earlier[: -_MAX_EARLIER_STEPS - 1 : -1]:
        name = agent_name(span)
        if name is not None:
            return name
    return None
