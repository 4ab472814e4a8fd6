"""Trace assembly: hold a trace's spans for `decisionWaitMs` so identity can come from ancestors.

Spans of one trace arrive across requests (children usually first). Like the
tail sampling processor, the buffer keeps each trace for a fixed wait after
its first span, then releases it whole. It is bounded in traces and spans:
past either bound the oldest trace is released early (counted, never
dropped). Released traces are remembered for a while, so a late span can
still find its ancestors.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import dataclass, field

from claimwatch.otel.records import SpanRecord

_RECENT_TRACES = 20_000
_RECENT_RECORDS = 200_000  # identity views of released spans kept for late arrivals


@dataclass(slots=True)
class PendingTrace:
    deadline: float
    items: list = field(default_factory=list)  # ReceivedSpan or LogItem


class TraceBuffer:
    """Not thread-safe: the engine guards it with its lock."""

    def __init__(self, decision_wait_s: float, max_traces: int, max_spans: int) -> None:
        self.wait = decision_wait_s
        self.max_traces = max_traces
        self.max_spans = max_spans
        self._pending: OrderedDict[str, PendingTrace] = OrderedDict()
        self._recent: OrderedDict[str, dict[str, SpanRecord]] = OrderedDict()
        self._recent_records = 0
        self.span_count = 0
        self.evicted_traces = 0
        self.late_spans = 0

    def add(self, trace_id: str, item, now: float | None = None) -> list[tuple[str, list]]:
        """Buffer one item; returns traces released early to stay within bounds."""
        now = time.monotonic() if now is None else now
        pending = self._pending.get(trace_id)
        if pending is None:
            if trace_id in self._recent:
                self.late_spans += 1
            pending = self._pending[trace_id] = PendingTrace(now + self.wait)
        pending.items.append(item)
        self.span_count += 1
        evicted = []
        while len(self._pending) > self.max_traces or (self.span_count > self.max_spans and len(self._pending) > 1):
            evicted.append(self._pop_oldest())
            self.evicted_traces += 1
        return evicted

    def ready(self, now: float | None = None) -> list[tuple[str, list]]:
        """Traces whose wait is over, oldest first."""
        now = time.monotonic() if now is None else now
        out = []
        while self._pending:
            pending = next(iter(self._pending.values()))
            if pending.deadline > now:
                break
            out.append(self._pop_oldest())
        return out

    def drain(self) -> list[tuple[str, list]]:
        """Every buffered trace, now (shutdown, flush)."""
        out = []
        while self._pending:
            out.append(self._pop_oldest())
        return out

    def next_deadline(self) -> float | None:
        return next(iter(self._pending.values())).deadline if self._pending else None

    def _pop_oldest(self) -> tuple[str, list]:
        trace_id, pending = self._pending.popitem(last=False)
        self.span_count -= len(pending.items)
        return trace_id, pending.items

    def remember(self, trace_id: str, records: dict[str, SpanRecord]) -> None:
        """Keep a released trace's spans for late arrivals to resolve their ancestors."""
        known = self._recent.pop(trace_id, {})
        self._recent_records -= len(known)
        known.update(records)
        self._recent[trace_id] = known
        self._recent_records += len(known)
        # Bounded by traces and by records: one huge trace must not hold memory for long.
        while len(self._recent) > _RECENT_TRACES or self._recent_records > _RECENT_RECORDS:
            _, dropped = self._recent.popitem(last=False)
            self._recent_records -= len(dropped)

    def known(self, trace_id: str) -> dict[str, SpanRecord]:
        return self._recent.get(trace_id, {})

    @property
    def trace_count(self) -> int:
        return len(self._pending)
