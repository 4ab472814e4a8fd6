"""`claimwatch query`: run a named query from `queries/` against the audit database."""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import sys
from datetime import datetime
from pathlib import Path

from claimwatch.core.settings import db_path
from claimwatch.store.queries import QueryError, load_queries, run_query

from .serve_cmd import add_server_flag

EPILOG = """\
While a collector runs it holds the DuckDB file, so queries go through its API
(--server, $CLAIMWATCH_SERVER, default http://127.0.0.1:8787). With no collector
running, or with --db, the file is opened read-only instead.

examples:
  claimwatch query --list
  claimwatch query violations --param agent='worker-*' --param since=24h
  claimwatch query violations --param category=entity_name --format json
  claimwatch query verdict_counts --db /var/lib/claimwatch/claimwatch.duckdb --format csv > verdicts.csv
  claimwatch query verdict_counts --fleet /data/fleet --param since=7d

  claimwatch query --sql "SELECT agent_id, count(*) FROM violations GROUP BY 1" --token "$TOKEN"

--fleet PATH runs a named query over the Parquet partitions every worker exported
(storage.export or claimwatch export): each table is a view over all of them, with
the extra columns date and worker.

Timestamps take ISO 8601 or an age: 30m, 24h, 7d. Ad-hoc --sql must be a single
read-only SELECT over the audit tables (no file or network access; at most 10,000
rows and 10 s). Through a collector with service.api.token set, queries need the
token (--token or $CLAIMWATCH_API_TOKEN); ad-hoc SQL is off without one.
"""


def add_parser(sub) -> None:
    q = sub.add_parser(
        "query",
        help="answer audit questions from the DuckDB file with a named query",
        description="Run a named query from queries/*.sql against the audit database.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    q.add_argument("name", nargs="?", help="query name (see --list)")
    q.add_argument("--list", action="store_true", help="list the queries and their parameters")
    q.add_argument("--param", action="append", default=[], metavar="K=V", help="a query parameter (repeatable)")
    q.add_argument("--db", metavar="FILE", help="open this DuckDB file instead of asking a running collector")
    q.add_argument(
        "--fleet",
        metavar="PATH",
        help="run over every worker's exported Parquet partitions under PATH (a directory or s3:// URL)",
    )
    add_server_flag(q)
    q.add_argument("--sql", metavar="SELECT", help="ad-hoc read-only SQL instead of a named query")
    q.add_argument(
        "--token",
        metavar="TOKEN",
        help="API token, needed through a collector that has one (or $CLAIMWATCH_API_TOKEN)",
    )
    q.add_argument("--format", choices=("table", "json", "csv"), default="table")
    q.add_argument("--queries", metavar="DIR", type=Path, help="a folder of your own .sql files, added to the bundled library")
    q.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    try:
        queries = load_queries()
        if args.queries:  # the user's own folder adds to the library (and wins on a shared name)
            queries.update(load_queries(args.queries))
        if args.list or not (args.name or args.sql):
            print(describe(queries))
            return 0 if args.list else 2
        if args.name and args.name not in queries:
            raise QueryError(f"no query named {args.name!r} (known: {', '.join(sorted(queries))})")
        params = _params(args.param)
        if args.fleet and (args.sql or args.db):
            raise QueryError("--fleet runs named queries over the exported partitions; it takes no --sql or --db")
        if args.name:
            queries[args.name].bind(params)  # report bad parameters before going anywhere
        columns, rows = _answer(args, queries, params)
    except (QueryError, RuntimeError) as exc:
        print(f"claimwatch: {exc}", file=sys.stderr)
        return 2
    print(render(columns, rows, args.format))
    return 0


def _answer(args, queries, params):
    """Through a running collector when one answers (unless --db is given), else from the file."""
    if args.fleet:
        return _run_on_fleet(args.fleet, queries[args.name], params)
    if args.db is None:
        try:
            return _via_server(args, params)
        except ConnectionError:
            pass  # no collector: the file is free to open
    db = Path(db_path(args.db))
    if args.sql:
        return _sql_on_file(db, args.sql)
    return _run_on_file(db, queries[args.name], params)


def _via_server(args, params):
    from .serve_cmd import fetch_json
    from .settings import server_url

    base = server_url(args.server)
    token = args.token or os.environ.get("CLAIMWATCH_API_TOKEN", "")
    auth = {"Authorization": f"Bearer {token}"} if token else {}
    if args.sql:
        payload = fetch_json(
            f"{base}/api/sql", timeout=30.0, data=json.dumps({"sql": args.sql}).encode(), headers=auth
        )
        if payload.get("truncated"):
            print(f"claimwatch: showing the first {len(payload['rows'])} rows only", file=sys.stderr)
    else:
        payload = fetch_json(f"{base}/api/query/{args.name}", data=json.dumps(params).encode(), headers=auth)
    return payload["columns"], [tuple(r) for r in payload["rows"]]


def _sql_on_file(db: Path, sql: str):
    import duckdb

    from .api import read_only_sql

    if not db.exists():
        raise QueryError(f"no audit database at {db} (start claimwatch or pass --db FILE)")
    try:
        # Its own instance: read-only, and no file, network or extension access beyond the database.
        con = duckdb.connect(str(db), read_only=True, config=LOCKED_DOWN)
    except duckdb.Error as exc:
        raise QueryError(f"cannot open {db} (is a collector holding it? query through --server): {exc}") from None
    try:
        return read_only_sql(con, sql)
    except ValueError as exc:
        raise QueryError(str(exc)) from None
    finally:
        con.close()


LOCKED_DOWN = {
    "enable_external_access": False,
    "autoload_known_extensions": False,
    "autoinstall_known_extensions": False,
    "lock_configuration": True,
}


def _params(pairs: list[str]) -> dict[str, str]:
    out = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise QueryError(f"--param takes KEY=VALUE, got {pair!r}")
        out[key.strip()] = value
    return out


def _run_on_file(db: Path, query, params):
    import duckdb

    if not db.exists():
        raise QueryError(f"no audit database at {db} (start claimwatch or pass --db FILE)")
    try:
        con = duckdb.connect(str(db), read_only=True)
    except duckdb.IOException as exc:
        raise QueryError(f"cannot open {db} (is a collector holding it? query through --server): {exc}") from None
    try:
        return run_query(con, query, params)
    except duckdb.Error as exc:
        raise QueryError(f"query {query.name!r} failed: {exc}") from None
    finally:
        con.close()


def _run_on_fleet(root: str, query, params):
    """The named query over every worker's exported partitions (claimwatch.store.export)."""
    import duckdb

    from claimwatch.store.export import FleetError, fleet_connection

    try:
        con = fleet_connection(root)
    except FleetError as exc:
        raise QueryError(str(exc)) from None
    except duckdb.Error as exc:
        raise QueryError(f"cannot read the partitions under {root}: {str(exc).splitlines()[0]}") from None
    try:
        return run_query(con, query, params)
    except duckdb.Error as exc:
        raise QueryError(f"query {query.name!r} failed over {root}: {str(exc).splitlines()[0]}") from None
    finally:
        con.close()


def describe(queries) -> str:
    lines = []
    for q in queries.values():
        lines.append(f"{q.name}: {q.description}")
        for p in q.params:
            need = "required" if p.required else (f"default {p.default}" if p.default else "optional")
            lines.append(f"    --param {p.name}=<{p.type}>  ({need}) {p.description}")
    return "\n".join(lines)


def _cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, datetime):
        return value.isoformat(sep=" ", timespec="seconds")
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, list):
        return ",".join(map(str, value))
    return str(value)


def render(columns: list[str], rows: list[tuple], fmt: str) -> str:
    if fmt == "json":
        return json.dumps([dict(zip(columns, row, strict=True)) for row in rows], default=str, ensure_ascii=False)
    if fmt == "csv":
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows([[_cell(v) for v in row] for row in rows])
        return buf.getvalue().rstrip("\n")
    cells = [[_cell(v) for v in row] for row in rows]
    widths = [min(60, max([len(c)] + [len(r[i]) for r in cells])) for i, c in enumerate(columns)]
    out = ["  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True)), "  ".join("-" * w for w in widths)]
    for row in cells:
        out.append("  ".join(_clip(v, w).ljust(w) for v, w in zip(row, widths, strict=True)))
    out.append(f"({len(rows)} row{'s' if len(rows) != 1 else ''})")
    return "\n".join(out)


def _clip(value: str, width: int) -> str:
    value = value.replace("\n", " ")
    return value if len(value) <= width else value[: width - 1] + "…"
