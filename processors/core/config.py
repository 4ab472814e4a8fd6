"""Configuration: pydantic models at the boundary, validated once at load.

The validation block accepts the RFC-003 `outputValidation` block verbatim
(camelCase, as in RFC §10.3) and the same keys in snake_case. Every error
names the key path and the bad value.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any, Literal, Union

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic.alias_generators import to_camel

from . import settings
from .config_base import _Model
from .model import CLAIM_CATEGORIES
from .patterns import PatternError, compile_pattern
from .runtime_config import (
    AgentsConfig,
    AnnotationsConfig,
    Exporters,
    ProcessorConfig,
    Receivers,
    ServiceConfig,
    StorageConfig,
)

PolicyName = Literal["ignore", "flag", "block"]
ClaimCategoryName = Literal[
    "system_state", "entity_name", "existence", "operational_status", "capability", "self_referential"
]
assert set(ClaimCategoryName.__args__) == set(CLAIM_CATEGORIES)  # type: ignore[attr-defined]


class ConfigError(ValueError):
    """A configuration could not be loaded; `problems` lists (key path, message)."""

    def __init__(self, source: str, problems: list[tuple[str, str]]) -> None:
        self.source = source
        self.problems = problems
        lines = [f"{path}: {message}" if path else message for path, message in problems]
        super().__init__(f"invalid config {source}:\n  " + "\n  ".join(lines))


class ExistsValue(_Model):
    type: Literal["exists"]
    exists: bool


class StateValue(_Model):
    type: Literal["state"]
    state: str = Field(min_length=1)


class NameValue(_Model):
    type: Literal["name"]
    correct_name: str = Field(min_length=1)
    aliases: tuple[str, ...] = ()


class StatusValue(_Model):
    type: Literal["status"]
    status: Literal["operational", "degraded", "down"]


class CapabilityValue(_Model):
    type: Literal["capability"]
    supported: bool


FactValue = Annotated[
    Union[ExistsValue, StateValue, NameValue, StatusValue, CapabilityValue], Field(discriminator="type")
]
_ID = r"^[A-Za-z0-9][A-Za-z0-9._:-]*$"


class Fact(_Model):
    """One ground-truth statement an operator curates (RFC §5.2)."""

    id: str = Field(pattern=_ID)
    category: ClaimCategoryName
    subject: str = Field(min_length=1, max_length=500)
    subject_is_regex: bool = False
    value: FactValue
    description: str | None = None
    ttl_seconds: float | None = Field(default=None, gt=0)
    updated_at: datetime | None = None

    @model_validator(mode="after")
    def _check_subject(self) -> Fact:
        if self.subject_is_regex:
            try:
                compile_pattern(self.subject, where="subject")
            except PatternError as exc:
                raise ValueError(str(exc)) from None
        return self


class FactRegistry(_Model):
    id: str = Field(pattern=_ID)
    name: str | None = None
    facts: tuple[Fact, ...] = ()
    enabled: bool = True


class CustomDetector(_Model):
    """A user-defined claim detector (RFC §4.5); runs exactly like a builtin."""

    id: str = Field(pattern=_ID)
    category: ClaimCategoryName
    patterns: tuple[str, ...] = Field(min_length=1)
    subject_group: str | None = None
    assertion: str = Field(min_length=1)
    negative: bool = False
    confidence: float = Field(default=0.8, ge=0.0, le=1.0)
    # Sentences the patterns match: run once at load so the first real match is not slow.
    examples: tuple[str, ...] = ()

    @field_validator("patterns")
    @classmethod
    def _check_patterns(cls, patterns: tuple[str, ...]) -> tuple[str, ...]:
        for i, source in enumerate(patterns):
            try:
                compile_pattern(source, where=f"patterns[{i}]")
            except PatternError as exc:
                raise ValueError(str(exc)) from None
        return patterns


class BuiltinDetectors(_Model):
    system_state: bool = True
    entity_name: bool = True
    existence: bool = True
    operational_status: bool = True
    self_referential: bool = True
    capability: bool = True


class Policies(_Model):
    unverified_claim_policy: PolicyName = "flag"
    contradiction_policy: PolicyName = "block"
    self_referential_policy: PolicyName = "flag"
    # An output longer than `performance.maxTextLength` is checked only up to there.
    truncated_output_policy: PolicyName = "ignore"


class AgentOverride(_Model):
    """Per-agent settings; `agent` is an id or a glob (`worker-*`). The first match wins."""

    agent: str = Field(min_length=1)
    profile: Literal["strict", "standard", "lenient", "disabled"] | None = None
    unverified_claim_policy: PolicyName | None = None
    contradiction_policy: PolicyName | None = None
    self_referential_policy: PolicyName | None = None
    truncated_output_policy: PolicyName | None = None
    additional_registries: tuple[str, ...] = ()
    exclude_registries: tuple[str, ...] = ()


class Hooks(_Model):
    """Accepted for compatibility with RFC-003 configs; claimwatch validates spans, not hooks."""

    message_sending: bool = True
    before_message_write: bool = True
    llm_output: bool = False


class Performance(_Model):
    max_eval_us: int = Field(default=8000, gt=0)
    max_claims_per_output: int = Field(default=50, gt=0)
    max_text_length: int = Field(default=10000, gt=0)
    regex_timeout_ms: float = Field(default=5.0, gt=0)


class ValidationConfig(_Model):
    """The output validation block (RFC §10.1) plus claimwatch's own settings."""

    enabled: bool = True
    min_text_length: int = Field(default=10, ge=0)
    exempt: tuple[str, ...] = ()
    trust_exempt_threshold: float = Field(default=90, ge=0)
    default_trust: float = Field(default=50, ge=0, le=100)
    # Policies come from the agent's trust tier (RFC §9.2); off: `defaults` for every agent.
    trust_scaling: bool = True
    block_min_confidence: float = Field(default=0.8, ge=0.0, le=1.0)
    fact_registries: tuple[FactRegistry, ...] = ()
    custom_detectors: tuple[CustomDetector, ...] = ()
    builtin_detectors: BuiltinDetectors = BuiltinDetectors()
    defaults: Policies = Policies()
    agent_overrides: tuple[AgentOverride, ...] = ()
    hooks: Hooks = Hooks()
    performance: Performance = Performance()

    @model_validator(mode="after")
    def _check_references(self) -> ValidationConfig:
        _unique("factRegistries", "id", [r.id for r in self.fact_registries])
        _unique("factRegistries", "fact id", [f.id for r in self.fact_registries for f in r.facts])
        _unique("customDetectors", "id", [d.id for d in self.custom_detectors])
        known = {r.id for r in self.fact_registries}
        for i, override in enumerate(self.agent_overrides):
            for key in ("additional_registries", "exclude_registries"):
                missing = [r for r in getattr(override, key) if r not in known]
                if missing:
                    raise ValueError(
                        f"agentOverrides[{i}].{to_camel(key)}: unknown registry {missing[0]!r}"
                        f" (known: {sorted(known) or 'none'})"
                    )
        return self


def _unique(key: str, what: str, ids: list[str]) -> None:
    seen: set[str] = set()
    for ident in ids:
        if ident in seen:
            raise ValueError(f"{key}: duplicate {what} {ident!r}")
        seen.add(ident)


class ClaimwatchConfig(BaseModel):
    """A whole claimwatch config file: validation plus how it runs in the trace stream."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    validation: ValidationConfig = Field(
        default_factory=ValidationConfig,
        validation_alias=AliasChoices("validation", "outputValidation", "output_validation"),
    )
    agents: AgentsConfig = AgentsConfig()
    annotations: AnnotationsConfig = AnnotationsConfig()
    processor: ProcessorConfig = ProcessorConfig()
    storage: StorageConfig = StorageConfig()
    receivers: Receivers = Receivers()
    exporters: Exporters = Exporters()
    service: ServiceConfig = ServiceConfig()
    # One section per registered check (`checks.tool_policy`, ...), validated by that check's own
    # model when the pipeline is built (claimwatch.checks.registry), so adding a check adds no field here.
    checks: dict[str, Any] = Field(default_factory=dict)

    @property
    def config_hash(self) -> str:
        """A short, stable hash of what decides verdicts, recorded beside every evaluation.

        Only the rules count (validation, agent rules, check sections): workers of one
        fleet that differ in database path, listen addresses or export settings judge
        alike and record the same hash."""
        rules = self.model_dump(mode="json", include={"validation", "agents", "checks"})
        canonical = json.dumps(rules, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def read_config_data(path: str | os.PathLike) -> dict:
    """The raw mapping in a config file (unwrapped), before validation; for layering overrides."""
    path = Path(path)
    try:
        raw_text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(str(path), [("", f"cannot read file: {exc.strerror or exc}")]) from None
    data = _unwrap(_parse(raw_text, path))
    if not isinstance(data, dict):
        raise ConfigError(str(path), [("", f"the top level must be a mapping, got {type(data).__name__}")])
    return data


def load_config_data(data: dict, source: str) -> ClaimwatchConfig:
    """Validate a raw mapping; errors name `source`."""
    return _validate(_unwrap(data), source)


def load_config(source: str | os.PathLike | dict | ClaimwatchConfig | None = None) -> ClaimwatchConfig:
    """Load a YAML or JSON config file (or a dict); raise ConfigError naming each bad key."""
    if isinstance(source, ClaimwatchConfig):
        return source
    if source is None:
        return ClaimwatchConfig()
    if isinstance(source, dict):
        return _validate(_unwrap(source), "<dict>")
    return _validate(read_config_data(source), str(source))


def _parse(raw_text: str, path: Path) -> Any:
    if path.suffix.lower() == ".json":
        try:
            return json.loads(raw_text) if raw_text.strip() else {}
        except json.JSONDecodeError as exc:
            raise ConfigError(
                str(path), [("", f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}")]
            ) from None
    import yaml

    try:
        data = yaml.safe_load(raw_text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1} column {mark.column + 1}" if mark else ""
        raise ConfigError(str(path), [("", f"not valid YAML{where}: {getattr(exc, 'problem', exc)}")]) from None
    return {} if data is None else data


def _unwrap(data: Any) -> Any:
    """Accept a bare validation block, or an RFC-style `plugins.<name>.outputValidation` file."""
    if not isinstance(data, dict):
        return data
    plugins = data.get("plugins")
    if isinstance(plugins, dict) and len(data) == 1:
        for plugin in plugins.values():
            if isinstance(plugin, dict) and "outputValidation" in plugin:
                return {"validation": plugin["outputValidation"]}
    top_level = {"validation", "outputValidation", "output_validation"} | set(ClaimwatchConfig.model_fields)
    if data and not (set(data) & top_level) and set(data) & _VALIDATION_KEYS:
        return {"validation": data}
    return data


_VALIDATION_KEYS = {name for name in ValidationConfig.model_fields} | {
    to_camel(name) for name in ValidationConfig.model_fields
}


def _validate(data: Any, source: str) -> ClaimwatchConfig:
    if not isinstance(data, dict):
        raise ConfigError(source, [("", f"the top level must be a mapping, got {type(data).__name__}")])
    try:
        return ClaimwatchConfig.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(source, [_describe(err, data) for err in exc.errors()]) from None


_TAGS = {"exists", "state", "name", "status", "capability"}


def _describe(err: dict, data: Any) -> tuple[str, str]:
    loc = list(err["loc"])
    # A tagged union puts the tag in the path ("value.state.state"); users never wrote it.
    loc = [part for i, part in enumerate(loc) if not (i > 0 and loc[i - 1] == "value" and part in _TAGS)]
    path = ""
    for part in loc:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    message = err["msg"].removeprefix("Value error, ")
    path, message = _merge_subpath(path, message)
    if err["type"] == "extra_forbidden":
        message = "unknown key"
    if err["type"] not in ("missing",) and "input" in err and not isinstance(err["input"], (dict, list)):
        message += f" (got {err['input']!r})"
    return path, message


_SUBPATH = re.compile(r"^([A-Za-z_][\w]*(?:\[\d+\])?(?:\.[A-Za-z_]\w*(?:\[\d+\])?)*): (.*)$", re.S)


def _merge_subpath(path: str, message: str) -> tuple[str, str]:
    """Our validators say "patterns[0]: bad ..."; fold that into the key path the user reads."""
    while (m := _SUBPATH.match(message)) is not None:
        sub, message = m.group(1), m.group(2)
        last = path.rsplit(".", 1)[-1]
        if last == sub.split("[", 1)[0]:
            path = path[: len(path) - len(last)].rstrip(".")
        path = f"{path}.{sub}" if path else sub
    return path, message


settings.describe(ClaimwatchConfig)
