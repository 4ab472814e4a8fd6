"""`claimwatch export`: one pass of the fleet export over a stopped worker's DuckDB file."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from claimwatch.core.settings import db_path
from claimwatch.store.export import FleetError, PartitionExporter, default_worker

EPILOG = """\
A running collector with storage.export set (serve --export DIR) exports its closed
partitions by itself. This command is for a database no collector holds: a stopped
worker's file, or one copied off a machine. Every partition whose rows differ from
what DIR already holds for this worker is written, the most recent (open) one too.

Give the worker name the collector used (serve --worker-name, storage.export.worker): the
default is derived from this host and this database path, like the collector's own
default, so it only matches on the same host with the same path. Another name would
export the same rows twice.

examples:
  claimwatch export --db /var/lib/claimwatch/claimwatch.duckdb --to /data/fleet --worker node-3
  claimwatch export --db worker-b.duckdb --to s3://audit-bucket/fleet --worker worker-b --partition hour
  claimwatch query --fleet /data/fleet verdict_counts

Layout: DIR/<table>/date=YYYY-MM-DD[/hour=HH]/worker=NAME/part.parquet. An s3:// path
needs DuckDB's httpfs extension (and credentials DuckDB can find).
exit codes: 0 done, 1 some partition could not be written, 2 usage or database error.
"""


def add_parser(sub) -> None:
    e = sub.add_parser(
        "export",
        help="export a stopped worker's DuckDB file to hive-partitioned Parquet for query --fleet",
        description="Export every time partition of an audit database to DIR/<table>/date=/worker=/part.parquet.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    e.add_argument("--db", metavar="FILE", help="the DuckDB file (default $CLAIMWATCH_DB or claimwatch.duckdb)")
    e.add_argument("--to", metavar="DIR", required=True, help="the fleet's export directory or s3:// URL")
    e.add_argument("--worker", metavar="NAME", help="this database's worker name (default: host, file, path hash)")
    e.add_argument("--partition", choices=("day", "hour"), default="day", help="partition size (default day)")
    e.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    import duckdb

    db = Path(db_path(args.db))
    if not db.exists():
        print(f"claimwatch: no audit database at {db}", file=sys.stderr)
        return 2
    try:
        con = duckdb.connect(str(db), read_only=True)
    except duckdb.Error as exc:
        print(f"claimwatch: cannot open {db} (is a collector holding it? it exports by itself): "
              f"{str(exc).splitlines()[0]}", file=sys.stderr)
        return 2
    exporter = None
    try:
        exporter = PartitionExporter(con.cursor, args.to, args.worker or default_worker(str(db)),
                                     partition=args.partition)
        written = exporter.export(final=True)
    except (FleetError, duckdb.Error) as exc:
        print(f"claimwatch: {str(exc).splitlines()[0]}", file=sys.stderr)
        return 2
    finally:
        if exporter is not None:
            exporter.close()
        con.close()
    rows = exporter.counts["rows_written"]
    print(f"exported {len(written)} partition(s), {rows} row(s), as worker {exporter.worker} to {exporter.root}")
    if exporter.counts["errors"]:
        print(f"claimwatch: {exporter.counts['errors']} partition(s) could not be written (see the log above)",
              file=sys.stderr)
        return 1
    return 0
