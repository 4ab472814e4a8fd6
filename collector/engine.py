"""The collector's core: received spans and logs in; validated, annotated, stored and forwarded out.

Receivers (HTTP, gRPC) decode requests on their own threads and hand spans
to `accept_traces` / `accept_logs`, which only buffer them. One processing
thread releases assembled traces, runs the same pipeline the in-process
processor runs, writes annotations (and, for enforcing agents, redactions)
into the protobuf spans, stores rows and forwards the spans.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter, deque
from dataclasses import dataclass, replace

from claimwatch.core.config import ClaimwatchConfig
from claimwatch.otel import attributes as A
from claimwatch.otel.annotate import span_annotations
from claimwatch.otel.extract import redactions
from claimwatch.otel.pipeline import REPLACEMENT_NOTICE, Evaluation, Pipeline
from claimwatch.otel.records import SpanRecord
from claimwatch.store import AuditStore

from .assembly import TraceBuffer
from .otlp import ReceivedSpan, add_event, any_value, attributes, build_request, upsert_attributes

logger = logging.getLogger("claimwatch.collector")
_LOG_OUTPUT_EVENTS = {A.GEN_AI_CHOICE_EVENT, A.GEN_AI_ASSISTANT_MESSAGE_EVENT, A.GEN_AI_OPERATION_DETAILS_EVENT}


@dataclass(slots=True)
class LogItem:
    """A GenAI event log record, validated with its trace like a span, but not forwarded."""

    record: SpanRecord


@dataclass(frozen=True, slots=True)
class Accepted:
    accepted: int
    rejected: int
    message: str = ""


class Overloaded(Exception):
    """The processing backlog is full; the receiver answers 503/UNAVAILABLE with Retry-After."""


class CollectorEngine:
    def __init__(self, config: ClaimwatchConfig, store: AuditStore | None = None, forwarder=None) -> None:
        self.config = config
        self.pipeline = Pipeline(config)
        self.store = store
        self.forwarder = forwarder
        p = config.processor
        self.buffer = TraceBuffer(p.decision_wait_ms / 1000, p.max_traces, p.max_spans)
        self.counts: Counter = Counter()
        self._lock = threading.Lock()
        self._work: deque = deque()
        self._work_spans = 0
        self._max_backlog = p.max_spans
        self._wake = threading.Event()
        self._idle = threading.Condition(self._lock)
        self._busy = False
        self._stop = False
        self._last_eviction_log = 0.0
        self._thread = threading.Thread(target=self._run, name="claimwatch-engine", daemon=True)
        self._thread.start()

    # --- receiver side ---------------------------------------------------------------------------
    def accept_traces(self, spans: list[ReceivedSpan]) -> Accepted:
        """Buffer decoded spans; spans with invalid ids are rejected (partial success)."""
        good, bad = [], 0
        for span in spans:
            if len(span.proto.trace_id) != 16 or len(span.proto.span_id) != 8:
                bad += 1
            else:
                good.append(span)
        self._accept([(s.record.trace_id, s) for s in good])
        self.counts["spans_received"] += len(spans)
        self.counts["spans_rejected"] += bad
        message = f"{bad} span(s) rejected: trace_id must be 16 bytes and span_id 8 bytes" if bad else ""
        return Accepted(len(good), bad, message)

    def accept_logs(self, request) -> Accepted:
        """Buffer GenAI event log records with their trace; other log records are ignored."""
        items = []
        seen = 0
        for rl in request.resource_logs:
            resource = attributes(rl.resource.attributes)
            for sl in rl.scope_logs:
                for log in sl.log_records:
                    seen += 1
                    record = _log_record(log, resource)
                    if record is not None:
                        items.append((record.trace_id, LogItem(record)))
        self._accept(items)
        self.counts["logs_received"] += seen
        self.counts["logs_with_output"] += len(items)
        return Accepted(seen, 0)

    def _accept(self, items: list[tuple[str, object]]) -> None:
        with self._lock:
            if self._work_spans + self.buffer.span_count + len(items) > 2 * self._max_backlog:
                self.counts["requests_refused_overload"] += 1
                raise Overloaded("processing backlog is full")
            evicted_before = self.buffer.evicted_traces
            for trace_id, item in items:
                for released in self.buffer.add(trace_id or f"untraced:{id(item)}", item):
                    self._queue_work(released)
            if self.buffer.evicted_traces > evicted_before:
                self._log_eviction()
        self._wake.set()

    def _log_eviction(self) -> None:
        now = time.monotonic()
        if now - self._last_eviction_log > 10:
            self._last_eviction_log = now
            logger.warning(
                "trace buffer full (maxTraces %d, maxSpans %d): %d traces processed before their decision wait so far",
                self.buffer.max_traces,
                self.buffer.max_spans,
                self.buffer.evicted_traces,
            )

    # --- processing thread -----------------------------------------------------------------------
    def _queue_work(self, released: tuple[str, list]) -> None:
        self._work.append(released)
        self._work_spans += len(released[1])

    def _run(self) -> None:
        while not self._stop:
            with self._lock:
                for released in self.buffer.ready():
                    self._queue_work(released)
                work = list(self._work)
                self._work.clear()
                self._busy = bool(work)
                deadline = self.buffer.next_deadline()
            for trace_id, items in work:
                self._process(trace_id, items)
            with self._lock:
                self._work_spans -= sum(len(items) for _, items in work)
                self._busy = False
                self._idle.notify_all()
            if not work:
                timeout = 0.05 if deadline is None else max(0.0, min(0.05, deadline - time.monotonic()))
                self._wake.wait(timeout)
                self._wake.clear()

    def _process(self, trace_id: str, items: list) -> None:
        try:
            index = dict(self.buffer.known(trace_id))
            spans = [i for i in items if isinstance(i, ReceivedSpan)]
            index.update({s.record.span_id: s.record for s in spans})
            seen: dict = {}
            for item in items:
                self._evaluate(item, index.get, seen)
            with self._lock:
                self.buffer.remember(trace_id, {s.record.span_id: _identity_view(s.record) for s in spans})
            self.counts["spans_processed"] += len(spans)
            if self.forwarder is not None and spans:
                self.forwarder.submit(build_request(spans))
        except Exception:
            self.counts["errors"] += 1
            logger.exception("could not process trace %s", trace_id)

    def _evaluate(self, item, lookup, seen: dict) -> None:
        evaluation = self.pipeline.evaluate(item.record, lookup, seen=seen)
        if evaluation is None:
            return
        if isinstance(item, ReceivedSpan):
            if evaluation.mode == "enforce" and evaluation.result.verdict == "block":
                self._redact(item)
                evaluation = replace(evaluation, enforced=True)
            self._annotate(item, evaluation)
        self.pipeline.record(evaluation, self.store, self.counts)

    def _annotate(self, item: ReceivedSpan, evaluation: Evaluation) -> None:
        attrs, events = span_annotations(evaluation, self.config.annotations.verbosity)
        # Annotation keys are new unless something upstream annotated the span already.
        replace_existing = not item.record.attributes.keys().isdisjoint(attrs)
        upsert_attributes(item.proto.attributes, attrs, replace_existing)
        for event in events:
            add_event(item.proto, event.name, event.attributes, event.time_ns)

    def _redact(self, item: ReceivedSpan) -> None:
        notice = REPLACEMENT_NOTICE.format(trace_id=item.record.trace_id, span_id=item.record.span_id)
        span_updates, event_updates = redactions(item.record, notice)
        upsert_attributes(item.proto.attributes, span_updates)
        for event in item.proto.events:
            if event.name in event_updates:
                upsert_attributes(event.attributes, event_updates[event.name])
        self.counts["redacted"] += 1

    # --- lifecycle -------------------------------------------------------------------------------
    def flush(self, timeout: float = 30.0) -> bool:
        """Release every buffered trace now and wait until it is processed, stored and forwarded."""
        deadline = time.monotonic() + timeout
        with self._lock:
            for released in self.buffer.drain():
                self._queue_work(released)
        self._wake.set()
        with self._lock:
            while (self._work or self._busy) and time.monotonic() < deadline:
                self._idle.wait(0.05)
        ok = not self._work
        if self.store is not None:
            ok = self.store.flush(max(0.1, deadline - time.monotonic())) and ok
        if self.forwarder is not None:
            ok = self.forwarder.flush(max(0.1, deadline - time.monotonic())) and ok
        return ok

    def close(self) -> None:
        self.flush()
        self._stop = True
        self._wake.set()
        self._thread.join(timeout=10)
        if self.forwarder is not None:
            self.forwarder.close()
        if self.store is not None:
            self.store.close()

    def stats(self) -> dict:
        with self._lock:
            out = dict(self.counts)
            out.update(
                buffered_traces=self.buffer.trace_count,
                buffered_spans=self.buffer.span_count,
                queue_depth=self._work_spans,
                evicted_traces=self.buffer.evicted_traces,
                late_spans=self.buffer.late_spans,
            )
        if self.forwarder is not None:
            out.update({f"forward_{k}": v for k, v in self.forwarder.counts.items()})
        if self.store is not None:
            out.update(store_rows_written=self.store.rows_written, store_write_errors=self.store.write_errors)
        return out


_IDENTITY_KEYS = (
    A.GEN_AI_AGENT_ID,
    A.GEN_AI_AGENT_NAME,
    A.AGENT_NAME,
    A.GEN_AI_CONVERSATION_ID,
    A.SESSION_ID,
    A.AGENT_TRUST,
    A.TRACELOOP_SPAN_KIND,
    A.TRACELOOP_ENTITY_NAME,
)


_IDENTITY_KEY_SET = frozenset(_IDENTITY_KEYS)


def _identity_view(record: SpanRecord) -> SpanRecord:
    """What a late span needs of an ancestor: its parent link and identity attributes only."""
    present = _IDENTITY_KEY_SET.intersection(record.attributes.keys())
    kept = {k: record.attributes[k] for k in present} if present else {}
    return SpanRecord(
        record.trace_id, record.span_id, record.parent_span_id, record.name, kept, resource=record.resource
    )


def _log_record(log, resource: dict) -> SpanRecord | None:
    """A GenAI output event log record as a span-like record, or None for other logs."""
    attrs = attributes(log.attributes)
    name = log.event_name or str(attrs.get(A.GEN_AI_EVENT_NAME, ""))
    if name not in _LOG_OUTPUT_EVENTS:
        return None
    body = any_value(log.body) if log.HasField("body") else None
    if name == A.GEN_AI_CHOICE_EVENT and isinstance(body, dict):
        message = body.get("message") or {}
        attrs[A.GEN_AI_OUTPUT_MESSAGES] = [{"role": "assistant", **message}] if isinstance(message, dict) else []
    elif name == A.GEN_AI_ASSISTANT_MESSAGE_EVENT and isinstance(body, dict):
        attrs[A.GEN_AI_OUTPUT_MESSAGES] = [{"role": "assistant", **body}]
    span_id = log.span_id.hex() or None
    return SpanRecord(
        trace_id=log.trace_id.hex(),
        span_id=span_id or "",
        parent_span_id=span_id,
        name=name,
        attributes=attrs,
        resource=resource,
        start_ns=log.time_unix_nano,
        end_ns=log.time_unix_nano or log.observed_time_unix_nano,
    )
