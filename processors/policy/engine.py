"""The tool-call policy engine: the seed's seven-step chain, deterministic, no I/O but the state store.

    1 kill_switch   policy off (config, or CLAIMWATCH_POLICY_DISABLED=1 break-glass) -> allow
    2 dry_run       dry-run on: essential and T0 tools pass, every other call is stubbed
    3 deny_pattern  a deny rule matches a relevant parameter (normalised) -> block
    4 essential_t0  essential and T0 tools exit here: steps 5-6 can never block them
    5 allowlist     the agent's profile does not list the tool -> block
    6 escalation    the session already has maxBlockedRetries blocks -> block
    7 default       allow

Anti-deadlock guarantees (seed §5): essential and T0 tools are never stubbed by
dry-run (class 1), never blocked by allowlists or escalation (class 2, step 4
before 5-6), and deny rules read only the parameters that say what a tool
does, never content being written (class 3, rule scoping).
"""

from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import Any, NamedTuple

from . import pack
from .match import DenyMatcher, Match
from .rules import Rule, builtin_rule
from .state import DEFAULT_TTL_S, MemoryStore
from .tools import ToolCatalog, catalog, plugin_function, tool_key


def _log():
    import logging  # lazily: a hook process that logs nothing should not pay for the import

    return logging.getLogger("claimwatch.policy")


STEPS = ("kill_switch", "dry_run", "deny_pattern", "essential_t0", "allowlist", "escalation", "default")
BREAK_GLASS_ENV = "CLAIMWATCH_POLICY_DISABLED"
_SEEN_CALLS = 50_000  # recent (session, call id) pairs remembered so one call counts once
# Trust score -> tier, the same bounds as output validation (claimwatch.core.policy.tier_for;
# a test keeps them equal). Repeated here so the hook process does not import pydantic.
_TIERS = ((20, "untrusted"), (40, "restricted"), (60, "standard"), (80, "trusted"))
def trust_tier(score: float) -> str:
    """The trust tier of a 0-100 score (untrusted, restricted, standard, trusted, privileged)."""
    for bound, tier in _TIERS:
        if score < bound:
            return tier
    return "privileged"


def agent_matches(pattern: str, agent_id: str) -> bool:
    """Same rule as output validation's agent globs (claimwatch.core.policy.matches)."""
    return pattern == agent_id or fnmatchcase(agent_id, pattern)


@dataclass(frozen=True, slots=True)
class AgentRule:
    """Trust, mode and policy profile for agents matching a glob; the first match wins per field."""

    match: str
    trust: float | None = None
    mode: str | None = None
    profile: str | None = None  # strict | standard | lenient | disabled


@dataclass(frozen=True, slots=True)
class PolicySettings:
    """Everything a PolicyEngine decides with, validated (see claimwatch.policy.config for the file form)."""

    enabled: bool = True
    dry_run: bool = False
    dry_run_allow_t0: bool = True
    max_blocked_retries: int = 3
    escalation_ttl_s: float = DEFAULT_TTL_S
    rules: tuple[Rule, ...] = ()
    catalog: ToolCatalog = field(default_factory=catalog)
    allowlists: Mapping[str, tuple[str, ...]] = field(default_factory=lambda: dict(pack.ALLOWLISTS))
    tier_profiles: Mapping[str, str] = field(default_factory=lambda: dict(pack.TIER_PROFILES))
    agents: tuple[AgentRule, ...] = ()
    default_mode: str = "audit"
    default_trust: float = 50.0
    state_path: str | None = None


def builtin_rules(disabled: tuple[str, ...] = ()) -> tuple[Rule, ...]:
    """The builtin pack's rules, minus the ids in `disabled`."""
    return tuple(builtin_rule(spec) for spec in pack.RULES if spec["id"] not in disabled)


def default_settings(**overrides: Any) -> PolicySettings:
    """The builtin pack with no config (keyword overrides for tests and embedders)."""
    overrides.setdefault("rules", builtin_rules())
    return PolicySettings(**overrides)


class Decision(NamedTuple):
    """What the policy decided about one tool call, and why (a NamedTuple: one is built per call)."""

    decision: str  # allow | block | dry_run
    step: str  # one of STEPS
    tool: str
    risk_tier: str
    reason: str
    rule: str | None = None
    param: str | None = None
    severity: str = "info"
    category: str | None = None
    normalisation: str | None = None  # the chain that exposed the match, e.g. "list+shell -c+base64"
    matched: str | None = None  # the normalised text the rule matched (for debug and the CLI)
    blocked_count: int = 0
    profile: str = "standard"
    mode: str = "audit"
    agent: str | None = None
    session: str | None = None
    essential: bool = False
    evaluation_us: float = 0.0

    @property
    def would_block(self) -> bool:
        """A block, whatever the mode (in audit mode: what enforcement would have done)."""
        return self.decision == "block"

    @property
    def enforced(self) -> bool:
        """A block for an enforcing agent: the call must not run."""
        return self.decision == "block" and self.mode == "enforce"

    def to_dict(self) -> dict[str, Any]:
        """The JSON answer of the CLI, the hook and the API."""
        return {
            "decision": self.decision, "step": self.step, "tool": self.tool, "risk_tier": self.risk_tier,
            "rule": self.rule, "param": self.param, "reason": self.reason, "severity": self.severity,
            "normalisation": self.normalisation, "blocked_count": self.blocked_count, "profile": self.profile,
            "mode": self.mode, "evaluation_us": round(self.evaluation_us, 1),
        }


class _Call:
    """One call on its way through the chain; the session count is read at most once."""

    __slots__ = ("agent", "arguments", "count", "counts", "cwd", "essential", "key", "mode", "profile", "session",
                 "start", "tier", "tool")

    def __init__(self, tool, key, arguments, agent, session, tier, essential, profile, mode, cwd) -> None:
        self.tool, self.key, self.arguments, self.agent, self.session = tool, key, arguments, agent, session
        self.tier, self.essential, self.profile, self.mode, self.cwd = tier, essential, profile, mode, cwd
        self.count: int | None = None
        self.counts = True
        self.start = 0


class PolicyEngine:
    """Decides tool calls with `settings`; escalation counts live in `store` (memory by default)."""

    def __init__(self, settings: PolicySettings | None = None, store=None, *, one_shot: bool = False) -> None:
        """`one_shot`: a process that decides once (a hook) skips RE2 and compiles only the regexes it
        needs; long-running processes (collector, SDK) use RE2 prefilters, faster per call."""
        self.settings = settings or default_settings()
        if store is None:
            store = MemoryStore(self.settings.escalation_ttl_s, self.settings.state_path)
        self.store = store
        self.matcher = DenyMatcher(self.settings.rules, self.settings.catalog, one_shot)
        # Read once: the environment of a running process does not change from outside.
        self._break_glass = os.environ.get(BREAK_GLASS_ENV, "").strip().lower() in ("1", "true", "yes")
        self._seen_calls: OrderedDict[tuple[str, str], None] = OrderedDict()
        self._seen_lock = threading.Lock()
        self._chain = (
            self._kill_switch, self._dry_run, self._deny_pattern, self._essential_t0,
            self._allowlist, self._escalation, self._default,
        )

    # --- the public entry point ---------------------------------------------------------------
    def decide(
        self, tool: str, arguments: Any = None, *, agent: str | None = None, session: str | None = None,
        trust: float | None = None, mode: str | None = None, cwd: str | None = None, count: bool = True,
        call_id: str | None = None,
    ) -> Decision:
        """Run the seven steps for one call. Never raises: an internal error allows, with the error as reason.

        `count=False` decides without adding a block to the session's count (a call already
        counted elsewhere, e.g. the LLM's request for a call whose execution is audited too);
        a `call_id` seen before (the hook decided it, then its execute_tool span arrives) is
        counted once.
        """
        start = time.perf_counter_ns()
        try:
            call = self._call(str(tool), arguments, agent, session, trust, mode, cwd)
            call.start = start
            call.counts = count and self._first_sight(session, call_id)
            for step in self._chain:
                decision = step(call)
                if decision is not None:
                    return decision
        except Exception as exc:  # fail open, loudly: a policy bug must not brick the agent
            _log().exception("policy evaluation failed for tool %r", tool)
            return Decision("allow", "default", str(tool), "T1", f"policy error (failed open): {type(exc).__name__}: {exc}",
                            evaluation_us=(time.perf_counter_ns() - start) / 1000)
        raise AssertionError("the default step always decides")  # pragma: no cover

    def _call(self, tool, arguments, agent, session, trust, mode, cwd) -> _Call:
        s = self.settings
        key = self._key(tool)
        rule_trust, rule_mode, profile = None, None, None
        for rule in s.agents:
            if agent is not None and agent_matches(rule.match, agent):
                rule_trust = rule.trust if rule_trust is None else rule_trust
                rule_mode = rule.mode if rule_mode is None else rule_mode
                profile = rule.profile if profile is None else profile
        score = trust if trust is not None else (rule_trust if rule_trust is not None else s.default_trust)
        profile = profile or s.tier_profiles.get(trust_tier(float(score)), "standard")
        mode = mode or rule_mode or s.default_mode
        tier = s.catalog.tier(key)
        return _Call(tool, key, arguments, agent, session, tier, key in s.catalog.essential, profile, mode, cwd)

    def _key(self, tool) -> str:
        """The tool's key; a Semantic Kernel `<plugin>-<function>` name is its function's when only that
        is known (classified, or named by a deny rule): `HostTools-bash` is `bash`, `write-file` stays."""
        key = tool_key(tool)
        function = plugin_function(tool)
        if function is None or self._known(key):
            return key
        inner = tool_key(function)
        return inner if self._known(inner) else key

    def _known(self, key: str) -> bool:
        return self.settings.catalog.knows(key) or any(key in r.tools for r in self.settings.rules)

    # --- the seven steps, in order ----------------------------------------------------------------
    def _kill_switch(self, call: _Call) -> Decision | None:
        if not self.settings.enabled:
            return self._allow(call, "kill_switch", "policy disabled (enabled: false)")
        if call.profile == "disabled":
            return self._allow(call, "kill_switch", f"policy disabled for agent {call.agent}")
        if self._break_glass:
            _log().warning("policy disabled by %s (break-glass): allowing %s", BREAK_GLASS_ENV, call.tool)
            return self._allow(call, "kill_switch", f"policy disabled by {BREAK_GLASS_ENV} (break-glass)")
        return None

    def _dry_run(self, call: _Call) -> Decision | None:
        if not self.settings.dry_run:
            return None
        if call.essential or (call.tier == "T0" and self.settings.dry_run_allow_t0):
            return self._allow(call, "dry_run", "essential or T0 tool passes dry-run")
        return self._decision(call, "dry_run", "dry_run", "dry-run: the call is stubbed, not executed")

    def _deny_pattern(self, call: _Call) -> Decision | None:
        match = self.matcher.first_match(call.key, call.arguments, call.cwd)
        if match is None:
            return None
        rule = match.rule
        reason = rule.reason + (f" (exposed by {match.via})" if match.via else "")
        return self._block(call, "deny_pattern", reason, rule, match)

    def _essential_t0(self, call: _Call) -> Decision | None:
        if call.essential:
            return self._allow(call, "essential_t0", "essential tool")
        if call.tier == "T0":
            return self._allow(call, "essential_t0", "T0 (read-only) tool")
        return None

    def _allowlist(self, call: _Call) -> Decision | None:
        entries = self.settings.allowlists.get(call.profile)
        if entries is None or any(_allowed(e, call) for e in entries):
            return None
        return self._block(call, "allowlist", f"{call.tool} is not on the {call.profile} profile's allowlist")

    def _escalation(self, call: _Call) -> Decision | None:
        limit = self.settings.max_blocked_retries
        if limit <= 0 or not call.session or self._count(call) < limit:
            return None
        _log().info("session %s reached %d blocked calls: blocking %s", call.session, call.count, call.tool)
        return self._block(call, "escalation", f"session has {call.count} blocked calls (max {limit}): escalated")

    def _default(self, call: _Call) -> Decision:
        return self._allow(call, "default", "no rule matched")

    def _first_sight(self, session: str | None, call_id: str | None) -> bool:
        """Whether this call id is new for the session (bounded memory of recent ids)."""
        if not session or not call_id:
            return True
        key = (session, call_id)
        with self._seen_lock:
            if key in self._seen_calls:
                return False
            self._seen_calls[key] = None
            if len(self._seen_calls) > _SEEN_CALLS:
                self._seen_calls.popitem(last=False)
        return True

    # --- decisions ----------------------------------------------------------------------------------
    def _count(self, call: _Call) -> int:
        if call.count is None:
            call.count = self.store.blocked_count(call.session)
        return call.count

    def _allow(self, call: _Call, step: str, reason: str) -> Decision:
        return self._decision(call, "allow", step, reason)

    def _block(self, call: _Call, step: str, reason: str, rule: Rule | None = None, match: Match | None = None):
        call.count = self.store.record_block(call.session) if call.counts else self._count(call)
        return self._decision(call, "block", step, reason, rule, match)

    def _decision(self, call, decision, step, reason, rule=None, match=None) -> Decision:
        count = call.count if call.count is not None else (self._count(call) if call.session else 0)
        return Decision(
            decision=decision, step=step, tool=call.tool, risk_tier=call.tier, reason=reason,
            rule=rule.id if rule else None, param=match.param if match else None,
            severity=rule.severity if rule else ("medium" if decision == "block" else "info"),
            category=rule.category if rule else None, normalisation=(match.via or None) if match else None,
            matched=match.text if match else None, blocked_count=count, profile=call.profile, mode=call.mode,
            agent=call.agent, session=call.session, essential=call.essential,
            evaluation_us=(time.perf_counter_ns() - call.start) / 1000,
        )


def _allowed(entry: str, call: _Call) -> bool:
    if entry.startswith("@"):
        return entry[1:].upper() == call.tier
    return entry == "*" or fnmatchcase(call.key, tool_key(entry) if "*" not in entry else entry.lower())


