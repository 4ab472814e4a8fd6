"""`WorkerPool`: the checks on every core, whole traces per worker process.

The GIL keeps a second thread from running the checks side by side (RE2 and
the detectors hold it), so with `processor.workers` above 1 the collector
starts that many processes. The receivers still decode requests (they must
answer partial success and need the trace ids to route); the pool sends each
worker the spans of its traces as protobuf bytes (a trace id's CRC picks the
worker, so trace assembly, redaction and trace-level checks see the whole
trace), and each worker runs an ordinary `CollectorEngine`: decision wait,
checks, annotations, forwarding. Rows come back to this process, which owns
the one DuckDB file (DuckDB allows a single writer), and the ledger here
settles a call once every worker's rows for it are written.

Protobuf bytes cross the boundary rather than Python objects: a span pickles
to several times its wire size and unpickles slower than upb parses it.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import queue
import signal
import threading
import time
import zlib
from collections import Counter, OrderedDict
from typing import Any

from claimwatch.checks.pipeline import Pipeline
from claimwatch.core.config import ClaimwatchConfig

from .engine import (
    MEMORY_PER_WIRE_BYTE,
    Accepted,
    LogItem,
    Overloaded,
    log_counts,
    output_logs,
    refuse_over_bound,
)
from .ledger import Ledger
from .otlp import ReceivedSpan, UnusualWire, build_request, len_fields, resource_spans_wire, scope_spans_wire

logger = logging.getLogger("claimwatch.collector")
_STOP_TIMEOUT_S = 60.0
_QUICK_DEATH_S = 10.0  # a worker that dies sooner than this after starting is restarted with a pause
_MAX_RESTART_PAUSE_S = 30.0
_MAX_AGENT_BLOCKS = 1_024  # as the pipeline keeps per process


def worker_count(config: ClaimwatchConfig) -> int:
    """How many processes `processor.workers` asks for (0: one per CPU core available)."""
    n = config.processor.workers
    if n == 0:
        n = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, n)


class WorkerPool:
    """The engine's interface (accept, flush, close, stats, durable_seq) over worker processes."""

    def __init__(self, config: ClaimwatchConfig, store=None, processes: int | None = None) -> None:
        self.config = config
        self.store = store
        self.forwarder = None  # each worker forwards what it processed
        self.ledger = Ledger()
        self.counts: Counter = Counter()
        self._pipeline: Pipeline | None = None
        self._max_bytes = config.processor.max_buffered_bytes
        self._max_items = 2 * config.processor.max_spans
        self._worker_counts: list[dict] = []
        self._retired: Counter = Counter()  # counters of workers that died and were replaced
        self._flushes: dict[int, _Countdown] = {}
        self._flush_lock = threading.Lock()
        self._next_token = 0
        self._workers: list[_Worker] = []
        # Enforced blocks of agents, by agent, as the workers reported them: each is handed to the other
        # workers (an agent's next trace may be routed to another one) and to a worker that restarts.
        self._agent_blocks: OrderedDict[str, tuple] = OrderedDict()
        mask = getattr(store, "mask_secrets", True)
        for index in range(processes or worker_count(config)):
            worker = _Worker(index, (config, index, None, mask))
            self._workers.append(worker)
            self._worker_counts.append({})
            self._start(worker)

    def _start(self, worker: _Worker) -> None:
        worker.start()
        for block in list(self._agent_blocks.values()):
            worker.send(("carry", block))
        reader = threading.Thread(target=self._read, args=(worker, worker.conn), daemon=True,
                                  name=f"claimwatch-pool-{worker.index}")
        worker.reader = reader
        reader.start()

    def wait_ready(self, timeout: float = 120.0) -> bool:
        """Wait until every worker has built and warmed up its checks (True), or `timeout` passed.

        Spawning imports claimwatch and builds the checks anew in each worker (about a
        second): a collector that reported itself up before that queued its first calls
        behind the start-up."""
        deadline = time.monotonic() + timeout
        return all(w.ready.wait(max(0.0, deadline - time.monotonic())) for w in self._workers)

    @property
    def pipeline(self) -> Pipeline:
        """A pipeline in this process, for decisions asked over the API (hooks)."""
        if self._pipeline is None:
            self._pipeline = Pipeline(self.config)
        return self._pipeline

    # --- receiver side ---------------------------------------------------------------------------
    def accept_request(self, request, wire: bytes | None = None) -> Accepted:
        """Route a decoded ExportTraceServiceRequest's spans to the workers by trace id.

        Only ids are read here (no span records are built): each worker gets one request of
        its spans, as bytes (`split_request`; `wire`, the protobuf bytes the request was decoded
        from, spares serializing each span again)."""
        payloads, counts, total, bad = split_request(request, len(self._workers), wire)
        seq = self._open(total - bad, sum(len(p) for p in payloads.values()))
        for i, payload in payloads.items():
            self._workers[i].send(("traces", seq, payload, counts[i]))
        self.counts["spans_received"] += total
        self.counts["spans_rejected"] += bad
        message = f"{bad} span(s) rejected: trace_id must be 16 bytes and span_id 8 bytes" if bad else ""
        return Accepted(total - bad, bad, message, seq)

    def accept_traces(self, spans: list[ReceivedSpan]) -> Accepted:
        """Decoded spans (as the single-process engine takes them)."""
        return self.accept_request(build_request(spans))

    def accept_logs(self, request) -> Accepted:
        parts: dict[int, list[LogItem]] = {}
        n = len(self._workers)
        seen, found = output_logs(request)
        for log, record_ in found:  # routed as the spans of its trace
            parts.setdefault(zlib.crc32(log.trace_id) % n, []).append(LogItem(record_, size=log.ByteSize()))
        nbytes = sum(item.size for items in parts.values() for item in items)
        seq = self._open(sum(map(len, parts.values())), nbytes)
        for i, items in parts.items():
            self._workers[i].send(("logs", seq, items, len(items)))
        self.counts["logs_received"] += seen
        self.counts.update(log_counts(record_ for _, record_ in found))
        return Accepted(seen, 0, "", seq)

    def admit(self, wire_bytes: int) -> None:
        """Refuse a request before it is decoded when it would pass the memory bound."""
        refuse_over_bound(self.ledger.open_bytes, wire_bytes * MEMORY_PER_WIRE_BYTE, self._max_bytes, self.counts)

    def _open(self, items: int, nbytes: int) -> int:
        # The bytes are charged as decoded spans: the worker that holds them decodes them.
        nbytes *= MEMORY_PER_WIRE_BYTE
        if self.ledger.open_items + items > self._max_items:
            self.counts["requests_refused_overload"] += 1
            raise Overloaded("processing backlog is full")
        refuse_over_bound(self.ledger.open_bytes, nbytes, self._max_bytes, self.counts)
        return self.ledger.open(items, nbytes)

    def durable_seq(self) -> int:
        return self.ledger.durable_seq()

    def wait_durable(self, seq: int, timeout: float | None = 30.0) -> bool:
        return self.ledger.wait_durable(seq, timeout)

    # --- what the workers send back --------------------------------------------------------------
    def _read(self, worker: _Worker, conn) -> None:
        while True:
            try:
                message = conn.recv()
            except (EOFError, OSError):
                break
            try:
                self._receive(worker, message)
            except Exception:
                logger.exception("could not handle a message from worker %d", worker.index)
        if worker.stopping:
            return
        # A worker died (killed, out of memory, a crash in native code). What it held is
        # still outstanding here: a new worker gets it again; rows it had already sent are
        # skipped by the store (evaluation ids are deterministic).
        worker.process.join(5)
        self.counts["worker_restarts"] += 1
        pause = worker.restart_pause()
        if pause:  # it died soon after starting: restarting at once would spin (a bad install, no memory)
            logger.error("worker %d died %d time(s) right after starting; next start in %.0f s",
                         worker.index, worker.quick_deaths, pause)
            time.sleep(pause)
        # Its counters live on in the totals (a replacement starts from zero; counters must not fall).
        # (A new Counter, not an update in place: stats() may be reading the old one.)
        self._retired = self._retired + Counter({k: v for k, v in self._worker_counts[worker.index].items()
                                                 if isinstance(v, int | float) and k not in _OWN_KEYS | _GAUGES})
        self._worker_counts[worker.index] = {}
        logger.error("worker %d exited (exit code %s); starting a new one and resending %d call(s)",
                     worker.index, worker.process.exitcode, len(worker.outstanding))
        self._start(worker)
        worker.resend()
        # A flush sent down the dead worker's pipe was never answered: ask the new one, after the
        # resent calls, or flush (and close, and Ctrl-C) waits for its whole timeout.
        for token, countdown in list(self._flushes.items()):
            if countdown.waits_for(worker.index):
                worker.send(("flush", token, countdown.timeout))

    def _receive(self, worker: _Worker, message: tuple) -> None:
        kind = message[0]
        if kind == "rows":
            _, units, settled, counts = message
            self._worker_counts[worker.index] = counts
            settled = worker.settled(settled)
            if self.store is None:
                self.ledger.settle(settled)
                return
            for unit in units:
                self.store.add_rows(unit)
            self.store.after_written(lambda ok: self.ledger.settle(settled) if ok else None)
            if not any(w.outstanding for w in self._workers):
                # Every call sent out is settled: no rows are on their way, so waiting out the
                # store's flush interval would only hold the last calls back from being durable
                # (up to a second at the end of every burst). Under load some call is always out.
                self.store.write_soon()
        elif kind == "blocked":
            block = message[1]
            self._agent_blocks.pop(block[0], None)
            self._agent_blocks[block[0]] = block
            while len(self._agent_blocks) > _MAX_AGENT_BLOCKS:
                self._agent_blocks.popitem(last=False)
            for other in self._workers:
                if other is not worker:
                    other.send(("carry", block))
        elif kind == "ready":
            worker.ready.set()
        elif kind == "flushed":
            _, token, counts, done = message
            self._worker_counts[worker.index] = counts
            event = self._flushes.get(token)
            if event is not None:
                event.countdown(worker.index, done)  # by worker: a restarted one may answer a token twice

    # --- lifecycle -------------------------------------------------------------------------------
    def flush(self, timeout: float = 30.0) -> bool:
        """Every worker processes what it holds now; then the store writes it."""
        deadline = time.monotonic() + timeout
        with self._flush_lock:
            self._next_token += 1
            token = self._next_token
        event = _Countdown((w.index for w in self._workers), timeout)
        self._flushes[token] = event
        try:
            for worker in self._workers:
                worker.send(("flush", token, timeout))
            ok = event.wait(timeout) and event.all_done
        finally:
            self._flushes.pop(token, None)
        if self.store is not None:
            ok = self.store.flush(max(0.1, deadline - time.monotonic())) and ok
        return ok

    def close(self) -> None:
        self.flush(_STOP_TIMEOUT_S)
        for worker in self._workers:
            worker.stop()
        for worker in self._workers:
            worker.process.join(_STOP_TIMEOUT_S)
            if worker.process.is_alive():
                worker.process.kill()
        for worker in self._workers:  # the rows a worker sent as it stopped are still being read
            if worker.reader is not None:
                worker.reader.join(_STOP_TIMEOUT_S)
        if self.store is not None:
            self.store.close()

    def stats(self) -> dict:
        out: Counter = Counter(self.counts)
        out.update(self._retired)
        for counts in self._worker_counts:
            out.update({k: v for k, v in counts.items() if isinstance(v, int | float) and k not in _OWN_KEYS})
        out = dict(out)
        out.update(workers=len(self._workers), workers_ready=sum(w.ready.is_set() for w in self._workers),
                   accepted_seq=self.ledger.last_seq,
                   durable_seq=self.ledger.durable_seq(), buffered_bytes=self.ledger.open_bytes,
                   queue_depth=self.ledger.open_items)
        if self.store is not None:
            out.update(self.store.counters())
        return out


# Counters the pool keeps itself (the workers' own are for their part of the work only).
_OWN_KEYS = frozenset({"workers_ready", "spans_received", "spans_rejected", "logs_received", "logs_with_output",
                       "accepted_seq", "durable_seq", "buffered_bytes", "queue_depth",
                       "store_rows_written", "store_write_errors", "store_rows_skipped", "store_units_rejected"})
# What a worker holds now, not a count of what it did: not carried over when it is replaced.
_GAUGES = frozenset({"buffered_traces", "buffered_spans"})


def split_request(request, n: int, wire: bytes | None = None) -> tuple[dict[int, bytes], Counter, int, int]:
    """(serialized request per worker index, spans per worker, spans seen, spans with bad ids).

    A trace id's CRC picks the worker. The parts are written on the wire rather than copied
    into new protobuf messages (repeated fields concatenate): byte for byte what a copy and a
    serialization gave, at about half the cost (~2.5 us a span less in the receiving process).
    With `wire`, the request's own bytes, each span is taken from them as it came instead of
    serialized again (`_split_wire`)."""
    if wire is not None:
        try:
            return _split_wire(request, n, wire)
        except UnusualWire:
            pass  # a field out of the usual shape: the decoded request's way below gives what protobuf reads
    parts: dict[int, list[bytes]] = {}
    counts: Counter = Counter()
    total = bad = 0
    for rs in request.resource_spans:
        resource = None
        for ss in rs.scope_spans:
            groups: dict[int, list[bytes]] = {}
            for span in ss.spans:
                total += 1
                trace_id = span.trace_id
                if len(trace_id) != 16 or len(span.span_id) != 8:
                    bad += 1
                    continue
                groups.setdefault(zlib.crc32(trace_id) % n, []).append(span.SerializeToString())
            if not groups:
                continue
            if resource is None:
                resource = rs.resource.SerializeToString()
            _add_groups(parts, counts, groups, resource, rs.schema_url, ss.scope.SerializeToString(), ss.schema_url)
    return {i: b"".join(p) for i, p in parts.items()}, counts, total, bad


def _add_groups(parts, counts, groups, resource: bytes | None, rs_schema: str, scope: bytes | None, ss_schema: str):
    """Append each worker's group of span bytes to its part: one ResourceSpans holding one ScopeSpans per group,
    as a copy of the request's messages would make them."""
    for i, wires in groups.items():
        body = scope_spans_wire(scope or b"", ss_schema, wires)
        parts.setdefault(i, []).append(resource_spans_wire(resource or b"", rs_schema, [body]))
        counts[i] += len(wires)


def _split_wire(request, n: int, wire: bytes) -> tuple[dict[int, bytes], Counter, int, int]:
    """`split_request` with each span's bytes sliced from `wire`, the bytes `request` was decoded from
    (serializing every span again was about half of what routing a span cost). The ids that route a
    span are still read from the decoded span, so a span whose bytes hold an id twice goes where
    protobuf reads it; anything but the usual shape of a request (a field written twice, an unknown
    one, counts that disagree) raises `UnusualWire`."""
    parts: dict[int, list[bytes]] = {}
    counts: Counter = Counter()
    total = bad = 0
    rss = list(len_fields(wire, 0, len(wire)))
    if len(rss) != len(request.resource_spans) or any(field != 1 for field, _, _ in rss):
        raise UnusualWire("not the request's resource spans")
    for (_, start, end), rs in zip(rss, request.resource_spans, strict=True):
        resource = None
        scopes = []
        for field, s, e in len_fields(wire, start, end):
            if field == 2:
                scopes.append((s, e))
            elif field == 1 and resource is None:
                resource = wire[s:e]
            elif field != 3:
                raise UnusualWire(f"resource spans field {field}")
        if len(scopes) != len(rs.scope_spans):
            raise UnusualWire("not the request's scope spans")
        for (s0, e0), ss in zip(scopes, rs.scope_spans, strict=True):
            scope = None
            groups: dict[int, list[bytes]] = {}
            spans = iter(ss.spans)
            for field, s, e in len_fields(wire, s0, e0):
                if field == 2:
                    span = next(spans, None)
                    if span is None:
                        raise UnusualWire("more spans than decoded")
                    total += 1
                    trace_id = span.trace_id
                    if len(trace_id) != 16 or len(span.span_id) != 8:
                        bad += 1
                        continue
                    i = zlib.crc32(trace_id) % n
                    group = groups.get(i)
                    if group is None:
                        group = groups[i] = []
                    group.append(wire[s:e])
                elif field == 1 and scope is None:
                    scope = wire[s:e]
                elif field != 3:
                    raise UnusualWire(f"scope spans field {field}")
            if next(spans, None) is not None:
                raise UnusualWire("fewer spans than decoded")
            _add_groups(parts, counts, groups, resource, rs.schema_url, scope, ss.schema_url)
    return {i: b"".join(p) for i, p in parts.items()}, counts, total, bad


class _Worker:
    """One worker process, its pipe, and the parts of calls it has not settled yet.

    Messages go through a queue and a sender thread, so a receiver thread never waits
    for a busy worker to read: the memory bound (the ledger's open bytes) is what
    pushes back on clients, with a 503, not a stalled request."""

    def __init__(self, index: int, args: tuple) -> None:
        self.index = index
        self._args = args
        self.process = None
        self.conn = None
        self.stopping = False
        self.reader: threading.Thread | None = None  # reads what the worker sends back
        self.started_at = 0.0
        self.ready = threading.Event()  # set when the running process said its checks are built
        self.quick_deaths = 0
        self.outstanding: dict[int, list] = {}  # seq -> [message, items not settled]
        self._lock = threading.Lock()  # guards outstanding
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        threading.Thread(target=self._send_loop, name=f"claimwatch-send-{index}", daemon=True).start()

    def start(self) -> None:
        ctx = multiprocessing.get_context("spawn")  # a fork would copy gRPC and DuckDB threads' locks
        self.ready.clear()
        parent, child = ctx.Pipe()
        config, index, _, mask = self._args
        self.process = ctx.Process(target=_worker_main, args=(config, index, child, mask),
                                   name=f"claimwatch-worker-{index}", daemon=True)
        self.process.start()
        child.close()
        self.conn = parent
        self.started_at = time.monotonic()

    def restart_pause(self) -> float:
        """Seconds to wait before starting again: 0 after a long life, doubling after quick deaths."""
        if time.monotonic() - self.started_at > _QUICK_DEATH_S:
            self.quick_deaths = 0
            return 0.0
        self.quick_deaths += 1
        return min(_MAX_RESTART_PAUSE_S, 0.5 * 2 ** (self.quick_deaths - 1))

    def send(self, message: tuple) -> None:
        """Queue a message; a call's part stays outstanding until the worker settles it."""
        if message[0] in ("traces", "logs"):
            with self._lock:
                self.outstanding[message[1]] = [message, message[3]]
        self._queue.put(message)

    def _send_loop(self) -> None:
        while True:
            message = self._queue.get()
            if message is None:
                return
            try:
                self.conn.send(message)
            except (OSError, AttributeError):
                pass  # the worker died: its reader restarts it and resends what is outstanding

    def settled(self, counts: dict[int, int]) -> dict[int, int]:
        """What of `counts` this worker still owed (a resent part is not settled twice)."""
        out = {}
        with self._lock:
            for seq, n in counts.items():
                entry = self.outstanding.get(seq)
                if entry is None:
                    continue
                n = min(n, entry[1])
                entry[1] -= n
                if entry[1] <= 0:
                    del self.outstanding[seq]
                out[seq] = n
        return out

    def resend(self) -> None:
        with self._lock:
            messages = [entry[0] for _, entry in sorted(self.outstanding.items())]
        for message in messages:
            self._queue.put(message)

    def stop(self) -> None:
        self.stopping = True
        self._queue.put(("stop",))
        self._queue.put(None)


class _Countdown:
    """The workers a flush still waits for."""

    def __init__(self, indexes, timeout: float) -> None:
        self._pending = set(indexes)
        self._cond = threading.Condition()
        self.timeout = timeout
        self.all_done = True  # False when a worker's own flush ran out of time

    def waits_for(self, index: int) -> bool:
        with self._cond:
            return index in self._pending

    def countdown(self, index: int, done: bool = True) -> None:
        with self._cond:
            self._pending.discard(index)
            self.all_done = self.all_done and done
            self._cond.notify_all()

    def wait(self, timeout: float) -> bool:
        with self._cond:
            return self._cond.wait_for(lambda: not self._pending, timeout)


# --- the worker process ------------------------------------------------------------------------
class _RowPipe:
    """The store a worker's engine writes to: rows go back to the parent with what they settle."""

    def __init__(self, send, engine_counts, mask_secrets: bool) -> None:
        self._send = send
        self._units: list = []
        self._counts = engine_counts
        self.mask_secrets = mask_secrets

    def add_rows(self, tables) -> None:
        self._units.append(tables)

    def processed(self, settled: dict[int, int]) -> None:
        units, self._units = self._units, []
        self._send(("rows", units, settled, self._counts()))

    def counters(self) -> dict[str, int]:
        return {}  # the parent's store counts the rows

    def flush(self, timeout=None) -> bool:
        return True

    def close(self) -> None:
        pass


def _worker_main(config: ClaimwatchConfig, index: int, conn, mask_secrets: bool) -> None:
    """A worker process: an ordinary engine fed with the spans of its traces."""
    from .engine import CollectorEngine, tune_gc
    from .forward import build_forwarder

    # Ctrl-C reaches the whole process group: the parent stops the workers in order (flush, then
    # "stop"); a worker dying on its own KeyboardInterrupt was restarted mid-shutdown instead.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    logging.basicConfig(level=logging.WARNING, format=f"%(asctime)s worker-{index} %(levelname)s %(message)s")
    lock = threading.Lock()

    def send(message: Any) -> None:
        with lock:
            conn.send(message)

    engine: CollectorEngine | None = None
    pipe = _RowPipe(send, lambda: engine.stats() if engine else {}, mask_secrets)
    engine = CollectorEngine(config, pipe, build_forwarder(config), on_processed=pipe.processed)
    engine.pipeline.on_agent_block = lambda block: send(("blocked", block))
    tune_gc()  # a spawned process does not inherit serve's setting
    send(("ready", index))  # checks built and warmed up: the parent may count this worker in
    try:
        while True:
            try:
                message = conn.recv()
            except (EOFError, OSError):
                break  # the collector went away
            kind = message[0]
            if kind in ("traces", "logs"):
                _accept(engine, pipe, message)
            elif kind == "carry":  # another worker blocked an agent: its later traces may come here
                engine.pipeline.carry_agent_block(*message[1])
            elif kind == "flush":
                done = engine.flush(message[2])  # the parent's timeout: a late "flushed" says it ran out
                send(("flushed", message[1], engine.stats(), done))
            elif kind == "stop":
                break
    finally:
        engine.close()
        conn.close()


def _accept(engine, pipe: _RowPipe, message: tuple) -> None:
    """Hand a part of a call to the engine; if it cannot take it, settle it so the ledger moves on."""
    from .otlp import parse_traces

    kind, seq, payload, items = message
    try:
        if kind == "traces":
            engine.accept_request(parse_traces(payload, "application/x-protobuf"), seq=seq)
        else:
            engine.accept_log_items(payload, seq)
    except Exception:
        # The parent bounds what it sends by the same limits, so this is a defect, not load.
        logger.exception("worker could not take %d item(s) of call %d; they are dropped", items, seq)
        engine.counts["worker_dropped"] += items
        pipe.processed({seq: items})
