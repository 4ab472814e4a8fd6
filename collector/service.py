"""`Collector`: the standalone claimwatch process, assembled from config and started or stopped whole."""

from __future__ import annotations

import functools
import logging
import threading
import time
from dataclasses import dataclass

from claimwatch.core.config import ClaimwatchConfig
from claimwatch.store import AuditStore
from claimwatch.store.export import store_exporter

from .api import ApiServer
from .engine import CollectorEngine
from .forward import build_forwarder
from .grpc_receiver import start_grpc
from .http_receiver import OtlpHttpServer
from .spool import Spool, replay
from .workers import WorkerPool, worker_count

logger = logging.getLogger("claimwatch.collector")
_WORKERS_READY_S = 120.0  # how long start-up waits for worker processes to build their checks


@dataclass(frozen=True, slots=True)
class Addresses:
    otlp_http: str | None
    otlp_grpc: str | None
    api: str


def split_endpoint(endpoint: str) -> tuple[str, int]:
    host, _, port = endpoint.rpartition(":")
    return host or "127.0.0.1", int(port)


class Collector:
    """Receivers, engine, store, forwarder and API. `start()` binds; `stop()` drains and closes."""

    def __init__(self, config: ClaimwatchConfig) -> None:
        self.config = config
        self.started_at = time.time()
        storage = config.storage
        self.store = AuditStore(
            storage.path,
            batch_rows=storage.batch_rows,
            flush_interval_s=storage.flush_interval_ms / 1000,
            mask_secrets=storage.mask_secrets,
        )
        kafka = config.exporters.kafka
        if kafka is not None and kafka.publish == "received":  # a front door: consume workers check
            from .frontdoor import FrontDoor

            self.forwarder = None
            self.engine = FrontDoor(config, self.store)
        elif worker_count(config) > 1:  # checks in worker processes; each forwards what it processed
            self.forwarder = None
            self.engine = WorkerPool(config, self.store)
            began = time.monotonic()
            if self.engine.wait_ready(_WORKERS_READY_S):
                logger.info("%d worker processes ready in %.1f s", worker_count(config), time.monotonic() - began)
            else:  # calls are held for them meanwhile (the memory bound applies): slow, not lost
                logger.warning("not every worker process was ready after %.0f s; receiving anyway", _WORKERS_READY_S)
        else:
            self.forwarder = build_forwarder(config)
            self.engine = CollectorEngine(config, self.store, self.forwarder)
        # Closed time partitions to Parquet for fleet-wide queries (storage.export; off by default).
        self.exporter = store_exporter(self.store, storage, config.processor.decision_wait_ms)
        self.spool: Spool | None = None  # opened by start() when storage.spool is on
        # Inputs besides the receivers (a KafkaSource of `claimwatch consume`): their stats() join the counters.
        self.sources: list = []
        self._http = self._grpc = self._api = None
        self._threads: list[threading.Thread] = []
        self.addresses: Addresses | None = None

    def start(self) -> Addresses:
        protocols = self.config.receivers.otlp.protocols
        http_addr = grpc_addr = None
        try:
            self._open_spool()
            if protocols.http.enabled:
                self._http = OtlpHttpServer(
                    split_endpoint(protocols.http.endpoint), self.engine, protocols.http.max_request_bytes, self.spool
                )
                http_addr = _address(self._http)
                self._serve(self._http, "claimwatch-otlp-http")
            if protocols.grpc.enabled:
                self._grpc, port = start_grpc(
                    protocols.grpc.endpoint, self.engine, protocols.grpc.max_request_bytes, self.spool
                )
                grpc_addr = f"{split_endpoint(protocols.grpc.endpoint)[0]}:{port}"
            self._api = ApiServer(split_endpoint(self.config.service.api.endpoint), self)
            self._serve(self._api, "claimwatch-api")
            if self.exporter is not None:
                self.exporter.start(self.config.storage.export.every_ms / 1000)
        except OSError:
            self.stop()
            raise
        self.addresses = Addresses(http_addr, grpc_addr, _address(self._api))
        return self.addresses

    def _open_spool(self) -> None:
        """Replay what a killed run acknowledged, before anything new is received; then keep the spool."""
        storage = self.config.storage
        if not storage.spool.enabled or self.spool is not None:
            return
        spool = storage.spool
        self.spool = Spool(spool.path or f"{storage.path}.spool", spool.segment_bytes, spool.fsync)
        replay(self.spool, self.engine)
        self.spool.start(self.engine.durable_seq)

    def _serve(self, server, name: str) -> None:
        thread = threading.Thread(target=server.serve_forever, name=name, daemon=True)
        thread.start()
        self._threads.append(thread)

    def stop(self) -> None:
        """Stop receiving, then process, store and forward everything already accepted."""
        if self._http is not None:
            self._http.shutdown()
            self._http.server_close()
        if self._grpc is not None:
            self._grpc.stop(grace=5).wait(10)
        if self._api is not None:
            self._api.cancel_queries()  # a long ad-hoc query must not hold up closing the store
        if self.exporter is not None:  # the open partition too, once everything accepted is stored
            self.engine.flush()
            self.exporter.stop(final=True)
        self.engine.close()
        if self.spool is not None:  # everything accepted is durable now, so its segments go
            self.spool.close(self.engine.durable_seq())
        if self._api is not None:
            self._api.shutdown()
            self._api.server_close()

    def status(self) -> dict:
        a = self.addresses
        return {
            "version": _version(),
            "uptime_s": round(time.time() - self.started_at, 1),
            "listening": {"otlp_http": a.otlp_http, "otlp_grpc": a.otlp_grpc, "api": a.api} if a else {},
            "database": self.store.path,
            "forwarding_to": self.config.exporters.otlp.endpoint if self.config.exporters.otlp else None,
            "publishing_to": _kafka_target(self.config),
            "counters": self.engine.stats() | (self.spool.stats() if self.spool is not None else {})
            | (self.exporter.stats() if self.exporter is not None else {})
            | {k: v for source in self.sources for k, v in source.stats().items()},
        }


def _kafka_target(config: ClaimwatchConfig) -> str | None:
    kafka = config.exporters.kafka
    return f"kafka://{kafka.brokers}/{kafka.topic}" if kafka else None


def _address(server) -> str:
    host, port = server.server_address[:2]
    return f"{host}:{port}"


@functools.cache  # reading the installed metadata takes about a millisecond: /api/status and /metrics ask often
def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("claimwatch")
    except PackageNotFoundError:
        return "dev"
