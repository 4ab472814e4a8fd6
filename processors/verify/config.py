"""The `checks.actions` config section: schemas per agent and per tool, verdicts, limits.

Every schema reference is loaded and compiled while the config validates, so
a missing file, a bad JSON Schema or an unimportable model is a config error
naming its key (`schemas[0].schema`, `toolSchemas.get_reservation`).
"""

from __future__ import annotations

from fnmatch import fnmatchcase
from typing import Any, Literal

from pydantic import AliasChoices, Field, model_validator

from ..core.config_base import _Model
from .schemas import CompiledSchema, SchemaError, compile_schema

BlockOn = Literal["contradicted", "unverified", "structure", "tool_result"]


class SchemaRule(_Model):
    """Outputs of agents matching `agent` (an id or a glob) are structured and must match `schema`."""

    agent: str = Field(default="*", min_length=1)
    schema_ref: str | dict[str, Any] = Field(validation_alias=AliasChoices("schema", "schemaRef", "schema_ref"))


class ActionsConfig(_Model):
    """Structured output and action-claim verification (issue 13)."""

    enabled: bool = True
    # Level 1: output schemas per agent glob, first match wins.
    schemas: tuple[SchemaRule, ...] = ()
    # Level 2: result schema per tool name.
    tool_schemas: dict[str, str | dict[str, Any]] = Field(default_factory=dict)
    # Relative schema files are read from here (default: the working directory).
    schema_dir: str | None = None
    # Levels on or off.
    structure: bool = True
    tool_results: bool = True
    claims: bool = True
    # In-process only: also check file claims on disk under this folder.
    base_path: str | None = None
    # An unverified claim flags when the agent's trust is below this (the untrusted and restricted tiers);
    # above it the claim is recorded in action_findings and passes.
    unverified_flag_below_trust: float = Field(default=40, ge=0, le=100)
    # Outcomes that block instead of flagging (enforced only in enforce mode). Blocking is opt-in.
    block_on: tuple[BlockOn, ...] = ()
    max_text_length: int = Field(default=20_000, gt=0)
    max_claims: int = Field(default=50, gt=0)
    max_actions: int = Field(default=500, gt=0)

    @model_validator(mode="after")
    def _compile_schemas(self) -> ActionsConfig:
        for i, rule in enumerate(self.schemas):
            _load(rule.schema_ref, self.schema_dir, f"schemas[{i}].schema")
        for name, ref in self.tool_schemas.items():
            _load(ref, self.schema_dir, f"toolSchemas.{name}")
        return self


def _load(ref: Any, schema_dir: str | None, key: str) -> CompiledSchema:
    try:
        return compile_schema(ref, schema_dir)
    except SchemaError as exc:
        raise ValueError(f"{key}: {exc}") from None


class SchemaRegistry:
    """Compiled schemas by agent glob and by tool name (compiled once; the config check already did the work)."""

    def __init__(self, config: ActionsConfig) -> None:
        self._rules = [(r.agent, compile_schema(r.schema_ref, config.schema_dir)) for r in config.schemas]
        self._tools = {name: compile_schema(ref, config.schema_dir) for name, ref in config.tool_schemas.items()}
        self._dir = config.schema_dir

    def for_agent(self, agent_id: str | None) -> CompiledSchema | None:
        agent = agent_id or ""
        for pattern, schema in self._rules:
            if pattern == agent or fnmatchcase(agent, pattern):
                return schema
        return None

    def for_tool(self, tool: str) -> CompiledSchema | None:
        return self._tools.get(tool)

    @property
    def has_tools(self) -> bool:
        return bool(self._tools)

    def named(self, ref: Any) -> CompiledSchema:
        """A schema given with the input (`verify --jsonl` lines): inline, a file, or a model; compiled once."""
        return compile_schema(ref, self._dir)
