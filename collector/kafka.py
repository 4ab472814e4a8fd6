"""Kafka: read the OpenTelemetry Collector's kafka exporter format as a consumer group, and write it.

Reading (`claimwatch consume`). Each message value is one OTLP trace request,
`otlp_proto` (a serialized ExportTraceServiceRequest, the Collector's default)
or `otlp_json`. It is decoded by the functions the OTLP receivers use and fed
to a `CollectorEngine`, the same engine, store and exporters `serve` runs.
Offsets are committed by hand, and only up to the last message whose engine
call is durable (`engine.durable_seq()`: checked, rows on disk, spans handed
on): at-least-once. A message delivered again after a crash or a rebalance is
checked again, and the store's deterministic evaluation ids make its rows
no-ops, so the rows come out exactly once.

Writing (`exporters.kafka` of `serve`): the annotated spans of each processed
trace become one message in the same format, keyed by the trace id as 32
lowercase hex characters (like the Collector's `partition_traces_by_id`), or
by the session id, so that every trace of a session reaches the same consumer.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter, deque
from collections.abc import Iterable

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from claimwatch.core.runtime_config import KafkaExporter as KafkaExporterConfig
from claimwatch.otel import attributes as A

from .engine import Overloaded
from .otlp import MalformedRequest, count_spans, iter_spans, parse_traces

logger = logging.getLogger("claimwatch.kafka")
_RDKAFKA_LOG = logging.getLogger("claimwatch.kafka.librdkafka")

# The Collector kafka exporter's encodings, as the content types the OTLP decoder takes.
ENCODINGS = {"otlp_proto": "application/x-protobuf", "otlp_json": "application/json"}
DEFAULT_TOPIC = "otlp_spans"
DEFAULT_GROUP = "claimwatch"
# The attributes a session id is read from, in the order the checks pipeline reads them.
_SESSION_KEYS = (A.GEN_AI_CONVERSATION_ID, A.SESSION_ID)
_MALFORMED_LOG_EVERY_S = 10.0
_RECOMMIT_EVERY_S = 30.0


def consumer_settings(brokers: str, group: str, options: dict[str, str] | None = None) -> dict:
    """librdkafka properties of a claimwatch consumer; `options` (e.g. from `-X key=value`) win."""
    settings = {
        "bootstrap.servers": brokers,
        "group.id": group,
        # Offsets are committed by hand, only once what they cover is durable.
        "enable.auto.commit": False,
        "enable.auto.offset.store": False,
        # A new group starts from the oldest message kept: nothing on the topic goes unchecked.
        "auto.offset.reset": "earliest",
        "client.id": "claimwatch",
        "logger": _RDKAFKA_LOG,  # librdkafka's own log lines, through logging instead of raw stderr
    }
    settings.update(options or {})
    return settings


class OffsetLedger:
    """Per partition, the offsets read and the engine call each went into; what may be committed.

    Messages of a partition are handled in offset order, so an offset may be committed
    once it and every earlier read offset of its partition belong to durable calls.
    A malformed message belongs to no call (seq 0): durable at once, committed with its
    neighbours, never read again.
    """

    def __init__(self) -> None:
        self._pending: dict[int, deque[tuple[int, int]]] = {}
        self._done: dict[int, int] = {}  # partition -> next offset to commit (last durable + 1)
        self._committed: dict[int, int] = {}

    def add(self, partition: int, offset: int, seq: int) -> None:
        self._pending.setdefault(partition, deque()).append((offset, seq))

    def advance(self, durable_seq: int) -> dict[int, int]:
        """{partition: offset to commit} for partitions whose committable offset moved since the last commit."""
        out = {}
        for partition, queue in self._pending.items():
            while queue and queue[0][1] <= durable_seq:
                self._done[partition] = queue.popleft()[0] + 1
            done = self._done.get(partition)
            if done is not None and done != self._committed.get(partition):
                out[partition] = done
        return out

    def committed(self, offsets: dict[int, int]) -> None:
        self._committed.update(offsets)

    def recommit(self) -> None:
        """The next `advance` returns every partition's committable offset, moved or not."""
        self._committed.clear()

    def highest_seq(self, partitions: Iterable[int]) -> int:
        """The last engine call holding a read, not yet committable message of these partitions (0: none)."""
        return max((self._pending[p][-1][1] for p in partitions if self._pending.get(p)), default=0)

    def pending(self) -> int:
        return sum(len(q) for q in self._pending.values())

    def forget(self, partitions: Iterable[int]) -> None:
        """A partition left this member: its next owner starts from the committed offset."""
        for p in partitions:
            self._pending.pop(p, None)
            self._done.pop(p, None)
            self._committed.pop(p, None)


class KafkaSource:
    """Consumes a topic into an engine; commits offsets only for durable calls. `run()` until `stop` is set."""

    def __init__(
        self,
        engine,
        consumer,
        topic: str,
        encoding: str = "otlp_proto",
        *,
        batch_messages: int = 500,
        commit_interval_s: float = 1.0,
        revoke_timeout_s: float = 15.0,
        stats_interval_s: float = 10.0,
    ) -> None:
        if encoding not in ENCODINGS:
            raise ValueError(f"encoding must be one of {', '.join(ENCODINGS)}, got {encoding!r}")
        self.engine = engine
        self.consumer = consumer
        self.topic = topic
        self.content_type = ENCODINGS[encoding]
        self._json = encoding == "otlp_json"
        self.batch_messages = batch_messages
        self.commit_interval_s = commit_interval_s
        self.revoke_timeout_s = revoke_timeout_s
        self.stats_interval_s = stats_interval_s
        self.counts: Counter = Counter()
        self.ledger = OffsetLedger()
        self.assignment: list[int] = []
        self._last_commit = self._last_stats = time.monotonic()
        self._last_malformed_log = float("-inf")
        self._malformed_unlogged = 0
        self._last_lag: int | None = None
        self._last_full_commit = time.monotonic()

    # --- the loop --------------------------------------------------------------------------------
    def run(self, stop: threading.Event) -> None:
        """Consume until `stop` is set, then make everything read durable, commit it and leave the group."""
        self.consumer.subscribe(
            [self.topic], on_assign=self._assigned, on_revoke=self._revoked, on_lost=self._lost
        )
        try:
            while not stop.is_set():
                messages = self.consumer.consume(num_messages=self.batch_messages, timeout=0.2)
                if messages:
                    self._take(messages, stop)
                now = time.monotonic()
                if now - self._last_commit >= self.commit_interval_s:
                    self._commit()
                if self.stats_interval_s and now - self._last_stats >= self.stats_interval_s:
                    self._log_progress()
        finally:
            self._drain()

    def _drain(self) -> None:
        """Everything read is processed now (no decision wait), committed, and the group is left."""
        ok = self.engine.flush(max(self.revoke_timeout_s, 30.0))
        if not ok:
            logger.warning("not everything read was processed before shutdown; it will be read again")
        self._commit(asynchronous=False)
        self.consumer.close()  # leaves the group: the partitions move to the other members at once
        self._log_progress()

    def _take(self, messages: list, stop: threading.Event) -> None:
        batch = ExportTraceServiceRequest()
        read: list[tuple[int, int, bool]] = []  # (partition, offset, carries spans)
        for message in messages:
            error = message.error()
            if error is not None:
                self._broker_error(error)
                continue
            self.counts["messages"] += 1
            value = message.value() or b""
            if self._json and value.lstrip()[:1] == b"[":
                # rotel's kafka exporter (format json) writes the request's resourceSpans array alone.
                value = b'{"resourceSpans":' + value + b"}"
            try:
                request = parse_traces(value, self.content_type)
            except (MalformedRequest, UnicodeDecodeError) as exc:
                self._malformed(message, exc)
                read.append((message.partition(), message.offset(), False))
                continue
            batch.resource_spans.extend(request.resource_spans)
            read.append((message.partition(), message.offset(), True))
        seq = self._accept(batch, stop) if batch.resource_spans else 0
        if seq is None:  # stopping with the engine still full: none of the batch counts as read
            return
        for partition, offset, carries in read:
            self.ledger.add(partition, offset, seq if carries else 0)

    def _accept(self, batch: ExportTraceServiceRequest, stop: threading.Event) -> int | None:
        """One engine call for the batch; waits while the engine is over its memory bound.

        Worker processes (`processor.workers`) take the request itself and route its spans
        by trace id without building span records here; the in-process engine takes records."""
        if hasattr(self.engine, "accept_request"):
            spans = count_spans(batch)
            call = lambda: self.engine.accept_request(batch)  # noqa: E731
        else:
            records = list(iter_spans(batch))
            spans = len(records)
            call = lambda: self.engine.accept_traces(records)  # noqa: E731
        waited = False
        while True:
            try:
                accepted = call()
                break
            except Overloaded:
                # Nothing was taken: hold the batch (and stop reading) until the engine catches up.
                # Durable calls are committed meanwhile, and the wait stays far below the group's
                # max.poll.interval.ms, so this member keeps its partitions.
                if not waited:
                    self.counts["overloaded_waits"] += 1
                    waited = True
                time.sleep(0.1)
                self._commit()
                if stop.is_set() and not self.engine.flush(5):
                    return None  # not accepted, not committed: read again after the restart
        self.counts["spans"] += spans
        self.counts["spans_rejected"] += accepted.rejected
        return accepted.seq

    def _malformed(self, message, exc: Exception) -> None:
        """Counted, logged (with partition and offset; at most one line per 10 s), skipped, committed."""
        self.counts["malformed"] += 1
        now = time.monotonic()
        if now - self._last_malformed_log < _MALFORMED_LOG_EVERY_S:
            self._malformed_unlogged += 1
            return
        more = f" ({self._malformed_unlogged} more malformed since the last report)" if self._malformed_unlogged else ""
        logger.warning(
            "skipping malformed message %s[%d]@%d: %s%s", message.topic(), message.partition(), message.offset(),
            exc, more,
        )
        self._last_malformed_log = now
        self._malformed_unlogged = 0

    def _broker_error(self, error) -> None:
        from confluent_kafka import KafkaError

        if error.code() == KafkaError._PARTITION_EOF:
            return
        self.counts["broker_errors"] += 1
        if error.fatal():
            raise RuntimeError(f"kafka: {error.str()}")
        logger.warning("kafka: %s", error.str())

    # --- offsets ---------------------------------------------------------------------------------
    def _commit(self, partitions: Iterable[int] | None = None, asynchronous: bool = True) -> None:
        from confluent_kafka import KafkaException, TopicPartition

        self._last_commit = now = time.monotonic()
        if now - self._last_full_commit > _RECOMMIT_EVERY_S:
            # An asynchronous commit that failed is only logged by librdkafka: now and then every
            # partition's committable offset is sent again (committing an offset twice is harmless).
            self._last_full_commit = now
            self.ledger.recommit()
        offsets = self.ledger.advance(self.engine.durable_seq())
        if partitions is not None:
            wanted = set(partitions)
            offsets = {p: o for p, o in offsets.items() if p in wanted}
        if not offsets:
            return
        try:
            self.consumer.commit(
                offsets=[TopicPartition(self.topic, p, o) for p, o in sorted(offsets.items())],
                asynchronous=asynchronous,
            )
        except KafkaException as exc:  # e.g. a rebalance is under way: the next commit covers these offsets
            self.counts["commit_errors"] += 1
            logger.warning("kafka: could not commit offsets %s: %s", offsets, exc.args[0].str() if exc.args else exc)
            return
        self.ledger.committed(offsets)
        self.counts["commits"] += 1

    # --- group membership (called from inside consume()) -----------------------------------------
    def _assigned(self, _consumer, partitions) -> None:
        self.assignment = sorted({*self.assignment, *(tp.partition for tp in partitions)})
        logger.info("assigned %s partitions %s", self.topic, self.assignment)

    def _revoked(self, _consumer, partitions) -> None:
        """Before a partition goes: wait (bounded) until what was read from it is durable; commit that."""
        gone = [tp.partition for tp in partitions]
        seq = self.ledger.highest_seq(gone)
        if seq and not self.engine.wait_durable(seq, self.revoke_timeout_s):
            self.counts["revoked_undurable"] += 1
            logger.warning(
                "partitions %s revoked before all read messages were durable; the next owner reads them again", gone
            )
        self._commit(gone, asynchronous=False)
        self.ledger.forget(gone)
        self.assignment = [p for p in self.assignment if p not in gone]
        logger.info("revoked %s partitions %s", self.topic, gone)

    def _lost(self, _consumer, partitions) -> None:
        """The group moved on without us (session timeout): nothing may be committed for these any more."""
        gone = [tp.partition for tp in partitions]
        self.ledger.forget(gone)
        self.assignment = [p for p in self.assignment if p not in gone]
        logger.warning("lost %s partitions %s; their uncommitted messages are read again by the next owner",
                       self.topic, gone)

    # --- progress --------------------------------------------------------------------------------
    def stats(self) -> dict:
        out = {f"kafka_{k}": v for k, v in self.counts.items()}
        out["kafka_pending_messages"] = self.ledger.pending()
        out["kafka_partitions"] = list(self.assignment)
        if self._last_lag is not None:
            out["kafka_lag"] = self._last_lag  # as of the last progress line
        return out

    def lag(self) -> int | None:
        """Messages on the assigned partitions not yet read (asks the broker; None when it cannot say)."""
        from confluent_kafka import KafkaException, TopicPartition

        try:
            total = 0
            positions = self.consumer.position([TopicPartition(self.topic, p) for p in self.assignment])
            for tp in positions:
                _low, high = self.consumer.get_watermark_offsets(tp, timeout=1.0, cached=False)
                total += max(0, high - tp.offset) if tp.offset >= 0 else high
            return total
        except (KafkaException, RuntimeError):
            return None

    def _log_progress(self) -> None:
        self._last_stats = time.monotonic()
        engine = self.engine.stats()
        lag = self._last_lag = self.lag() if self.assignment else 0
        logger.info(
            "consumed %d messages (%d spans, %d malformed); processed %d spans; durable seq %d of %d; "
            "partitions %s; lag %s",
            self.counts["messages"], self.counts["spans"], self.counts["malformed"],
            engine.get("spans_processed", 0), engine.get("durable_seq", 0), engine.get("accepted_seq", 0),
            self.assignment, "?" if lag is None else lag,
        )


# --- the exporter (serve -> topic) ----------------------------------------------------------------
def trace_key(trace_id: bytes) -> bytes:
    """The message key of a trace: its id as 32 lowercase hex characters, as the Collector writes it."""
    return trace_id.hex().encode()


def session_of(request: ExportTraceServiceRequest) -> str | None:
    """The session id a trace's spans (or their resource) carry, if any."""
    for rs in request.resource_spans:
        for kv in rs.resource.attributes:
            if kv.key in _SESSION_KEYS and kv.value.string_value:
                return kv.value.string_value
        for ss in rs.scope_spans:
            for span in ss.spans:
                for kv in span.attributes:
                    if kv.key in _SESSION_KEYS and kv.value.string_value:
                        return kv.value.string_value
    return None


def split_by_trace(request: ExportTraceServiceRequest) -> list[tuple[bytes, ExportTraceServiceRequest]]:
    """[(trace id, request holding only that trace's spans)]; the request itself when it holds one trace."""
    ids = {span.trace_id for rs in request.resource_spans for ss in rs.scope_spans for span in ss.spans}
    if len(ids) <= 1:
        return [(next(iter(ids), b""), request)]
    out: dict[bytes, ExportTraceServiceRequest] = {}
    for rs in request.resource_spans:
        for ss in rs.scope_spans:
            for span in ss.spans:
                part = out.get(span.trace_id)
                if part is None:
                    part = out[span.trace_id] = ExportTraceServiceRequest()
                prs = part.resource_spans[-1] if part.resource_spans and part.resource_spans[-1].resource == rs.resource else None
                if prs is None:
                    prs = part.resource_spans.add(schema_url=rs.schema_url)
                    prs.resource.CopyFrom(rs.resource)
                pss = prs.scope_spans[-1] if prs.scope_spans and prs.scope_spans[-1].scope == ss.scope else None
                if pss is None:
                    pss = prs.scope_spans.add(schema_url=ss.schema_url)
                    pss.scope.CopyFrom(ss.scope)
                pss.spans.append(span)
    return list(out.items())


class KafkaExporter:
    """A forwarder (submit/flush/close/counts) publishing each trace as one `otlp_proto` message.

    Produce is asynchronous (librdkafka batches and retries on its own threads); a
    full local queue waits briefly, then drops the message and counts it, so a
    broker outage does not stall checking.
    """

    def __init__(self, config: KafkaExporterConfig, producer=None) -> None:
        self.config = config
        self.counts: Counter = Counter()
        self._producer = producer or _producer(config)
        self._by_session = config.partition_by == "session"

    def submit(self, request: ExportTraceServiceRequest) -> None:
        self.publish(request)

    def publish(self, request: ExportTraceServiceRequest, done=None) -> None:
        """Produce one message per trace; `done(ok)` runs once the broker acknowledged all of
        them (ok) or any failed or was dropped (not ok)."""
        parts = split_by_trace(request)
        pending = _Pending(len(parts), done) if done is not None else None
        for trace_id, part in parts:
            key = trace_key(trace_id)
            if self._by_session:
                session = session_of(part)
                key = session.encode() if session else key
            self._produce(key, part.SerializeToString(), pending)

    def _produce(self, key: bytes, value: bytes, pending=None) -> None:
        callback = self._delivered if pending is None else pending.wrap(self._delivered)
        for _ in range(50):
            try:
                self._producer.produce(self.config.topic, value=value, key=key, on_delivery=callback)
                self._producer.poll(0)
                self.counts["kafka_queued"] += 1
                return
            except BufferError:  # the local queue is full: let librdkafka send some first
                self._producer.poll(0.1)
        self.counts["kafka_dropped"] += 1
        logger.warning("kafka producer queue full; a trace was not published to %s", self.config.topic)
        if pending is not None:
            pending.result(False)

    def poll(self, timeout: float) -> None:
        """Serve delivery callbacks (librdkafka calls them only from poll or flush)."""
        self._producer.poll(timeout)

    def _delivered(self, error, _message) -> None:
        if error is None:
            self.counts["kafka_messages"] += 1
        else:
            self.counts["kafka_failed"] += 1
            logger.error("could not publish a trace to kafka topic %s: %s", self.config.topic, error)

    def flush(self, timeout: float = 30.0) -> bool:
        return self._producer.flush(timeout) == 0

    def close(self) -> None:
        left = self._producer.flush(self.config.timeout_s)
        if left:
            logger.error("%d trace message(s) not delivered to kafka topic %s at shutdown", left, self.config.topic)


class _Pending:
    """Counts the messages of one published request down to a single done(ok)."""

    __slots__ = ("_done", "_left", "_lock", "_ok")

    def __init__(self, messages: int, done) -> None:
        self._left = messages
        self._ok = True
        self._done = done
        self._lock = threading.Lock()
        if messages == 0:
            done(True)

    def wrap(self, delivered):
        def callback(error, message) -> None:
            delivered(error, message)
            self.result(error is None)

        return callback

    def result(self, ok: bool) -> None:
        with self._lock:
            self._ok = self._ok and ok
            self._left -= 1
            finished = self._left == 0
        if finished:
            self._done(self._ok)


def _producer(config: KafkaExporterConfig):
    from confluent_kafka import Producer

    settings = {
        "bootstrap.servers": config.brokers,
        "client.id": "claimwatch",
        "linger.ms": 20,
        "compression.type": "lz4",
        # Idempotent producer: librdkafka's retries never write a message twice.
        "enable.idempotence": True,
        "message.timeout.ms": int(config.timeout_s * 1000) * 3,
        "logger": _RDKAFKA_LOG,
    }
    settings.update(config.options)
    return Producer(settings)


class Fanout:
    """Several forwarders behind the one the engine calls: each gets every request."""

    def __init__(self, forwarders: list) -> None:
        self.forwarders = forwarders

    @property
    def counts(self) -> Counter:
        total: Counter = Counter()
        for f in self.forwarders:
            total.update(f.counts)
        return total

    def submit(self, request) -> None:
        for f in self.forwarders:
            f.submit(request)

    def flush(self, timeout: float = 30.0) -> bool:
        deadline = time.monotonic() + timeout
        return all([f.flush(max(0.1, deadline - time.monotonic())) for f in self.forwarders])

    def close(self) -> None:
        for f in self.forwarders:
            f.close()
