"""The standalone collector over real OTLP on 127.0.0.1: clients, errors, assembly, forwarding, queries."""

from __future__ import annotations

import gzip
import http.client
import io
import json
import os
import signal
import subprocess
import sys
import time

import duckdb
import pytest
from google.protobuf import json_format
from google.rpc import status_pb2
from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter as GrpcExporter
from opentelemetry.exporter.otlp.proto.http import Compression
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter as HttpExporter
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor

from claimwatch.collector.cli import main
from claimwatch.collector.otlp import KeyValueOf
from tests.conftest import ROOT
from tests.otlp_helpers import Sink, llm_messages, post, rows, start_collector, trace_request, wait_for

pytestmark = pytest.mark.e2e


@pytest.fixture
def collector(tmp_path):
    c = start_collector(tmp_path)
    yield c
    c.stop()


def run_agent(exporter):
    provider = TracerProvider(resource=Resource.create({"service.name": "agent-svc"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("agent")
    with tracer.start_as_current_span(
        "invoke_agent worker-1", attributes={"gen_ai.agent.name": "worker-1", "gen_ai.conversation.id": "conv-1"}
    ):
        with tracer.start_as_current_span("chat model") as span:
            span.set_attribute("gen_ai.output.messages", llm_messages("Docker is not running. Redis is down."))
    provider.shutdown()


@pytest.mark.parametrize("client", ["http", "http-gzip", "grpc"])
def test_python_exporters_deliver_validated_spans(collector, client):
    a = collector.addresses
    if client == "grpc":
        exporter = GrpcExporter(endpoint=a.otlp_grpc, insecure=True)
    else:
        exporter = HttpExporter(
            endpoint=f"http://{a.otlp_http}/v1/traces",
            compression=Compression.Gzip if client == "http-gzip" else Compression.NoCompression,
        )
    run_agent(exporter)
    wait_for(lambda: collector.engine.stats().get("spans_received", 0) >= 2)
    assert rows(collector, "SELECT agent_id, session_id, service, verdict, claim_count FROM evaluations") == [
        ("worker-1", "conv-1", "agent-svc", "flag", 2)
    ]
    assert rows(collector, "SELECT contradicted_fact_id FROM violations ORDER BY 1 NULLS LAST") == [
        ("docker-running",),
        (None,),
    ]


def test_otlp_json_with_hex_ids_string_ints_and_unknown_fields(collector):
    request = trace_request(
        [
            {
                "trace": 7,
                "span": 9,
                "attrs": {
                    "gen_ai.agent.name": "json-agent",
                    "gen_ai.output.messages": llm_messages("Docker is not running."),
                },
            }
        ]
    )
    data = json_format.MessageToDict(request)
    span = data["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
    span["traceId"], span["spanId"] = (7).to_bytes(16, "big").hex(), (9).to_bytes(8, "big").hex()
    span["startTimeUnixNano"], span["someFutureField"] = "1700000000000000000", {"x": 1}
    status, headers, body = post(collector.addresses.otlp_http, "/v1/traces", json.dumps(data), "application/json")
    assert (status, headers["Content-Type"]) == (200, "application/json")
    assert json.loads(body) == {}
    assert rows(collector, "SELECT agent_id, trace_id, span_id FROM evaluations") == [
        ("json-agent", (7).to_bytes(16, "big").hex(), (9).to_bytes(8, "big").hex())
    ]


def test_chunked_body_without_content_length(collector):
    payload = trace_request(
        [{"trace": 1, "span": 1, "attrs": {"gen_ai.output.messages": llm_messages("Docker is not running.")}}]
    ).SerializeToString()
    host, port = collector.addresses.otlp_http.split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    conn.request(
        "POST",
        "/v1/traces",
        body=iter([payload[:10], payload[10:]]),
        headers={"Content-Type": "application/x-protobuf"},
        encode_chunked=True,
    )
    response = conn.getresponse()
    assert response.status == 200
    ExportTraceServiceResponse().ParseFromString(response.read())
    assert rows(collector, "SELECT count(*) FROM evaluations") == [(1,)]


def test_genai_log_events_are_validated_and_tied_to_their_span(collector):
    post(
        collector.addresses.otlp_http,
        "/v1/traces",
        trace_request(
            [{"trace": 5, "span": 50, "name": "invoke_agent", "attrs": {"gen_ai.agent.name": "logger-agent"}}]
        ).SerializeToString(),
    )
    logs = ExportLogsServiceRequest()
    record = (
        logs.resource_logs.add()
        .scope_logs.add()
        .log_records.add(trace_id=(5).to_bytes(16, "big"), span_id=(50).to_bytes(8, "big"), event_name="gen_ai.choice")
    )
    record.body.CopyFrom(
        KeyValueOf(
            "b",
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": "Docker is not running."},
            },
        ).value
    )
    status, _, _ = post(collector.addresses.otlp_http, "/v1/logs", logs.SerializeToString())
    assert status == 200
    assert rows(collector, "SELECT agent_id, span_id, source, verdict FROM evaluations") == [
        ("logger-agent", (50).to_bytes(8, "big").hex(), "gen_ai.output.messages", "flag")
    ]


def _event_log(logs, name: str, body: dict, span: int, at: int) -> None:
    record = logs.resource_logs.add().scope_logs.add().log_records.add(
        trace_id=(6).to_bytes(16, "big"), span_id=span.to_bytes(8, "big"), event_name=name, time_unix_nano=at
    )
    record.body.CopyFrom(KeyValueOf("b", body).value)


def test_request_message_events_sent_before_the_choice_are_its_evidence_and_are_not_judged(tmp_path):
    collector = start_collector(tmp_path, checks={"grounding": {"enabled": True}})
    try:
        call = {"id": "call_1", "type": "function", "function": {"name": "get_reservation", "arguments": "{}"}}
        messages = ExportLogsServiceRequest()  # exported before the call ended, as a batch of its own
        _event_log(messages, "gen_ai.user.message", {"content": "How much did I pay?"}, 60, 1)
        _event_log(messages, "gen_ai.assistant.message", {"content": None, "tool_calls": [call]}, 60, 2)
        _event_log(messages, "gen_ai.tool.message", {"content": '{"price": 120}', "id": "call_1"}, 60, 3)
        choice = ExportLogsServiceRequest()
        _event_log(choice, "gen_ai.choice", {"index": 0, "message": {"role": "assistant",
                   "content": "You paid $150 for the reservation."}}, 60, 4)  # fmt: skip
        for request in (messages, choice):
            status, _, _ = post(collector.addresses.otlp_http, "/v1/logs", request.SerializeToString())
            assert status == 200
        assert rows(collector, "SELECT check_name FROM evaluations ORDER BY 1") == [("grounding",), ("output",)]
        ((source, reason),) = rows(
            collector, "SELECT evidence_source, reason FROM grounding_claims WHERE grade = 'FABRICATED'"
        )
        assert source == "tool_message" and "120" in reason
        counters = collector.engine.stats()
        assert counters["logs_with_messages"] == 3 and counters["logs_with_output"] == 1
    finally:
        collector.stop()


@pytest.mark.parametrize(
    ("body", "content_type", "code", "message"),
    [
        (b"\x0a\xff\xff\xff", "application/x-protobuf", 400, "not a valid OTLP protobuf"),
        (b"{not json", "application/json", 400, "not valid JSON"),
        (
            b'{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "zz"}]}]}]}',
            "application/json",
            400,
            "traceId must be hex",
        ),
        (b"hello", "text/plain", 415, "unsupported Content-Type"),
    ],
)
def test_malformed_requests_get_a_status_and_the_server_keeps_serving(collector, body, content_type, code, message):
    status, headers, payload = post(collector.addresses.otlp_http, "/v1/traces", body, content_type)
    assert status == code
    if headers["Content-Type"] == "application/x-protobuf":
        decoded = status_pb2.Status()
        decoded.ParseFromString(payload)
        assert message in decoded.message
    else:
        assert message in json.loads(payload)["message"]
    ok, _, _ = post(collector.addresses.otlp_http, "/v1/traces", trace_request([]).SerializeToString())
    assert ok == 200


def test_oversize_body_and_gzip_bomb_get_413(tmp_path):
    c = start_collector(
        tmp_path,
        receivers={
            "otlp": {
                "protocols": {
                    "http": {"endpoint": "127.0.0.1:0", "maxRequestBytes": 50_000},
                    "grpc": {"enabled": False},
                }
            }
        },
    )
    try:
        status, _, body = post(c.addresses.otlp_http, "/v1/traces", b"\x00" * 60_000)
        assert status == 413
        bomb = gzip.compress(b"\x00" * 10_000_000)  # 10 MB of zeros in ~10 KB
        assert len(bomb) < 50_000
        status, _, body = post(c.addresses.otlp_http, "/v1/traces", bomb, headers={"Content-Encoding": "gzip"})
        decoded = status_pb2.Status()
        decoded.ParseFromString(body)
        assert (status, decoded.message) == (413, "decompressed body is over the 50000-byte limit")
        assert post(c.addresses.otlp_http, "/v1/traces", trace_request([]).SerializeToString())[0] == 200
    finally:
        c.stop()


def test_spans_with_bad_ids_are_a_partial_success(collector):
    request = trace_request([{"trace": 1, "span": 2}])
    request.resource_spans[0].scope_spans[0].spans.add(trace_id=b"\x01\x02", span_id=b"\x01", name="bad")
    status, _, body = post(collector.addresses.otlp_http, "/v1/traces", request.SerializeToString())
    response = ExportTraceServiceResponse()
    response.ParseFromString(body)
    assert status == 200 and response.partial_success.rejected_spans == 1
    assert "trace_id must be 16 bytes" in response.partial_success.error_message


def test_overload_answers_503_with_retry_after(tmp_path):
    c = start_collector(tmp_path, processor={"decisionWaitMs": 60_000, "maxSpans": 2})
    try:
        spans = [{"trace": 1, "span": i + 1} for i in range(5)]
        status, headers, _ = post(c.addresses.otlp_http, "/v1/traces", trace_request(spans).SerializeToString())
        assert (status, headers.get("Retry-After")) == (503, "1")
    finally:
        c.stop()


def test_identity_resolves_from_a_parent_sent_in_a_later_request(collector):
    child = trace_request(
        [
            {
                "trace": 3,
                "span": 31,
                "parent": 30,
                "attrs": {"gen_ai.output.messages": llm_messages("Docker is not running.")},
            }
        ]
    )
    parent = trace_request(
        [
            {
                "trace": 3,
                "span": 30,
                "name": "invoke_agent planner",
                "attrs": {"gen_ai.agent.name": "planner", "gen_ai.conversation.id": "c-3"},
            }
        ]
    )
    post(collector.addresses.otlp_http, "/v1/traces", child.SerializeToString())
    post(collector.addresses.otlp_http, "/v1/traces", parent.SerializeToString())
    assert rows(collector, "SELECT agent_id, session_id FROM evaluations") == [("planner", "c-3")]


def test_forwarding_annotates_and_redacts_blocked_output_for_enforcing_agents(tmp_path):
    sink = Sink()
    c = start_collector(
        tmp_path,
        exporters={"otlp": {"endpoint": sink.endpoint}},
        agents={
            "rules": [{"match": "enforced-*", "trust": 10, "mode": "enforce"}, {"match": "audited-*", "trust": 10}]
        },
    )
    try:
        text = "Docker is not running."
        request = trace_request(
            [
                {
                    "trace": 1,
                    "span": 1,
                    "attrs": {"gen_ai.agent.name": "enforced-1", "gen_ai.output.messages": llm_messages(text)},
                },
                {
                    "trace": 2,
                    "span": 2,
                    "attrs": {"gen_ai.agent.name": "audited-1", "gen_ai.output.messages": llm_messages(text)},
                },
                {"trace": 2, "span": 3, "name": "GET /health", "attrs": {"http.method": "GET"}},
            ]
        )
        post(c.addresses.otlp_http, "/v1/traces", request.SerializeToString())
        c.engine.flush(10)
        wait_for(lambda: len(sink.spans()) == 3)
        spans = {s.span_id[-1]: {kv.key: kv.value for kv in s.attributes} for s in sink.spans()}
        enforced, audited, plain = spans[1], spans[2], spans[3]
        assert enforced["claimwatch.verdict"].string_value == "block"
        assert enforced["claimwatch.enforced"].bool_value is True
        assert "blocked" in enforced["gen_ai.output.messages"].string_value
        assert text not in enforced["gen_ai.output.messages"].string_value
        assert audited["claimwatch.verdict"].string_value == "block"
        assert audited["claimwatch.enforced"].bool_value is False
        assert json.loads(audited["gen_ai.output.messages"].string_value)[0]["parts"][0]["content"] == text
        assert set(plain) == {"http.method"}
        assert c.engine.stats()["forward_spans"] == 3
    finally:
        c.stop()
        sink.close()


def test_queries_answer_through_the_running_collector(collector, capsys, monkeypatch):
    run_agent(HttpExporter(endpoint=f"http://{collector.addresses.otlp_http}/v1/traces"))
    collector.engine.flush(10)
    server = f"http://{collector.addresses.api}"
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    # With service.api.token set, named queries return rows only with the token (issue 9, item 17).
    assert main(["query", "verdict_counts", "--server", server, "--format", "json", "--token", "s3cret"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["agent_id"] == "worker-1"
    assert (
        main(
            [
                "query",
                "--sql",
                "SELECT count(*) AS n FROM violations",
                "--server",
                server,
                "--token",
                "s3cret",
                "--format",
                "csv",
            ]
        )
        == 0
    )
    assert capsys.readouterr().out == "n\n2\n"
    assert main(["query", "--sql", "DELETE FROM violations", "--server", server, "--token", "s3cret"]) == 2
    assert capsys.readouterr().err == "claimwatch: only a single SELECT statement is allowed\n"
    assert main(["query", "--sql", "SELECT 1", "--server", server, "--token", "wrong"]) == 2
    assert "needs 'Authorization: Bearer <token>'" in capsys.readouterr().err
    assert main(["status", "--server", server]) == 0
    assert "spans_received" in capsys.readouterr().out


def test_serve_flushes_everything_on_sigterm(tmp_path):
    db = tmp_path / "serve.duckdb"
    env = {**os.environ, "CLAIMWATCH_DECISION_WAIT_MS": "30000"}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "claimwatch.collector.cli",
            "serve",
            "--db",
            str(db),
            "--otlp-http",
            "127.0.0.1:0",
            "--otlp-grpc",
            "127.0.0.1:0",
            "--api",
            "127.0.0.1:0",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        lines = []
        while not any(line.strip().startswith("OTLP/HTTP") for line in lines):
            lines.append(proc.stdout.readline())
            assert proc.poll() is None, "".join(lines)
        address = next(line for line in lines if "OTLP/HTTP" in line).split("http://")[1].split("/")[0]
        request = trace_request(
            [
                {
                    "trace": 9,
                    "span": 9,
                    "attrs": {
                        "gen_ai.agent.name": "late",
                        "gen_ai.output.messages": llm_messages("Docker is not running."),
                    },
                }
            ]
        )
        assert post(address, "/v1/traces", request.SerializeToString())[0] == 200
        time.sleep(0.2)  # held for the 30 s decision wait: only the shutdown flush can store it
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=30)
        assert proc.returncode == 0, out
        assert "stopped after 1 spans, 1 evaluations" in out
    finally:
        if proc.poll() is None:
            proc.kill()
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT agent_id FROM evaluations").fetchall() == [("late",)]
    con.close()


def test_repeated_output_in_one_trace_is_stored_once(collector):
    text = llm_messages("Docker is not running.")
    request = trace_request(
        [
            {
                "trace": 4,
                "span": 40,
                "name": "invoke_agent a",
                "attrs": {"gen_ai.agent.name": "a", "gen_ai.output.messages": text},
            },
            {"trace": 4, "span": 41, "parent": 40, "attrs": {"gen_ai.output.messages": text}},
        ]
    )
    post(collector.addresses.otlp_http, "/v1/traces", request.SerializeToString())
    assert rows(collector, "SELECT count(*) FROM evaluations") == [(1,)]
    assert collector.engine.stats()["duplicate_outputs"] == 1


def test_one_response_written_by_two_instrumentations_side_by_side_is_stored_once(collector):
    # The anthropic SDK traces its own calls (with content when asked) and OpenLLMetry writes a span of its
    # own for the same call: siblings under the agent's span, with the same output and response id.
    text = llm_messages("Docker is not running.")
    agent = {"trace": 7, "span": 70, "name": "ops.agent", "attrs": {"gen_ai.agent.name": "a"}}

    def call(span: int, response: str, name: str) -> dict:
        attrs = {"gen_ai.output.messages": text, "gen_ai.response.id": response}
        return {"trace": 7, "span": span, "parent": 70, "name": name, "attrs": attrs}

    request = trace_request(
        [agent, call(71, "msg_01", "anthropic.messages.create"), call(72, "msg_01", "anthropic.chat"),
         call(73, "msg_02", "anthropic.chat")]  # another call that happens to say the same: judged again
    )  # fmt: skip
    post(collector.addresses.otlp_http, "/v1/traces", request.SerializeToString())
    assert rows(collector, "SELECT count(*) FROM evaluations WHERE check_name = 'output'") == [(2,)]
    assert collector.engine.stats()["duplicate_outputs"] == 1


def test_a_step_repeating_an_answer_is_the_repeat_whatever_the_order_of_the_request(collector):
    # An exporter groups a request's spans by instrumentation scope: OpenLLMetry's LlamaIndex step that hands
    # the answer on came before the OpenAI instrumentation's span of the call that gave it, though it ended
    # after. Judged in the order they ended, the call is judged and the step is its repeat.
    text = "Docker is not running."
    agent = {"trace": 8, "span": 80, "name": "ops.agent", "attrs": {"gen_ai.agent.name": "a"}}
    step = {"trace": 8, "span": 81, "parent": 80, "name": "step.task", "attrs": {
        "traceloop.span.kind": "task", "traceloop.entity.output": json.dumps({"summary": text})}}  # fmt: skip
    call = {"trace": 8, "span": 82, "parent": 80, "name": "openai.chat",
            "attrs": {"gen_ai.output.messages": llm_messages(text)}}  # fmt: skip
    request = trace_request([agent, step, call])
    for span, end in zip(request.resource_spans[0].scope_spans[0].spans, (9, 7, 5), strict=True):
        span.end_time_unix_nano = end
    post(collector.addresses.otlp_http, "/v1/traces", request.SerializeToString())
    assert rows(collector, "SELECT span_name FROM evaluations WHERE check_name = 'output'") == [("openai.chat",)]
    assert collector.engine.stats()["duplicate_outputs"] == 1


def test_genai_choice_log_with_a_json_string_body_is_evaluated(collector):
    logs = ExportLogsServiceRequest()
    record = (
        logs.resource_logs.add()
        .scope_logs.add()
        .log_records.add(trace_id=(6).to_bytes(16, "big"), span_id=(60).to_bytes(8, "big"), event_name="gen_ai.choice")
    )
    body = {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "Docker is not running."}}
    record.body.string_value = json.dumps(body)
    status, _, _ = post(collector.addresses.otlp_http, "/v1/logs", logs.SerializeToString())
    assert status == 200
    assert rows(collector, "SELECT source, verdict FROM evaluations") == [("gen_ai.output.messages", "flag")]


def test_kill_9_loses_nothing_acknowledged_once_the_decision_wait_and_flush_interval_have_passed(tmp_path):
    """The loss window of an acknowledged span is decisionWaitMs + flushIntervalMs, then it is on disk."""
    db = tmp_path / "kill.duckdb"
    env = {**os.environ, "CLAIMWATCH_DECISION_WAIT_MS": "200", "CLAIMWATCH_FLUSH_INTERVAL_MS": "200"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "claimwatch.collector.cli", "serve", "--db", str(db), "--otlp-http", "127.0.0.1:0",
         "--otlp-grpc", "127.0.0.1:0", "--api", "127.0.0.1:0"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    try:
        lines = []
        while not any(line.strip().startswith("OTLP/HTTP") for line in lines):
            lines.append(proc.stdout.readline())
            assert proc.poll() is None, "".join(lines)
        address = next(line for line in lines if "OTLP/HTTP" in line).split("http://")[1].split("/")[0]
        sent = 0
        for i in range(20):  # a steady trickle: never 5,000 rows, never a pause
            request = trace_request(
                [{"trace": 100 + i, "span": 1, "attrs": {"gen_ai.output.messages": llm_messages("Docker is down.")}}]
            )
            assert post(address, "/v1/traces", request.SerializeToString())[0] == 200
            sent += 1
            time.sleep(0.05)
        time.sleep(0.2 + 0.2 + 1.0)  # decision wait + flush interval + a margin for a loaded machine
        proc.kill()
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
    con = duckdb.connect(str(db), read_only=True)  # the file survives a kill -9 and opens
    assert con.execute("SELECT count(*) FROM evaluations").fetchall() == [(sent,)]
    con.close()
