"""A third-party producer: rotel (a Rust OpenTelemetry collector) exports to Kafka, `claimwatch consume` reads it.

rotel writes unkeyed messages, many traces to a message, in `protobuf` (the OTLP request) or `json` (the
request's resourceSpans array alone, ids in hex). Real SDK spans go over OTLP/HTTP to a real rotel process,
rotel produces to the test's tansu broker, and a real `claimwatch consume` per format stores them.
"""

from __future__ import annotations

import json
import socket
import subprocess
import time
from pathlib import Path

import pytest

from tests.test_kafka import (
    Worker,
    _free_port,
    _no_worker_left_behind,  # noqa: F401  (autouse: no consume process outlives a test)
    new_topic,
    run_broker,
    scalar_set,
    wait_all_committed,
    wait_split,
    write_config,
)


@pytest.fixture(scope="module")
def kafka():
    yield from run_broker()


pytestmark = pytest.mark.e2e


def _rotel_binary() -> str:
    rotel = pytest.importorskip("rotel")
    binary = Path(rotel.__file__).parent / "rotel-agent"
    if not binary.is_file():
        pytest.skip("the rotel package has no rotel-agent binary for this platform")
    return str(binary)


def _start_rotel(broker: str, topic: str, fmt: str, log: Path) -> tuple[subprocess.Popen, int]:
    port = _free_port()
    proc = subprocess.Popen(
        [_rotel_binary(), "start", "--otlp-http-endpoint", f"127.0.0.1:{port}",
         "--otlp-grpc-endpoint", f"127.0.0.1:{_free_port()}", "--exporter", "kafka",
         "--kafka-exporter-brokers", broker, "--kafka-exporter-traces-topic", topic,
         "--kafka-exporter-format", fmt, "--batch-timeout", "100ms"],
        stdout=log.open("w"), stderr=subprocess.STDOUT,
    )
    deadline = time.monotonic() + 10
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return proc, port
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                pytest.skip(f"rotel did not start: {log.read_text()[-500:]}")
            time.sleep(0.05)


def _send_traces(port: int, count: int) -> set[str]:
    """`count` traces from the OpenTelemetry SDK to an OTLP/HTTP endpoint; their ids."""
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    provider = TracerProvider(resource=Resource.create({"service.name": "rotel-agent-app"}))
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=f"http://127.0.0.1:{port}/v1/traces")))
    tracer = provider.get_tracer("tests.kafka.rotel")
    ids = set()
    for n in range(count):
        with tracer.start_as_current_span("invoke_agent", attributes={"gen_ai.agent.name": "rotel-fed"}) as root:
            ids.add(format(root.get_span_context().trace_id, "032x"))
            with tracer.start_as_current_span("chat model", attributes={
                "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": [
                    {"type": "text", "content": f"Docker is not running ({n})."}]}]),
            }):
                pass
    provider.shutdown()
    return ids


@pytest.mark.parametrize("fmt, encoding", [("protobuf", "otlp_proto"), ("json", "otlp_json")])
def test_consume_stores_what_rotel_exports_to_kafka_unkeyed(kafka, tmp_path, fmt, encoding):
    broker, topic, config = kafka, new_topic(kafka), write_config(tmp_path)
    rotel, port = _start_rotel(broker, topic, fmt, tmp_path / "rotel.log")
    db = tmp_path / "worker.duckdb"
    worker = Worker(broker, topic, f"g-rotel-{fmt}", db, config, "--encoding", encoding)
    try:
        wait_split([worker])
        trace_ids = _send_traces(port, 15)
        # rotel batches: how many messages it wrote is its business; wait until some are committed and
        # nothing more arrives, then until what arrived is committed.
        deadline = time.monotonic() + 30
        while not any("consumed" in line and " 0 messages" not in line for line in worker.lines):
            assert time.monotonic() < deadline, "".join(worker.lines)[-3000:]
            time.sleep(0.2)
    finally:
        rotel.kill()
        rotel.wait(10)
    messages = _messages_consumed(worker)
    wait_all_committed(broker, topic, f"g-rotel-{fmt}", messages)
    out = worker.stop()
    assert " 0 malformed" in out
    assert scalar_set(db, "SELECT DISTINCT trace_id FROM evaluations") == trace_ids


def _messages_consumed(worker: Worker) -> int:
    """The messages the worker has consumed, once its count stops growing for two progress lines."""
    seen, steady = -1, 0
    deadline = time.monotonic() + 20
    while steady < 2:
        assert time.monotonic() < deadline, "".join(worker.lines)[-3000:]
        time.sleep(1.1)
        lines = [line for line in worker.lines if "consumed " in line and " messages (" in line]
        now = int(lines[-1].split("consumed ")[1].split()[0]) if lines else 0
        steady = steady + 1 if now == seen and now > 0 else 0
        seen = now
    return seen
