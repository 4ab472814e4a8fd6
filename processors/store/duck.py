"""`AuditStore`: one DuckDB file, written in Arrow batches from a background thread.

DuckDB pays 1-3 ms per statement, so row-at-a-time inserts top out near a
few hundred rows/s. Rows are queued, and a writer thread inserts each batch
with one `INSERT ... SELECT` from an Arrow table. `flush()` waits until
everything queued so far is on disk.
"""

from __future__ import annotations

import logging
import queue
import threading
from pathlib import Path

import duckdb
import pyarrow as pa

from .schema import EVALUATION_SCHEMA, VIOLATION_SCHEMA, migrate

logger = logging.getLogger("claimwatch.store")
_STOP = object()


class AuditStore:
    """Evaluation and violation rows in a DuckDB file (or `:memory:`)."""

    def __init__(
        self, path: str | Path = "claimwatch.duckdb", *, batch_rows: int = 5000, flush_interval_s: float = 1.0
    ) -> None:
        self.path = str(path)
        self._con = duckdb.connect(self.path)
        migrate(self._con)
        self._batch_rows = batch_rows
        self._interval = flush_interval_s
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._lock = threading.Lock()
        self.rows_written = 0
        self.write_errors = 0
        self._closed = False
        self._thread = threading.Thread(target=self._run, name="claimwatch-store", daemon=True)
        self._thread.start()

    def add(self, evaluation: dict, violations: list[dict]) -> None:
        """Queue one evaluation row and its violation rows (never blocks)."""
        if not self._closed:
            self._queue.put((evaluation, violations))

    def flush(self, timeout: float | None = 30.0) -> bool:
        """Write everything queued so far; True when done within `timeout`."""
        if self._closed:
            return True
        done = threading.Event()
        self._queue.put(done)
        return done.wait(timeout)

    def close(self) -> None:
        if self._closed:
            return
        self.flush()
        self._closed = True
        self._queue.put(_STOP)
        self._thread.join(timeout=30)
        with self._lock:
            self._con.close()

    def cursor(self):
        """A cursor for reads in this process (safe beside the writer thread)."""
        return self._con.cursor()

    def _run(self) -> None:
        evaluations: list[dict] = []
        violations: list[dict] = []
        while True:
            try:
                item = self._queue.get(timeout=self._interval)
            except queue.Empty:
                item = None
            if item is _STOP:
                self._write(evaluations, violations)
                return
            if isinstance(item, threading.Event):
                self._write(evaluations, violations)
                evaluations, violations = [], []
                item.set()
                continue
            if item is not None:
                evaluations.append(item[0])
                violations.extend(item[1])
            if item is None or len(evaluations) >= self._batch_rows:
                self._write(evaluations, violations)
                evaluations, violations = [], []

    def _write(self, evaluations: list[dict], violations: list[dict]) -> None:
        if not evaluations and not violations:
            return
        try:
            with self._lock:
                self._insert("evaluations", EVALUATION_SCHEMA, evaluations)
                self._insert("violations", VIOLATION_SCHEMA, violations)
            self.rows_written += len(evaluations) + len(violations)
        except Exception:
            self.write_errors += 1
            logger.exception("could not write %d evaluation rows to %s", len(evaluations), self.path)

    def _insert(self, table: str, schema: pa.Schema, rows: list[dict]) -> None:
        if not rows:
            return
        batch = pa.table({name: [row[name] for row in rows] for name in schema.names}, schema=schema)
        self._con.register("_claimwatch_batch", batch)
        try:
            columns = ", ".join(schema.names)
            self._con.execute(f"INSERT INTO {table} ({columns}) SELECT {columns} FROM _claimwatch_batch")
        finally:
            self._con.unregister("_claimwatch_batch")
