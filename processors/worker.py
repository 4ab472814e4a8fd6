"""`BackgroundWorker`: the one queue/flush/close loop every claimwatch background thread runs.

Items are handed to `handle` in batches: when `batch_size` items are queued,
when the oldest queued item is `max_age_s` old (so a steady trickle is still
written promptly, never only after a pause), on `flush()` and on `close()`.
`tick_s` wakes the loop with an empty batch when nothing arrives, for owners
that release work by time (the collector's trace assembly).
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable

logger = logging.getLogger("claimwatch.worker")
_STOP = object()
_NOW = object()  # deliver the batch held so far (deliver_soon)


class BackgroundWorker:
    """A daemon thread that drains a queue into `handle(batch)`; `handle` should not raise."""

    def __init__(
        self,
        name: str,
        handle: Callable[[list], None],
        *,
        batch_size: int = 1,
        max_age_s: float | None = None,
        tick_s: float | None = None,
        max_items: int | None = None,
    ) -> None:
        self._handle = handle
        self._batch_size = batch_size
        self._max_age = max_age_s
        self._tick = tick_s
        self._max_items = max_items
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._closed = False
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def put(self, item) -> bool:
        """Queue an item (never blocks); False when closed or over `max_items`."""
        if self._closed or (self._max_items is not None and self._queue.qsize() >= self._max_items):
            return False
        self._queue.put(item)
        return True

    def qsize(self) -> int:
        return self._queue.qsize()

    def flush(self, timeout: float | None = 30.0) -> bool:
        """Handle everything queued so far; True when done within `timeout`."""
        if self._closed:
            return True
        done = threading.Event()
        self._queue.put(done)
        return done.wait(timeout)

    def deliver_soon(self) -> None:
        """Handle what is queued without waiting for the batch to fill or age, and without blocking.

        For a producer that knows nothing more is on its way: waiting out `max_age_s` then
        only delays the items (and whatever waits for them)."""
        if not self._closed:
            self._queue.put(_NOW)

    def close(self, timeout: float = 30.0) -> None:
        """Handle what is queued, then stop the thread."""
        if self._closed:
            return
        self.flush(timeout)
        self._closed = True
        self._queue.put(_STOP)
        self._thread.join(timeout=timeout)

    def _run(self) -> None:
        batch: list = []
        oldest = 0.0
        while True:
            item = self._next(batch, oldest)
            if item is _STOP:
                self._deliver(batch)
                return
            if isinstance(item, threading.Event):
                self._deliver(batch)
                batch = []
                item.set()
                continue
            if item is _NOW:
                if batch:
                    self._deliver(batch)
                    batch = []
                continue
            if item is not None:
                if not batch:
                    oldest = time.monotonic()
                batch.append(item)
            due = self._max_age is not None and batch and time.monotonic() - oldest >= self._max_age
            if len(batch) >= self._batch_size or due or (item is None and (self._tick or not batch)):
                self._deliver(batch)
                batch = []

    def _next(self, batch: list, oldest: float):
        waits = []
        if batch and self._max_age is not None:
            waits.append(max(0.0, oldest + self._max_age - time.monotonic()))
        if self._tick is not None:
            waits.append(self._tick)
        try:
            return self._queue.get(timeout=min(waits)) if waits else self._queue.get()
        except queue.Empty:
            return None

    def _deliver(self, batch: list) -> None:
        if not batch and self._tick is None:
            return
        try:
            self._handle(batch)
        except Exception:
            logger.exception("background worker could not handle %d item(s)", len(batch))
