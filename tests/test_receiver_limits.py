"""The receivers under load and abuse (issue 9): concurrent exporters, bad lengths, idle and TLS clients,
span limits, malformed OTLP/JSON and gRPC; real clients, raw sockets and http.client on 127.0.0.1."""

from __future__ import annotations

import gzip
import http.client
import json
import os
import resource
import select
import socket
import ssl
import subprocess
import sys
import threading
import time
from pathlib import Path

import grpc
import pytest
from google.rpc import status_pb2
from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter as GrpcExporter
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter as HttpExporter
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExportResult
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from claimwatch.collector.cli import main
from tests.conftest import ROOT
from tests.otlp_helpers import llm_messages, start_collector, trace_request, wait_for

pytestmark = pytest.mark.e2e
TRACE_EXPORT = "/opentelemetry.proto.collector.trace.v1.TraceService/Export"


@pytest.fixture
def collector(tmp_path):
    c = start_collector(tmp_path)
    yield c
    c.stop()


def hostport(address: str) -> tuple[str, int]:
    host, port = address.rsplit(":", 1)
    return host, int(port)


def one_span_request(n: int = 1) -> bytes:
    return trace_request(
        [{"trace": 1, "span": i + 1, "attrs": {"gen_ai.output.messages": llm_messages("ok")}} for i in range(n)]
    ).SerializeToString()


def raw_exchange(address: str, data: bytes, timeout: float = 5.0) -> bytes:
    """Send raw bytes and read the answer until the server closes or goes quiet (never waits forever)."""
    with socket.create_connection(hostport(address), timeout=timeout) as sock:
        sock.sendall(data)
        chunks = []
        while True:
            try:
                chunk = sock.recv(65536)
            except TimeoutError:
                break
            if not chunk:
                break
            chunks.append(chunk)
            if b"\r\n\r\n" in b"".join(chunks):
                head, _, body = b"".join(chunks).partition(b"\r\n\r\n")
                length = [int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:")]
                if length and len(body) >= length[0]:
                    break
        return b"".join(chunks)


def status_of(answer: bytes) -> int:
    return int(answer.split(b" ", 2)[1])


def status_message(answer: bytes) -> str:
    body = answer.partition(b"\r\n\r\n")[2]
    status = status_pb2.Status()
    status.ParseFromString(body)
    return status.message


# --- item 10: many exporters at once -------------------------------------------------------------
def test_200_concurrent_exporters_get_no_connection_resets(collector):
    host, port = hostport(collector.addresses.otlp_http)
    body = one_span_request()
    barrier = threading.Barrier(200)
    outcomes: list[object] = []

    def client():
        conn = http.client.HTTPConnection(host, port, timeout=30)
        barrier.wait()
        try:
            for _ in range(3):  # keep-alive: three exports on one connection
                conn.request("POST", "/v1/traces", body=body, headers={"Content-Type": "application/x-protobuf"})
                response = conn.getresponse()
                response.read()
                outcomes.append(response.status)
        except OSError as exc:
            outcomes.append(exc)
        finally:
            conn.close()

    threads = [threading.Thread(target=client) for _ in range(200)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    errors = [o for o in outcomes if not isinstance(o, int)]
    assert errors == []
    assert outcomes.count(200) == 600


def test_concurrent_python_exporters_all_succeed(collector):
    spans = _finished_spans(1)
    barrier = threading.Barrier(50)
    results: list[SpanExportResult] = []

    def export():
        exporter = HttpExporter(endpoint=f"http://{collector.addresses.otlp_http}/v1/traces", timeout=30)
        barrier.wait()
        results.append(exporter.export(spans))
        exporter.shutdown()

    threads = [threading.Thread(target=export) for _ in range(50)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert results == [SpanExportResult.SUCCESS] * 50


# --- item 12: lengths and sizes ---------------------------------------------------------------------
@pytest.mark.parametrize("length", ["-1", "+5", "0x10", "1e3", " 12abc", "99999999999999999999999"])
def test_invalid_content_length_is_400_without_reading_to_eof(collector, length):
    request = (
        f"POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-protobuf\r\n"
        f"Content-Length: {length}\r\n\r\n"
    ).encode() + b"\x00" * 100
    answer = raw_exchange(collector.addresses.otlp_http, request)  # the socket stays open on our side
    assert status_of(answer) == 400
    assert "Content-Length" in status_message(answer)
    assert b"Connection: close" in answer


def test_negative_chunk_size_is_400(collector):
    request = (
        b"POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-protobuf\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n-1\r\n" + b"\x00" * 100
    )
    answer = raw_exchange(collector.addresses.otlp_http, request)
    assert status_of(answer) == 400
    assert "chunk size" in status_message(answer)


def test_chunked_body_over_the_limit_is_413_while_reading(tmp_path):
    c = start_collector(tmp_path, receivers={"otlp": {"protocols": {"http": {"endpoint": "127.0.0.1:0", "maxRequestBytes": 1000}, "grpc": {"enabled": False}}}})
    try:
        host, port = hostport(c.addresses.otlp_http)
        conn = http.client.HTTPConnection(host, port, timeout=10)
        conn.request(
            "POST",
            "/v1/traces",
            body=iter([b"\x0a" * 600, b"\x0a" * 600]),  # http.client sends an iterable chunked
            headers={"Content-Type": "application/x-protobuf"},
            encode_chunked=True,
        )
        response = conn.getresponse()
        assert response.status == 413
        assert "over the 1000-byte limit" in status_pb2.Status.FromString(response.read()).message
    finally:
        c.stop()


def test_api_refuses_negative_content_length(collector):
    request = (
        b"POST /api/query/verdict_counts HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Content-Length: -1\r\n\r\n{}"
    )
    answer = raw_exchange(collector.addresses.api, request)
    assert status_of(answer) == 400
    assert b"non-negative" in answer


def test_spans_per_request_over_the_limit_get_413_and_grpc_resource_exhausted(tmp_path):
    protocols = {"http": {"endpoint": "127.0.0.1:0", "maxSpansPerRequest": 10}, "grpc": {"endpoint": "127.0.0.1:0", "maxSpansPerRequest": 10}}
    c = start_collector(tmp_path, receivers={"otlp": {"protocols": protocols}})
    try:
        host, port = hostport(c.addresses.otlp_http)
        conn = http.client.HTTPConnection(host, port, timeout=10)
        for n, expected in ((10, 200), (11, 413)):
            conn.request("POST", "/v1/traces", body=one_span_request(n), headers={"Content-Type": "application/x-protobuf"})
            response = conn.getresponse()
            body = response.read()
            assert response.status == expected
        assert "11 spans, over the limit of 10" in status_pb2.Status.FromString(body).message
        exporter = HttpExporter(endpoint=f"http://{c.addresses.otlp_http}/v1/traces")
        assert exporter.export(_finished_spans(11)) == SpanExportResult.FAILURE
        assert exporter.export(_finished_spans(3)) == SpanExportResult.SUCCESS
        with grpc.insecure_channel(c.addresses.otlp_grpc) as channel:
            call = channel.unary_unary(TRACE_EXPORT)
            with pytest.raises(grpc.RpcError) as info:
                call(one_span_request(11), timeout=10)
            assert info.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert "over the limit of 10" in info.value.details()
    finally:
        c.stop()


# --- item 14: OTLP/JSON that protobuf cannot hold ------------------------------------------------------
def _json_span(value) -> dict:
    return {
        "resourceSpans": [
            {"scopeSpans": [{"spans": [{"traceId": "0" * 31 + "1", "spanId": "0" * 15 + "1", "name": "x",
                                         "attributes": [{"key": "k", "value": value}]}]}]}
        ]
    }


def _post_json(collector, body: bytes, gzipped: bool = False):
    host, port = hostport(collector.addresses.otlp_http)
    conn = http.client.HTTPConnection(host, port, timeout=10)
    headers = {"Content-Type": "application/json"}
    if gzipped:
        body, headers["Content-Encoding"] = gzip.compress(body), "gzip"
    conn.request("POST", "/v1/traces", body=body, headers=headers)
    response = conn.getresponse()
    return response.status, json.loads(response.read())


def _nested_json(depth: int) -> bytes:
    """A span whose attribute is an array in an array ... `depth` times (as text: json.dumps recurses)."""
    value = '{"arrayValue":{"values":[' * depth + '{"stringValue":"x"}' + "]}}" * depth
    return json.dumps(_json_span("VALUE")).replace('"VALUE"', value).encode()


@pytest.mark.parametrize(
    "body, problem",
    [
        (json.dumps(_json_span({"stringValue": "\ud800"})).encode(), "lone surrogate U+D800"),
        (json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [{"name": "a\udfffb"}]}]}]}).encode(), "lone surrogate U+DFFF"),
        (_nested_json(500), "nested deeper than"),
        (b'{"resourceSpans":' + b"[" * 100_000 + b"]" * 100_000 + b"}", "nested deeper than"),
    ],
)
@pytest.mark.parametrize("gzipped", [False, True])
def test_unrepresentable_otlp_json_is_400_naming_the_problem(collector, body, problem, gzipped):
    status, answer = _post_json(collector, body, gzipped)
    assert status == 400
    assert problem in answer["message"]
    assert _post_json(collector, json.dumps(_json_span({"stringValue": "fine"})).encode())[0] == 200


# --- item 15: idle, slow and TLS clients ------------------------------------------------------------------
def _conn_threads() -> int:
    return sum(1 for t in threading.enumerate() if t.name == "claimwatch-otlp-conn")


def test_idle_connections_are_capped_timed_out_and_the_collector_keeps_serving(tmp_path):
    http_settings = {"endpoint": "127.0.0.1:0", "maxConnections": 8, "timeoutS": 0.5}
    c = start_collector(tmp_path, receivers={"otlp": {"protocols": {"http": http_settings, "grpc": {"endpoint": "127.0.0.1:0"}}}})
    idle = []
    try:
        before = _conn_threads()
        for _ in range(60):
            idle.append(socket.create_connection(hostport(c.addresses.otlp_http), timeout=5))
        time.sleep(0.2)
        assert _conn_threads() - before <= 8  # not one thread per connection
        host, port = hostport(c.addresses.api)
        health = http.client.HTTPConnection(host, port, timeout=5)
        health.request("GET", "/health")
        assert health.getresponse().status == 200
        health.close()
        exporter = GrpcExporter(endpoint=c.addresses.otlp_grpc, insecure=True)
        assert exporter.export(_finished_spans(1)) == SpanExportResult.SUCCESS
        # The idle ones are closed after the timeout, so a real exporter gets its turn.
        exporter = HttpExporter(endpoint=f"http://{c.addresses.otlp_http}/v1/traces", timeout=30)
        assert exporter.export(_finished_spans(1)) == SpanExportResult.SUCCESS
        exporter.shutdown()
        closed = sum(1 for s in idle if select.select([s], [], [], 0)[0] and s.recv(1) == b"")
        assert closed > 8
        wait_for(lambda: _conn_threads() <= before, timeout=10)
    finally:
        for s in idle:
            s.close()
        c.stop()


def test_a_client_trickling_its_headers_is_cut_at_the_request_deadline(tmp_path, monkeypatch):
    from claimwatch.collector.httpserver import BoundedHTTPServer

    monkeypatch.setattr(BoundedHTTPServer, "request_deadline_s", 1.0)
    http_settings = {"endpoint": "127.0.0.1:0", "timeoutS": 0.5}
    c = start_collector(tmp_path, receivers={"otlp": {"protocols": {"http": http_settings, "grpc": {"enabled": False}}}})
    try:
        with socket.create_connection(hostport(c.addresses.otlp_http), timeout=10) as sock:
            sock.sendall(b"POST /v1/traces HTTP/1.1\r\n")
            cut = False
            for _ in range(100):  # one byte every 0.2 s never trips the 0.5 s socket timeout
                try:
                    sock.sendall(b"X")
                except OSError:
                    cut = True
                    break
                if select.select([sock], [], [], 0.2)[0]:
                    cut = sock.recv(1) == b""
                    break
            assert cut, "the trickling connection was still open after 20 s"
    finally:
        c.stop()


def test_tls_record_without_a_newline_is_answered_not_waited_on(collector):
    # A handshake record with no 0x0a byte: a line-reading server waits for the request line forever.
    hello = b"\x16\x03\x01\x00\x08\x01\x00\x00\x04\x03\x03\x00\x00"
    for address in (collector.addresses.otlp_http, collector.addresses.api):
        answer = raw_exchange(address, hello)
        assert answer.startswith(b"HTTP/1.1 400 ") and b"plain HTTP" in answer


def test_tls_client_hello_on_the_http_port_is_refused_at_once(collector):
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    with socket.create_connection(hostport(collector.addresses.otlp_http), timeout=5) as sock:
        with pytest.raises(ssl.SSLError):  # a hang would raise TimeoutError instead
            context.wrap_socket(sock, server_hostname="127.0.0.1")
    with socket.create_connection(hostport(collector.addresses.api), timeout=5) as sock:
        with pytest.raises(ssl.SSLError):
            context.wrap_socket(sock, server_hostname="127.0.0.1")
    status, _ = _post_json(collector, json.dumps(_json_span({"stringValue": "fine"})).encode())
    assert status == 200


def _limit_fds():
    resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))


def test_with_256_descriptors_250_idle_connections_do_not_stop_the_listeners(tmp_path):
    config = tmp_path / "c.yaml"
    config.write_text(
        "receivers:\n  otlp:\n    protocols:\n      http: {endpoint: '127.0.0.1:0', timeoutS: 1}\n"
        "      grpc: {endpoint: '127.0.0.1:0'}\nservice:\n  api: {endpoint: '127.0.0.1:0'}\n"
        f"storage: {{path: '{tmp_path / 'fd.duckdb'}'}}\n"
    )
    proc, addresses = _serve(config, preexec_fn=_limit_fds)
    idle = []
    try:
        for _ in range(250):
            idle.append(socket.create_connection(hostport(addresses["OTLP/HTTP"]), timeout=5))
        host, port = hostport(addresses["API"])
        conn = http.client.HTTPConnection(host, port, timeout=5)
        conn.request("GET", "/health")
        assert conn.getresponse().status == 200
        assert GrpcExporter(endpoint=addresses["OTLP/gRPC"], insecure=True).export(_finished_spans(1)) == SpanExportResult.SUCCESS
        exporter = HttpExporter(endpoint=f"http://{addresses['OTLP/HTTP']}/v1/traces", timeout=60)
        assert exporter.export(_finished_spans(1)) == SpanExportResult.SUCCESS
        assert proc.poll() is None
    finally:
        for s in idle:
            s.close()
        _stop(proc)


# --- item 16 and 19: malformed gRPC -------------------------------------------------------------------------
def test_malformed_grpc_is_invalid_argument_and_does_not_grow_memory(tmp_path):
    config = tmp_path / "c.yaml"
    config.write_text(
        "receivers:\n  otlp:\n    protocols:\n      http: {endpoint: '127.0.0.1:0'}\n"
        "      grpc: {endpoint: '127.0.0.1:0'}\nservice:\n  api: {endpoint: '127.0.0.1:0'}\n"
        f"storage: {{path: '{tmp_path / 'g.duckdb'}'}}\n"
    )
    proc, addresses = _serve(config)
    try:
        with grpc.insecure_channel(addresses["OTLP/gRPC"]) as channel:
            call = channel.unary_unary(TRACE_EXPORT)
            with pytest.raises(grpc.RpcError) as info:
                call(b"\xff\xff\xff", timeout=10)
            assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            assert "not a valid OTLP protobuf" in info.value.details()
            for _ in range(500):  # warm up allocator and channel
                _malformed(call)
            before = _rss_kb(proc.pid)
            for _ in range(3000):
                _malformed(call)
            grown_kb = _rss_kb(proc.pid) - before
        # grpcio's own decoding leaked ~19 KB per malformed call: 3,000 calls were ~57 MB.
        assert grown_kb < 8 * 1024, f"RSS grew {grown_kb} KB over 3,000 malformed calls"
        assert proc.poll() is None
    finally:
        _stop(proc)


def _malformed(call) -> None:
    try:
        call(b"\x0a\x05\xff\xff", timeout=10)
    except grpc.RpcError as exc:
        assert exc.code() == grpc.StatusCode.INVALID_ARGUMENT


def _rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


# --- item 19: one write per answer; endpoints checked before serve ---------------------------------------
def test_keep_alive_answer_arrives_in_one_segment(collector):
    request = (
        b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    )
    with socket.create_connection(hostport(collector.addresses.api), timeout=5) as sock:
        for _ in range(3):  # later requests on the connection are the ones Nagle delayed
            sock.sendall(request)
            select.select([sock], [], [], 5)
            answer = sock.recv(65536)  # one read: headers and body were one send
            _, _, body = answer.partition(b"\r\n\r\n")
            assert json.loads(body) == {"status": "ok"}


@pytest.mark.parametrize("endpoint", [":4317", "127.0.0.1:99999", "[::1]:4317"])
def test_bad_endpoint_fails_check_config_not_serve(tmp_path, capsys, endpoint):
    config = tmp_path / "c.yaml"
    config.write_text(f"receivers:\n  otlp:\n    protocols:\n      grpc: {{endpoint: '{endpoint}'}}\n")
    assert main(["check-config", str(config)]) == 2
    err = capsys.readouterr().err
    assert "receivers.otlp.protocols.grpc.endpoint: must be HOST:PORT" in err
    assert "Traceback" not in err


# --- helpers ---------------------------------------------------------------------------------------------
def _finished_spans(n: int):
    memory = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    tracer = provider.get_tracer("limits")
    for i in range(n):
        with tracer.start_as_current_span(f"chat {i}") as span:
            span.set_attribute("gen_ai.output.messages", llm_messages("All good."))
    provider.shutdown()
    return memory.get_finished_spans()


def _serve(config: Path, preexec_fn=None, extra_env: dict | None = None):
    """`claimwatch serve` in a subprocess; returns it and its printed addresses."""
    env = {**os.environ, **(extra_env or {})}
    proc = subprocess.Popen(
        [sys.executable, "-m", "claimwatch.collector.cli", "serve", "--config", str(config)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        preexec_fn=preexec_fn,
    )
    addresses: dict[str, str] = {}
    lines = []
    while "API" not in addresses:
        line = proc.stdout.readline()
        lines.append(line)
        assert line or proc.poll() is None, "".join(lines)
        words = line.split()
        if len(words) >= 2 and words[0] in ("OTLP/HTTP", "OTLP/gRPC", "API"):
            addresses[words[0]] = words[1].removeprefix("http://").split("/")[0]
    threading.Thread(target=proc.stdout.read, daemon=True).start()  # keep the pipe drained
    return proc, addresses


def _stop(proc) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()


def test_buffered_bytes_over_the_memory_bound_answer_503_until_processed(tmp_path):
    """processor.maxBufferedBytes bounds what the collector holds by bytes, not span counts."""
    from tests.otlp_helpers import llm_messages, start_collector, trace_request

    c = start_collector(tmp_path, processor={"decisionWaitMs": 60_000, "maxBufferedBytes": 500_000})
    try:
        big = llm_messages("x " * 20_000)  # ~40 KB a span
        answers = []
        for i in range(12):
            request = trace_request([{"trace": 500 + i, "span": 1, "attrs": {"gen_ai.output.messages": big}}])
            answers.append(_post(c.addresses.otlp_http, request.SerializeToString()))
        statuses = [a[0] for a in answers]
        assert 200 in statuses and 503 in statuses, statuses
        refused = next(a for a in answers if a[0] == 503)
        assert "Retry-After" in refused[1]
        assert c.engine.stats()["buffered_bytes"] <= 500_000  # charged at 6x the wire size: two requests
        c.engine.flush(30)
        assert c.engine.stats()["buffered_bytes"] == 0
        request = trace_request([{"trace": 900, "span": 1, "attrs": {"gen_ai.output.messages": big}}])
        assert _post(c.addresses.otlp_http, request.SerializeToString())[0] == 200
    finally:
        c.stop()


def _post(address, body):
    import http.client

    host, port = address.split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    conn.request("POST", "/v1/traces", body=body, headers={"Content-Type": "application/x-protobuf"})
    response = conn.getresponse()
    response.read()
    return response.status, dict(response.getheaders())
