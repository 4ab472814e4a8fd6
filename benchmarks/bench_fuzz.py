"""A long fuzz run of the collector's OTLP receivers: inputs fuzzed, answers, 5xx (goal 0).

    python benchmarks/bench_fuzz.py [--count 20000] [--seed 11]

Starts a collector in this process and sends the seeded malformed inputs of
`tests/test_fuzz_otlp.py` (HTTP protobuf, JSON, gzip; gRPC) over keep-alive
connections; prints how many inputs were fuzzed, the answers by kind, every
server-side failure (5xx, dropped connection, gRPC INTERNAL/UNKNOWN) with the
mutation that caused it, and malformed inputs/s against valid requests/s
measured in the same run (baseline). Finally a valid span must still be stored.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.otlp_helpers import llm_messages, start_collector, trace_request, wait_for  # noqa: E402
from tests.test_fuzz_otlp import FuzzInput, FuzzRun, fuzz_inputs  # noqa: E402


def rate(run: FuzzRun, items: list[FuzzInput], rounds: int = 3) -> float:
    """Median inputs/s over `rounds` passes of `items`."""
    rates = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for item in items:
            run.send(item)
        rates.append(len(items) / (time.perf_counter() - t0))
    return statistics.median(rates)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        collector = start_collector(Path(tmp), processor={"decisionWaitMs": 50})
        run = FuzzRun(collector.addresses.otlp_http, collector.addresses.otlp_grpc)
        try:
            t0 = time.perf_counter()
            for item in fuzz_inputs(args.seed, args.count):
                run.send(item)
            seconds = time.perf_counter() - t0
            print(f"inputs fuzzed: {run.sent} in {seconds:.1f} s (seed {args.seed})")
            for answer, n in sorted(run.answers.items()):
                print(f"  {answer:<28} {n}")
            print(f"5xx / server-side failures: {run.server_errors}")
            for item, answer in run.findings[:20]:
                print(f"  {answer}: {item.transport} {item.path} {item.content_type} {item.how} ({len(item.body)} bytes)")

            sample = list(fuzz_inputs(args.seed + 1, 300))
            valid = [
                FuzzInput(
                    "http" if i % 3 else "grpc",
                    "/v1/traces",
                    "application/x-protobuf",
                    False,
                    trace_request([{"trace": 10_000 + i, "span": 1, "attrs": {"gen_ai.output.messages": llm_messages("ok")}}]).SerializeToString(),
                    "valid",
                )
                for i in range(300)
            ]
            fuzzed_rate, valid_rate = rate(run, sample), rate(run, valid)
            print(f"median rate: malformed {fuzzed_rate:.0f} inputs/s, valid {valid_rate:.0f} requests/s "
                  f"(ratio {fuzzed_rate / valid_rate:.2f})")

            before = collector.engine.stats().get("spans_received", 0)
            run.send(FuzzInput("http", "/v1/traces", "application/x-protobuf", False,
                               trace_request([{"trace": 1 << 70, "span": 7}]).SerializeToString(), "valid"))
            wait_for(lambda: collector.engine.stats().get("spans_received", 0) > before)
            print("collector still receiving after the run: yes")
            return 1 if run.server_errors else 0
        finally:
            run.close()
            collector.stop()


if __name__ == "__main__":
    sys.exit(main())
