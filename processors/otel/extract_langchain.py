"""LangChain's serialized runs in chain-span output values: only the model's last message is the output.

Both LangChain instrumentations put each run's output, as LangChain serializes
it, on the run's span: OpenInference in `output.value` (`{"messages": [{"type":
"ai", "data": {...}}]}`, a message itself, or LLM `generations`), OpenLLMetry in
`traceloop.entity.output` (`{"outputs": ..., "kwargs": {...}}` with messages in
the `{"lc": 1, "type": "constructor", "id": [..., "AIMessage"], "kwargs":
{...}}` form). A graph node, a runnable sequence and the graph itself all carry
the model's answer again inside the whole conversation, with ids, model names,
token counts and routing decisions around it. Read as "every string", each
such span was judged again as a new output (the user's question, the tool's
result and the ids with it). What a chain run says is its last message, when
that message is the model's; a chain that ends on anything else (a prompt, a
tool result, a routing decision like `__end__`) says nothing of its own.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

# Message classes and dumpd types by the role they play.
_CLASS_ROLES = {
    "AIMessage": "assistant",
    "AIMessageChunk": "assistant",
    "HumanMessage": "user",
    "HumanMessageChunk": "user",
    "SystemMessage": "system",
    "ToolMessage": "tool",
    "ToolMessageChunk": "tool",
    "FunctionMessage": "tool",
    "ChatMessage": "other",
}
_TYPE_ROLES = {"ai": "assistant", "AIMessageChunk": "assistant", "human": "user", "system": "system",
               "tool": "tool", "function": "tool", "chat": "other"}  # fmt: skip
# Where a run's output keeps its messages: the callback handler's envelope, a graph's state, a
# chat model's generations.
_CONTAINERS = ("outputs", "output", "messages", "generations", "message")
_MAX_DEPTH = 6


def langchain_output(value: Any) -> tuple[bool, str]:
    """(is this a LangChain run's output?, the text of its last message when that is the model's)."""
    envelope = isinstance(value, Mapping) and "outputs" in value and "kwargs" in value
    messages = _messages(value, 0)
    if not messages:
        return envelope, ""  # the callback envelope around no message: a routing decision, a value
    role, content = messages[-1]
    return True, _text(content) if role == "assistant" else ""


def _messages(value: Any, depth: int) -> list[tuple[str, Any]]:
    """The LangChain messages in `value`, in order: the value itself, or under its containers."""
    if depth > _MAX_DEPTH:
        return []
    one = _message(value)
    if one is not None:
        return [one]
    if isinstance(value, Mapping):
        for key in _CONTAINERS:
            if key in value:
                return _messages(value[key], depth + 1)
        return []
    if isinstance(value, (list, tuple)):
        return [m for item in value for m in _messages(item, depth + 1)]
    return []


def _message(value: Any) -> tuple[str, Any] | None:
    """(role, content) of one serialized message: the constructor form, the dumpd form, or a generation."""
    if not isinstance(value, Mapping):
        return None
    kind = value.get("type")
    ids = value.get("id")
    if value.get("lc") == 1 and kind == "constructor" and isinstance(ids, list) and ids:
        kwargs = value.get("kwargs")
        role = _CLASS_ROLES.get(str(ids[-1]))
        return (role, kwargs.get("content")) if role and isinstance(kwargs, Mapping) else None
    data = value.get("data")
    if kind in _TYPE_ROLES and isinstance(data, Mapping) and "content" in data:
        return _TYPE_ROLES[kind], data.get("content")
    if kind in ("ChatGeneration", "ChatGenerationChunk") and "message" in value:
        return _message(value["message"])
    return None


def _text(content: Any) -> str:
    """A message's content: a string, or content blocks whose text parts are joined."""
    if isinstance(content, str):
        return content
    if isinstance(content, (list, tuple)):
        parts = [c if isinstance(c, str) else c.get("text") for c in content if isinstance(c, (str, Mapping))]
        return "\n\n".join(p for p in parts if isinstance(p, str))
    return ""


# --- tools: LangChain's envelopes around what a tool got and gave ------------------------------------


def tool_message_content(value: Any) -> Any:
    """A tool result serialized as LangChain's ToolMessage (OpenInference `output.value`, OpenLLMetry's
    `{"output": ..., "kwargs": ...}`): its content, the text the tool gave. Anything else unchanged."""
    decoded = value
    if isinstance(value, str):
        if "tool" not in value or value.lstrip()[:1] != "{":
            return value
        try:
            decoded = json.loads(value)
        except ValueError:
            return value
    messages = _messages(decoded, 0)
    if len(messages) == 1 and messages[0][0] == "tool":
        return _text(messages[0][1])
    return value


def tool_call_input(value: Any) -> Any:
    """OpenLLMetry's LangChain tool input `{"input_str", "inputs", "metadata", "kwargs", ...}`: the inputs,
    the arguments the tool was called with. Anything else unchanged."""
    decoded = value
    if isinstance(value, str):
        if '"input_str"' not in value:
            return value
        try:
            decoded = json.loads(value)
        except ValueError:
            return value
    if isinstance(decoded, Mapping) and "input_str" in decoded:
        inputs = decoded.get("inputs")
        return json.dumps(inputs, ensure_ascii=False, default=str) if inputs is not None else decoded["input_str"]
    return value


def bound_arguments(value: Any) -> Any:
    """A tool's arguments as its caller bound them, `{"args": [...], "kwargs": {...}}` (Traceloop's tool
    spans, OpenInference for smolagents, which adds "sanitize_inputs_outputs", and for LlamaIndex's
    FunctionTool): the keyword arguments as JSON text, or the one positional argument when there are
    none. Anything else unchanged."""
    decoded = value
    if isinstance(value, str):
        if '"kwargs"' not in value:
            return value
        try:
            decoded = json.loads(value)
        except ValueError:
            return value
    if not (isinstance(decoded, Mapping) and isinstance(decoded.get("kwargs"), Mapping)):
        return value
    kwargs, args = dict(decoded["kwargs"]), decoded.get("args")
    if not kwargs and isinstance(args, list) and args:
        chosen: Any = args[0] if len(args) == 1 else args
        return chosen if isinstance(chosen, str) else json.dumps(chosen, ensure_ascii=False, default=str)
    return json.dumps(kwargs, ensure_ascii=False, default=str)
