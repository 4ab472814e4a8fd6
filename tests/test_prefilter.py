"""The collector's prefilter: a span whose bytes hold no marker is one no builtin check wants."""

from __future__ import annotations

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from claimwatch.checks import actions, tool_policy
from claimwatch.checks.pipeline import IDENTITY_KEYS, Pipeline
from claimwatch.collector.otlp import KeyValueOf, ReceivedSpan, iter_spans
from claimwatch.collector.prefilter import MARKERS, covers, is_plain, plain_wire
from claimwatch.otel import attributes as A
from claimwatch.otel import extract

# Every name the builtin checks' `wants`, identity resolution and the upstream test look for.
READ_NAMES = sorted({*extract._EXACT_KEYS, *extract._PREFIXES, A.GEN_AI_CONTENT_COMPLETION_EVENT,
                     *actions._TOOL_KEYS, *tool_policy._TOOL_KEYS, *IDENTITY_KEYS, A.VERDICT, A.MODE,
                     A.AGENT_TRUST, A.AUTOGEN_SENDER_AGENT_TYPE})


@pytest.mark.parametrize("name", READ_NAMES)
def test_every_name_a_check_reads_holds_a_marker(name):
    assert any(m.decode() in name for m in MARKERS), name


def _spans(attrs: dict, events=()) -> list[ReceivedSpan]:
    request = ExportTraceServiceRequest()
    span = request.resource_spans.add().scope_spans.add().spans.add(trace_id=b"t" * 16, span_id=b"s" * 8, name="step")
    for k, v in attrs.items():
        span.attributes.append(KeyValueOf(k, v))
    for name in events:
        span.events.add(name=name)
    return list(iter_spans(request))


@pytest.mark.parametrize("attrs, events", [
    ({"http.method": "GET", "db.statement": "select 1"}, ()),
    ({"app.attr0": "value", "n": 3, "ok": True}, ("exception",)),
    ({}, ()),
])
def test_a_span_without_markers_is_wanted_by_no_check_when_the_prefilter_passes_it(attrs, events):
    pipeline = Pipeline({})
    assert covers(pipeline.checks)
    span = _spans(attrs, events)[0]
    assert plain_wire(span.proto) == span.proto.SerializeToString()
    assert not any(c.wants(span.record) for c in pipeline.checks)
    assert pipeline.process(span.record) is None


@pytest.mark.parametrize("attrs, events", [
    ({A.GEN_AI_OUTPUT_MESSAGES: "[]"}, ()),
    ({"tool.name": "search"}, ()),
    ({"app.x": "1"}, (A.GEN_AI_CONTENT_COMPLETION_EVENT,)),
    ({"llm.output_messages.0.message.content": "hi"}, ()),
    ({A.VERDICT: "pass", A.MODE: "audit"}, ()),
    ({"note": "a value that merely mentions gen_ai.output.messages"}, ()),  # slower, never wrong
])
def test_a_span_with_a_marker_goes_to_the_checks_when_it_may_be_wanted(attrs, events):
    assert plain_wire(_spans(attrs, events)[0].proto) is None


def test_the_prefilter_is_off_when_a_check_it_does_not_know_is_enabled():
    class Custom:
        name = "custom"

    assert not covers([*Pipeline({}).checks, Custom()])


def test_spans_decoded_with_the_prefilter_keep_their_bytes_only_when_plain():
    """iter_spans with the test: a plain span keeps the bytes it was serialized to (forwarded as they
    are), a span with a marker keeps none (it will be annotated); sizes are the spans' wire sizes."""
    request = ExportTraceServiceRequest()
    spans = request.resource_spans.add().scope_spans.add().spans
    plain = spans.add(trace_id=b"t" * 16, span_id=b"a" * 8, name="step")
    plain.attributes.append(KeyValueOf("http.method", "GET"))
    marked = spans.add(trace_id=b"t" * 16, span_id=b"b" * 8, name="chat")
    marked.attributes.append(KeyValueOf(A.GEN_AI_OUTPUT_MESSAGES, "[]"))
    first, second = iter_spans(request, is_plain)
    assert (first.plain, first.wire) == (True, plain.SerializeToString())
    assert (second.plain, second.wire) == (False, None)
    assert [first.size, second.size] == [plain.ByteSize(), marked.ByteSize()]
    assert [s.size for s in iter_spans(request)] == [first.size, second.size]
    assert all(s.plain is None and s.wire is None for s in iter_spans(request))


@pytest.mark.parametrize("marker", MARKERS)
def test_the_one_pass_marker_test_finds_every_marker_anywhere(marker):
    assert not is_plain(b"\x0a\x03abc" + marker + b"\x00")
    assert not is_plain(marker)
    assert is_plain(marker[:-1] + b"\x00" + marker[-1:])
