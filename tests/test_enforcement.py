"""Enforcement that cannot be sidestepped (issue 9, items 1-4, 7, 8, 14), end to end:
the real OpenTelemetry SDK exporting over OTLP/HTTP to the collector, which forwards to a sink."""

from __future__ import annotations

import json
import zlib

import pytest
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter as HttpExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.id_generator import RandomIdGenerator

from claimwatch import ClaimwatchSpanProcessor
from claimwatch.collector.otlp import any_value
from tests.otlp_helpers import FACTS, Sink, llm_messages, rows, start_collector, wait_for

pytestmark = pytest.mark.e2e

BLOCKED = "Docker is not running on this machine."
AGENTS = {
    "rules": [
        {"match": "main", "trust": 65, "mode": "audit"},
        {"match": "sub-enforcer", "trust": 10, "mode": "enforce"},
    ]
}


@pytest.fixture
def sink():
    s = Sink()
    yield s
    s.close()


@pytest.fixture
def collector(tmp_path, sink):
    c = start_collector(
        tmp_path,
        agents=AGENTS,
        exporters={"otlp": {"endpoint": sink.endpoint, "protocol": "http/protobuf"}},
        annotations={"verbosity": "debug"},
    )
    yield c
    c.stop()


def send(collector, build) -> None:
    provider = TracerProvider(resource=Resource.create({"service.name": "agents"}))
    provider.add_span_processor(
        SimpleSpanProcessor(HttpExporter(endpoint=f"http://{collector.addresses.otlp_http}/v1/traces"))
    )
    build(provider.get_tracer("agent"))
    provider.shutdown()
    collector.engine.flush(10)


def forwarded(sink, count):
    wait_for(lambda: len(sink.spans()) >= count)
    return {s.name: s for s in sink.spans()}


def attrs(span) -> dict:
    return {kv.key: any_value(kv.value) for kv in span.attributes}


def everything(span) -> str:
    """Every attribute and event value of a forwarded span, as one string."""
    parts = [json.dumps(attrs(span), default=str)]
    parts += [json.dumps({kv.key: any_value(kv.value) for kv in e.attributes}, default=str) for e in span.events]
    return "\n".join(parts)


def test_same_text_from_an_enforcing_sub_agent_is_judged_and_redacted_when_its_parent_audits(collector, sink):
    def build(tracer):
        with tracer.start_as_current_span("invoke_agent main", attributes={"gen_ai.agent.name": "main"}):
            with tracer.start_as_current_span("chat main") as s:
                s.set_attribute("gen_ai.output.messages", llm_messages(BLOCKED))
            with tracer.start_as_current_span("invoke_agent sub", attributes={"gen_ai.agent.name": "sub-enforcer"}):
                with tracer.start_as_current_span("chat sub") as s:
                    s.set_attribute("gen_ai.output.messages", llm_messages(BLOCKED))

    send(collector, build)
    spans = forwarded(sink, 4)
    sub = attrs(spans["chat sub"])
    assert (sub["claimwatch.mode"], sub["claimwatch.verdict"], sub["claimwatch.enforced"]) == ("enforce", "block", True)
    assert "claimwatch.duplicate_of" not in sub
    assert BLOCKED not in everything(spans["chat sub"])
    assert sorted(rows(collector, "SELECT agent_id, mode, verdict FROM evaluations")) == [
        ("main", "audit", "flag"),
        ("sub-enforcer", "enforce", "block"),
    ]


def test_repeated_output_of_separate_llm_calls_is_judged_each_time(collector, sink):
    def build(tracer):
        with tracer.start_as_current_span("invoke_agent main", attributes={"gen_ai.agent.name": "main"}):
            for i in range(3):
                with tracer.start_as_current_span(f"chat {i}") as s:
                    s.set_attribute("gen_ai.output.messages", llm_messages(BLOCKED))

    send(collector, build)
    assert rows(collector, "SELECT count(*) FROM evaluations") == [(3,)]
    assert collector.engine.stats().get("duplicate_outputs", 0) == 0


def test_blocked_text_is_redacted_under_keys_claimwatch_never_heard_of(collector, sink):
    messages = json.dumps([{"parts": [{"part_kind": "text", "content": BLOCKED}], "kind": "response"}])

    def build(tracer):
        with tracer.start_as_current_span(
            "invoke_agent sub", attributes={"gen_ai.agent.name": "sub-enforcer"}
        ) as agent:
            with tracer.start_as_current_span("chat sub") as s:
                s.set_attribute("gen_ai.output.messages", llm_messages(BLOCKED))
            # pydantic-ai's agent span repeats the answer under keys of its own.
            agent.set_attribute("final_result", BLOCKED)
            agent.set_attribute("pydantic_ai.all_messages", messages)
            agent.set_attribute("acme.never.seen.before", f"summary: {BLOCKED}")
            agent.add_event("acme.answer", {"text": BLOCKED})

    send(collector, build)
    spans = forwarded(sink, 2)
    agent = spans["invoke_agent sub"]
    assert BLOCKED not in everything(agent)
    a = attrs(agent)
    assert a["final_result"].startswith("[claimwatch] This agent output was blocked")
    assert json.loads(a["pydantic_ai.all_messages"])[0]["kind"] == "response"  # shape kept
    assert a["acme.never.seen.before"].startswith("summary: [claimwatch]")


def test_debug_verbosity_sends_no_blocked_text_downstream(collector, sink):
    def build(tracer):
        with tracer.start_as_current_span("invoke_agent sub", attributes={"gen_ai.agent.name": "sub-enforcer"}):
            with tracer.start_as_current_span("chat sub") as s:
                s.set_attribute("gen_ai.output.messages", llm_messages(BLOCKED))

    send(collector, build)
    span = forwarded(sink, 2)["chat sub"]
    assert "matched_text" not in everything(span)
    assert "not running on this machine" not in everything(span)


def test_block_notice_names_the_reason_class(collector, sink):
    def build(tracer):
        with tracer.start_as_current_span("invoke_agent sub", attributes={"gen_ai.agent.name": "sub-enforcer"}):
            with tracer.start_as_current_span("chat sub") as s:
                s.set_attribute("gen_ai.output.messages", llm_messages("My system prompt says I should only summarise files."))

    send(collector, build)
    span = forwarded(sink, 2)["chat sub"]
    text = json.loads(attrs(span)["gen_ai.output.messages"])[0]["parts"][0]["content"]
    assert "own instructions or prompt" in text
    assert "contradicts known facts" not in text


def test_structured_output_messages_stay_structured_after_redaction(collector, sink):
    def build(tracer):
        with tracer.start_as_current_span("invoke_agent sub", attributes={"gen_ai.agent.name": "sub-enforcer"}):
            with tracer.start_as_current_span("chat sub") as s:
                s.set_attribute("gen_ai.output.messages", llm_messages(BLOCKED))
                s.set_attribute("output.value", json.dumps({"answer": BLOCKED, "confidence": 0.9}))
                s.set_attribute("output.mime_type", "application/json")

    send(collector, build)
    a = attrs(forwarded(sink, 2)["chat sub"])
    assert json.loads(a["gen_ai.output.messages"])[0]["role"] == "assistant"
    value = json.loads(a["output.value"])
    assert value["confidence"] == 0.9 and value["answer"].startswith("[claimwatch]")


def test_a_span_evaluated_upstream_keeps_its_evaluation_and_gets_one_result_event(tmp_path, sink):
    """Collector A (enforce) forwards to collector B (audit); the sink sees A's block, once."""
    (tmp_path / "b").mkdir()
    b = start_collector(tmp_path / "b", exporters={"otlp": {"endpoint": sink.endpoint, "protocol": "http/protobuf"}})
    (tmp_path / "a").mkdir()
    a = start_collector(
        tmp_path / "a",
        agents={"defaultMode": "enforce", "rules": [{"match": "*", "trust": 10}]},
        exporters={"otlp": {"endpoint": f"http://{b.addresses.otlp_http}", "protocol": "http/protobuf"}},
    )
    try:

        def build(tracer):
            with tracer.start_as_current_span("chat") as s:
                s.set_attribute("gen_ai.output.messages", llm_messages(BLOCKED))

        send(a, build)
        a.engine.flush(10)
        wait_for(lambda: sink.spans())
        b.engine.flush(10)
        span = sink.spans()[0]
        got = attrs(span)
        assert (got["claimwatch.verdict"], got["claimwatch.enforced"]) == ("block", True)
        assert sum(e.name == "gen_ai.evaluation.result" for e in span.events) == 1
        assert rows(b, "SELECT verdict, enforced FROM evaluations") == [("block", True)]
        assert b.engine.stats()["evaluated_upstream"] == 1
    finally:
        a.stop()
        b.stop()


def test_in_process_processor_then_collector_doubles_no_event(tmp_path, sink):
    c = start_collector(tmp_path, exporters={"otlp": {"endpoint": sink.endpoint, "protocol": "http/protobuf"}})
    try:
        provider = TracerProvider()
        exporter = HttpExporter(endpoint=f"http://{c.addresses.otlp_http}/v1/traces")
        config = {"validation": FACTS, "storage": {"enabled": False}}
        provider.add_span_processor(ClaimwatchSpanProcessor(SimpleSpanProcessor(exporter), config=config))
        with provider.get_tracer("agent").start_as_current_span("chat") as s:
            s.set_attribute("gen_ai.output.messages", llm_messages(BLOCKED))
        provider.shutdown()
        c.engine.flush(10)
        span = wait_for(lambda: sink.spans())[0]
        assert sum(e.name == "gen_ai.evaluation.result" for e in span.events) == 1
        assert attrs(span)["claimwatch.verdict"] == "flag"
    finally:
        c.stop()


def test_a_lone_surrogate_fails_no_trace(collector, sink):
    # The messages attribute is valid UTF-8 JSON; the text inside it, once decoded, holds half an emoji.
    broken = json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": "Docker is not running \udcff here."}]}])
    assert "\\udcff" in broken

    def build(tracer):
        with tracer.start_as_current_span("invoke_agent sub", attributes={"gen_ai.agent.name": "sub-enforcer"}):
            with tracer.start_as_current_span("chat sub") as s:
                s.set_attribute("gen_ai.output.messages", broken)
            with tracer.start_as_current_span("chat ok") as s:
                s.set_attribute("gen_ai.output.messages", llm_messages("All done."))

    send(collector, build)
    spans = forwarded(sink, 3)
    assert attrs(spans["chat sub"])["claimwatch.enforced"] is True
    assert rows(collector, "SELECT count(*) FROM evaluations WHERE agent_id = 'sub-enforcer'") == [(2,)]
    assert collector.engine.stats().get("span_errors", 0) == 0


def test_in_process_enforcement_redacts_the_exported_copy(tmp_path):
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    config = {"validation": FACTS, "agents": AGENTS, "storage": {"enabled": False},
              "annotations": {"verbosity": "debug"}}
    provider.add_span_processor(ClaimwatchSpanProcessor(SimpleSpanProcessor(exporter), config=config))
    tracer = provider.get_tracer("agent")
    with tracer.start_as_current_span("invoke_agent sub", attributes={"gen_ai.agent.name": "sub-enforcer"}) as agent:
        with tracer.start_as_current_span("chat sub") as s:
            s.set_attribute("gen_ai.output.messages", llm_messages(BLOCKED))
        agent.set_attribute("final_result", BLOCKED)
    provider.shutdown()
    spans = {s.name: s for s in exporter.get_finished_spans()}
    for span in spans.values():
        dumped = json.dumps(dict(span.attributes), default=str) + json.dumps(
            [dict(e.attributes) for e in span.events], default=str
        )
        assert BLOCKED not in dumped and "matched_text" not in dumped
    assert spans["chat sub"].attributes["claimwatch.enforced"] is True


def test_secret_in_an_output_is_masked_in_stored_rows(collector, sink):
    key = "sk-proj-" + "A1b2C3d4E5f6G7h8J9k0" * 2

    def build(tracer):
        with tracer.start_as_current_span("invoke_agent main", attributes={"gen_ai.agent.name": "main"}):
            with tracer.start_as_current_span("chat main") as s:
                s.set_attribute("gen_ai.output.messages", llm_messages(f"The key {key} is not installed."))

    send(collector, build)
    stored = rows(collector, "SELECT matched_text, subject FROM violations") + rows(
        collector, "SELECT matched_text, subject FROM claims"
    )
    assert stored and all(key not in str(r) for r in stored)
    assert any("[secret]" in str(r) for r in stored)


def _calls_in_traces_of_their_own(tracer) -> None:
    """Three LLM calls, each a root span (a trace of its own), as OpenLLMetry writes an agent's calls: the
    enforcing agent's blocked answer, its next call (the blocked turn sent back as history), and another
    agent's call quoting the same words."""
    history = json.dumps(
        [
            {"role": "user", "parts": [{"type": "text", "content": "Is docker up?"}]},
            {"role": "assistant", "parts": [{"type": "text", "content": BLOCKED}]},
        ]
    )
    for name, agent, output in (("chat 1", "sub-enforcer", BLOCKED), ("chat 2", "sub-enforcer", "Done."),
                                ("chat 3", "main", "Noted.")):  # fmt: skip
        with tracer.start_as_current_span(name, attributes={"gen_ai.agent.name": agent}) as s:
            if name != "chat 1":
                s.set_attribute("gen_ai.input.messages", history)
            s.set_attribute("gen_ai.output.messages", llm_messages(output))


def test_blocked_text_sent_back_as_history_in_the_agents_next_trace_is_redacted(collector, sink):
    send(collector, _calls_in_traces_of_their_own)
    spans = forwarded(sink, 3)
    assert len({s.trace_id for s in spans.values()}) == 3
    assert attrs(spans["chat 1"])["claimwatch.enforced"] is True
    assert BLOCKED not in everything(spans["chat 1"]) and BLOCKED not in everything(spans["chat 2"])
    assert json.loads(attrs(spans["chat 2"])["gen_ai.input.messages"])[1]["role"] == "assistant"  # shape kept
    assert BLOCKED in everything(spans["chat 3"])  # another agent's trace is not this block's business


def test_in_process_blocked_text_sent_back_as_history_in_the_agents_next_trace_is_redacted():
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    config = {"validation": FACTS, "agents": AGENTS, "storage": {"enabled": False}}
    provider.add_span_processor(ClaimwatchSpanProcessor(SimpleSpanProcessor(exporter), config=config))
    _calls_in_traces_of_their_own(provider.get_tracer("agent"))
    provider.shutdown()
    spans = {s.name: json.dumps(dict(s.attributes), default=str) for s in exporter.get_finished_spans()}
    assert BLOCKED not in spans["chat 1"] and BLOCKED not in spans["chat 2"]
    assert BLOCKED in spans["chat 3"]


def test_an_agents_blocked_texts_follow_it_for_its_conversation_not_for_good():
    from claimwatch.checks.pipeline import Pipeline
    from claimwatch.otel.records import SpanRecord

    pipeline = Pipeline({"validation": FACTS, "agents": AGENTS, "storage": {"enabled": False}})
    minute = 60 * 10**9

    def call(trace: int, at_minutes: int, output: str) -> SpanRecord:
        attrs = {"gen_ai.agent.name": "sub-enforcer", "gen_ai.output.messages": llm_messages(output)}
        end = 10**18 + at_minutes * minute
        return SpanRecord(f"{trace:032x}", f"{trace:016x}", None, "chat", attrs, start_ns=end - 1, end_ns=end)

    assert pipeline.process(call(1, 0, BLOCKED)).enforced
    pipeline.process(call(2, 5, "Done."))  # the next call, five minutes on
    pipeline.process(call(3, 40, "Done."))  # a conversation of its own, forty minutes on
    assert pipeline.blocked_in(f"{2:032x}")[0] == (BLOCKED,)
    assert pipeline.blocked_in(f"{3:032x}") is None


class _TraceIds(RandomIdGenerator):
    """Trace ids from a list, so a test knows which worker process each trace is routed to."""

    def __init__(self, ids: list[int]) -> None:
        self._ids = iter(ids)

    def generate_trace_id(self) -> int:
        return next(self._ids)


def test_with_worker_processes_an_agents_block_follows_it_into_a_trace_routed_to_another_worker(tmp_path, sink):
    # Traces are routed to workers by trace id (crc32 % workers): the enforcing agent's next call, a trace of
    # its own that sends the blocked turn back as history, went to the other worker, which had never seen the
    # block, and was forwarded with the blocked text in it.
    c = start_collector(tmp_path, agents=AGENTS, processor={"workers": 2},
                        exporters={"otlp": {"endpoint": sink.endpoint, "protocol": "http/protobuf"}})  # fmt: skip
    try:
        first, second = 1, 4
        assert zlib.crc32(first.to_bytes(16, "big")) % 2 != zlib.crc32(second.to_bytes(16, "big")) % 2
        history = json.dumps([{"role": "user", "parts": [{"type": "text", "content": "Is docker up?"}]},
                              {"role": "assistant", "parts": [{"type": "text", "content": BLOCKED}]}])  # fmt: skip
        for trace_id, name, output, inputs in ((first, "chat 1", BLOCKED, None), (second, "chat 2", "Done.", history)):
            provider = TracerProvider(id_generator=_TraceIds([trace_id]))
            provider.add_span_processor(
                SimpleSpanProcessor(HttpExporter(endpoint=f"http://{c.addresses.otlp_http}/v1/traces"))
            )
            with provider.get_tracer("agent").start_as_current_span(name) as span:
                span.set_attribute("gen_ai.agent.name", "sub-enforcer")
                if inputs:
                    span.set_attribute("gen_ai.input.messages", inputs)
                span.set_attribute("gen_ai.output.messages", llm_messages(output))
            provider.shutdown()
            assert c.engine.flush(30)  # the block is made before the next call, as in a real tool loop
        spans = forwarded(sink, 2)
        assert attrs(spans["chat 1"])["claimwatch.enforced"] is True
        assert BLOCKED not in everything(spans["chat 1"]) and BLOCKED not in everything(spans["chat 2"])
        assert json.loads(attrs(spans["chat 2"])["gen_ai.input.messages"])[1]["role"] == "assistant"  # shape kept
    finally:
        c.stop()
