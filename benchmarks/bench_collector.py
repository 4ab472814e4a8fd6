"""Benchmark the standalone collector end to end over loopback.

    python benchmarks/bench_collector.py [--batches 200] [--connections 2]

Starts `claimwatch serve` as its own process, sends OTLP/HTTP protobuf
requests of 512 spans (traces of 10 spans; one span in ten carries a
2,000-character LLM output, the rest are plain) over keep-alive connections,
and waits until the collector has validated and stored everything. Prints
spans/s end to end, request latency (median, p99) and the collector's peak RSS.
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


def build_batches(count: int) -> list[bytes]:
    outputs = [
        json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": t}]}]) for t in corpus(2000, 200)
    ]
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--batches", type=int, default=200)
    parser.add_argument("--connections", type=int, default=2)
    args = parser.parse_args()
    batches = build_batches(args.batches)
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "bench.json"
        config.write_text(json.dumps(hundred_facts() | {"processor": {"decisionWaitMs": 200}}))
        http_port, grpc_port, api_port = free_port(), free_port(), free_port()
        api = f"127.0.0.1:{api_port}"
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "collector.cli",
                "serve",
                "--config",
                str(config),
                "--db",
                f"{tmp}/bench.duckdb",
                "--otlp-http",
                f"127.0.0.1:{http_port}",
                "--otlp-grpc",
                f"127.0.0.1:{grpc_port}",
                "--api",
                api,
                "--log-level",
                "WARNING",
            ],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            env={**os.environ},
        )
        try:
            deadline = time.time() + 30
            while True:
                try:
                    status(api)
                    break
                except OSError:
                    if time.time() > deadline:
                        raise
                    time.sleep(0.2)
            latencies: list[float] = []
            refused = [0]

            def client(mine: list[bytes]) -> None:
                conn = http.client.HTTPConnection("127.0.0.1", http_port, timeout=60)
                for body in mine:
                    while True:
                        start = time.perf_counter()
                        conn.request(
                            "POST", "/v1/traces", body=body, headers={"Content-Type": "application/x-protobuf"}
                        )
                        response = conn.getresponse()
                        response.read()
                        latencies.append((time.perf_counter() - start) * 1000)
                        if response.status == 200:
                            break
                        refused[0] += 1
                        time.sleep(float(response.getheader("Retry-After", "1")))

            total = len(batches) * BATCH
            start = time.perf_counter()
            threads = [
                threading.Thread(target=client, args=(batches[i :: args.connections],)) for i in range(args.connections)
            ]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            sent = time.perf_counter() - start
            while status(api)["counters"].get("spans_processed", 0) < total:
                time.sleep(0.05)
            done = time.perf_counter() - start
            counters = status(api)["counters"]
            rss = peak_rss_mb(proc.pid)
        finally:
            proc.terminate()
            proc.wait(timeout=60)
    ordered = sorted(latencies)
    print(f"spans: {total} in {args.batches} requests of {BATCH} ({total // 10} with a 2,000-char LLM output)")
    print(
        f"end to end (received, validated, stored): {total / done:,.0f} spans/s  ({done:.2f} s; all sent after {sent:.2f} s)"
    )
    print(
        f"request latency: median {statistics.median(ordered):.1f} ms, p99 {ordered[int(len(ordered) * 0.99) - 1]:.1f} ms"
    )
    print(f"evaluations: {counters.get('evaluations')}, refused for overload: {refused[0]}, peak RSS {rss:.0f} MB")


if __name__ == "__main__":
    main()
