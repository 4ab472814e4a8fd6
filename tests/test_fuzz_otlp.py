"""Malformed OTLP over HTTP (protobuf, JSON, gzip) and gRPC: never a 5xx, and the collector keeps working.

A seeded generator mutates valid requests (bit flips, cuts, splices, huge
lengths, wrong JSON types, lone surrogates, deep nesting, broken gzip), so a
failure is reproduced by its seed. `benchmarks/bench_fuzz.py` runs the same
at a larger size.
"""

from __future__ import annotations

import base64
import gzip
import http.client
import json
import random
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

import grpc
import pytest
from google.protobuf import json_format

from tests.otlp_helpers import llm_messages, start_collector, trace_request, wait_for

TRACE_EXPORT = "/opentelemetry.proto.collector.trace.v1.TraceService/Export"
LOGS_EXPORT = "/opentelemetry.proto.collector.logs.v1.LogsService/Export"
# Answers that are not the server's fault; anything else (5xx, other gRPC codes) is a finding.
HTTP_OK = {200, 400, 413, 415}
GRPC_OK = {grpc.StatusCode.OK, grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.RESOURCE_EXHAUSTED}


@dataclass(frozen=True, slots=True)
class FuzzInput:
    transport: str  # "http" or "grpc"
    path: str  # /v1/traces or /v1/logs
    content_type: str
    gzip: bool
    body: bytes
    how: str  # the mutation, for the report


def _valid_request(rng: random.Random):
    spans = []
    for _ in range(rng.randint(1, 4)):
        attrs = {
            "gen_ai.output.messages": llm_messages(rng.choice(["Docker is not running.", "All good.", "ü" * 30])),
            "gen_ai.agent.name": rng.choice(["a", "worker-1", "ö"]),
            "n": rng.randint(-(2**63), 2**63 - 1),
            "f": rng.random(),
            "list": [1, "x", True],
            "map": {"k": {"nested": [1.5, "y"]}},
        }
        spans.append({"trace": rng.randint(1, 2**64), "span": rng.randint(1, 2**63), "parent": rng.choice([0, 1]), "attrs": attrs})
    return trace_request(spans)


def _mutate_bytes(rng: random.Random, data: bytes) -> tuple[bytes, str]:
    data = bytearray(data)
    choice = rng.randrange(8)
    if choice == 0 and data:
        for _ in range(rng.randint(1, 8)):
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
        return bytes(data), "bitflip"
    if choice == 1:
        return bytes(data[: rng.randrange(len(data) + 1)]), "truncate"
    if choice == 2:
        at = rng.randrange(len(data) + 1)
        return bytes(data[:at] + rng.randbytes(rng.randint(1, 32)) + data[at:]), "insert"
    if choice == 3:
        at = rng.randrange(len(data) + 1)
        # a length-delimited field claiming a huge length
        return bytes(data[:at] + bytes([0x0A, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F]) + data[at:]), "huge-length"
    if choice == 4:
        return rng.randbytes(rng.randint(0, 512)), "random"
    if choice == 5 and len(data) > 4:
        a, b = sorted(rng.sample(range(len(data)), 2))
        return bytes(data + data[a:b] * rng.randint(1, 50)), "splice"
    if choice == 6:
        # deeply nested AnyValue arrays: field 5 (array_value) inside field 1 (values), repeated
        nested = b""
        for _ in range(rng.randint(50, 400)):
            nested = b"\x2a" + _varint(len(nested) + 2) + b"\x0a" + _varint(len(nested)) + nested
        return bytes(data + b"\x0a" + _varint(len(nested)) + nested), "deep-protobuf"
    return b"", "empty"


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


_JSON_VALUES = [
    None, True, -1, 2**70, -(2**70), 1e308, "zz", "0" * 31 + "g", "", "\ud800", "\udfff\ud800", [], {}, [[[]]],
    {"stringValue": 5}, {"intValue": "nope"}, {"arrayValue": {"values": "x"}}, "A" * 1000, "ü", 0.5,
]


def _mutate_json(rng: random.Random, data) -> tuple[bytes, str]:
    choice = rng.randrange(6)
    if choice <= 2:
        paths = list(_paths(data))
        container, key = rng.choice(paths)
        container[key] = rng.choice(_JSON_VALUES)
        how = "wrong-value"
    elif choice == 3:
        depth = rng.randint(100, 3000)
        body = (
            '{"resourceSpans":[{"scopeSpans":[{"spans":[{"attributes":[{"key":"k","value":'
            + '{"arrayValue":{"values":[' * depth + "{}" + "]}}" * depth + "}]}]}]}]}"
        )
        return body.encode(), "deep-json"
    elif choice == 4:
        text = json.dumps(data, ensure_ascii=rng.random() < 0.5)
        at = rng.randrange(len(text) + 1)
        junk = rng.choice(['\\ud800', '\\udc00x', '"', "{", "]", "\\", "\x00", "\\u12"])
        return (text[:at] + junk + text[at:]).encode("utf-8", "surrogatepass"), "text-splice"
    else:
        body = json.dumps(data).encode()
        mutated, how = _mutate_bytes(rng, body)
        return mutated, "json-" + how
    return json.dumps(data).encode("utf-8", "surrogatepass"), how


def _paths(node):
    if isinstance(node, dict):
        for key, value in node.items():
            yield node, key
            yield from _paths(value)
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield node, i
            yield from _paths(value)


def _otlp_json(request) -> dict:
    data = json_format.MessageToDict(request)
    for rs in data.get("resourceSpans", []):
        for ss in rs.get("scopeSpans", []):
            for span in ss.get("spans", []):
                for key in ("traceId", "spanId", "parentSpanId"):
                    if key in span:
                        span[key] = base64.b64decode(span[key]).hex()
    return data


def fuzz_inputs(seed: int, count: int) -> Iterator[FuzzInput]:
    """`count` malformed (and some valid) OTLP requests, the same for the same seed."""
    rng = random.Random(seed)
    for _ in range(count):
        request = _valid_request(rng)
        transport = rng.choice(["http", "http", "grpc"])
        path = "/v1/traces" if rng.random() < 0.85 else "/v1/logs"
        if transport == "http" and rng.random() < 0.5:
            content_type = "application/json"
            body, how = _mutate_json(rng, _otlp_json(request))
        else:
            content_type = "application/x-protobuf"
            body, how = _mutate_bytes(rng, request.SerializeToString())
        zipped = transport == "http" and rng.random() < 0.3
        if zipped:
            body = gzip.compress(body)
            if rng.random() < 0.3:
                body, cut = _mutate_bytes(rng, body)
                how += f"+gzip-{cut}"
            else:
                how += "+gzip"
        yield FuzzInput(transport, path, content_type, zipped, body, how)


class FuzzRun:
    """Sends inputs to a running collector and counts the answers."""

    def __init__(self, http_address: str, grpc_address: str) -> None:
        host, port = http_address.rsplit(":", 1)
        self._http = (host, int(port))
        self._conn = None
        self._channel = grpc.insecure_channel(grpc_address)
        self._calls = {TRACE_EXPORT: self._channel.unary_unary(TRACE_EXPORT), "/v1/logs": self._channel.unary_unary(LOGS_EXPORT)}
        self.answers: Counter = Counter()
        self.findings: list[tuple[FuzzInput, object]] = []
        self.sent = 0

    def send(self, item: FuzzInput) -> None:
        self.sent += 1
        if item.transport == "grpc":
            call = self._calls[TRACE_EXPORT if item.path == "/v1/traces" else "/v1/logs"]
            try:
                call(item.body, timeout=30)
                code = grpc.StatusCode.OK
            except grpc.RpcError as exc:
                code = exc.code()
            self.answers[f"grpc {code.name}"] += 1
            if code not in GRPC_OK:
                self.findings.append((item, code))
            return
        status = self._post(item)
        self.answers[f"http {status}"] += 1
        if status not in HTTP_OK:
            self.findings.append((item, status))

    def _post(self, item: FuzzInput):
        headers = {"Content-Type": item.content_type}
        if item.gzip:
            headers["Content-Encoding"] = "gzip"
        for attempt in range(2):  # a connection the server closed after a 4xx is reopened once
            if self._conn is None:
                self._conn = http.client.HTTPConnection(*self._http, timeout=30)
            try:
                self._conn.request("POST", item.path, body=item.body, headers=headers)
                response = self._conn.getresponse()
                response.read()
                if response.will_close:
                    self._conn.close()
                    self._conn = None
                return response.status
            except (ConnectionError, http.client.HTTPException) as exc:
                self._conn.close()
                self._conn = None
                if attempt:
                    return type(exc).__name__
        return "unreachable"

    @property
    def server_errors(self) -> int:
        """Answers that are the server's fault: HTTP 5xx, a dropped connection, gRPC INTERNAL/UNKNOWN/..."""
        return sum(1 for _, answer in self.findings if not isinstance(answer, int) or answer >= 500)

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
        self._channel.close()


@pytest.mark.e2e
@pytest.mark.parametrize("seed", [1, 2])
def test_malformed_otlp_never_gets_a_5xx_and_the_collector_keeps_working(tmp_path, seed):
    collector = start_collector(tmp_path)
    run = FuzzRun(collector.addresses.otlp_http, collector.addresses.otlp_grpc)
    try:
        for item in fuzz_inputs(seed, 300):
            run.send(item)
        assert run.findings == [], [(f.how, f.transport, f.content_type, answer) for f, answer in run.findings[:10]]
        assert run.sent == 300
        assert {k.split()[0] for k in run.answers} == {"http", "grpc"}
        # Still receiving, checking and storing: a valid span afterwards is evaluated.
        before = collector.engine.stats().get("spans_received", 0)
        valid = trace_request([{"trace": 99, "span": 99, "attrs": {"gen_ai.output.messages": llm_messages("Docker is not running.")}}])
        run.send(FuzzInput("http", "/v1/traces", "application/x-protobuf", False, valid.SerializeToString(), "valid"))
        assert run.answers["http 200"] >= 1
        wait_for(lambda: collector.engine.stats().get("spans_received", 0) > before)
        collector.engine.flush(10)
        cursor = collector.store.cursor()
        try:
            assert cursor.execute(
                "SELECT count(*) FROM evaluations WHERE trace_id = $t", {"t": (99).to_bytes(16, "big").hex()}
            ).fetchall() == [(1,)]
        finally:
            cursor.close()
    finally:
        run.close()
        collector.stop()
