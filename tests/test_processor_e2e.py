"""End to end with the real SDK: TracerProvider -> ClaimwatchSpanProcessor -> BatchSpanProcessor -> exporter,
and rows in a real DuckDB file."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from importlib.metadata import version

import duckdb
import pytest
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from claimwatch import ClaimwatchSpanProcessor, OutputBlocked, guard, load_config
from tests.conftest import DOCKER_RUNNING, ROOT

pytestmark = pytest.mark.e2e

FACTS = {
    "factRegistries": [
        {
            "id": "infra",
            "facts": [
                DOCKER_RUNNING,
                {
                    "id": "user-name",
                    "category": "entity_name",
                    "subject": "user",
                    "value": {"type": "name", "correctName": "Albert"},
                },
            ],
        }
    ]
}


def make(tmp_path, **sections):
    config = {"validation": FACTS, "storage": {"path": str(tmp_path / "audit.duckdb")}, **sections}
    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "agent-svc"}))
    processor = ClaimwatchSpanProcessor(BatchSpanProcessor(exporter), config=config)
    provider.add_span_processor(processor)
    return provider, processor, exporter


def claimwatch_attrs(span):
    return {k: v for k, v in span.attributes.items() if k.startswith("claimwatch.")}


def rows(tmp_path, sql):
    con = duckdb.connect(str(tmp_path / "audit.duckdb"), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


CONVENTIONS = {
    "genai": lambda s, text: s.set_attribute(
        "gen_ai.output.messages", json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": text}]}])
    ),
    "genai_structured": lambda s, text: s.set_attribute(
        "gen_ai.output.messages", [{"role": "assistant", "parts": [{"type": "text", "content": text}]}]
    ),
    "completion_event": lambda s, text: s.add_event(
        "gen_ai.content.completion", {"gen_ai.completion": json.dumps([{"role": "assistant", "content": text}])}
    ),
    "openllmetry": lambda s, text: (
        s.set_attribute("gen_ai.completion.0.role", "assistant"),
        s.set_attribute("gen_ai.completion.0.content", text),
    ),
    "openinference": lambda s, text: (
        s.set_attribute("openinference.span.kind", "LLM"),
        s.set_attribute("llm.output_messages.0.message.role", "assistant"),
        s.set_attribute("llm.output_messages.0.message.content", text),
    ),
    "openinference_value": lambda s, text: (
        s.set_attribute("openinference.span.kind", "AGENT"),
        s.set_attribute("output.value", text),
    ),
    "traceloop": lambda s, text: (
        s.set_attribute("traceloop.span.kind", "agent"),
        s.set_attribute("traceloop.entity.output", json.dumps({"result": text})),
    ),
}


# A structured (AnyValue) span attribute is kept from the SDK 1.45 on; earlier SDKs drop it with a warning, so
# no span of theirs holds one. The test extra pins 1.44.0 (google-adk's cap): the case runs where the SDK is newer,
# and extract's reading of a structured value is tested everywhere (test_extract.py).
SDK = tuple(int(x) for x in version("opentelemetry-sdk").split(".")[:2])
STRUCTURED = "genai_structured"


def convention_params():
    old_sdk = pytest.mark.skipif(SDK < (1, 45), reason="the OpenTelemetry SDK keeps structured span attributes from 1.45")
    return [pytest.param(c, marks=old_sdk if c == STRUCTURED else ()) for c in sorted(CONVENTIONS)]


@pytest.mark.parametrize("convention", convention_params())
def test_output_in_each_convention_is_validated_annotated_and_stored(tmp_path, convention):
    provider, _processor, exporter = make(tmp_path)
    tracer = provider.get_tracer("agent")
    with tracer.start_as_current_span(
        "invoke_agent worker-1", attributes={"gen_ai.agent.name": "worker-1", "gen_ai.conversation.id": "conv-42"}
    ):
        with tracer.start_as_current_span("chat model-x") as span:
            CONVENTIONS[convention](span, "Docker is not running. The user is Iulia.")
    provider.shutdown()

    chat = next(s for s in exporter.get_finished_spans() if s.name == "chat model-x")
    attrs = claimwatch_attrs(chat)
    assert attrs["claimwatch.verdict"] == "flag"  # standard tier: contradictions flag
    assert attrs["claimwatch.mode"] == "audit" and attrs["claimwatch.enforced"] is False
    assert attrs["claimwatch.claims.count"] == 2 and attrs["claimwatch.violations.count"] == 2
    assert list(attrs["claimwatch.claims.categories"]) == ["entity_name", "system_state"]
    assert attrs["claimwatch.trust.tier"] == "standard"
    violations = [e for e in chat.events if e.name == "claimwatch.violation"]
    assert {e.attributes["claimwatch.violation.fact_id"] for e in violations} == {"docker-running", "user-name"}
    assert all("claimwatch.violation.matched_text" not in e.attributes for e in violations)
    evaluation = next(e for e in chat.events if e.name == "gen_ai.evaluation.result")
    assert evaluation.attributes["gen_ai.evaluation.name"] == "claimwatch.output_validation"
    assert evaluation.attributes["gen_ai.evaluation.score.label"] == "flag"
    assert evaluation.attributes["gen_ai.evaluation.score.value"] == 0.5
    assert "contradicts fact" in evaluation.attributes["gen_ai.evaluation.explanation"]
    assert "Docker is not running" not in json.dumps(dict(chat.attributes)).replace(
        json.dumps("Docker is not running. The user is Iulia.")[1:-1], ""
    )  # the text is never copied

    (row,) = rows(
        tmp_path,
        "SELECT agent_id, agent_name, session_id, service, verdict, audit_verdict, mode, "
        "claim_count, violation_count, text_length, length(text_sha256) FROM evaluations",
    )
    assert row == ("worker-1", "worker-1", "conv-42", "agent-svc", "flag", "output_flag", "audit", 2, 2, 41, 64)
    assert sorted(rows(tmp_path, "SELECT contradicted_fact_id, severity, action FROM violations")) == [
        ("docker-running", "high", "flag"),
        ("user-name", "high", "flag"),
    ]


def test_spans_without_output_pass_through_unchanged(tmp_path):
    provider, _processor, exporter = make(tmp_path)
    with provider.get_tracer("t").start_as_current_span("GET /health", attributes={"http.method": "GET"}):
        pass
    provider.shutdown()
    (span,) = exporter.get_finished_spans()
    assert claimwatch_attrs(span) == {} and dict(span.attributes) == {"http.method": "GET"}
    assert rows(tmp_path, "SELECT count(*) FROM evaluations") == [(0,)]


def test_guard_raises_for_enforcing_agent_and_span_records_enforcement(tmp_path):
    provider, _processor, exporter = make(
        tmp_path, agents={"rules": [{"match": "sub-*", "trust": 10, "mode": "enforce"}, {"match": "main", "trust": 10}]}
    )
    tracer = provider.get_tracer("agent")
    with tracer.start_as_current_span("invoke_agent sub-1", attributes={"gen_ai.agent.name": "sub-1"}):
        with tracer.start_as_current_span("final answer sub"):
            with pytest.raises(OutputBlocked) as blocked:
                guard("Docker is not running on the build host.")
    with tracer.start_as_current_span("invoke_agent main", attributes={"gen_ai.agent.name": "main"}):
        with tracer.start_as_current_span("final answer main"):
            audited = guard("Docker is not running on the build host.")
    provider.shutdown()

    assert blocked.value.result.verdict == "block"
    assert blocked.value.notice.startswith("[claimwatch] This agent output was blocked")
    assert audited.verdict == "block"  # audit mode: the would-be verdict, no exception
    spans = {s.name: claimwatch_attrs(s) for s in exporter.get_finished_spans()}
    assert (spans["final answer sub"]["claimwatch.mode"], spans["final answer sub"]["claimwatch.enforced"]) == (
        "enforce",
        True,
    )
    assert (spans["final answer main"]["claimwatch.mode"], spans["final answer main"]["claimwatch.enforced"]) == (
        "audit",
        False,
    )
    assert sorted(rows(tmp_path, "SELECT agent_id, mode, enforced, source FROM evaluations")) == [
        ("main", "audit", False, "claimwatch.guard"),
        ("sub-1", "enforce", True, "claimwatch.guard"),
    ]


def test_guard_result_is_reused_for_its_span(tmp_path):
    provider, processor, _exporter = make(tmp_path)
    tracer = provider.get_tracer("agent")
    calls = []
    original = processor.pipeline.check("output").validator.validate
    processor.pipeline.check("output").validator.validate = lambda *a, **k: calls.append(1) or original(*a, **k)
    with tracer.start_as_current_span("chat") as span:
        span.set_attribute(
            "gen_ai.output.messages",
            json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": "Docker is not running."}]}]),
        )
        guard("Docker is not running.", agent_id="worker-9")
    provider.shutdown()
    assert len(calls) == 1
    assert rows(tmp_path, "SELECT agent_id, source FROM evaluations") == [("worker-9", "gen_ai.output.messages")]


def test_guard_without_processor_uses_given_validator_and_mode():
    from claimwatch import OutputValidator

    v = OutputValidator({"validation": FACTS})
    with pytest.raises(OutputBlocked):
        guard("Docker is not running.", agent_id="x", trust=10, processor=None, validator=v, mode="enforce")


@pytest.mark.parametrize(
    ("verbosity", "has_attrs", "matched_text"), [("silent", False, False), ("info", True, False), ("debug", True, True)]
)
def test_verbosity_controls_what_is_written(tmp_path, verbosity, has_attrs, matched_text):
    provider, _processor, exporter = make(tmp_path, annotations={"verbosity": verbosity})
    with provider.get_tracer("t").start_as_current_span("chat") as span:
        CONVENTIONS["genai"](span, "Docker is not running.")
    provider.shutdown()
    (span,) = exporter.get_finished_spans()
    assert ("claimwatch.verdict" in span.attributes) == has_attrs
    violation = [e for e in span.events if e.name == "claimwatch.violation"]
    assert any("claimwatch.violation.matched_text" in e.attributes for e in violation) == matched_text
    assert any(e.name == "claimwatch.claim" for e in span.events) == (verbosity == "debug")
    assert rows(tmp_path, "SELECT count(*) FROM evaluations") == [(1,)]  # rows are written at every verbosity


def test_full_queue_forwards_spans_unvalidated_and_counts_them(tmp_path):
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    processor = ClaimwatchSpanProcessor(
        SimpleSpanProcessor(exporter), config={"processor": {"queueSize": 1}, "storage": {"enabled": False}}
    )
    release = threading.Event()
    original = processor._handle
    processor._handle = lambda span: (release.wait(10), original(span))
    provider.add_span_processor(processor)
    tracer = provider.get_tracer("t")
    for i in range(6):
        with tracer.start_as_current_span(f"s{i}"):
            pass
    dropped = processor.stats()["dropped_unvalidated"]
    release.set()
    provider.shutdown()
    assert dropped >= 3
    assert sorted(s.name for s in exporter.get_finished_spans()) == [f"s{i}" for i in range(6)]


def test_truncated_attribute_is_validated_and_marked(tmp_path):
    provider, _processor, exporter = make(tmp_path)
    value = json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": "Docker is not running. " * 50}]}])
    with provider.get_tracer("t").start_as_current_span("chat") as span:
        span.set_attribute("gen_ai.output.messages", value[:200])
    provider.shutdown()
    (span,) = exporter.get_finished_spans()
    assert span.attributes["claimwatch.truncated"] is True
    assert span.attributes["claimwatch.verdict"] == "flag"
    assert rows(tmp_path, "SELECT truncated FROM evaluations") == [(True,)]


def test_official_openai_instrumentation_spans_are_validated(tmp_path):
    config = tmp_path / "c.json"
    config.write_text(json.dumps({"validation": FACTS, "agents": {"rules": [{"match": "ops-*", "trust": 30}]}}))
    out = subprocess.run(
        [sys.executable, "-m", "tests.helpers.openai_agent", str(tmp_path / "audit.duckdb"), str(config)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    spans = json.loads(out.stdout.strip().splitlines()[-1])
    chat = next(s for s in spans if s["name"].startswith("chat"))
    assert chat["attributes"]["claimwatch.source"] == "gen_ai.output.messages"
    assert chat["attributes"]["claimwatch.verdict"] == "block"  # restricted tier: contradictions block
    assert "gen_ai.evaluation.result" in chat["events"]
    assert rows(tmp_path, "SELECT agent_id, session_id, trust_tier, verdict FROM evaluations") == [
        ("ops-helper", "s-9", "restricted", "block")
    ]


def test_processor_config_can_be_a_path(tmp_path):
    path = tmp_path / "claimwatch.yaml"
    path.write_text(f"storage:\n  path: {tmp_path / 'x.duckdb'}\nannotations:\n  verbosity: debug\n")
    processor = ClaimwatchSpanProcessor(SimpleSpanProcessor(InMemorySpanExporter()), config=str(path))
    assert processor.config.annotations.verbosity == "debug"
    assert processor.config == load_config(path)
    processor.shutdown()


def test_agent_span_repeating_its_llm_output_is_annotated_but_stored_once(tmp_path):
    provider, processor, exporter = make(tmp_path)
    tracer = provider.get_tracer("agent")
    text = "Docker is not running."
    with tracer.start_as_current_span("invoke_agent worker-1", attributes={"gen_ai.agent.name": "worker-1"}) as agent:
        with tracer.start_as_current_span("chat model") as chat:
            CONVENTIONS["genai"](chat, text)
        CONVENTIONS["genai"](agent, text)
    provider.shutdown()
    spans = {s.name: s for s in exporter.get_finished_spans()}
    first, repeat = spans["chat model"], spans["invoke_agent worker-1"]
    assert repeat.attributes["claimwatch.verdict"] == first.attributes["claimwatch.verdict"] == "flag"
    assert repeat.attributes["claimwatch.duplicate_of"] == format(first.context.span_id, "016x")
    assert "claimwatch.duplicate_of" not in first.attributes
    assert rows(tmp_path, "SELECT span_name FROM evaluations") == [("chat model",)]
    assert processor.stats()["duplicate_outputs"] == 1
