"""Shared helpers for collector tests: a running collector on free ports, an OTLP sink, request builders."""

from __future__ import annotations

import http.client
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from claimwatch import load_config
from claimwatch.collector.otlp import KeyValueOf
from claimwatch.collector.service import Collector
from tests.conftest import DOCKER_RUNNING

FACTS = {
    "factRegistries": [
        {
            "id": "infra",
            "facts": [DOCKER_RUNNING],
        }
    ]
}


def start_collector(tmp_path, **sections) -> Collector:
    config = {
        "validation": FACTS,
        "storage": {"path": str(tmp_path / "audit.duckdb"), "flushIntervalMs": 100},
        "receivers": {
            "otlp": {"protocols": {"http": {"endpoint": "127.0.0.1:0"}, "grpc": {"endpoint": "127.0.0.1:0"}}}
        },
        "service": {"api": {"endpoint": "127.0.0.1:0", "token": "s3cret"}},
        "processor": {"decisionWaitMs": 150},
    }
    for key, value in sections.items():
        config[key] = {**config.get(key, {}), **value}
    collector = Collector(load_config(config))
    collector.start()
    return collector


def rows(collector, sql):
    """Rows of the collector's audit store, once everything accepted is processed and stored."""
    collector.engine.flush(10)
    cursor = collector.store.cursor()
    try:
        return cursor.execute(sql).fetchall()
    finally:
        cursor.close()


def post(address, path, body, content_type="application/x-protobuf", headers=None):
    """(status, headers, body) of one POST over a fresh HTTP/1.1 connection."""
    host, port = address.split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    conn.request("POST", path, body=body, headers={"Content-Type": content_type, **(headers or {})})
    response = conn.getresponse()
    return response.status, dict(response.getheaders()), response.read()


def wait_for(predicate, timeout=10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError("condition not met in time")


def llm_messages(text: str) -> str:
    return json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": text}]}])


def trace_request(spans: list[dict], service: str = "agent-svc") -> ExportTraceServiceRequest:
    """spans: dicts with trace, span, parent (ints), name, attrs."""
    request = ExportTraceServiceRequest()
    rs = request.resource_spans.add()
    rs.resource.attributes.append(KeyValueOf("service.name", service))
    ss = rs.scope_spans.add()
    ss.scope.name = "test"
    for s in spans:
        span = ss.spans.add(
            trace_id=s["trace"].to_bytes(16, "big"),
            span_id=s["span"].to_bytes(8, "big"),
            name=s.get("name", "chat"),
            start_time_unix_nano=1,
            end_time_unix_nano=2,
        )
        if s.get("parent"):
            span.parent_span_id = s["parent"].to_bytes(8, "big")
        for key, value in s.get("attrs", {}).items():
            span.attributes.append(KeyValueOf(key, value))
    return request


class Sink:
    """A tiny OTLP/HTTP receiver that keeps what it is sent."""

    def __init__(self) -> None:
        self.requests: list[ExportTraceServiceRequest] = []
        sink = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                request = ExportTraceServiceRequest()
                request.ParseFromString(body)
                sink.requests.append(request)
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        # A short poll interval: shutdown() waits for the next poll.
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        self.endpoint = f"http://127.0.0.1:{self.server.server_address[1]}"

    def spans(self):
        return [s for r in self.requests for rs in r.resource_spans for ss in rs.scope_spans for s in ss.spans]

    def close(self):
        self.server.shutdown()
