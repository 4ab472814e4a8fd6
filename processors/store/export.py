"""Fleet-wide queries: each worker exports closed time partitions of its DuckDB file to
hive-partitioned Parquet, and `fleet_connection()` reads every worker's partitions back as
views named like the store's tables, so the named queries run over the whole fleet unchanged.

Layout (one file per table, partition and worker; `hour=` only with `partition: hour`):

    ROOT/<table>/date=YYYY-MM-DD[/hour=HH]/worker=<name>/part.parquet

A worker's file for a partition is always that partition's whole content in its database,
so re-exporting overwrites it (written under a temporary name, then renamed). A partition is
exported once it is closed (its end is older than now minus a grace: the time a row can still
be on its way into the store) and again whenever its row count changed since (a late span).
On shutdown every changed partition is exported, the open one included.

Which partitions were exported, and with how many rows, is read back from the files' Parquet
footers on the first pass, so a restarted worker does not rewrite what is already there.
The worker name must stay the same for the same database file: a second name would export the
same rows twice. The default is derived from the host name and the database path for that reason.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import socket
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

logger = logging.getLogger("claimwatch.store.export")

# Bookkeeping of one database, not observations: never exported. Replay runs are an analysis of
# one worker's rows (a fleet-wide replay would need every worker's rows), so they stay local too.
SKIPPED_TABLES = frozenset({"schema_migrations", "check_migrations", "replay_runs", "replay_agents"})
GRANULARITIES = {"day": timedelta(days=1), "hour": timedelta(hours=1)}
FILE_NAME = "part.parquet"
_BATCH_ROWS = 262_144  # Arrow rows per batch when streaming out of a hardened store (~80 MB of evaluations)
# Snappy, DuckDB's default: zstd made ~45 % smaller files of synthetic rows but took 2.3x as long to
# write, and the worker's CPU is what the checks need.
_PARQUET = "FORMAT parquet, COMPRESSION snappy"
WORKER_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
_FILE = re.compile(
    r"/(?P<table>[^/]+)/date=(?P<date>\d{4}-\d{2}-\d{2})(?:/hour=(?P<hour>\d{2}))?/worker=(?P<worker>[^/]+)/"
    + re.escape(FILE_NAME)
    + "$"
)


class FleetError(ValueError):
    """The export directory cannot be read or written as a fleet of partitions."""


def is_remote(root: str) -> bool:
    """An object-store URL (s3://, gs://, ...) rather than a local directory."""
    return "://" in root


def default_worker(db_path: str) -> str:
    """A worker name stable for one database file on one host: `<host>-<file stem>-<path hash>`.

    Not the process id: a restarted worker reads the same file and must export it under the
    same name, or its rows would appear twice in fleet queries.
    """
    host = re.sub(r"[^A-Za-z0-9._-]", "-", socket.gethostname()).strip("-.") or "host"
    if db_path == ":memory:":
        return f"{host}-{os.getpid()}"
    stem = re.sub(r"[^A-Za-z0-9._-]", "-", Path(db_path).stem) or "db"
    digest = hashlib.sha256(str(Path(db_path).resolve()).encode()).hexdigest()[:6]
    return f"{host}-{stem}-{digest}"[:128]


def check_worker(name: str) -> str:
    """A worker name is one path segment: letters, digits, `.`, `_`, `-`."""
    if not WORKER_NAME.match(name):
        raise FleetError(f"worker name {name!r} must be letters, digits, '.', '_' or '-' (at most 128)")
    return name


@dataclass(frozen=True, slots=True, order=True)
class Partition:
    """One table's rows whose `time` falls in [start, start + granularity)."""

    table: str
    start: datetime
    granularity: str = "day"

    @property
    def end(self) -> datetime:
        return self.start + GRANULARITIES[self.granularity]

    def directory(self, root: str, worker: str) -> str:
        parts = [root.rstrip("/"), self.table, f"date={self.start:%Y-%m-%d}"]
        if self.granularity == "hour":
            parts.append(f"hour={self.start:%H}")
        parts.append(f"worker={worker}")
        return "/".join(parts)


def partition_of(table: str, when: datetime, granularity: str) -> Partition:
    """The partition a row of `table` at `when` (naive UTC) belongs to."""
    start = when.replace(minute=0, second=0, microsecond=0)
    if granularity == "day":
        start = start.replace(hour=0)
    return Partition(table, start, granularity)


def due(
    counts: Mapping[Partition, int],
    exported: Mapping[Partition, int],
    *,
    now: datetime,
    grace: timedelta,
    final: bool = False,
) -> list[Partition]:
    """Partitions to (re)write: closed ones (all of them when `final`) whose row count differs
    from the count last exported. A partition never exported counts as differing."""
    closed_before = now - grace
    return sorted(p for p, n in counts.items() if exported.get(p) != n and (final or p.end <= closed_before))


def parse_file(path: str) -> tuple[Partition, str] | None:
    """(partition, worker) of an exported file's path, or None for any other file."""
    m = _FILE.search(path.replace("\\", "/"))
    if m is None:
        return None
    start = datetime.fromisoformat(m["date"])
    granularity = "day"
    if m["hour"] is not None:
        start, granularity = start.replace(hour=int(m["hour"])), "hour"
    return Partition(m["table"], start, granularity), m["worker"]


class PartitionExporter:
    """Exports a DuckDB database's time partitions to `root`; one pass with `export()`,
    periodically with `start()`/`stop()`.

    `connect` returns a DuckDB connection or cursor to read from (for the running store,
    `AuditStore.cursor`, whose cursors read beside the writer thread); it is closed after each pass.
    """

    def __init__(
        self,
        connect: Callable[[], object],
        root: str,
        worker: str,
        *,
        partition: str = "day",
        grace_s: float = 0.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if partition not in GRANULARITIES:
            raise FleetError(f"partition must be one of {', '.join(GRANULARITIES)}, got {partition!r}")
        if not root:
            raise FleetError("the export path is empty")
        self.root = root.rstrip("/")
        self.worker = check_worker(worker)
        self.partition = partition
        self.grace = timedelta(seconds=grace_s)
        self._connect = connect
        self._clock = clock
        self._exported: dict[Partition, int] | None = None  # read from the files on the first pass
        self._sink = None  # the exporter's own DuckDB instance (see _copy_through_arrow)
        self._direct = True  # COPY on the store's instance until it refuses file access
        self._pass_lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.counts = {"passes": 0, "partitions_written": 0, "rows_written": 0, "errors": 0}

    def stats(self) -> dict[str, int]:
        """Counters for the collector's status and metrics: export_passes, export_partitions_written, ..."""
        return {f"export_{name}": value for name, value in self.counts.items()}

    # --- one pass ---------------------------------------------------------------------------------
    def export(self, *, final: bool = False) -> list[Partition]:
        """Write every due partition (with `final`, every changed one, open ones too); the ones written.

        A partition that cannot be written is logged and counted in `counts["errors"]`; the rest
        are still written.
        """
        with self._pass_lock:
            cursor = self._connect()
            try:
                if self._exported is None:
                    self._exported = self.already_exported()
                now = datetime.fromtimestamp(self._clock(), UTC).replace(tzinfo=None)
                todo = due(self.row_counts(cursor), self._exported, now=now, grace=self.grace, final=final)
                written = []
                for p in todo:
                    try:
                        rows = self._write(cursor, p)
                    except Exception:  # a full disk or a lost bucket must not stop the other partitions
                        self.counts["errors"] += 1
                        logger.exception("could not export %s %s to %s", p.table, p.start, self.root)
                        continue
                    self._exported[p] = rows
                    self.counts["partitions_written"] += 1
                    self.counts["rows_written"] += rows
                    written.append(p)
                self.counts["passes"] += 1
                return written
            finally:
                cursor.close()

    def tables(self, cursor) -> list[str]:
        """Tables of the store with a `time` column, bookkeeping and replay tables left out."""
        # duckdb_tables() lists base tables only; information_schema costs ~100x more here.
        rows = cursor.execute(
            "SELECT c.table_name FROM duckdb_columns() c JOIN duckdb_tables() t USING (database_name, schema_name, "
            "table_name) WHERE c.schema_name = 'main' AND c.database_name = current_database() "
            "AND c.column_name = 'time' AND c.data_type = 'TIMESTAMP' AND NOT t.temporary ORDER BY 1"
        ).fetchall()
        return [name for (name,) in rows if name not in SKIPPED_TABLES]

    def row_counts(self, cursor) -> dict[Partition, int]:
        """Rows per partition of every exported table, as the database holds them now."""
        counts: dict[Partition, int] = {}
        for table in self.tables(cursor):
            rows = cursor.execute(
                f"SELECT date_trunc('{self.partition}', time) AS start, count(*) FROM {_ident(table)} "
                "WHERE time IS NOT NULL GROUP BY 1"
            ).fetchall()
            for start, n in rows:
                counts[Partition(table, start, self.partition)] = n
        return counts

    def already_exported(self) -> dict[Partition, int]:
        """Row counts of this worker's files already under the root (from their Parquet footers)."""
        if not is_remote(self.root) and not Path(self.root).is_dir():
            return {}
        hour = "hour=*/" if self.partition == "hour" else ""
        pattern = f"{self.root}/*/date=*/{hour}worker={self.worker}/{FILE_NAME}"
        sink = self._sink_connection()
        files = [f for (f,) in sink.execute("SELECT file FROM glob(?)", [pattern]).fetchall()]
        if not files:
            return {}
        try:
            footers = sink.execute("SELECT file_name, num_rows FROM parquet_file_metadata(?)", [files]).fetchall()
        except Exception:  # an unreadable file: write every partition again, which replaces it
            logger.warning("cannot read the exported files under %s; exporting every partition again",
                           self.root, exc_info=True)
            return {}
        found = {}
        for path, rows in footers:
            parsed = parse_file(path)
            if parsed is not None and parsed[1] == self.worker:
                found[parsed[0]] = rows
        return found

    def _write(self, cursor, p: Partition) -> int:
        """The partition's whole content to its file; the number of rows written."""
        directory = p.directory(self.root, self.worker)
        target = f"{directory}/{FILE_NAME}"
        if not is_remote(self.root):
            os.makedirs(directory, exist_ok=True)
            # Readers never see half a file: a hidden name the `*.parquet` globs skip, then a rename.
            target = f"{directory}/.{FILE_NAME}.{os.getpid()}.{threading.get_ident()}.tmp"
        select = f"SELECT * FROM {_ident(p.table)} WHERE time >= $start AND time < $end"
        bounds = {"start": p.start, "end": p.end}
        rows = None
        if self._direct and not is_remote(self.root):
            rows = self._copy_in_store(cursor, select, bounds, target)
        if rows is None:
            rows = self._copy_through_arrow(cursor, select, bounds, target)
        if not is_remote(self.root):
            os.replace(target, f"{directory}/{FILE_NAME}")
        return rows

    def _copy_in_store(self, cursor, select: str, bounds: dict, target: str) -> int | None:
        """COPY on the store's own instance (the fastest way); None once file access is off there."""
        import duckdb

        try:
            return cursor.execute(f"COPY ({select}) TO '{_literal(target)}' ({_PARQUET})", bounds).fetchone()[0]
        except duckdb.PermissionException:
            # The API's SQL guard turns file access off for the store's instance for good.
            self._direct = False
            return None

    def _copy_through_arrow(self, cursor, select: str, bounds: dict, target: str) -> int:
        """Rows stream as Arrow batches from the store's cursor into the exporter's own DuckDB,
        which writes the file: ~1.5x the time of a COPY in the store, a batch at a time in memory."""
        reader = cursor.sql(select, params=bounds).to_arrow_reader(_BATCH_ROWS)
        sink = self._sink_connection()
        sink.register("_claimwatch_partition", reader)
        try:
            return sink.execute(
                f"COPY (SELECT * FROM _claimwatch_partition) TO '{_literal(target)}' ({_PARQUET})"
            ).fetchone()[0]
        finally:
            sink.unregister("_claimwatch_partition")

    def _sink_connection(self):
        """The exporter's own DuckDB instance, for everything that touches files or buckets."""
        if self._sink is None:
            import duckdb

            self._sink = duckdb.connect()
            if is_remote(self.root):
                _enable_remote(self._sink)
        return self._sink

    # --- periodic ---------------------------------------------------------------------------------
    def start(self, every_s: float) -> None:
        """Export due partitions every `every_s` seconds on a daemon thread."""
        if self._thread is not None:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, args=(every_s,), name="claimwatch-export", daemon=True)
        self._thread.start()

    def _run(self, every_s: float) -> None:
        while not self._stop.wait(every_s):
            try:
                self.export()
            except Exception:
                self.counts["errors"] += 1
                logger.exception("export pass to %s failed", self.root)

    def stop(self, *, final: bool = True) -> None:
        """Stop the periodic thread; with `final`, export every changed partition, open ones too.

        Call it after the store has written everything (its rows are what gets exported)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=60)
            self._thread = None
        if final:
            try:
                self.export(final=True)
            except Exception:
                self.counts["errors"] += 1
                logger.exception("final export to %s failed", self.root)
        self.close()

    def close(self) -> None:
        """Release the exporter's own DuckDB instance (a later pass opens a new one)."""
        with self._pass_lock:
            if self._sink is not None:
                self._sink.close()
                self._sink = None


def store_exporter(store, storage, decision_wait_ms: int) -> PartitionExporter | None:
    """The exporter `storage.export` asks for, reading the running `store` (an AuditStore), or None.

    The grace is how long a row can still be on its way into the store after its span's time:
    the decision wait plus the store's flush interval. Start it with
    `exporter.start(storage.export.every_ms / 1000)`; stop it once the store has written everything."""
    export = storage.export
    if not export.path:
        return None
    return PartitionExporter(
        store.cursor,
        export.path,
        export.worker or default_worker(store.path),
        partition=export.partition,
        grace_s=(decision_wait_ms + storage.flush_interval_ms) / 1000,
    )


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _literal(text: str) -> str:
    return text.replace("'", "''")


# --- reading the fleet back --------------------------------------------------------------------------
_HIVE_TYPES = {"date": "DATE", "hour": "INTEGER", "worker": "VARCHAR"}
_EMPTY_SCHEMA = "claimwatch_empty"
_OWNERS = "claimwatch_fleet_owners"


def fleet_connection(root: str):
    """An in-memory DuckDB where every store table is a view over all workers' partitions.

    Each view has the store's columns with the store's types (columns a worker's older schema
    lacks read as NULL), then the hive columns `date` (`hour`) and `worker`. A table no worker
    has exported yet is an empty view of the same shape. An evaluation two workers both stored
    is counted once (see `_find_duplicates`). `s3://` and other URLs work where
    DuckDB's httpfs extension can be loaded.
    """
    import duckdb

    from .schema import migrate

    root = root.rstrip("/") or root
    if not is_remote(root) and not Path(root).is_dir():
        raise FleetError(f"no such directory: {root}")
    con = duckdb.connect()
    try:
        files = _files(con, root)
        by_table: dict[str, list[str]] = {}
        for path in files:
            parsed = parse_file(path)
            if parsed is not None:
                by_table.setdefault(parsed[0].table, []).append(path)
        if not by_table:
            raise FleetError(
                f"no exported Parquet partitions under {root} "
                "(expected <table>/date=YYYY-MM-DD/worker=NAME/part.parquet; see claimwatch export)"
            )
        catalog = con.execute("SELECT current_database()").fetchone()[0]
        con.execute(f"CREATE SCHEMA {_EMPTY_SCHEMA}")
        con.execute(f"USE {catalog}.{_EMPTY_SCHEMA}")
        migrate(con)
        con.execute(f"USE {catalog}.main")
        schema = _store_columns(con)
        selects = {
            table: _select_sql(con, root, table, schema.get(table), by_table.get(table, []))
            for table in sorted(set(schema) | set(by_table))
            if table not in ("schema_migrations", "check_migrations")
        }
        deduplicate = _find_duplicates(con, selects.get("evaluations"), "evaluations" in by_table)
        for table, select in selects.items():
            keyed = table in by_table and "evaluation_id" in dict(schema.get(table, ()))
            if deduplicate and keyed:
                select = (
                    f"SELECT * FROM ({select}) AS t WHERE NOT EXISTS (SELECT 1 FROM {_OWNERS} AS o "
                    "WHERE o.evaluation_id = t.evaluation_id AND o.worker <> t.worker)"
                )
            con.execute(f"CREATE VIEW main.{_ident(table)} AS {select}")
        return con
    except BaseException:
        con.close()
        raise


def _files(con, root: str) -> list[str]:
    if is_remote(root):
        _enable_remote(con)
    try:
        return [f for (f,) in con.execute("SELECT file FROM glob(?)", [f"{root}/*/date=*/**/*.parquet"]).fetchall()]
    except Exception as exc:  # duckdb.Error: an unreachable bucket, no httpfs
        raise FleetError(f"cannot list {root}: {str(exc).splitlines()[0]}") from None


def _enable_remote(con) -> None:
    """httpfs for object-store URLs, with credentials from the usual chain when the aws extension is there."""
    try:
        con.execute("LOAD httpfs")
    except Exception as exc:
        raise FleetError(f"reading a bucket needs DuckDB's httpfs extension: {str(exc).splitlines()[0]}") from None
    try:
        con.execute("CREATE SECRET claimwatch_fleet (TYPE s3, PROVIDER credential_chain)")
    except Exception:
        logger.debug("no credential chain for object storage; using DuckDB's settings", exc_info=True)


def _store_columns(con) -> dict[str, list[tuple[str, str]]]:
    rows = con.execute(
        "SELECT table_name, column_name, data_type FROM information_schema.columns "
        "WHERE table_schema = ? ORDER BY table_name, ordinal_position",
        [_EMPTY_SCHEMA],
    ).fetchall()
    out: dict[str, list[tuple[str, str]]] = {}
    for table, column, data_type in rows:
        out.setdefault(table, []).append((column, data_type))
    return out


def _find_duplicates(con, evaluations: str | None, exported: bool) -> bool:
    """Note evaluations more than one worker stored, keeping the first worker's; True when any.

    Evaluation ids are a hash of trace, span and check, so the same id on two workers is the
    same evaluation stored twice: a Kafka partition handed to another consumer before the first
    committed its offsets. Each worker's store skips its own repeats; this skips the fleet's."""
    if not exported:
        return False
    # First by a 64-bit hash of the id (grouping integers costs a third of grouping strings); a
    # worker never holds an id twice, so a repeated hash is a duplicate or, rarely, a collision.
    repeated = con.execute(
        f"SELECT h FROM (SELECT hash(evaluation_id) AS h FROM ({evaluations})) GROUP BY h HAVING count(*) > 1"
    ).fetchall()
    if not repeated:
        return False
    con.execute(f"CREATE TEMP TABLE {_OWNERS}_hashes (h UBIGINT)")
    con.executemany(f"INSERT INTO {_OWNERS}_hashes VALUES (?)", repeated)
    con.execute(
        f"CREATE TEMP TABLE {_OWNERS} AS SELECT evaluation_id, min(worker) AS worker FROM ({evaluations}) "
        f"WHERE hash(evaluation_id) IN (SELECT h FROM {_OWNERS}_hashes) "
        "GROUP BY evaluation_id HAVING min(worker) <> max(worker)"
    )
    return con.execute(f"SELECT count(*) FROM {_OWNERS}").fetchone()[0] > 0


def _select_sql(con, root: str, table: str, columns: list[tuple[str, str]] | None, files: list[str]) -> str:
    name = _ident(table)
    if not files:  # nothing exported yet: the store's empty table, with the hive columns
        return f"SELECT *, CAST(NULL AS DATE) AS date, CAST(NULL AS VARCHAR) AS worker FROM {_EMPTY_SCHEMA}.{name}"
    hourly = {parse_file(f)[0].granularity == "hour" for f in files}
    if len(hourly) > 1:
        raise FleetError(
            f"{root}/{table} mixes daily and hourly partitions: give every worker the same storage.export.partition"
        )
    hive = ["date", "hour", "worker"] if hourly.pop() else ["date", "worker"]
    types = ", ".join(f"'{h}': {_HIVE_TYPES[h]}" for h in hive)
    source = (
        f"read_parquet('{_literal(root)}/{_literal(table)}/date=*/**/*.parquet', hive_partitioning = true, "
        f"union_by_name = true, hive_types = {{{types}}})"
    )
    in_files = [row[0] for row in con.execute(f"DESCRIBE SELECT * FROM {source}").fetchall()]
    select = []
    known = set()
    for column, data_type in columns or ():
        known.add(column)
        value = _ident(column) if column in in_files else "NULL"
        select.append(f"CAST({value} AS {data_type}) AS {_ident(column)}")
    # Columns of a newer worker's schema, then the hive columns, after the store's own.
    extra = [c for c in in_files if c not in known and c not in hive]
    select += [_ident(c) for c in extra]
    select += [_ident(h) for h in hive if h not in known]
    return f"SELECT {', '.join(select)} FROM {source}"
