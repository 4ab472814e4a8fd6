"""Two workers, each with its own database, export to one Parquet directory; `claimwatch query --fleet`
over it answers like one collector that saw every trace, and the union of the workers' rows is that
collector's rows. Real OpenTelemetry SDK and OTLP/HTTP exporter into three in-process collectors."""

from __future__ import annotations

import json
import time
from collections import Counter

import duckdb
import pytest
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

from claimwatch.collector.cli import main
from claimwatch.store.export import fleet_connection
from tests.otlp_helpers import llm_messages, start_collector, wait_for

pytestmark = pytest.mark.e2e

AGENTS = ("planner", "coder", "reviewer")
REPLIES = (
    "Docker is not running.",
    "Fixed it: all tests pass.",
    "Redis is down, so I restarted the cache.",
    "Node.js is not installed on this machine.",
    "The deploy finished and everything looks healthy.",
    "I cannot access the database right now.",
)
COMMANDS = (
    ("pytest -q", "=========== 1 failed, 3 passed in 0.21s ==========="),
    ("pytest -q", "=========== 4 passed in 0.30s ==========="),
    ("rm -rf /var/lib/app", ""),
    ("ls", "README.md\nsrc"),
)
HOUR_NS = 3600 * 10**9
QUERIES = (
    "verdict_counts",
    "rates_by_agent",
    "rates_by_tier",
    "top_detectors",
    "top_categories",
    "violations",
    "claims",
    "claim_status_by_agent",
    "top_contradicted_facts",
    "actions_by_agent",
    "policy_decisions",
    "policy_tools",
    "verdicts_over_time",
)
TABLES = ("evaluations", "violations", "claims", "action_findings", "tool_policy_decisions")


class ByTraceId(SpanProcessor):
    """Each finished span to one of the workers by trace id, and to the single node."""

    def __init__(self, workers: list[SpanProcessor], single: SpanProcessor) -> None:
        self.workers, self.single = workers, single

    def on_end(self, span) -> None:
        self.workers[span.context.trace_id % len(self.workers)].on_end(span)
        self.single.on_end(span)

    def shutdown(self) -> None:
        for p in (*self.workers, self.single):
            p.shutdown()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return all(p.force_flush(timeout_millis) for p in (*self.workers, self.single))


def _exporter(collector) -> BatchSpanProcessor:
    return BatchSpanProcessor(OTLPSpanExporter(endpoint=f"http://{collector.addresses.otlp_http}/v1/traces"))


def _run_agents(processor: SpanProcessor, traces: int) -> Counter:
    """`traces` agent runs spread over the last three days; spans sent per trace id parity.

    One conversation per trace: the tool policy's escalation counts a session's calls, and a
    session split across workers counts apart on each (shared session state is another item)."""
    provider = TracerProvider(resource=Resource.create({"service.name": "agent-svc"}))
    provider.add_span_processor(processor)
    tracer = provider.get_tracer("fleet-test")
    now = time.time_ns()
    sent: Counter = Counter()
    for i in range(traces):
        start = now - (i * 72 * HOUR_NS) // traces - HOUR_NS
        agent = AGENTS[i % len(AGENTS)]
        root = tracer.start_span(f"invoke_agent {agent}", start_time=start, attributes={
            "gen_ai.agent.name": agent, "gen_ai.conversation.id": f"conv-{i}"})
        ctx = trace.set_span_in_context(root)
        command, result = COMMANDS[i % len(COMMANDS)]
        tool = tracer.start_span("execute_tool bash", context=ctx, start_time=start + 1000, attributes={
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "bash",
            "gen_ai.tool.call.arguments": json.dumps({"command": command}),
            "gen_ai.tool.call.id": f"call-{i}", "gen_ai.tool.call.result": result})
        tool.end(end_time=start + 2000)
        chat = tracer.start_span("chat model", context=ctx, start_time=start + 3000, attributes={
            "gen_ai.operation.name": "chat", "gen_ai.output.messages": llm_messages(REPLIES[i % len(REPLIES)])})
        chat.end(end_time=start + 4000)
        root.end(end_time=start + 5000)
        sent[root.get_span_context().trace_id % 2] += 3
    provider.shutdown()
    return sent


def _json(argv, capsys) -> list:
    assert main([*argv, "--format", "json"]) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def _sorted(rows: list[dict]) -> list[str]:
    return sorted(json.dumps(r, sort_keys=True) for r in rows)


def _multiset(con, table: str, columns: list[str]) -> Counter:
    listed = ", ".join(f'"{c}"' for c in columns)
    return Counter(map(repr, con.execute(f"SELECT {listed} FROM {table}").fetchall()))


def test_two_workers_exported_answer_like_one_collector_that_saw_everything(tmp_path, capsys):
    fleet = tmp_path / "fleet"
    workers = [
        start_collector(tmp_path, storage={"path": str(tmp_path / f"w{n}.duckdb"),
                                           "export": {"path": str(fleet), "worker": f"w{n}", "everyMs": 200}})
        for n in (0, 1)
    ]
    single = start_collector(tmp_path, storage={"path": str(tmp_path / "single.duckdb")})
    try:
        sent = _run_agents(ByTraceId([_exporter(w) for w in workers], _exporter(single)), traces=48)
        assert sent[0] and sent[1]  # both workers have work
        for n, w in enumerate(workers):
            wait_for(lambda w=w, n=n: w.engine.stats().get("spans_received", 0) >= sent[n], timeout=30)
        wait_for(lambda: single.engine.stats().get("spans_received", 0) >= sent[0] + sent[1], timeout=30)
        # The periodic pass exports the closed days while the workers run.
        wait_for(lambda: all(w.status()["counters"]["export_partitions_written"] for w in workers), timeout=30)
    finally:
        for c in (*workers, single):
            c.stop()  # a worker's stop exports its open partition too

    for name in QUERIES:
        limit = ["--param", "limit=100000"] if name in {"violations", "claims", "rates_by_agent", "top_detectors",
                                                       "top_contradicted_facts", "actions_by_agent",
                                                       "policy_tools"} else []
        one = _json(["query", name, "--db", str(tmp_path / "single.duckdb"), *limit], capsys)
        everyone = _json(["query", name, "--fleet", str(fleet), *limit], capsys)
        assert _sorted(everyone) == _sorted(one), name
    assert _json(["query", "verdict_counts", "--db", str(tmp_path / "single.duckdb")], capsys)

    con = fleet_connection(str(fleet))
    node = duckdb.connect(str(tmp_path / "single.duckdb"), read_only=True)
    try:
        assert sorted(r[0] for r in con.execute("SELECT DISTINCT worker FROM evaluations").fetchall()) == ["w0", "w1"]
        assert con.execute("SELECT count(DISTINCT date) FROM evaluations").fetchone()[0] >= 3
        for table in TABLES:
            # Every stored column but the time spent checking (differs run to run) and the config hash
            # (it covers the storage path and listen addresses too, so it differs from worker to worker).
            columns = [r[0] for r in node.execute(f"DESCRIBE {table}").fetchall()
                       if not r[0].endswith("_us") and r[0] != "config_hash"]
            expected = _multiset(node, table, columns)
            assert expected, f"the single node stored no {table} rows: the input should exercise every check"
            assert _multiset(con, table, columns) == expected, table
    finally:
        con.close()
        node.close()
