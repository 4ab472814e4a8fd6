"""The `checks.tool_policy` config section, validated, and the PolicySettings it gives.

Keys follow the seed's names (camelCase or snake_case):

    checks:
      tool_policy:
        enabled: true              # false: every call allowed (step kill_switch), nothing audited
        dryRun: false
        dryRunAllowT0: true
        dryRunEssentialTools: [message, gateway, session_status]   # default: the builtin list
        maxBlockedRetries: 3       # escalation threshold per session (0: never escalate)
        escalationTtlSeconds: 3600
        statePath: null            # default: next to the DuckDB file (collector, SDK); hooks: their own file
        builtinPack: true          # false: only your own denyPatterns
        disableRules: [shell.crontab_install]
        riskTiers: {T0: [lookup_order], T2: [deploy_service]}
        denyPatterns:              # seed form: {tool: [regex, ...]} ...
          exec: ["terraform\\s+destroy"]
        # ... or rules: [{id, tools, params, scope, pattern, reason, severity, anchors}]
        allowlists: {strict: ["@T0", "@T1", "web_fetch"]}
        agents: [{agent: "untrusted-*", profile: strict}]
        shellTools: [my_runner]    # more names read as shell tools
        toolParams: {my_runner: [script]}

This module imports pydantic; the engine does not (a hook without a config
file never loads it).
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, model_validator

from ..core.config_base import _Model
from . import pack
from .engine import AgentRule, PolicySettings, builtin_rules
from .rules import PolicyConfigError, Rule, user_rule
from .tools import catalog

Tier = Literal["T0", "T1", "T2"]
Profile = Literal["strict", "standard", "lenient"]


class DenyPatternSpec(_Model):
    """One deny rule of your own; `tools` are names, globs or `@shell` / `@file_write` / `@file_read`."""

    id: str | None = None
    tools: tuple[str, ...] = ("*",)
    params: tuple[str, ...] = ()
    scope: Literal["command", "text", "path"] = "text"
    pattern: str = Field(min_length=1)
    reason: str | None = None
    severity: Literal["low", "medium", "high", "critical"] = "high"
    anchors: tuple[str, ...] = ()


class AgentProfile(_Model):
    """The policy profile of agents whose id matches `agent` (a glob); the first match wins."""

    agent: str = Field(min_length=1)
    profile: Literal["strict", "standard", "lenient", "disabled"]


class ToolPolicyConfig(_Model):
    """The tool-call policy: the seed's settings plus claimwatch's (state, packs, profiles)."""

    enabled: bool = True
    dry_run: bool = False
    dry_run_allow_t0: bool = True
    dry_run_essential_tools: tuple[str, ...] | None = None
    max_blocked_retries: int = Field(default=3, ge=0)
    escalation_ttl_seconds: float = Field(default=3600, gt=0)
    state_path: str | None = None
    builtin_pack: bool = True
    disable_rules: tuple[str, ...] = ()
    risk_tiers: dict[Tier, tuple[str, ...]] = Field(default_factory=dict)
    default_tier: Tier = "T1"
    deny_patterns: dict[str, tuple[str, ...]] | tuple[DenyPatternSpec, ...] = ()
    allowlists: dict[Profile, tuple[str, ...]] = Field(default_factory=dict)
    agents: tuple[AgentProfile, ...] = ()
    shell_tools: tuple[str, ...] = ()
    file_write_tools: tuple[str, ...] = ()
    file_read_tools: tuple[str, ...] = ()
    tool_params: dict[str, tuple[str, ...]] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _check(self) -> ToolPolicyConfig:
        known = {r["id"] for r in pack.RULES}
        unknown = [r for r in self.disable_rules if r not in known]
        if unknown:
            raise ValueError(f"disableRules: unknown builtin rule {unknown[0]!r} (known: {', '.join(sorted(known))})")
        user_rules(self)  # compiles and bounds every pattern now, so a bad one fails at load
        return self


def user_rules(config: ToolPolicyConfig) -> tuple[Rule, ...]:
    """The config's own deny rules, validated (raises ValueError naming the key path)."""
    rules = []
    try:
        if isinstance(config.deny_patterns, dict):  # the seed's form: {tool: [regex, ...]}
            for tool, patterns in config.deny_patterns.items():
                for i, pattern in enumerate(patterns):
                    where = f"denyPatterns.{tool}[{i}]"
                    rules.append(user_rule({"id": where, "tools": (tool,), "pattern": pattern}, where))
        else:
            for i, spec in enumerate(config.deny_patterns):
                rules.append(user_rule(spec.model_dump(exclude_none=True), f"denyPatterns[{i}]"))
    except PolicyConfigError as exc:
        raise ValueError(str(exc)) from None
    return tuple(rules)


def settings_from(config: ToolPolicyConfig, whole=None) -> PolicySettings:
    """PolicySettings from the section, plus agents (trust, mode) and storage from the whole config."""
    rules = (builtin_rules(config.disable_rules) if config.builtin_pack else ()) + user_rules(config)
    agents = [AgentRule(a.agent, profile=a.profile) for a in config.agents]
    default_mode, default_trust = "audit", 50.0
    if whole is not None:
        agents += [AgentRule(r.match, trust=r.trust, mode=r.mode) for r in whole.agents.rules]
        default_mode, default_trust = whole.agents.default_mode, whole.validation.default_trust
    allowlists = dict(pack.ALLOWLISTS)
    allowlists.update(config.allowlists)
    return PolicySettings(
        enabled=config.enabled, dry_run=config.dry_run, dry_run_allow_t0=config.dry_run_allow_t0,
        max_blocked_retries=config.max_blocked_retries, escalation_ttl_s=config.escalation_ttl_seconds,
        rules=rules,
        catalog=catalog(
            extra_tiers=config.risk_tiers,
            extra_classes={"shell": config.shell_tools, "file_write": config.file_write_tools,
                           "file_read": config.file_read_tools},
            tool_params=config.tool_params, essential=config.dry_run_essential_tools,
            default_tier=config.default_tier,
        ),
        allowlists=allowlists, agents=tuple(agents), default_mode=default_mode, default_trust=default_trust,
        state_path=config.state_path,
    )


def settings_beside_store(config: ToolPolicyConfig, whole) -> PolicySettings:
    """Settings for a long-running process (collector, SDK): escalation counts persist beside the
    DuckDB file unless `statePath` says where."""
    settings = settings_from(config, whole)
    if settings.state_path is None and whole.storage.enabled:
        settings = replace(settings, state_path=f"{whole.storage.path}.policy-state.json")
    return settings


def section_of(whole) -> ToolPolicyConfig:
    """The validated `checks.tool_policy` section of a ClaimwatchConfig (defaults when absent)."""
    raw: Any = {}
    for key, value in whole.checks.items():
        if key in ("tool_policy", "toolPolicy"):
            raw = value or {}
    return ToolPolicyConfig.model_validate(raw)


def load_settings(path: str | os.PathLike | None = None) -> PolicySettings:
    """Settings from a claimwatch config file (its `checks.tool_policy` and `agents`), or the builtin pack."""
    if path is None:
        from .engine import default_settings

        return default_settings()
    from pydantic import ValidationError

    from ..core.config import ConfigError, _describe, load_config

    whole = load_config(Path(path))
    try:
        section = section_of(whole)
    except ValidationError as exc:
        problems = [_describe(e, whole.checks) for e in exc.errors()]
        raise ConfigError(str(path), [(f"checks.tool_policy.{k}".rstrip("."), m) for k, m in problems]) from None
    return settings_from(section, whole)
