"""Find the LLM output text on a span, whichever convention the instrumentation used.

Conventions, in the order they are tried (the first that yields text wins):
GenAI `gen_ai.output.messages`; the older `gen_ai.content.completion` event;
the same messages as span events (Strands, `extract_events.py`);
OpenLLMetry's indexed `gen_ai.completion.{i}.*`; OpenInference
`llm.output_messages.{i}.*`; OpenInference `output.value` on LLM/AGENT spans;
Traceloop `traceloop.entity.output` on agent/workflow/task spans (a LangChain
run's serialized output there and in `output.value` is read as its last
message, see `extract_langchain.py`; a LlamaIndex step's as the model message
or query response it carries, see `extract_llamaindex.py`; a CrewAI task's or
crew's as its final answer, see `extract_crewai.py`); the Vercel AI SDK's
`ai.response.*` on its model-call spans (`extract_vercel.py`); Google ADK's legacy
`gcp.vertex.agent.llm_response` on its `call_llm` spans, and an ADK Event in
OpenInference's `output.value` read as its model content (`extract_adk.py`); Haystack's own
tracing, a model call's `replies` in `haystack.agent.step.llm.output` or a chat generator
component's `haystack.component.output` (`extract_haystack.py`).

Text and reasoning parts are validated; tool calls are recorded, not validated
as prose, except a call of an output tool: an agent that answers in a
structured form does so by calling a tool the framework declared for it
(pydantic-ai's `final_result`, listed under `output_tools` in its
`model_request_parameters` span attribute), and that call's arguments are the
answer, so their strings are validated as text. A JSON value cut by the
attribute length limit is still read for the text it holds, and the output is
marked truncated.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from . import attributes as A
from . import extract_adk as adk
from . import extract_dspy as dspy
from . import extract_haystack as haystack
from . import extract_litellm as litellm
from . import extract_vercel as vercel
from .extract_crewai import run_output as crewai_run_output
from .extract_events import SPAN_OUTPUT_EVENTS, choice_messages, output_event_value
from .extract_langchain import langchain_output
from .extract_llamaindex import is_step, prepared_request, step_output
from .jsonwalk import strings as _strings
from .records import SpanRecord, last_span_answer

_TEXT_PART_TYPES = {"text", "reasoning", "thinking", "output_text"}
_CONTENT_STRINGS = re.compile(r'"(?:content|text)"\s*:\s*"((?:[^"\\]|\\.)*)(?:"|$)', re.S)
_INDEXED_COMPLETION = re.compile(r"^gen_ai\.completion\.(\d+)\.(content|role)$")
_INDEXED_TOOL = re.compile(r"^gen_ai\.completion\.(\d+)\.tool_calls\.(\d+)\.name$")
_OI_MESSAGE = re.compile(
    r"^llm\.output_messages\.(\d+)\.message\.(?:(content|role)|contents\.(\d+)\.message_content\.text)$"
)
_OI_TOOL = re.compile(r"^llm\.output_messages\.(\d+)\.message\.tool_calls\.(\d+)\.tool_call\.function\.name$")
# pydantic-ai's LLM span attribute naming, among the request's tools, those that carry the final answer.
PYDANTIC_AI_REQUEST_PARAMETERS = "model_request_parameters"
# Tools whose call is the answer, whatever the span declares: smolagents' ToolCallingAgent answers only by
# calling `final_answer(answer=...)`, so its LLM spans held no text and the answer went unjudged there
# (and its tool span's result, the answer itself, was taken as evidence grounding the answer).
ANSWER_TOOLS = frozenset({"final_answer"})


@dataclass(frozen=True, slots=True)
class ToolCall:
    name: str
    arguments: str | None = None
    # The id the LLM gave the call, when the convention carries one: its execution (a tool span, a
    # hook) has the same id, so the tool-call policy counts the call once. Not part of equality.
    id: str | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class Output:
    """The agent-generated text found on one span."""

    text: str
    source: str
    truncated: bool = False
    tool_calls: tuple[ToolCall, ...] = ()
    # The text as the model wrote it, when `text` was read out of a structure in it (DSPy's field
    # markers): a block must keep that form from travelling too.
    raw: str | None = field(default=None, compare=False)

    @property
    def blocked_forms(self) -> tuple[str, ...]:
        """The forms of this output an enforced block redacts wherever they travel."""
        return (self.text,) if not self.raw else (self.text, self.raw)


_EXACT_KEYS = frozenset(
    {A.GEN_AI_OUTPUT_MESSAGES, A.OUTPUT_VALUE, A.TRACELOOP_ENTITY_OUTPUT, adk.LLM_RESPONSE, *vercel.OUTPUT_KEYS,
     *haystack.OUTPUT_KEYS}
)
_PREFIXES = (A.GEN_AI_COMPLETION_PREFIX, A.LLM_OUTPUT_MESSAGES_PREFIX)


@last_span_answer  # every check's `wants` asks it of the same span in turn
def may_carry_output(span: SpanRecord) -> bool:
    """A cheap first look, by attribute and event names only: most spans carry no LLM output."""
    return _may_carry_output(span)


def _may_carry_output(span: SpanRecord) -> bool:
    keys = span.attributes.keys()
    if not _EXACT_KEYS.isdisjoint(keys):
        return True
    for key in keys:
        if key.startswith(_PREFIXES) or litellm.is_raw_choices(key):
            return True
    return any(e.name == A.GEN_AI_CONTENT_COMPLETION_EVENT or e.name in SPAN_OUTPUT_EVENTS for e in span.events)


def extract(span: SpanRecord) -> Output | None:
    """The LLM output on `span`, or None when it carries none."""
    if not may_carry_output(span):
        return None
    attrs = span.attributes
    for finder in _FINDERS:
        found = finder(span, attrs)
        if found is not None and (found.text.strip() or found.tool_calls):
            return _dspy_fields(found) if dspy.MARKER in found.text else found
    return None


def _dspy_fields(found: Output) -> Output:
    """DSPy's marked output (extract_dspy.py): its text fields are the text, ReAct's tool fields a call."""
    parsed = dspy.structured(found.text)
    if parsed is None:
        return found
    texts, calls = parsed
    tools = found.tool_calls + tuple(ToolCall(name, arguments) for name, arguments in calls)
    return Output("\n\n".join(texts), found.source, found.truncated, tools, raw=found.text)


def _from_output_messages(span: SpanRecord, attrs: Mapping[str, Any]) -> Output | None:
    value = attrs.get(A.GEN_AI_OUTPUT_MESSAGES)
    if value is None:
        return None
    # Which tools carry the answer matters only when the output calls a tool at all.
    calls = not isinstance(value, str) or '"tool_call' in value
    found = messages_output(value, A.GEN_AI_OUTPUT_MESSAGES, output_tools(attrs) if calls else frozenset())
    if found is not None and not found.tool_calls and _may_hold_function_calls(attrs):
        # LiteLLM's callback writes the calls beside the messages (extract_litellm.py).
        extra = tuple(ToolCall(name, _as_text(arguments)) for name, arguments in litellm.function_calls(attrs))
        if extra:
            found = Output(found.text, found.source, found.truncated, extra)
    return found


def _may_hold_function_calls(attrs: Mapping[str, Any]) -> bool:
    """A key `litellm.function_calls` reads calls from is there: asked by key name, not by walking every
    attribute's value (which converted each of them from protobuf in the collector)."""
    return any(key.endswith(_FUNCTION_CALL_NAME) for key in attrs.keys())


_FUNCTION_CALL_NAME = ".function_call.name"  # how every key of extract_litellm's _FUNCTION_CALL ends


def output_tools(attrs: Mapping[str, Any]) -> frozenset[str]:
    """Names of the tools whose call is the agent's final answer (pydantic-ai's tool output mode)."""
    raw = attrs.get(PYDANTIC_AI_REQUEST_PARAMETERS)
    if isinstance(raw, str):
        # The common cases are decided without parsing the tool schemas: no output tools, or none listed.
        if '"output_tools"' not in raw or '"output_tools":[]' in raw:
            return frozenset()
        raw, _ = _decode(raw)
    if not isinstance(raw, Mapping):
        return frozenset()
    tools = raw.get("output_tools")
    if not isinstance(tools, (list, tuple)):
        return frozenset()
    return frozenset(t["name"] for t in tools if isinstance(t, Mapping) and isinstance(t.get("name"), str))


def messages_output(value: Any, source: str, answer_tools: frozenset[str] = frozenset()) -> Output | None:
    """Text and tool calls from a GenAI messages value (JSON string or structured).

    Calls of `answer_tools` are the answer itself: their arguments' strings are text too.
    """
    messages, truncated = _decode(value)
    if messages is None:
        return Output(_salvage(value), source, truncated=True) if isinstance(value, str) else None
    if isinstance(messages, Mapping):
        messages = [messages]
    if not isinstance(messages, (list, tuple)):  # the SDK stores structured lists as tuples
        return None
    messages = adk.joined_pieces(messages)  # a streamed turn in pieces (extract_adk.py)
    texts: list[str] = []
    tools: list[ToolCall] = []
    for message in messages:
        if not isinstance(message, Mapping) or message.get("role", "assistant") not in ("assistant", "model"):
            continue
        truncated = _collect_message(message, texts, tools, answer_tools) or truncated
    return Output("\n\n".join(texts), source, truncated, tuple(tools))


def _collect_message(
    message: Mapping[str, Any], texts: list[str], tools: list[ToolCall], answer_tools: frozenset[str]
) -> bool:
    """Add the message's text and tool calls; True when an answer tool's arguments were cut short."""
    cut = False
    parts = message.get("parts")
    if isinstance(parts, (list, tuple)):
        for part in parts:
            if not isinstance(part, Mapping):
                continue
            kind = part.get("type")
            if kind in _TEXT_PART_TYPES and isinstance(part.get("content"), str):
                texts.append(part["content"])
            elif kind == "tool_call" and part.get("name"):
                cut = _collect_call(str(part["name"]), part.get("arguments"), texts, tools, answer_tools,
                                    part.get("id")) or cut
        if litellm.has_tool_parts(parts):
            return cut
        # LiteLLM's messages: text in parts, the calls beside them in OpenAI's shape (extract_litellm.py).
        for name, arguments, call_id in litellm.openai_tool_calls(message):
            cut = _collect_call(name, arguments, texts, tools, answer_tools, call_id) or cut
        return cut
    # OpenAI message shape: {"role", "content", "tool_calls": [{"function": {"name", "arguments"}}]}
    content = message.get("content")
    if isinstance(content, str):
        texts.append(content)
    elif isinstance(content, (list, tuple)):
        texts.extend(c["text"] for c in content if isinstance(c, Mapping) and isinstance(c.get("text"), str))
    for call in message.get("tool_calls") or ():
        function = call.get("function") if isinstance(call, Mapping) else None
        if isinstance(function, Mapping) and function.get("name"):
            cut = _collect_call(str(function["name"]), function.get("arguments"), texts, tools, answer_tools,
                                call.get("id")) or cut
    return cut


def _collect_call(
    name: str, arguments: Any, texts: list[str], tools: list[ToolCall], answer_tools: frozenset[str],
    call_id: Any = None,
) -> bool:
    """Record a tool call; an answer tool's argument strings are text. True when they were cut short."""
    tools.append(ToolCall(name, _as_text(arguments), _call_id(call_id)))
    if name not in answer_tools and name not in ANSWER_TOOLS:
        return False
    decoded, _ = _decode(arguments)
    if decoded is None:  # arguments cut by the length limit: what can be read of them
        texts.append(_salvage_values(arguments))
        return True
    texts.extend(_strings(decoded))
    return False


def _from_completion_event(span: SpanRecord, attrs: Mapping[str, Any]) -> Output | None:
    for event in span.events:
        if event.name == A.GEN_AI_CONTENT_COMPLETION_EVENT and A.GEN_AI_COMPLETION in event.attributes:
            return messages_output(event.attributes[A.GEN_AI_COMPLETION], A.GEN_AI_CONTENT_COMPLETION_EVENT)
    return None


def _from_span_events(span: SpanRecord, attrs: Mapping[str, Any]) -> Output | None:
    """Strands' span events (extract_events.py): the latest convention's messages, or a choice's content."""
    found = output_event_value(span) if span.events else None
    if found is None:
        return None
    source, value = found
    if source == A.GEN_AI_CHOICE_EVENT:
        value = choice_messages(value)
    return messages_output(value, source) if value is not None else None


def _from_indexed_completion(span: SpanRecord, attrs: Mapping[str, Any]) -> Output | None:
    if not any(key.startswith(A.GEN_AI_COMPLETION_PREFIX) for key in attrs):
        return None
    contents: dict[int, str] = {}
    roles: dict[int, str] = {}
    tools: list[ToolCall] = []
    for key, value in attrs.items():
        m = _INDEXED_COMPLETION.match(key)
        if m:
            (contents if m.group(2) == "content" else roles)[int(m.group(1))] = str(value)
        elif _INDEXED_TOOL.match(key):
            args = attrs.get(key[: -len("name")] + "arguments")
            tools.append(ToolCall(str(value), _as_text(args), _call_id(attrs.get(key[: -len("name")] + "id"))))
    texts = [contents[i] for i in sorted(contents) if roles.get(i, "assistant") == "assistant"]
    return Output("\n\n".join(texts), "gen_ai.completion.indexed", False, tuple(tools))


def _from_openinference_messages(span: SpanRecord, attrs: Mapping[str, Any]) -> Output | None:
    if not any(key.startswith(A.LLM_OUTPUT_MESSAGES_PREFIX) for key in attrs):
        return None
    content: dict[int, str] = {}  # message.content, the flat text
    parts: dict[int, dict[int, str]] = {}  # message.contents.K.message_content.text, the same text in parts
    roles: dict[int, str] = {}
    tools: list[ToolCall] = []
    calls: list[tuple[str, Any, Any]] = []  # (name, arguments, id)
    answered: list[str] = []  # an answer tool's argument strings
    for key, value in attrs.items():
        m = _OI_MESSAGE.match(key)
        if m:
            index = int(m.group(1))
            if m.group(2) == "role":
                roles[index] = str(value)
            elif value == A.OPENINFERENCE_REDACTED:
                continue
            elif m.group(2):
                content[index] = str(value)
            else:
                parts.setdefault(index, {})[int(m.group(3))] = str(value)
        elif _OI_TOOL.match(key):
            call = key[: -len("function.name")]  # llm.output_messages.{i}.message.tool_calls.{j}.tool_call.
            calls.append((str(value), attrs.get(call + "function.arguments"), attrs.get(call + "id")))
    kept: list[str] = []
    truncated = False
    for name, arguments, call_id in calls:
        truncated = _collect_call(name, arguments, answered, tools, frozenset(), call_id) or truncated
    for index in sorted(content.keys() | parts.keys()):
        if roles.get(index, "assistant") != "assistant":
            continue
        # Instrumentations of the Responses API write a message both ways (content is the parts
        # joined); reading both would judge, count and store the text twice. The flat form is
        # the one redaction must match, so it wins; parts alone (reasoning, refusals) still count.
        if index in content:
            kept.append(content[index])
        else:
            kept.extend(text for _, text in sorted(parts[index].items()))
    return Output("\n\n".join(kept + answered), "llm.output_messages", truncated, tuple(tools))


def _from_openinference_value(span: SpanRecord, attrs: Mapping[str, Any]) -> Output | None:
    if str(attrs.get(A.OPENINFERENCE_SPAN_KIND, "")).upper() not in ("LLM", "AGENT"):
        return None
    value = attrs.get(A.OUTPUT_VALUE)
    if not isinstance(value, str) or value == A.OPENINFERENCE_REDACTED:
        return None
    return _text_or_json(value, A.OUTPUT_VALUE)


def _from_traceloop(span: SpanRecord, attrs: Mapping[str, Any]) -> Output | None:
    if str(attrs.get(A.TRACELOOP_SPAN_KIND, "")).lower() not in ("agent", "workflow", "task"):
        return None
    value = attrs.get(A.TRACELOOP_ENTITY_OUTPUT)
    if not isinstance(value, str):
        return None
    if is_step(span):  # a LlamaIndex step: only the model's message or a query's response (extract_llamaindex.py)
        decoded, _ = _decode(value)
        return Output(step_output(decoded), A.TRACELOOP_ENTITY_OUTPUT)
    return _text_or_json(value, A.TRACELOOP_ENTITY_OUTPUT)


def _from_vercel_ai(span: SpanRecord, attrs: Mapping[str, Any]) -> Output | None:
    """The Vercel AI SDK's model-call spans (extract_vercel.py); its root spans repeat them and say nothing."""
    found = vercel.output_parts(span.name, attrs)
    if found is None:
        return None
    texts, calls, cut = found
    return Output("\n\n".join(texts), vercel.source(attrs), cut, tuple(ToolCall(n, a, i) for n, a, i in calls))


def _from_adk_response(span: SpanRecord, attrs: Mapping[str, Any]) -> Output | None:
    """ADK's legacy `call_llm` span: its LlmResponse JSON (extract_adk.py)."""
    value = attrs.get(adk.LLM_RESPONSE)
    found = adk.response_output(value)
    if found is None:
        return None
    texts, calls, cut = found
    if cut:
        return Output(_salvage(value), adk.LLM_RESPONSE, truncated=True)
    return Output("\n\n".join(texts), adk.LLM_RESPONSE, False, tuple(ToolCall(n, _as_text(a), i) for n, a, i in calls))


def _from_haystack(span: SpanRecord, attrs: Mapping[str, Any]) -> Output | None:
    """Haystack's own tracing (extract_haystack.py): a model call's replies, never an Agent's, a prompt
    builder's or a pipeline's outputs, which repeat them or are what the agent was given."""
    if not (haystack.STEP_LLM_OUTPUT in attrs or haystack.COMPONENT_OUTPUT in attrs):
        return None
    found = haystack.model_output(attrs)
    if found is None:
        return None
    texts, calls, cut = found
    key = haystack.STEP_LLM_OUTPUT if haystack.STEP_LLM_OUTPUT in attrs else haystack.COMPONENT_OUTPUT
    if cut:
        return Output(_salvage(str(attrs[key])), key, truncated=True)
    return Output("\n\n".join(texts), key, False, tuple(ToolCall(n, a, i) for n, a, i in calls))


def _from_litellm_raw(span: SpanRecord, attrs: Mapping[str, Any]) -> Output | None:
    """LiteLLM's raw response span (extract_litellm.py): the one record of a call made under an open span."""
    found = litellm.raw_output(attrs)
    if found is None:
        return None
    key, messages = found
    if messages is None:  # a repr cut by the length limit: what can be read of it
        return Output(litellm.salvage(str(attrs[key])), key, truncated=True)
    return messages_output(messages, key)


def _text_or_json(value: str, source: str) -> Output:
    """A raw output value: plain text, or JSON whose strings are the text."""
    stripped = value.lstrip()
    if not stripped.startswith(("{", "[", '"')):
        return Output(value, source)
    decoded, _ = _decode(value)
    if decoded is None:
        return Output(_salvage(value) or value, source, truncated=True)
    chain, said = langchain_output(decoded)  # a LangChain run: its last message, if the model's
    if chain:
        return Output(said, source)
    crew, said = crewai_run_output(decoded)  # a CrewAI task or crew run: its final answer, not its conversation
    if crew:
        return Output(said, source)
    event, said = adk.event_output(decoded)  # an ADK Event (OpenInference's agent run): its model content
    if event:
        return Output(said, source)
    if prepared_request(decoded):  # LlamaIndex preparing a chat request: its messages are no model's words
        return Output("", source)
    if isinstance(decoded, (list, tuple, Mapping)) and _looks_like_messages(decoded):
        found = messages_output(decoded, source)
        if found is not None:
            return found
    return Output("\n\n".join(_strings(decoded)), source)


def _looks_like_messages(value: Any) -> bool:
    items = value if isinstance(value, (list, tuple)) else [value]
    return any(isinstance(m, Mapping) and "role" in m for m in items)


def _decode(value: Any) -> tuple[Any, bool]:
    """(decoded value or None when undecodable, truncated?)."""
    if not isinstance(value, str):
        return value, False
    try:
        return json.loads(value), False
    except ValueError:
        return None, True


def _salvage(value: str) -> str:
    """The readable text of a JSON value cut mid-way: its content/text strings, the last one partial."""
    pieces = []
    for m in _CONTENT_STRINGS.finditer(value):
        raw = m.group(1).rstrip("\\")
        try:
            pieces.append(json.loads(f'"{raw}"'))
        except ValueError:
            pieces.append(raw)
    return "\n\n".join(pieces)


_JSON_STRINGS = re.compile(r'"((?:[^"\\]|\\.)*)(?:"|$)', re.S)


def _salvage_values(value: str) -> str:
    """The string values of a JSON object cut mid-way (keys dropped), the last one partial."""
    pieces = []
    for m in _JSON_STRINGS.finditer(value):
        if value[m.end() :].lstrip().startswith(":"):
            continue  # a key
        raw = m.group(1).rstrip("\\")
        try:
            pieces.append(json.loads(f'"{raw}"'))
        except ValueError:
            pieces.append(raw)
    return "\n\n".join(pieces)


def _as_text(value: Any) -> str | None:
    if value is None:
        return None
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


def _call_id(value: Any) -> str | None:
    return str(value) if value not in (None, "") else None


_FINDERS = (
    _from_output_messages,
    _from_completion_event,
    _from_span_events,
    _from_indexed_completion,
    _from_openinference_messages,
    _from_openinference_value,
    _from_traceloop,
    _from_vercel_ai,
    _from_adk_response,
    _from_litellm_raw,
    _from_haystack,
)
