"""Benchmark the standalone collector end to end over loopback.

    python benchmarks/bench_collector.py [--batches 200] [--connections 2] [--workers 2] [--runs 3]
                                         [--baseline-python PATH] [--baseline-workers 1]

Starts `claimwatch serve` as its own process, sends OTLP/HTTP protobuf
requests of 512 spans (traces of 10 spans; one span in ten carries a
2,000-character LLM output, the rest are plain) over keep-alive connections,
and waits until every accepted request is durable (checked, stored, forwarded
to a blackhole OTLP endpoint in this process). Runs the baseline (one
process, checks on a thread) and the candidate (`--workers N` processes)
alternately and prints medians of spans/s end to end, request latency,
peak RSS of the collector and its workers, and the ratio.

`--baseline-python` runs the baseline with another interpreter, for example
a venv with an older release installed (`pip install claimwatch==X` or a
checkout of an older commit), so a before/after comparison of the same
worker count is measured in one run, under the same load.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
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

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest  # noqa: E402

from benchmarks.corpus import corpus, hundred_facts  # noqa: E402
from claimwatch.collector.otlp import KeyValueOf  # noqa: E402

BATCH = 512


def build_batches(count: int, real: bool = False) -> list[bytes]:
    """`count` requests of `BATCH` spans; one span in ten carries a 2,000-character output: the generated corpus's 200
    outputs in turn, or with `real`, windows of real agent messages, each used once (as in production, no output is
    seen twice)."""
    if real:
        from benchmarks.bench_validate import real_corpus

        texts = real_corpus(2000, count * BATCH // 10 + 1)
    else:
        texts = corpus(2000, 200)
    outputs = [json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": t}]}]) for t in texts]
    batches, span_no = [], 0
    for _ in range(count):
        request = ExportTraceServiceRequest()
        rs = request.resource_spans.add()
        rs.resource.attributes.append(KeyValueOf("service.name", "bench-agent"))
        ss = rs.scope_spans.add()
        for _ in range(BATCH):
            span_no += 1
            trace = span_no // 10 + 1
            span = ss.spans.add(
                trace_id=trace.to_bytes(16, "big"),
                span_id=span_no.to_bytes(8, "big"),
                name="step",
                start_time_unix_nano=time.time_ns(),
                end_time_unix_nano=time.time_ns(),
            )
            for k in range(8):
                span.attributes.append(KeyValueOf(f"app.attr{k}", f"value-{k}"))
            if span_no % 10 == 0:
                span.name = "chat model"
                span.attributes.append(KeyValueOf("gen_ai.agent.name", f"worker-{span_no % 7}"))
                span.attributes.append(KeyValueOf("gen_ai.output.messages", outputs[span_no % len(outputs)]))
        batches.append(request.SerializeToString())
    return batches


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def status(api: str) -> dict:
    with urllib.request.urlopen(f"http://{api}/api/status", timeout=10) as response:
        return json.loads(response.read())


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


class Blackhole:
    """An OTLP/HTTP endpoint that reads and drops what is forwarded to it (the forwarding cost only)."""

    def __init__(self) -> None:
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        counter = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                counter.requests += 1
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args) -> None:
                pass

        self.requests = 0
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.endpoint = f"http://127.0.0.1:{self.server.server_address[1]}/v1/traces"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()


def family_rss_mb(pid: int) -> float:
    """Peak RSS of the collector plus its worker processes."""
    total = peak_rss_mb(pid)
    children = Path(f"/proc/{pid}/task/{pid}/children")
    if children.exists():
        for child in children.read_text().split():
            try:
                total += peak_rss_mb(int(child))
            except (OSError, ValueError):
                pass
    return total


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process (on a shared machine this, unlike wall time, is its own)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def family_cpu_s(pid: int) -> tuple[float, float]:
    """CPU seconds of the collector process and of its worker processes."""
    children = Path(f"/proc/{pid}/task/{pid}/children")
    kids = [int(c) for c in children.read_text().split()] if children.exists() else []
    return cpu_seconds(pid), sum(cpu_seconds(k) for k in kids)


def start_serve(settings: dict, tmp: Path, log_level: str = "WARNING",
                python: str = sys.executable) -> tuple[subprocess.Popen, int, str]:
    """`claimwatch serve` on free local ports with `settings` (plus 102 facts, the store in `tmp`),
    run by `python`; (process, OTLP/HTTP port, API address) once its API answers."""
    settings = hundred_facts() | settings
    settings.setdefault("storage", {}).setdefault("path", str(tmp / "bench.duckdb"))
    config = tmp / "bench.json"
    config.write_text(json.dumps(settings))
    http_port, grpc_port, api_port = free_port(), free_port(), free_port()
    api = f"127.0.0.1:{api_port}"
    proc = subprocess.Popen(
        [python, "-m", "claimwatch.collector.cli", "serve", "--config", str(config),
         "--otlp-http", f"127.0.0.1:{http_port}", "--otlp-grpc", f"127.0.0.1:{grpc_port}", "--api", api,
         "--log-level", log_level],
        cwd=ROOT, stdout=subprocess.DEVNULL,
    )
    deadline = time.time() + 60
    while True:
        try:
            status(api)
            return proc, http_port, api
        except OSError:
            if time.time() > deadline or proc.poll() is not None:
                proc.kill()
                raise SystemExit("serve did not start") from None
            time.sleep(0.2)


def send_all(batches: list[bytes], http_port: int, connections: int) -> tuple[list[float], int]:
    """Post every batch over `connections` keep-alive connections, waiting out 503s as Retry-After
    asks; (request latencies in ms, requests refused)."""
    latencies: list[float] = []
    refused = [0]

    def client(mine: list[bytes]) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", http_port, timeout=120)
        for body in mine:
            while True:
                start = time.perf_counter()
                conn.request("POST", "/v1/traces", body=body, headers={"Content-Type": "application/x-protobuf"})
                response = conn.getresponse()
                response.read()
                latencies.append((time.perf_counter() - start) * 1000)
                if response.status == 200:
                    break
                refused[0] += 1
                time.sleep(float(response.getheader("Retry-After", "1")))

    threads = [threading.Thread(target=client, args=(batches[i::connections],)) for i in range(connections)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return latencies, refused[0]


def wait_durable(api: str, total: int) -> dict:
    """Wait until `total` spans are processed and every accepted call is durable; the counters then."""
    while True:
        counters = status(api)["counters"]
        if counters.get("spans_processed", 0) >= total and counters.get("durable_seq") == counters.get("accepted_seq"):
            return counters
        time.sleep(0.02)


def run(batches: list[bytes], workers: int, connections: int, forward: str | None,
        python: str = sys.executable) -> dict:
    """One collector process under the load; figures of that run."""
    settings: dict = {"processor": {"decisionWaitMs": 200}}
    if workers != 1:  # 1 is the default: left out, so a release from before `processor.workers` runs too
        settings["processor"]["workers"] = workers
    if forward:
        settings["exporters"] = {"otlp": {"endpoint": forward}}
    total = len(batches) * BATCH
    with tempfile.TemporaryDirectory() as tmp:
        proc, http_port, api = start_serve(settings, Path(tmp), python=python)
        try:
            start = time.perf_counter()
            latencies, refused = send_all(batches, http_port, connections)
            sent = time.perf_counter() - start
            counters = wait_durable(api, total)  # checked, stored, handed to the forwarder
            done = time.perf_counter() - start
            rss = family_rss_mb(proc.pid)
            cpu = family_cpu_s(proc.pid)
        finally:
            proc.terminate()
            proc.wait(timeout=60)
    ordered = sorted(latencies)
    return {
        "spans_per_s": total / done,
        "seconds": done,
        "acked_s": sent,
        "latency_p50_ms": statistics.median(ordered),
        "latency_p99_ms": ordered[int(len(ordered) * 0.99) - 1],
        "evaluations": counters.get("evaluations"),
        "refused": refused,
        "peak_rss_mb": rss,
        "collector_cpu_s": cpu[0],
        "workers_cpu_s": cpu[1],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--batches", type=int, default=200)
    parser.add_argument("--connections", type=int, default=2)
    parser.add_argument("--workers", type=int, default=2, help="worker processes of the candidate run")
    parser.add_argument("--baseline-workers", type=int, default=1, help="worker processes of the baseline run")
    parser.add_argument("--runs", type=int, default=3, help="runs of each, alternating; medians are printed")
    parser.add_argument("--no-forward", action="store_true", help="store only (no OTLP forwarding)")
    parser.add_argument("--real", action="store_true",
                        help="real agent messages as the outputs, each once (the corpora hold ~550 windows: --batches 10)")
    parser.add_argument("--baseline-python", default=sys.executable,
                        help="interpreter of the baseline run (a venv with an older claimwatch installed)")
    args = parser.parse_args()
    batches = build_batches(args.batches, args.real)
    sink = None if args.no_forward else Blackhole()
    total = len(batches) * BATCH
    print(f"spans: {total} in {args.batches} requests of {BATCH} ({total // 10} with a 2,000-char LLM output); "
          f"{os.cpu_count()} CPUs, affinity {len(os.sched_getaffinity(0))}; forwarding {'off' if sink is None else 'on'}")
    baseline = f"baseline workers={args.baseline_workers}"
    if args.baseline_python != sys.executable:
        baseline += f" ({args.baseline_python})"
    candidates = {baseline: (args.baseline_workers, args.baseline_python),
                  f"candidate workers={args.workers}": (args.workers, sys.executable)}
    figures: dict[str, list[dict]] = {name: [] for name in candidates}
    try:
        for _ in range(args.runs):
            for name, (workers, python) in candidates.items():
                figures[name].append(run(batches, workers, args.connections, sink and sink.endpoint, python))
    finally:
        if sink is not None:
            sink.close()
    medians = {}
    for name, runs in figures.items():
        m = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
        medians[name] = m
        print(f"{name}: end to end {m['spans_per_s']:,.0f} spans/s ({m['seconds']:.2f} s; "
              f"acknowledged after {m['acked_s']:.2f} s); request latency median {m['latency_p50_ms']:.1f} ms, "
              f"p99 {m['latency_p99_ms']:.1f} ms; evaluations {m['evaluations']:.0f}, refused {m['refused']:.0f}, "
              f"peak RSS {m['peak_rss_mb']:.0f} MB (collector + workers); CPU s: collector "
              f"{m['collector_cpu_s']:.1f}, workers {m['workers_cpu_s']:.1f}")
    first, second = medians.values()
    print(f"ratio candidate / baseline: {second['spans_per_s'] / first['spans_per_s']:.2f}x")


if __name__ == "__main__":
    main()
