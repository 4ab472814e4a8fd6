"""Benchmark: the actions check (levels 1 and 3) per output on a 200-span trace; schemas compiled once.

    python benchmarks/bench_verify.py [--outputs 200] [--rounds 3]

The trace: 200 spans replayed from the coding trajectories in ../shared/data/agent-text-dev (MIT,
mini-swe-agent runs; see that README): `execute_tool` spans with the shell commands and their outputs,
then LLM spans whose output is an agent reply (level 3) or a structured report with a `claims` list
checked against a JSON Schema (levels 1 and 3). Each output is checked through `ActionsCheck.run`, the
way the pipeline calls it, with the 200 spans before it.

Printed: medians and p99 over outputs of each output's best of --rounds runs, in microseconds, warm (what was read from earlier spans is cached,
as in a running collector) and cold (every cache emptied before each output); and schema validation
compiled once against compiling the schema for every output (the baseline), with their ratio.
Figures are for orientation on shared machines: compare ratios measured in the same run.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import fastjsonschema

from claimwatch.checks import CheckContext, Identity
from claimwatch.checks.actions import ActionsCheck
from claimwatch.checks.trace import HeldTrace
from claimwatch.otel.extract import extract
from claimwatch.otel.records import SpanRecord
from claimwatch.verify import ActionsConfig, commands, outcomes
from claimwatch.verify import actions as V
from claimwatch.verify.replay import replay

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "agent-text-dev" / "trajectories.jsonl"
TRACE_ID = "ab" * 16
REPORT = {
    "type": "object",
    "required": ["summary", "traceRef", "claims"],
    "properties": {
        "summary": {"type": "string", "minLength": 1},
        "traceRef": {"type": "string", "pattern": "^trace:"},
        "claims": {"type": "array", "items": {"type": "object", "required": ["type", "path"], "properties": {
            "type": {"enum": ["file-write", "file-edit", "file-delete", "command-executed"]},
            "path": {"type": "string"}, "sha256": {"type": "string"}, "anchor": {"type": "string"}}}},
    },
}


def workload(count: int):
    """(200 tool spans, output texts): commands and replies of the coding runs, in order."""
    rows = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines()]
    tools, texts = [], []
    for row in rows:
        if not row["source"].startswith("mini-swe-agent"):
            continue
        for turn in replay(row["messages"]):
            if turn.text.strip():
                texts.append(turn.text)
        for action in turn.actions:
            if len(tools) < 200:
                tools.append(action)
    spans = [
        SpanRecord(TRACE_ID, f"{i + 1:016x}", None, "execute_tool bash", {
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": a.tool,
            "gen_ai.tool.call.arguments": json.dumps(a.arguments), "gen_ai.tool.call.result": a.result,
        }, start_ns=i * 10, end_ns=i * 10 + 5)
        for i, a in enumerate(tools)
    ]
    with_claims = [t for t in texts if any(w in t for w in ("passed", "modified", "Modified", "created", "updated"))]
    replies = (with_claims * (count // max(1, len(with_claims)) + 1))[: count // 2]
    reports = [json.dumps({"summary": "done", "traceRef": "trace:1", "claims": [
        {"type": "file-edit", "path": "django/forms/models.py", "anchor": "edit_only"},
        {"type": "file-write", "path": f"reproduce_{i}.py"}]}) for i in range(count - len(replies))]
    return spans, replies + reports


def llm_span(n: int, text: str) -> SpanRecord:
    value = json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": text}]}])
    return SpanRecord(TRACE_ID, f"{10_000 + n:016x}", None, "chat model", {"gen_ai.operation.name": "chat",
                      "gen_ai.output.messages": value, "gen_ai.agent.name": "coder"}, start_ns=10**9, end_ns=10**9 + n)


def clear_caches() -> None:
    for fn in (V.effects_of, commands._effects_cached, outcomes._outcome_cached):
        fn.cache_clear()


def run_check(check, spans, texts, rounds, cold):
    """Per output, the best of `rounds` runs (the machines are shared: the minimum is the cost, the rest is noise)."""
    trace = HeldTrace(lambda span_id: None, spans)  # the collector's view of an assembled trace
    identity = Identity("coder-1", "coder", None, None)
    samples = []
    for n, text in enumerate(texts):
        span = llm_span(n, text)
        best = float("inf")
        for _ in range(rounds):
            ctx = CheckContext(span, trace, lambda s: (identity, 50.0, "audit"), "info", extract)
            if cold:
                clear_caches()
            start = time.perf_counter_ns()
            check.run(ctx)
            best = min(best, (time.perf_counter_ns() - start) / 1000)
        samples.append(best)
    return samples


def schema_samples(reports, rounds, once: bool):
    validate = fastjsonschema.compile(REPORT)
    samples = []
    for text in reports:
        best = float("inf")
        for _ in range(rounds):
            start = time.perf_counter_ns()
            (validate if once else fastjsonschema.compile(REPORT))(json.loads(text))
            best = min(best, (time.perf_counter_ns() - start) / 1000)
        samples.append(best)
    return samples


def summary(samples):
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[max(0, int(len(ordered) * 0.99) - 1)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--outputs", type=int, default=200, help="outputs checked per round")
    parser.add_argument("--rounds", type=int, default=5, help="runs per output; the best counts")
    args = parser.parse_args()
    if not DATA.exists():
        sys.exit(f"no data at {DATA}")
    spans, texts = workload(args.outputs)
    check = ActionsCheck(ActionsConfig(schemas=[{"agent": "*", "schema": REPORT}]))
    run_check(check, spans, texts[:20], 1, cold=False)  # warm-up
    print(f"trace: {len(spans)} tool spans; outputs: {len(texts)} ({sum(t.startswith('{') for t in texts)} structured), rounds: {args.rounds}")
    print(f"{'what':<52} {'median us':>10} {'p99 us':>10} {'ratio':>7}")
    warm_samples = run_check(check, spans, texts, args.rounds, cold=False)
    warm = summary(warm_samples)
    replies = summary([x for x, t in zip(warm_samples, texts, strict=True) if not t.startswith("{")])
    reports = summary([x for x, t in zip(warm_samples, texts, strict=True) if t.startswith("{")])
    cold = summary(run_check(check, spans, texts, args.rounds, cold=True))
    print(f"{'actions check, levels 1+3, warm caches':<52} {warm[0]:>10.1f} {warm[1]:>10.1f} {'':>7}")
    print(f"{'  of which agent replies (level 3)':<52} {replies[0]:>10.1f} {replies[1]:>10.1f} {'':>7}")
    print(f"{'  of which structured reports (levels 1+3)':<52} {reports[0]:>10.1f} {reports[1]:>10.1f} {'':>7}")
    print(f"{'actions check, levels 1+3, caches emptied per output':<52} {cold[0]:>10.1f} {cold[1]:>10.1f} {cold[0] / warm[0]:>6.1f}x")
    structured = [t for t in texts if t.startswith("{")]
    once = summary(schema_samples(structured, args.rounds, once=True))
    every = summary(schema_samples(structured[:20], args.rounds, once=False))
    print(f"{'schema validation, compiled once':<52} {once[0]:>10.1f} {once[1]:>10.1f} {'':>7}")
    print(f"{'schema validation, compiled per output (baseline)':<52} {every[0]:>10.1f} {every[1]:>10.1f} {every[0] / once[0]:>6.0f}x")


if __name__ == "__main__":
    main()
