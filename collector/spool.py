"""A local spool of accepted OTLP requests, so a `kill -9` of `serve` loses nothing it acknowledged.

A receiver appends the request body (decompressed, as parsed) after the
engine accepted it and before it answers 200/OK; the record carries the seq
the engine gave the call. Records go to segment files, one `os.write` each,
so once `append` returns the bytes belong to the OS: a killed process loses
none of them. Surviving a power loss needs them on the disk too: with
`fsync: true` each append waits for an fsync, grouped so that concurrent
appends share one.

The active segment is closed (rotated) when it reaches `segmentBytes` or has
been open for `ROTATE_S`; a closed segment is deleted once the engine's
`durable_seq()` reaches the highest seq in it, i.e. every call it records has
been processed, stored and forwarded. On start-up the segments a previous
process left are replayed into the engine through the receivers' decode path
and deleted once the replayed calls are durable in their turn. A record
replayed after it was already stored writes nothing new (rows are idempotent).

Record layout (little-endian): magic `CWS1`, u32 payload length, u32 CRC-32 of
the payload; payload = u64 seq, u8 signal (1 traces, 2 logs), u8 content type
(1 protobuf, 2 JSON), body. A record cut short by a crash, or whose checksum
does not match, ends the segment's reading with a warning.
"""

from __future__ import annotations

import logging
import os
import struct
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

logger = logging.getLogger("claimwatch.spool")

MAGIC = b"CWS1"
_HEADER = struct.Struct("<4sII")
_META = struct.Struct("<QBB")
SIGNALS = {"traces": 1, "logs": 2}
CONTENT_TYPES = {"application/x-protobuf": 1, "application/json": 2}
_SIGNAL_NAMES = {v: k for k, v in SIGNALS.items()}
_CONTENT_TYPE_NAMES = {v: k for k, v in CONTENT_TYPES.items()}
ROTATE_S = 1.0  # a quiet collector closes its segment after this, so it can be deleted
_SUFFIX = ".spool"
_REPLAY_GIVE_UP_S = 120.0
STUCK_S = 60.0  # a closed segment older than this means processing stopped settling

__all__ = ["Record", "Spool", "SpoolError", "read_segment", "replay"]


class SpoolError(Exception):
    """A record could not be written (disk full, I/O error): the receiver answers 503/UNAVAILABLE."""


@dataclass(frozen=True, slots=True)
class Record:
    seq: int
    signal: str  # "traces" or "logs"
    content_type: str
    body: bytes


def encode(record: Record) -> bytes:
    head, body = _encode_parts(record)
    return head + body


def _encode_parts(record: Record) -> tuple[bytes, bytes]:
    """(header + meta, body): the body is written as it is, not copied into one buffer."""
    meta = _META.pack(record.seq, SIGNALS[record.signal], CONTENT_TYPES[record.content_type])
    crc = zlib.crc32(record.body, zlib.crc32(meta))
    return _HEADER.pack(MAGIC, len(meta) + len(record.body), crc) + meta, record.body


def read_segment(path: Path) -> Iterator[Record]:
    """The whole records of a segment, in order; a torn or corrupt record ends it with a warning."""
    data = Path(path).read_bytes()
    offset = 0
    while offset < len(data):
        problem = None
        if len(data) - offset < _HEADER.size:
            problem = "a record header cut short"
        else:
            magic, length, crc = _HEADER.unpack_from(data, offset)
            start, end = offset + _HEADER.size, offset + _HEADER.size + length
            if magic != MAGIC:
                problem = "no record marker"
            elif length < _META.size or end > len(data):
                problem = "a record cut short"
            elif zlib.crc32(data[start:end]) != crc:
                problem = "a record whose checksum does not match"
        if problem is None:
            seq, signal, ctype = _META.unpack_from(data, start)
            if signal in _SIGNAL_NAMES and ctype in _CONTENT_TYPE_NAMES:
                yield Record(seq, _SIGNAL_NAMES[signal], _CONTENT_TYPE_NAMES[ctype], data[start + _META.size : end])
                offset = end
                continue
            problem = "a record of an unknown kind"
        logger.warning(
            "spool segment %s: %s at byte %d (a write torn by a crash?); the last %d bytes are skipped",
            path, problem, offset, len(data) - offset,
        )
        return


@dataclass(slots=True)
class _Segment:
    path: Path
    max_seq: int = 0
    size: int = 0
    opened: float = 0.0


class Spool:
    """Append-only segment files under `directory`; see the module docstring."""

    def __init__(self, directory: str | os.PathLike, segment_bytes: int = 64 << 20, fsync: bool = False) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.segment_bytes = segment_bytes
        self.fsync = fsync
        self._lock = threading.Lock()
        self._closed: list[_Segment] = []
        existing = sorted(self.directory.glob(f"*{_SUFFIX}"), key=_number)
        # What a previous process left, to replay (`replay`) before receivers open.
        self.leftovers: list[Path] = existing
        self._next = (_number(existing[-1]) + 1) if existing else 1
        self._active: _Segment | None = None
        self._fd = -1
        self._written = self._synced = 0  # appends written / known fsynced (fsync: true)
        self._failed_upto = 0  # appends up to this one were in an fsync that failed: never acknowledged
        self._sync_cond = threading.Condition()
        self._syncing = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._last_stuck_warning = -STUCK_S
        self.counts = {"records": 0, "bytes": 0, "segments_deleted": 0, "write_errors": 0, "fsyncs": 0}

    # --- writing -----------------------------------------------------------------------------------
    def append(self, seq: int, signal: str, content_type: str, body: bytes) -> None:
        """Write one accepted request; when this returns it survives a kill -9 (and, with fsync, a power loss)."""
        head, body = _encode_parts(Record(seq, signal, content_type, body))
        size = len(head) + len(body)
        with self._lock:
            if self._active is None:
                self._open_segment()
            segment = self._active
            try:
                _write_all(self._fd, head, body)
            except OSError as exc:
                self.counts["write_errors"] += 1
                self._undo_torn_write(segment, exc)
                raise SpoolError(f"cannot write the spool ({exc.strerror or exc}); not acknowledged") from exc
            segment.size += size
            segment.max_seq = max(segment.max_seq, seq)
            self.counts["records"] += 1
            self.counts["bytes"] += size
            self._written += 1
            mine = self._written
            if segment.size >= self.segment_bytes:
                self._rotate()
        if self.fsync:
            self._sync(mine)

    def _open_segment(self) -> None:
        path = self.directory / f"{self._next:012d}{_SUFFIX}"
        self._next += 1
        fd = -1
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o600)
            if self.fsync:
                _fsync_directory(self.directory)  # the new name must survive a power loss as well
        except OSError as exc:
            self.counts["write_errors"] += 1
            if fd >= 0:
                os.close(fd)
                _unlink(path)
            raise SpoolError(f"cannot create spool segment {path} ({exc.strerror or exc}); not acknowledged") from exc
        self._fd = fd
        self._active = _Segment(path, opened=time.monotonic())

    def _undo_torn_write(self, segment: _Segment, exc: OSError) -> None:
        """Cut a partial record off the segment, or, when that fails, close it: later records go to a new file."""
        logger.error(
            "spool: cannot write to %s (%s): the request is answered 503 and will be retried by its exporter",
            segment.path, exc,
        )
        try:
            os.ftruncate(self._fd, segment.size)
        except OSError:
            self._rotate()

    def _rotate(self) -> None:
        """Close the active segment (called with the lock held)."""
        segment, fd = self._active, self._fd
        if segment is None:
            return
        self._active, self._fd = None, -1
        try:
            if self.fsync:
                os.fsync(fd)
                with self._sync_cond:  # everything written so far is on disk now
                    self._synced = max(self._synced, self._written)
                    self._sync_cond.notify_all()
        except OSError as exc:
            logger.error("spool: fsync of %s failed (%s)", segment.path, exc)
            with self._sync_cond:
                self._failed_upto = max(self._failed_upto, self._written)
                self._sync_cond.notify_all()
        finally:
            os.close(fd)
        if segment.size:
            self._closed.append(segment)
        else:
            _unlink(segment.path)

    def _sync(self, mine: int) -> None:
        """Group commit: one thread fsyncs for every append written before it started; the others wait."""
        while True:
            with self._sync_cond:
                while True:
                    if mine <= self._failed_upto:  # a retried fsync may say yes about lost pages: refuse
                        raise SpoolError("an fsync of the spool failed; not acknowledged")
                    if self._synced >= mine:
                        return
                    if not self._syncing:
                        self._syncing = True
                        break
                    self._sync_cond.wait()
            self._sync_once()

    def _sync_once(self) -> None:
        target, fd, done = 0, -1, False
        try:
            with self._lock:
                target = self._written
                fd = os.dup(self._fd) if self._fd >= 0 else -1  # rotation may close the original meanwhile
            if fd >= 0:  # (no fd: the segment was rotated, and rotation fsynced it or marked it failed)
                os.fsync(fd)
                self.counts["fsyncs"] += 1
            done = True
        except OSError as exc:
            self.counts["write_errors"] += 1
            logger.error("spool: fsync failed (%s): the requests it covered are answered 503", exc)
        finally:
            if fd >= 0:
                os.close(fd)
            with self._sync_cond:
                self._syncing = False
                if done:
                    self._synced = max(self._synced, target)
                else:
                    self._failed_upto = max(self._failed_upto, target)
                self._sync_cond.notify_all()

    # --- deleting ----------------------------------------------------------------------------------
    def adopt(self, path: Path, max_seq: int) -> None:
        """Treat a replayed leftover segment as closed: deleted once `max_seq` (a seq of this process) is durable."""
        with self._lock:
            self._closed.append(_Segment(Path(path), max_seq, 1, time.monotonic()))
            if path in self.leftovers:
                self.leftovers.remove(path)

    def release(self, durable_seq: int, rotate_after_s: float | None = ROTATE_S) -> int:
        """Rotate an active segment older than `rotate_after_s`, then delete closed segments whose calls
        are all durable. Returns how many segments were deleted."""
        with self._lock:
            active = self._active
            if (
                rotate_after_s is not None
                and active is not None
                and active.size
                and time.monotonic() - active.opened >= rotate_after_s
            ):
                self._rotate()
            done = [s for s in self._closed if s.max_seq <= durable_seq]
            self._closed = [s for s in self._closed if s.max_seq > durable_seq]
        for segment in done:
            _unlink(segment.path)
        self.counts["segments_deleted"] += len(done)
        return len(done)

    def start(self, durable_seq: Callable[[], int], interval_s: float = 0.25) -> None:
        """A background thread that calls `release(durable_seq())` every `interval_s`."""

        def loop() -> None:
            while not self._stop.wait(interval_s):
                try:
                    durable = durable_seq()
                    self.release(durable)
                    self._warn_if_stuck(durable)
                except Exception:  # the spool must not stop freeing itself over one bad turn
                    logger.exception("spool: could not release segments")

        self._thread = threading.Thread(target=loop, name="claimwatch-spool", daemon=True)
        self._thread.start()

    def _warn_if_stuck(self, durable: int, after_s: float = STUCK_S) -> None:
        """Processing that stops settling keeps every later segment: say so, once a minute at most."""
        now = time.monotonic()
        with self._lock:
            oldest = min((s.opened for s in self._closed), default=now)
            held = sum(s.size for s in self._closed)
        if now - oldest > after_s and now - self._last_stuck_warning > after_s:
            self._last_stuck_warning = now
            logger.warning(
                "spool: %d bytes in segments kept for over %.0f s: processing is durable only up to call %d "
                "(a failing store write?); the spool grows until it is",
                held, now - oldest, durable,
            )

    def close(self, durable_seq: int | None = None) -> None:
        """Stop the thread, close the active segment, and delete what `durable_seq` covers."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)
        with self._lock:
            self._rotate()
        if durable_seq is not None:
            self.release(durable_seq, rotate_after_s=None)
        pending = self.pending_segments()
        if pending:
            logger.warning("spool: %d segment(s) not yet durable are kept in %s and replayed at the next start",
                           pending, self.directory)

    def pending_segments(self) -> int:
        with self._lock:
            return len(self._closed) + (1 if self._active is not None else 0) + len(self.leftovers)

    def stats(self) -> dict:
        out = {f"spool_{k}": v for k, v in self.counts.items()}
        out["spool_segments"] = self.pending_segments()
        return out


def replay(spool: Spool, engine) -> int:
    """Hand every record of the leftover segments to the engine, oldest segment first, in file order.

    Each segment is then adopted with the seq of its last replayed call, so it is deleted once that is
    durable. Returns the number of records replayed. A segment the engine will not take (it stays
    overloaded for minutes) is kept for the next start.
    """
    from .engine import Overloaded
    from .otlp import MalformedRequest, parse_logs, parse_traces

    total = 0
    for path in list(spool.leftovers):
        last = 0
        records = 0
        try:
            for rec in read_segment(path):
                if rec.signal == "traces":
                    request = parse_traces(rec.body, rec.content_type)
                    call = lambda r=request: engine.accept_request(r)  # noqa: E731
                else:
                    request = parse_logs(rec.body, rec.content_type)
                    call = lambda r=request: engine.accept_logs(r)  # noqa: E731
                result = _retry_overloaded(call, Overloaded, path)
                last = max(last, result.seq)
                records += 1
        except MalformedRequest as exc:  # cannot happen for a body that parsed once; never stop the start
            logger.error("spool segment %s: a record does not parse (%s); the rest of it is skipped", path, exc)
        except TimeoutError as exc:
            logger.error("spool segment %s: %s; it is kept and replayed at the next start", path, exc)
            continue
        spool.adopt(path, last)
        total += records
        logger.info("spool: replayed %d request(s) from %s", records, path.name)
    return total


def _retry_overloaded(call, overloaded: type[Exception], path: Path):
    """Replay waits for the engine like an exporter would, instead of dropping a record."""
    deadline = time.monotonic() + _REPLAY_GIVE_UP_S
    while True:
        try:
            return call()
        except overloaded:
            if time.monotonic() > deadline:
                raise TimeoutError(f"the engine stayed overloaded for {_REPLAY_GIVE_UP_S:.0f} s") from None
            time.sleep(0.05)


def _write_all(fd: int, head: bytes, body: bytes) -> None:
    """One writev for the record; a short write (rare: a signal, a nearly full disk) is finished with write."""
    n = os.writev(fd, (head, body))
    if n < len(head):
        _write_rest(fd, memoryview(head)[n:])
        n = len(head)
    _write_rest(fd, memoryview(body)[n - len(head):])


def _write_rest(fd: int, view: memoryview) -> None:
    while view:
        view = view[os.write(fd, view):]


def _fsync_directory(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _unlink(path: Path) -> None:
    try:
        path.unlink()
    except FileNotFoundError:
        pass
    except OSError as exc:
        logger.error("spool: cannot delete %s (%s)", path, exc)


def _number(path: Path) -> int:
    try:
        return int(path.name.removesuffix(_SUFFIX))
    except ValueError:
        return 0
