"""claimwatch processors: the validation core and its OpenTelemetry adapters."""

from .core.config import ClaimwatchConfig, ConfigError, ValidationConfig, load_config
from .core.model import Claim, FactCheck, Trust, ValidationResult, Violation
from .core.patterns import DetectorSpec, PatternError
from .core.validator import OutputValidator

__all__ = [
    "Claim",
    "ClaimwatchConfig",
    "ConfigError",
    "DetectorSpec",
    "FactCheck",
    "OutputValidator",
    "PatternError",
    "Trust",
    "ValidationConfig",
    "ValidationResult",
    "Violation",
    "load_config",
]
