"""Benchmark the in-process processor: agent-thread cost, worker throughput, DuckDB rows/s.

    python benchmarks/bench_processor.py [--spans 20000]

1. Per-span cost on the agent's thread (create, set 10 attributes, end), with
   ClaimwatchSpanProcessor wrapping a BatchSpanProcessor versus the same
   BatchSpanProcessor alone, measured in the same run (audit mode; 10 % of
   spans carry a 2,000-character LLM output).
2. Validation throughput of the worker: LLM spans validated and annotated per second.
3. DuckDB audit store: rows written per second (Arrow batches of 5,000, the default).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult

from benchmarks.corpus import corpus, hundred_facts
from claimwatch import AuditStore, ClaimwatchSpanProcessor


class NullExporter(SpanExporter):
    def __init__(self) -> None:
        self.count = 0

    def export(self, spans):
        self.count += len(spans)
        return SpanExportResult.SUCCESS

    def shutdown(self):
        pass


def outputs() -> list[str]:
    return [json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": t}]}]) for t in corpus(2000, 200)]


def agent_loop(provider: TracerProvider, n: int, llm: list[str]) -> list[float]:
    tracer = provider.get_tracer("bench")
    samples = []
    for i in range(n):
        start = time.perf_counter_ns()
        span = tracer.start_span("chat model" if i % 10 == 0 else "step")
        for k in range(10):
            span.set_attribute(f"attr.{k}", k)
        if i % 10 == 0:
            span.set_attribute("gen_ai.output.messages", llm[i % len(llm)])
            span.set_attribute("gen_ai.agent.name", f"worker-{i % 7}")
        span.end()
        samples.append((time.perf_counter_ns() - start) / 1000)
    return samples


def bench_agent_thread(n: int, llm: list[str], tmp: Path) -> tuple[float, float]:
    results = {}
    for label in ("baseline", "claimwatch", "baseline2", "claimwatch2"):  # interleaved: machine noise hits both
        provider = TracerProvider()
        bsp = BatchSpanProcessor(NullExporter(), max_queue_size=n + 10)
        if label.startswith("claimwatch"):
            config = hundred_facts() | {
                "storage": {"path": str(tmp / f"{label}.duckdb")},
                "processor": {"queueSize": n + 10},
            }
            provider.add_span_processor(ClaimwatchSpanProcessor(bsp, config=config))
        else:
            provider.add_span_processor(bsp)
        samples = agent_loop(provider, n, llm)
        provider.shutdown()
        results.setdefault(label.rstrip("2"), []).extend(samples)
    return statistics.median(results["baseline"]), statistics.median(results["claimwatch"])


def bench_worker(n: int, llm: list[str], tmp: Path) -> float:
    provider = TracerProvider()
    processor = ClaimwatchSpanProcessor(
        BatchSpanProcessor(NullExporter()),
        config=hundred_facts() | {"storage": {"path": str(tmp / "worker.duckdb")}, "processor": {"queueSize": n + 10}},
    )
    provider.add_span_processor(processor)
    tracer = provider.get_tracer("bench")
    start = time.perf_counter()
    for i in range(n):
        with tracer.start_as_current_span("chat") as span:
            span.set_attribute("gen_ai.output.messages", llm[i % len(llm)])
    processor.force_flush()
    elapsed = time.perf_counter() - start
    provider.shutdown()
    return n / elapsed


def bench_store(n: int, tmp: Path) -> float:
    from datetime import datetime

    store = AuditStore(tmp / "rows.duckdb")
    now = datetime.now()
    row = {c: None for c in store.columns("evaluations")} | {
        "evaluation_id": "x",
        "time": now,
        "verdict": "pass",
        "categories": [],
        "tool_calls": [],
    }
    start = time.perf_counter()
    for _ in range(n):
        store.add(row, [])
    store.flush(120)
    elapsed = time.perf_counter() - start
    store.close()
    return n / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--spans", type=int, default=20000)
    args = parser.parse_args()
    llm = outputs()
    with tempfile.TemporaryDirectory() as tmp_dir:
        tmp = Path(tmp_dir)
        base, ours = bench_agent_thread(args.spans, llm, tmp)
        print(
            f"agent thread, per span (median of {2 * args.spans}): BatchSpanProcessor alone {base:.1f} us, "
            f"with claimwatch {ours:.1f} us, ratio {ours / base:.3f}"
        )
        print(
            f"worker: {bench_worker(max(1000, args.spans // 10), llm, tmp):,.0f} LLM spans/s validated "
            "(2,000-char outputs, 102 facts, rows stored)"
        )
        print(f"DuckDB store: {bench_store(200_000, tmp):,.0f} rows/s")


if __name__ == "__main__":
    main()
