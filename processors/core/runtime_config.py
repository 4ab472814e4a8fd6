"""Config sections for running claimwatch in the trace stream: agents, annotations, the processor,
storage, and the collector's receivers, exporters and API."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from .config_base import _Model


class AgentRule(_Model):
    """Trust and mode for agents whose id or name matches `match` (a glob). The first match wins."""

    match: str = Field(min_length=1)
    trust: float | None = Field(default=None, ge=0, le=100)
    mode: Literal["audit", "enforce"] | None = None


class AgentsConfig(_Model):
    """Who an agent is trusted to be, and whether claimwatch audits or enforces for it."""

    default_mode: Literal["audit", "enforce"] = "audit"
    # An agent must not raise its own trust: span/resource `claimwatch.agent.trust` is
    # read only when this is true.
    trust_from_attributes: bool = False
    rules: tuple[AgentRule, ...] = ()


class AnnotationsConfig(_Model):
    """What is written onto spans: silent = nothing, info = verdict attributes and
    events, debug = also matched text and one event per claim."""

    verbosity: Literal["silent", "info", "debug"] = "info"


class ProcessorConfig(_Model):
    """The in-process queue, and trace assembly in the collector (like the tail sampling processor)."""

    queue_size: int = Field(default=8192, gt=0)
    decision_wait_ms: int = Field(default=2000, ge=0)  # how long a trace's spans are held for its ancestors
    max_traces: int = Field(default=50_000, gt=0)
    max_spans: int = Field(default=1_000_000, gt=0)


_ENDPOINT = r"^[^\s:/]*:\d{1,5}$"


class HttpReceiver(_Model):
    enabled: bool = True
    endpoint: str = Field(default="127.0.0.1:4318", pattern=_ENDPOINT)
    max_request_bytes: int = Field(default=64 << 20, gt=0)  # after decompression


class GrpcReceiver(_Model):
    enabled: bool = True
    endpoint: str = Field(default="127.0.0.1:4317", pattern=_ENDPOINT)
    max_request_bytes: int = Field(default=64 << 20, gt=0)


class OtlpProtocols(_Model):
    http: HttpReceiver = HttpReceiver()
    grpc: GrpcReceiver = GrpcReceiver()


class OtlpReceiver(_Model):
    protocols: OtlpProtocols = OtlpProtocols()


class Receivers(_Model):
    otlp: OtlpReceiver = OtlpReceiver()


class OtlpExporter(_Model):
    """Where annotated spans go next (another collector, a tracing backend)."""

    endpoint: str = Field(min_length=1)  # http(s)://host:port[/v1/traces] for http, host:port for grpc
    protocol: Literal["http/protobuf", "grpc"] = "http/protobuf"
    headers: dict[str, str] = Field(default_factory=dict)
    timeout_s: float = Field(default=10.0, gt=0)
    queue_batches: int = Field(default=256, gt=0)


class Exporters(_Model):
    otlp: OtlpExporter | None = None


class ApiConfig(_Model):
    endpoint: str = Field(default="127.0.0.1:8787", pattern=_ENDPOINT)
    # Ad-hoc SQL over the API needs this token; named queries do not.
    token: str | None = None


class ServiceConfig(_Model):
    api: ApiConfig = ApiConfig()


class StorageConfig(_Model):
    """The DuckDB audit store."""

    enabled: bool = True
    path: str = "claimwatch.duckdb"
    batch_rows: int = Field(default=5000, gt=0)
    flush_interval_ms: int = Field(default=1000, gt=0)
    store_matched_text: bool = True
