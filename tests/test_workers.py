"""Checks in worker processes (`processor.workers`): whole traces per worker, the same rows as one process."""

from __future__ import annotations

import os
import signal
import time

import pytest
from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter as GrpcExporter
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter as HttpExporter
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

from claimwatch.collector.otlp import KeyValueOf
from tests.otlp_helpers import Sink, llm_messages, post, rows, start_collector, trace_request, wait_for

pytestmark = pytest.mark.e2e

TEXTS = ("Docker is not running.", "Redis is down and the pipeline is broken.", "All tests pass.",
         "I found the handler in routes.py.")
ROWS = {
    "evaluations": "SELECT evaluation_id, trace_id, span_id, agent_id, session_id, check_name, verdict, claim_count "
                   "FROM evaluations ORDER BY ALL",
    "violations": "SELECT evaluation_id, span_id, verdict, category, subject FROM violations ORDER BY ALL",
}


def _agent_traffic(endpoint: str, grpc: bool = False, traces: int = 12) -> None:
    """A real SDK sending agent traces (a parent agent span, an LLM span each) in batches."""
    exporter = GrpcExporter(endpoint=endpoint, insecure=True) if grpc else HttpExporter(endpoint=endpoint)
    provider = TracerProvider(resource=Resource.create({"service.name": "agent-svc"}))
    provider.add_span_processor(BatchSpanProcessor(exporter, max_export_batch_size=7))
    tracer = provider.get_tracer("agent")
    for n in range(traces):
        with tracer.start_as_current_span(f"invoke_agent worker-{n % 3}",
                                          attributes={"gen_ai.agent.name": f"worker-{n % 3}",
                                                      "gen_ai.conversation.id": f"conv-{n}"}):
            for k in range(2):
                with tracer.start_as_current_span("chat model") as span:
                    span.set_attribute("gen_ai.output.messages", llm_messages(TEXTS[(n + k) % len(TEXTS)]))
            with tracer.start_as_current_span("GET /health", attributes={"http.method": "GET"}):
                pass
    provider.shutdown()


def _replay(request_bytes: list[bytes], tmp_path, name: str, workers: int):
    (tmp_path / name).mkdir()
    c = start_collector(tmp_path / name, processor={"workers": workers})
    try:
        for body in request_bytes:
            assert post(c.addresses.otlp_http, "/v1/traces", body)[0] == 200
        assert c.engine.flush(120)  # generous: worker processes start slowly on a busy machine
        return {k: rows(c, sql) for k, sql in ROWS.items()}
    finally:
        c.stop()


def test_two_workers_store_the_same_rows_as_one_process(tmp_path):
    sink = Sink()  # capture what a real SDK sends once, then send those exact requests to both setups
    try:
        _agent_traffic(f"{sink.endpoint}/v1/traces", traces=15)
        bodies = [r.SerializeToString() for r in sink.requests]
    finally:
        sink.close()
    assert len(bodies) > 3  # traces are split across requests, so workers must reassemble them
    single = _replay(bodies, tmp_path, "one", 1)
    pooled = _replay(bodies, tmp_path, "two", 2)
    assert single["evaluations"] and single["violations"]
    for table in ROWS:
        assert set(pooled[table]) ^ set(single[table]) == set(), table
        assert pooled[table] == single[table]
    # Identity came from the parent agent span: only whole traces per worker can give this.
    assert {r[3] for r in pooled["evaluations"]} == {"worker-0", "worker-1", "worker-2"}


@pytest.mark.parametrize("grpc", [False, True])
def test_real_exporters_reach_the_workers_and_every_call_becomes_durable(tmp_path, grpc):
    c = start_collector(tmp_path, processor={"workers": 2})
    try:
        a = c.addresses
        _agent_traffic(a.otlp_grpc if grpc else f"http://{a.otlp_http}/v1/traces", grpc=grpc)
        assert c.engine.flush(120)
        stored = rows(c, "SELECT count(DISTINCT trace_id), count(*) FROM evaluations WHERE check_name = 'output'")
        assert stored == [(12, 24)]
        stats = c.engine.stats()
        assert stats["workers"] == 2
        assert stats["durable_seq"] == stats["accepted_seq"] > 0
        assert stats["spans_processed"] == 12 * 4
    finally:
        c.stop()


def test_an_enforced_block_is_redacted_in_every_span_of_its_trace(tmp_path):
    sink = Sink()
    c = start_collector(tmp_path, processor={"workers": 2}, exporters={"otlp": {"endpoint": sink.endpoint}},
                        agents={"rules": [{"match": "enforced-*", "trust": 10, "mode": "enforce"}]})
    try:
        text = "Docker is not running."
        for t in range(1, 9):  # the agent span and its LLM span in separate requests
            post(c.addresses.otlp_http, "/v1/traces", trace_request(
                [{"trace": t, "span": t * 10 + 2, "parent": t * 10 + 1,
                  "attrs": {"gen_ai.output.messages": llm_messages(text)}}]).SerializeToString())
            post(c.addresses.otlp_http, "/v1/traces", trace_request(
                [{"trace": t, "span": t * 10 + 1, "name": "invoke_agent",
                  "attrs": {"gen_ai.agent.name": "enforced-1", "app.note": text}}]).SerializeToString())
        assert c.engine.flush(120)
        wait_for(lambda: len(sink.spans()) == 16)
        values = [kv.value.string_value for s in sink.spans() for kv in s.attributes]
        assert not [v for v in values if text in v]
        assert rows(c, "SELECT count(*) FROM evaluations WHERE enforced") == [(8,)]
    finally:
        c.stop()
        sink.close()


def test_log_events_reach_the_worker_of_their_trace(tmp_path):
    c = start_collector(tmp_path, processor={"workers": 2})
    try:
        for t in (5, 6):
            post(c.addresses.otlp_http, "/v1/traces", trace_request(
                [{"trace": t, "span": t * 10, "name": "invoke_agent",
                  "attrs": {"gen_ai.agent.name": f"logger-{t}"}}]).SerializeToString())
            logs = ExportLogsServiceRequest()
            record = logs.resource_logs.add().scope_logs.add().log_records.add(
                trace_id=t.to_bytes(16, "big"), span_id=(t * 10).to_bytes(8, "big"), event_name="gen_ai.choice")
            record.body.CopyFrom(KeyValueOf("b", {"index": 0, "message": {
                "role": "assistant", "content": "Docker is not running."}}).value)
            assert post(c.addresses.otlp_http, "/v1/logs", logs.SerializeToString())[0] == 200
        assert c.engine.flush(120)
        assert rows(c, "SELECT agent_id, verdict FROM evaluations ORDER BY 1") == [
            ("logger-5", "flag"), ("logger-6", "flag")]
    finally:
        c.stop()


def test_a_killed_worker_is_replaced_and_what_it_held_is_processed_once(tmp_path):
    c = start_collector(tmp_path, processor={"workers": 2, "decisionWaitMs": 3000})
    try:
        bodies = [trace_request([{"trace": t, "span": t, "attrs": {
            "gen_ai.agent.name": "builder", "gen_ai.output.messages": llm_messages(TEXTS[t % 4])}}]).SerializeToString()
            for t in range(1, 41)]
        for body in bodies[:20]:
            post(c.addresses.otlp_http, "/v1/traces", body)
        victim = c.engine._workers[0].process.pid
        os.kill(victim, signal.SIGKILL)  # it holds its traces for the decision wait: they die with it
        wait_for(lambda: c.engine.stats().get("worker_restarts", 0) == 1)
        for body in bodies[20:]:
            post(c.addresses.otlp_http, "/v1/traces", body)
        assert c.engine.flush(120)  # the new worker starts from scratch (imports, detectors) on a busy machine
        stored = rows(c, "SELECT count(DISTINCT trace_id), count(*), count(DISTINCT (span_id, check_name)), "
                         "count(DISTINCT evaluation_id) FROM evaluations")
        traces, total, distinct, ids = stored[0]
        assert traces == 40 and total == distinct == ids  # every trace, each evaluation once
        assert c.engine._workers[0].process.pid != victim
        deadline = time.monotonic() + 10
        while c.engine.durable_seq() < 40 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert c.engine.durable_seq() == 40
    finally:
        c.stop()


def test_workers_zero_means_one_per_core(tmp_path):
    from claimwatch import load_config
    from claimwatch.collector.workers import worker_count

    assert worker_count(load_config({"processor": {"workers": 0}})) == len(os.sched_getaffinity(0))
    assert worker_count(load_config({"processor": {"workers": 3}})) == 3


def test_stop_without_a_flush_stores_what_the_workers_held(tmp_path):
    # Traces held for a long decision wait are released by close(); the rows the workers send
    # back while stopping must reach the store before it closes.
    c = start_collector(tmp_path, processor={"workers": 2, "decisionWaitMs": 60_000})
    path = c.store.path
    try:
        for t in range(1, 31):
            assert post(c.addresses.otlp_http, "/v1/traces", trace_request([{"trace": t, "span": t, "attrs": {
                "gen_ai.agent.name": "builder", "gen_ai.output.messages": llm_messages(TEXTS[t % 4])}}])
                .SerializeToString())[0] == 200
    finally:
        c.stop()
    import duckdb

    con = duckdb.connect(path)
    try:
        assert con.execute("SELECT count(DISTINCT trace_id) FROM evaluations").fetchall() == [(30,)]
    finally:
        con.close()
    assert c.engine.durable_seq() == 30


def test_the_pool_reports_ready_once_every_worker_has_built_its_checks():
    # A collector that answered before its workers had imported claimwatch and built their
    # checks queued its first calls behind that start-up; serve now waits for this.
    from claimwatch import load_config
    from claimwatch.collector.workers import WorkerPool

    pool = WorkerPool(load_config({"processor": {"workers": 2}}))
    try:
        assert pool.wait_ready(120)
        assert pool.stats()["workers_ready"] == 2
    finally:
        pool.close()
