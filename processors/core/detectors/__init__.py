"""Builtin detector families. Each module exports `DETECTORS`, a tuple of specs."""

from . import capability, entity_name, existence, operational_status, self_referential, system_state

# Config switch name (builtinDetectors.<key>) -> specs of that family.
FAMILIES = {
    "systemState": system_state.DETECTORS,
    "entityName": entity_name.DETECTORS,
    "existence": existence.DETECTORS,
    "operationalStatus": operational_status.DETECTORS,
    "selfReferential": self_referential.DETECTORS,
    "capability": capability.DETECTORS,
}


def builtin_detectors(enabled: dict[str, bool] | None = None) -> list:
    """All builtin specs, minus the families switched off in `enabled`."""
    enabled = enabled or {}
    return [spec for family, specs in FAMILIES.items() if enabled.get(family, True) for spec in specs]
