"""`Ledger`: which accepted requests are durable, as one number a receiver or consumer can act on.

Every accepted call (an OTLP request, a Kafka message, a replayed spool record)
gets a sequence number and the count of items it brought. Items are settled
once they are checked, their rows are on disk and their spans are handed on;
a call is complete when all its items are. `durable_seq` is the highest number
with every call at or below it complete: what the Kafka consumer may commit
and the spool may delete. Calls complete out of order (traces are held for
their decision wait, workers run side by side), so completed numbers above
the first open one wait in a set until the gap closes.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping


class Ledger:
    """Open calls by sequence number; thread-safe."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._last = 0  # the last number given out
        self._durable = 0  # every call <= this is complete
        self._open: dict[int, list[int]] = {}  # seq -> [items left, bytes]
        self._complete: set[int] = set()  # complete, but above an open call
        self.open_items = 0
        self.open_bytes = 0

    def open(self, items: int, nbytes: int = 0) -> int:
        """A new call of `items` items; returns its number (complete at once when it brought none)."""
        with self._cond:
            self._last += 1
            seq = self._last
            if items > 0:
                self._open[seq] = [items, nbytes]
                self.open_items += items
                self.open_bytes += nbytes
            else:
                self._finish(seq)
            return seq

    def settle(self, counts: Mapping[int, int]) -> None:
        """`counts[seq]` more items of call `seq` are durable."""
        with self._cond:
            for seq, n in counts.items():
                entry = self._open.get(seq)
                if entry is None:
                    continue
                n = min(n, entry[0])
                entry[0] -= n
                self.open_items -= n
                if entry[0] <= 0:
                    del self._open[seq]
                    self.open_bytes -= entry[1]
                    self._finish(seq)

    def _finish(self, seq: int) -> None:
        self._complete.add(seq)
        while self._durable + 1 in self._complete:
            self._durable += 1
            self._complete.discard(self._durable)
        self._cond.notify_all()

    @property
    def last_seq(self) -> int:
        return self._last

    def durable_seq(self) -> int:
        return self._durable

    def wait_durable(self, seq: int, timeout: float | None = None) -> bool:
        """Block until every call up to `seq` is complete; False on timeout."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while self._durable < seq:
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return False
                self._cond.wait(remaining)
            return True
