"""The evidence pool of one LLM output span, read from its trace, and the user's query.

Evidence is what the agent could see before it spoke:
- tool results of spans that ended earlier: GenAI `execute_tool` spans
  (`gen_ai.tool.call.result`, or Strands' events), OpenInference TOOL spans (`output.value`),
  OpenLLMetry tool spans (`traceloop.entity.output`), the Vercel AI SDK's `ai.toolCall`
  spans (`ai.toolCall.result`);
- retrieved documents: OpenInference `retrieval.documents.{i}.document.content`, the nodes
  of OpenLLMetry's LlamaIndex retriever steps;
- the span's own input messages: tool results and user messages in
  `gen_ai.input.messages`, OpenInference `llm.input_messages.{i}.*`,
  OpenLLMetry `gen_ai.prompt.{i}.*` and the Vercel AI SDK's `ai.prompt.messages`;
  when they hold tool results but no assistant turn (a server-held conversation: the anthropic SDK's tool
  runner sends only the new turn), the earlier LLM spans' inputs too; when they hold neither (a
  conversation that starts there: a crew's next agent), the tool results of the earlier LLM spans' inputs.
The agent's own earlier words are not evidence. Its own earlier actions are, of
what it did: the arguments of the tool calls it made and the code blocks of its
earlier turns (the commands it ran, the files it wrote) become `agent_action`
passages, placed after all other evidence so that a lookup finds a tool's or
user's statement first (the grader grades a claim resting on an action INFERRED,
see `grade.py`). Each passage keeps its span id and attribute (or message index)
so a grade can cite it.
"""

from __future__ import annotations

import json
import re
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from functools import lru_cache
from threading import Lock
from typing import Any

from ..otel import extract_adk as adk
from ..otel import extract_dspy as dspy
from ..otel import extract_haystack as haystack
from ..otel import extract_litellm as litellm
from ..otel import extract_vercel as vercel
from ..otel.extract import ANSWER_TOOLS
from ..otel.extract_events import tool_events
from ..otel.extract_langchain import bound_arguments, tool_call_input, tool_message_content
from ..otel.extract_llamaindex import retrieved_texts, tool_output_text, tool_step
from ..otel.records import SpanRecord
from .evidence import Passage, looks_truncated

GEN_AI_OPERATION_NAME = "gen_ai.operation.name"
GEN_AI_TOOL_NAME = "gen_ai.tool.name"
GEN_AI_TOOL_ARGUMENTS = "gen_ai.tool.call.arguments"
GEN_AI_TOOL_RESULT = "gen_ai.tool.call.result"
GEN_AI_INPUT_MESSAGES = "gen_ai.input.messages"
GEN_AI_PROMPT_PREFIX = "gen_ai.prompt."
OI_SPAN_KIND = "openinference.span.kind"
OI_TOOL_NAME = "tool.name"
OI_TOOL_PARAMETERS = "tool.parameters"
INPUT_VALUE = "input.value"
OUTPUT_VALUE = "output.value"
OI_INPUT_MESSAGES_PREFIX = "llm.input_messages."
RETRIEVAL_PREFIX = "retrieval.documents."
TRACELOOP_SPAN_KIND = "traceloop.span.kind"
TRACELOOP_ENTITY_NAME = "traceloop.entity.name"
TRACELOOP_ENTITY_INPUT = "traceloop.entity.input"
TRACELOOP_ENTITY_OUTPUT = "traceloop.entity.output"
OI_REDACTED = "__REDACTED__"
# The anthropic SDK's own tool spans (its tool runner, with content recorded): the result's content blocks.
ANTHROPIC_TOOL_RESULT = "anthropic.tool_result.content"
# pydantic-ai's older attribute format (InstrumentationSettings(version=2)): `running tool` spans.
PYDANTIC_AI_TOOL_ARGUMENTS = "tool_arguments"
PYDANTIC_AI_TOOL_RESPONSE = "tool_response"
STRANDS_TOOL_RESULT = "gen_ai.choice"  # where a Strands tool span's result is cited from (its event)

_OI_MESSAGE = re.compile(
    r"^llm\.input_messages\.(\d+)\.message\.(?:(role|content|name|tool_call_id)|contents\.(\d+)\.message_content\.text"
    r"|tool_calls\.(\d+)\.tool_call\.(id|function\.name))$"
)
_OI_DOC = re.compile(r"^retrieval\.documents\.(\d+)\.document\.content$")
_PROMPT = re.compile(r"^gen_ai\.prompt\.(\d+)\.(role|content)$")
_EVIDENCE_KEYS = frozenset(
    {GEN_AI_TOOL_RESULT, GEN_AI_INPUT_MESSAGES, OUTPUT_VALUE, TRACELOOP_ENTITY_OUTPUT, PYDANTIC_AI_TOOL_RESPONSE,
     ANTHROPIC_TOOL_RESULT, adk.TOOL_RESPONSE, vercel.PROMPT_MESSAGES, *vercel.TOOL_RESULT_KEYS,
     haystack.TOOL_OUTPUT, haystack.COMPONENT_OUTPUT, haystack.STEP_LLM_INPUT}
)


def may_hold_evidence(span: SpanRecord) -> bool:
    """A cheap look by attribute names: could this span carry tool results, documents or input messages?"""
    keys = span.attributes.keys()
    if not _EVIDENCE_KEYS.isdisjoint(keys):
        return True
    if span.events and span.attributes.get(GEN_AI_OPERATION_NAME) == "execute_tool":
        return True
    return any(k.startswith((RETRIEVAL_PREFIX, OI_INPUT_MESSAGES_PREFIX, GEN_AI_PROMPT_PREFIX)) for k in keys)


def evidence_for(
    span: SpanRecord, before: Iterable[SpanRecord], max_spans: int = 400
) -> tuple[list[Passage], str | None]:
    """(passages, query): evidence from the spans that ended before `span` and from its own input."""
    passages: list[Passage] = []
    earlier = list(before)[-max_spans:]
    for other in earlier:
        passages.extend(_cached_span_passages(other))
    own, query = input_passages(span)
    if any(p.source == "tool_message" for p in own) and not _sends_history(span):
        # Tool results without the turn that asked for them: the server holds the conversation (the anthropic
        # SDK's tool runner on message threads sends only the new tool results), so what the agent saw before
        # is in the trace's earlier LLM spans' inputs.
        held = [p for other in earlier for p in input_passages(other)[0]]
        query = query or next((p.text for p in reversed(held) if p.source == "user_message"), None)
        own = held + own
    elif earlier and not _sends_history(span) and not any(p.source == "tool_result" for p in passages):
        # A conversation that starts here, in a trace where other conversations ran tools: a crew's next agent
        # answers from what the agent before it found (CrewAI). Without tool spans (OpenLLMetry's) those
        # results are only in the other agent's LLM inputs; its prompts are not this agent's, so only results.
        # With tool spans the results are already here, and walking every earlier span's inputs is not free.
        own = [p for other in earlier for p in _cached_input_results(other)] + own
    # A tool result the client echoes into this call's input is the same evidence as the tool span it came
    # from: keep the span's copy (the pool indexes a repeat once, the newest), so a grade cites the span.
    results = {p.text for p in passages if p.source == "tool_result"}
    if results:
        own = [p for p in own if p.source != "tool_message" or p.text not in results]
    # So is a retrieved document a RAG prompt quotes (LlamaIndex's query engines put the retrieved texts
    # in the user message): the prompt keeps the rest, the retriever span the document.
    documents = [p.text for p in passages if p.source == "retrieval" and len(p.text) >= _QUOTED_DOCUMENT_CHARS]
    if documents:
        own = [_without(p, documents) if p.source in ("user_message", "system_message") else p for p in own]
    actions = [_span_action(p.arguments, p.span_id, p.tool_name, p.end_ns) for p in passages if p.arguments]
    actions = [a for a in actions if a is not None]
    passages.extend(own)
    passages.extend(actions)
    return passages, query


_QUOTED_DOCUMENT_CHARS = 40  # shorter texts could be any phrase of a prompt


def _without(passage: Passage, documents: list[str]) -> Passage:
    """The passage with the documents it quotes cut out."""
    text = passage.text
    for document in documents:
        if document in text:
            text = text.replace(document, "\n")
    return passage if text is passage.text else replace(passage, text=text)


def _sends_history(span: SpanRecord) -> bool:
    """The span's input holds an assistant turn: the client sends the conversation back with each call
    (a cheap look: a JSON string is searched, not parsed)."""
    attrs = span.attributes
    value = attrs.get(GEN_AI_INPUT_MESSAGES, attrs.get(vercel.PROMPT_MESSAGES))
    if isinstance(value, str):
        return '"assistant"' in value or '"model"' in value
    if value is not None:
        return any(isinstance(m, Mapping) and m.get("role") in ("assistant", "model") for m in value)
    return any(
        k.endswith(".role") and v == "assistant"
        for k, v in attrs.items()
        if k.startswith((OI_INPUT_MESSAGES_PREFIX, GEN_AI_PROMPT_PREFIX))
    )


AGENT_ACTION = "agent_action"
_ACTION_CHARS = 4_000  # an action is a command or a file body: kept short so it cannot crowd tool results out
# Tools whose arguments are the agent's own prose (a scratchpad, a hand-off summary), not an action.
PROSE_TOOLS = frozenset({"think", "thinking", "reason", "reasoning", "scratchpad", "transfer_to_human_agents"})
_CODE_BLOCK = re.compile(r"```[^\n]*\n(.*?)(?:```|\Z)", re.S)


def _action(text: str, span_id: str | None, key: str, tool: str | None = None, end_ns: int = 0) -> Passage:
    """One of the agent's own earlier actions as evidence of what it did (not of what the world said)."""
    return Passage(text[:_ACTION_CHARS], AGENT_ACTION, span_id, key, tool, False, end_ns)


@lru_cache(maxsize=4096)
def _span_action(arguments: str, span_id: str | None, tool: str | None, end_ns: int) -> Passage | None:
    """A tool span's arguments as an action, remembered: every later LLM call of a trace reads the same spans."""
    if not arguments.strip() or (tool or "").lower() in PROSE_TOOLS:
        return None
    return _action(arguments, span_id, GEN_AI_TOOL_ARGUMENTS, tool, end_ns)


def actions_from_message(message: Mapping[str, Any], key: str) -> list[Passage]:
    """The actions in one earlier assistant message: its tool calls' arguments and its code blocks (the
    commands a shell agent runs). Its prose is left out: what the agent said before is no evidence."""
    out: list[Passage] = []
    for call in message.get("tool_calls") or ():
        if isinstance(call, Mapping):
            fn = call.get("function") if isinstance(call.get("function"), Mapping) else call
            arguments = _text(fn.get("arguments"))
            if arguments and arguments.strip() and str(fn.get("name", "")).lower() not in PROSE_TOOLS:
                out.append(_action(arguments, None, key, _str(fn.get("name"))))
    content = message.get("content")
    if isinstance(content, str) and "```" in content:
        out.extend(_action(m.group(1), None, key) for m in _CODE_BLOCK.finditer(content) if m.group(1).strip())
    return out


_SPAN_CACHE: OrderedDict[tuple[str, str, int, int], tuple[Passage, ...]] = OrderedDict()
_SPAN_CACHE_SIZE = 1024  # entries hold passage texts: bounded
_SPAN_LOCK = Lock()


def _cached_span_passages(span: SpanRecord) -> tuple[Passage, ...]:
    """`span_passages`, remembered per span: every later LLM call of a trace reads the same tool spans."""
    # The ids alone could repeat across separately built records (tests, replays); the evidence values'
    # hashes (cached by Python for strings) make a stale hit impossible at little cost.
    evidence = tuple(
        (k, v if isinstance(v, str) else repr(v))
        for k, v in span.attributes.items()
        if k in _EVIDENCE_KEYS or k.startswith(RETRIEVAL_PREFIX)
    )
    key = (span.trace_id, span.span_id, span.end_ns, hash(evidence))
    found = _SPAN_CACHE.get(key)
    if found is None:
        found = tuple(span_passages(span)) if may_hold_evidence(span) else ()
        with _SPAN_LOCK:
            _SPAN_CACHE[key] = found
            if len(_SPAN_CACHE) > _SPAN_CACHE_SIZE:
                _SPAN_CACHE.popitem(last=False)
    return found


_INPUT_CACHE: OrderedDict[tuple[str, str, int], tuple[Passage, ...]] = OrderedDict()  # bounded like _SPAN_CACHE


def _cached_input_results(span: SpanRecord) -> tuple[Passage, ...]:
    """The tool results in an earlier span's input, remembered per span: every fresh conversation after it in
    the trace (each next agent of a crew) reads them again."""
    # As in `_cached_span_passages`: ids can repeat across separately built records, the input's hash cannot.
    inputs = tuple(
        (k, v if isinstance(v, str) else repr(v))
        for k, v in span.attributes.items()
        if k in (GEN_AI_INPUT_MESSAGES, vercel.PROMPT_MESSAGES) or k.startswith((OI_INPUT_MESSAGES_PREFIX, GEN_AI_PROMPT_PREFIX))
    )
    key = (span.trace_id, span.span_id, hash(inputs))
    found = _INPUT_CACHE.get(key)
    if found is None:
        found = tuple(p for p in input_passages(span)[0] if p.source == "tool_message")
        with _SPAN_LOCK:
            _INPUT_CACHE[key] = found
            if len(_INPUT_CACHE) > _SPAN_CACHE_SIZE:
                _INPUT_CACHE.popitem(last=False)
    return found


def span_passages(span: SpanRecord) -> list[Passage]:
    """Tool results and retrieved documents that one (earlier) span carries."""
    attrs = span.attributes
    out: list[Passage] = []
    tool = _tool_result(span)
    if tool is not None and tool[0] not in ANSWER_TOOLS:  # an answer tool's result is the answer, not evidence
        name, arguments, result, key = tool
        # LangChain's envelopes (a serialized ToolMessage, OpenLLMetry's input wrapper): what the tool got and gave.
        arguments = _text(tool_call_input(arguments))
        out.append(_passage(tool_output_text(tool_message_content(result)), "tool_result", span, key, name, arguments))
    docs = [(int(m.group(1)), k) for k in attrs if (m := _OI_DOC.match(k))]
    for _, key in sorted(docs):
        out.append(_passage(attrs[key], "retrieval", span, key))
    if not docs and TRACELOOP_ENTITY_OUTPUT in attrs:  # OpenLLMetry's LlamaIndex retriever step: its nodes
        out.extend(_passage(text, "retrieval", span, TRACELOOP_ENTITY_OUTPUT) for text in retrieved_texts(span))
    if haystack.COMPONENT_OUTPUT in attrs:  # Haystack's own tracing: a retriever component's documents
        key = haystack.COMPONENT_OUTPUT
        out.extend(_passage(text, "retrieval", span, key) for text in haystack.retrieved_texts(attrs))
    return [p for p in out if p.text.strip()]


def _tool_result(span: SpanRecord) -> tuple[str | None, str | None, Any, str] | None:
    found = _any_tool_result(span)
    if found is not None and found[3] == OUTPUT_VALUE and adk.is_adk(span.attributes):
        # OpenInference on an ADK tool span: its output is the FunctionResponse around the result
        name, arguments, result, key = found
        return name, arguments, adk.tool_result(result), key
    return found


def _any_tool_result(span: SpanRecord) -> tuple[str | None, str | None, Any, str] | None:
    attrs = span.attributes
    if GEN_AI_TOOL_RESULT in attrs:
        name = attrs.get(GEN_AI_TOOL_NAME)
        return _str(name), _text(attrs.get(GEN_AI_TOOL_ARGUMENTS)), attrs[GEN_AI_TOOL_RESULT], GEN_AI_TOOL_RESULT
    if ANTHROPIC_TOOL_RESULT in attrs and GEN_AI_TOOL_NAME in attrs:
        args = _text(attrs.get(GEN_AI_TOOL_ARGUMENTS))
        return _str(attrs[GEN_AI_TOOL_NAME]), args, block_text(attrs[ANTHROPIC_TOOL_RESULT]), ANTHROPIC_TOOL_RESULT
    if attrs.get(GEN_AI_OPERATION_NAME) == "execute_tool" and span.events:  # Strands: events carry both
        arguments, result = tool_events(span)
        if result is not None:
            return _str(attrs.get(GEN_AI_TOOL_NAME)), _text(arguments), result, STRANDS_TOOL_RESULT
    if adk.TOOL_RESPONSE in attrs and GEN_AI_TOOL_NAME in attrs:  # ADK's legacy schema
        arguments, result = adk.tool_io(attrs)
        if result is not None:
            return _str(attrs[GEN_AI_TOOL_NAME]), _text(arguments), result, adk.TOOL_RESPONSE
    if PYDANTIC_AI_TOOL_RESPONSE in attrs and GEN_AI_TOOL_NAME in attrs:
        args = _text(attrs.get(PYDANTIC_AI_TOOL_ARGUMENTS))
        return _str(attrs[GEN_AI_TOOL_NAME]), args, attrs[PYDANTIC_AI_TOOL_RESPONSE], PYDANTIC_AI_TOOL_RESPONSE
    if vercel.TOOL_CALL_RESULT in attrs:
        name, arguments, result, _ = vercel.tool_call(attrs)
        return name, _text(arguments), result, vercel.TOOL_CALL_RESULT
    if haystack.TOOL_OUTPUT in attrs:  # Haystack's own tracing: an Agent's tool run
        name, arguments, result, _ = haystack.tool_call(attrs)
        return name, _text(arguments), result, haystack.TOOL_OUTPUT
    kind = str(attrs.get(OI_SPAN_KIND, "")).upper()
    if kind == "TOOL" and OUTPUT_VALUE in attrs:
        # input.value holds the call's arguments; tool.parameters is the tool's JSON Schema (OpenInference).
        args = bound_arguments(attrs.get(INPUT_VALUE, attrs.get(OI_TOOL_PARAMETERS)))
        return dspy.tool_name(span.name, attrs.get(OI_TOOL_NAME)), _text(args), attrs[OUTPUT_VALUE], OUTPUT_VALUE
    step = tool_step(span)  # OpenLLMetry's LlamaIndex call_tool step
    if step is not None:
        name, args, result, _ = step
        return name, _text(args), result, TRACELOOP_ENTITY_OUTPUT
    if str(attrs.get(TRACELOOP_SPAN_KIND, "")).lower() == "tool" and TRACELOOP_ENTITY_OUTPUT in attrs:
        return (
            _str(attrs.get(TRACELOOP_ENTITY_NAME)),
            _text(attrs.get(TRACELOOP_ENTITY_INPUT)),
            attrs[TRACELOOP_ENTITY_OUTPUT],
            TRACELOOP_ENTITY_OUTPUT,
        )
    return None


def input_passages(span: SpanRecord) -> tuple[list[Passage], str | None]:
    """Tool results and user messages in the span's own input, and the latest user message (the query)."""
    attrs = span.attributes
    messages: list[tuple[str, str, str | None, str]] = []  # (role, text, tool name, key)
    if GEN_AI_INPUT_MESSAGES in attrs:
        messages = _genai_messages(attrs[GEN_AI_INPUT_MESSAGES])
    elif (chat := haystack.repr_conversation(attrs.get(INPUT_VALUE))) is not None:
        # OpenInference's Haystack LLM spans: the tool results are only in input.value (extract_haystack.py)
        messages = _genai_messages(chat, INPUT_VALUE)
    elif any(k.startswith(OI_INPUT_MESSAGES_PREFIX) for k in attrs):
        messages = _indexed_messages(attrs, _OI_MESSAGE, "llm.input_messages")
    elif any(k.startswith(GEN_AI_PROMPT_PREFIX) for k in attrs):
        messages = _indexed_messages(attrs, _PROMPT, "gen_ai.prompt")
    elif vercel.PROMPT_MESSAGES in attrs:
        messages = _genai_messages(vercel.input_messages(attrs[vercel.PROMPT_MESSAGES]), vercel.PROMPT_MESSAGES)
    elif (raw := litellm.raw_input(attrs)) is not None:  # LiteLLM's raw request span (extract_litellm.py)
        messages = _genai_messages(raw, "llm.raw.messages")
    elif (chat := haystack.input_messages(attrs)) is not None:  # Haystack's own tracing: a model call's input
        key = haystack.STEP_LLM_INPUT if haystack.STEP_LLM_INPUT in attrs else haystack.COMPONENT_INPUT
        messages = _genai_messages(chat, key)
    out: list[Passage] = []
    query = None
    for role, text, name, key in messages:
        if not text.strip() or text == OI_REDACTED:
            continue
        if role == "tool":
            out.append(Passage(text, "tool_message", span.span_id, key, name, looks_truncated(text), span.end_ns))
        elif role == "user":
            text = dspy.user_text(text) if dspy.MARKER in text else text  # not ReAct's trajectory (extract_dspy.py)
            out.append(Passage(text, "user_message", span.span_id, key, None, False, span.end_ns))
            query = text
        elif role in ("system", "developer"):  # instructions and policies the agent was given
            out.append(Passage(text, "system_message", span.span_id, key, None, False, span.end_ns))
    return out, query


def _genai_messages(value: Any, attribute: str = GEN_AI_INPUT_MESSAGES) -> list[tuple[str, str, str | None, str]]:
    decoded = _decode(value)
    if isinstance(decoded, Mapping):
        decoded = [decoded]
    if not isinstance(decoded, (list, tuple)):
        return []
    out = []
    names: dict[Any, str] = {}  # tool call id -> tool name: a response may name only the call it answers
    for i, message in enumerate(decoded):
        if not isinstance(message, Mapping):
            continue
        role = str(message.get("role", ""))
        key = f"{attribute}[{i}]"
        parts = message.get("parts")
        if isinstance(parts, (list, tuple)):
            beside = None  # LiteLLM: the call ids and names beside the parts, in OpenAI's shape
            if not litellm.has_tool_parts(parts):
                names.update((i, n) for n, _, i in litellm.openai_tool_calls(message) if i is not None)
                beside = names.get(message.get("tool_call_id")) if role == "tool" else None
            for part in parts:
                if not isinstance(part, Mapping):
                    continue
                kind = part.get("type")
                if kind == "text" and isinstance(part.get("content"), str):
                    out.append((role, part["content"], beside, key))
                elif kind == "tool_call" and part.get("id") is not None and part.get("name"):
                    names[part["id"]] = str(part["name"])
                elif kind == "tool_call_response":
                    response = block_text(part.get("response", part.get("result")))
                    name = part.get("name") or names.get(part.get("id"))
                    out.append(("tool", _text(response) or "", _str(name), key))
            continue
        for call in message.get("tool_calls") or ():
            fn = call.get("function") if isinstance(call, Mapping) else None
            if isinstance(fn, Mapping) and fn.get("name") and call.get("id") is not None:
                names[call["id"]] = str(fn["name"])
        content = message.get("content")
        if isinstance(content, (list, tuple)):
            content = "\n".join(
                c.get("text", "") for c in content if isinstance(c, Mapping) and isinstance(c.get("text"), str)
            )
        if isinstance(content, str):
            name = message.get("name") or names.get(message.get("tool_call_id"))
            out.append((role, content, _str(name), key))
    return out


def _indexed_messages(
    attrs: Mapping[str, Any], pattern: re.Pattern, prefix: str
) -> list[tuple[str, str, str | None, str]]:
    roles: dict[int, str] = {}
    names: dict[int, str] = {}
    texts: dict[int, list[tuple[int, str]]] = {}
    answers: dict[int, str] = {}  # message index -> the tool call id it answers
    calls: dict[tuple[int, int], dict[str, str]] = {}  # (message, call) -> {"id", "function.name"}
    for key, value in attrs.items():
        m = pattern.match(key)
        if not m:
            continue
        index = int(m.group(1))
        field = m.group(2)
        if field == "role":
            roles[index] = str(value)
        elif field == "name":
            names[index] = str(value)
        elif field == "tool_call_id":
            answers[index] = str(value)
        elif m.lastindex is not None and m.lastindex >= 5 and m.group(5):
            calls.setdefault((index, int(m.group(4))), {})[m.group(5)] = str(value)
        else:
            sub = -1 if field == "content" or m.lastindex is None or m.lastindex < 3 else int(m.group(3))
            texts.setdefault(index, []).append((sub, str(value)))
    if answers:  # a tool message names only the call it answers: name it after that call's tool
        by_id = {c["id"]: c["function.name"] for c in calls.values() if "id" in c and "function.name" in c}
        for index, call_id in answers.items():
            if index not in names and call_id in by_id:
                names[index] = by_id[call_id]
    _name_by_position(roles, names, answers, calls)
    return [
        (roles.get(i, ""), "\n".join(t for _, t in sorted(texts[i])), names.get(i), f"{prefix}.{i}")
        for i in sorted(texts)
    ]


def _name_by_position(roles: dict[int, str], names: dict[int, str], answers: dict[int, str],
                      calls: dict[tuple[int, int], dict[str, str]]) -> None:  # fmt: skip
    """Name the tool messages that say neither their tool nor the call they answer (OpenInference's LiteLLM
    instrumentation drops `tool_call_id`) by order: the k-th tool message after an assistant turn answers
    its k-th call, as chat APIs require."""
    pending: list[str | None] = []
    for index in sorted(roles):
        if roles[index] == "assistant":
            pending = [calls[k].get("function.name") for k in sorted(k for k in calls if k[0] == index)]
        elif roles[index] != "tool":
            pending = []
        elif pending:
            name = pending.pop(0)
            if index not in names and index not in answers and name:
                names[index] = name


def _passage(value: Any, source: str, span: SpanRecord, key: str, tool: str | None = None,
             arguments: str | None = None) -> Passage:  # fmt: skip
    text = _text(value) or ""
    if text == OI_REDACTED:
        text = ""
    return Passage(text, source, span.span_id, key, tool, looks_truncated(text), span.end_ns, arguments)


def _decode(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return None
    return value


def _text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(value)


def block_text(value: Any) -> Any:
    """A tool result given as Anthropic content blocks (`[{"type": "text", "text": ...}]`, as the anthropic SDK
    records a `tool_result`'s content) as the text of its text blocks; any other value as it is."""
    blocks = _decode(value) if isinstance(value, str) and value.startswith("[") else value
    if not isinstance(blocks, (list, tuple)) or not blocks:
        return value
    if not all(isinstance(b, Mapping) and b.get("type") == "text" and isinstance(b.get("text"), str) for b in blocks):
        return value
    return "\n".join(b["text"] for b in blocks)


def _str(value: Any) -> str | None:
    return None if value is None else str(value)


def passages_from_messages(messages: Sequence[Mapping[str, Any]]) -> tuple[list[Passage], str | None]:
    """Evidence from a plain chat transcript (OpenAI shape): tool and user messages, and the last user turn;
    then the agent's own actions (tool-call arguments, code blocks) in the assistant messages."""
    out: list[Passage] = []
    actions: list[Passage] = []
    query = None
    for i, m in enumerate(messages):
        role, text = m.get("role"), m.get("content")
        if role == "assistant":
            actions.extend(actions_from_message(m, str(i)))
            continue
        if not isinstance(text, str) or not text.strip():
            continue
        if role == "tool":
            out.append(Passage(text, "tool_message", None, str(i), _str(m.get("name")), looks_truncated(text)))
        elif role == "user":
            out.append(Passage(text, "user_message", None, str(i)))
            query = text
        elif role in ("system", "developer"):
            out.append(Passage(text, "system_message", None, str(i)))
    return out + actions, query
