"""What LiteLLM's own OpenTelemetry callback (`litellm.callbacks = ["otel"]`) writes its own way.

Its `litellm_request` span carries GenAI `gen_ai.input.messages` / `gen_ai.output.messages`, but:

- the model's tool calls are not in the output messages (the assistant message there has empty `parts`):
  they are in `gen_ai.completion.{i}.function_call.name` / `.arguments`, without the call's id;
- each message has GenAI `parts` for its text and, beside them, OpenAI's `tool_calls` (an assistant
  message) or `tool_call_id` (a tool result): a reader that takes `parts` alone loses which tool was
  called and which call a result answers.

Its `raw_gen_ai_request` child repeats the provider's raw request and response as Python reprs under
`llm.<provider>.*`; nothing is read there (it is no convention), and redaction covers it as any attribute.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

_FUNCTION_CALL = re.compile(r"^gen_ai\.completion\.(\d+)\.function_call\.name$")


def function_calls(attrs: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """(name, arguments) of the tool calls LiteLLM's callback wrote as `gen_ai.completion.{i}.function_call.*`."""
    calls = []
    for key, value in attrs.items():
        m = _FUNCTION_CALL.match(key) if key.endswith(".function_call.name") else None
        if m and value:
            calls.append((int(m.group(1)), str(value), attrs.get(key[: -len("name")] + "arguments")))
    return [(name, arguments) for _, name, arguments in sorted(calls, key=lambda c: c[0])]


def openai_tool_calls(message: Mapping[str, Any]) -> list[tuple[str, Any, Any]]:
    """(name, arguments, call id) of the OpenAI-shaped `tool_calls` beside a GenAI message's `parts`."""
    out = []
    for call in message.get("tool_calls") or ():
        if not isinstance(call, Mapping):
            continue
        function = call.get("function") if isinstance(call.get("function"), Mapping) else call
        if function.get("name"):
            out.append((str(function["name"]), function.get("arguments"), call.get("id")))
    return out


def has_tool_parts(parts: Any) -> bool:
    """Whether a GenAI message's parts carry tool calls or results themselves (then nothing beside them
    is read again)."""
    return any(isinstance(p, Mapping) and p.get("type") in ("tool_call", "tool_call_response") for p in parts)
