"""In-process enforcement: decide a tool call before it runs.

    from claimwatch import decide_tool, guard_tool, ToolBlocked, policy_guarded

    decision = decide_tool("exec", {"command": cmd}, agent="worker-1", session=sid)
    guard_tool("exec", {"command": cmd}, agent="worker-1", session=sid)  # raises ToolBlocked when enforced

    @policy_guarded("exec", agent="worker-1")
    def run(command: str) -> str: ...

One engine per process (`configure(...)` replaces it; the default is the
builtin pack with in-memory escalation state). A block raises only for agents
in enforce mode; in audit mode the call goes ahead and the decision says what
enforcement would have done.
"""

from __future__ import annotations

import functools
import inspect
import threading
from collections.abc import Callable
from typing import Any

from .engine import Decision, PolicyEngine

_lock = threading.Lock()
_engine: PolicyEngine | None = None


class ToolBlocked(Exception):
    """A tool call the policy blocked for an enforcing agent; `decision` says which step and rule."""

    def __init__(self, decision: Decision) -> None:
        super().__init__(f"tool {decision.tool!r} blocked ({decision.step}"
                         f"{', ' + decision.rule if decision.rule else ''}): {decision.reason}")
        self.decision = decision


def configure(config: Any = None, *, engine: PolicyEngine | None = None) -> PolicyEngine:
    """Set the process's policy engine: from a config path, dict or ClaimwatchConfig, or a ready engine."""
    global _engine
    if engine is None:
        from ..core.config import load_config
        from .config import section_of, settings_beside_store

        whole = load_config(config)
        engine = PolicyEngine(settings_beside_store(section_of(whole), whole))
    with _lock:
        _engine = engine
    return engine


def current_engine() -> PolicyEngine:
    """The process's engine (the builtin pack until `configure` is called)."""
    global _engine
    if _engine is None:
        with _lock:
            if _engine is None:
                _engine = PolicyEngine()
    return _engine


def decide_tool(
    name: str, arguments: Any = None, *, agent: str | None = None, session: str | None = None,
    trust: float | None = None, mode: str | None = None, cwd: str | None = None,
) -> Decision:
    """The policy's decision for one call; never raises."""
    return current_engine().decide(name, arguments, agent=agent, session=session, trust=trust, mode=mode, cwd=cwd)


def guard_tool(name: str, arguments: Any = None, **who: Any) -> Decision:
    """`decide_tool`, raising ToolBlocked when the decision is a block and the agent enforces."""
    decision = decide_tool(name, arguments, **who)
    if decision.enforced:
        raise ToolBlocked(decision)
    return decision


def policy_guarded(
    name: str | Callable | None = None, *, agent: str | Callable[[], str | None] | None = None,
    session: str | Callable[[], str | None] | None = None, mode: str | None = None,
    dry_run_result: Callable[[Decision], Any] | None = None,
):
    """Decorate a plain tool function: its bound arguments are the tool call's arguments.

    `agent`/`session` may be callables (read per call). A dry-run decision for an
    enforcing agent returns `dry_run_result(decision)` (default: a small dict) instead of running.
    """

    def wrap(fn: Callable) -> Callable:
        tool = name if isinstance(name, str) else fn.__name__
        signature = inspect.signature(fn)

        @functools.wraps(fn)
        def guarded(*args: Any, **kwargs: Any) -> Any:
            try:
                bound = signature.bind_partial(*args, **kwargs)
                arguments = dict(bound.arguments)
            except TypeError:
                arguments = {"args": list(args), **kwargs}
            decision = guard_tool(tool, arguments, agent=_value(agent), session=_value(session), mode=mode)
            if decision.decision == "dry_run" and decision.mode == "enforce":
                return dry_run_result(decision) if dry_run_result else {"dry_run": True, "tool": tool}
            return fn(*args, **kwargs)

        guarded.policy_tool = tool  # type: ignore[attr-defined]
        return guarded

    return wrap(name) if callable(name) else wrap


def _value(v: Any) -> Any:
    return v() if callable(v) else v
