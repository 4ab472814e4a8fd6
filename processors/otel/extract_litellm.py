"""What LiteLLM's own OpenTelemetry callback (`litellm.callbacks = ["otel"]`) writes its own way.

Its `litellm_request` span carries GenAI `gen_ai.input.messages` / `gen_ai.output.messages`, but:

- the model's tool calls are not in the output messages (the assistant message there has empty `parts`):
  they are in `gen_ai.completion.{i}.function_call.name` / `.arguments`, without the call's id;
- each message has GenAI `parts` for its text and, beside them, OpenAI's `tool_calls` (an assistant
  message) or `tool_call_id` (a tool result): a reader that takes `parts` alone loses which tool was
  called and which call a result answers.

Its `raw_gen_ai_request` child (one per call, while content is captured) holds the provider's raw
request and response, each top-level field a Python repr under `llm.<provider>.<field>`. Where the process
already has a span open around the call (an agent's span, the user's), LiteLLM writes no `litellm_request`
span: it sets its attributes on that open span, each call over the last, and the call that finishes after
that span ended is written nowhere else. The raw span is then the only record of each call, so an
OpenAI-shaped raw response (`llm.<provider>.choices`, `.object` `chat.completion`) is read as the call's
output, and its request's `llm.<provider>.messages` as its input. Where both spans exist, the raw span is
the `litellm_request` span's child and repeats it (the pipeline's repeats).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping
from typing import Any

FINISH_REASONS = "gen_ai.response.finish_reasons"
_FUNCTION_CALL = re.compile(r"^gen_ai\.completion\.(\d+)\.function_call\.name$")


def function_calls(attrs: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """(name, arguments) of the tool calls LiteLLM's callback wrote as `gen_ai.completion.{i}.function_call.*`.

    Written onto an open span, a later call that ends in text leaves an earlier call's attributes behind
    (it only adds its own): a response whose finish reasons say it called no tool has none."""
    reasons = str(attrs.get(FINISH_REASONS, ""))
    if reasons and "tool" not in reasons and "function" not in reasons:
        return []
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


_RAW_CHOICES = re.compile(r"^llm\.([\w-]+)\.choices$")


def is_raw_choices(key: str) -> bool:
    return key.endswith(".choices") and key.startswith("llm.") and _RAW_CHOICES.match(key) is not None


def _raw_field(attrs: Mapping[str, Any], field: str) -> tuple[str, Any] | None:
    """(key, decoded value) of a raw chat completion's `field`, when the span holds one."""
    for key in attrs:
        m = _RAW_CHOICES.match(key) if is_raw_choices(key) else None
        if m and str(attrs.get(f"llm.{m.group(1)}.object", "")).startswith("chat.completion"):
            name = f"llm.{m.group(1)}.{field}"
            return (name, _literal(attrs[name])) if name in attrs else None
    return None


def _literal(value: Any) -> Any:
    """A Python repr of plain values (dicts, lists, strings, None) back as values; None when it is not
    one (cut by the attribute length limit, or something else)."""
    if not isinstance(value, str):
        return value
    try:
        return ast.literal_eval(value)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None


def raw_output(attrs: Mapping[str, Any]) -> tuple[str, list | None] | None:
    """(key, the response's messages, OpenAI-shaped; None when unreadable) of a raw chat completion."""
    found = _raw_field(attrs, "choices")
    if found is None:
        return None
    key, choices = found
    if not isinstance(choices, list):
        return key, None
    return key, [c["message"] for c in choices if isinstance(c, Mapping) and isinstance(c.get("message"), Mapping)]


def raw_input(attrs: Mapping[str, Any]) -> list | None:
    """The raw request's messages (OpenAI-shaped) beside a raw chat completion, if readable."""
    found = _raw_field(attrs, "messages")
    return found[1] if found is not None and isinstance(found[1], list) else None


# A message's content in a Python repr: single-quoted, or double-quoted when it holds a single quote.
_REPR_CONTENT = re.compile(r"""'content': (?:'((?:[^'\\]|\\.)*)(?:'|$)|"((?:[^"\\]|\\.)*)(?:"|$))""", re.S)


def salvage(value: str) -> str:
    """The message contents still readable in a raw repr cut by the attribute length limit."""
    pieces = []
    for m in _REPR_CONTENT.finditer(value):
        quote, raw = ("'", m.group(1)) if m.group(1) is not None else ('"', m.group(2))
        raw = raw.rstrip("\\")
        literal = _literal(quote + raw + quote)
        pieces.append(literal if isinstance(literal, str) else raw)
    return "\n\n".join(p for p in pieces if p)
