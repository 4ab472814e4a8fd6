"""`HeldTrace`: the TraceView the adapters hand to checks.

The collector builds one per assembled trace (every span it holds for the
trace); the SDK processor builds one from its live ancestors and a bounded
window of the trace's recently ended spans.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Iterator, Sequence

from ..otel.records import SpanRecord

_MAX_DEPTH = 64


class HeldTrace:
    """Spans of one trace: `lookup` finds any held span by id, `ended` are those a check may cite."""

    __slots__ = ("_ended", "_ends", "_lookup")

    def __init__(self, lookup: Callable[[str], SpanRecord | None], ended: Iterable[SpanRecord] = ()) -> None:
        self._lookup = lookup
        self._ended = sorted(ended, key=_end)
        self._ends: list[int] | None = None

    def get(self, span_id: str) -> SpanRecord | None:
        return self._lookup(span_id) if span_id else None

    def ancestors(self, span: SpanRecord) -> Iterator[SpanRecord]:
        parent, depth = span.parent_span_id, 0
        while parent and depth < _MAX_DEPTH:
            record = self._lookup(parent)
            if record is None:
                return
            yield record
            parent, depth = record.parent_span_id, depth + 1

    def before(self, span: SpanRecord) -> Sequence[SpanRecord]:
        if self._ends is None:
            self._ends = [_end(s) for s in self._ended]
        cut = bisect.bisect_right(self._ends, _end(span))
        return [s for s in self._ended[:cut] if s.span_id != span.span_id]

    def is_ancestor(self, maybe_ancestor_id: str, span: SpanRecord) -> bool:
        """True when the span with this id is `span`'s parent, grandparent, ..."""
        return any(a.span_id == maybe_ancestor_id for a in self.ancestors(span))


def _end(span: SpanRecord) -> int:
    return span.end_ns or span.start_ns
