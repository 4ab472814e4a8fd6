"""`AuditStore`: one DuckDB file, written in Arrow batches from a background worker.

DuckDB pays 1-3 ms per statement, so row-at-a-time inserts top out near a
few hundred rows/s. Rows are queued, and the worker inserts each table's
batch with one `INSERT ... SELECT` from an Arrow table. A batch is written
when it reaches `batch_rows` or when its oldest row is `flush_interval_s`
old, whichever comes first: that age is the most a crash can lose of what
was handed to the store. `flush()` waits until everything queued is on disk;
`write_soon()` writes what is queued without waiting (a producer that knows
nothing more is on its way).

Writes are idempotent: evaluation ids are deterministic (a hash of trace,
span and check), and a unit of rows whose evaluation is already stored is
skipped whole, so a redelivered trace (Kafka, a replayed spool, a client's
retry) writes nothing new. A row with a `finding_key` (one tool call seen as
the LLM's request and as its execution gives both the same key) is a repeat
when its table holds that key already, or an earlier row of the batch does: a
repeated violation is skipped, and in a table with a `repeated` column (a
check's own rows, one per sighting) the row is kept, marked. Keys are looked
up among rows up to `SIGHTINGS_APART` older than the batch.
`after_written(callback)` runs the callback once everything queued before it
is on disk: how the collector learns what is durable.

Tables are not listed here: the Arrow schema of every table is read from the
database after migrations, so a check's own tables need no store code.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from pathlib import Path

import duckdb
import pyarrow as pa

from ..worker import BackgroundWorker
from .schema import migrate

logger = logging.getLogger("claimwatch.store")
# How far apart the sightings of one finding may be stored (a call asked for, then run after a person
# approved it): older rows are not searched for its key, and a later sighting counts again.
SIGHTINGS_APART = timedelta(days=1)
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
        self.units_rejected = 0  # units that can never be written, kept in `rejected_path`
        # Where rows that can never be written go, so they are neither lost nor retried forever.
        self.rejected_path = None if self.path == ":memory:" else Path(f"{self.path}.rejected.jsonl")
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

    def write_soon(self) -> None:
        """Write what is queued now instead of when the batch fills or ages (never blocks): for a
        producer with nothing more on its way, waiting `flush_interval_s` only delays durability."""
        self._worker.deliver_soon()

    def flush(self, timeout: float | None = 30.0) -> bool:
        """Write everything queued so far; True when done within `timeout`."""
        return self._worker.flush(timeout)

    def close(self) -> None:
        self._worker.close()
        self._con.close()

    def counters(self) -> dict[str, int]:
        """The store's counters as `/api/status` shows them."""
        return {"store_rows_written": self.rows_written, "store_write_errors": self.write_errors,
                "store_rows_skipped": self.rows_skipped, "store_units_rejected": self.units_rejected}

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
            rejected: list[tuple[_Unit, BaseException]] = []
            if unknown:
                tables = sorted({t for u in unknown for t in u.tables if t not in self._schemas})
                problem = KeyError(f"no table {tables} in the audit schema (is its check's migration registered?)")
                rejected = [(u, problem) for u in unknown]
                units = [u for u in units if self._schemas.keys() >= u.tables.keys()]
            self._logged = False
            failures = self._write_split(units) if units else []
            rejected += [(u, exc) for u, exc in failures if _permanent(exc)]
            failed = [u for u, exc in failures if not _permanent(exc)]
            unsaved = self._reject(rejected) if rejected else []
            failed += unsaved
            if failures or unknown:
                self.write_errors += 1
                logger.error("could not write %d of %d unit(s) of rows to %s; %d set aside in %s",
                             len(failures) + len(unknown), len(units) + len(unknown), self.path,
                             len(rejected) - len(unsaved), self.rejected_path or "nowhere (in-memory store)")
        finally:
            self._answer(items, {id(u) for u in failed})

    def _write_split(self, units: list[_Unit]) -> list[tuple[_Unit, BaseException]]:
        """Write `units` in one transaction; when that fails, each half again, so a unit that cannot
        be written (a check's missing table, a value of the wrong type) fails alone instead of
        taking the rest of its batch with it. Returns the units that could not be written, each
        with its error."""
        problem = self._write_units([u.tables for u in units], log=len(units) == 1 and not self._logged)
        if problem is None:
            return []
        if len(units) == 1:
            self._logged = True  # one traceback per batch is enough
            return [(units[0], problem)]
        half = len(units) // 2
        return self._write_split(units[:half]) + self._write_split(units[half:])

    def _reject(self, rejected: list[tuple[_Unit, BaseException]]) -> list[_Unit]:
        """Set aside units that can never be written, as JSON lines beside the database, so their
        calls still settle (a spool or a Kafka offset behind them would otherwise wait forever).
        Returns the units that could not be set aside either (they fail like a write error)."""
        if self.rejected_path is None:
            self.units_rejected += len(rejected)  # an in-memory store has nowhere to keep them
            return []
        try:
            with open(self.rejected_path, "a", encoding="utf-8") as out:
                for unit, exc in rejected:
                    line = {"error": f"{type(exc).__name__}: {exc}", "rows": unit.tables}
                    out.write(json.dumps(line, default=str, ensure_ascii=False) + "\n")
                out.flush()
                os.fsync(out.fileno())
        except (OSError, TypeError, ValueError):
            logger.exception("could not set aside %d unit(s) in %s", len(rejected), self.rejected_path)
            return [u for u, _ in rejected]
        self.units_rejected += len(rejected)
        return []

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

    def _write_units(self, units: list[Mapping[str, Sequence[Mapping]]], log: bool = True) -> BaseException | None:
        """Write the units in one transaction; None when done, else what went wrong."""
        total = sum(len(rows) for unit in units for rows in unit.values())
        try:
            cursor = self._con.cursor()
            try:
                # One transaction per batch: a unit is stored whole or not at all.
                cursor.execute("BEGIN TRANSACTION")
                units = self._first_sightings(cursor, self._new_only(cursor, units))
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
            return None
        except Exception as exc:
            if log:
                logger.exception("could not write %d row(s) to %s", total, self.path)
            return exc

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

    def _first_sightings(self, cursor, units: list) -> list:
        """The units with their repeats of a finding key dropped or, in a table with a `repeated` column, marked."""
        keyed: dict[str, list[str]] = {}
        for unit in units:
            for table, rows in unit.items():
                keyed.setdefault(table, []).extend(r["finding_key"] for r in rows if r.get("finding_key"))
        keyed = {t: keys for t, keys in keyed.items() if keys and "finding_key" in self._schemas[t].names}
        if not keyed:
            return units
        times = [r["time"] for unit in units for rows in unit.values() for r in rows
                 if isinstance(r.get("time"), datetime)]
        since = min(times) - SIGHTINGS_APART if times else None
        seen = {table: self._stored_keys(cursor, table, keys, since) for table, keys in keyed.items()}
        return [self._without_repeats(unit, seen) for unit in units]

    def _stored_keys(self, cursor, table: str, keys: list[str], since) -> set[str]:
        cursor.register("_claimwatch_keys", pa.table({"key": pa.array(keys, pa.string())}))
        try:
            # Rows are appended in about time order, so the bound lets DuckDB skip older row groups.
            where = "time >= ? AND " if since is not None else ""
            return {row[0] for row in cursor.execute(
                f'SELECT finding_key FROM "{table}" WHERE {where}finding_key IN (SELECT key FROM _claimwatch_keys)',
                [since] if since is not None else [],
            ).fetchall()}
        finally:
            cursor.unregister("_claimwatch_keys")

    def _without_repeats(self, unit: Mapping, seen: dict[str, set[str]]) -> Mapping:
        """`unit` with its rows whose key is in `seen` dropped or marked; adds its own keys to `seen`. A new
        mapping: a unit is written again alone when its batch fails, and must still hold all its rows then."""
        out = dict(unit)
        for table, keys in seen.items():
            rows = unit.get(table)
            if rows:
                out[table] = _repeats_handled(rows, keys, "repeated" in self._schemas[table].names)
        return out

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


# Errors a unit's own rows cause (a value of the wrong type, a missing table, a broken
# constraint): writing it again can never succeed. Anything else (a full disk, an I/O error,
# memory) may pass, so those rows are not settled and the spool or Kafka delivers them again.
_PERMANENT = (KeyError, TypeError, ValueError, pa.ArrowException, duckdb.ConversionException,
              duckdb.ConstraintException, duckdb.CatalogException, duckdb.BinderException,
              duckdb.InvalidInputException)
_TRANSIENT = (OSError, MemoryError, duckdb.IOException, duckdb.OutOfMemoryException)


def _permanent(exc: BaseException) -> bool:
    return isinstance(exc, _PERMANENT) and not isinstance(exc, _TRANSIENT)


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


def _repeats_handled(rows: Sequence[Mapping], seen: set[str], mark: bool) -> list[Mapping]:
    """The rows, those whose key is in `seen` marked `repeated` (`mark`) or left out; their keys join `seen`."""
    out = []
    for row in rows:
        key = row.get("finding_key")
        if key and key in seen:
            if mark:
                out.append({**row, "repeated": True})
            continue
        if key:
            seen.add(key)
        out.append(row)
    return out


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
