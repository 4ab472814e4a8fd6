"""`AuditStore`: one DuckDB file, written in Arrow batches from a background worker.

DuckDB pays 1-3 ms per statement, so row-at-a-time inserts top out near a
few hundred rows/s. Rows are queued, and the worker inserts each table's
batch with one `INSERT ... SELECT` from an Arrow table. A batch is written
when it reaches `batch_rows` or when its oldest row is `flush_interval_s`
old, whichever comes first: that age is the most a crash can lose of what
was handed to the store. `flush()` waits until everything queued is on disk.

Writes are idempotent: evaluation ids are deterministic (a hash of trace,
span and check), and a unit of rows whose evaluation is already stored is
skipped whole, so a redelivered trace (Kafka, a replayed spool, a client's
retry) writes nothing new. `after_written(callback)` runs the callback once
everything queued before it is on disk: how the collector learns what is
durable.

Tables are not listed here: the Arrow schema of every table is read from the
database after migrations, so a check's own tables need no store code.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path

import duckdb
import pyarrow as pa

from ..worker import BackgroundWorker
from .schema import migrate

logger = logging.getLogger("claimwatch.store")
_ARROW = {
    "VARCHAR": pa.string(),
    "BOOLEAN": pa.bool_(),
    "DOUBLE": pa.float64(),
    "INTEGER": pa.int32(),
    "BIGINT": pa.int64(),
    "TIMESTAMP": pa.timestamp("us"),
    "VARCHAR[]": pa.list_(pa.string()),
    "JSON": pa.string(),
}


class AuditStore:
    """Rows of every check in a DuckDB file (or `:memory:`)."""

    def __init__(
        self,
        path: str | Path = "claimwatch.duckdb",
        *,
        batch_rows: int = 5000,
        flush_interval_s: float = 1.0,
        mask_secrets: bool = True,
    ) -> None:
        self.path = str(path)
        self.mask_secrets = mask_secrets  # credential-shaped text in stored rows is masked
        self._con = duckdb.connect(self.path)
        migrate(self._con)
        self._schemas = _schemas(self._con)
        self.rows_written = 0
        self.rows_skipped = 0  # rows of evaluations already stored (redelivered traces)
        self.write_errors = 0
        # Threads whose rows failed to write since their last after_written marker was handled:
        # the writer splits its queue into batches, so a marker may land in the batch after its rows.
        self._failed_producers: set[threading.Thread] = set()
        self._logged = False  # a failed unit's traceback was logged in this batch
        self._worker = BackgroundWorker(
            "claimwatch-store", self._write, batch_size=batch_rows, max_age_s=flush_interval_s
        )

    def add_rows(self, tables: Mapping[str, Sequence[Mapping]]) -> None:
        """Queue rows for several tables as one unit (never blocks)."""
        self._worker.put(_Unit(tables, threading.current_thread()))

    def after_written(self, callback) -> None:
        """Call `callback(ok)` on the writer thread once every row queued before it was handled.

        `ok` is False when a row this thread queued before it failed to write (it is not on disk),
        whichever batch it was written in."""
        self._worker.put(_AfterWritten(callback, threading.current_thread()))

    def add(self, evaluation: dict, violations: list[dict]) -> None:
        """Queue one evaluation row and its violation rows."""
        self.add_rows({"evaluations": [evaluation], "violations": violations})

    def flush(self, timeout: float | None = 30.0) -> bool:
        """Write everything queued so far; True when done within `timeout`."""
        return self._worker.flush(timeout)

    def close(self) -> None:
        self._worker.close()
        self._con.close()

    def cursor(self):
        """A cursor for reads in this process (safe beside the writer thread)."""
        return self._con.cursor()

    def columns(self, table: str) -> list[str]:
        return self._schemas[table].names

    def _write(self, items: list) -> None:
        units = [item for item in items if isinstance(item, _Unit)]
        failed: list[_Unit] = units  # until written
        try:
            # A unit for a table the schema lacks (its check's migration is not registered) cannot be
            # written however often it is split: it fails at once, without costing transactions.
            unknown = [u for u in units if not self._schemas.keys() >= u.tables.keys()]
            if unknown:
                tables = sorted({t for u in unknown for t in u.tables if t not in self._schemas})
                logger.error("no table %s in the audit schema (is its check's migration registered?)", tables)
                units = [u for u in units if self._schemas.keys() >= u.tables.keys()]
            self._logged = False
            failed = unknown + (self._write_split(units) if units else [])
            if failed:
                self.write_errors += 1
                logger.error("could not write %d of %d unit(s) of rows to %s", len(failed), len(units), self.path)
        finally:
            self._answer(items, {id(u) for u in failed})

    def _write_split(self, units: list[_Unit]) -> list[_Unit]:
        """Write `units` in one transaction; when that fails, each half again, so a unit that cannot
        be written (a check's missing table, a value of the wrong type) fails alone instead of
        taking the rest of its batch with it. Returns the units that could not be written."""
        if self._write_units([u.tables for u in units], log=len(units) == 1 and not self._logged):
            return []
        if len(units) == 1:
            self._logged = True  # one traceback per batch is enough
            return units
        half = len(units) // 2
        return self._write_split(units[:half]) + self._write_split(units[half:])

    def _answer(self, items: list, failed_units: set[int]) -> None:
        """Run the batch's markers in queue order; a producer's failed rows fail its next marker."""
        failed = self._failed_producers
        for item in items:
            if isinstance(item, _Unit):
                if id(item) in failed_units:
                    failed.add(item.producer)
                continue
            if not isinstance(item, _AfterWritten):
                continue
            done = item.producer not in failed  # its own rows, in this batch or an earlier one
            failed.discard(item.producer)
            try:
                item.callback(done)
            except Exception:
                logger.exception("after-write callback failed")

    def _write_units(self, units: list[Mapping[str, Sequence[Mapping]]], log: bool = True) -> bool:
        total = sum(len(rows) for unit in units for rows in unit.values())
        try:
            cursor = self._con.cursor()
            try:
                # One transaction per batch: a unit is stored whole or not at all.
                cursor.execute("BEGIN TRANSACTION")
                units = self._new_only(cursor, units)
                merged: dict[str, list] = {}
                for unit in units:
                    for table, rows in unit.items():
                        merged.setdefault(table, []).extend(rows)
                for table, rows in merged.items():
                    self._insert(cursor, table, rows)
                cursor.execute("COMMIT")
            except Exception:
                cursor.execute("ROLLBACK")
                raise
            finally:
                cursor.close()
            written = sum(len(rows) for rows in merged.values())
            self.rows_written += written
            self.rows_skipped += total - written
            return True
        except Exception:
            if log:
                logger.exception("could not write %d row(s) to %s", total, self.path)
            return False

    def _new_only(self, cursor, units: list) -> list:
        """The units whose evaluations are not stored yet (nor earlier in this batch)."""
        keyed = [(unit, [r["evaluation_id"] for r in unit.get("evaluations", ()) if r.get("evaluation_id")])
                 for unit in units]
        ids = [i for _, unit_ids in keyed for i in unit_ids]
        if not ids:
            return units
        times = [r["time"] for unit in units for r in unit.get("evaluations", ()) if r.get("time") is not None]
        cursor.register("_claimwatch_ids", pa.table({"id": pa.array(ids, pa.string())}))
        try:
            # The time range lets DuckDB skip row groups by their min/max: a redelivered trace
            # has the same span times, so only the row groups around them are read.
            where = "time BETWEEN ? AND ? AND " if times else ""
            stored = {row[0] for row in cursor.execute(
                f"SELECT evaluation_id FROM evaluations WHERE {where}"
                "evaluation_id IN (SELECT id FROM _claimwatch_ids)",
                [min(times), max(times)] if times else [],
            ).fetchall()}
        finally:
            cursor.unregister("_claimwatch_ids")
        kept = []
        for unit, unit_ids in keyed:
            if unit_ids and not stored.isdisjoint(unit_ids):
                continue
            stored.update(unit_ids)  # a trace delivered twice within one batch
            kept.append(unit)
        return kept

    def _insert(self, cursor, table: str, rows: list[Mapping]) -> None:
        if not rows:
            return
        schema = self._schemas.get(table)
        if schema is None:
            raise KeyError(f"no table {table!r} in the audit schema (is its check's migration registered?)")
        try:
            batch = pa.table({name: [row.get(name) for row in rows] for name in schema.names}, schema=schema)
        except (UnicodeEncodeError, pa.ArrowException):
            # Half an emoji from decoded JSON cannot be stored as UTF-8: clean this batch only.
            from .rows import clean_row

            rows = [clean_row(dict(row)) for row in rows]
            batch = pa.table({name: [row.get(name) for row in rows] for name in schema.names}, schema=schema)
        cursor.register("_claimwatch_batch", batch)
        try:
            columns = ", ".join(f'"{c}"' for c in schema.names)
            cursor.execute(f'INSERT INTO "{table}" ({columns}) SELECT {columns} FROM _claimwatch_batch')
        finally:
            cursor.unregister("_claimwatch_batch")


class _Unit:
    """Rows for several tables, with the thread that queued them (see `after_written`)."""

    __slots__ = ("producer", "tables")

    def __init__(self, tables, producer: threading.Thread) -> None:
        self.tables = tables
        self.producer = producer


class _AfterWritten:
    """A marker queued behind rows: its callback runs once they are written."""

    __slots__ = ("callback", "producer")

    def __init__(self, callback, producer: threading.Thread) -> None:
        self.callback = callback
        self.producer = producer


def _schemas(con) -> dict[str, pa.Schema]:
    """The Arrow schema of every table in the main schema, from DuckDB's catalog."""
    rows = con.execute(
        "SELECT table_name, column_name, data_type FROM information_schema.columns "
        "WHERE table_schema = 'main' ORDER BY table_name, ordinal_position"
    ).fetchall()
    fields: dict[str, list] = {}
    for table, column, data_type in rows:
        fields.setdefault(table, []).append((column, _ARROW.get(data_type, pa.string())))
    return {table: pa.schema(cols) for table, cols in fields.items()}
