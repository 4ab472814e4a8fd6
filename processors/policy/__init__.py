"""claimwatch.policy: decide a tool call before it runs, audit every call after (issue 11, seed 002).

Light on purpose: a hook process imports this package per tool call, so nothing
here pulls in pydantic, DuckDB or OpenTelemetry (the config model lives in
`claimwatch.policy.config` and is imported only when a config file is read),
and names resolve on first use (a hook that asks the collector never builds an engine).
"""

from importlib import import_module

_EXPORTS = {
    "STEPS": ".engine", "Decision": ".engine", "PolicyEngine": ".engine", "PolicySettings": ".engine",
    "default_settings": ".engine", "PolicyConfigError": ".rules", "Rule": ".rules",
    "ToolBlocked": ".guard", "decide_tool": ".guard", "guard_tool": ".guard", "policy_guarded": ".guard",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'claimwatch.policy' has no attribute {name!r}")
    value = getattr(import_module(module, __name__), name)
    globals()[name] = value
    return value
