"""The spool of accepted OTLP requests (storage.spool, issue 14 item 4): records, torn tails, rotation,
deletion only once durable, replay in order. The engine here is a small stand-in that keeps what it is
given and says how far it is durable; the end-to-end test with `claimwatch serve` is test_spool_e2e.py."""

from __future__ import annotations

import errno
import logging
import os
import threading
from dataclasses import dataclass

import pytest

from claimwatch.collector import spool as spool_module
from claimwatch.collector.engine import Overloaded
from claimwatch.collector.otlp import iter_spans
from claimwatch.collector.spool import Spool, SpoolError, read_segment, replay
from tests.otlp_helpers import llm_messages, trace_request

PB, JSON = "application/x-protobuf", "application/json"


def body(n: int) -> bytes:
    return trace_request([{"trace": n, "span": 1, "attrs": {"gen_ai.output.messages": llm_messages(f"answer {n}")}}]
                         ).SerializeToString()


def segments(directory) -> list:
    return sorted(directory.glob("*.spool"))


@dataclass
class Result:
    accepted: int
    seq: int


class StandInEngine:
    """Accepts calls in order and numbers them; durable up to whatever the test says."""

    def __init__(self, refuse_first: int = 0) -> None:
        self.calls: list[tuple[str, object]] = []
        self.durable = 0
        self.refuse = refuse_first

    def accept_request(self, request, wire=None):  # what the receivers call for traces
        return self._take("traces", [s.record.trace_id for s in iter_spans(request)])

    def accept_logs(self, request):
        return self._take("logs", len(request.resource_logs))

    def _take(self, signal, what):
        if self.refuse:
            self.refuse -= 1
            raise Overloaded("backlog full")
        self.calls.append((signal, what))
        return Result(1, len(self.calls))

    def durable_seq(self) -> int:
        return self.durable


def test_records_read_back_in_the_order_written_with_their_seq_signal_and_type(tmp_path):
    spool = Spool(tmp_path)
    spool.append(3, "traces", PB, b"one")
    spool.append(1, "logs", JSON, b"{}")
    spool.append(2, "traces", PB, b"")
    spool.close()
    (path,) = segments(tmp_path)
    got = [(r.seq, r.signal, r.content_type, r.body) for r in read_segment(path)]
    assert got == [(3, "traces", PB, b"one"), (1, "logs", JSON, b"{}"), (2, "traces", PB, b"")]


@pytest.mark.parametrize("cut", [1, 5, 12, 20])
def test_a_torn_tail_is_skipped_with_a_warning_when_the_last_write_was_cut_short(tmp_path, caplog, cut):
    spool = Spool(tmp_path)
    for n in range(3):
        spool.append(n + 1, "traces", PB, body(n))
    spool.close()
    (path,) = segments(tmp_path)
    size = path.stat().st_size
    os.truncate(path, size - cut)
    with caplog.at_level(logging.WARNING, "claimwatch.spool"):
        got = list(read_segment(path))
    assert [r.seq for r in got] == [1, 2]
    assert "skipped" in caplog.text and path.name in caplog.text


def test_a_record_whose_checksum_does_not_match_ends_the_segment_with_a_warning(tmp_path, caplog):
    spool = Spool(tmp_path)
    for n in range(3):
        spool.append(n + 1, "traces", PB, body(n))
    spool.close()
    (path,) = segments(tmp_path)
    data = bytearray(path.read_bytes())
    data[-3] ^= 0xFF  # a byte of the last body flipped
    path.write_bytes(bytes(data))
    with caplog.at_level(logging.WARNING, "claimwatch.spool"):
        assert [r.seq for r in read_segment(path)] == [1, 2]
    assert "checksum" in caplog.text


def test_garbage_after_the_records_is_skipped_not_raised(tmp_path, caplog):
    spool = Spool(tmp_path)
    spool.append(1, "traces", PB, body(1))
    spool.close()
    (path,) = segments(tmp_path)
    with path.open("ab") as f:
        f.write(b"\x00" * 40)
    with caplog.at_level(logging.WARNING, "claimwatch.spool"):
        assert [r.seq for r in read_segment(path)] == [1]
    assert "no record marker" in caplog.text


def test_a_segment_is_closed_and_a_new_one_opened_when_it_reaches_segment_bytes(tmp_path):
    spool = Spool(tmp_path, segment_bytes=len(body(0)) * 2)
    for n in range(6):
        spool.append(n + 1, "traces", PB, body(n))
    files = segments(tmp_path)
    assert len(files) == 3
    assert [[r.seq for r in read_segment(f)] for f in files] == [[1, 2], [3, 4], [5, 6]]


def test_a_closed_segment_is_deleted_only_once_every_seq_in_it_is_durable(tmp_path):
    spool = Spool(tmp_path, segment_bytes=1)  # one record per segment
    spool.append(5, "traces", PB, b"a")
    spool.append(4, "traces", PB, b"b")  # receivers may append out of seq order
    spool.append(7, "traces", PB, b"c")
    assert spool.release(4) == 1  # only the segment holding seq 4
    assert [r.seq for f in segments(tmp_path) for r in read_segment(f)] == [5, 7]
    assert spool.release(6) == 1
    assert spool.release(7) == 1
    assert segments(tmp_path) == []


def test_the_active_segment_is_never_deleted_while_records_may_still_join_it(tmp_path):
    spool = Spool(tmp_path)
    spool.append(1, "traces", PB, b"a")
    assert spool.release(10, rotate_after_s=None) == 0
    assert len(segments(tmp_path)) == 1


def test_a_quiet_collector_rotates_its_segment_on_a_timer_and_frees_its_spool(tmp_path):
    spool = Spool(tmp_path)
    spool.append(1, "traces", PB, b"a")
    assert spool.release(1, rotate_after_s=60) == 0  # young: still active
    assert spool.release(1, rotate_after_s=0) == 1
    assert segments(tmp_path) == []


def test_the_background_thread_deletes_segments_as_the_engine_becomes_durable(tmp_path):
    engine = StandInEngine()
    spool = Spool(tmp_path, segment_bytes=1)
    spool.append(1, "traces", PB, b"a")
    spool.append(2, "traces", PB, b"b")
    spool.start(engine.durable_seq, interval_s=0.02)
    try:
        engine.durable = 1
        _wait(lambda: len(segments(tmp_path)) == 1)
        engine.durable = 2
        _wait(lambda: segments(tmp_path) == [])
    finally:
        spool.close()


def test_close_keeps_what_is_not_durable_for_the_next_start(tmp_path):
    spool = Spool(tmp_path)
    spool.append(3, "traces", PB, b"a")
    spool.close(durable_seq=2)
    assert len(segments(tmp_path)) == 1
    assert [p.name for p in Spool(tmp_path).leftovers] == [p.name for p in segments(tmp_path)]


def test_replay_hands_leftovers_to_the_engine_oldest_segment_first_in_file_order(tmp_path):
    crashed = Spool(tmp_path, segment_bytes=len(body(0)) * 2)
    for n in range(5):
        crashed.append(100 + n, "traces", PB, body(n))  # seqs of the dead process mean nothing now
    crashed.append(200, "logs", PB, b"")  # an empty logs request parses too
    del crashed  # no close: as after kill -9

    restarted = Spool(tmp_path, segment_bytes=len(body(0)) * 2)
    engine = StandInEngine()
    assert replay(restarted, engine) == 6
    assert engine.calls == [("traces", [f"{n:032x}"]) for n in range(5)] + [("logs", 0)]
    assert restarted.leftovers == []
    # New records go to a new segment, never into a leftover one.
    restarted.append(7, "traces", PB, b"new")
    assert restarted.release(5, rotate_after_s=None) == 2  # the replayed calls 1-4
    assert restarted.release(6, rotate_after_s=None) == 1
    assert [[r.seq for r in read_segment(f)] for f in segments(tmp_path)] == [[7]]


def test_replay_decodes_otlp_json_bodies_like_the_http_receiver(tmp_path):
    import json

    otlp_json = {"resourceSpans": [{"scopeSpans": [{"spans": [
        {"traceId": f"{7:032x}", "spanId": f"{3:016x}", "name": "chat", "startTimeUnixNano": "1", "endTimeUnixNano": "2"}
    ]}]}]}  # OTLP/JSON: hex ids, int64 as strings
    crashed = Spool(tmp_path)
    crashed.append(1, "traces", JSON, json.dumps(otlp_json).encode())
    engine = StandInEngine()
    assert replay(Spool(tmp_path), engine) == 1
    assert engine.calls == [("traces", [f"{7:032x}"])]


def test_replay_waits_for_an_overloaded_engine_instead_of_dropping_a_record(tmp_path):
    crashed = Spool(tmp_path)
    crashed.append(1, "traces", PB, body(1))
    engine = StandInEngine(refuse_first=3)
    assert replay(Spool(tmp_path), engine) == 1
    assert len(engine.calls) == 1


def test_replay_of_a_torn_segment_hands_over_the_whole_records_and_deletes_it_once_durable(tmp_path, caplog):
    crashed = Spool(tmp_path)
    for n in range(3):
        crashed.append(n + 1, "traces", PB, body(n))
    (path,) = segments(tmp_path)
    os.truncate(path, path.stat().st_size - 7)
    restarted, engine = Spool(tmp_path), StandInEngine()
    with caplog.at_level(logging.WARNING, "claimwatch.spool"):
        assert replay(restarted, engine) == 2
    assert "cut short" in caplog.text
    assert restarted.release(2) == 1
    assert segments(tmp_path) == []


def test_a_failed_write_raises_spool_error_and_leaves_no_partial_record(tmp_path, monkeypatch):
    spool = Spool(tmp_path)
    spool.append(1, "traces", PB, body(1))
    real_writev = os.writev

    def disk_full(fd, buffers):
        os.write(fd, bytes(buffers[0][:10]))  # part of the record reached the file, then the disk filled
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(spool_module.os, "writev", disk_full)
    with pytest.raises(SpoolError, match="No space left"):
        spool.append(2, "traces", PB, body(2))
    monkeypatch.setattr(spool_module.os, "writev", real_writev)
    spool.append(3, "traces", PB, body(3))
    spool.close()
    assert [r.seq for f in segments(tmp_path) for r in read_segment(f)] == [1, 3]
    assert spool.counts["write_errors"] == 1


@pytest.mark.parametrize("first", [3, 30, 300])
def test_a_short_write_is_finished_so_the_record_is_whole(tmp_path, monkeypatch, first):
    def short_writev(fd, buffers):  # what a signal or a nearly full disk can do
        return os.write(fd, b"".join(buffers)[:first])

    monkeypatch.setattr(spool_module.os, "writev", short_writev)
    spool = Spool(tmp_path)
    spool.append(1, "traces", PB, body(1))
    spool.append(2, "logs", JSON, b"{}")
    spool.close()
    assert [(r.seq, r.body) for f in segments(tmp_path) for r in read_segment(f)] == [(1, body(1)), (2, b"{}")]


def test_with_fsync_concurrent_appends_all_land_and_share_fsyncs(tmp_path):
    spool = Spool(tmp_path, fsync=True)
    barrier = threading.Barrier(8)

    def writer(k):
        barrier.wait()
        for n in range(25):
            spool.append(k * 100 + n + 1, "traces", PB, body(n))

    threads = [threading.Thread(target=writer, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    spool.close()
    seqs = sorted(r.seq for f in segments(tmp_path) for r in read_segment(f))
    assert seqs == sorted(k * 100 + n + 1 for k in range(8) for n in range(25))
    assert 1 <= spool.counts["fsyncs"] <= 200


def _wait(predicate, timeout=5.0):
    import time

    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "condition not met in time"
        time.sleep(0.01)


def test_segments_kept_long_past_their_rotation_are_reported_when_processing_stops_settling(tmp_path, caplog):
    spool = Spool(tmp_path, segment_bytes=1)
    spool.append(1, "traces", PB, b"a")
    with caplog.at_level(logging.WARNING, "claimwatch.spool"):
        spool._warn_if_stuck(0, after_s=60)
        assert caplog.text == ""  # young: nothing to say
        spool._warn_if_stuck(0, after_s=0)
    assert "durable only up to call 0" in caplog.text


def test_with_fsync_a_failed_fsync_refuses_every_request_it_covered_and_later_ones_go_on(tmp_path, monkeypatch):
    spool = Spool(tmp_path, fsync=True)
    spool.append(1, "traces", PB, b"first")  # the segment exists; then the disk fails
    real_fsync = os.fsync
    monkeypatch.setattr(spool_module.os, "fsync", lambda fd: (_ for _ in ()).throw(OSError(errno.EIO, "I/O error")))
    with pytest.raises(SpoolError, match="fsync"):
        spool.append(2, "traces", PB, b"a")
    with pytest.raises(SpoolError):  # the same failure is not retried into a yes
        spool._sync(2)
    monkeypatch.setattr(spool_module.os, "fsync", real_fsync)
    spool.append(3, "traces", PB, b"b")
    assert spool.counts["fsyncs"] == 2
