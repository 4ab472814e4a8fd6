"""Deny rules: one spec type for the builtin pack and for users' own patterns, compiled once.

Builtin patterns are vetted and run on Python `re`. A user's pattern is
validated at load: bounded in size, compiled with RE2 (linear time, no
timeout needed) when RE2 accepts it, otherwise with the `regex` module and run
under a timeout; a timeout skips that rule for that call and is counted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import Any

SCOPES = ("command", "pipeline", "text", "path")
SEVERITIES = ("low", "medium", "high", "critical")
MAX_PATTERN_CHARS = 2000
_USER_TIMEOUT_S = 0.005


class PolicyConfigError(ValueError):
    """A policy setting or rule that cannot be used; the message names the key and the value."""


@dataclass(frozen=True, slots=True)
class Rule:
    """A deny rule: which tools, which parameters, what to look for, and why it blocks."""

    id: str
    tools: tuple[str, ...]
    scope: str
    pattern: str
    reason: str
    severity: str = "high"
    category: str = "custom"
    anchors: tuple[str, ...] = ()
    params: tuple[str, ...] = ()  # empty: the parameters of the tool's class
    requires: tuple[str, ...] = ()  # a second set of anchors: one of these must occur as well
    source: str = "builtin"
    compiled: Any = field(default=None, compare=False, repr=False)
    timeout: float | None = field(default=None, compare=False, repr=False)
    anchor_re: Any = field(default=None, compare=False, repr=False)
    requires_re: Any = field(default=None, compare=False, repr=False)

    def search(self, text: str, timeouts: list[str] | None = None):
        """The first match in `text`, or None (also None when a user pattern times out)."""
        if self.compiled is None:  # builtin rules compile on first use: a hook process needs few of them
            object.__setattr__(self, "compiled", re.compile(self.pattern))
        if self.timeout is None:
            return self.compiled.search(text)
        try:
            return self.compiled.search(text, timeout=self.timeout)
        except TimeoutError:
            if timeouts is not None:
                timeouts.append(self.id)
            return None

    def may_match(self, lowered: str) -> bool:
        """Whether one of the rule's anchors, and one of its `requires`, occur in `lowered`
        (always, for a rule without anchors)."""
        if not self.anchors:
            return True
        if self.anchor_re is None:
            object.__setattr__(self, "anchor_re", re.compile(alternation(self.anchors)))
            object.__setattr__(self, "requires_re", re.compile(alternation(self.requires)) if self.requires else None)
        if self.anchor_re.search(lowered) is None:
            return False
        return self.requires_re is None or self.requires_re.search(lowered) is not None

    def applies_to(self, tool_key: str, classes: frozenset[str]) -> bool:
        """Whether the rule names this tool, by class (`@shell`), exact key or glob."""
        for spec in self.tools:
            if spec.startswith("@"):
                if spec[1:] in classes:
                    return True
            elif spec == tool_key or fnmatchcase(tool_key, spec):
                return True
        return False


def alternation(patterns: tuple[str, ...]) -> str:
    """One regex matching any of `patterns` ("" matches everything)."""
    return "|".join(f"(?:{p})" for p in patterns)


def builtin_rule(spec: dict, compile_now: bool = False) -> Rule:
    """A rule of the builtin pack (vetted pattern, stdlib `re`), compiled now or on first use."""
    compiled = None
    if compile_now:
        try:
            compiled = re.compile(spec["pattern"])
        except re.error as exc:  # a bug in the pack, found by the tests
            raise PolicyConfigError(f"builtin rule {spec['id']}: bad pattern: {exc}") from None
    return Rule(
        id=spec["id"], tools=tuple(spec["tools"]), scope=spec["scope"], pattern=spec["pattern"],
        reason=spec["reason"], severity=spec.get("severity", "high"), category=spec.get("category", "builtin"),
        anchors=tuple(spec.get("anchors", ())), params=tuple(spec.get("params", ())),
        requires=tuple(spec.get("requires", ())), compiled=compiled,
    )


def user_rule(spec: dict, where: str) -> Rule:
    """A user's rule, validated: `where` is the config key path used in error messages."""
    pattern = spec.get("pattern")
    if not isinstance(pattern, str) or not pattern:
        raise PolicyConfigError(f"{where}.pattern: a non-empty regex is required (got {pattern!r})")
    if len(pattern) > MAX_PATTERN_CHARS:
        raise PolicyConfigError(f"{where}.pattern: longer than {MAX_PATTERN_CHARS} characters ({len(pattern)})")
    scope = spec.get("scope", "text")
    if scope not in SCOPES:
        raise PolicyConfigError(f"{where}.scope: must be one of {', '.join(SCOPES)} (got {scope!r})")
    severity = spec.get("severity", "high")
    if severity not in SEVERITIES:
        raise PolicyConfigError(f"{where}.severity: must be one of {', '.join(SEVERITIES)} (got {severity!r})")
    compiled, timeout = _compile_user(pattern, where)
    return Rule(
        id=spec.get("id") or where, tools=tuple(_tool_spec(t) for t in spec.get("tools") or ("*",)), scope=scope,
        pattern=pattern,
        reason=spec.get("reason") or f"matches deny pattern {pattern!r}", severity=severity,
        category=spec.get("category", "custom"), anchors=tuple(re.escape(a.lower()) for a in spec.get("anchors", ())),
        params=tuple(spec.get("params", ())), source="config", compiled=compiled, timeout=timeout,
    )


def _compile_user(pattern: str, where: str):
    try:
        import re2

        options = re2.Options()
        options.max_mem = 8 << 20
        options.log_errors = False
        return re2.compile(pattern, options), None
    except Exception:  # RE2 refuses backreferences and lookaround: fall back to `regex` with a timeout
        pass
    import regex

    try:
        return regex.compile(pattern), _USER_TIMEOUT_S
    except regex.error as exc:
        raise PolicyConfigError(f"{where}.pattern: not a valid regex: {exc} (got {pattern!r})") from None


def _tool_spec(spec: str) -> str:
    """A class (`@shell`) and a glob stay as written (globs lower-cased); a name is normalised like tool names."""
    from .tools import tool_key

    if spec.startswith("@"):
        return spec
    return spec.lower() if any(c in spec for c in "*?[") else tool_key(spec)
