"""Haystack's own tracing: what a model said, what a tool got and gave, which agent runs, what was retrieved.

Haystack (deepset) traces through its own `haystack.tracing` API; deepset's `OpenTelemetryTracer`
(opentelemetry-haystack) turns it into OpenTelemetry spans with no GenAI or OpenInference attribute at all,
and with `HAYSTACK_CONTENT_TRACING_ENABLED=true` writes each step's data as JSON of Haystack's objects:

- `haystack.pipeline.run`: the pipeline's `input_data` / `output_data` (every component's outputs: repeats);
- `haystack.component.run`: `haystack.component.name` (the name the user gave it), `.type` (its class),
  `.input` / `.output`. A chat generator's output is `{"replies": [ChatMessage]}`: the model's words. An
  `Agent`'s is its whole conversation (`messages`, `last_message`): the prompt, the tool results and the
  answer again; a prompt builder's is the prompt; a retriever's its `documents`;
- inside an `Agent`: `haystack.agent.run` (its conversation again), `haystack.agent.step`,
  `haystack.agent.step.llm` (`haystack.agent.step.llm.input` / `.output`: one model call, `{"replies": ...}`
  out) and `haystack.agent.step.tool` (`haystack.tool.name`, `haystack.agent.step.tool.input` the arguments,
  `.output` the result, `haystack.tool.error`).

A ChatMessage is `{"role", "content": [{"text"}, {"reasoning": {"reasoning_text"}}, {"tool_call": {"tool_name",
"arguments", "id"}}, {"tool_call_result": {"result", "origin": {tool call}, "error"}}], "name", "meta"}`.
Only a model call's replies are the agent's output; the rest repeats them or is what the agent was given.

Arize's OpenInference instrumentation of Haystack writes a chat generator's messages as
`llm.input_messages.{i}.message.role|content` without a tool call or a tool result (a tool message has a
role and nothing else), and traces no tool run: they are only in the LLM span's `input.value`, JSON whose
messages are Python reprs (`ChatMessage(_role=<ChatRole.TOOL: 'tool'>, _content=[ToolCallResult(result=
'...', origin=ToolCall(tool_name='...', arguments={...}, id='...'), error=False)], ...)`), read here.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from .records import SpanRecord

COMPONENT_NAME = "haystack.component.name"
COMPONENT_TYPE = "haystack.component.type"
COMPONENT_INPUT = "haystack.component.input"
COMPONENT_OUTPUT = "haystack.component.output"
STEP_LLM_INPUT = "haystack.agent.step.llm.input"
STEP_LLM_OUTPUT = "haystack.agent.step.llm.output"
TOOL_NAME = "haystack.tool.name"
TOOL_INPUT = "haystack.agent.step.tool.input"
TOOL_OUTPUT = "haystack.agent.step.tool.output"
TOOL_ERROR = "haystack.tool.error"
# What `extract` looks for first: a model call's output, under either of the two spans that carry one.
OUTPUT_KEYS = (STEP_LLM_OUTPUT, COMPONENT_OUTPUT)
# What identity keeps of an ancestor: an Agent component's name, the tool an agent runs as.
ANCESTOR_KEYS = (COMPONENT_NAME, COMPONENT_TYPE, TOOL_NAME)
AGENT_RUN_SPAN = "haystack.agent.run"
_AGENT_TYPES = frozenset({"Agent"})


def _decode(value: Any) -> Any:
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except ValueError:
        return None


def _content(message: Mapping[str, Any]) -> Sequence[Any]:
    content = message.get("content", message.get("_content"))  # `_content`: Haystack 2's older to_dict
    return content if isinstance(content, (list, tuple)) else ()


def _role(message: Mapping[str, Any]) -> str:
    return str(message.get("role", message.get("_role", "")))


def _replies(attrs: Mapping[str, Any]) -> list[Mapping[str, Any]] | None:
    """A model call's replies: the `replies` of an agent step's model call, or of a chat generator run as a
    pipeline component; None for any other span (an Agent's conversation, a prompt, a pipeline's outputs)."""
    raw = attrs.get(STEP_LLM_OUTPUT)
    if raw is None:
        raw = attrs.get(COMPONENT_OUTPUT)
        if not isinstance(raw, str) or '"replies"' not in raw:  # most components: decided without parsing
            return None
    value = _decode(raw)
    replies = value.get("replies") if isinstance(value, Mapping) else None
    if not isinstance(replies, list):
        return None
    return [m for m in replies if isinstance(m, Mapping) and _role(m) == "assistant"]


def model_output(attrs: Mapping[str, Any]) -> tuple[list[str], list[tuple[str, str, str | None]], bool] | None:
    """(texts, tool calls as (name, JSON arguments, id), cut) of a model call's replies, or None when the span
    is no model call. A value cut by the attribute length limit is not JSON: (its text, [], True)."""
    raw = attrs.get(STEP_LLM_OUTPUT, attrs.get(COMPONENT_OUTPUT))
    replies = _replies(attrs)
    if replies is None:
        if isinstance(raw, str) and '"replies"' in raw and _decode(raw) is None:
            return [], [], True
        return None
    texts: list[str] = []
    calls: list[tuple[str, str, str | None]] = []
    for message in replies:
        for part in _content(message):
            if not isinstance(part, Mapping):
                continue
            if isinstance(part.get("text"), str):
                texts.append(part["text"])
            elif isinstance(part.get("reasoning"), Mapping):
                reasoning = part["reasoning"].get("reasoning_text")
                if isinstance(reasoning, str):
                    texts.append(reasoning)
            elif isinstance(part.get("tool_call"), Mapping):
                call = part["tool_call"]
                if call.get("tool_name"):
                    calls.append((str(call["tool_name"]), _json(call.get("arguments")), _id(call.get("id"))))
    return texts, calls, False


def is_tool_span(attrs: Mapping[str, Any]) -> bool:
    return TOOL_NAME in attrs


def tool_call(attrs: Mapping[str, Any]) -> tuple[str, Any, Any, bool] | None:
    """(tool, arguments, result, failed) of an agent's tool run, or None."""
    name = attrs.get(TOOL_NAME)
    if not name:
        return None
    arguments = attrs.get(TOOL_INPUT)
    result = attrs.get(TOOL_OUTPUT)
    return str(name), arguments, result, bool(attrs.get(TOOL_ERROR))


def agent_name(span: SpanRecord, below: SpanRecord | None = None) -> str | None:
    """The name an Agent was given as a pipeline component (`pipeline.add_component(name, agent)`), or as
    a tool (`ComponentTool(component=agent, name=...)`): a tool span with an agent's run `below` it."""
    attrs = span.attributes
    if below is not None and below.name == AGENT_RUN_SPAN and attrs.get(TOOL_NAME):
        return str(attrs[TOOL_NAME])
    if attrs.get(COMPONENT_TYPE) not in _AGENT_TYPES:
        return None
    name = attrs.get(COMPONENT_NAME)
    return name if isinstance(name, str) and name else None


def retrieved_texts(attrs: Mapping[str, Any]) -> list[str]:
    """The contents of the documents a component gave (a retriever's `{"documents": [...]}` output)."""
    raw = attrs.get(COMPONENT_OUTPUT)
    if not isinstance(raw, str) or '"documents"' not in raw:
        return []
    value = _decode(raw)
    documents = value.get("documents") if isinstance(value, Mapping) else None
    if not isinstance(documents, list):
        return []
    return [d["content"] for d in documents if isinstance(d, Mapping) and isinstance(d.get("content"), str)]


def input_messages(attrs: Mapping[str, Any]) -> list[dict[str, Any]] | None:
    """A model call's input conversation as OpenAI-shaped messages (role, content, tool_calls, tool_call_id),
    from an agent step's model call or a chat generator component's input; None when the span has none."""
    raw = attrs.get(STEP_LLM_INPUT)
    if raw is None:
        if _replies(attrs) is None:  # only a chat generator's input is a model call's
            return None
        raw = attrs.get(COMPONENT_INPUT)
    value = _decode(raw)
    messages = value.get("messages") if isinstance(value, Mapping) else None
    if not isinstance(messages, list):
        return None
    return [m for m in (_openai_message(m) for m in messages if isinstance(m, Mapping)) if m is not None]


def _openai_message(message: Mapping[str, Any]) -> dict[str, Any] | None:
    role = _role(message)
    texts: list[str] = []
    calls: list[dict[str, Any]] = []
    out: dict[str, Any] = {"role": role}
    for part in _content(message):
        if not isinstance(part, Mapping):
            continue
        if isinstance(part.get("text"), str):
            texts.append(part["text"])
        elif isinstance(part.get("tool_call"), Mapping) and part["tool_call"].get("tool_name"):
            call = part["tool_call"]
            calls.append({"id": _id(call.get("id")), "type": "function",
                          "function": {"name": str(call["tool_name"]), "arguments": _json(call.get("arguments"))}})
        elif isinstance(part.get("tool_call_result"), Mapping):
            result = part["tool_call_result"]
            texts.append(result.get("result") if isinstance(result.get("result"), str) else _json(result.get("result")))
            origin = result.get("origin")
            if isinstance(origin, Mapping):
                out["tool_call_id"] = _id(origin.get("id"))
                out["name"] = _id(origin.get("tool_name"))
    out["content"] = "\n\n".join(texts)
    if calls:
        out["tool_calls"] = calls
    return out


def _json(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


def _id(value: Any) -> str | None:
    return str(value) if value not in (None, "") else None


# --- OpenInference's Haystack spans: ChatMessage reprs in an LLM span's input.value ---------------------
REPR_MARK = "ChatMessage(_role=<ChatRole."
_STRING = r"'(?:[^'\\]|\\.)*'" + "|" + r'"(?:[^"\\]|\\.)*"'  # a Python string literal, either quote
_REPR_ROLE = re.compile(r"^ChatMessage\(_role=<ChatRole\.\w+: '(\w+)'>")
_REPR_TEXT = re.compile(rf"TextContent\(text=({_STRING})\)")
# A call's arguments are a dict repr: read up to the `id=` that follows it (a value holding "}, id=" is cut).
_REPR_CALL = rf"ToolCall\(tool_name=({_STRING}), arguments=(\{{.*?\}}), id=(None|{_STRING})"
_REPR_CALLS = re.compile(_REPR_CALL)
_REPR_RESULT = re.compile(rf"ToolCallResult\(result=({_STRING}), origin={_REPR_CALL}")


def repr_conversation(value: Any) -> list[dict[str, Any]] | None:
    """The OpenAI-shaped messages of OpenInference's `input.value` on a Haystack chat generator's LLM span
    (its ChatMessage reprs), or None when it holds none."""
    if not isinstance(value, str) or REPR_MARK not in value:
        return None
    decoded = _decode(value)
    messages = decoded.get("messages") if isinstance(decoded, Mapping) else None
    if not isinstance(messages, list):
        return None
    out = []
    for item in messages:
        role = _REPR_ROLE.match(item) if isinstance(item, str) else None
        if role is None:
            continue
        message: dict[str, Any] = {"role": role.group(1)}
        texts = [_literal(m.group(1)) for m in _REPR_TEXT.finditer(item)]
        if message["role"] == "tool":
            for m in _REPR_RESULT.finditer(item):
                texts.append(_literal(m.group(1)))
                message["name"], message["tool_call_id"] = _literal(m.group(2)), _literal(m.group(4))
        else:
            calls = [{"id": _literal(m.group(3)), "type": "function",
                      "function": {"name": _literal(m.group(1)), "arguments": _json(_literal(m.group(2)))}}
                     for m in _REPR_CALLS.finditer(item)]
            if calls:
                message["tool_calls"] = calls
        message["content"] = "\n\n".join(t for t in texts if isinstance(t, str))
        out.append(message)
    return out or None


def _literal(text: str) -> Any:
    """A Python literal's value (a string, a dict of arguments, None); the text itself when it is none."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return text
