"""Level 1 and 2: output and tool-result schemas, compiled once, errors in the seed's categories.

A schema reference is a JSON Schema file (`schemas/report.json`, YAML too) or
a pydantic model by import path (`myagent.contracts:Report`). JSON Schemas are
compiled to Python code by `fastjsonschema` once, when the config loads (a
compile costs milliseconds, a validation microseconds); remote `$ref`s are
refused so loading a schema never reaches the network. A reference that does
not load is a `SchemaError` naming the problem; the config layer adds the key.

Validation reports the first problem a JSON Schema finds (fastjsonschema
stops there) and every problem a pydantic model finds, each with a category
(`missing_field`, `invalid_type`, `invalid_value`, `unexpected_field`,
`invalid_json`, `schema_mismatch`) and a JSON path (`$.claims[0].path`).
"""

from __future__ import annotations

import importlib
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import fastjsonschema

_FENCED_JSON = re.compile(r"^[ \t]*```[ \t]*(?:json|JSON)?[ \t]*\n(.*?)\n[ \t]*```[ \t]*$", re.S | re.M)
_MODEL_REF = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*$")
_RULE_CATEGORIES = {
    "required": "missing_field",
    "type": "invalid_type",
    "additionalProperties": "unexpected_field",
    "propertyNames": "unexpected_field",
}


class SchemaError(ValueError):
    """A schema reference could not be loaded or compiled."""


@dataclass(frozen=True, slots=True)
class SchemaProblem:
    """One way a value fails its schema."""

    category: str
    path: str  # JSON path, `$` for the whole value
    message: str


@dataclass(frozen=True, slots=True)
class CompiledSchema:
    """A schema ready to validate: `check(value)` returns the problems (empty when valid)."""

    ref: str
    check: Callable[[Any], list[SchemaProblem]]


def _no_remote(uri: str):
    raise SchemaError(f"remote $ref {uri!r} is not fetched; inline it or use a local file")


_HANDLERS = {"http": _no_remote, "https": _no_remote, "ftp": _no_remote, "file": _no_remote}


def compile_schema(ref: str | Mapping[str, Any], base_dir: str | Path | None = None) -> CompiledSchema:
    """Load and compile a schema reference (file path, `module:Model`, or an inline JSON Schema mapping)."""
    if isinstance(ref, Mapping):
        return _compile_inline(json.dumps(ref, sort_keys=True))
    if not isinstance(ref, str) or not ref.strip():
        raise SchemaError("a schema reference must be a file path or module:Model")
    ref = ref.strip()
    path = Path(ref) if base_dir is None or Path(ref).is_absolute() else Path(base_dir) / ref
    if _MODEL_REF.match(ref) and not path.exists():
        return _compile_model(ref)
    try:
        stat = path.stat()
    except OSError as exc:
        raise SchemaError(f"cannot read schema file {str(path)!r}: {exc.strerror or exc}") from None
    return _compile_file(str(path.resolve()), stat.st_mtime_ns)


@lru_cache(maxsize=256)
def _compile_file(path: str, mtime_ns: int) -> CompiledSchema:
    """Compiled once per file version: the config check and the check's factory share the result."""
    text = Path(path).read_text(encoding="utf-8")
    try:
        if path.endswith((".yaml", ".yml")):
            import yaml

            document = yaml.safe_load(text)
        else:
            document = json.loads(text)
    except ValueError as exc:  # json.JSONDecodeError and yaml.YAMLError both derive from it or Exception
        raise SchemaError(f"schema file {path!r} is not valid JSON: {exc}") from None
    except Exception as exc:
        raise SchemaError(f"schema file {path!r} is not valid YAML: {exc}") from None
    return CompiledSchema(path, _json_schema_check(document, path))


@lru_cache(maxsize=256)
def _compile_inline(canonical: str) -> CompiledSchema:
    return CompiledSchema("<inline>", _json_schema_check(json.loads(canonical), "<inline schema>"))


def _json_schema_check(document: Any, where: str) -> Callable[[Any], list[SchemaProblem]]:
    if not isinstance(document, (Mapping, bool)):
        raise SchemaError(f"{where}: a JSON Schema must be an object, got {type(document).__name__}")
    try:
        validate = fastjsonschema.compile(document, handlers=_HANDLERS, use_formats=True)
    except SchemaError:
        raise
    except fastjsonschema.JsonSchemaDefinitionException as exc:
        raise SchemaError(f"{where}: invalid JSON Schema: {exc}") from None
    except Exception as exc:  # a broken $ref, an unsupported draft, ...
        raise SchemaError(f"{where}: cannot compile: {exc}") from None

    def check(value: Any) -> list[SchemaProblem]:
        try:
            validate(value)
        except fastjsonschema.JsonSchemaValueException as exc:
            return [_problem_from_fastjsonschema(exc)]
        return []

    return check


def _problem_from_fastjsonschema(exc) -> SchemaProblem:
    rule = exc.rule or ""
    # fastjsonschema starts every path with "data" and spells array indices as digit strings.
    path = [int(p) if isinstance(p, str) and p.isdigit() else p for p in list(exc.path or [])[1:]]
    message = exc.message.replace("data.", "$.").replace("data ", "value ", 1)
    if rule == "required" and isinstance(exc.value, Mapping) and isinstance(exc.rule_definition, list):
        missing = [key for key in exc.rule_definition if key not in exc.value]
        if missing:
            return SchemaProblem("missing_field", json_path([*path, missing[0]]), f"missing required field {missing[0]!r}")
    category = _RULE_CATEGORIES.get(rule, "invalid_value" if rule else "schema_mismatch")
    return SchemaProblem(category, json_path(path), message)


def _compile_model(ref: str) -> CompiledSchema:
    module_name, _, attr = ref.partition(":")
    try:
        target: Any = importlib.import_module(module_name)
    except Exception as exc:
        raise SchemaError(f"cannot import {module_name!r} for schema {ref!r}: {exc}") from None
    for part in attr.split("."):
        target = getattr(target, part, None)
    from pydantic import BaseModel, ValidationError

    if not (isinstance(target, type) and issubclass(target, BaseModel)):
        raise SchemaError(f"{ref!r} is not a pydantic model class")
    model = target

    def check(value: Any) -> list[SchemaProblem]:
        try:
            model.model_validate(value)
        except ValidationError as exc:
            return [_problem_from_pydantic(err) for err in exc.errors()]
        return []

    return CompiledSchema(ref, check)


def _problem_from_pydantic(err: Mapping[str, Any]) -> SchemaProblem:
    kind = err.get("type", "")
    if kind == "missing":
        category = "missing_field"
    elif kind == "extra_forbidden":
        category = "unexpected_field"
    elif kind.endswith("_type") or kind in ("model_attributes_type", "dict_type", "list_type"):
        category = "invalid_type"
    else:
        category = "invalid_value"
    return SchemaProblem(category, json_path(list(err.get("loc", ()))), str(err.get("msg", "")))


def json_path(parts: list[Any]) -> str:
    """`["claims", 0, "path"]` -> `$.claims[0].path`."""
    out = "$"
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def parse_structured(text: str) -> tuple[Any, SchemaProblem | None]:
    """The JSON value of an output: the whole text, else its first fenced JSON block."""
    stripped = text.strip()
    if stripped[:1] in ("{", "["):
        try:
            return json.loads(stripped), None
        except ValueError as exc:
            whole_error = exc
    else:
        whole_error = None
    block = _FENCED_JSON.search(text)
    if block is not None:
        try:
            return json.loads(block.group(1)), None
        except ValueError as exc:
            return None, SchemaProblem("invalid_json", "$", f"the fenced JSON block does not parse: {exc}")
    if whole_error is not None:
        return None, SchemaProblem("invalid_json", "$", f"the output does not parse as JSON: {whole_error}")
    return None, SchemaProblem("invalid_json", "$", "the output holds no JSON (whole text or fenced block)")


def parse_value(value: Any) -> tuple[Any, SchemaProblem | None]:
    """A tool result as a JSON value: decoded when it is a JSON string, as is when already structured."""
    if isinstance(value, str):
        stripped = value.strip()
        try:
            return json.loads(stripped), None
        except ValueError as exc:
            return None, SchemaProblem("invalid_json", "$", f"the result does not parse as JSON: {exc}")
    return value, None
