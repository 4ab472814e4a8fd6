"""The loop every claimwatch background thread runs over its queue."""

from __future__ import annotations

import threading
from collections.abc import Callable


def drain_forever(source, handle: Callable[[object], None]) -> None:
    """Handle items from `source` until a None arrives; an Event in the queue is a flush
    marker, set once everything queued before it has been handled."""
    while True:
        item = source.get()
        if item is None:
            return
        if isinstance(item, threading.Event):
            item.set()
            continue
        handle(item)
