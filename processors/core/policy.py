"""Which policies apply to an agent: trust tier, profile, per-agent override (RFC §6.3, §9).

Resolution order, first match deciding:
1. validation disabled, agent exempt (glob), or trust above `trustExemptThreshold`: skip;
2. the first `agentOverrides` entry whose glob matches the agent id: its profile,
   then its explicit policies on top (`profile: disabled` skips);
3. otherwise the trust tier's policies (or `defaults` when `trustScaling` is off).

A policy derived from the trust tier never blocks an unverified claim: it
flags. Only an explicit choice (a profile, an agent's own
`unverifiedClaimPolicy`, or `defaults` with trust scaling off) may.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fnmatch import fnmatchcase

from .config import ValidationConfig
from .model import Trust

# (upper bound exclusive, tier); RFC §9.2.
_TIERS = ((20, "untrusted"), (40, "restricted"), (60, "standard"), (80, "trusted"))


@dataclass(frozen=True, slots=True)
class AgentPolicy:
    unverified: str
    contradiction: str
    self_referential: str
    contradiction_only: bool  # detection depth: only categories some active fact can check
    # What an output cut at `maxTextLength` gets: its tail was never checked.
    truncated: str = "ignore"
    registries: frozenset[str] = frozenset()
    skipped: str | None = None
    source: str = "tier"


_TIER_POLICIES = {
    "untrusted": AgentPolicy("block", "block", "block", False, truncated="flag"),
    "restricted": AgentPolicy("flag", "block", "flag", False, truncated="flag"),
    "standard": AgentPolicy("flag", "flag", "flag", False),
    "trusted": AgentPolicy("ignore", "flag", "ignore", True),
    "privileged": AgentPolicy("ignore", "flag", "ignore", True),
}
_PROFILES = {
    "strict": _TIER_POLICIES["untrusted"],
    "standard": _TIER_POLICIES["standard"],
    "lenient": _TIER_POLICIES["trusted"],
}


def tier_for(score: float) -> str:
    for bound, tier in _TIERS:
        if score < bound:
            return tier
    return "privileged"


def matches(pattern: str, agent_id: str) -> bool:
    return pattern == agent_id or fnmatchcase(agent_id, pattern)


class PolicyResolver:
    """Resolves and caches the policy of (agent id, trust tier, exempt?)."""

    def __init__(self, config: ValidationConfig) -> None:
        self._config = config
        self._enabled_registries = frozenset(r.id for r in config.fact_registries if r.enabled)
        self._cache: dict[tuple[str, str, bool], AgentPolicy] = {}
        self._trusts: dict[float | int | None, Trust] = {}

    def trust(self, score: float | None) -> Trust:
        # Trust is frozen: one object per score (agents report a handful of scores) is shared.
        cacheable = score is None or type(score) in (int, float)
        if cacheable:
            cached = self._trusts.get(score)
            if cached is not None:
                return cached
        value = self._config.default_trust if score is None else float(score)
        value = min(100.0, max(0.0, value))
        trust = Trust(value, tier_for(value))  # type: ignore[arg-type]
        if cacheable and len(self._trusts) < 1024 and value == value:  # not NaN
            self._trusts[score] = trust
        return trust

    def resolve(self, agent_id: str, trust: Trust) -> AgentPolicy:
        exempt_by_trust = trust.score > self._config.trust_exempt_threshold
        key = (agent_id, trust.tier, exempt_by_trust)
        policy = self._cache.get(key)
        if policy is None:
            policy = self._resolve(agent_id, trust.tier, exempt_by_trust)
            if len(self._cache) < 10_000:
                self._cache[key] = policy
        return policy

    def _resolve(self, agent_id: str, tier: str, exempt_by_trust: bool) -> AgentPolicy:
        cfg = self._config
        skip = _TIER_POLICIES["privileged"]
        if not cfg.enabled:
            return replace(skip, skipped="disabled", source="config")
        if any(matches(p, agent_id) for p in cfg.exempt):
            return replace(skip, skipped="exempt", source="exempt")
        if exempt_by_trust:
            return replace(skip, skipped="trust_exempt", source="trust")
        override = next((o for o in cfg.agent_overrides if matches(o.agent, agent_id)), None)
        if override is not None and override.profile == "disabled":
            return replace(skip, skipped="disabled_by_override", source=f"override:{override.agent}")
        if override is not None and override.profile:
            base, explicit, source = _PROFILES[override.profile], True, f"profile:{override.profile}"
        elif cfg.trust_scaling:
            base, explicit, source = _TIER_POLICIES[tier], False, f"tier:{tier}"
        else:
            d = cfg.defaults
            base = AgentPolicy(
                d.unverified_claim_policy,
                d.contradiction_policy,
                d.self_referential_policy,
                False,
                truncated=d.truncated_output_policy,
            )
            explicit, source = True, "defaults"
        registries = self._enabled_registries
        if override is not None:
            base = replace(
                base,
                unverified=override.unverified_claim_policy or base.unverified,
                contradiction=override.contradiction_policy or base.contradiction,
                self_referential=override.self_referential_policy or base.self_referential,
                truncated=override.truncated_output_policy or base.truncated,
            )
            explicit = explicit or override.unverified_claim_policy is not None
            registries = (registries | set(override.additional_registries)) - set(override.exclude_registries)
        if not explicit and base.unverified == "block":
            base = replace(base, unverified="flag")
        return replace(base, registries=frozenset(registries), source=source)
