"""Escalation state: how many calls of a session the policy blocked, kept across restarts (seed §8.3).

A count expires `ttl_s` after the session's last block. Two backends share
one JSON file format (`{"version": 1, "sessions": {session: [count, last_block_epoch_s]}}`):

- `MemoryStore`: the collector's; counts in memory, written through to the
  file (atomically, by rename) whenever a block changes them. Blocks are rare,
  so the write costs nothing that matters.
- `FileStore`: the hook's (a new process per tool call); every read and every
  increment opens the file under an exclusive `flock`, so concurrent hooks of
  one session never lose a count.
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path


def _warn(message: str, *args) -> None:
    import logging  # lazily: a hook process that has nothing to say should not pay for the import

    logging.getLogger("claimwatch.policy").warning(message, *args)


DEFAULT_TTL_S = 3600.0
_MAX_SESSIONS = 100_000


class MemoryStore:
    """In-memory counts, optionally persisted to `path` (loaded at start, written on change)."""

    def __init__(self, ttl_s: float = DEFAULT_TTL_S, path: str | os.PathLike | None = None, clock=time.time) -> None:
        self.ttl_s = ttl_s
        self.path = Path(path) if path else None
        self._clock = clock
        self._lock = threading.Lock()
        self._sessions: dict[str, list[float]] = _read(self.path) if self.path else {}

    def blocked_count(self, session: str | None) -> int:
        """The session's live count (0 once its TTL has passed)."""
        if not session:
            return 0
        with self._lock:
            return _live(self._sessions.get(session), self._clock(), self.ttl_s)

    def record_block(self, session: str | None) -> int:
        """Add one block to the session's count and return the new count."""
        if not session:
            return 0
        with self._lock:
            now = self._clock()
            count = _live(self._sessions.get(session), now, self.ttl_s) + 1
            self._sessions[session] = [count, now]
            if self.path or len(self._sessions) > _MAX_SESSIONS:  # the file keeps live sessions only
                _prune(self._sessions, now, self.ttl_s)
            if self.path:
                _write(self.path, self._sessions)
            return count


class FileStore:
    """Counts in a JSON file shared by processes, every access under an exclusive file lock."""

    def __init__(self, path: str | os.PathLike, ttl_s: float = DEFAULT_TTL_S, clock=time.time) -> None:
        self.path = Path(path)
        self.ttl_s = ttl_s
        self._clock = clock

    def blocked_count(self, session: str | None) -> int:
        """The session's live count, read under the lock."""
        if not session or not self.path.exists():
            return 0
        with _Locked(self.path):
            return _live(_read(self.path).get(session), self._clock(), self.ttl_s)

    def record_block(self, session: str | None) -> int:
        """Add one block under the lock (read, count, prune, write) and return the new count."""
        if not session:
            return 0
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with _Locked(self.path):
            sessions = _read(self.path)
            now = self._clock()
            count = _live(sessions.get(session), now, self.ttl_s) + 1
            sessions[session] = [count, now]
            _prune(sessions, now, self.ttl_s)
            _write(self.path, sessions)
            return count


def default_state_path() -> Path:
    """`$CLAIMWATCH_POLICY_STATE`, else `$XDG_STATE_HOME/claimwatch/policy-state.json` (~/.local/state)."""
    explicit = os.environ.get("CLAIMWATCH_POLICY_STATE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(base) / "claimwatch" / "policy-state.json"


class _Locked:
    """An exclusive flock on `<path>.lock` for the duration of a with-block."""

    def __init__(self, path: Path) -> None:
        self._lock_path = path.with_name(path.name + ".lock")
        self._fd = -1

    def __enter__(self) -> _Locked:
        import fcntl

        self._fd = os.open(self._lock_path, os.O_CREAT | os.O_RDWR, 0o600)
        fcntl.flock(self._fd, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc) -> None:
        os.close(self._fd)  # closing releases the lock


def _live(entry: list[float] | None, now: float, ttl_s: float) -> int:
    if not entry:
        return 0
    count, last = entry
    return int(count) if now - last <= ttl_s else 0


def _prune(sessions: dict[str, list[float]], now: float, ttl_s: float) -> None:
    for key in [k for k, v in sessions.items() if now - v[1] > ttl_s]:
        del sessions[key]


def _read(path: Path) -> dict[str, list[float]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        sessions = data.get("sessions", {}) if isinstance(data, dict) else {}
        return {str(k): [float(v[0]), float(v[1])] for k, v in sessions.items()}
    except FileNotFoundError:
        return {}
    except (OSError, ValueError, TypeError, IndexError, AttributeError) as exc:
        _warn("policy state %s unreadable (%s); starting from empty counts", path, exc)
        return {}


def _write(path: Path, sessions: dict[str, list[float]]) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps({"version": 1, "sessions": sessions}), encoding="utf-8")
        os.replace(tmp, path)
    except OSError as exc:  # the decision stands; only persistence is lost
        _warn("cannot write policy state %s: %s", path, exc)
