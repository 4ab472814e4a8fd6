"""The registered checks. Adding a check is one module exporting `CHECK` plus one line here.

Order matters only for annotation order on a span; every check sees the same
span, trace view and identity, and none sees another's result.
"""

from __future__ import annotations

import importlib
from functools import cache

from .base import CheckContext, CheckResult, CheckSpec, Finding, Identity, Migration, TraceView, worst

CHECK_MODULES: tuple[str, ...] = (
    "claimwatch.checks.output",
    "claimwatch.checks.actions",
    "claimwatch.checks.tool_policy",
    "claimwatch.checks.grounding",
)


@cache
def registered() -> dict[str, CheckSpec]:
    """Every registered check's spec, by name, in registration order."""
    specs: dict[str, CheckSpec] = {}
    for module_name in CHECK_MODULES:
        spec = importlib.import_module(module_name).CHECK
        if spec.name in specs:
            raise RuntimeError(f"two checks are registered as {spec.name!r} ({module_name})")
        specs[spec.name] = spec
    return specs


__all__ = [
    "CHECK_MODULES",
    "CheckContext",
    "CheckResult",
    "CheckSpec",
    "Finding",
    "Identity",
    "Migration",
    "TraceView",
    "registered",
    "worst",
]
