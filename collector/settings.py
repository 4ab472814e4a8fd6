"""Collector settings: one written precedence rule, flags > CLAIMWATCH_* environment > file > defaults."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from claimwatch.core.config import ClaimwatchConfig, load_config_data, read_config_data

# environment variable -> key path in the config file
ENVIRONMENT = {
    "CLAIMWATCH_DB": "storage.path",
    "CLAIMWATCH_OTLP_HTTP": "receivers.otlp.protocols.http.endpoint",
    "CLAIMWATCH_OTLP_GRPC": "receivers.otlp.protocols.grpc.endpoint",
    "CLAIMWATCH_API": "service.api.endpoint",
    "CLAIMWATCH_API_TOKEN": "service.api.token",
    "CLAIMWATCH_FORWARD_ENDPOINT": "exporters.otlp.endpoint",
    "CLAIMWATCH_FORWARD_PROTOCOL": "exporters.otlp.protocol",
    "CLAIMWATCH_MODE": "agents.defaultMode",
    "CLAIMWATCH_DECISION_WAIT_MS": "processor.decisionWaitMs",
    "CLAIMWATCH_VERBOSITY": "annotations.verbosity",
}
DEFAULT_SERVER = "http://127.0.0.1:8787"


def resolve(path: str | None, flags: Mapping[str, Any], environ: Mapping[str, str] | None = None) -> ClaimwatchConfig:
    """The collector's config: the file (if any), then CLAIMWATCH_* variables, then command-line flags."""
    environ = os.environ if environ is None else environ
    data = read_config_data(path) if path else {}
    sources = [path or "defaults"]
    for variable, key in ENVIRONMENT.items():
        if environ.get(variable):
            _set(data, key, environ[variable])
            sources.append(variable)
    for key, value in flags.items():
        if value is not None:
            _set(data, key, value)
    return load_config_data(
        data, " + ".join(sources) + (" + flags" if any(v is not None for v in flags.values()) else "")
    )


def _set(data: dict, dotted: str, value: Any) -> None:
    node = data
    parts = dotted.split(".")
    for part in parts[:-1]:
        existing = node.get(part) or node.get(_snake(part))
        if not isinstance(existing, dict):
            existing = {}
        node.pop(_snake(part), None)
        node[part] = existing
        node = existing
    node.pop(_snake(parts[-1]), None)
    node[parts[-1]] = value


def _snake(name: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name)


def server_url(flag: str | None, environ: Mapping[str, str] | None = None) -> str:
    environ = os.environ if environ is None else environ
    return (flag or environ.get("CLAIMWATCH_SERVER") or DEFAULT_SERVER).rstrip("/")
