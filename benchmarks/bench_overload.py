"""Overload stays bounded (issue 14 item 5): `serve` flooded past processor.maxBufferedBytes.

    python benchmarks/bench_overload.py [--seconds 60] [--exporters 8] [--limit-mb 32] [--retry-ms 50]

Starts `claimwatch serve` with a low `processor.maxBufferedBytes` and floods
it from several concurrent exporters (keep-alive OTLP/HTTP, the requests of
bench_collector.py: 512 spans, one in ten with a 2,000-character LLM output,
102 facts), each sending again `--retry-ms` after a 503 instead of the
Retry-After second, so the collector stays over its limit the whole time.
While it runs, a prober asks /health twice a second. Prints: the collector's
peak RSS (VmHWM) against its RSS before the flood and the limit, the share of
requests answered 503, spans accepted and processed per second, and how
/health answered during the flood (median and worst latency, failures).
"""

from __future__ import annotations

import argparse
import http.client
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.bench_collector import BATCH, build_batches, start_serve, status  # noqa: E402


def memory_kb(pid: int) -> dict[str, int]:
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            out[key] = int(value.split()[0])
    return out


def start(tmp: Path, limit: int, decision_wait_ms: int) -> tuple[subprocess.Popen, int, str]:
    return start_serve({"processor": {"decisionWaitMs": decision_wait_ms, "maxBufferedBytes": limit},
                        "storage": {"path": str(tmp / "overload.duckdb")}}, tmp, log_level="ERROR")


def flood(port: int, batches: list[bytes], stop: threading.Event, retry_s: float, tally: dict, lock) -> None:
    """One exporter: send, and after a 503 send again soon (a flood, not a polite exporter)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    i = 0
    while not stop.is_set():
        body = batches[i % len(batches)]
        try:
            conn.request("POST", "/v1/traces", body=body, headers={"Content-Type": "application/x-protobuf"})
            response = conn.getresponse()
            response.read()
            code = response.status
        except OSError as exc:
            code = type(exc).__name__
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        with lock:
            tally[code] = tally.get(code, 0) + 1
        if code == 200:
            i += 1
        else:
            stop.wait(retry_s)
    conn.close()


def probe_health(api: str, stop: threading.Event, results: list) -> None:
    while not stop.wait(0.5):
        start = time.perf_counter()
        try:
            with urllib.request.urlopen(f"http://{api}/health", timeout=10) as response:
                response.read()
                results.append(((time.perf_counter() - start) * 1000, response.status))
        except OSError as exc:
            results.append(((time.perf_counter() - start) * 1000, type(exc).__name__))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--exporters", type=int, default=8)
    parser.add_argument("--limit-mb", type=float, default=32.0, help="processor.maxBufferedBytes in MiB")
    parser.add_argument("--retry-ms", type=int, default=50, help="wait after a 503 before sending again")
    parser.add_argument("--batches", type=int, default=50, help="distinct request bodies to cycle through")
    parser.add_argument("--decision-wait-ms", type=int, default=2000)
    args = parser.parse_args()
    limit = int(args.limit_mb * (1 << 20))
    batches = build_batches(args.batches)
    wire = statistics.median(len(b) for b in batches)
    with tempfile.TemporaryDirectory() as tmp:
        proc, port, api = start(Path(tmp), limit, args.decision_wait_ms)
        try:
            time.sleep(0.5)
            before = memory_kb(proc.pid)["VmRSS"]
            stop = threading.Event()
            tally: dict = {}
            lock = threading.Lock()
            health: list = []
            rss_samples: list[int] = []
            threads = [
                threading.Thread(target=flood, args=(port, batches, stop, args.retry_ms / 1000, tally, lock))
                for _ in range(args.exporters)
            ]
            threads.append(threading.Thread(target=probe_health, args=(api, stop, health)))
            started = time.perf_counter()
            for t in threads:
                t.start()
            timeline: list[tuple[float, int, dict]] = []
            while time.perf_counter() - started < args.seconds:
                time.sleep(0.25)
                rss_samples.append(memory_kb(proc.pid)["VmRSS"])
                if len(rss_samples) % 8 == 0:  # every 2 s: what the engine holds against what the process holds
                    timeline.append((time.perf_counter() - started, rss_samples[-1], status(api)["counters"]))
            stop.set()
            for t in threads:
                t.join(150)
            elapsed = time.perf_counter() - started
            counters = status(api)["counters"]
            peak = memory_kb(proc.pid)["VmHWM"]
        finally:
            proc.terminate()
            proc.wait(timeout=300)
    requests = sum(tally.values())
    refused = tally.get(503, 0)
    accepted_spans = tally.get(200, 0) * BATCH
    mib = 1024
    print(f"flood: {args.exporters} exporters for {elapsed:.1f} s, requests of {BATCH} spans "
          f"(~{wire / 1e6:.2f} MB on the wire), processor.maxBufferedBytes {limit / (1 << 20):.0f} MiB, "
          f"retry {args.retry_ms} ms after a 503")
    print(f"requests: {requests:,}; 200: {tally.get(200, 0):,}; 503: {refused:,} "
          f"({refused / max(requests, 1):.1%}); other: { {k: v for k, v in tally.items() if k not in (200, 503)} }")
    print(f"spans accepted: {accepted_spans / elapsed:,.0f}/s; processed during the flood: "
          f"{counters.get('spans_processed', 0) / elapsed:,.0f}/s; refused for memory: "
          f"{counters.get('requests_refused_memory', 0):,}, for span backlog: {counters.get('requests_refused_overload', 0):,}")
    print(f"RSS before the flood {before / mib:.0f} MiB; peak (VmHWM) {peak / mib:.0f} MiB = before + "
          f"{(peak - before) / mib:.0f} MiB = before + {(peak - before) * 1024 / limit:.2f} x the limit; "
          f"median RSS during the flood {statistics.median(rss_samples or [0]) / mib:.0f} MiB")
    held = [c.get("buffered_bytes", 0) for _, _, c in timeline]
    if held:
        print(f"engine's buffered_bytes during the flood: max {max(held) / (1 << 20):.1f} MiB, "
              f"median {statistics.median(held) / (1 << 20):.1f} MiB (the limit counts held spans at 6x their wire size)")
    step = max(1, len(timeline) // 6)
    for t, rss, c in timeline[::step]:
        print(f"  t={t:5.1f} s  RSS {rss / mib:4.0f} MiB  buffered {c.get('buffered_bytes', 0) / (1 << 20):5.1f} MiB  "
              f"buffered spans {c.get('buffered_spans', 0):6,}  queued {c.get('queue_depth', 0):6,}  "
              f"processed {c.get('spans_processed', 0):8,}")
    latencies = [ms for ms, code in health if code == 200]
    failures = [code for _, code in health if code != 200]
    if latencies:
        print(f"/health during the flood: {len(latencies)}/{len(health)} answered 200, median "
              f"{statistics.median(latencies):.1f} ms, worst {max(latencies):.1f} ms; failures {failures}")
    else:
        print(f"/health during the flood: no answer in {len(health)} probes; failures {failures}")


if __name__ == "__main__":
    main()
