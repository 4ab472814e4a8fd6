"""Replay a recorded agent conversation as verify inputs: each assistant reply with the actions before it.

Two shapes are read: tool calls as OpenAI-style `tool_calls` answered by
`tool` messages (booking agents, function-calling agents), and shell agents
that put one fenced ```bash block in each reply and get the command's output
back as the next message (mini-swe-agent: `<returncode>N</returncode>` then
`<output>`). The reply's command runs after the reply is written, so a reply
is checked against the actions of earlier replies only.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .actions import Action

# Fences are whole lines: an opening line with its language, a closing line of backticks alone.
_BLOCK = re.compile(r"^```[ \t]*(\w*)[ \t]*\n(.*?)\n```[ \t]*$", re.S | re.M)
_SHELL_LANGUAGES = frozenset({"bash", "sh", "shell", "console", ""})
_OPEN_BLOCK = re.compile(r"^```(?:bash|sh|shell|console)[ \t]*\n((?:(?!^```).)*)\Z", re.S | re.M)
_CUT = re.compile(r"\.\.\. \[\d+ more characters\]\s*\Z")  # the data set's mark for a cut message


@dataclass(frozen=True, slots=True)
class Turn:
    """One assistant reply (`message_index` in the conversation) and every action before it."""

    message_index: int
    text: str
    actions: tuple[Action, ...]


def replay(messages: Sequence[Mapping[str, Any]]) -> Iterator[Turn]:
    """Each assistant reply with the actions recorded before it, oldest first."""
    actions: list[Action] = []
    pending: list[list[Any]] = []  # [tool, arguments, call id] awaiting a result
    for i, message in enumerate(messages):
        role = message.get("role")
        content = message.get("content") if isinstance(message.get("content"), str) else ""
        if role == "assistant":
            yield Turn(i, content, tuple(actions))
            pending = _calls_of(message, content)
        elif role in ("tool", "user") and pending:
            call = _take(pending, message.get("tool_call_id"), role)
            if call is not None:
                actions.append(Action(len(actions), call[0], call[1], content, None, truncated=call[3]))


def _calls_of(message: Mapping[str, Any], content: str) -> list[list[Any]]:
    calls = []
    for call in message.get("tool_calls") or ():
        if isinstance(call, Mapping) and call.get("name"):
            calls.append([str(call["name"]), call.get("arguments"), call.get("id"), False])
    if not calls:
        blocks = [body for language, body in _BLOCK.findall(content) if language.lower() in _SHELL_LANGUAGES]
        if blocks:
            calls.append(["bash", {"command": blocks[-1]}, None, False])
        elif (cut := _OPEN_BLOCK.search(content)) is not None:  # a reply cut mid-command: keep what is readable
            calls.append(["bash", {"command": _CUT.sub("", cut.group(1))}, None, True])
        elif _CUT.search(content):  # cut before its command: an action happened, what it did is unknown
            calls.append(["bash", {"command": ""}, None, True])
    return calls


def _take(pending: list[list[Any]], call_id: Any, role: str) -> list[Any] | None:
    if call_id is not None:
        for k, call in enumerate(pending):
            if call[2] == call_id:
                return pending.pop(k)
    if role == "tool" or (pending and pending[0][0] == "bash"):
        return pending.pop(0)
    return None

