"""Settings a person sets from outside the config file: each declared once, here.

A `Setting` names a config key path, its environment variable, its command
flag and a one-line description; its default is the config model's own. From
this one table come the pydantic field descriptions, the `serve` flags, the
`CLAIMWATCH_*` environment layer, `check-config --explain` and the README's
settings table (a test fails when any of them disagrees).

Precedence, one rule everywhere: flag > environment > config file > default.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel
from pydantic.alias_generators import to_camel

from .runtime_config import StorageConfig


@dataclass(frozen=True, slots=True)
class Setting:
    key: str | None  # config key path (camelCase); None for a client-side setting
    env: str
    flag: str | None
    metavar: str
    description: str
    default: Any = None  # only for client-side settings; config settings take the model's


SETTINGS: tuple[Setting, ...] = (
    Setting("storage.path", "CLAIMWATCH_DB", "--db", "PATH", "the DuckDB audit database file"),
    Setting("receivers.otlp.protocols.http.endpoint", "CLAIMWATCH_OTLP_HTTP", "--otlp-http", "HOST:PORT",
            "OTLP/HTTP listen address"),
    Setting("receivers.otlp.protocols.grpc.endpoint", "CLAIMWATCH_OTLP_GRPC", "--otlp-grpc", "HOST:PORT",
            "OTLP/gRPC listen address"),
    Setting("service.api.endpoint", "CLAIMWATCH_API", "--api", "HOST:PORT",
            "listen address of the query, status and dashboard API"),
    Setting("service.api.token", "CLAIMWATCH_API_TOKEN", None, "TOKEN",
            "token the API requires for row data and ad-hoc SQL"),
    Setting("exporters.otlp.endpoint", "CLAIMWATCH_FORWARD_ENDPOINT", "--forward", "URL",
            "where checked spans are forwarded (OTLP); unset forwards nothing"),
    Setting("exporters.otlp.protocol", "CLAIMWATCH_FORWARD_PROTOCOL", None, "PROTOCOL",
            "forwarding protocol: http/protobuf or grpc"),
    Setting("exporters.kafka.brokers", "CLAIMWATCH_KAFKA_EXPORT", "--kafka-export", "HOST:PORT[,...]",
            "Kafka brokers checked spans are published to (topic exporters.kafka.topic, otlp_proto); unset publishes nothing"),
    Setting("exporters.kafka.publish", "CLAIMWATCH_KAFKA_PUBLISH", None, "WHAT",
            "checked: publish spans after the checks; received: publish them as received and check nothing "
            "here (a front door for consume workers)"),
    Setting("agents.defaultMode", "CLAIMWATCH_MODE", "--mode", "MODE",
            "audit (record only) or enforce (block) for agents no rule names"),
    Setting("processor.decisionWaitMs", "CLAIMWATCH_DECISION_WAIT_MS", None, "MS",
            "how long the collector holds a trace's spans for their ancestors"),
    Setting("processor.workers", "CLAIMWATCH_WORKERS", "--workers", "N",
            "processes that run the checks, whole traces each (0: one per CPU core)"),
    Setting("annotations.verbosity", "CLAIMWATCH_VERBOSITY", None, "LEVEL",
            "what is written onto spans: silent, info or debug"),
    Setting("storage.flushIntervalMs", "CLAIMWATCH_FLUSH_INTERVAL_MS", None, "MS",
            "the most time a stored row waits before it is written"),
    Setting("storage.export.path", "CLAIMWATCH_EXPORT", "--export", "DIR",
            "export closed time partitions to hive-partitioned Parquet here, for query --fleet"),
    Setting("storage.export.worker", "CLAIMWATCH_WORKER_NAME", "--worker-name", "NAME",
            "this worker's name in the export (default: host, database file and a hash of its path)"),
    Setting("storage.export.everyMs", "CLAIMWATCH_EXPORT_EVERY_MS", None, "MS",
            "how often closed partitions are exported"),
    Setting("storage.spool.enabled", "CLAIMWATCH_SPOOL", None, "BOOL",
            "spool accepted OTLP requests to disk before the 200, replayed after a crash"),
    Setting("storage.spool.path", "CLAIMWATCH_SPOOL_PATH", None, "DIR",
            "the spool's directory; unset: the database path + .spool"),
)

SERVER = Setting(None, "CLAIMWATCH_SERVER", "--server", "URL",
                 "a running collector's API, asked by query, status and policy commands",
                 default="http://127.0.0.1:8787")


def by_key() -> dict[str, Setting]:
    return {s.key: s for s in SETTINGS if s.key}


def default_of(model: type[BaseModel], key: str) -> Any:
    """The default of a dotted camelCase key path in a config model (None when it has none)."""
    field = _field(model, key)
    if field is None:
        raise KeyError(key)
    return None if field.is_required() else field.get_default(call_default_factory=True)


def describe(model: type[BaseModel]) -> None:
    """Write each setting's description onto its pydantic field (shown in the JSON schema)."""
    for s in SETTINGS:
        if s.key:
            owner, name = _owner(model, s.key)
            owner.model_fields[name].description = s.description
            owner.model_rebuild(force=True)
    model.model_rebuild(force=True)


def environment_layer(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """{key path: value} for every setting whose environment variable is set (and not empty)."""
    environ = os.environ if environ is None else environ
    return {s.key: environ[s.env] for s in SETTINGS if s.key and environ.get(s.env)}


def server_url(flag: str | None, environ: Mapping[str, str] | None = None) -> str:
    """--server, else CLAIMWATCH_SERVER, else the default API address."""
    environ = os.environ if environ is None else environ
    return (flag or environ.get(SERVER.env) or SERVER.default).rstrip("/")


def db_path(flag: str | None, environ: Mapping[str, str] | None = None) -> str:
    """--db, else CLAIMWATCH_DB, else storage.path's default: the same answer for every command."""
    environ = os.environ if environ is None else environ
    if flag or environ.get("CLAIMWATCH_DB"):
        return flag or environ["CLAIMWATCH_DB"]
    return StorageConfig.model_fields["path"].default


def explain(model: type[BaseModel]) -> str:
    """The settings table (markdown), as `check-config --explain` prints it and the README shows it."""
    lines = ["| key | environment | flag | default | what it sets |", "|---|---|---|---|---|"]
    for s in (*SETTINGS, SERVER):
        default = s.default if s.key is None else default_of(model, s.key)
        lines.append(
            f"| {f'`{s.key}`' if s.key else '(client)'} | `{s.env}` | {f'`{s.flag} {s.metavar}`' if s.flag else ''} "
            f"| {'' if default is None else f'`{default}`'} | {s.description} |"
        )
    return "\n".join(lines)


def _owner(model: type[BaseModel], key: str) -> tuple[type[BaseModel], str]:
    parts = key.split(".")
    for part in parts[:-1]:
        name = _name(model, part)
        annotation = model.model_fields[name].annotation
        model = _model_in(annotation)
    return model, _name(model, parts[-1])


def _field(model: type[BaseModel], key: str):
    try:
        owner, name = _owner(model, key)
    except (KeyError, TypeError):
        return None
    return owner.model_fields.get(name)


def _name(model: type[BaseModel], part: str) -> str:
    for name, field in model.model_fields.items():
        if part in (name, to_camel(name), field.alias, field.validation_alias):
            return name
    raise KeyError(part)


def _model_in(annotation) -> type[BaseModel]:
    """The config model inside a field's annotation (`OtlpExporter | None` -> OtlpExporter)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()):
        if isinstance(arg, type) and issubclass(arg, BaseModel):
            return arg
    raise TypeError(f"no config model in {annotation!r}")
