"""`FrontDoor`: `serve` as the OTLP entrance of a Kafka consumer group, checking nothing itself.

With `exporters.kafka.publish: received` the collector publishes what its
receivers accept, one message per trace keyed as the OpenTelemetry Collector
keys them, and leaves the checks to `claimwatch consume` workers: the front
door and the workers scale separately, and no span is checked twice. A call is
durable once the broker acknowledged every message of it, so the spool keeps a
request until Kafka holds it. A request the broker refused is published again
after a pause (duplicates are harmless: the workers' rows are idempotent);
meanwhile its bytes count toward `processor.maxBufferedBytes`, so a broker
outage turns into 503s for the exporters, not into lost spans.

GenAI event log records are not published (the topic holds traces only); they
are counted as `logs_not_published`.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from claimwatch.checks.pipeline import Pipeline
from claimwatch.core.config import ClaimwatchConfig

from .engine import Accepted, refuse_over_bound
from .kafka import KafkaExporter
from .ledger import Ledger
from .otlp import build_request

logger = logging.getLogger("claimwatch.collector")
_RETRY_S = 1.0


class FrontDoor:
    """The engine's interface over a Kafka producer: accept, publish, settle when acknowledged."""

    def __init__(self, config: ClaimwatchConfig, store=None, exporter: KafkaExporter | None = None) -> None:
        self.config = config
        self.store = store
        self.forwarder = None
        self.ledger = Ledger()
        self.counts: Counter = Counter()
        self._exporter = exporter or KafkaExporter(config.exporters.kafka)
        self._max_bytes = config.processor.max_buffered_bytes
        self._pipeline: Pipeline | None = None
        self._closed = threading.Event()
        self._logs_warned = False
        self._poller = threading.Thread(target=self._poll, name="claimwatch-frontdoor", daemon=True)
        self._poller.start()

    @property
    def pipeline(self) -> Pipeline:
        """A pipeline for decisions asked over the API (hooks); spans are not checked here."""
        if self._pipeline is None:
            self._pipeline = Pipeline(self.config)
        return self._pipeline

    def admit(self, wire_bytes: int) -> None:
        """Refuse a request before it is decoded when unpublished requests fill the memory bound."""
        refuse_over_bound(self.ledger.open_bytes, wire_bytes, self._max_bytes, self.counts, "unpublished spans")

    def accept_request(self, request: ExportTraceServiceRequest, wire: bytes | None = None) -> Accepted:
        total = bad = 0
        for rs in request.resource_spans:
            for ss in rs.scope_spans:
                for span in ss.spans:
                    total += 1
                    bad += len(span.trace_id) != 16 or len(span.span_id) != 8
        if bad:
            request = _without_bad_ids(request)
        good = total - bad
        nbytes = request.ByteSize() if good else 0
        refuse_over_bound(self.ledger.open_bytes, nbytes, self._max_bytes, self.counts, "unpublished spans")
        seq = self.ledger.open(good, nbytes)
        if good:
            self._publish(request, seq, good)
        self.counts["spans_received"] += total
        self.counts["spans_rejected"] += bad
        message = f"{bad} span(s) rejected: trace_id must be 16 bytes and span_id 8 bytes" if bad else ""
        return Accepted(good, bad, message, seq)

    def accept_traces(self, spans) -> Accepted:
        return self.accept_request(build_request(spans))

    def accept_logs(self, request) -> Accepted:
        seen = sum(len(sl.log_records) for rl in request.resource_logs for sl in rl.scope_logs)
        self.counts["logs_received"] += seen
        self.counts["logs_not_published"] += seen
        if seen and not self._logs_warned:
            self._logs_warned = True
            logger.warning("exporters.kafka.publish is 'received': GenAI log records are not published "
                           "(the topic holds traces); send logs to a checking collector")
        return Accepted(seen, 0, "", self.ledger.open(0))

    def _publish(self, request: ExportTraceServiceRequest, seq: int, items: int) -> None:
        def done(ok: bool) -> None:
            if ok:
                self.counts["spans_published"] += items
                self.ledger.settle({seq: items})
            elif not self._closed.is_set():
                self.counts["publish_retries"] += 1
                timer = threading.Timer(_RETRY_S, self._publish, args=(request, seq, items))
                timer.daemon = True
                timer.start()

        self._exporter.publish(request, done)

    def _poll(self) -> None:
        while not self._closed.is_set():
            try:
                self._exporter.poll(0.1)
            except Exception:
                logger.exception("kafka producer poll failed")
                time.sleep(0.5)

    def durable_seq(self) -> int:
        return self.ledger.durable_seq()

    def wait_durable(self, seq: int, timeout: float | None = 30.0) -> bool:
        return self.ledger.wait_durable(seq, timeout)

    def flush(self, timeout: float = 30.0) -> bool:
        """Wait until the broker acknowledged everything accepted so far."""
        return self.ledger.wait_durable(self.ledger.last_seq, timeout)

    def close(self) -> None:
        self.flush(self.config.exporters.kafka.timeout_s)
        self._closed.set()
        self._poller.join(5)
        self._exporter.close()
        if self.store is not None:
            self.store.close()

    def stats(self) -> dict:
        out = dict(self.counts)
        out.update({k: v for k, v in self._exporter.counts.items()})
        out.update(accepted_seq=self.ledger.last_seq, durable_seq=self.ledger.durable_seq(),
                   buffered_bytes=self.ledger.open_bytes, queue_depth=self.ledger.open_items,
                   spans_processed=self.counts.get("spans_published", 0))
        return out


def _without_bad_ids(request: ExportTraceServiceRequest) -> ExportTraceServiceRequest:
    """A copy holding only spans with 16-byte trace ids and 8-byte span ids."""
    out = ExportTraceServiceRequest()
    for rs in request.resource_spans:
        o_rs = out.resource_spans.add(resource=rs.resource, schema_url=rs.schema_url)
        for ss in rs.scope_spans:
            o_ss = o_rs.scope_spans.add(scope=ss.scope, schema_url=ss.schema_url)
            o_ss.spans.extend(s for s in ss.spans if len(s.trace_id) == 16 and len(s.span_id) == 8)
    return out
