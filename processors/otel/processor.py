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
import queue
import threading
import time
import weakref
from collections import Counter, OrderedDict

from opentelemetry import trace
from opentelemetry.sdk.trace import Event, ReadableSpan, SpanProcessor

from ..core.config import ClaimwatchConfig, load_config
from ..core.model import ValidationResult
from ..core.validator import OutputValidator
from ..store import AuditStore
from ..worker import drain_forever
from .annotate import span_annotations
from .pipeline import REPLACEMENT_NOTICE, Evaluation, Guarded, Identity, Pipeline
from .records import SpanRecord, from_readable_span, hex_id

logger = logging.getLogger("claimwatch.processor")
_MAX_GUARDED = 10_000
_MAX_LIVE = 200_000
_MAX_SEEN = 10_000
_active: weakref.ref | None = None


class OutputBlocked(Exception):
    """Raised by `guard` when an enforcing agent's output is blocked. Carries the result and a notice."""

    def __init__(self, result: ValidationResult, notice: str) -> None:
        super().__init__(notice)
        self.result = result
        self.notice = notice


class ClaimwatchSpanProcessor(SpanProcessor):
    """Validates LLM output on spans and hands annotated copies to the processor it wraps.

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
        # SimpleQueue.put is C-level and lock-free for the caller (~0.1 us against ~1 us for
        # Queue.put_nowait): it is all the agent's span.end() pays. The bound is checked by hand.
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._queue_size = self.config.processor.queue_size
        self._live: dict[int, object] = {}
        self._guarded: OrderedDict[tuple[int, int], Guarded] = OrderedDict()
        self._guard_lock = threading.Lock()
        self._counts: Counter = Counter()
        self._seen: OrderedDict[str, Evaluation] = OrderedDict()  # recent outputs, for duplicate detection
        self._last_drop_log = 0.0
        self._shutdown = False
        self._worker = threading.Thread(target=self._run, name="claimwatch-processor", daemon=True)
        self._worker.start()
        _active = weakref.ref(self)

    def _open_store(self, store: AuditStore | bool | None) -> AuditStore | None:
        if isinstance(store, AuditStore):
            return store
        storage = self.config.storage
        if store is False or not storage.enabled:
            return None
        return AuditStore(
            storage.path, batch_rows=storage.batch_rows, flush_interval_s=storage.flush_interval_ms / 1000
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
        if self._queue.qsize() >= self._queue_size:
            self._drop(span)
        else:
            self._queue.put(span)

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        deadline = time.monotonic() + timeout_millis / 1000
        done = threading.Event()
        self._queue.put(done)
        ok = done.wait(max(0.0, deadline - time.monotonic()))
        ok = self._wrapped.force_flush(int(max(0.0, deadline - time.monotonic()) * 1000)) and ok
        if self._store is not None:
            ok = self._store.flush(max(0.0, deadline - time.monotonic())) and ok
        return ok

    def shutdown(self) -> None:
        if self._shutdown:
            return
        self.force_flush()
        self._shutdown = True
        self._queue.put(None)
        self._worker.join(timeout=30)
        self._wrapped.shutdown()
        if self._store is not None:
            self._store.close()

    def stats(self) -> dict[str, int]:
        """Counters: spans seen, evaluations by verdict, drops, errors, queue depth."""
        out = dict(self._counts)
        out["queue_depth"] = self._queue.qsize()
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

    def _run(self) -> None:
        drain_forever(self._queue, self._handle)

    def _handle(self, span: ReadableSpan) -> None:
        out = span
        try:
            self._counts["spans"] += 1
            ctx = span.context
            with self._guard_lock:
                guarded = self._guarded.pop((ctx.trace_id, ctx.span_id), None)
            evaluation = self._evaluate(from_readable_span(span), guarded)
            if evaluation is not None:
                out = self._annotated(span, evaluation)
                self._record(evaluation)
        except Exception:
            self._counts["errors"] += 1
            logger.exception("claimwatch could not process span %s", span.name)
        finally:
            self._live.pop(span.context.span_id, None)
        self._wrapped.on_end(out)

    def _evaluate(self, record: SpanRecord, guarded: Guarded | None) -> Evaluation | None:
        evaluation = self.pipeline.evaluate(record, self._ancestor, guarded, seen=self._seen)
        while len(self._seen) > _MAX_SEEN:
            self._seen.popitem(last=False)
        return evaluation

    def _ancestor(self, span_id_hex: str) -> SpanRecord | None:
        span = self._live.get(int(span_id_hex, 16))
        return from_readable_span(span) if span is not None else None

    def _record(self, ev: Evaluation) -> None:
        self.pipeline.record(ev, self._store, self._counts)

    def _annotated(self, span: ReadableSpan, ev: Evaluation) -> ReadableSpan:
        attrs, events = span_annotations(ev, self.config.annotations.verbosity)
        if not attrs and not events:
            return span
        merged = dict(span.attributes or {})
        merged.update(attrs)
        end = span.end_time or time.time_ns()
        new_events = [Event(e.name, e.attributes, e.time_ns or end) for e in events]
        return ReadableSpan(
            name=span.name,
            context=span.context,
            parent=span.parent,
            resource=span.resource,
            attributes=merged,
            events=(*span.events, *new_events),
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
            self._guarded[key] = guarded
            while len(self._guarded) > _MAX_GUARDED:
                self._guarded.popitem(last=False)

    def identity_of_current_span(self) -> Identity | None:
        span = trace.get_current_span()
        if not span.get_span_context().is_valid or not hasattr(span, "attributes"):
            return None
        return self.pipeline.identify(from_readable_span(span), self._ancestor)


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
    span_ctx = trace.get_current_span().get_span_context()
    if proc is not None:
        identity = proc.identity_of_current_span()
        if agent_id is not None:
            identity = Identity(agent_id, agent_id, identity.session_id if identity else None, None)
        identity = identity or Identity("unknown", None, None, None)
        score = trust if trust is not None else proc.pipeline.trust_for(identity)
        mode = mode or proc.pipeline.mode_for(identity)
        result = proc.pipeline.validator.validate(text, agent_id=identity.agent_id, trust=score)
        blocked = mode == "enforce" and result.verdict == "block"
        if span_ctx.is_valid:
            proc._remember((span_ctx.trace_id, span_ctx.span_id), Guarded(text, result, blocked, agent_id))
    else:
        result = (validator or _default_validator()).validate(text, agent_id=agent_id, trust=trust)
        blocked = (mode or "audit") == "enforce" and result.verdict == "block"
    if blocked:
        raise OutputBlocked(
            result,
            REPLACEMENT_NOTICE.format(trace_id=hex_id(span_ctx.trace_id, 32), span_id=hex_id(span_ctx.span_id, 16)),
        )
    return result


_default: OutputValidator | None = None


def _default_validator() -> OutputValidator:
    global _default
    if _default is None:
        _default = OutputValidator()
    return _default
