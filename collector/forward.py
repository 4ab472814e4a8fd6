"""Forwarding annotated spans downstream over OTLP (HTTP protobuf or gRPC), off the processing thread.

A bounded queue of requests and a few retries with backoff, like a
collector's sending queue: a slow or absent downstream must not stall
validation. What cannot be delivered is counted and logged. The engine hands
over one request per processed batch (at most 2 MiB of spans), sent over a
kept-alive connection: one POST per trace would cost more than the checks.
"""

from __future__ import annotations

import http.client
import logging
import time
import urllib.parse
from collections import Counter

from claimwatch.core.config import ClaimwatchConfig
from claimwatch.core.runtime_config import OtlpExporter
from claimwatch.worker import BackgroundWorker

logger = logging.getLogger("claimwatch.forward")
_RETRIES = 3


class Forwarder:
    def __init__(self, config: OtlpExporter) -> None:
        self.config = config
        self.counts: Counter = Counter()
        self._send = self._grpc_sender() if config.protocol == "grpc" else self._http_sender()
        # Over HTTP the engine may hand over requests it serialized itself (otlp.EncodedRequest).
        self.accepts_encoded = config.protocol != "grpc"
        self._worker = BackgroundWorker("claimwatch-forward", self._deliver_all, max_items=config.queue_batches)

    def submit(self, request) -> None:
        if not self._worker.put(request):
            self.counts["dropped_batches"] += 1
            logger.warning("forward queue full; a batch of spans was not forwarded")

    def flush(self, timeout: float = 30.0) -> bool:
        return self._worker.flush(timeout)

    def close(self) -> None:
        self._worker.close(10)

    def _deliver_all(self, requests: list) -> None:
        for request in requests:
            self._deliver(request)

    def _deliver(self, request) -> None:
        payload = request.SerializeToString()
        for attempt in range(_RETRIES):
            try:
                self._send(payload, request)
                self.counts["batches"] += 1
                self.counts["spans"] += _span_count(request)
                return
            except Exception as exc:
                if attempt == _RETRIES - 1:
                    self.counts["failed_batches"] += 1
                    logger.error("could not forward spans to %s: %s", self.config.endpoint, exc)
                    return
                time.sleep(0.2 * 2**attempt)

    def _http_sender(self):
        url = self.config.endpoint.rstrip("/")
        if not url.startswith(("http://", "https://")):
            url = f"http://{url}"
        if not url.endswith("/v1/traces"):
            url += "/v1/traces"
        parts = urllib.parse.urlsplit(url)
        make = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
        headers = {"Content-Type": "application/x-protobuf", **self.config.headers}
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        conn: list = [None]  # kept alive between requests; reopened after an error

        def send(payload: bytes, _request) -> None:
            if conn[0] is None:
                conn[0] = make(parts.hostname, parts.port, timeout=self.config.timeout_s)
            try:
                conn[0].request("POST", path, body=payload, headers=headers)
                response = conn[0].getresponse()
                response.read()
            except (OSError, http.client.HTTPException):
                conn[0].close()
                conn[0] = None
                raise
            if response.status >= 300:
                raise OSError(f"HTTP {response.status} {response.reason}")

        return send

    def _grpc_sender(self):
        import grpc
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2_grpc import TraceServiceStub

        target = self.config.endpoint.removeprefix("http://").removeprefix("https://")
        stub = TraceServiceStub(grpc.insecure_channel(target))
        metadata = tuple(self.config.headers.items())

        def send(_payload: bytes, request) -> None:
            stub.Export(request, timeout=self.config.timeout_s, metadata=metadata)

        return send


def _span_count(request) -> int:
    count = getattr(request, "span_count", None)  # an EncodedRequest knows it
    if count is None:
        count = sum(len(ss.spans) for rs in request.resource_spans for ss in rs.scope_spans)
    return count


def build_forwarder(config: ClaimwatchConfig):
    """What the engine hands processed traces to: the OTLP forwarder, the Kafka exporter, both, or None."""
    forwarders = []
    if config.exporters.otlp is not None:
        forwarders.append(Forwarder(config.exporters.otlp))
    if config.exporters.kafka is not None:
        from .kafka import KafkaExporter

        forwarders.append(KafkaExporter(config.exporters.kafka))
    if len(forwarders) > 1:
        from .kafka import Fanout

        return Fanout(forwarders)
    return forwarders[0] if forwarders else None
