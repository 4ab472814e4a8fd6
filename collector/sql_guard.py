"""Ad-hoc SQL that can read the audit tables and nothing else.

DuckDB's statement type is not enough: it calls `WITH d AS (DELETE ... RETURNING 1)
SELECT ...` a SELECT, and a plain SELECT can still read files (`read_text`,
`'/etc/passwd'` as a table name), list directories (`glob`), run a string as SQL
(`query(...)`) or fetch extensions from the internet. The collector's ad-hoc SQL
shares the writer's database instance (DuckDB lets one process hold the file,
and a second instance cannot attach it even read-only), so the guard is in
layers, each enough on its own for the attack it names:

1. `harden(con)`: file system, network and extension loading off for the whole
   instance (`enable_external_access=false` cannot be turned back on while the
   database runs; the writer's own inserts and checkpoints keep working).
2. `check(con, sql)`: one statement, typed SELECT, and its parse tree
   (`json_serialize_sql`, not regexes) holds only SELECT query nodes, table
   references to the database's own tables and views or the query's CTEs, table
   functions from a short allowlist, and functions that are already loaded
   (an unknown name would make DuckDB look for an extension) minus those that
   read settings or change state.
3. `run(...)`: executed inside `BEGIN TRANSACTION READ ONLY`, so the engine itself
   refuses any write the checks missed; bounded in rows and time, and cancelled
   (`interrupt()`) when the deadline passes or the caller says the client left.

Why this and not the alternatives (DuckDB 2.0, measured): a second connection or an
in-memory instance that ATTACHes the file READ_ONLY fails in the writer's process
("Unique file handle conflict"), and a copy per query costs the database's size.
An `EXPLAIN` plan check would duplicate what the read-only transaction enforces
(it names the DML operator, but table functions appear under their own names).
`lock_configuration` is not set on the shared instance because the writer may
still need `SET`; a statement that could change a setting is refused by type.
Cost: the check takes 0.7-1.7 ms a query (median; parse-tree serialization most
of it), a guarded run adds ~3.5 ms over a plain cursor fetch.
"""

from __future__ import annotations

import json
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass

import duckdb

# Table functions that only compute values.
TABLE_FUNCTIONS = frozenset({"range", "generate_series", "unnest"})
# Loaded scalar functions that read configuration or change state.
DENIED_FUNCTIONS = frozenset(
    {
        "current_setting", "getenv", "getvariable", "nextval", "currval", "setseed", "sleep_ms", "pg_sleep",
        "write_log", "query", "query_table",
    }
)
QUERY_NODES = frozenset({"SELECT_NODE", "SET_OPERATION_NODE", "RECURSIVE_CTE_NODE", "CTE_NODE"})
TABLE_REFS = frozenset({"BASE_TABLE", "TABLE_FUNCTION", "JOIN", "SUBQUERY", "EMPTY", "EXPRESSION_LIST", "PIVOT"})
SCHEMAS = frozenset({"", "main"})
NOT_SELECT = "only a single SELECT statement is allowed"

class Running:
    """The ad-hoc queries one server runs now, so its shutdown can cancel them before the store closes."""

    def __init__(self) -> None:
        self._cursors: weakref.WeakSet = weakref.WeakSet()
        self._lock = threading.Lock()
        self.closing = False
        _REGISTRIES.add(self)

    def __len__(self) -> int:
        return len(self._cursors)

    def start(self, cursor) -> None:
        with self._lock:
            if self.closing:
                raise Refused("query refused: the collector is shutting down")
            self._cursors.add(cursor)

    def finish(self, cursor) -> None:
        with self._lock:
            self._cursors.discard(cursor)

    def cancel(self) -> int:
        """Interrupt every query running now and refuse new ones; how many ran."""
        with self._lock:
            self.closing = True
            cursors = list(self._cursors)
        for cursor in cursors:
            try:
                cursor.interrupt()
            except duckdb.Error:
                pass
        return len(cursors)


_REGISTRIES: weakref.WeakSet = weakref.WeakSet()


class Refused(ValueError):
    """The SQL is not a read-only query of the audit tables; the text says why."""


class _UnknownRelation(Refused):
    pass


@dataclass(frozen=True, slots=True)
class Result:
    columns: list[str]
    rows: list[tuple]
    truncated: bool


def harden(con) -> None:
    """Turn off file, network and extension access for the instance `con` belongs to (one-way)."""
    cursor = con.cursor()
    try:
        cursor.execute("SET autoinstall_known_extensions = false")
        cursor.execute("SET autoload_known_extensions = false")
        cursor.execute("SET enable_external_access = false")
    finally:
        cursor.close()


def check(con, sql: str) -> None:
    """Raise `Refused` unless `sql` is one SELECT over the database's own tables."""
    try:
        statements = con.extract_statements(sql)
    except duckdb.Error as exc:
        raise Refused(f"SQL does not parse: {first_line(exc)}") from None
    if len(statements) != 1 or statements[0].type != duckdb.StatementType.SELECT:
        raise Refused(NOT_SELECT)
    try:
        tree = json.loads(con.execute("SELECT json_serialize_sql($1::VARCHAR)", [sql]).fetchall()[0][0])
        if tree.get("error"):
            raise Refused(f"SQL does not parse: {tree.get('error_message', 'unknown error')}")
        functions = _loaded_functions(con)
        _known_types(con)
        ctes: set[str] = set()
        _collect_ctes(tree, ctes)
        try:
            _walk(tree, _catalog_names(con) | ctes, functions)
        except _UnknownRelation:  # perhaps a table created since the names were cached: look again
            _walk(tree, _catalog_names(con, refresh=True) | ctes, functions)
    except RecursionError:
        raise Refused("SQL is nested too deeply to check") from None


def _walk(node, relations: set[str], functions: set[str]) -> None:
    if isinstance(node, list):
        for item in node:
            _walk(item, relations, functions)
        return
    if not isinstance(node, dict):
        return
    kind = node.get("type")
    if isinstance(kind, str):
        if kind.endswith("_NODE") and kind not in QUERY_NODES:
            raise Refused(f"{NOT_SELECT} (found {kind.removesuffix('_NODE').replace('_QUERY', '')})")
        if "sample" in node and "class" not in node and not kind.endswith("_NODE") and kind not in TABLE_REFS:
            raise Refused(f"{kind.lower().replace('_', ' ')} is not allowed in ad-hoc SQL")
        if kind == "BASE_TABLE":
            _check_relation(node, relations)
        elif kind == "TABLE_FUNCTION":
            function = node.get("function") or {}
            name = str(function.get("function_name", "")).lower()
            if name not in TABLE_FUNCTIONS or function.get("schema") or function.get("catalog"):
                raise Refused(
                    f"table function {name!r} is not allowed (only {', '.join(sorted(TABLE_FUNCTIONS))}); "
                    "query the audit tables"
                )
            _walk(function.get("arguments"), relations, functions)
            for key, value in node.items():
                if key != "function":
                    _walk(value, relations, functions)
            return
    if node.get("class") == "TYPE" and str(node.get("type_name", "")).lower() not in _known_types(None):
        # An unknown type name would make DuckDB look for an extension that defines it.
        raise Refused(f"type {node.get('type_name')!r} is not available in ad-hoc SQL")
    if node.get("class") in ("FUNCTION", "WINDOW") and "function_name" in node:
        name = str(node["function_name"]).lower()
        if node.get("catalog") or node.get("schema", "") not in SCHEMAS:
            raise Refused(f"function {node.get('schema')}.{name} is not allowed: call functions unqualified")
        if name in DENIED_FUNCTIONS or name.startswith("__internal") or name not in functions:
            raise Refused(f"function {name!r} is not allowed in ad-hoc SQL")
    for value in node.values():
        if isinstance(value, (dict, list)):
            _walk(value, relations, functions)


def _check_relation(node: dict, relations: set[str]) -> None:
    name = str(node.get("table_name", ""))
    if node.get("catalog_name") or node.get("schema_name", "") not in SCHEMAS or name.lower() not in relations:
        shown = ".".join(p for p in (node.get("catalog_name"), node.get("schema_name"), name) if p)
        raise _UnknownRelation(
            f"{shown!r} is not a table of the audit database (known: {', '.join(sorted(relations))})"
        )


def _collect_ctes(node, out: set[str]) -> None:
    if isinstance(node, list):
        for item in node:
            _collect_ctes(item, out)
    elif isinstance(node, dict):
        for entry in (node.get("cte_map") or {}).get("map", []) if isinstance(node.get("cte_map"), dict) else []:
            key = str(entry.get("key", ""))
            # A CTE name is matched as a table name: a path-like one could let an out-of-scope
            # reference fall through to a file scan, so only identifiers count.
            if key.replace("_", "a").isalnum():
                out.add(key.lower())
        for value in node.values():
            if isinstance(value, (dict, list)):
                _collect_ctes(value, out)


_CATALOG: set[str] = set()


def _catalog_names(con, refresh: bool = False) -> set[str]:
    """Table and view names of the main schema, cached (looking them up costs ~1 ms a query).

    The cache only grows, so a name from another database in this process may pass the
    check; DuckDB then answers "no such table", and no name can reach a file: external
    access is off and path-like names are never in a catalog of tables.
    """
    global _CATALOG
    if refresh or not _CATALOG:
        rows = con.execute(
            "SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main' AND NOT internal AND NOT temporary "
            "UNION SELECT view_name FROM duckdb_views() WHERE schema_name = 'main' AND NOT internal AND NOT temporary"
        ).fetchall()
        fresh = {r[0].lower() for r in rows}
        _CATALOG = _CATALOG | fresh
        return fresh if refresh else _CATALOG
    return _CATALOG


_FUNCTIONS: set[str] | None = None


def _loaded_functions(con) -> set[str]:
    global _FUNCTIONS
    if _FUNCTIONS is None:  # the built-in set does not change while the process runs
        rows = con.execute(
            "SELECT DISTINCT function_name FROM duckdb_functions() "
            "WHERE function_type IN ('scalar', 'aggregate', 'window', 'macro')"
        ).fetchall()
        _FUNCTIONS = {r[0].lower() for r in rows}
    return _FUNCTIONS


_TYPES: set[str] | None = None


def _known_types(con) -> set[str]:
    global _TYPES
    if _TYPES is None:
        _TYPES = {r[0].lower() for r in con.execute("SELECT DISTINCT type_name FROM duckdb_types()").fetchall()}
    return _TYPES


def run(
    con,
    sql: str,
    *,
    max_rows: int = 10_000,
    timeout_s: float = 10.0,
    client_gone: Callable[[], bool] | None = None,
    running: Running | None = None,
) -> Result:
    """Check and run `sql` read-only on a cursor of `con`; cancelled after `timeout_s` or when the client goes."""
    cursor = con.cursor()
    try:
        check(cursor, sql)
        cursor.execute("BEGIN TRANSACTION READ ONLY")
        cancelled: list[str] = []
        done = threading.Event()
        watcher = threading.Thread(
            target=_watch, args=(cursor, time.monotonic() + timeout_s, client_gone, done, cancelled), daemon=True
        )
        running = running if running is not None else _DEFAULT
        running.start(cursor)
        watcher.start()
        try:
            return _fetch(cursor, sql, max_rows)
        except duckdb.InterruptException:
            raise Refused(cancelled[0] if cancelled else "query cancelled: the collector is shutting down") from None
        except duckdb.Error as exc:
            raise Refused(f"query failed: {first_line(exc)}") from None
        finally:
            done.set()
            running.finish(cursor)
            try:
                cursor.execute("ROLLBACK")
            except duckdb.Error:
                pass
    finally:
        cursor.close()


def _fetch(cursor, sql: str, max_rows: int) -> Result:
    # Arrow, not fetchall(): fetchall needs pytz for TIMESTAMP WITH TIME ZONE (`SELECT now()`).
    reader = cursor.sql(sql).to_arrow_reader(1024)
    columns = list(reader.schema.names)
    rows: list[tuple] = []
    truncated = False
    for batch in reader:
        take = min(batch.num_rows, max_rows - len(rows))
        rows.extend(zip(*(column.to_pylist() for column in batch.slice(0, take).columns), strict=True))
        if take < batch.num_rows:
            truncated = True
            break
    return Result(columns, rows, truncated)


def _watch(cursor, deadline: float, client_gone, done: threading.Event, cancelled: list[str]) -> None:
    while not done.wait(0.05):
        reason = None
        if time.monotonic() > deadline:
            reason = "query cancelled: over the time limit"
        elif client_gone is not None and client_gone():
            reason = "query cancelled: the client went away"
        if reason:
            cancelled.append(reason)
            cursor.interrupt()
            return


def cancel_all() -> int:
    """At process shutdown: cancel every server's ad-hoc queries and refuse new ones; how many ran."""
    return sum(registry.cancel() for registry in list(_REGISTRIES))


_DEFAULT = Running()


def first_line(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
