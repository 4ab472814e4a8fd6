"""What is durable and when: the ledger, deterministic evaluation ids and idempotent rows."""

from __future__ import annotations

import threading
import time

import duckdb

from claimwatch import load_config
from claimwatch.collector.engine import CollectorEngine
from claimwatch.collector.ledger import Ledger
from claimwatch.collector.otlp import iter_spans
from claimwatch.store import AuditStore
from tests.otlp_helpers import FACTS, llm_messages, trace_request


def _request(trace: int, text: str = "Docker is not installed on this machine."):
    return trace_request([
        {"trace": trace, "span": trace * 10 + 1, "name": "agent", "attrs": {"gen_ai.agent.name": "builder"}},
        {"trace": trace, "span": trace * 10 + 2, "parent": trace * 10 + 1, "name": "chat",
         "attrs": {"gen_ai.output.messages": llm_messages(text)}},
    ])


def _engine(path, wait_ms=60_000):
    config = load_config({"validation": FACTS, "processor": {"decisionWaitMs": wait_ms},
                          "storage": {"path": str(path), "flushIntervalMs": 50}})
    store = AuditStore(path, flush_interval_s=0.05)
    return CollectorEngine(config, store), store


def test_ledger_is_durable_only_up_to_the_first_open_call():
    ledger = Ledger()
    a, b, c = ledger.open(2), ledger.open(1), ledger.open(0)
    assert (a, b, c) == (1, 2, 3)
    ledger.settle({b: 1})
    assert ledger.durable_seq() == 0  # call 1 is still open
    ledger.settle({a: 1})
    assert ledger.durable_seq() == 0
    ledger.settle({a: 1})
    assert ledger.durable_seq() == 3  # 1, 2 complete; 3 brought nothing


def test_ledger_wait_returns_when_another_thread_settles():
    ledger = Ledger()
    seq = ledger.open(1, 100)
    assert ledger.open_bytes == 100
    assert not ledger.wait_durable(seq, timeout=0.01)
    threading.Timer(0.05, ledger.settle, args=({seq: 1},)).start()
    assert ledger.wait_durable(seq, timeout=5)
    assert ledger.open_bytes == 0 and ledger.open_items == 0


def test_a_call_becomes_durable_once_its_rows_are_on_disk(tmp_path):
    engine, store = _engine(tmp_path / "a.duckdb")
    try:
        accepted = engine.accept_traces(list(iter_spans(_request(1))))
        assert accepted.seq == 1
        assert engine.durable_seq() == 0  # held for the decision wait
        engine.flush(10)
        assert engine.wait_durable(accepted.seq, timeout=5)
        count = store.cursor().execute("SELECT count(*) FROM evaluations").fetchall()[0][0]
        assert count > 0
    finally:
        engine.close()


def test_a_redelivered_trace_writes_nothing_new(tmp_path):
    path = tmp_path / "b.duckdb"
    engine, store = _engine(path, wait_ms=0)
    try:
        for _ in range(2):  # twice in one process: the second time is skipped by the store
            engine.accept_traces(list(iter_spans(_request(7))))
            engine.flush(10)
        engine.accept_traces(list(iter_spans(_request(7))) + list(iter_spans(_request(7))))  # twice in one batch
        engine.flush(10)
        assert store.rows_skipped > 0
    finally:
        engine.close()
    engine, store = _engine(path, wait_ms=0)  # and again after a restart
    try:
        engine.accept_traces(list(iter_spans(_request(7))))
        engine.flush(10)
    finally:
        engine.close()
    con = duckdb.connect(str(path))
    try:
        dupes = con.execute("SELECT evaluation_id, count(*) FROM evaluations GROUP BY 1 HAVING count(*) > 1").fetchall()
        per_span = con.execute("SELECT span_id, check_name, count(*) FROM evaluations GROUP BY 1, 2").fetchall()
        violations = con.execute("SELECT count(*), count(DISTINCT evaluation_id) FROM violations").fetchall()[0]
    finally:
        con.close()
    assert dupes == []
    assert per_span and all(n == 1 for *_, n in per_span)
    assert violations[0] >= 1 and violations[1] >= 1  # the violation was stored once with its evaluation


def test_evaluation_ids_are_the_same_for_the_same_span_in_another_process(tmp_path):
    ids = []
    for name in ("c1", "c2"):
        engine, store = _engine(tmp_path / f"{name}.duckdb", wait_ms=0)
        try:
            engine.accept_traces(list(iter_spans(_request(3))))
            engine.flush(10)
            ids.append(sorted(store.cursor().execute("SELECT evaluation_id FROM evaluations").fetchall()))
        finally:
            engine.close()
    assert ids[0] and ids[0] == ids[1]


def test_log_records_count_toward_the_memory_bound_and_are_released_once_processed(tmp_path):
    from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest

    from claimwatch.collector.otlp import KeyValueOf

    engine, _ = _engine(tmp_path / "logs.duckdb")
    try:
        logs = ExportLogsServiceRequest()
        record = logs.resource_logs.add().scope_logs.add().log_records.add(
            trace_id=(9).to_bytes(16, "big"), span_id=(90).to_bytes(8, "big"), event_name="gen_ai.choice")
        record.body.CopyFrom(KeyValueOf("b", {"index": 0, "message": {
            "role": "assistant", "content": "Docker is not running. " * 200}}).value)
        accepted = engine.accept_logs(logs)
        assert engine.stats()["buffered_bytes"] >= record.ByteSize()  # a choice carries a whole output
        engine.flush(10)
        assert engine.wait_durable(accepted.seq, timeout=5)
        assert engine.stats()["buffered_bytes"] == 0
    finally:
        engine.close()


def test_a_worker_that_keeps_dying_at_start_is_restarted_with_a_growing_pause():
    from claimwatch.collector.workers import _MAX_RESTART_PAUSE_S, _Worker

    worker = _Worker(0, (None, 0, None, True))
    worker.started_at = time.monotonic()  # as if it had just started
    pauses = [worker.restart_pause() for _ in range(8)]
    assert pauses[:3] == [0.5, 1.0, 2.0]
    assert pauses[-1] == _MAX_RESTART_PAUSE_S
    worker.started_at = time.monotonic() - 3600  # a long life: the next restart is immediate
    assert worker.restart_pause() == 0.0 and worker.quick_deaths == 0


def test_a_log_record_without_a_span_id_gets_the_same_id_on_redelivery():
    from claimwatch.checks.base import CheckResult
    from claimwatch.checks.pipeline import evaluation_ids
    from claimwatch.otel.records import SpanRecord

    def choice(text):
        return SpanRecord("ab" * 16, "", None, "gen_ai.choice", {"gen_ai.output.messages": text}, end_ns=123)

    results = (CheckResult("output", "pass"),)
    assert evaluation_ids(choice("Docker is down."), results) == evaluation_ids(choice("Docker is down."), results)
    assert evaluation_ids(choice("Docker is down."), results) != evaluation_ids(choice("Redis is down."), results)


class _Recorder:
    """A forwarder that keeps what it is handed (the unit under test is the engine's batching)."""

    def __init__(self) -> None:
        self.requests = []

    def submit(self, request) -> None:
        self.requests.append(request)

    def flush(self, timeout=None) -> bool:
        return True

    def close(self) -> None:
        pass


def test_a_flush_of_many_held_traces_forwards_them_in_one_request():
    config = load_config({"validation": FACTS, "processor": {"decisionWaitMs": 60_000}})
    forwarder = _Recorder()
    engine = CollectorEngine(config, None, forwarder)
    for trace in range(1, 41):
        engine.accept_request(_request(trace))
    assert engine.flush(10)
    spans = [s for r in forwarder.requests for rs in r.resource_spans for ss in rs.scope_spans for s in ss.spans]
    assert len(spans) == 80  # two spans a trace
    # One request per trace cost more than checking them (issue 14); the whole flush is one batch.
    assert len(forwarder.requests) == 1
    engine.close()
