"""The collector's core: received spans and logs in; checked, annotated, stored and forwarded out.

Receivers (HTTP, gRPC) decode requests on their own threads and hand spans
to `accept_traces` / `accept_logs`, which only buffer them. One background
worker releases assembled traces, runs the checks pipeline the in-process
processor runs, writes its annotations (and, for an enforced block, the
redaction of every span of the trace that carries the blocked text) into the
protobuf spans, stores rows and forwards the spans.
"""

from __future__ import annotations

import gc
import json
import logging
import threading
import time
from collections import Counter
from dataclasses import dataclass
from typing import Any

from claimwatch.checks.pipeline import ANCESTOR_KEYS, Pipeline
from claimwatch.checks.redact import redacted_attributes
from claimwatch.checks.trace import HeldTrace
from claimwatch.core.config import ClaimwatchConfig
from claimwatch.otel import attributes as A
from claimwatch.otel.records import SpanRecord
from claimwatch.store import AuditStore
from claimwatch.store.rows import record
from claimwatch.worker import BackgroundWorker

from .assembly import TraceBuffer
from .ledger import Ledger
from .otlp import (
    ReceivedSpan,
    add_event,
    annotate,
    any_value,
    attributes,
    build_request,
    encode_request,
    iter_spans,
    upsert_attributes,
)
from .prefilter import covers, is_plain, plain_wire

logger = logging.getLogger("claimwatch.collector")


def tune_gc() -> None:
    """Garbage collection for a process that checks spans (serve, consume, each worker).

    Every span allocates a handful of short-lived objects; at CPython's default thresholds the
    cyclic collector runs thousands of times a second for garbage that reference counting
    frees anyway (measured: about 15 us a span in a worker's path).
    """
    gc.set_threshold(50_000, 20, 20)


# gen_ai.choice is a response; gen_ai.assistant.message is chat history sent with a request
# (an earlier answer, already judged when it was given), so it is not read as output.
_LOG_OUTPUT_EVENTS = {A.GEN_AI_CHOICE_EVENT, A.GEN_AI_OPERATION_DETAILS_EVENT}
_TICK_S = 0.05
# Decoded spans take about six times their wire size in memory (measured 5.7x: protobuf
# objects, span records, attribute views); processor.maxBufferedBytes charges that estimate.
MEMORY_PER_WIRE_BYTE = 6


@dataclass(slots=True)
class LogItem:
    """A GenAI event log record, validated with its trace like a span, but not forwarded."""

    record: SpanRecord
    seq: int = 0
    size: int = 0  # wire bytes: a choice carries a whole output, bounded like spans


@dataclass(frozen=True, slots=True)
class Accepted:
    accepted: int
    rejected: int
    message: str = ""
    seq: int = 0  # this call's number in the engine's ledger (see durable_seq)


class Overloaded(Exception):
    """The processing backlog is full; the receiver answers 503/UNAVAILABLE with Retry-After."""


def refuse_over_bound(held: int, adding: int, limit: int, counts, what: str = "held spans") -> None:
    """Raise `Overloaded` when `adding` bytes on top of `held` would pass `limit` (processor.maxBufferedBytes).

    Something must be held to refuse: a request larger than the bound alone still passes."""
    if adding and held and held + adding > limit:
        counts["requests_refused_memory"] += 1
        raise Overloaded(f"{what} reached processor.maxBufferedBytes ({limit} bytes)")


class CollectorEngine:
    def __init__(self, config: ClaimwatchConfig, store: AuditStore | None = None, forwarder=None,
                 on_processed=None) -> None:
        self.config = config
        self.ledger = Ledger()
        # Called with {seq: items} after each processed batch; by default the engine settles its
        # own ledger once the store has written the batch's rows. A worker process passes its own.
        self._on_processed = on_processed or self._settle_after_write
        self.pipeline = Pipeline(config)
        self._prefilter = covers(self.pipeline.checks)  # plain spans skip the checks' `wants` (prefilter.py)
        self.store = store
        self.forwarder = forwarder
        # A forwarder that takes serialized requests gets them from the spans' own bytes (encode_request).
        self._encode = bool(getattr(forwarder, "accepts_encoded", False))
        p = config.processor
        self.buffer = TraceBuffer(p.decision_wait_ms / 1000, p.max_traces, p.max_spans)
        self.counts: Counter = Counter()
        self._lock = threading.Lock()
        self._work_spans = 0
        self._max_backlog = p.max_spans
        self._max_bytes = p.max_buffered_bytes
        self._buffered_bytes = 0
        self._last_eviction_log = 0.0
        self._worker = BackgroundWorker("claimwatch-engine", self._handle, tick_s=_TICK_S)

    # --- receiver side ---------------------------------------------------------------------------
    def accept_traces(self, spans: list[ReceivedSpan], seq: int | None = None) -> Accepted:
        """Buffer decoded spans; spans with invalid ids are rejected (partial success).

        `seq` is given by a parent that keeps the ledger (worker processes); otherwise
        the call gets the next number of this engine's ledger."""
        good, bad = [], 0
        for span in spans:
            if len(span.proto.trace_id) != 16 or len(span.proto.span_id) != 8:
                bad += 1
            else:
                good.append(span)
        seq = self._accept([(s.record.trace_id, s) for s in good], sum(s.size for s in good), seq)
        self.counts["spans_received"] += len(spans)
        self.counts["spans_rejected"] += bad
        message = f"{bad} span(s) rejected: trace_id must be 16 bytes and span_id 8 bytes" if bad else ""
        return Accepted(len(good), bad, message, seq)

    def accept_request(self, request, seq: int | None = None, wire: bytes | None = None) -> Accepted:
        """Buffer the spans of a decoded ExportTraceServiceRequest (what the receivers call; `wire`, the
        bytes it was decoded from, serves a worker pool and is not needed here)."""
        return self.accept_traces(list(iter_spans(request, is_plain if self._prefilter else None)), seq)

    def durable_seq(self) -> int:
        """Every accepted call up to this number is checked, stored and handed to the exporters."""
        return self.ledger.durable_seq()

    def wait_durable(self, seq: int, timeout: float | None = 30.0) -> bool:
        """Block until call `seq` and all before it are durable; False on timeout."""
        return self.ledger.wait_durable(seq, timeout)

    def accept_logs(self, request) -> Accepted:
        """Buffer GenAI event log records with their trace; other log records are ignored."""
        seen, found = output_logs(request)
        items = [(record_.trace_id, LogItem(record_, size=log.ByteSize())) for log, record_ in found]
        seq = self._accept(items, sum(item.size for _, item in items))
        self.counts["logs_received"] += seen
        self.counts.update(log_counts(record_ for _, record_ in found))
        return Accepted(seen, 0, "", seq)

    def accept_log_items(self, items: list[LogItem], seq: int) -> None:
        """Buffer log items a parent already decoded and numbered (worker processes)."""
        self._accept([(i.record.trace_id, i) for i in items], sum(i.size for i in items), seq)

    def admit(self, wire_bytes: int) -> None:
        """Refuse a request of `wire_bytes` before it is decoded when it would pass the memory bound.

        Decoding a request the bound then refuses cost more than the checks of what was
        held (a flood that ignores Retry-After slowed processing to a fifth)."""
        refuse_over_bound(self._buffered_bytes, wire_bytes * MEMORY_PER_WIRE_BYTE, self._max_bytes, self.counts)

    def _accept(self, items: list[tuple[str, object]], nbytes: int = 0, seq: int | None = None) -> int:
        nbytes *= MEMORY_PER_WIRE_BYTE
        with self._lock:
            # A parent that numbers the calls (worker processes) bounds them already.
            if seq is None and self._work_spans + self.buffer.span_count + len(items) > 2 * self._max_backlog:
                self.counts["requests_refused_overload"] += 1
                raise Overloaded("processing backlog is full")
            if seq is None:
                refuse_over_bound(self._buffered_bytes, nbytes, self._max_bytes, self.counts)
            self._buffered_bytes += nbytes
            if seq is None:
                seq = self.ledger.open(len(items), nbytes)
            for _, item in items:
                item.seq = seq
            evicted_before = self.buffer.evicted_traces
            released: list[tuple[str, list]] = []
            for trace_id, item in items:
                released.extend(self.buffer.add(trace_id or f"untraced:{id(item)}", item))
            self._queue_work(released)
            if self.buffer.evicted_traces > evicted_before:
                self._log_eviction()
        return seq

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

    def _queue_work(self, released: list[tuple[str, list]]) -> None:
        """Hand released traces to the worker as one piece of work (called with the lock held).

        One queue item per trace made `_handle` run, and forward, once per trace: a
        flush of a thousand held traces sent a thousand small requests downstream."""
        if released:
            self._work_spans += sum(len(items) for _, items in released)
            self._worker.put(released)

    # --- processing (the worker's thread) --------------------------------------------------------
    def _handle(self, batch: list) -> None:
        with self._lock:
            ready = self.buffer.ready()
            self._work_spans += sum(len(items) for _, items in ready)  # counted like queued work
            batch = [trace for released in batch for trace in released] + ready
        settled: Counter = Counter()
        forward: list[ReceivedSpan] = []
        for trace_id, items in batch:
            # Wire size before annotations grow the spans, charged as when accepted.
            size = sum(getattr(i, "size", 0) for i in items) * MEMORY_PER_WIRE_BYTE
            forward.extend(self._process(trace_id, items))
            settled.update(i.seq for i in items)
            with self._lock:
                self._work_spans -= len(items)
                self._buffered_bytes -= size
        if self.forwarder is not None and forward:
            encode = encode_request if self._encode else build_request
            for chunk in _forward_chunks(forward):  # few requests for the batch, not one per trace
                self.forwarder.submit(encode(chunk))
        if settled:
            self._on_processed(dict(settled))

    def _settle_after_write(self, counts: dict[int, int]) -> None:
        """Settle the ledger once the rows queued so far are on disk (a failed write never settles)."""
        if self.store is None:
            self.ledger.settle(counts)
            return
        self.store.after_written(lambda ok: self.ledger.settle(counts) if ok else None)
        with self._lock:
            idle = not self._work_spans and not self.buffer.span_count
        if idle:  # nothing held or queued: no rows to batch these with, so the flush interval only delays them
            self.store.write_soon()

    def _process(self, trace_id: str, items: list) -> list[ReceivedSpan]:
        """Check one trace; returns its spans, annotated, to forward."""
        try:
            spans = [i for i in items if isinstance(i, ReceivedSpan)]
            items = with_request_messages(items)
            with self._lock:
                index = dict(self.buffer.known(trace_id))
            index.update({s.record.span_id: s.record for s in spans})
            view = HeldTrace(index.get, (i.record for i in items))
            seen: dict = {}
            prefilter = self._prefilter
            # In the order the spans ended, as the SDK processor sees them: an exporter groups a request's
            # spans by instrumentation scope, so a framework step that repeats a model's answer (OpenLLMetry's
            # LlamaIndex steps) can come before the OpenAI instrumentation's span of the call that gave it.
            for item in sorted(items, key=_ended_at):
                if prefilter and type(item) is ReceivedSpan and self._plain(item):
                    continue
                self._check(item, view, seen)
            self._redact_trace(trace_id, spans)
            with self._lock:
                self.buffer.remember(trace_id, {s.record.span_id: _identity_view(s.record, s.wire is not None)
                                                for s in spans})
            self.counts["spans_processed"] += len(spans)
            return spans
        except Exception:
            self.counts["errors"] += 1
            logger.exception("could not process trace %s", trace_id)
            return []  # not forwarded: a failed redaction must not let blocked text travel

    @staticmethod
    def _plain(span: ReceivedSpan) -> bool:
        """No check wants the span (decided on its bytes, which are kept to forward it unchanged).

        Spans decoded by `accept_request` were decided as they were read (`iter_spans`)."""
        if span.plain is None:
            span.wire = plain_wire(span.proto)
            span.plain = span.wire is not None
        return span.plain

    def _check(self, item, view: HeldTrace, seen: dict) -> None:
        """One span's checks; a failure stays with this span."""
        try:
            outcome = self.pipeline.process(item.record, view, seen=seen)
            if outcome is None:
                return
            if isinstance(item, ReceivedSpan):
                attrs, events = self.pipeline.annotations(outcome)
                if item.record.attributes.keys().isdisjoint(attrs):
                    annotate(item.proto, attrs, events)  # the usual case: every annotation key is new
                else:  # something upstream annotated the span already: replace its keys
                    upsert_attributes(item.proto.attributes, attrs, True)
                    for event in events:
                        add_event(item.proto, event.name, event.attributes, event.time_ns)
            record(outcome, self.store, self.counts)
        except Exception:
            self.counts["span_errors"] += 1
            logger.exception("could not check span %s of trace %s", item.record.span_id, item.record.trace_id)

    def _redact_trace(self, trace_id: str, spans: list[ReceivedSpan]) -> None:
        """After an enforced block, no span of the trace may carry the blocked text, whatever the key."""
        blocked = self.pipeline.blocked_in(trace_id)
        if blocked is None:
            return
        texts, notice = blocked
        for span in spans:
            changed = False
            updates = redacted_attributes(span.record.attributes, texts, notice)
            if updates:
                upsert_attributes(span.proto.attributes, updates)
                changed = True
                span.wire = None  # its bytes changed
            for event in span.proto.events:
                event_updates = redacted_attributes(attributes(event.attributes), texts, notice)
                if event_updates:
                    upsert_attributes(event.attributes, event_updates)
                    changed = True
                    span.wire = None
            self.counts["redacted"] += changed

    # --- lifecycle -------------------------------------------------------------------------------
    def flush(self, timeout: float = 30.0) -> bool:
        """Release every buffered trace now and wait until it is processed, stored and forwarded."""
        deadline = time.monotonic() + timeout
        with self._lock:
            self._queue_work(self.buffer.drain())
        ok = self._worker.flush(timeout)
        if self.store is not None:
            ok = self.store.flush(max(0.1, deadline - time.monotonic())) and ok
        if self.forwarder is not None:
            ok = self.forwarder.flush(max(0.1, deadline - time.monotonic())) and ok
        return ok

    def close(self) -> None:
        self.flush()
        self._worker.close()
        if self.forwarder is not None:
            self.forwarder.close()
        if self.store is not None:
            self.store.close()

    def stats(self) -> dict:
        with self._lock:
            out = dict(self.counts)
            out.update(
                accepted_seq=self.ledger.last_seq,
                durable_seq=self.ledger.durable_seq(),
                buffered_traces=self.buffer.trace_count,
                buffered_spans=self.buffer.span_count,
                queue_depth=self._work_spans,
                buffered_bytes=self._buffered_bytes,
                evicted_traces=self.buffer.evicted_traces,
                late_spans=self.buffer.late_spans,
            )
        if self.forwarder is not None:
            out.update({f"forward_{k}": v for k, v in self.forwarder.counts.items()})
        if self.store is not None:
            out.update(self.store.counters())
        return out


_IDENTITY_KEY_SET = frozenset(ANCESTOR_KEYS)
# What one forwarded request may carry (spans' wire bytes before annotations): a batch releases
# every trace whose decision wait ended in one tick, and gRPC receivers (the OpenTelemetry
# Collector's among them) refuse messages over 4 MiB by default; annotations need the margin.
_FORWARD_BYTES = 2 << 20


def _forward_chunks(spans: list[ReceivedSpan]):
    """The batch's spans in runs of at most `_FORWARD_BYTES` (a larger span goes alone)."""
    chunk: list[ReceivedSpan] = []
    size = 0
    for span in spans:
        if chunk and size + span.size > _FORWARD_BYTES:
            yield chunk
            chunk, size = [], 0
        chunk.append(span)
        size += span.size
    if chunk:
        yield chunk


def _ended_at(item) -> int:
    return item.record.end_ns or item.record.start_ns or 0


def _identity_view(record_: SpanRecord, plain: bool = False) -> SpanRecord:
    """What a late span needs of an ancestor: its parent link and identity attributes only.

    A `plain` span (prefilter.py) carries no identity attribute: its keys are not read."""
    present = () if plain else _IDENTITY_KEY_SET.intersection(record_.attributes.keys())
    kept = {k: record_.attributes[k] for k in present} if present else {}
    return SpanRecord(record_.trace_id, record_.span_id, record_.parent_span_id, record_.name, kept, (), record_.resource)


def log_counts(records) -> Counter:
    """Counters of the GenAI event records kept from a logs request: outputs, and the request messages
    held to be joined to them."""
    counts: Counter = Counter()
    for record_ in records:
        counts["logs_with_messages" if record_.name in A.GEN_AI_INPUT_MESSAGE_EVENTS else "logs_with_output"] += 1
    return counts


def with_request_messages(items: list) -> list:
    """The trace's items with the request-message event records joined to their call's output.

    In events mode an instrumentation writes the messages of a request (system, user, the
    assistant's earlier tool calls, tool results) as log records of their own, beside the
    choice. Joined to the choice of the same call (same span id) as `gen_ai.input.messages`,
    they are what the grounding and actions checks read as the evidence the model saw and the
    tools it called; on their own they are not checked. Joining here, not per request, finds
    messages an exporter sent in an earlier batch than the choice (a call longer than its
    export interval)."""
    messages: dict[str, list] = {}
    kept = []
    for item in items:
        role = A.GEN_AI_INPUT_MESSAGE_EVENTS.get(item.record.name) if isinstance(item, LogItem) else None
        if role is None:
            kept.append(item)
        elif item.record.span_id:
            messages.setdefault(item.record.span_id, []).append(item.record)
    if not messages:
        return kept
    for item in kept:
        record_ = item.record
        found = messages.get(record_.span_id) if isinstance(item, LogItem) else None
        if found and A.GEN_AI_INPUT_MESSAGES not in record_.attributes:
            found.sort(key=lambda r: r.start_ns)  # stable: same-time messages keep their order
            joined = json.dumps([r.attributes[_REQUEST_MESSAGE] for r in found])
            item.record = record_._replace(attributes={**record_.attributes, A.GEN_AI_INPUT_MESSAGES: joined})
    return kept


_REQUEST_MESSAGE = "claimwatch.request_message"  # where a request-message record keeps its message


def output_logs(request) -> tuple[int, list[tuple[Any, SpanRecord]]]:
    """(log records seen, [(log record, span-like record)] of the GenAI output events among them, and of
    the request-message events to join to them)."""
    seen, found = 0, []
    for rl in request.resource_logs:
        resource = attributes(rl.resource.attributes)
        for sl in rl.scope_logs:
            for log in sl.log_records:
                seen += 1
                record_ = _log_record(log, resource)
                if record_ is not None:
                    found.append((log, record_))
    return seen, found


def _request_message(role: str, body: Any, attrs: dict) -> dict:
    """One request message in the chat shape the checks read: role, content, tool calls, tool call id."""
    body = body if isinstance(body, dict) else {"content": body}
    message: dict[str, Any] = {"role": str(body.get("role") or attrs.get("gen_ai.message.role") or role)}
    content = body.get("content")
    if content is not None:
        message["content"] = content if isinstance(content, str) else json.dumps(content)
    if isinstance(body.get("tool_calls"), list):
        message["tool_calls"] = body["tool_calls"]
    if role == "tool" and body.get("id") is not None:
        message["tool_call_id"] = str(body["id"])
    return message


def _log_record(log, resource: dict) -> SpanRecord | None:
    """A GenAI output event log record as a span-like record, or None for other logs."""
    attrs = attributes(log.attributes)
    name = log.event_name or str(attrs.get(A.GEN_AI_EVENT_NAME, ""))
    role = A.GEN_AI_INPUT_MESSAGE_EVENTS.get(name)
    if name not in _LOG_OUTPUT_EVENTS and role is None:
        return None
    body = any_value(log.body) if log.HasField("body") else None
    if isinstance(body, str) and body.lstrip()[:1] in "{[":
        try:  # some emitters write the event body as a JSON string
            body = json.loads(body)
        except ValueError:
            pass
    if role is not None:
        attrs = {A.GEN_AI_EVENT_NAME: name, _REQUEST_MESSAGE: _request_message(role, body, attrs)}
    if name == A.GEN_AI_CHOICE_EVENT and isinstance(body, dict):
        message = body.get("message") or {}
        message = dict(message) if isinstance(message, dict) else {}
        if body.get("tool_calls") and not message.get("tool_calls"):
            message["tool_calls"] = body["tool_calls"]  # some emitters put them beside the message
        attrs[A.GEN_AI_OUTPUT_MESSAGES] = [{"role": "assistant", **message}]
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
