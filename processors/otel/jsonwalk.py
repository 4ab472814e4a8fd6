"""The strings inside a decoded JSON value: what an output convention that writes the model's answer as
JSON (a message list, a run's serialized output, a structured object) says in words."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def strings(value: Any, depth: int = 0) -> list[str]:
    """Every string inside a decoded JSON value, in order (bounded depth)."""
    if isinstance(value, str):
        return [value]
    if depth > 8:
        return []
    if isinstance(value, Mapping):
        return [s for v in value.values() for s in strings(v, depth + 1)]
    if isinstance(value, (list, tuple)):
        return [s for v in value for s in strings(v, depth + 1)]
    return []
