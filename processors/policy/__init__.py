"""claimwatch.policy: decide a tool call before it runs, audit every call after (issue 11, seed 002).

Light on purpose: a hook process imports this package per tool call, so nothing
here pulls in pydantic, DuckDB or OpenTelemetry (the config model lives in
`claimwatch.policy.config` and is imported only when a config file is read).
"""

from .engine import STEPS, Decision, PolicyEngine, PolicySettings, default_settings
from .rules import PolicyConfigError, Rule

__all__ = ["STEPS", "Decision", "PolicyConfigError", "PolicyEngine", "PolicySettings", "Rule", "default_settings"]
