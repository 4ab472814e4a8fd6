"""The collector under floods (issue 9): concurrent exporters, idle connections, bad lengths, malformed gRPC.

    python benchmarks/bench_flood.py [--exporters 200] [--idle 3000] [--grpc-calls 30000]

Starts `claimwatch serve` as its own process and, phase by phase, prints
what the issue measured: connection resets among concurrent exporters, the
collector's threads and `/health` latency with thousands of idle connections
open and after they are released, peak RSS (VmHWM) while clients send
`Content-Length: -1` and oversize chunked bodies, RSS over malformed gRPC calls
(grpcio's own decoding leaked ~19 KB per call), and keep-alive request latency
(medians; the baseline is the same request on a fresh connection).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import grpc  # noqa: E402
from google.protobuf import json_format  # noqa: E402

from tests.otlp_helpers import llm_messages, trace_request  # noqa: E402

TRACE_EXPORT = "/opentelemetry.proto.collector.trace.v1.TraceService/Export"


def proc_status(pid: int) -> dict[str, int]:
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM", "Threads"):
            out[key] = int(value.split()[0])
    return out


def start(tmp: Path) -> tuple[subprocess.Popen, dict[str, tuple[str, int]]]:
    config = tmp / "flood.yaml"
    config.write_text(
        "receivers:\n  otlp:\n    protocols:\n      http: {endpoint: '127.0.0.1:0', maxRequestBytes: 67108864, timeoutS: 5}\n"
        "      grpc: {endpoint: '127.0.0.1:0'}\nservice:\n  api: {endpoint: '127.0.0.1:0'}\n"
        f"storage: {{path: '{tmp / 'flood.duckdb'}'}}\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "claimwatch.collector.cli", "serve", "--config", str(config), "--log-level", "ERROR"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    addresses: dict[str, tuple[str, int]] = {}
    while "API" not in addresses:
        line = proc.stdout.readline()
        if not line and proc.poll() is not None:
            raise SystemExit("collector did not start")
        words = line.split()
        if len(words) >= 2 and words[0] in ("OTLP/HTTP", "OTLP/gRPC", "API"):
            host, port = words[1].removeprefix("http://").split("/")[0].rsplit(":", 1)
            addresses[words[0]] = (host, int(port))
    threading.Thread(target=proc.stdout.read, daemon=True).start()
    return proc, addresses


def concurrent_exporters(address, clients: int, body: bytes) -> tuple[int, int, float]:
    """`clients` connections at once, 3 exports each; (resets/errors, 200s, seconds)."""
    barrier = threading.Barrier(clients)
    errors, ok = [], []

    def client():
        conn = http.client.HTTPConnection(*address, timeout=60)
        barrier.wait()
        try:
            for _ in range(3):
                conn.request("POST", "/v1/traces", body=body, headers={"Content-Type": "application/x-protobuf"})
                response = conn.getresponse()
                response.read()
                ok.append(response.status == 200)
        except OSError as exc:
            errors.append(exc)
        finally:
            conn.close()

    threads = [threading.Thread(target=client) for _ in range(clients)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return len(errors), sum(ok), time.perf_counter() - t0


def health_ms(address) -> float:
    t0 = time.perf_counter()
    conn = http.client.HTTPConnection(*address, timeout=120)
    conn.request("GET", "/health")
    conn.getresponse().read()
    conn.close()
    return (time.perf_counter() - t0) * 1000


def bad_length_flood(address, clients: int, megabytes: int) -> int:
    """Clients claiming `Content-Length: -1` (or a -1 chunk) and streaming `megabytes`; how many got 400."""
    got_400 = []

    def client(i):
        head = b"Content-Length: -1\r\n" if i % 2 else b"Transfer-Encoding: chunked\r\n"
        try:
            with socket.create_connection(address, timeout=30) as sock:
                sock.sendall(b"POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-protobuf\r\n" + head + b"\r\n")
                if not i % 2:
                    sock.sendall(b"-1\r\n")
                chunk = b"\x0a" * (1 << 20)
                for _ in range(megabytes):
                    sock.sendall(chunk)
        except OSError:
            pass  # the server answered and closed while we were still sending: what we want
        got_400.append(True)

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return len(got_400)


def malformed_grpc(address, calls: int) -> dict[str, int]:
    codes: dict[str, int] = {}
    with grpc.insecure_channel(f"{address[0]}:{address[1]}") as channel:
        call = channel.unary_unary(TRACE_EXPORT)
        for i in range(calls):
            try:
                call(b"\x0a\x05\xff\xff" + i.to_bytes(4, "big"), timeout=30)
                code = "OK"
            except grpc.RpcError as exc:
                code = exc.code().name
            codes[code] = codes.get(code, 0) + 1
    return codes


def keep_alive_latency(address, method: str, path: str, body: bytes | None, n: int = 200) -> tuple[float, float]:
    """Median ms per request on one keep-alive connection, and on a new connection each time."""
    headers = {"Content-Type": "application/json"} if body is not None else {}

    def once(conn) -> float:
        t0 = time.perf_counter()
        conn.request(method, path, body=body, headers=headers)
        conn.getresponse().read()
        return time.perf_counter() - t0

    conn = http.client.HTTPConnection(*address, timeout=30)
    kept = [once(conn) for _ in range(n)]
    conn.close()
    fresh = []
    for _ in range(n // 4):
        c = http.client.HTTPConnection(*address, timeout=30)
        fresh.append(once(c))
        c.close()
    return statistics.median(kept) * 1000, statistics.median(fresh) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--exporters", type=int, default=200)
    parser.add_argument("--idle", type=int, default=3000)
    parser.add_argument("--flood-clients", type=int, default=20)
    parser.add_argument("--flood-mb", type=int, default=100, help="MB each bad-length client tries to send")
    parser.add_argument("--grpc-calls", type=int, default=30000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        proc, a = start(Path(tmp))
        pid = proc.pid
        try:
            body = trace_request(
                [{"trace": i // 4 + 1, "span": i + 1, "attrs": {"gen_ai.output.messages": llm_messages("All good.")}} for i in range(8)]
            ).SerializeToString()
            print(f"start: {proc_status(pid)}")

            errors, ok, seconds = concurrent_exporters(a["OTLP/HTTP"], args.exporters, body)
            print(f"{args.exporters} concurrent exporters x3 requests: {errors} resets/errors, {ok} answered 200 "
                  f"in {seconds:.2f} s; {proc_status(pid)}")
            errors, ok, seconds = concurrent_exporters(a["OTLP/HTTP"], 50, body)
            print(f"50 concurrent exporters x3 requests: {errors} resets/errors, {ok} answered 200 in {seconds:.2f} s")

            base_health = statistics.median(health_ms(a["API"]) for _ in range(20))
            idle = [socket.create_connection(a["OTLP/HTTP"], timeout=10) for _ in range(args.idle)]
            time.sleep(0.5)
            during = statistics.median(health_ms(a["API"]) for _ in range(20))
            status = proc_status(pid)
            print(f"{args.idle} idle connections: collector threads {status['Threads']}, /health median "
                  f"{during:.2f} ms (baseline {base_health:.2f} ms, ratio {during / base_health:.2f})")
            for s in idle:
                s.close()
            t0 = time.perf_counter()
            after = health_ms(a["API"])
            print(f"released: first /health after {after:.1f} ms; threads {proc_status(pid)['Threads']} "
                  f"(at once), {time.sleep(2) or proc_status(pid)['Threads']} (2 s later)")

            before = proc_status(pid)
            n = bad_length_flood(a["OTLP/HTTP"], args.flood_clients, args.flood_mb)
            after_flood = proc_status(pid)
            print(f"{n} clients with Content-Length -1 / chunk size -1 streaming {args.flood_mb} MB each: "
                  f"RSS {before['VmRSS'] // 1024} -> {after_flood['VmRSS'] // 1024} MB, "
                  f"peak {after_flood['VmHWM'] // 1024} MB")

            malformed_grpc(a["OTLP/gRPC"], min(2000, args.grpc_calls))  # warm-up
            before = proc_status(pid)
            t0 = time.perf_counter()
            codes = malformed_grpc(a["OTLP/gRPC"], args.grpc_calls)
            seconds = time.perf_counter() - t0
            after_grpc = proc_status(pid)
            grown = after_grpc["VmRSS"] - before["VmRSS"]
            print(f"{args.grpc_calls} malformed gRPC calls in {seconds:.1f} s: {codes}; RSS {before['VmRSS'] // 1024} -> "
                  f"{after_grpc['VmRSS'] // 1024} MB ({grown / args.grpc_calls * 1024:.0f} bytes per call)")

            json_body = json.dumps(json_format.MessageToDict(trace_request([{"trace": 1, "span": 1}]))).encode()
            for name, address, method, path, payload in (
                ("OTLP/HTTP JSON export", a["OTLP/HTTP"], "POST", "/v1/traces", json_body),
                ("API GET /health", a["API"], "GET", "/health", None),
            ):
                kept, fresh = keep_alive_latency(address, method, path, payload)
                print(f"{name} (answer with a body), median: keep-alive {kept:.2f} ms, new connection "
                      f"{fresh:.2f} ms (ratio {kept / fresh:.2f}; Nagle + delayed ACK made keep-alive ~44 ms)")
            print(f"end: {proc_status(pid)}; collector alive: {proc.poll() is None}")
        finally:
            proc.terminate()
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    main()
