"""DSPy's structured model output: the fields between `[[ ## name ## ]]` markers, and its tool spans.

DSPy (stanfordnlp) asks the model, through its ChatAdapter, for each output field of a signature after a
marker line, and to end with `[[ ## completed ## ]]`:

    [[ ## next_thought ## ]]
    I should look the reservation up.

    [[ ## next_tool_name ## ]]
    get_reservation

    [[ ## next_tool_args ## ]]
    {"code": "K7QX2"}

    [[ ## completed ## ]]

Every instrumentation of the model call (OpenInference's DSPy `LM.__call__` LLM span, LiteLLM's) writes
that raw text. Read as prose, the markers were text and a `dspy.ReAct` step's tool arguments (a command, a
code) were judged as the agent's claims. What the model said is its text fields (`answer`, `reasoning`,
`next_thought`, ...); ReAct's `next_tool_name` / `next_tool_args` are a tool call, recorded as one (its
`finish` call ends the loop; the answer then comes from a last call, with `reasoning` and `answer`).
The module spans above (`Predict.forward`, `ReAct.forward`: OpenInference CHAIN spans whose `output.value`
is the Prediction's fields as JSON) repeat them and are not read.

OpenInference's DSPy TOOL spans carry no `tool.name`: the span is named `<tool>.__call__` (or `.acall`).
"""

from __future__ import annotations

import json
import re
from typing import Any

MARKER = "[[ ## "
_FIELD = re.compile(r"^\[\[ ## (\w+) ## \]\][ \t]*$", re.M)
_DONE = "completed"
# ReAct's fields naming the tool it calls and its arguments: a call, not text.
TOOL_NAME_FIELD = "next_tool_name"
TOOL_ARGS_FIELD = "next_tool_args"
_TOOL_METHODS = (".__call__", ".acall")


def fields(text: str) -> list[tuple[str, str]] | None:
    """The (field, value) pairs of a marked output, in order; None when the text has no field marker."""
    if MARKER not in text:
        return None
    marks = list(_FIELD.finditer(text))
    if not marks:
        return None
    out = []
    for i, mark in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        name = mark.group(1)
        if name != _DONE:
            out.append((name, text[mark.end() : end].strip()))
    return out


def structured(text: str) -> tuple[list[str], list[tuple[str, str]]] | None:
    """(the text fields' values, the tool calls as (name, JSON arguments)) of a marked output, or None."""
    found = fields(text)
    if found is None:
        return None
    values = dict(found)
    texts = [v for k, v in found if k not in (TOOL_NAME_FIELD, TOOL_ARGS_FIELD) and v]
    calls = []
    name = values.get(TOOL_NAME_FIELD)
    if name:
        calls.append((name, _arguments(values.get(TOOL_ARGS_FIELD))))
    return texts, calls


# The input field in which dspy.ReAct hands the model its own steps so far (thoughts, calls, observations).
TRAJECTORY_FIELD = "trajectory"
# The trajectory's own marked entries (thought_0, tool_name_0, tool_args_0, observation_0, ...).
_STEP_FIELD = re.compile(r"^(?:thought|tool_name|tool_args|observation)_\d+$")


def user_text(text: str) -> str:
    """What the user asked in a DSPy prompt: its input fields without ReAct's trajectory, which repeats the
    agent's steps and the tool results (evidence where the tools ran, not the user's words); the text itself
    when it has no field marker."""
    found = fields(text)
    if found is None:
        return text
    return "\n\n".join(v for k, v in found if k != TRAJECTORY_FIELD and not _STEP_FIELD.match(k) and v)


def _arguments(value: str | None) -> str:
    """The call's arguments as JSON (the model may write a Python dict; kept as written then)."""
    if not value:
        return "{}"
    try:
        return json.dumps(json.loads(value), ensure_ascii=False)
    except ValueError:
        return value


def tool_name(span_name: str, attrs_name: Any = None) -> str:
    """A TOOL span's tool: `tool.name` when written, else the span's name without DSPy's call method."""
    if attrs_name:
        return str(attrs_name)
    for method in _TOOL_METHODS:
        if span_name.endswith(method) and len(span_name) > len(method):
            return span_name[: -len(method)]
    return span_name
