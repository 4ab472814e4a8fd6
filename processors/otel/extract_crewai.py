"""CrewAI's objects in span values: what a task or crew run says, and which agent a task span ran.

CrewAI repeats each agent's answer on the spans of its task and crew. Arize's
OpenInference puts the whole `TaskOutput` on a task's AGENT span as JSON in
`output.value` (`{"description", "expected_output", "raw", "agent", "messages":
[the system prompt, the task, the tool calls and results, ...]}`), and a crew's
`CrewOutput` (`{"raw", "tasks_output": [...], "token_usage"}`) on its CHAIN span;
`Agent.kickoff` gives a `LiteAgentOutput` (`{"raw", "agent_role", "messages"}`).
Read as "every string", a task's span was judged as a new output of its agent: the
prompt, the task's description and the tool results with it. What such a run says
is its `raw` text, the agent's final answer, which repeats the model's last words.

An agent allowed to delegate hands work to a coworker with CrewAI's `Delegate work to coworker`
(or `Ask question to coworker`) tool. OpenInference traces the coworker's run inside that TOOL span
(`input.value` `{"task", "context", "coworker": <role>}`), under the delegating agent's own span and
with no span of its own: the coworker's LLM calls were judged as the delegating agent's.

Traceloop's OpenLLMetry opens a task span (`traceloop.span.kind` task, the answer in
`traceloop.entity.output`) around the agent's span, not under it, and names the
agent there only in `crewai.task.agent`, the agent's role.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from . import attributes as A
from .records import SpanRecord

# OpenLLMetry's CrewAI task span: the role of the agent the task was given to.
TASK_AGENT = "crewai.task.agent"
# Fields that, beside `raw`, tell CrewAI's run outputs from other JSON: TaskOutput, CrewOutput, LiteAgentOutput.
_RUN_OUTPUT_FIELDS = ("expected_output", "tasks_output", "agent_role")


def run_output(value: Any) -> tuple[bool, str]:
    """(is this a CrewAI task, crew or agent run's output?, its final answer, `raw`)."""
    if not isinstance(value, Mapping) or not isinstance(value.get("raw"), str):
        return False, ""
    if not any(field in value for field in _RUN_OUTPUT_FIELDS):
        return False, ""
    return True, value["raw"]


# CrewAI's tools for handing work to another agent of the crew, named by its role in the "coworker" argument.
DELEGATION_TOOLS = frozenset({"Delegate work to coworker", "Ask question to coworker"})


def coworker(span: SpanRecord) -> str | None:
    """The agent a CrewAI delegation tool span hands work to: the spans below it are that agent's."""
    attrs = span.attributes
    if attrs.get(A.TOOL_NAME) not in DELEGATION_TOOLS:
        return None
    value = attrs.get(A.INPUT_VALUE)
    try:
        arguments = json.loads(value) if isinstance(value, str) else value
    except ValueError:
        return None
    role = arguments.get("coworker") if isinstance(arguments, Mapping) else None
    if not isinstance(role, str):
        return None
    return role.strip() or None
