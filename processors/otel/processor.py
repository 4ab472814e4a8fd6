"""`ClaimwatchSpanProcessor`: validation in an OpenTelemetry SDK pipeline, plus `guard` for enforcement.

The SDK hands `on_end` a frozen span, and an exception there propagates into
the agent's `span.end()`. So the processor wraps the user's own processor:
`on_end` only queues the span; a worker thread validates it, builds an
annotated copy and passes that copy to the wrapped processor. Blocking has
to happen before output is used, at the call site: `guard()` validates and
raises `OutputBlocked` for an enforcing agent, and the processor reuses the
guard's result for that span instead of validating twice.
"""

from __future__ import annotations

import logging
import threading
import time
import weakref
from collections import Counter, OrderedDict, deque

from opentelemetry import trace
from opentelemetry.sdk.trace import Event, ReadableSpan, SpanProcessor

from ..checks.base import CheckResult
from ..checks.output import block_reason
from ..checks.pipeline import Guarded, Identity, Outcome, Pipeline, enforces, notice_for
from ..checks.redact import redacted_attributes
from ..checks.trace import HeldTrace
from ..core.config import ClaimwatchConfig, load_config
from ..core.model import ValidationResult
from ..core.validator import OutputValidator
from ..store import AuditStore
from ..store.rows import record
from ..worker import BackgroundWorker
from .records import SpanRecord, from_readable_span, hex_id

logger = logging.getLogger("claimwatch.processor")
_MAX_GUARDED = 10_000
_MAX_LIVE = 200_000
_MAX_SEEN = 10_000
# The in-process evidence window: the most recently ended spans of the most recent traces.
_WINDOW_TRACES = 2_000
_WINDOW_SPANS = 256
_active: weakref.ref | None = None


class OutputBlocked(Exception):
    """Raised by `guard` when an enforcing agent's output is blocked. Carries the result and a notice."""

    def __init__(self, result: ValidationResult, notice: str) -> None:
        super().__init__(notice)
        self.result = result
        self.notice = notice


class ClaimwatchSpanProcessor(SpanProcessor):
    """Runs claimwatch's checks on spans and hands annotated copies to the processor it wraps.

    `provider.add_span_processor(ClaimwatchSpanProcessor(BatchSpanProcessor(exporter), config="claimwatch.yaml"))`
    """

    def __init__(
        self,
        wrapped: SpanProcessor,
        config: ClaimwatchConfig | str | dict | None = None,
        *,
        store: AuditStore | bool | None = None,
        validator: OutputValidator | None = None,
    ) -> None:
        global _active
        self.config = load_config(config)
        self.pipeline = Pipeline(self.config, validator)
        self._wrapped = wrapped
        self._store = self._open_store(store)
        self._live: dict[int, object] = {}
        self._guarded: OrderedDict[tuple[int, int], dict[str, Guarded]] = OrderedDict()
        self._guard_lock = threading.Lock()
        self._counts: Counter = Counter()
        self._seen: OrderedDict[tuple, Outcome] = OrderedDict()  # recent outputs, for repeats
        self._window: OrderedDict[str, deque] = OrderedDict()  # recently ended spans per trace
        self._last_drop_log = 0.0
        self._shutdown = False
        # The queue's put is all the agent's span.end() pays; the bound is checked there.
        self._worker = BackgroundWorker(
            "claimwatch-processor", self._handle_batch, max_items=self.config.processor.queue_size
        )
        _active = weakref.ref(self)

    def _open_store(self, store: AuditStore | bool | None) -> AuditStore | None:
        if isinstance(store, AuditStore):
            return store
        storage = self.config.storage
        if store is False or not storage.enabled:
            return None
        return AuditStore(
            storage.path,
            batch_rows=storage.batch_rows,
            flush_interval_s=storage.flush_interval_ms / 1000,
            mask_secrets=storage.mask_secrets,
        )

    @property
    def store(self) -> AuditStore | None:
        return self._store

    # --- SpanProcessor interface (agent's thread) --------------------------------------------
    def on_start(self, span, parent_context=None) -> None:
        if len(self._live) < _MAX_LIVE:
            self._live[span.context.span_id] = span
        self._wrapped.on_start(span, parent_context=parent_context)

    def on_end(self, span: ReadableSpan) -> None:
        if not self._worker.put(span):
            self._drop(span)

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        deadline = time.monotonic() + timeout_millis / 1000
        ok = self._worker.flush(max(0.0, deadline - time.monotonic()))
        ok = self._wrapped.force_flush(int(max(0.0, deadline - time.monotonic()) * 1000)) and ok
        if self._store is not None:
            ok = self._store.flush(max(0.0, deadline - time.monotonic())) and ok
        return ok

    def shutdown(self) -> None:
        if self._shutdown:
            return
        self._shutdown = True
        self._worker.close()
        self._wrapped.shutdown()
        if self._store is not None:
            self._store.close()

    def stats(self) -> dict[str, int]:
        """Counters: spans seen, evaluations by verdict, drops, errors, queue depth."""
        out = dict(self._counts)
        out["queue_depth"] = self._worker.qsize()
        return out

    # --- worker thread ------------------------------------------------------------------------
    def _drop(self, span: ReadableSpan) -> None:
        """Queue full: the span still goes downstream, unvalidated; count it and say so."""
        self._counts["dropped_unvalidated"] += 1
        self._live.pop(span.context.span_id, None)
        now = time.monotonic()
        if now - self._last_drop_log > 10:
            self._last_drop_log = now
            logger.warning(
                "claimwatch queue full: %d spans forwarded without validation so far",
                self._counts["dropped_unvalidated"],
            )
        self._wrapped.on_end(span)

    def _handle_batch(self, spans: list) -> None:
        for span in spans:
            self._handle(span)

    def _handle(self, span: ReadableSpan) -> None:
        out = span
        try:
            self._counts["spans"] += 1
            ctx = span.context
            with self._guard_lock:
                guarded = self._guarded.pop((ctx.trace_id, ctx.span_id), None)
            record_ = from_readable_span(span)
            outcome = self.pipeline.process(record_, self._trace_view(record_), guarded, seen=self._seen)
            while len(self._seen) > _MAX_SEEN:
                self._seen.popitem(last=False)
            self._hold(record_)
            out = self._applied(span, record_, outcome)
            if outcome is not None:
                record(outcome, self._store, self._counts)
        except Exception:
            self._counts["errors"] += 1
            logger.exception("claimwatch could not process span %s", span.name)
        finally:
            self._live.pop(span.context.span_id, None)
        self._wrapped.on_end(out)

    def _trace_view(self, record_: SpanRecord) -> HeldTrace:
        ended = self._window.get(record_.trace_id, ())
        by_id = {s.span_id: s for s in ended}

        def lookup(span_id: str) -> SpanRecord | None:
            live = self._live.get(int(span_id, 16))
            return from_readable_span(live) if live is not None else by_id.get(span_id)

        return HeldTrace(lookup, ended)

    def _hold(self, record_: SpanRecord) -> None:
        window = self._window.get(record_.trace_id)
        if window is None:
            window = self._window[record_.trace_id] = deque(maxlen=_WINDOW_SPANS)
            while len(self._window) > _WINDOW_TRACES:
                self._window.popitem(last=False)
        window.append(record_)

    def _applied(self, span: ReadableSpan, record_: SpanRecord, outcome: Outcome | None) -> ReadableSpan:
        """The copy that goes downstream: annotated, and redacted when a block in its trace is enforced."""
        attrs, events = self.pipeline.annotations(outcome) if outcome is not None else ({}, [])
        blocked = self.pipeline.blocked_in(record_.trace_id)
        merged = dict(span.attributes or {})
        old_events = list(span.events)
        if blocked is not None:
            texts, notice = blocked
            merged.update(redacted_attributes(merged, texts, notice))
            old_events = [_redacted_event(e, texts, notice) for e in old_events]
            self._counts["redacted"] += 1
        elif not attrs and not events:
            return span
        merged.update(attrs)
        end = span.end_time or time.time_ns()
        new_events = [Event(e.name, e.attributes, e.time_ns or end) for e in events]
        return ReadableSpan(
            name=span.name,
            context=span.context,
            parent=span.parent,
            resource=span.resource,
            attributes=merged,
            events=(*old_events, *new_events),
            links=span.links,
            kind=span.kind,
            status=span.status,
            start_time=span.start_time,
            end_time=span.end_time,
            instrumentation_scope=span.instrumentation_scope,
        )

    # --- guard support ------------------------------------------------------------------------
    def _remember(self, key: tuple[int, int], guarded: Guarded) -> None:
        with self._guard_lock:
            self._guarded.setdefault(key, {})[guarded.check] = guarded
            while len(self._guarded) > _MAX_GUARDED:
                self._guarded.popitem(last=False)

    def identity_of_current_span(self) -> Identity | None:
        span = trace.get_current_span()
        if not span.get_span_context().is_valid or not hasattr(span, "attributes"):
            return None
        record_ = from_readable_span(span)
        return self.pipeline.identify(record_, self._trace_view(record_).get)


def _redacted_event(event, texts, notice):
    updates = redacted_attributes(event.attributes or {}, texts, notice)
    if not updates:
        return event
    return Event(event.name, {**event.attributes, **updates}, event.timestamp)


def active_processor() -> ClaimwatchSpanProcessor | None:
    """The most recently created processor, which `guard` uses by default."""
    return _active() if _active is not None else None


def guard(
    text: str,
    agent_id: str | None = None,
    *,
    trust: float | None = None,
    processor: ClaimwatchSpanProcessor | None = None,
    validator: OutputValidator | None = None,
    mode: str | None = None,
) -> ValidationResult:
    """Validate `text` where the agent is about to use it; raise `OutputBlocked` to stop it.

    With a processor installed, identity, trust and mode come from its config
    (mode per agent glob) and the result is attached to the current span, so
    the processor records it (with `claimwatch.enforced=true` when it blocked)
    instead of validating again. In audit mode this never raises.
    """
    proc = processor or active_processor()
    span = trace.get_current_span()
    span_ctx = span.get_span_context()
    trace_id, span_id = hex_id(span_ctx.trace_id, 32), hex_id(span_ctx.span_id, 16)
    if proc is not None:
        identity = proc.identity_of_current_span()
        if agent_id is not None:
            identity = Identity(agent_id, agent_id, identity.session_id if identity else None, None)
        identity = identity or Identity("unknown", None, None, None)
        score = trust if trust is not None else proc.pipeline.trust_for(identity)
        mode = mode or proc.pipeline.mode_for(identity)
        record_ = SpanRecord(trace_id, span_id, None, "guard", {})
        checked = proc.pipeline.judge("output", record_, identity, score, mode, text=text)
        if checked is None:  # the output check is switched off
            return _default_validator().validate("", agent_id=identity.agent_id)
        result, blocked = checked.detail, enforces(mode, checked.verdict)
        reasons = (checked,)
        if span_ctx.is_valid:
            proc._remember((span_ctx.trace_id, span_ctx.span_id), Guarded("output", checked, blocked, text, agent_id))
    else:
        result = (validator or _default_validator()).validate(text, agent_id=agent_id, trust=trust)
        blocked = enforces(mode or "audit", result.verdict)
        reasons = (CheckResult("output", result.verdict, block_reason=block_reason(result.violations)),)
    if blocked:
        raise OutputBlocked(result, notice_for(reasons, trace_id, span_id))
    return result


_default: OutputValidator | None = None


def _default_validator() -> OutputValidator:
    global _default
    if _default is None:
        _default = OutputValidator()
    return _default
