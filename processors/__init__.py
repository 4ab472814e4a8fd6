"""claimwatch: checks on what LLM agents say and do, in-process and as an OTLP collector.

Names resolve on first use (PEP 562): `from claimwatch import guard` imports only what
`guard` needs, so a pre-tool hook process (`claimwatch.policy.hook`) does not load DuckDB,
OpenTelemetry or pydantic.
"""

from importlib import import_module
from typing import TYPE_CHECKING

_EXPORTS = {
    "ClaimwatchConfig": ".core.config", "ConfigError": ".core.config", "ValidationConfig": ".core.config",
    "load_config": ".core.config",
    "Claim": ".core.model", "FactCheck": ".core.model", "Trust": ".core.model", "ValidationResult": ".core.model",
    "Violation": ".core.model",
    "DetectorSpec": ".core.patterns", "PatternError": ".core.patterns",
    "OutputValidator": ".core.validator",
    "ClaimwatchSpanProcessor": ".otel.processor", "OutputBlocked": ".otel.processor", "guard": ".otel.processor",
    "ToolBlocked": ".policy.guard", "decide_tool": ".policy.guard", "guard_tool": ".policy.guard",
    "policy_guarded": ".policy.guard",
    "AuditStore": ".store",
}
__all__ = [
    "AuditStore",
    "Claim",
    "ClaimwatchConfig",
    "ClaimwatchSpanProcessor",
    "ConfigError",
    "DetectorSpec",
    "FactCheck",
    "OutputBlocked",
    "OutputValidator",
    "PatternError",
    "ToolBlocked",
    "Trust",
    "ValidationConfig",
    "ValidationResult",
    "Violation",
    "decide_tool",
    "guard",
    "guard_tool",
    "load_config",
    "policy_guarded",
]  # the keys of _EXPORTS (a test checks)

if TYPE_CHECKING:  # for type checkers and IDEs; nothing is imported at run time
    from .core.config import ClaimwatchConfig, ConfigError, ValidationConfig, load_config
    from .core.model import Claim, FactCheck, Trust, ValidationResult, Violation
    from .core.patterns import DetectorSpec, PatternError
    from .core.validator import OutputValidator
    from .otel.processor import ClaimwatchSpanProcessor, OutputBlocked, guard
    from .policy.guard import ToolBlocked, decide_tool, guard_tool, policy_guarded
    from .store import AuditStore


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'claimwatch' has no attribute {name!r}")
    value = getattr(import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
