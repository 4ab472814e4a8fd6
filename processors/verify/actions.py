"""Actions: the tool calls of a trace, in the order they happened, and what each did.

An `Action` is one tool call with its arguments, result and status, read from
- `execute_tool` spans (GenAI `gen_ai.tool.name`, `gen_ai.tool.call.arguments`,
  `gen_ai.tool.call.result`, error status; pydantic-ai's older `tool_arguments` /
  `tool_response`; the anthropic SDK's `anthropic.tool_result.content`, and its
  argument-less spans given the arguments the LLM asked for, by call id), OpenInference TOOL spans
  (`tool.name`, `input.value`/`tool.parameters`, `output.value`) and
  OpenLLMetry tool spans (`traceloop.span.kind == "tool"`,
  `traceloop.entity.input`/`output`) and the Vercel AI SDK's `ai.toolCall`
  spans (`ai.toolCall.name`, `.args`, `.result`, `.id`), among the spans that
  ended before the output span;
- the conversation in the output span's own `gen_ai.input.messages`
  (assistant tool calls answered by tool results), where many agents keep
  their whole history;
- or a JSON line of `claimwatch verify --jsonl`.

`effects_of` says what an action did (files, tests, installs, ...), from the
tool's name and arguments: shell tools through `commands`, file tools by the
argument names common frameworks use.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from ..otel import extract_adk as adk
from ..otel import extract_dspy as dspy
from ..otel import extract_haystack as haystack
from ..otel import extract_litellm as litellm
from ..otel import extract_vercel as vercel
from ..otel.extract import extract, may_carry_output
from ..otel.extract_events import tool_events
from ..otel.extract_langchain import bound_arguments, tool_call_input, tool_message_content
from ..otel.extract_llamaindex import tool_output_text, tool_step
from ..otel.records import SpanRecord, last_span_answer
from ..policy.tools import plugin_function
from . import commands as C
from .outcomes import Outcome, outcome_of

GEN_AI_TOOL_NAME = "gen_ai.tool.name"
GEN_AI_TOOL_CALL_ID = "gen_ai.tool.call.id"
GEN_AI_TOOL_ARGUMENTS = "gen_ai.tool.call.arguments"
GEN_AI_TOOL_RESULT = "gen_ai.tool.call.result"
GEN_AI_INPUT_MESSAGES = "gen_ai.input.messages"
GEN_AI_OPERATION_NAME = "gen_ai.operation.name"
OI_SPAN_KIND = "openinference.span.kind"
OI_TOOL_NAME = "tool.name"
OI_TOOL_PARAMETERS = "tool.parameters"
OI_INPUT_MESSAGES_PREFIX = "llm.input_messages."
INPUT_VALUE = "input.value"
OUTPUT_VALUE = "output.value"
TRACELOOP_SPAN_KIND = "traceloop.span.kind"
TRACELOOP_ENTITY_NAME = "traceloop.entity.name"
TRACELOOP_ENTITY_INPUT = "traceloop.entity.input"
TRACELOOP_ENTITY_OUTPUT = "traceloop.entity.output"
# pydantic-ai's older attribute format (InstrumentationSettings(version=2), its default before 1.0):
# `running tool` spans with gen_ai.tool.name and these in place of gen_ai.tool.call.arguments / .result.
PYDANTIC_AI_TOOL_ARGUMENTS = "tool_arguments"
PYDANTIC_AI_TOOL_RESPONSE = "tool_response"
# The anthropic SDK's own tool spans (its tool runner) write the result's content blocks here, not in
# gen_ai.tool.call.result (and, unless content is recorded, no arguments: see `requested_arguments`).
ANTHROPIC_TOOL_RESULT = "anthropic.tool_result.content"
STATUS_CODE = "otel.status_code"  # the collector and the SDK adapter copy the span status here
ERROR_TYPE = "error.type"


@dataclass(frozen=True, slots=True)
class Action:
    """One tool call. `index` is its place in the action list; `span_id` the span it came from, if any."""

    index: int
    tool: str
    arguments: Any
    result: Any
    status: str | None = None  # "ok" | "error" | None when not recorded
    span_id: str | None = None
    call_id: str | None = None
    truncated: bool = False  # its arguments were cut (attribute length limit): what it did is not fully known

    @property
    def effects(self) -> tuple[C.Effect, ...]:
        return effects_of(self.tool, _arguments_key(self.arguments))

    @property
    def outcome(self) -> Outcome:
        return outcome_of(_result_text(self.result), self.status)


# --- what a tool does, by name and arguments ----------------------------------------------------
_SHELL_TOOLS = frozenset(
    {"bash", "shell", "sh", "zsh", "terminal", "exec", "execute", "command", "runcommand", "runshellcommand",
     "executecommand", "executebash", "runterminalcmd", "runcmd", "cmd", "localshell", "computer", "runbash",
     "shellexec", "subprocess", "executeshell", "runinterminal", "console", "python"}
)
_WRITE_TOOLS = frozenset({"write", "writefile", "createfile", "filewrite", "savefile", "fswrite", "writetofile",
                          "newfile", "create", "put", "writefilecontent"})
_EDIT_TOOLS = frozenset({"edit", "editfile", "strreplace", "replace", "replaceinfile", "searchreplace", "multiedit",
                         "applydiff", "applyedit", "insert", "inserttext", "fileedit", "modifyfile", "updatefile",
                         "patchfile", "edittool", "strreplaceeditor", "strreplacebasededittool", "texteditor",
                         "appendtofile", "appendfile"})
_PATCH_TOOLS = frozenset({"applypatch", "patch", "gitapply"})
_DELETE_TOOLS = frozenset({"delete", "deletefile", "removefile", "rm", "unlink", "fsdelete", "remove", "deletepath"})
_TEST_TOOLS = frozenset({"runtests", "test", "runtest", "pytest", "runpytest", "testrunner", "runtestsuite"})
_INSTALL_TOOLS = frozenset({"install", "installpackage", "pipinstall", "npminstall", "installdependencies", "addpackage"})
_PATH_KEYS = ("path", "file_path", "filepath", "filePath", "file", "filename", "target_file", "targetFile", "target",
              "absolute_path", "relative_path", "uri")
_CONTENT_KEYS = ("content", "contents", "file_text", "text", "data", "code", "body")
_NEW_TEXT_KEYS = ("new_str", "new_string", "newString", "new_text", "newText", "replacement", "insert_text",
                  "new_content", "replace")
_COMMAND_KEYS = ("command", "cmd", "script", "commands", "input", "code", "shell_command", "args")
_PATCH_PATHS = re.compile(r"^(?:\*\*\* (?:Update|Add|Delete) File: |\+\+\+ b/|\+\+\+ )(\S+)", re.M)


_KNOWN_TOOLS = (_SHELL_TOOLS | _WRITE_TOOLS | _EDIT_TOOLS | _PATCH_TOOLS | _DELETE_TOOLS | _TEST_TOOLS
                | _INSTALL_TOOLS)  # fmt: skip


def _norm_tool(name: str) -> str:
    """`mcp__fs__write_file` -> `writefile`; `functions.Bash` -> `bash`; Semantic Kernel's `HostTools-bash`
    -> `bash` (its `<plugin>-<function>`, read so only when the whole name is no tool known here: a
    kebab-case `write-file` stays `writefile`)."""
    last = re.split(r"__|[.:/]", name)[-1] if name else ""
    key = re.sub(r"[^a-z0-9]", "", last.lower())
    function = plugin_function(last) if key not in _KNOWN_TOOLS else None
    inner = re.sub(r"[^a-z0-9]", "", function.lower()) if function else ""
    return inner if inner in _KNOWN_TOOLS else key


def _arguments_key(arguments: Any) -> str:
    """Arguments as one string (hashable, so what a call did is worked out once per distinct call)."""
    if isinstance(arguments, str):
        return arguments
    try:
        return json.dumps(arguments, sort_keys=True, default=str)
    except (TypeError, ValueError):
        return str(arguments)


@lru_cache(maxsize=8192)
def effects_of(tool: str, arguments: str) -> tuple[C.Effect, ...]:
    """What one call of `tool` with these arguments (a JSON string, or a bare command) did."""
    name = _norm_tool(tool)
    args = _decode(arguments)
    if name in _SHELL_TOOLS or (not isinstance(args, Mapping) and name not in _PATCH_TOOLS):
        command = _first(args, _COMMAND_KEYS) if isinstance(args, Mapping) else args
        if isinstance(command, list):
            command = " ".join(map(str, command))
        if name == "python" and isinstance(command, str):
            return tuple(C.script_effects(command))
        return C.effects_of_command(command) if isinstance(command, str) else ()
    if name in _PATCH_TOOLS:
        text = _first(args, ("patch", "diff", "input", "content")) if isinstance(args, Mapping) else args
        return tuple(C.Effect(C.EDIT, p) for p in _PATCH_PATHS.findall(text)) if isinstance(text, str) else ()
    return _tool_effects(name, args)


def _tool_effects(name: str, args: Mapping[str, Any]) -> tuple[C.Effect, ...]:
    path = _first(args, _PATH_KEYS)
    path = path if isinstance(path, str) else None
    sub = str(args.get("command", "")).lower()  # str_replace_editor style: command=create|str_replace|insert|view
    if sub == "view" or name in ("read", "readfile", "view", "cat", "ls", "glob", "grep", "search"):
        return ()
    if name in _DELETE_TOOLS:
        return (C.Effect(C.DELETE, path),) if path else ()
    if name in _WRITE_TOOLS or sub == "create":
        content = _first(args, _CONTENT_KEYS)
        return (C.Effect(C.WRITE, path, content if isinstance(content, str) else None),) if path else ()
    if name in _EDIT_TOOLS or sub in ("str_replace", "insert", "undo_edit"):
        edits = args.get("edits")
        new = _first(args, _NEW_TEXT_KEYS)
        if new is None and isinstance(edits, list):
            new = "\n".join(str(_first(e, _NEW_TEXT_KEYS) or "") for e in edits if isinstance(e, Mapping))
        return (C.Effect(C.EDIT, path, new if isinstance(new, str) else None),) if path else ()
    if name in _TEST_TOOLS:
        return (C.Effect(C.TEST, _compact(args)),)
    if name in _INSTALL_TOOLS:
        packages = _first(args, ("package", "packages", "name", "names"))
        packages = packages if isinstance(packages, list) else [packages]
        return tuple(C.Effect(C.INSTALL, str(p)) for p in packages if p) or (C.Effect(C.INSTALL, None),)
    if name in ("gitcommit", "commit"):
        return (C.Effect(C.COMMIT, None),)
    if name in ("gitpush", "push"):
        return (C.Effect(C.PUSH, None),)
    if "migrat" in name:
        return (C.Effect(C.MIGRATE, name),)
    return ()


def _first(mapping: Mapping[str, Any], keys: Sequence[str]) -> Any:
    for key in keys:
        if key in mapping and mapping[key] is not None:
            return mapping[key]
    return None


def _compact(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)[:200]


def _decode(value: Any) -> Any:
    if isinstance(value, str) and value[:1] in ("{", "["):
        try:
            return _bound_parameters(json.loads(value))
        except ValueError:
            return value
    return _bound_parameters(value)


# opentelemetry-instrumentation-google-genai before 1.2 (with util-genai 1.1) writes a tool's arguments as
# its code attributes, `{"code.function.parameters.command.value": "pip install requests",
# "code.function.parameters.command.type": "str"}`: read as named, the command was never seen.
_PARAMETER = re.compile(r"code\.function\.parameters\.(.+)\.value")


def _bound_parameters(value: Any) -> Any:
    """Those code attributes as the arguments they name; any other value unchanged."""
    if not isinstance(value, Mapping) or not value:
        return value
    named = {m.group(1): v for k, v in value.items() if (m := _PARAMETER.fullmatch(str(k)))}
    if not named or any(not str(k).startswith("code.function.parameters.") for k in value):
        return value
    return named


def _result_text(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    try:
        return json.dumps(value, default=str)
    except (TypeError, ValueError):
        return str(value)


# --- actions from a trace -----------------------------------------------------------------------
@last_span_answer  # the actions and tool-policy checks both ask it of each span they run on
def tool_call_of_span(span: SpanRecord) -> tuple[str, Any, Any, str | None, str | None] | None:
    """(tool, arguments, result, status, call id) when the span is a tool execution, else None."""
    return _tool_call_of_span(span)


def _tool_call_of_span(span: SpanRecord) -> tuple[str, Any, Any, str | None, str | None] | None:
    attrs = span.attributes
    # The status is read only for a tool span: this runs on every LLM span too.
    if GEN_AI_TOOL_NAME in attrs and (
        attrs.get(GEN_AI_OPERATION_NAME) == "execute_tool" or span.name.startswith("execute_tool")
        or GEN_AI_TOOL_RESULT in attrs or GEN_AI_TOOL_ARGUMENTS in attrs or PYDANTIC_AI_TOOL_ARGUMENTS in attrs
    ):
        args = attrs.get(GEN_AI_TOOL_ARGUMENTS)
        result = attrs.get(GEN_AI_TOOL_RESULT)
        if args is None and result is None and span.events:  # Strands: both are events
            args, result = tool_events(span)
        if result is None:
            result = attrs.get(PYDANTIC_AI_TOOL_RESPONSE, attrs.get(ANTHROPIC_TOOL_RESULT))
        if args is None and result is None and adk.is_adk(attrs):  # ADK's legacy schema, or OpenInference on it
            args, result = adk.tool_io(attrs)
        return (str(attrs[GEN_AI_TOOL_NAME]), tool_call_input(attrs.get(PYDANTIC_AI_TOOL_ARGUMENTS) if args is None else args),
                tool_message_content(result), _status(attrs, span), _str_or_none(attrs.get(GEN_AI_TOOL_CALL_ID)))
    if vercel.TOOL_CALL_NAME in attrs:
        name, args, result, call_id = vercel.tool_call(attrs)
        return name, args, result, _status(attrs, span), call_id
    if haystack.TOOL_NAME in attrs:  # Haystack's own tracing: an Agent's tool run (extract_haystack.py)
        name, args, result, failed = haystack.tool_call(attrs)
        return name, tool_call_input(args), tool_message_content(result), "error" if failed else _status(attrs, span), None
    if str(attrs.get(OI_SPAN_KIND, "")).upper() == "TOOL":
        name = dspy.tool_name(span.name, attrs.get(OI_TOOL_NAME))  # DSPy's: `<tool>.__call__`, no tool.name
        # smolagents and LlamaIndex bind the arguments as {"args": [...], "kwargs": {...}}; LlamaIndex's
        # FunctionTool returns a ToolOutput.
        args = bound_arguments(attrs.get(INPUT_VALUE, attrs.get(OI_TOOL_PARAMETERS)))
        result = tool_output_text(tool_message_content(attrs.get(OUTPUT_VALUE)))
        return str(name), args, result, _status(attrs, span), None
    step = tool_step(span)  # OpenLLMetry's LlamaIndex call_tool step: the one span naming the tool
    if step is not None:
        name, args, result, call_id = step
        return name, args, result, _status(attrs, span), call_id
    if str(attrs.get(TRACELOOP_SPAN_KIND, "")).lower() == "tool":
        name = attrs.get(TRACELOOP_ENTITY_NAME) or span.name
        args = bound_arguments(tool_call_input(attrs.get(TRACELOOP_ENTITY_INPUT)))
        return str(name), args, tool_message_content(attrs.get(TRACELOOP_ENTITY_OUTPUT)), _status(attrs, span), None
    return None


def _status(attrs: Mapping[str, Any], span: SpanRecord | None = None) -> str | None:
    # A span status carried on the record (when the adapter keeps it), else the attribute form
    # exporters use for it (`otel.status_code`), else GenAI's `error.type` on a failed call.
    code = getattr(span, "status_code", None) if span is not None else None
    if code is None:
        code = attrs.get(STATUS_CODE)
    if isinstance(code, int) and not isinstance(code, bool):  # OTLP's enum: 0 unset, 1 ok, 2 error
        return {0: "unset", 1: "ok", 2: "error"}.get(code)
    if code is not None:
        return str(getattr(code, "name", code)).rsplit(".", 1)[-1].lower()  # "ERROR", StatusCode.ERROR
    return "error" if attrs.get(ERROR_TYPE) else None


def _str_or_none(value: Any) -> str | None:
    return None if value is None else str(value)


_OI_INPUT = re.compile(
    r"^llm\.input_messages\.(\d+)\.message\.(?:(role|content|tool_call_id|name)"
    r"|tool_calls\.(\d+)\.tool_call\.(id|function\.name|function\.arguments))$"
)
_last_conversation: tuple[object, Any] = (None, None)


def input_conversation(span: SpanRecord) -> Any:
    """The span's input conversation: GenAI `gen_ai.input.messages` as written, else OpenInference's
    indexed `llm.input_messages.{i}.message.*` (role, content, tool calls, tool_call_id) rebuilt as
    OpenAI-shaped messages, or the Vercel AI SDK's `ai.prompt.messages` as GenAI messages; None when it
    carries none."""
    global _last_conversation
    attrs = span.attributes
    value = attrs.get(GEN_AI_INPUT_MESSAGES)
    if value is None and vercel.PROMPT_MESSAGES in attrs:
        return vercel.input_messages(attrs[vercel.PROMPT_MESSAGES])
    if value is None and (haystack.STEP_LLM_INPUT in attrs or haystack.COMPONENT_INPUT in attrs):
        return haystack.input_messages(attrs)  # Haystack's own tracing (extract_haystack.py), else None
    if value is None and str(attrs.get(OI_SPAN_KIND, "")).upper() != "LLM":
        return litellm.raw_input(attrs)  # LiteLLM's raw request span (extract_litellm.py), else None
    if value is not None or str(attrs.get(OI_SPAN_KIND, "")).upper() != "LLM":
        return value
    last, found = _last_conversation  # asked twice per output span: for the timeline and for its actions
    if last is span:
        return found
    # OpenInference's Haystack spans leave tool calls and results out of the indexed messages: they are
    # only in input.value's ChatMessage reprs (extract_haystack.py).
    found = haystack.repr_conversation(attrs.get(INPUT_VALUE)) or _openinference_conversation(attrs)
    _last_conversation = (span, found)
    return found


def _openinference_conversation(attrs: Mapping[str, Any]) -> list[dict[str, Any]] | None:
    messages: dict[int, dict[str, Any]] = {}
    for key, value in attrs.items():
        if not key.startswith(OI_INPUT_MESSAGES_PREFIX):
            continue
        m = _OI_INPUT.match(key)
        if m is None:
            continue
        message = messages.setdefault(int(m.group(1)), {})
        if m.group(2):
            message[m.group(2)] = value
            continue
        call = message.setdefault("_calls", {}).setdefault(int(m.group(3)), {"function": {}})
        field = m.group(4)
        if field == "id":
            call["id"] = value
        else:
            call["function"][field.rsplit(".", 1)[-1]] = value
    if not messages:
        return None
    out = []
    for index in sorted(messages):
        message = messages[index]
        calls = message.pop("_calls", None)
        if calls:
            message["tool_calls"] = [calls[j] for j in sorted(calls)]
        out.append(message)
    return out


def _call_key(tool: str, arguments: Any) -> tuple[str, str]:
    """A call by tool name and arguments, the same whether they were written as a JSON string or an object."""
    decoded = _decode(arguments)
    return tool, _arguments_key(decoded if isinstance(decoded, (Mapping, list)) else arguments)


def actions_from_trace(spans_before: Iterable[SpanRecord], span: SpanRecord | None = None) -> list[Action]:
    """The actions before `span`: its own input conversation first, then tool spans it does not already hold.

    A tool call both recorded as a span and echoed in the conversation is kept
    once (matched by call id, else by tool name and arguments), in the
    conversation's place, citing the span (and taking its status and result
    where the conversation has none).
    """
    actions: list[Action] = []
    by_id: dict[str, int] = {}
    by_call: dict[tuple[str, str], list[int]] = {}
    spans_before = spans_before if isinstance(spans_before, Sequence) else list(spans_before)
    requested: dict[str, Any] | None = None  # read only when a tool span lacks its arguments
    if span is not None:
        for tool, args, result, status, call_id in messages_tool_calls(input_conversation(span)) or (
            _other_conversations_calls(spans_before)
        ):
            if call_id:
                by_id[call_id] = len(actions)
            by_call.setdefault(_call_key(tool, args), []).append(len(actions))
            actions.append(Action(len(actions), tool, args, result, status, None, call_id, cut(args)))
    for other in spans_before:
        call = tool_call_of_span(other)
        if call is None:
            continue
        tool, args, result, status, call_id = call
        if args is None and call_id:
            requested = requested_arguments(spans_before) if requested is None else requested
            args = requested.get(call_id)
        key = _call_key(tool, args)
        if (call_id and call_id in by_id) or key in by_call:
            _cite_span(actions, by_id.get(call_id) if call_id else None, by_call.get(key), other.span_id, status, result)
            continue
        actions.append(Action(len(actions), tool, args, result, status, other.span_id, call_id, cut(args)))
    return actions


def _other_conversations_calls(spans_before: Sequence[SpanRecord]) -> list[tuple]:
    """The tool calls, with their results, of the conversations of the earlier LLM spans, each once: asked for a
    conversation that holds none (it starts there), in a trace where another agent ran the tools (a crew's
    next agent, CrewAI). Without tool spans (OpenLLMetry's) they are only in that agent's LLM inputs, each
    later call of its conversation repeating the earlier ones."""
    calls: dict[Any, tuple] = {}
    for other in spans_before:
        conversation = input_conversation(other)
        if conversation is None:
            continue
        for call in messages_tool_calls(conversation):
            key = call[4] or _call_key(call[0], call[1])
            if key not in calls or (calls[key][2] is None and call[2] is not None):
                calls[key] = call
    return list(calls.values())


def requested_arguments(spans: Iterable[SpanRecord]) -> dict[str, Any]:
    """Call id -> the arguments an LLM asked for that call with, from the tool calls of the LLM spans'
    outputs as `extract` reads them (every output convention; the arguments as its JSON text). The
    anthropic SDK's tool runner traces each tool run as an `execute_tool` span with the call id and,
    unless content is recorded, no arguments; and on message threads it never sends the assistant's
    tool_use turn back, so no later input conversation holds them either."""
    out: dict[str, Any] = {}
    for span in spans:
        output = extract(span) if may_carry_output(span) else None
        if output is not None:
            out.update((call.id, call.arguments) for call in output.tool_calls if call.id)
    return out


def _cite_span(actions: list[Action], index: int | None, candidates: list[int] | None, span_id: str,
               status: str | None, result: Any) -> None:  # fmt: skip
    """Point the conversation's copy of a call at the span that ran it (the first copy not yet pointed)."""
    if index is None or actions[index].span_id is not None:
        index = next((i for i in candidates or () if actions[i].span_id is None), None)
    if index is None:
        return
    held = actions[index]
    actions[index] = replace(held, span_id=span_id, status=held.status or status,
                             result=held.result if held.result is not None else result)  # fmt: skip


def cut(arguments: Any) -> bool:
    """JSON arguments cut by an attribute length limit: they open a bracket and never close it."""
    if not isinstance(arguments, str) or arguments[:1] not in ("{", "["):
        return False
    return not arguments.rstrip().endswith(("}", "]"))


def messages_tool_calls(value: Any) -> list[tuple[str, Any, Any, str | None, str | None]]:
    """(tool, arguments, result, status, call id) for each tool call in a GenAI or OpenAI-shaped conversation."""
    messages = _decode(value)
    if isinstance(messages, Mapping):
        messages = [messages]
    if not isinstance(messages, (list, tuple)):
        return []
    calls: list[list[Any]] = []
    by_id: dict[str, list[Any]] = {}
    for message in messages:
        if not isinstance(message, Mapping):
            continue
        for kind, call_id, name, payload in _message_parts(message):
            if kind == "call":
                entry = [name, payload, None, None, call_id]
                calls.append(entry)
                if call_id:
                    by_id[call_id] = entry
            else:
                entry = by_id.get(call_id) if call_id else next((c for c in reversed(calls) if c[2] is None), None)
                if entry is not None:
                    entry[2] = payload
    return [tuple(c) for c in calls]  # type: ignore[misc]


def _message_parts(message: Mapping[str, Any]):
    """('call' | 'result', call id, tool name, arguments or result) for each tool part of one message."""
    parts = message.get("parts")
    if isinstance(parts, (list, tuple)):
        for part in parts:
            if not isinstance(part, Mapping):
                continue
            if part.get("type") == "tool_call" and part.get("name"):
                yield "call", _str_or_none(part.get("id")), str(part["name"]), part.get("arguments")
            elif part.get("type") == "tool_call_response":
                yield "result", _str_or_none(part.get("id")), None, part.get("response", part.get("result"))
        if litellm.has_tool_parts(parts):
            return
        # LiteLLM's messages: text in parts, the calls and the id a result answers beside them (OpenAI's shape).
        for name, arguments, call_id in litellm.openai_tool_calls(message):
            yield "call", _str_or_none(call_id), name, arguments
        if message.get("role") == "tool":
            yield "result", _str_or_none(message.get("tool_call_id")), message.get("name"), _parts_text(parts)
        return
    for call in message.get("tool_calls") or ():
        if isinstance(call, Mapping):
            function = call.get("function") if isinstance(call.get("function"), Mapping) else call
            if function.get("name"):
                yield "call", _str_or_none(call.get("id")), str(function["name"]), function.get("arguments")
    if message.get("role") == "tool":
        yield "result", _str_or_none(message.get("tool_call_id")), message.get("name"), message.get("content")


def _parts_text(parts: Sequence[Any]) -> str:
    return "\n".join(p["content"] for p in parts if isinstance(p, Mapping) and isinstance(p.get("content"), str))


def action_from_dict(index: int, item: Mapping[str, Any]) -> Action:
    """An action of a `verify --jsonl` line: {"tool", "arguments", "result", "status"}."""
    status = item.get("status")
    return Action(index, str(item.get("tool") or ""), item.get("arguments"), item.get("result"),
                  None if status is None else str(status).lower())


def latest_turn_results(value: Any) -> list[Action]:
    """Tool results answering the conversation's last round of tool calls (new since the previous LLM call).

    Older results in the history were checked when they were new, so level 2
    on an LLM span looks at these only.
    """
    messages = _decode(value)
    if not isinstance(messages, (list, tuple)):
        return []
    last = -1
    for i, message in enumerate(messages):
        if isinstance(message, Mapping) and any(kind == "call" for kind, *_ in _message_parts(message)):
            last = i
    if last < 0:
        return []
    calls = messages_tool_calls(list(messages[last:]))
    return [Action(i, tool, args, result, status, None, call_id)
            for i, (tool, args, result, status, call_id) in enumerate(calls) if result is not None]
