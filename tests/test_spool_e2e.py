"""kill -9 of `claimwatch serve` (issue 14 item 4): with storage.spool on, every acknowledged span is stored
exactly once after a restart on the same database and spool; with it off, what was acknowledged but not yet
processed is lost (the window the README names). Real serve processes, OTLP/HTTP and gRPC, a real DuckDB file."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.request

import duckdb
import grpc
import pytest

from tests.conftest import ROOT
from tests.otlp_helpers import llm_messages, post, trace_request

pytestmark = pytest.mark.e2e
TRACE_EXPORT = "/opentelemetry.proto.collector.trace.v1.TraceService/Export"
SPANS_PER_REQUEST = 5


class Serve:
    """One `claimwatch serve` process on free ports; its addresses read from what it prints."""

    def __init__(self, db, **env) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "claimwatch.collector.cli", "serve", "--db", str(db), "--otlp-http",
             "127.0.0.1:0", "--otlp-grpc", "127.0.0.1:0", "--api", "127.0.0.1:0", "--log-level", "WARNING"],
            cwd=ROOT, env={**os.environ, **env}, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )
        self.lines: list[str] = []
        found: dict[str, str] = {}
        while "API" not in found:
            line = self.proc.stdout.readline()
            if not line:
                raise AssertionError("serve did not start:\n" + "".join(self.lines))
            self.lines.append(line)
            words = line.split()
            if len(words) >= 2 and words[0] in ("OTLP/HTTP", "OTLP/gRPC", "API"):
                found[words[0]] = words[1].removeprefix("http://").split("/")[0]
        self.http, self.grpc, self.api = found["OTLP/HTTP"], found["OTLP/gRPC"], found["API"]
        self._reader = threading.Thread(target=lambda: self.lines.extend(self.proc.stdout), daemon=True)
        self._reader.start()

    def counters(self) -> dict:
        with urllib.request.urlopen(f"http://{self.api}/api/status", timeout=10) as response:
            return json.loads(response.read())["counters"]

    def kill_9(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> str:
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(60)
        self._reader.join(5)
        assert self.proc.returncode == 0, "".join(self.lines)
        return "".join(self.lines)

    def ensure_dead(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


def request_body(first_trace: int) -> bytes:
    """SPANS_PER_REQUEST spans, each its own trace with a distinct LLM output."""
    return trace_request([
        {"trace": first_trace + k, "span": 1, "name": "chat",
         "attrs": {"gen_ai.agent.name": "spooler",
                   "gen_ai.output.messages": llm_messages(f"Run {first_trace + k}: Docker is not running.")}}
        for k in range(SPANS_PER_REQUEST)
    ]).SerializeToString()


def send(serve: Serve, first: int, http_requests: int, grpc_requests: int) -> int:
    """Post over OTLP/HTTP from three concurrent clients and over gRPC; every one must be acknowledged."""
    answers: list[int] = []

    def http_client(k: int) -> None:
        for i in range(k, http_requests, 3):
            answers.append(post(serve.http, "/v1/traces", request_body(first + i * SPANS_PER_REQUEST))[0])

    threads = [threading.Thread(target=http_client, args=(k,)) for k in range(3)]
    for t in threads:
        t.start()
    with grpc.insecure_channel(serve.grpc) as channel:
        export = channel.unary_unary(TRACE_EXPORT)
        for i in range(http_requests, http_requests + grpc_requests):
            export(request_body(first + i * SPANS_PER_REQUEST), timeout=10)
            answers.append(200)
    for t in threads:
        t.join(30)
    assert answers == [200] * (http_requests + grpc_requests)
    return (http_requests + grpc_requests) * SPANS_PER_REQUEST


def stored(db) -> tuple[int, int, int]:
    """(evaluation rows, distinct spans, evaluation ids stored more than once)."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(
            "SELECT count(*), count(DISTINCT span_id || trace_id), "
            "(SELECT count(*) FROM (SELECT evaluation_id FROM evaluations GROUP BY 1 HAVING count(*) > 1)) "
            "FROM evaluations"
        ).fetchone()
    finally:
        con.close()


def wait_durable(serve: Serve, timeout: float = 60.0) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        c = serve.counters()
        if c.get("durable_seq", 0) >= c.get("accepted_seq", 1) and c.get("buffered_spans", 1) == 0:
            return c
        assert time.monotonic() < deadline, c
        time.sleep(0.1)


@pytest.mark.parametrize("workers", ["1", "2"])
def test_kill_9_with_the_spool_on_loses_no_acknowledged_span_and_stores_each_once(tmp_path, workers):
    db, spool = tmp_path / "audit.duckdb", tmp_path / "audit.duckdb.spool"
    first = Serve(db, CLAIMWATCH_SPOOL="true", CLAIMWATCH_DECISION_WAIT_MS="30000", CLAIMWATCH_WORKERS=workers)
    try:
        sent = send(first, 1000, http_requests=24, grpc_requests=6)
        first.kill_9()  # right after the 200s, long before the 30 s decision wait
    finally:
        first.ensure_dead()
    assert list(spool.glob("*.spool")), "the acknowledged requests are in the spool"
    assert stored(db)[0] == 0, "nothing was processed before the kill: only the spool can bring it back"

    second = Serve(db, CLAIMWATCH_SPOOL="true", CLAIMWATCH_DECISION_WAIT_MS="200", CLAIMWATCH_WORKERS=workers)
    try:
        wait_durable(second)
        out = second.stop()
    finally:
        second.ensure_dead()
    assert stored(db) == (sent, sent, 0), out
    assert list(spool.glob("*.spool")) == [], "a clean stop leaves an empty spool"


def test_a_spool_replayed_after_its_rows_were_stored_writes_nothing_twice(tmp_path):
    """A crash between the rows' commit and the segment's deletion replays calls already stored."""
    db, spool = tmp_path / "audit.duckdb", tmp_path / "spool"
    env = {"CLAIMWATCH_SPOOL": "true", "CLAIMWATCH_SPOOL_PATH": str(spool), "CLAIMWATCH_DECISION_WAIT_MS": "300"}
    first = Serve(db, **env)
    snapshot = tmp_path / "snapshot"
    try:
        stored_first = send(first, 5000, http_requests=9, grpc_requests=3)
        shutil.copytree(spool, snapshot)  # the segments as they were before they were freed
        wait_durable(first)
        unstored = send(first, 9000, http_requests=6, grpc_requests=0)
        first.kill_9()
    finally:
        first.ensure_dead()
    for segment in snapshot.glob("*.spool"):  # put back what the release thread deleted
        if not (spool / segment.name).exists():
            shutil.copy(segment, spool / segment.name)
    assert stored(db)[0] == stored_first

    second = Serve(db, **env)
    try:
        counters = wait_durable(second)
        assert counters["spans_received"] >= stored_first + unstored  # the stored calls came back too
        out = second.stop()
    finally:
        second.ensure_dead()
    total = stored_first + unstored
    assert stored(db) == (total, total, 0), out


def test_kill_9_with_the_spool_off_loses_what_was_acknowledged_but_not_yet_processed(tmp_path):
    """The loss window the README states: spans held for the decision wait (and the backlog) when killed."""
    db = tmp_path / "audit.duckdb"
    first = Serve(db, CLAIMWATCH_DECISION_WAIT_MS="30000")
    try:
        sent = send(first, 1000, http_requests=6, grpc_requests=0)
        first.kill_9()
    finally:
        first.ensure_dead()
    second = Serve(db, CLAIMWATCH_DECISION_WAIT_MS="200")
    try:
        time.sleep(1.0)
        assert second.counters().get("spans_received", 0) == 0
        second.stop()
    finally:
        second.ensure_dead()
    assert sent == 30 and stored(db)[0] == 0


def test_a_request_the_spool_cannot_write_is_answered_503_not_acknowledged(tmp_path):
    """A real ENOSPC: the next segment's name points at /dev/full, so the kernel refuses the write."""
    from tests.otlp_helpers import start_collector

    spool = tmp_path / "spool"
    collector = start_collector(tmp_path, storage={"spool": {"enabled": True, "path": str(spool)}})
    try:
        (spool / "000000000001.spool").symlink_to("/dev/full")
        status, headers, _ = post(collector.addresses.otlp_http, "/v1/traces", request_body(1))
        assert (status, headers.get("Retry-After")) == (503, "1")
        with grpc.insecure_channel(collector.addresses.otlp_grpc) as channel:
            (spool / "000000000002.spool").symlink_to("/dev/full")
            with pytest.raises(grpc.RpcError) as refused:
                channel.unary_unary(TRACE_EXPORT)(request_body(100), timeout=10)
            assert refused.value.code() == grpc.StatusCode.UNAVAILABLE
        assert collector.status()["counters"]["spool_write_errors"] == 2
        # The disk has room again: the next request is written and acknowledged.
        assert post(collector.addresses.otlp_http, "/v1/traces", request_body(200))[0] == 200
        assert collector.status()["counters"]["spool_records"] == 1
    finally:
        collector.stop()
