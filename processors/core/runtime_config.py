"""Config sections for running claimwatch in the trace stream: agents, annotations, the processor,
storage, and the collector's receivers, exporters and API."""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import AfterValidator, BeforeValidator, Field

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
    # Memory of received spans held until processed, estimated as 6x their wire size (decoded
    # spans measured 5.7x); above it receivers answer 503 / UNAVAILABLE with Retry-After before
    # decoding the request (like the Collector's memory_limiter).
    max_buffered_bytes: int = Field(default=256 << 20, gt=0)
    # Worker processes that run the checks, each owning whole traces (routed by trace id).
    # 1 runs them on a thread of the collector process; 0 starts one per CPU core.
    workers: int = Field(default=1, ge=0, le=64)


_ENDPOINT = re.compile(r"^([A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?):(\d{1,5})$")


def _check_endpoint(value: str) -> str:
    """HOST:PORT with a host name or IPv4 address and a port 0-65535 (0 picks a free port)."""
    m = _ENDPOINT.match(value)
    if m is None or int(m.group(2)) > 65535:
        raise ValueError("must be HOST:PORT with a host name or IPv4 address and a port from 0 to 65535")
    return value


Endpoint = Annotated[str, AfterValidator(_check_endpoint)]


class HttpReceiver(_Model):
    enabled: bool = True
    endpoint: Endpoint = "127.0.0.1:4318"
    max_request_bytes: int = Field(default=64 << 20, gt=0)  # after decompression
    # Spans (or log records) one request may carry; more is answered 413. SDK batches are 512,
    # the Collector's batch processor sends 8192.
    max_spans_per_request: int = Field(default=50_000, gt=0)
    max_connections: int = Field(default=512, gt=0)  # lowered to fit the file-descriptor limit
    timeout_s: float = Field(default=30.0, gt=0)  # idle keep-alive and stalled reads


class GrpcReceiver(_Model):
    enabled: bool = True
    endpoint: Endpoint = "127.0.0.1:4317"
    max_request_bytes: int = Field(default=64 << 20, gt=0)
    max_spans_per_request: int = Field(default=50_000, gt=0)


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


_BROKER = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?(?::\d{1,5})?$")


def _brokers(value):
    """Kafka bootstrap brokers: a list or a comma-separated string of HOST[:PORT] (port 9092 when left out)."""
    items = [str(v).strip() for v in value] if isinstance(value, (list, tuple)) else str(value).split(",")
    items = [i.strip() for i in items if i.strip()]
    bad = [i for i in items if not _BROKER.match(i) or int(i.rpartition(":")[2] if ":" in i else 1) > 65535]
    if not items or bad:
        raise ValueError(f"must be HOST[:PORT] brokers, comma-separated or a list; bad: {bad or value!r}")
    return ",".join(items)


class KafkaExporter(_Model):
    """Checked spans published to a Kafka topic in the OpenTelemetry Collector kafka exporter's
    format (otlp_proto), one message per trace, for `claimwatch consume` workers (collector/kafka.py)."""

    brokers: Annotated[str, BeforeValidator(_brokers)]
    topic: str = Field(default="otlp_spans", min_length=1)
    # trace: keyed by the trace id in 32 lowercase hex characters (the Collector's partition_traces_by_id);
    # session: by the session id (gen_ai.conversation.id, session.id), so every trace of a session reaches
    # the same consumer and its tool-policy escalation count is whole; traces without one by trace id.
    partition_by: Literal["trace", "session"] = "trace"
    options: dict[str, str] = Field(default_factory=dict)  # librdkafka producer properties
    timeout_s: float = Field(default=10.0, gt=0)
    # checked: publish spans after this collector's checks; received: publish what the receivers
    # accept and check nothing here (serve as the front door of `consume` workers; collector/frontdoor.py).
    publish: Literal["checked", "received"] = "checked"


class Exporters(_Model):
    otlp: OtlpExporter | None = None
    kafka: KafkaExporter | None = None


class ApiConfig(_Model):
    endpoint: Endpoint = "127.0.0.1:8787"
    # Ad-hoc SQL over the API needs this token; named queries do not.
    token: str | None = None


class ServiceConfig(_Model):
    api: ApiConfig = ApiConfig()


class SpoolConfig(_Model):
    """The collector's spool of accepted OTLP requests (collector/spool.py): written before the
    200/OK, deleted once processed, replayed at start-up, so a kill -9 loses nothing acknowledged."""

    enabled: bool = False
    path: str | None = None  # a directory; default: the database path + ".spool"
    segment_bytes: int = Field(default=64 << 20, gt=0)  # a segment file is closed at this size (or after 1 s)
    # false: a record is in the OS when the 200 goes out (survives kill -9, not a power loss);
    # true: it is on disk (fsync, grouped across concurrent requests), at a cost per request.
    fsync: bool = False


class ExportConfig(_Model):
    """Closed time partitions of every table, copied to hive-partitioned Parquet for fleet-wide
    queries (`claimwatch query --fleet`); claimwatch/store/export.py."""

    path: str | None = None  # a directory or s3:// URL shared by the fleet; unset exports nothing
    # This worker's name in the layout (worker=<name>). Keep it stable for one database file:
    # default <host>-<db file stem>-<hash of its path>.
    worker: str | None = Field(default=None, pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
    every_ms: int = Field(default=60_000, gt=0)
    partition: Literal["day", "hour"] = "day"


class StorageConfig(_Model):
    """The DuckDB audit store."""

    enabled: bool = True
    path: str = "claimwatch.duckdb"
    batch_rows: int = Field(default=5000, gt=0)
    flush_interval_ms: int = Field(default=1000, gt=0)
    store_matched_text: bool = True
    # Credential-shaped text (API keys, tokens, passwords, keys in URLs) is masked in stored rows.
    mask_secrets: bool = True
    spool: SpoolConfig = SpoolConfig()
    export: ExportConfig = ExportConfig()
