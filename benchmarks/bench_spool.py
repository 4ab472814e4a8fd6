"""What the spool (storage.spool) costs `claimwatch serve` end to end.

    python benchmarks/bench_spool.py [--batches 200] [--connections 2] [--rounds 3] [--workers 1]

The load of bench_collector.py (its batch builder: requests of 512 spans,
traces of 10, one span in ten with a 2,000-character LLM output, 102 facts)
sent over keep-alive connections to a fresh `serve` process per run, waiting
until everything is validated and stored. Three setups, interleaved round by
round, each setup first in turn: spool off (the baseline), spool on without fsync (a record is in the
OS before the 200: survives kill -9), spool on with fsync (on disk before the
200: survives a power loss; fsyncs grouped across concurrent requests).
Prints median spans/s, median request latency and the ratio to the baseline.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.bench_collector import (  # noqa: E402
    BATCH,
    build_batches,
    cpu_seconds,
    send_all,
    start_serve,
    status,
)

SETUPS = {
    "spool off (baseline)": None,
    "spool on, fsync off": {"enabled": True, "fsync": False},
    "spool on, fsync on": {"enabled": True, "fsync": True},
}


def run(
    batches: list[bytes], connections: int, spool: dict | None, tmp: Path, workers: int = 1
) -> tuple[float, list[float], dict]:
    """One serve process: (spans/s end to end, request latencies in ms, final counters)."""
    storage: dict = {"path": str(tmp / "bench.duckdb")}
    if spool is not None:
        storage["spool"] = spool
    proc, http_port, api = start_serve({"processor": {"decisionWaitMs": 200, "workers": workers}, "storage": storage},
                                       tmp)
    try:
        cpu_ready = cpu_seconds(proc.pid)
        total = len(batches) * BATCH
        start = time.perf_counter()
        latencies, _ = send_all(batches, http_port, connections)
        while status(api)["counters"].get("spans_processed", 0) < total:
            time.sleep(0.05)
        done = time.perf_counter() - start
        counters = status(api)["counters"]
        counters["cpu_s"] = cpu_seconds(proc.pid) - cpu_ready
    finally:
        proc.terminate()
        proc.wait(timeout=120)
    return total / done, latencies, counters


def append_cost(batches: list[bytes], fsync: bool, tmp: Path) -> tuple[float, float]:
    """The receiver's added work alone: (median µs per request appended, MB/s), one thread."""
    from claimwatch.collector.spool import Spool

    spool = Spool(tmp / ("fsync" if fsync else "nofsync"), fsync=fsync)
    times = []
    start = time.perf_counter()
    for seq, body in enumerate(batches, 1):
        t0 = time.perf_counter()
        spool.append(seq, "traces", "application/x-protobuf", body)
        times.append((time.perf_counter() - t0) * 1e6)
    elapsed = time.perf_counter() - start
    spool.close(durable_seq=len(batches))
    return statistics.median(times), sum(map(len, batches)) / elapsed / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--batches", type=int, default=200)
    parser.add_argument("--connections", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workers", type=int, default=1, help="processor.workers of serve")
    args = parser.parse_args()
    batches = build_batches(args.batches)
    rates: dict[str, list[float]] = {name: [] for name in SETUPS}
    per_cpu: dict[str, list[float]] = {name: [] for name in SETUPS}
    latency: dict[str, list[float]] = {name: [] for name in SETUPS}
    spooled: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as tmp:
        names = list(SETUPS)
        for r in range(args.rounds):
            for name in names[r % len(names) :] + names[: r % len(names)]:  # each setup leads a round in turn
                spool = SETUPS[name]
                run_dir = Path(tempfile.mkdtemp(dir=tmp))
                rate, latencies, counters = run(batches, args.connections, spool, run_dir, args.workers)
                shutil.rmtree(run_dir)
                rates[name].append(rate)
                per_cpu[name].append(args.batches * BATCH / max(counters.pop("cpu_s"), 1e-6))
                latency[name].extend(latencies)
                spooled[name] = {k: v for k, v in counters.items() if k.startswith("spool_")}
    base = statistics.median(rates["spool off (baseline)"])
    total = args.batches * BATCH
    print(f"spans: {total} per run in {args.batches} requests of {BATCH}, {args.connections} connections, "
          f"{args.rounds} round(s) per setup, interleaved, processor.workers {args.workers}")
    print(f"{'setup':<24} {'spans/s (median)':>17} {'ratio':>6} {'latency median':>15}  runs")
    for name in SETUPS:
        median = statistics.median(rates[name])
        runs = " / ".join(f"{r:,.0f}" for r in rates[name])
        print(f"{name:<24} {median:>17,.0f} {median / base:>6.3f} {statistics.median(latency[name]):>12.1f} ms  {runs}")
    with tempfile.TemporaryDirectory() as tmp:
        for fsync in (False, True):
            us, mbs = append_cost(batches, fsync, Path(tmp))
            print(f"append alone, fsync {'on ' if fsync else 'off'}: median {us:,.0f} µs per request of {BATCH} spans "
                  f"({us / BATCH:.2f} µs a span), {mbs:,.0f} MB/s")
    cpu_base = statistics.median(per_cpu["spool off (baseline)"])
    for name in SETUPS:
        median = statistics.median(per_cpu[name])
        print(f"{name:<24} {median:>10,.0f} spans per CPU second of serve (median), ratio {median / cpu_base:.3f}")
    for name, counts in spooled.items():
        if counts:
            print(f"{name}: {counts}")


if __name__ == "__main__":
    main()
