"""LLM output written as span events rather than span attributes (Strands Agents).

Strands writes the GenAI messages of each span as span events, in one of two
conventions: by default the older GenAI event names (`gen_ai.choice` with a
`message` attribute holding Bedrock-style content blocks, `[{"text": ...},
{"toolUse": {"name", "input"}}]`, or plain text on the agent span), and with
`OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental` the
`gen_ai.client.inference.operation.details` event with `gen_ai.output.messages`.
Read from attributes only, a Strands agent's answers were never judged, nor
blocked. On an `execute_tool` span the same events carry the tool's result,
which is not the model's output: it is left to the checks that read tools.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from . import attributes as A
from .records import SpanRecord

CHOICE_MESSAGE = "message"  # the gen_ai.choice span event's attribute
SPAN_OUTPUT_EVENTS = frozenset({A.GEN_AI_CHOICE_EVENT, A.GEN_AI_OPERATION_DETAILS_EVENT})
_TOOL_OPERATION = "execute_tool"


def output_event_value(span: SpanRecord) -> tuple[str, Any] | None:
    """(convention, value) of the model output a span's events carry; None when they carry none."""
    if str(span.attributes.get(A.GEN_AI_OPERATION_NAME, "")) == _TOOL_OPERATION:
        return None
    for event in span.events:
        if event.name == A.GEN_AI_OPERATION_DETAILS_EVENT and A.GEN_AI_OUTPUT_MESSAGES in event.attributes:
            return A.GEN_AI_OUTPUT_MESSAGES, event.attributes[A.GEN_AI_OUTPUT_MESSAGES]
        if event.name == A.GEN_AI_CHOICE_EVENT and CHOICE_MESSAGE in event.attributes:
            return A.GEN_AI_CHOICE_EVENT, event.attributes[CHOICE_MESSAGE]
    return None


def choice_messages(value: Any) -> list[dict[str, Any]] | None:
    """A `gen_ai.choice` event's message as GenAI output messages: content blocks become parts."""
    if isinstance(value, str):
        if not value.lstrip().startswith(("[", "{")):
            return [{"role": "assistant", "parts": [{"type": "text", "content": value}]}]
        try:
            value = json.loads(value)
        except ValueError:
            return [{"role": "assistant", "parts": [{"type": "text", "content": value}]}]
    if isinstance(value, Mapping):  # an OpenAI-shaped message ({"role", "content", "tool_calls"})
        return [{"role": "assistant", **value}]
    if not isinstance(value, (list, tuple)):
        return None
    parts: list[dict[str, Any]] = []
    for block in value:
        if not isinstance(block, Mapping):
            continue
        if isinstance(block.get("text"), str):
            parts.append({"type": "text", "content": block["text"]})
        elif isinstance(block.get("toolUse"), Mapping):
            use = block["toolUse"]
            parts.append({"type": "tool_call", "id": use.get("toolUseId"), "name": use.get("name"),
                          "arguments": use.get("input")})  # fmt: skip
    return [{"role": "assistant", "parts": parts}]


# --- a Strands tool span: the call's arguments and the tool's result are events too -----------------
TOOL_MESSAGE_EVENT = "gen_ai.tool.message"  # content: the call's input (JSON)


def tool_events(span: SpanRecord) -> tuple[Any, Any]:
    """(arguments, result) an `execute_tool` span carries as events (Strands' default conventions):
    `gen_ai.tool.message` holds the input, `gen_ai.choice` the result's content blocks. (None, None)
    when it has neither."""
    if not span.events or str(span.attributes.get(A.GEN_AI_OPERATION_NAME, "")) != _TOOL_OPERATION:
        return None, None
    arguments = result = None
    for event in span.events:
        if event.name == TOOL_MESSAGE_EVENT and arguments is None:
            arguments = event.attributes.get("content")
        elif event.name == A.GEN_AI_CHOICE_EVENT and result is None:
            result = _block_text(event.attributes.get(CHOICE_MESSAGE))
    return arguments, result


def _block_text(value: Any) -> Any:
    """Content blocks' text joined (`[{"text": ...}]`); any other value unchanged."""
    decoded = value
    if isinstance(value, str) and value.lstrip()[:1] == "[":
        try:
            decoded = json.loads(value)
        except ValueError:
            return value
    if isinstance(decoded, (list, tuple)) and all(isinstance(b, Mapping) for b in decoded):
        texts = [b["text"] for b in decoded if isinstance(b.get("text"), str)]
        if texts:
            return "\n".join(texts)
    return value
