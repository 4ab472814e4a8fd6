"""Engine-neutral span records: what the pipeline reads, whatever delivered the span.

The SDK adapter builds them from `ReadableSpan`; the OTLP collector builds
them from protobuf. Attribute values are plain Python (str, numbers, lists,
dicts), so structured GenAI values arrive the same way from both.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import wraps
from typing import Any, NamedTuple, TypeVar

from .attributes import SERVICE_NAME


# NamedTuples rather than frozen dataclasses: just as immutable, and the collector builds two
# per received span, where a frozen dataclass's __init__ costs ~2.3 us more each time.
class EventRecord(NamedTuple):
    name: str
    attributes: Mapping[str, Any]
    time_ns: int = 0


_NO_ATTRIBUTES: Mapping[str, Any] = {}


class SpanRecord(NamedTuple):
    trace_id: str  # 32 hex digits
    span_id: str  # 16 hex digits
    parent_span_id: str | None
    name: str
    attributes: Mapping[str, Any]
    events: tuple[EventRecord, ...] = ()
    resource: Mapping[str, Any] = _NO_ATTRIBUTES
    start_ns: int = 0
    end_ns: int = 0
    status: str = "UNSET"  # the span status code: UNSET, OK or ERROR (a failed tool call)

    @property
    def service(self) -> str | None:
        value = self.resource.get(SERVICE_NAME)
        return str(value) if value is not None else None


def hex_id(value: int, width: int) -> str:
    return format(value, f"0{width}x")


def from_readable_span(span) -> SpanRecord:
    """A SpanRecord view of an SDK span (attributes are not copied)."""
    ctx = span.context
    parent = span.parent
    return SpanRecord(
        trace_id=hex_id(ctx.trace_id, 32),
        span_id=hex_id(ctx.span_id, 16),
        parent_span_id=hex_id(parent.span_id, 16) if parent is not None else None,
        name=span.name,
        attributes=span.attributes or {},
        events=tuple(EventRecord(e.name, e.attributes or {}, e.timestamp or 0) for e in span.events),
        resource=span.resource.attributes if span.resource is not None else {},
        start_ns=span.start_time or 0,
        end_ns=span.end_time or 0,
        status=span.status.status_code.name if span.status is not None else "UNSET",
    )


_T = TypeVar("_T")


def last_span_answer(question: Callable[[SpanRecord], _T]) -> Callable[[SpanRecord], _T]:
    """`question`, answered once for the span asked last: several checks ask the same question of each
    span in turn (may it carry an output? is it a tool call?), so one remembered answer spares the rest
    the work. The span itself is the key (by identity), so nothing stale is returned for another span."""
    last: list[Any] = [None, None]

    @wraps(question)
    def asked(span: SpanRecord) -> _T:
        span_seen, answer = last  # read both before either may change under another thread
        if span_seen is span:
            return answer
        answer = question(span)
        last[:] = (span, answer)
        return answer

    return asked
