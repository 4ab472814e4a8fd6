"""`POST /api/policy/decide`: a hook asks the running collector, which holds the session state.

The body is one call, as the hook saw it:

    {"tool": "exec", "arguments": {"command": "..."}, "agent": "worker-1",
     "session": "s-42", "trust": 30, "mode": "enforce", "cwd": "/work", "tool_call_id": "toolu_1"}

(only `tool` is required). The answer is the decision (`decision`, `step`,
`risk_tier`, `rule`, `param`, `reason`, `blocked_count`, `evaluation_us`, ...)
with status 200, or `{"error": ...}` with status 400 for a malformed body.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from .engine import Decision, PolicyEngine

_OPTIONAL_STRINGS = ("agent", "session", "cwd", "tool_call_id")
MAX_ARGUMENT_CHARS = 256_000


def decide_http(
    body: Any, engine: PolicyEngine, on_decision: Callable[[dict, Decision], None] | None = None
) -> tuple[int, dict[str, Any]]:
    """(HTTP status, JSON answer) for one decide request; never raises.

    `on_decision(body, decision)` is told of each decision (the collector records it as rows)."""
    problem = _problem(body)
    if problem:
        return 400, {"error": problem}
    decision = engine.decide(
        body["tool"], body.get("arguments"), agent=body.get("agent"), session=body.get("session"),
        trust=body.get("trust"), mode=body.get("mode"), cwd=body.get("cwd"), call_id=body.get("tool_call_id"),
    )
    if on_decision is not None:
        try:
            on_decision(body, decision)
        except Exception:  # recording must not change the answer the hook is waiting for
            logging.getLogger("claimwatch.policy").exception("could not record a hook's decision")
    answer = decision.to_dict()
    answer.update(agent=decision.agent, session=decision.session, would_block=decision.would_block,
                  enforced=decision.enforced)
    return 200, answer


def _problem(body: Any) -> str | None:
    if not isinstance(body, dict):
        return f"the body must be a JSON object, got {type(body).__name__}"
    tool = body.get("tool")
    if not isinstance(tool, str) or not tool.strip():
        return "tool: a non-empty string is required"
    for key in _OPTIONAL_STRINGS:
        if body.get(key) is not None and not isinstance(body[key], str):
            return f"{key}: must be a string (got {type(body[key]).__name__})"
    trust = body.get("trust")
    if trust is not None and (isinstance(trust, bool) or not isinstance(trust, (int, float)) or not 0 <= trust <= 100):
        return f"trust: must be a number from 0 to 100 (got {trust!r})"
    if body.get("mode") not in (None, "audit", "enforce"):
        return f"mode: must be audit or enforce (got {body['mode']!r})"
    if len(repr(body.get("arguments"))) > MAX_ARGUMENT_CHARS:
        return f"arguments: larger than {MAX_ARGUMENT_CHARS} characters"
    return None
