"""Requests the collector writes on the wire itself are byte for byte what protobuf would have built."""

from __future__ import annotations

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.trace.v1 import trace_pb2

from claimwatch.collector.otlp import (
    KeyValueOf,
    add_event,
    annotate,
    build_request,
    encode_request,
    iter_spans,
    upsert_attributes,
)
from claimwatch.otel.records import EventRecord


def _request() -> ExportTraceServiceRequest:
    request = ExportTraceServiceRequest()
    first = request.resource_spans.add(schema_url="https://schema/r")
    first.resource.attributes.append(KeyValueOf("service.name", "a"))
    scope = first.scope_spans.add(schema_url="https://schema/s")
    scope.scope.name = "lib"
    scope.spans.add(trace_id=b"a" * 16, span_id=b"1" * 8, name="one")
    first.scope_spans.add().spans.add(trace_id=b"b" * 16, span_id=b"2" * 8)
    request.resource_spans.add().scope_spans.add().spans.add(trace_id=b"c" * 16, span_id=b"3" * 8, name="three")
    return request


def test_an_encoded_request_is_the_built_request_serialized_byte_for_byte():
    spans = list(iter_spans(_request()))
    spans[0].wire = spans[0].proto.SerializeToString()  # unchanged since parsed: its bytes are reused
    spans[2].proto.attributes.append(KeyValueOf("claimwatch.verdict", "pass"))  # changed: serialized anew
    mixed = [spans[2], spans[0], spans[1]]
    encoded = encode_request(mixed)
    assert encoded.SerializeToString() == build_request(mixed).SerializeToString()
    assert encoded.span_count == 3


@pytest.mark.parametrize("size", [0, 100, 200, 20_000])
def test_spans_of_every_length_framing_are_encoded_as_protobuf_does(size):
    """Lengths under 128 bytes, under 16 KiB and over it take three framings."""
    request = _request()
    request.resource_spans[0].scope_spans[0].spans[0].attributes.append(KeyValueOf("big", "x" * size))
    spans = list(iter_spans(request))
    assert encode_request(spans).SerializeToString() == build_request(spans).SerializeToString()


def _copied_split(request, n: int) -> dict[int, bytes]:
    """How the worker pool split a request before split_request: copies into new messages."""
    import zlib

    outs: dict[int, ExportTraceServiceRequest] = {}
    for rs in request.resource_spans:
        for ss in rs.scope_spans:
            groups: dict[int, list] = {}
            for span in ss.spans:
                if len(span.trace_id) == 16 and len(span.span_id) == 8:
                    groups.setdefault(zlib.crc32(span.trace_id) % n, []).append(span)
            for i, spans in groups.items():
                out = outs.setdefault(i, ExportTraceServiceRequest())
                o_rs = out.resource_spans.add(resource=rs.resource, schema_url=rs.schema_url)
                o_ss = o_rs.scope_spans.add(scope=ss.scope, schema_url=ss.schema_url)
                o_ss.spans.extend(spans)
    return {i: o.SerializeToString() for i, o in outs.items()}


@pytest.mark.parametrize("n", [1, 2, 3])
def test_a_request_split_for_the_workers_is_byte_for_byte_what_copying_gave(n):
    from claimwatch.collector.workers import split_request

    request = _request()
    scope = request.resource_spans[0].scope_spans[0]
    for k in range(20):
        span = scope.spans.add(trace_id=k.to_bytes(16, "big"), span_id=(k + 9).to_bytes(8, "big"), name=f"s{k}")
        span.attributes.append(KeyValueOf("k", k))
    scope.spans.add(trace_id=b"short", span_id=b"x" * 8)  # rejected
    request.resource_spans.add().scope_spans.add().spans.add(trace_id=b"", span_id=b"")  # a group left empty
    payloads, counts, total, bad = split_request(request, n)
    assert payloads == _copied_split(request, n)
    assert (total, bad, sum(counts.values())) == (25, 2, 23)


def _twenty_more(request) -> ExportTraceServiceRequest:
    scope = request.resource_spans[0].scope_spans[0]
    for k in range(20):
        span = scope.spans.add(trace_id=k.to_bytes(16, "big"), span_id=(k + 9).to_bytes(8, "big"), name=f"s{k}")
        span.attributes.append(KeyValueOf("k", "v" * (k * 40)))  # one- and two-byte length framings
    scope.spans.add(trace_id=b"short", span_id=b"x" * 8)  # rejected
    request.resource_spans.add().scope_spans.add().spans.add(trace_id=b"", span_id=b"")  # a group left empty
    request.resource_spans.add()  # no scope at all
    return request


@pytest.mark.parametrize("n", [1, 2, 3])
def test_a_request_split_from_its_own_bytes_is_what_splitting_the_decoded_request_gives(n):
    from claimwatch.collector.workers import split_request

    request = _twenty_more(_request())
    wire = request.SerializeToString()
    assert split_request(request, n, wire) == split_request(request, n)


def _span_field(number: int, payload: bytes) -> bytes:
    return bytes([number << 3 | 2, len(payload)]) + payload


@pytest.mark.parametrize("extra", [
    _span_field(1, b"z" * 16),  # a second trace id: protobuf reads the last, and so must the routing
    _span_field(1, b"z" * 5),  # ... which makes the span's trace id invalid
    b"\x50\x01",  # span kind (a varint) after the ids
])
def test_a_span_written_unusually_is_routed_as_protobuf_reads_it(extra):
    from claimwatch.collector.otlp import resource_spans_wire, scope_spans_wire
    from claimwatch.collector.workers import split_request

    request = _twenty_more(_request())
    # The request written again with a field appended inside its first span (repeated fields concatenate).
    parts = []
    for r, rs in enumerate(request.resource_spans):
        scopes = []
        for s, ss in enumerate(rs.scope_spans):
            spans = [span.SerializeToString() for span in ss.spans]
            if r == s == 0:
                spans[0] += extra
            scopes.append(scope_spans_wire(ss.scope.SerializeToString(), ss.schema_url, spans))
        parts.append(resource_spans_wire(rs.resource.SerializeToString(), rs.schema_url, scopes))
    wire = b"".join(parts)
    odd = ExportTraceServiceRequest.FromString(wire)
    for n in (1, 2, 3):
        payloads, counts, total, bad = split_request(odd, n, wire)
        expected = split_request(odd, n)
        assert (counts, total, bad) == expected[1:]
        assert payloads.keys() == expected[0].keys()
        for i, payload in payloads.items():  # the same spans to the same workers (the bytes as they came)
            assert ExportTraceServiceRequest.FromString(payload) == ExportTraceServiceRequest.FromString(expected[0][i])


def test_a_request_with_a_field_the_split_does_not_walk_is_split_from_the_decoded_request():
    from claimwatch.collector.workers import split_request

    request = _twenty_more(_request())
    for odd in (request.SerializeToString() + b"\x10\x01",  # an unknown varint field of the request
                request.SerializeToString()[:-1]):  # cut short (what the decoded request holds is decided already)
        assert split_request(request, 2, odd) == split_request(request, 2)


_ANNOTATIONS = [
    ({"claimwatch.verdict": "pass", "claimwatch.enforced": False, "claimwatch.checks": ["output", "actions"],
      "claimwatch.claims.count": 0, "claimwatch.trust.score": 50, "claimwatch.evaluation_us": 372.6,
      "claimwatch.claims.categories": [], "claimwatch.zero": 0.0, "claimwatch.negative_zero": -0.0,
      "claimwatch.long": "x" * 300, "claimwatch.unicode": "é ✓", "claimwatch.nested": [{"a": [1, "b"]}],
      "claimwatch.none": None, "claimwatch.one": 1, "claimwatch.true": True, "claimwatch.float_one": 1.0,
      "claimwatch.false": False, "claimwatch.empty": "", "claimwatch.minus": -7, "claimwatch.int64_min": -(1 << 63),
      "claimwatch.int64_max": (1 << 63) - 1, "claimwatch.big": 1 << 40, "claimwatch.mixed": ["a", 1, True, 2.5, -3],
      "claimwatch.nested_empty": [[]], "claimwatch.with_none": [None, "a"], "claimwatch.kv": {"a": 1},
      "claimwatch.tuple": ("a", "b"), "": "no key", "claimwatch.é": "ü" * 200, "claimwatch.nan": float("inf")},
     [("gen_ai.evaluation.result", {"gen_ai.evaluation.score.value": 1.0, "gen_ai.evaluation.name": "x"}, 0),
      ("claimwatch.violation", {"claimwatch.violation.reason": "r" * 400}, 1_700_000_000_000_000_123),
      ("", {}, 0), ("é", {"k": []}, (1 << 64) - 1)]),
    ({}, []),
    ({"claimwatch.verdict": "flag"}, [("gen_ai.evaluation.result", {"gen_ai.evaluation.explanation": "x" * 5000}, 9)]),
]


@pytest.mark.parametrize("attrs, events", _ANNOTATIONS)
def test_annotations_merged_as_bytes_are_what_the_writes_make(attrs, events):
    """`annotate` (one merge of the annotations' serialization) gives the span `upsert_attributes` and
    `add_event` would, twice over (the second time from the kept KeyValue serializations)."""
    for _ in range(2):
        base = trace_pb2.Span(trace_id=b"a" * 16, span_id=b"1" * 8, name="chat", end_time_unix_nano=7)
        base.attributes.append(KeyValueOf("gen_ai.output.messages", "[]"))
        base.events.add(name="earlier", time_unix_nano=3)
        written, merged = trace_pb2.Span(), trace_pb2.Span()
        written.CopyFrom(base)
        merged.CopyFrom(base)
        upsert_attributes(written.attributes, attrs, False)
        for name, event_attrs, time_ns in events:
            add_event(written, name, event_attrs, time_ns)
        annotate(merged, attrs, [EventRecord(n, a, t) for n, a, t in events])
        assert merged == written
        assert merged.SerializeToString() == written.SerializeToString()
