"""What one collector worker spends per span, on the collector benchmark's load, in this process.

    python benchmarks/profile_worker.py [--batches 40] [--rounds 5] [--profile] [--top 40]

Builds the requests of `bench_collector.py` (512 spans, traces of 10, one span in ten
with a distinct 2,000-character LLM output, 102 facts) and feeds the part one worker
of two gets (`split_request`) through a worker's `CollectorEngine` on this thread:
parse, assemble, check, annotate, encode the forward request (the forwarder drops
it), and pickle the rows the worker would send to its parent (what `conn.send` costs).
Nothing runs on other threads, so `time.thread_time` is the worker's own CPU.

It times the same load with the LLM outputs and with every span plain, alternately,
and prints medians: the cost of a plain span, and of an LLM span as the difference
(mix - plain) over the LLM spans. `--profile` runs cProfile over one mixed round
and prints the heaviest functions by cumulative time.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import pickle
import pstats
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest  # noqa: E402

from benchmarks.bench_collector import build_batches  # noqa: E402
from benchmarks.corpus import hundred_facts  # noqa: E402
from claimwatch.collector.engine import CollectorEngine, tune_gc  # noqa: E402
from claimwatch.collector.workers import _accept, _RowPipe, split_request  # noqa: E402
from claimwatch.core.config import load_config  # noqa: E402


class _Drop:
    """A forwarder that takes encoded requests and drops them (the encoding is still paid)."""

    accepts_encoded = True

    def submit(self, body) -> None:
        pass

    def flush(self, timeout=None) -> bool:
        return True

    def close(self) -> None:
        pass


def worker_part(batches: list[bytes], plain: bool) -> tuple[list[bytes], int, int]:
    """(worker 0's payloads, its spans, its LLM spans); `plain` drops the LLM attributes."""
    payloads, spans, llm = [], 0, 0
    for body in batches:
        request = ExportTraceServiceRequest.FromString(body)
        for ss in (ss for rs in request.resource_spans for ss in rs.scope_spans):
            for span in ss.spans:
                if span.name == "chat model":
                    if plain:
                        span.name = "step"
                        del span.attributes[8:]
        parts, counts, _, _ = split_request(request, 2)
        payloads.append(parts[0])
        spans += counts[0]
        part = ExportTraceServiceRequest.FromString(parts[0])
        llm += sum(s.name == "chat model" for rs in part.resource_spans for ss in rs.scope_spans for s in ss.spans)
    return payloads, spans, llm


def new_engine() -> CollectorEngine:
    config = load_config(hundred_facts() | {"processor": {"decisionWaitMs": 200}})
    engine: CollectorEngine | None = None
    pipe = _RowPipe(lambda message: pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL),
                    lambda: engine.counts.copy(), True)
    engine = CollectorEngine(config, pipe, _Drop(), on_processed=pipe.processed)
    engine._worker.close()  # everything runs on this thread
    return engine


def feed(engine: CollectorEngine, payloads: list[bytes]) -> None:
    for seq, payload in enumerate(payloads, 1):
        _accept(engine, engine.store, ("traces", seq, payload, 0))
        with engine._lock:
            released = engine.buffer.drain()
            engine._work_spans += sum(len(items) for _, items in released)
        engine._handle([released])


class GcClock:
    """Thread CPU spent in the cyclic garbage collector, by generation (gc.callbacks)."""

    def __init__(self) -> None:
        self.seconds = [0.0, 0.0, 0.0]
        self.runs = [0, 0, 0]
        self._start = 0.0
        gc.callbacks.append(self._callback)

    def _callback(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._start = time.thread_time()
        else:
            self.seconds[info["generation"]] += time.thread_time() - self._start
            self.runs[info["generation"]] += 1

    def reset(self) -> None:
        self.seconds, self.runs = [0.0, 0.0, 0.0], [0, 0, 0]


GC = GcClock()


def timed(warm: list[bytes], payloads: list[bytes]) -> float:
    """Thread CPU seconds of `payloads` through a new engine (warmed up on other traces: a trace
    seen before would take the late-span path)."""
    engine = new_engine()
    feed(engine, warm)
    GC.reset()
    start = time.thread_time()
    feed(engine, payloads)
    return time.thread_time() - start


# (label, module, attribute): where each stage's time is taken; nested stages include their children.
STAGES = [
    ("check (all of _check)", "claimwatch.collector.engine", "CollectorEngine._check"),
    ("  pipeline.process", "claimwatch.collector.engine", "Pipeline.process"),
    ("    validation (OutputValidator.validate)", "claimwatch.core.validator", "OutputValidator.validate"),
    ("    output check rendering (OutputCheck.result)", "claimwatch.checks.output", "OutputCheck.result"),
    ("    actions check", "claimwatch.checks.actions", "ActionsCheck.run"),
    ("      actions: verifier", "claimwatch.verify.verifier", "Verifier.verify"),
    ("      output: explanation + findings + annotations", "claimwatch.checks.output", "_annotations"),
    ("      actions: claim detector", "claimwatch.verify.claims", "ClaimDetector.detect"),
    ("      actions: tool_call_of_span", "claimwatch.verify.actions", "tool_call_of_span"),
    ("      actions: input_conversation", "claimwatch.verify.actions", "input_conversation"),
    ("    tool_policy check", "claimwatch.checks.tool_policy", "ToolPolicyCheck.run"),
    ("    output extraction (extract)", "claimwatch.checks.pipeline", "extract"),
    ("    carry blocked (_carry_blocked)", "claimwatch.checks.pipeline", "Pipeline._carry_blocked"),
    ("    trust and mode (trust_for, mode_for)", "claimwatch.checks.pipeline", "Pipeline.trust_for"),
    ("    mode_for", "claimwatch.checks.pipeline", "Pipeline.mode_for"),
    ("    repeat test (_repeat)", "claimwatch.checks.pipeline", "Pipeline._repeat"),
    ("    repeat key (_repeat_key)", "claimwatch.checks.pipeline", "_repeat_key"),
    ("    span time (_time)", "claimwatch.checks.pipeline", "_time"),
    ("    remember outcome (_remember)", "claimwatch.checks.pipeline", "Pipeline._remember"),
    ("    output check (run, all)", "claimwatch.checks.output", "OutputCheck.run"),
    ("    identity", "claimwatch.checks.pipeline", "Pipeline.identify"),
    ("    evaluation ids", "claimwatch.checks.pipeline", "evaluation_ids"),
    ("  annotations (Pipeline.annotations)", "claimwatch.checks.pipeline", "Pipeline.annotations"),
    ("  write annotations (upsert_attributes)", "claimwatch.collector.engine", "upsert_attributes"),
    ("  write annotations (add_event)", "claimwatch.collector.engine", "add_event"),
    ("  write annotations (annotate)", "claimwatch.collector.engine", "annotate"),
    ("  rows (store.rows.record)", "claimwatch.collector.engine", "record"),
    ("    outcome_rows", "claimwatch.store.rows", "outcome_rows"),
    ("      secret masking (mask_row)", "claimwatch.store.rows", "mask_row"),
    ("rows to the parent (pickle)", "claimwatch.collector.workers", "_RowPipe.processed"),
    ("forward request (encode_request)", "claimwatch.collector.engine", "encode_request"),
    ("prefilter (_plain)", "claimwatch.collector.engine", "CollectorEngine._plain"),
    ("parse request (parse_traces)", "claimwatch.collector.otlp", "parse_traces"),
    ("span records (iter_spans)", "claimwatch.collector.otlp", "iter_spans"),
]


def instrument(totals: dict) -> None:
    """Wrap every stage's function with a thread-CPU accumulator (about 1 us a call)."""
    import importlib
    import inspect

    def wrap(label, fn, is_gen):
        def timed_call(*a, **k):
            start = time.thread_time_ns()
            try:
                return list(fn(*a, **k)) if is_gen else fn(*a, **k)
            finally:
                totals[label] = totals.get(label, 0) + time.thread_time_ns() - start
        return timed_call

    for label, module, attr in STAGES:
        owner = importlib.import_module(module)
        *path, name = attr.split(".")
        for part in path:
            owner = getattr(owner, part)
        fn = getattr(owner, name, None)
        if fn is None:  # a stage of another version of the code
            continue
        is_gen = name == "iter_spans"
        wrapper = wrap(label, fn, is_gen)
        if path:
            static = isinstance(inspect.getattr_static(owner, name), staticmethod)
            setattr(owner, name, staticmethod(wrapper) if static else wrapper)
        else:  # a module-level name: patch every module that imported it
            for mod in list(sys.modules.values()):
                if getattr(mod, name, None) is fn and getattr(mod, "__name__", "").startswith("claimwatch"):
                    setattr(mod, name, wrapper)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--batches", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--top", type=int, default=45)
    parser.add_argument("--sort", default="cumulative")
    parser.add_argument("--stages", action="store_true", help="thread CPU per stage, per LLM span")
    args = parser.parse_args()
    tune_gc()
    batches = build_batches(args.batches + 2)
    warm, _, _ = worker_part(batches[:2], plain=False)
    mix, spans, llm = worker_part(batches[2:], plain=False)
    plain, _, _ = worker_part(batches[2:], plain=True)
    if args.profile:
        engine = new_engine()
        feed(engine, warm)
        profiler = cProfile.Profile()
        profiler.enable()
        feed(engine, mix)
        profiler.disable()
        pstats.Stats(profiler).sort_stats(args.sort).print_stats(args.top)
        return
    if args.stages:
        import claimwatch.checks.actions  # noqa: F401
        totals: dict = {}
        instrument(totals)
        runs = []
        for _ in range(args.rounds):
            totals.clear()
            total = timed(warm, mix)
            runs.append((total, dict(totals)))
        total, totals = sorted(runs, key=lambda r: r[0])[len(runs) // 2]
        print(f"median round: {total / spans * 1e6:.1f} us/span ({spans} spans, {llm} LLM); per LLM span:")
        for label, _, _ in STAGES:
            print(f"  {label:50s} {totals.get(label, 0) / 1000 / llm:7.1f} us")
        return
    t_mix, t_plain, gc_mix = [], [], []
    for _ in range(args.rounds):
        t_mix.append(timed(warm, mix))
        gc_mix.append((sum(GC.seconds), list(GC.runs)))
        t_plain.append(timed(warm, plain))
    per_mix = statistics.median(t_mix) / spans * 1e6
    per_plain = statistics.median(t_plain) / spans * 1e6
    per_llm = (statistics.median(t_mix) - statistics.median(t_plain)) / llm * 1e6 + per_plain
    print(f"{spans} spans ({llm} LLM) per round, {args.rounds} rounds, thread CPU medians: "
          f"mix {per_mix:.1f} us/span, plain {per_plain:.1f} us/span, LLM span {per_llm:.0f} us "
          f"(=> {1e6 / per_mix:,.0f} spans/s per core on the mix)")
    seconds, runs = sorted(gc_mix)[len(gc_mix) // 2]
    print(f"garbage collection in a mixed round: {seconds / spans * 1e6:.1f} us/span, runs by generation {runs}")


if __name__ == "__main__":
    main()
