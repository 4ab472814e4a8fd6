"""claimwatch: checks on what LLM agents say and do, in-process and as an OTLP collector."""

from .core.config import ClaimwatchConfig, ConfigError, ValidationConfig, load_config
from .core.model import Claim, FactCheck, Trust, ValidationResult, Violation
from .core.patterns import DetectorSpec, PatternError
from .core.validator import OutputValidator
from .otel.processor import ClaimwatchSpanProcessor, OutputBlocked, guard
from .policy.guard import ToolBlocked, decide_tool, guard_tool, policy_guarded
from .store import AuditStore

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
]
