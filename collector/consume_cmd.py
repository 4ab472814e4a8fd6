"""`claimwatch consume`: a claimwatch worker reading OTLP traces from Kafka as a member of a consumer group."""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading

from .kafka import DEFAULT_GROUP, DEFAULT_TOPIC, ENCODINGS
from .settings import resolve

EPILOG = """\
Reads what the OpenTelemetry Collector's kafka exporter writes (encoding otlp_proto,
or otlp_json), checks it like `claimwatch serve`, stores rows in this worker's own
DuckDB file and forwards with the config's exporters. Start more workers with the
same --group to share the topic's partitions; each keeps its own --db.

Offsets are committed only once the rows of everything up to them are on disk, so
a crashed worker's uncommitted messages are read again (at-least-once); the rows
they would write are already stored and are skipped.

examples:
  claimwatch consume --brokers kafka-1:9092 --topic otlp_spans --group claimwatch --db worker-a.duckdb
  claimwatch consume --brokers 127.0.0.1:9092 --config claimwatch.yaml --db /var/lib/claimwatch/w1.duckdb \\
      --api 127.0.0.1:8788
  claimwatch consume --brokers 127.0.0.1:9092 -X session.timeout.ms=10000 -X security.protocol=SASL_SSL

The OpenTelemetry Collector side (one exporter added to its traces pipeline):
  exporters:
    kafka:
      brokers: [kafka-1:9092]
      topic: otlp_spans
      encoding: otlp_proto
      partition_traces_by_id: true

exit codes: 0 stopped by SIGINT/SIGTERM after committing, 2 usage, config or broker error.
"""


def add_parser(sub) -> None:
    c = sub.add_parser(
        "consume",
        help="run a worker: read OTLP traces from a Kafka topic as a consumer group member",
        description="Join a Kafka consumer group, check the OTLP traces it is given, store and forward them.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    c.add_argument("--brokers", required=True, metavar="HOST:PORT[,...]", help="Kafka bootstrap brokers")
    c.add_argument("--topic", default=DEFAULT_TOPIC, help=f"topic to read (default {DEFAULT_TOPIC})")
    c.add_argument("--group", default=DEFAULT_GROUP, help=f"consumer group id (default {DEFAULT_GROUP})")
    c.add_argument("--encoding", default="otlp_proto", choices=sorted(ENCODINGS), help="message encoding")
    c.add_argument("--config", metavar="FILE", help="YAML or JSON config file (checks, agents, storage, exporters)")
    c.add_argument("--db", metavar="PATH", help="this worker's DuckDB file (env CLAIMWATCH_DB)")
    c.add_argument("--api", metavar="HOST:PORT", default="127.0.0.1:0",
                   help="listen address of this worker's query/status API (default: a free local port)")
    c.add_argument("-X", dest="options", action="append", default=[], metavar="KEY=VALUE",
                   help="a librdkafka consumer property (repeatable), e.g. -X session.timeout.ms=10000")
    c.add_argument("--commit-interval", type=float, default=1.0, metavar="S",
                   help="seconds between offset commits (of what is durable); also on revoke and at shutdown")
    c.add_argument("--stats-interval", type=float, default=10.0, metavar="S",
                   help="seconds between progress lines (consumed, processed, lag); 0 turns them off")
    c.add_argument("--log-level", default="INFO", choices=("DEBUG", "INFO", "WARNING", "ERROR"))
    c.set_defaults(handler=run_consume)


def run_consume(args: argparse.Namespace) -> int:
    from .engine import tune_gc
    from .kafka import KafkaSource, consumer_settings
    from .service import Collector

    logging.basicConfig(level=args.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    tune_gc()
    options = _options(args.options)
    if isinstance(options, str):
        print(f"claimwatch: {options}", file=sys.stderr)
        return 2
    config = resolve(args.config, {
        "storage.path": args.db,
        "service.api.endpoint": args.api,
        # A worker has no OTLP front door: Kafka is its only input.
        "receivers.otlp.protocols.http.enabled": False,
        "receivers.otlp.protocols.grpc.enabled": False,
    })
    kafka_out = config.exporters.kafka
    if kafka_out is not None and kafka_out.topic == args.topic and set(kafka_out.brokers.split(",")) & set(
        args.brokers.split(",")
    ):
        print(f"claimwatch: exporters.kafka publishes to the topic this worker reads ({args.topic}): a loop",
              file=sys.stderr)
        return 2
    from confluent_kafka import Consumer, KafkaException

    try:
        consumer = Consumer(consumer_settings(args.brokers, args.group, options))
    except KafkaException as exc:
        print(f"claimwatch: cannot create the Kafka consumer: {exc.args[0].str() if exc.args else exc}",
              file=sys.stderr)
        return 2
    collector = Collector(config)
    try:
        addresses = collector.start()
    except OSError as exc:
        consumer.close()
        print(f"claimwatch: cannot start: {exc}", file=sys.stderr)
        return 2
    source = KafkaSource(collector.engine, consumer, args.topic, args.encoding,
                         commit_interval_s=args.commit_interval, stats_interval_s=args.stats_interval)
    collector.sources.append(source)  # its counters in /api/status, /metrics and `claimwatch status`
    print(f"claimwatch {collector.status()['version']} consuming", flush=True)
    print(f"  kafka      {args.brokers} topic {args.topic} group {args.group} ({args.encoding})", flush=True)
    print(f"  API        http://{addresses.api}", flush=True)
    print(f"  database   {config.storage.path}", flush=True)
    print("  stop with Ctrl-C (SIGINT) or SIGTERM; what was read is processed and committed first", flush=True)
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    code = 0
    try:
        source.run(stop)
    except RuntimeError as exc:  # a fatal broker error
        print(f"claimwatch: {exc}", file=sys.stderr)
        code = 2
    finally:
        collector.stop()
    counts = source.counts
    print(
        f"claimwatch: stopped after {counts['messages']} messages, {counts['spans']} spans, "
        f"{counts['malformed']} malformed",
        flush=True,
    )
    return code


def _options(pairs: list[str]) -> dict[str, str] | str:
    """{property: value} of the -X options, or what is wrong with one."""
    out = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            return f"-X takes KEY=VALUE, got {pair!r}"
        out[key.strip()] = value.strip()
    return out
