"""Same input, same output: run one OTLP input through `claimwatch serve` of two installs and compare.

    python benchmarks/same_output.py --python A/bin/python --python B/bin/python [--batches 30] [--workers 2]

Each interpreter runs `claimwatch serve` (its own installed claimwatch) on the
collector benchmark's load plus hand-made traces that reach the rarer paths
(an enforced block and the redaction of its trace, tool spans, a span
evaluated upstream, a child that arrives in a later request than its parent,
identity from an ancestor, a GenAI event log record), forwarding to a sink in
this process. Then it compares every DuckDB table (rows sorted; timing
columns left out) and every forwarded span (decoded, sorted by ids; timing
attributes left out). Exit code 1 when they differ. A collector speed-up must
leave both identical.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import duckdb  # noqa: E402
from google.protobuf.json_format import MessageToDict  # noqa: E402
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest  # noqa: E402
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest  # noqa: E402

from benchmarks.bench_collector import build_batches, send_all, start_serve, status  # noqa: E402
from claimwatch.collector.otlp import KeyValueOf  # noqa: E402

BLOCKED = "Docker is not running on this machine."
# Values measured afresh on every run: left out of the comparison.
_TIMING = ("evaluation_us",)


def _messages(text: str, tool_calls: list | None = None) -> str:
    parts = [{"type": "text", "content": text}]
    parts += [{"type": "tool_call", "name": n, "arguments": a, "id": f"call-{n}"} for n, a in tool_calls or []]
    return json.dumps([{"role": "assistant", "parts": parts}])


def _span(ss, trace: int, span: int, name: str, attrs: dict, parent: int = 0, events=(), t: int = 0) -> None:
    s = ss.spans.add(trace_id=trace.to_bytes(16, "big"), span_id=span.to_bytes(8, "big"), name=name,
                     start_time_unix_nano=1_700_000_000_000_000_000 + t * 1000,
                     end_time_unix_nano=1_700_000_000_000_000_000 + t * 1000 + 500)
    if parent:
        s.parent_span_id = parent.to_bytes(8, "big")
    for k, v in attrs.items():
        s.attributes.append(KeyValueOf(k, v))
    for event_name, event_attrs in events:
        e = s.events.add(name=event_name, time_unix_nano=s.end_time_unix_nano)
        for k, v in event_attrs.items():
            e.attributes.append(KeyValueOf(k, v))


def special_requests() -> list[bytes]:
    """Traces that reach the rarer paths; the last request holds children of parents sent earlier."""
    first, late = ExportTraceServiceRequest(), ExportTraceServiceRequest()
    rs = first.resource_spans.add()
    rs.resource.attributes.append(KeyValueOf("service.name", "special"))
    ss = rs.scope_spans.add()
    ss.scope.name = "special-scope"
    base = 10**9
    # An enforcing sub-agent says what contradicts a fact: blocked, and every span of its trace redacted.
    _span(ss, base, 1, "invoke_agent sub", {"gen_ai.agent.name": "sub-enforcer", "app.note": "plain"}, t=9)
    _span(ss, base, 2, "chat sub", {"gen_ai.output.messages": _messages(BLOCKED)}, parent=1, t=1)
    _span(ss, base, 3, "log step", {"app.echo": f"the model said: {BLOCKED}"}, parent=1, t=2,
          events=[("note", {"app.text": BLOCKED})])
    # Tool calls: a tool span and an LLM span that calls tools.
    _span(ss, base + 1, 1, "invoke_agent main", {"gen_ai.agent.name": "main", "gen_ai.conversation.id": "s-1"}, t=9)
    _span(ss, base + 1, 2, "execute_tool bash", {"gen_ai.tool.name": "bash", "gen_ai.operation.name": "execute_tool",
                                                 "gen_ai.tool.call.arguments": json.dumps({"command": "rm -rf /"})},
          parent=1, t=1)
    _span(ss, base + 1, 3, "chat main", {"gen_ai.output.messages": _messages(
        "I deleted the build folder and the tests pass now.", [("bash", '{"command": "ls"}')])}, parent=1, t=2)
    # Evaluated by a claimwatch upstream: recorded, not judged again.
    _span(ss, base + 2, 1, "chat up", {"gen_ai.output.messages": _messages("Docker is running."),
                                       "claimwatch.verdict": "pass", "claimwatch.mode": "audit",
                                       "claimwatch.checks": ["output"]}, t=1)
    # An agent span repeating its LLM span's output (a duplicate), identity from the ancestor.
    _span(ss, base + 3, 1, "invoke_agent echo", {"gen_ai.agent.name": "echo",
                                                 "gen_ai.output.messages": _messages("The pipeline is down.")}, t=9)
    _span(ss, base + 3, 2, "chat echo", {"gen_ai.output.messages": _messages("The pipeline is down.")}, parent=1, t=1)
    # A parent now, its child in a later request (released after the parent's decision wait).
    _span(ss, base + 4, 1, "invoke_agent late", {"gen_ai.agent.name": "late-agent", "session.id": "s-9"}, t=9)
    rs2 = late.resource_spans.add()
    rs2.resource.attributes.append(KeyValueOf("service.name", "special"))
    ss2 = rs2.scope_spans.add()
    _span(ss2, base + 4, 2, "chat late", {"gen_ai.output.messages": _messages("Service-4 is not running.")},
          parent=1, t=1)
    # Bad ids are rejected (partial success), the rest of the request still counts.
    ss2.spans.add(trace_id=b"short", span_id=b"x", name="bad")
    return [first.SerializeToString(), late.SerializeToString()]


def logs_request() -> bytes:
    request = ExportLogsServiceRequest()
    sl = request.resource_logs.add().scope_logs.add()
    log = sl.log_records.add(trace_id=(10**9 + 5).to_bytes(16, "big"), span_id=(7).to_bytes(8, "big"),
                             time_unix_nano=1_700_000_000_000_000_000, event_name="gen_ai.choice")
    log.body.kvlist_value.values.append(KeyValueOf("message", {"role": "assistant",
                                                               "content": "Docker is not running."}))
    return request.SerializeToString()


class Sink:
    """An OTLP/HTTP endpoint that keeps every forwarded body."""

    def __init__(self) -> None:
        bodies = self.bodies = []

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                bodies.append(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.endpoint = f"http://127.0.0.1:{self.server.server_address[1]}/v1/traces"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def spans(self) -> list[dict]:
        out = []
        for body in self.bodies:
            request = ExportTraceServiceRequest()
            request.ParseFromString(body)
            for rs in request.resource_spans:
                resource = MessageToDict(rs.resource)
                for ss in rs.scope_spans:
                    scope = MessageToDict(ss.scope)
                    for span in ss.spans:
                        d = MessageToDict(span)
                        d["attributes"] = [a for a in d.get("attributes", []) if not a["key"].endswith(_TIMING)]
                        for e in d.get("events", []):
                            e["attributes"] = [a for a in e.get("attributes", []) if not a["key"].endswith(_TIMING)]
                        out.append({"resource": resource, "scope": scope, "schema": [rs.schema_url, ss.schema_url],
                                    "span": d})
        return sorted(out, key=lambda s: (s["span"]["traceId"], s["span"]["spanId"]))


def tables(path: Path) -> dict[str, list]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        out = {}
        names = [r[0] for r in con.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'").fetchall()]
        for name in sorted(names):
            columns = [r[0] for r in con.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_name = ? ORDER BY ordinal_position",
                [name]).fetchall()]
            kept = [c for c in columns if not c.endswith(_TIMING) and c != "applied_at"]
            rows = con.execute(f'SELECT {", ".join(chr(34) + c + chr(34) for c in kept)} FROM "{name}"').fetchall()
            out[name] = sorted(json.dumps(r, default=str) for r in rows)
        return out
    finally:
        con.close()


def run(python: str, bodies: list[bytes], late: bytes, logs: bytes, workers: int, settings: dict) -> dict:
    import http.client
    import time

    sink = Sink()
    settings = json.loads(json.dumps(settings))
    settings.setdefault("processor", {}).update(decisionWaitMs=300, workers=workers)
    settings["exporters"] = {"otlp": {"endpoint": sink.endpoint}}
    with tempfile.TemporaryDirectory() as tmp:
        proc, http_port, api = start_serve(settings, Path(tmp), python=python)
        try:
            send_all(bodies, http_port, 2)
            time.sleep(1.0)  # the parents' decision wait is over: the child arrives late
            send_all([late], http_port, 1)
            conn = http.client.HTTPConnection("127.0.0.1", http_port, timeout=30)
            conn.request("POST", "/v1/logs", body=logs, headers={"Content-Type": "application/x-protobuf"})
            conn.getresponse().read()
            while True:
                c = status(api)["counters"]
                if c.get("durable_seq") == c.get("accepted_seq") and c.get("buffered_spans", 0) == 0 \
                        and c.get("queue_depth", 0) == 0:
                    break
                time.sleep(0.1)
            time.sleep(1.5)  # the forwarder's last request
            counters = {k: v for k, v in c.items() if isinstance(v, int) and not k.endswith(("_seq", "bytes"))
                        and not k.startswith(("worker", "forward_"))}
        finally:
            proc.terminate()
            proc.wait(timeout=60)
        sink.server.shutdown()
        return {"tables": tables(Path(tmp) / "bench.duckdb"), "spans": sink.spans(), "counters": counters}


def diff(a: dict, b: dict) -> list[str]:
    problems = []
    for name in sorted(set(a["tables"]) | set(b["tables"])):
        ra, rb = a["tables"].get(name), b["tables"].get(name)
        if ra != rb:
            extra = sorted(set(rb or []) - set(ra or []))[:2]
            missing = sorted(set(ra or []) - set(rb or []))[:2]
            problems.append(f"table {name}: {len(ra or [])} vs {len(rb or [])} rows; only in A {missing}; "
                            f"only in B {extra}")
    if a["spans"] != b["spans"]:
        n = sum(1 for x, y in zip(a["spans"], b["spans"], strict=False) if x != y)
        first = next(((x, y) for x, y in zip(a["spans"], b["spans"], strict=False) if x != y), None)
        problems.append(f"forwarded spans: {len(a['spans'])} vs {len(b['spans'])}, {n} differ; first: {first}")
    return problems


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--python", action="append", required=True, help="two interpreters (A, then B)")
    parser.add_argument("--batches", type=int, default=30)
    parser.add_argument("--workers", type=int, action="append", help="worker processes (repeatable; default 1, 2)")
    args = parser.parse_args()
    first, late = special_requests()
    bodies = build_batches(args.batches)
    bodies.insert(len(bodies) // 2, first)
    logs = logs_request()
    agents = {"rules": [{"match": "sub-enforcer", "trust": 10, "mode": "enforce"},
                        {"match": "worker-3", "mode": "enforce"}]}
    setups = {"default": {}, "debug+enforce": {"agents": agents, "annotations": {"verbosity": "debug"}}}
    failed = False
    for workers in args.workers or [1, 2]:
        for name, settings in setups.items():
            a, b = (run(p, bodies, late, logs, workers, settings) for p in args.python)
            problems = diff(a, b)
            rows = {t: len(r) for t, r in a["tables"].items() if r}
            print(f"workers={workers} {name}: {len(a['spans'])} spans forwarded, rows {rows}, "
                  f"verdicts {({k: v for k, v in a['counters'].items() if k.startswith(('verdict', 'redacted'))})}: "
                  f"{'IDENTICAL' if not problems else 'DIFFERENT'}")
            for p in problems:
                print("  ", p[:2000])
            failed = failed or bool(problems)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
