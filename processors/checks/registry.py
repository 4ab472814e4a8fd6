"""Building the registered checks from config: each `checks.<name>` section validated by its own model."""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import ValidationError

from ..core.config import ClaimwatchConfig, ConfigError, _describe
from . import registered
from .base import Check, CheckSpec


def build_checks(config: ClaimwatchConfig, overrides: Mapping[str, Check] | None = None) -> list[Check]:
    """One instance of every enabled check, in registration order; a bad section raises ConfigError."""
    specs = registered()
    sections = check_sections(config, specs)
    checks = []
    for name, spec in specs.items():
        section = sections[name]
        if not getattr(section, "enabled", spec.enabled_by_default):
            continue
        checks.append((overrides or {}).get(name) or spec.factory(section, config))
    return checks


def check_sections(config: ClaimwatchConfig, specs: Mapping[str, CheckSpec] | None = None) -> dict:
    """Each check's validated config section (its model's defaults when absent)."""
    specs = specs or registered()
    given = {_snake(k): v for k, v in config.checks.items()}
    unknown = sorted(set(given) - set(specs))
    if unknown:
        raise ConfigError(
            "config", [(f"checks.{unknown[0]}", f"no such check (known: {', '.join(specs)})")]
        )
    out = {}
    for name, spec in specs.items():
        try:
            out[name] = spec.config_model.model_validate(given.get(name) or {})
        except ValidationError as exc:
            problems = [_describe(e, given.get(name)) for e in exc.errors()]
            raise ConfigError("config", [(f"checks.{name}.{k}".rstrip("."), m) for k, m in problems]) from None
    return out


def evaluation_names() -> dict[str, str]:
    """gen_ai.evaluation.name per check."""
    return {name: spec.evaluation_name or f"claimwatch.{name}" for name, spec in registered().items()}


def _snake(name: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name)
