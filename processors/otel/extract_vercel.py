"""The Vercel AI SDK's own telemetry convention: `ai.*` span attributes.

TypeScript agents on the AI SDK (`ai` on npm, major versions 4 to 6; also under
Mastra) turn tracing on per call with `experimental_telemetry: {isEnabled: true,
functionId}`. Each call writes a root span (`ai.generateText`, `ai.streamText`,
`ai.generateObject`, ...), one span per model call under it
(`ai.generateText.doGenerate`, `ai.streamText.doStream`, ...) and one
`ai.toolCall` span per tool run. Every span names its operation in
`ai.operationId` and its function in `ai.telemetry.functionId`. What was said
and done is only under `ai.*` keys (the `gen_ai.*` attributes the SDK adds are
request settings and usage), so until this module an AI SDK agent's answers were
not checked at all. Read here:

- a model call's output: `ai.response.text` (with `ai.response.reasoning` before
  it, as GenAI reasoning parts are read), `ai.response.object` for the object
  calls (its strings are the answer), and `ai.response.toolCalls`
  (`[{"toolCallId", "toolName", "input"}]`; `args` before v5; the input is the
  provider's JSON text after generateText and an object after streamText);
- the root span's `ai.response.*` is NOT read: it repeats the last model call's
  output, and one output is judged once (redaction still finds it, by value);
- a tool run: `ai.toolCall.name`, `.id`, `.args` and `.result` (both
  `JSON.stringify`-ed: a string result arrives quoted, and is read as its text);
- the model call's input: `ai.prompt.messages`, the SDK's own message format
  (`content` a string or parts: `text`, `reasoning`, `tool-call`, `tool-result`
  with `output: {"type": "text" | "json" | ..., "value"}`, or `result` before v5),
  given to the other checks as GenAI messages (role and parts);
- the agent: `ai.telemetry.functionId` (pipeline.py, beside `gen_ai.agent.name`).

AI SDK 7 (Node 22 and later) no longer writes these: its `@ai-sdk/otel`
integration writes the GenAI conventions, read by `extract.py` already.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from .jsonwalk import strings as _strings

OPERATION_ID = "ai.operationId"
FUNCTION_ID = "ai.telemetry.functionId"
RESPONSE_TEXT = "ai.response.text"
RESPONSE_REASONING = "ai.response.reasoning"
RESPONSE_OBJECT = "ai.response.object"
RESPONSE_TOOL_CALLS = "ai.response.toolCalls"
PROMPT_MESSAGES = "ai.prompt.messages"
TOOL_CALL_NAME = "ai.toolCall.name"
TOOL_CALL_ID = "ai.toolCall.id"
TOOL_CALL_ARGS = "ai.toolCall.args"
TOOL_CALL_RESULT = "ai.toolCall.result"
# What `extract.may_carry_output` looks for; the root spans have them too, and say nothing of their own.
OUTPUT_KEYS = frozenset({RESPONSE_TEXT, RESPONSE_OBJECT, RESPONSE_TOOL_CALLS})
TOOL_RESULT_KEYS = frozenset({TOOL_CALL_RESULT})
# The spans of one model call: `ai.<operation>.doGenerate` / `.doStream`.
_MODEL_CALL_SUFFIXES = (".doGenerate", ".doStream")


def is_model_call(name: str, attrs: Mapping[str, Any]) -> bool:
    """A span of one model call (not the root span of the SDK call that repeats its last output)."""
    operation = attrs.get(OPERATION_ID)
    return (operation if isinstance(operation, str) else name).endswith(_MODEL_CALL_SUFFIXES)


def output_parts(name: str, attrs: Mapping[str, Any]) -> tuple[list[str], list[tuple[str, str | None, str | None]], bool] | None:
    """(texts, tool calls as (name, JSON arguments, call id), cut?) of a model call span; None for any other span."""
    if OUTPUT_KEYS.isdisjoint(attrs.keys()) or not is_model_call(name, attrs):
        return None
    texts = [v for v in (attrs.get(RESPONSE_REASONING), attrs.get(RESPONSE_TEXT)) if isinstance(v, str) and v]
    cut = False
    answer = attrs.get(RESPONSE_OBJECT)
    if isinstance(answer, str) and answer:
        decoded = _json(answer)
        cut = decoded is None
        texts.extend(_strings(decoded) if decoded is not None else [answer])
    calls, calls_cut = _tool_calls(attrs.get(RESPONSE_TOOL_CALLS))
    return texts, calls, cut or calls_cut


def source(attrs: Mapping[str, Any]) -> str:
    """The key the output text came from (`claimwatch.source`)."""
    return RESPONSE_OBJECT if RESPONSE_TEXT not in attrs and RESPONSE_OBJECT in attrs else RESPONSE_TEXT


def _tool_calls(value: Any) -> tuple[list[tuple[str, str | None, str | None]], bool]:
    if value is None:
        return [], False
    decoded = _json(value) if isinstance(value, str) else value
    if not isinstance(decoded, (list, tuple)):
        return [], decoded is None
    calls = []
    for call in decoded:
        if isinstance(call, Mapping) and call.get("toolName"):
            arguments = call.get("input", call.get("args"))  # `args` before AI SDK 5
            calls.append((str(call["toolName"]), _as_text(arguments), _id(call.get("toolCallId"))))
    return calls, False


# --- tool runs: the `ai.toolCall` span ------------------------------------------------------------


def tool_call(attrs: Mapping[str, Any]) -> tuple[str, Any, Any, str | None] | None:
    """(tool, arguments, result, call id) of an `ai.toolCall` span; None for any other span."""
    name = attrs.get(TOOL_CALL_NAME)
    if name is None:
        return None
    return str(name), attrs.get(TOOL_CALL_ARGS), tool_result(attrs.get(TOOL_CALL_RESULT)), _id(attrs.get(TOOL_CALL_ID))


def tool_result(value: Any) -> Any:
    """A tool's result as the SDK records it (`JSON.stringify(output)`): a string result as its text, since a
    tool that answers in prose is read as prose, and the same text is what the next call's input echoes."""
    if isinstance(value, str) and value.startswith('"'):
        decoded = _json(value)
        if isinstance(decoded, str):
            return decoded
    return value


# --- the model call's input: `ai.prompt.messages` as GenAI messages --------------------------------


def input_messages(value: Any) -> list[dict[str, Any]] | None:
    """The SDK's prompt messages as GenAI input messages (role and parts), the shape the grounding and
    actions checks read; None when the value is not a message list."""
    if isinstance(value, str):
        return _converted(value)
    return _convert(value)


@lru_cache(maxsize=32)
def _converted(value: str) -> list[dict[str, Any]] | None:
    # Every check that reads inputs asks for the same span's messages: convert them once (a few spans' worth:
    # a conversation's history can be long). Callers only read.
    return _convert(_json(value))


def _convert(messages: Any) -> list[dict[str, Any]] | None:
    if not isinstance(messages, (list, tuple)):
        return None
    out = []
    for message in messages:
        if isinstance(message, Mapping) and isinstance(message.get("role"), str):
            out.append({"role": message["role"], "parts": _parts(message.get("content"))})
    return out


def _parts(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "content": content}]
    parts: list[dict[str, Any]] = []
    for part in content if isinstance(content, (list, tuple)) else ():
        if not isinstance(part, Mapping):
            continue
        kind = part.get("type")
        if kind in ("text", "reasoning") and isinstance(part.get("text"), str):
            parts.append({"type": kind, "content": part["text"]})
        elif kind == "tool-call" and part.get("toolName"):
            parts.append({"type": "tool_call", "id": _id(part.get("toolCallId")), "name": str(part["toolName"]),
                          "arguments": part.get("input", part.get("args"))})  # fmt: skip
        elif kind == "tool-result":
            parts.append({"type": "tool_call_response", "id": _id(part.get("toolCallId")),
                          "name": part.get("toolName"), "response": _result_value(part)})  # fmt: skip
    return parts


def _result_value(part: Mapping[str, Any]) -> Any:
    """A tool-result part's result: `output: {"type", "value"}` (v5 on; text kinds as their text, JSON kinds
    written as `JSON.stringify` writes them, so they match the tool span's own copy), or `result` before."""
    output = part.get("output")
    if not isinstance(output, Mapping):
        return part.get("result")
    value = output.get("value")
    if output.get("type") == "content" and isinstance(value, (list, tuple)):
        return "\n".join(v["text"] for v in value if isinstance(v, Mapping) and isinstance(v.get("text"), str))
    if isinstance(value, str) or value is None:
        return value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


# --- small readers ----------------------------------------------------------------------------------


def _json(value: str) -> Any:
    try:
        return json.loads(value)
    except ValueError:
        return None


def _as_text(value: Any) -> str | None:
    if value is None:
        return None
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _id(value: Any) -> str | None:
    return str(value) if value not in (None, "") else None
