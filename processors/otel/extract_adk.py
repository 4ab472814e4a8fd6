"""Google ADK's (Agent Development Kit) own forms in span values.

ADK traces itself. In its current schema (v2, the default) its `generate_content`
and `execute_tool` spans follow the GenAI conventions and need nothing of their
own. In its legacy schema (`ADK_TELEMETRY_SCHEMA_VERSION_OPT_IN=1`, what ADK's
web UI reads) the exchange is on a `call_llm` span as JSON of ADK's own objects:
`gcp.vertex.agent.llm_response` is an `LlmResponse` (`{"content": {"role":
"model", "parts": [{"text": ...}, {"function_call": {"name", "args", "id"}}]},
...}`), and an `execute_tool` span holds the call in
`gcp.vertex.agent.tool_call_args` and the result in `gcp.vertex.agent.tool_response`.
Read by the GenAI names only, a legacy ADK agent's answers were never judged nor
blocked, and a deny rule on a tool's arguments never fired.

Arize's OpenInference instrumentation of ADK writes the agent run's last ADK
`Event` (the same `content`, with `author`, `invocation_id`, `actions`, ids) as
the AGENT span's `output.value`; read as every string, the ids and model names
around the answer were judged with it.

ADK wraps a tool's non-dict return as `{"result": ...}`, and OpenInference's TOOL
span holds the whole `FunctionResponse` (`{"id", "name", "response"}`): the result
is what is inside. ADK gives a call the model left without an id one of its own,
`adk-<uuid>`, after the model's output was traced: its GenAI output names the call
`<name>_<index>` (the part's index), so the legacy output's calls are named the
same way, and a tool span with an `adk-` id is the call its request named.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

LLM_RESPONSE = "gcp.vertex.agent.llm_response"
TOOL_CALL_ARGS = "gcp.vertex.agent.tool_call_args"
TOOL_RESPONSE = "gcp.vertex.agent.tool_response"
EVENT_ID = "gcp.vertex.agent.event_id"  # on every ADK span that holds a model or tool exchange
_EMPTY = "{}"  # what ADK writes in place of content it does not capture (and on spans it does not apply to)
CLIENT_CALL_ID_PREFIX = "adk-"
_OI_INPUT_VALUE = "input.value"
_OI_OUTPUT_VALUE = "output.value"
_OI_SPAN_KIND = "openinference.span.kind"


def is_adk(attrs: Mapping[str, Any]) -> bool:
    """Whether ADK wrote the span (its exchange spans carry the event they belong to)."""
    return EVENT_ID in attrs or LLM_RESPONSE in attrs


def response_output(value: Any) -> tuple[list[str], list[tuple[str, Any, str]], bool] | None:
    """(texts, calls as (name, arguments, id), cut short?) of a legacy `llm_response`; None when it holds none."""
    if not isinstance(value, str) or value == _EMPTY or '"content"' not in value:
        return None
    try:
        decoded = json.loads(value)
    except ValueError:
        return [], [], True  # cut by the attribute length limit: extract's salvage reads what it can
    content = decoded.get("content") if isinstance(decoded, Mapping) else None
    if not isinstance(content, Mapping):
        return None
    return (*_parts(content), False)


def _parts(content: Mapping[str, Any]) -> tuple[list[str], list[tuple[str, Any, str]]]:
    texts: list[str] = []
    calls: list[tuple[str, Any, str]] = []
    for index, part in enumerate(content.get("parts") or ()):
        if not isinstance(part, Mapping):
            continue
        if isinstance(part.get("text"), str):
            texts.append(part["text"])
        call = part.get("function_call") or part.get("functionCall")
        if isinstance(call, Mapping) and call.get("name"):
            name = str(call["name"])
            calls.append((name, call.get("args"), str(call.get("id") or f"{name}_{index}")))
    return texts, calls


def event_output(value: Any) -> tuple[bool, str]:
    """(is this an ADK Event?, the text its model content says). OpenInference's AGENT `output.value`."""
    if not (isinstance(value, Mapping) and "author" in value and "invocation_id" in value):
        return False, ""
    content = value.get("content")
    if not isinstance(content, Mapping) or content.get("role", "model") != "model":
        return True, ""
    return True, "\n\n".join(_parts(content)[0])


def tool_io(attrs: Mapping[str, Any]) -> tuple[Any, Any]:
    """(arguments, result) of an ADK `execute_tool` span that has no GenAI content: the legacy schema's
    attributes, or OpenInference's TOOL input and output on the same span. (None, None) when neither."""
    args, result = attrs.get(TOOL_CALL_ARGS), attrs.get(TOOL_RESPONSE)
    if args is None and result is None and str(attrs.get(_OI_SPAN_KIND, "")).upper() == "TOOL":
        args, result = attrs.get(_OI_INPUT_VALUE), attrs.get(_OI_OUTPUT_VALUE)
    return (None if args == _EMPTY else args), tool_result(None if result == _EMPTY else result)


def tool_result(value: Any) -> Any:
    """What an ADK tool returned: inside OpenInference's FunctionResponse and ADK's `{"result": ...}` wrapper.
    Anything else unchanged."""
    decoded = value
    if isinstance(value, str):
        if '"result"' not in value and '"response"' not in value:
            return value
        try:
            decoded = json.loads(value)
        except ValueError:
            return value
    if isinstance(decoded, Mapping) and "response" in decoded and "name" in decoded:
        decoded = decoded["response"]
    if isinstance(decoded, Mapping) and set(decoded) == {"result"}:
        decoded = decoded["result"]
    if decoded is value:
        return value
    return decoded if isinstance(decoded, str) else json.dumps(decoded, ensure_ascii=False, default=str)


def joined_pieces(messages: Any) -> Any:
    """The output of a streamed turn as ADK writes it in GenAI `gen_ai.output.messages`: one message per
    piece the model sent, `finish_reason` "" on all but the last. Those pieces are one message, their text
    parts joined as sent (read apart, "Dock" and "er is not ru" said nothing, and no piece matched the
    blocked answer when it was redacted). `messages` itself when it holds no pieces."""
    if not isinstance(messages, (list, tuple)) or not any(_is_piece(m) for m in messages[:-1]):
        return messages
    out: list[Any] = []
    for message in messages:
        if out and _is_piece(out[-1]) and isinstance(message, Mapping) and message.get("role") == out[-1]["role"]:
            out[-1] = _joined(out[-1], message)
        else:
            out.append(message)
    return out


def _is_piece(message: Any) -> bool:
    return isinstance(message, Mapping) and message.get("finish_reason") == "" and isinstance(message.get("parts"), list)


def _joined(first: Mapping[str, Any], then: Mapping[str, Any]) -> dict[str, Any]:
    parts = list(first["parts"])
    for part in then.get("parts") or ():
        last = parts[-1] if parts else None
        if _text(last) and _text(part) and last.get("type") == part.get("type"):
            parts[-1] = {**last, "content": last["content"] + part["content"]}
        else:
            parts.append(part)
    return {**first, "parts": parts, "finish_reason": then.get("finish_reason", "")}


def _text(part: Any) -> bool:
    return isinstance(part, Mapping) and isinstance(part.get("content"), str) and part.get("type") != "tool_call"


def client_call_id(call_id: str | None) -> bool:
    """Whether ADK made the id up (the model gave the call none): the request's own id names the call."""
    return bool(call_id) and call_id.startswith(CLIENT_CALL_ID_PREFIX)
