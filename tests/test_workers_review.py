"""Review of worker processes and the durability ledger (issue 14): each test is a defect found and fixed."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from datetime import datetime

import duckdb
import pytest

from claimwatch.store import AuditStore
from tests.otlp_helpers import llm_messages, post, rows, start_collector, trace_request, wait_for

TEXT = "Docker is not running."


def _body(trace: int, text: str = TEXT) -> bytes:
    return trace_request([{"trace": trace, "span": trace, "attrs": {
        "gen_ai.agent.name": "builder", "gen_ai.output.messages": llm_messages(text)}}]).SerializeToString()


# --- the store's after-write callback ----------------------------------------------------------

def test_after_written_reports_failure_when_the_rows_failed_in_an_earlier_batch():
    # The store's writer splits its queue into batches (batch_rows units, or by age); the marker
    # queued behind a producer's rows can land in the batch after them. A failed write there
    # must still reach the callback, or durable_seq moves past rows that are not on disk.
    store = AuditStore(":memory:", batch_rows=1, flush_interval_s=0.05)
    try:
        outcomes: list[bool] = []

        def disk_full(*_args):
            raise duckdb.IOException("No space left on device")

        store._insert = disk_full  # a write that may pass later: the rows must not settle
        store.add_rows({"evaluations": [{"evaluation_id": "e1"}]})
        store.after_written(outcomes.append)
        assert store.flush(30)
        assert store.write_errors == 1
        assert outcomes == [False]
        assert store.units_rejected == 0
    finally:
        store.close()


def test_a_unit_that_can_never_be_written_is_set_aside_and_its_call_settles(tmp_path):
    # A permanent error (no such table, a value of the wrong type) never passes on a retry;
    # failing the marker stalled durable_seq forever, and with it spool deletion and Kafka commits.
    store = AuditStore(tmp_path / "a.duckdb", batch_rows=1, flush_interval_s=0.05)
    try:
        outcomes: list[bool] = []
        store.add_rows({"no_such_table": [{"x": 1}]})
        store.after_written(outcomes.append)
        assert store.flush(30)
        assert outcomes == [True]
        assert store.write_errors == 1 and store.units_rejected == 1
        rejected = json.loads(store.rejected_path.read_text())
        assert rejected["rows"] == {"no_such_table": [{"x": 1}]}
    finally:
        store.close()


def test_after_written_is_not_failed_by_another_producers_failed_rows():
    # Rows of one producer (a worker's reader thread) failing must not stop another's calls
    # from settling: each marker answers for the rows its own thread queued before it.
    store = AuditStore(":memory:", batch_rows=1, flush_interval_s=0.05)
    try:
        outcomes: list[bool] = []
        other = threading.Thread(target=store.add_rows, args=({"no_such_table": [{"x": 1}]},))
        other.start()
        other.join()
        assert store.flush(30)
        store.after_written(outcomes.append)
        assert store.flush(30)
        assert outcomes == [True]
    finally:
        store.close()


# --- a worker restart while a flush waits ------------------------------------------------------

@pytest.mark.e2e
def test_flush_completes_when_a_worker_is_killed_just_before_it(tmp_path):
    # The flush message went down the dead worker's pipe and was never answered: flush (and
    # close, and Ctrl-C of serve) waited for its whole timeout and reported failure.
    c = start_collector(tmp_path, processor={"workers": 2, "decisionWaitMs": 60_000})
    try:
        for t in range(1, 21):
            assert post(c.addresses.otlp_http, "/v1/traces", _body(t))[0] == 200
        os.kill(c.engine._workers[0].process.pid, signal.SIGKILL)
        assert c.engine.flush(60)  # generous: the replacement starts from scratch on a busy machine
        assert c.engine.stats()["worker_restarts"] == 1
        assert rows(c, "SELECT count(DISTINCT trace_id), count(*) FROM evaluations") == [(20, 20)]
        assert c.engine.wait_durable(20, 30)
    finally:
        c.stop()


# --- Ctrl-C of `claimwatch serve --workers 2` ---------------------------------------------------

def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _counters(api_port: int) -> dict:
    with urllib.request.urlopen(f"http://127.0.0.1:{api_port}/api/status", timeout=10) as response:
        return json.load(response)["counters"]


def _live_processes_in_group(pgid: int) -> list[str]:
    """`ps` lines of processes in the group that still run (an exited child reparented to a
    container's init that does not reap stays a zombie: it runs nothing)."""
    out = subprocess.run(["ps", "-o", "pid=,stat=,args=", "-g", str(pgid)], capture_output=True, text=True).stdout
    return [line for line in out.splitlines() if line.split()[1:2] and not line.split()[1].startswith("Z")]


@pytest.mark.e2e
def test_ctrl_c_of_serve_with_workers_stores_everything_and_leaves_no_process(tmp_path):
    # Ctrl-C sends SIGINT to the whole foreground process group: the workers died of their own
    # KeyboardInterrupt, the parent restarted them mid-shutdown, and the flush it had already
    # sent them was never answered, so stopping took the full 60 s flush timeout.
    http, grpc, api = _free_port(), _free_port(), _free_port()
    db = tmp_path / "audit.duckdb"
    serve = subprocess.Popen(
        [os.path.join(os.path.dirname(sys.executable), "claimwatch"), "serve", "--workers", "2", "--db", str(db),
         "--otlp-http", f"127.0.0.1:{http}", "--otlp-grpc", f"127.0.0.1:{grpc}", "--api", f"127.0.0.1:{api}",
         "--log-level", "WARNING"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True, cwd=tmp_path,
    )
    try:
        for line in serve.stdout:
            if "stop with" in line:
                break
        for t in range(1, 11):
            assert post(f"127.0.0.1:{http}", "/v1/traces", _body(t))[0] == 200
        # The workers are up once these are durable (a Ctrl-C while a worker is still importing
        # kills it before it can ignore SIGINT; the pool then restarts it, which is slower but safe).
        wait_for(lambda: _counters(api).get("durable_seq") == 10, 120)
        for t in range(11, 21):  # held for the decision wait: the shutdown flush must process them
            assert post(f"127.0.0.1:{http}", "/v1/traces", _body(t))[0] == 200
        started = time.monotonic()
        os.killpg(serve.pid, signal.SIGINT)
        output, _ = serve.communicate(timeout=120)
        took = time.monotonic() - started
    finally:
        if serve.poll() is None:
            os.killpg(serve.pid, signal.SIGKILL)
            serve.wait()
    assert serve.returncode == 0, output
    assert "exited" not in output and "KeyboardInterrupt" not in output, output  # no worker died or restarted
    assert took < 45, f"stopping took {took:.0f} s: a flush waited for its timeout"
    wait_for(lambda: not _live_processes_in_group(serve.pid), 10)
    con = duckdb.connect(str(db), read_only=True)
    try:
        assert con.execute("SELECT count(DISTINCT trace_id) FROM evaluations").fetchall() == [(20,)]
    finally:
        con.close()


# --- evaluation ids ------------------------------------------------------------------------------

def _choice_logs(texts: list[str], time_ns: int):
    from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest

    from claimwatch.collector.otlp import KeyValueOf

    logs = ExportLogsServiceRequest()
    scope = logs.resource_logs.add().scope_logs.add()
    for index, text in enumerate(texts):
        record = scope.log_records.add(trace_id=(9).to_bytes(16, "big"), span_id=(90).to_bytes(8, "big"),
                                       event_name="gen_ai.choice", time_unix_nano=time_ns)
        record.body.CopyFrom(KeyValueOf("b", {"index": index, "message": {"role": "assistant", "content": text}}).value)
    return logs


def test_two_choices_of_one_span_logged_at_the_same_time_are_both_stored(tmp_path):
    # A log record has no id of its own: trace, span, event name and time are all a choice
    # event shares with its siblings (n > 1 choices emitted in one loop; clocks of microsecond or
    # millisecond resolution). The second choice got the first one's evaluation id and the store
    # skipped it as already written.
    from claimwatch import load_config
    from claimwatch.collector.engine import CollectorEngine
    from tests.otlp_helpers import FACTS

    config = load_config({"validation": FACTS, "processor": {"decisionWaitMs": 0}})
    store = AuditStore(tmp_path / "logs.duckdb", flush_interval_s=0.05)
    engine = CollectorEngine(config, store)
    try:
        accepted = engine.accept_logs(_choice_logs([TEXT, "Redis is down and the pipeline is broken."], 1_700_000_000))
        assert accepted.accepted == 2
        assert engine.flush(120)
        assert engine.wait_durable(accepted.seq, 30)
        stored = store.cursor().execute(
            "SELECT count(*), count(DISTINCT evaluation_id) FROM evaluations WHERE check_name = 'output'").fetchall()
        assert stored == [(2, 2)]
        assert store.rows_skipped == 0
    finally:
        engine.close()


def test_a_redelivered_choice_log_still_writes_nothing_new(tmp_path):
    from claimwatch import load_config
    from claimwatch.collector.engine import CollectorEngine
    from tests.otlp_helpers import FACTS

    config = load_config({"validation": FACTS, "processor": {"decisionWaitMs": 0}})
    store = AuditStore(tmp_path / "logs.duckdb", flush_interval_s=0.05)
    engine = CollectorEngine(config, store)
    try:
        for _ in range(2):
            engine.accept_logs(_choice_logs([TEXT], 1_700_000_000))
            assert engine.flush(120)
        assert store.cursor().execute("SELECT count(*) FROM evaluations").fetchall() == [(1,)]
    finally:
        engine.close()


# --- the memory bound --------------------------------------------------------------------------

@pytest.mark.e2e
def test_log_records_count_toward_the_memory_bound_of_the_worker_pool(tmp_path):
    # Log calls were opened with 0 bytes, so a flood of GenAI choice logs (each carrying a whole
    # output) passed processor.maxBufferedBytes untouched: only the item count (2 x maxSpans,
    # two million by default) bounded what the pool held in its outstanding messages.
    c = start_collector(tmp_path, processor={"workers": 2, "decisionWaitMs": 60_000, "maxBufferedBytes": 150_000})
    try:
        big = [f"{TEXT} Step {n}: " + "the build output was long. " * 150 for n in range(25)]  # ~100 kB
        body = _choice_logs(big, 1_700_000_000).SerializeToString()
        assert 80_000 < len(body) < 150_000
        assert post(c.addresses.otlp_http, "/v1/logs", body)[0] == 200
        status = post(c.addresses.otlp_http, "/v1/logs", body)[0]
        assert status == 503  # over the bound, as the same bytes of spans would be
        assert c.engine.stats()["buffered_bytes"] > 0
    finally:
        c.stop()


# --- close() while a worker is dead ------------------------------------------------------------

@pytest.mark.e2e
def test_stop_right_after_a_worker_is_killed_stores_what_it_held(tmp_path):
    c = start_collector(tmp_path, processor={"workers": 2, "decisionWaitMs": 60_000})
    path = c.store.path
    try:
        for t in range(1, 21):
            assert post(c.addresses.otlp_http, "/v1/traces", _body(t))[0] == 200
        os.kill(c.engine._workers[0].process.pid, signal.SIGKILL)
    finally:
        started = time.monotonic()
        c.stop()
        took = time.monotonic() - started
    assert took < 45, f"stopping took {took:.0f} s: a flush waited for its timeout"
    assert c.engine.durable_seq() == 20
    assert not [w for w in c.engine._workers if w.process.is_alive()]
    con = duckdb.connect(path, read_only=True)
    try:
        assert con.execute("SELECT count(DISTINCT trace_id), count(*) FROM evaluations").fetchall() == [(20, 20)]
    finally:
        con.close()


# --- forwarding one request per processed batch ------------------------------------------------

class _GrpcSink:
    """A real OTLP/gRPC trace receiver with gRPC's default 4 MiB message limit (the OpenTelemetry
    Collector's otlp receiver has the same default)."""

    def __init__(self) -> None:
        from concurrent import futures

        import grpc
        from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc

        sink = self
        self.spans = 0
        self.rejected = 0

        class Service(trace_service_pb2_grpc.TraceServiceServicer):
            def Export(self, request, context):
                sink.spans += sum(len(ss.spans) for rs in request.resource_spans for ss in rs.scope_spans)
                return trace_service_pb2.ExportTraceServiceResponse()

        self.server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
        trace_service_pb2_grpc.add_TraceServiceServicer_to_server(Service(), self.server)
        self.endpoint = f"127.0.0.1:{self.server.add_insecure_port('127.0.0.1:0')}"
        self.server.start()

    def close(self) -> None:
        self.server.stop(0)


@pytest.mark.e2e
def test_traces_released_together_reach_a_grpc_backend_with_the_default_message_limit(tmp_path):
    # The engine now forwards one request per processed batch; every trace whose decision wait
    # ended in the same tick is in that batch, so under load one request grew past the 4 MiB a
    # gRPC receiver takes by default and the whole batch was refused, retried and dropped.
    sink = _GrpcSink()
    c = start_collector(tmp_path, processor={"decisionWaitMs": 300},
                        exporters={"otlp": {"endpoint": sink.endpoint, "protocol": "grpc"}})
    try:
        payload = "x" * 100_000
        body = trace_request([{"trace": t, "span": t, "name": "tool", "attrs": {"app.payload": payload}}
                              for t in range(1, 61)]).SerializeToString()  # 6 MB in one request
        assert post(c.addresses.otlp_http, "/v1/traces", body)[0] == 200
        wait_for(lambda: c.engine.stats().get("spans_processed", 0) == 60, 60)  # released by the decision wait
        assert c.engine.flush(120)
        assert c.engine.stats().get("forward_failed_batches", 0) == 0
        assert sink.spans == 60
    finally:
        c.stop()
        sink.close()


def test_after_written_in_the_same_failed_batch_as_another_producers_rows_still_succeeds():
    store = AuditStore(":memory:", batch_rows=2, flush_interval_s=30)
    try:
        outcomes: list[bool] = []
        other = threading.Thread(target=store.add_rows, args=({"no_such_table": [{"x": 1}]},))
        other.start()
        other.join()
        store.after_written(outcomes.append)  # batched with the other thread's failing rows
        assert store.flush(30)
        assert store.write_errors == 1
        assert outcomes == [True]
    finally:
        store.close()


def test_one_unit_that_cannot_be_written_does_not_take_the_rest_of_its_batch_with_it(tmp_path):
    # Each batch became one transaction: a single unit that cannot be written (a check whose
    # table is missing, a value of the wrong type) rolled back every other unit batched with it,
    # and their calls never became durable. Before, the other rows were written.
    from datetime import datetime

    store = AuditStore(tmp_path / "a.duckdb", batch_rows=4, flush_interval_s=30)
    try:
        outcomes: dict[str, bool] = {}

        def produce(name: str, tables: dict) -> None:
            store.add_rows(tables)
            store.after_written(lambda ok: outcomes.__setitem__(name, ok))

        good = {"evaluations": [{"evaluation_id": "e1", "time": datetime(2026, 1, 1), "check_name": "output",
                                 "verdict": "pass"}]}
        threads = [threading.Thread(target=produce, args=("bad", {"no_such_table": [{"x": 1}]})),
                   threading.Thread(target=produce, args=("good", good))]
        for thread in threads:  # one after the other: the four items make one batch
            thread.start()
            thread.join()
        assert store.flush(30)
        # The bad unit can never be written: it is set aside, so its call settles too.
        assert outcomes == {"bad": True, "good": True}
        assert store.cursor().execute("SELECT evaluation_id FROM evaluations").fetchall() == [("e1",)]
        (line,) = store.rejected_path.read_text().splitlines()
        assert json.loads(line)["rows"] == {"no_such_table": [{"x": 1}]}
        assert "no_such_table" in json.loads(line)["error"]
    finally:
        store.close()


def test_a_row_of_the_wrong_type_fails_only_its_own_unit(tmp_path):
    from datetime import datetime

    store = AuditStore(tmp_path / "a.duckdb", batch_rows=6, flush_interval_s=30)
    try:
        outcomes: dict[str, bool] = {}

        def produce(name: str, evaluation_id: str, verdict) -> None:
            store.add_rows({"evaluations": [{"evaluation_id": evaluation_id, "time": datetime(2026, 1, 1),
                                             "check_name": "output", "verdict": "pass", "evaluation_us": verdict}]})
            store.after_written(lambda ok: outcomes.__setitem__(name, ok))

        for name, eid, value in (("a", "e1", 1.5), ("bad", "e2", "not a number"), ("c", "e3", 2.5)):
            thread = threading.Thread(target=produce, args=(name, eid, value))
            thread.start()
            thread.join()
        assert store.flush(30)
        assert outcomes == {"a": True, "bad": True, "c": True}  # the bad one settles, set aside
        assert store.cursor().execute("SELECT evaluation_id FROM evaluations ORDER BY 1").fetchall() == [
            ("e1",), ("e3",)]
        (line,) = store.rejected_path.read_text().splitlines()
        assert json.loads(line)["rows"]["evaluations"][0]["evaluation_id"] == "e2"
        assert store.units_rejected == 1
    finally:
        store.close()


# --- counters across a worker restart ------------------------------------------------------------

@pytest.mark.e2e
def test_counters_do_not_go_back_when_a_worker_is_replaced(tmp_path):
    # The pool's counters are the sum of each worker's own; a replacement starts from zero, so
    # spans_processed, evaluations and verdict counts fell on /metrics (counters must not fall).
    c = start_collector(tmp_path, processor={"workers": 2, "decisionWaitMs": 0})
    try:
        for t in range(1, 21):
            assert post(c.addresses.otlp_http, "/v1/traces", _body(t))[0] == 200
        assert c.engine.flush(120)
        before = c.engine.stats()
        assert before["spans_processed"] == 20
        os.kill(c.engine._workers[0].process.pid, signal.SIGKILL)
        wait_for(lambda: c.engine.stats().get("worker_restarts", 0) == 1, 60)
        assert c.engine.flush(120)
        after = c.engine.stats()
        for key in ("spans_processed", "evaluations", "verdict_flag"):
            assert after.get(key, 0) >= before.get(key, 0), key
    finally:
        c.stop()


# --- durability at the end of a burst ------------------------------------------------------------

def test_write_soon_writes_queued_rows_without_waiting_out_the_flush_interval():
    store = AuditStore(":memory:", flush_interval_s=60)
    try:
        written = threading.Event()
        store.add_rows({"evaluations": [{"evaluation_id": "e1", "time": datetime(2026, 11, 29)}]})
        store.after_written(lambda ok: written.set())
        assert not written.wait(0.3)  # batched: the interval has a minute to go
        store.write_soon()
        assert written.wait(10)
        assert store.rows_written == 1
    finally:
        store.close()


@pytest.mark.e2e
def test_the_last_call_of_a_burst_is_durable_without_waiting_out_the_flush_interval(tmp_path):
    # The pool's store wrote its rows when the oldest was flushInterval old: at the end of every
    # burst the last calls waited up to that long (a second by default) after every worker had
    # settled them. With no call left out, nothing is on its way to batch with them.
    c = start_collector(tmp_path, processor={"workers": 2, "decisionWaitMs": 50},
                        storage={"flushIntervalMs": 60_000})
    try:
        assert post(c.addresses.otlp_http, "/v1/traces", _body(1))[0] == 200
        seq = c.engine.stats()["accepted_seq"]
        assert c.engine.wait_durable(seq, timeout=30)  # not a minute
        assert rows(c, "SELECT count(*) FROM evaluations") == [(1,)]
    finally:
        c.stop()
