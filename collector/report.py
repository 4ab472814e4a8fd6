"""`claimwatch report`: the dashboard's panels for a time window, in one self-contained HTML file.

The page, its styles, Chart.js and every panel's query results are inlined,
so the file opens offline, attached to an incident or a rollout review.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime
from pathlib import Path

import duckdb

from claimwatch.core.settings import db_path
from claimwatch.store.queries import QueryError, load_queries, parse_time, run_query

from .dashboards import load_dashboards, spec_for_client

WEB_DIR = Path(__file__).resolve().parent / "web"
EPILOG = """\
examples:
  claimwatch report --db claimwatch.duckdb -o report.html                 # the last 7 days
  claimwatch report --db claimwatch.duckdb --since 2026-11-01 --until 2026-11-08 -o rollout-review.html

The database must not be held by a running collector (stop it, or copy the file).
"""


def add_parser(sub) -> None:
    report = sub.add_parser(
        "report",
        help="write the dashboard for a time window as one self-contained HTML file",
        description=__doc__,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    report.add_argument("--db", metavar="FILE", help="DuckDB file (default: $CLAIMWATCH_DB, else storage.path's default)")
    report.add_argument("-o", "--output", metavar="FILE", required=True, help="HTML file to write")
    report.add_argument("--since", default="7d", help="start: ISO 8601 or an age such as 7d (default: %(default)s)")
    report.add_argument("--until", default=None, help="end: ISO 8601 (default: now)")
    report.add_argument("--dashboard", default="overview", help="which dashboards/*.yaml (default: %(default)s)")
    report.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    import duckdb

    try:
        since, until = parse_time(args.since), parse_time(args.until) if args.until else None
    except ValueError:
        print(
            f"claimwatch: --since/--until take ISO 8601 or an age like 7d, got {args.since!r}/{args.until!r}",
            file=sys.stderr,
        )
        return 2
    db = Path(db_path(args.db))
    if not db.exists():
        print(f"claimwatch: no audit database at {db}", file=sys.stderr)
        return 2
    queries = load_queries()
    dashboards = load_dashboards(queries=queries)
    if args.dashboard not in dashboards:
        print(
            f"claimwatch: no dashboard named {args.dashboard!r} (known: {', '.join(sorted(dashboards))})",
            file=sys.stderr,
        )
        return 2
    try:
        con = duckdb.connect(str(db), read_only=True)
    except duckdb.IOException as exc:
        print(f"claimwatch: cannot open {db} (is a collector holding it?): {exc}", file=sys.stderr)
        return 2
    try:
        html = build_report(con, queries, dashboards[args.dashboard], since, until)
    except QueryError as exc:
        print(f"claimwatch: {exc}", file=sys.stderr)
        return 2
    finally:
        con.close()
    Path(args.output).write_text(html, encoding="utf-8")
    print(
        f"wrote {args.output} ({len(html) // 1024} KB): {args.dashboard} from {since:%Y-%m-%d %H:%M} to "
        f"{(until or datetime.now(UTC).replace(tzinfo=None)):%Y-%m-%d %H:%M} UTC"
    )
    return 0


def build_report(con, queries, dashboard, since: datetime, until: datetime | None) -> str:
    spec = spec_for_client(dashboard, queries)
    end = until or datetime.now(UTC).replace(tzinfo=None)
    data = {}
    for panel in spec["panels"]:
        params = dict(panel.get("params") or {})
        takes = set(panel["queryParams"])
        if "since" in takes:
            params["since"] = since.isoformat()
        if "until" in takes and until is not None:
            params["until"] = until.isoformat()
        if "bucket" in takes:
            params["bucket"] = bucket_for((end - since).total_seconds())
        try:
            columns, rows = run_query(con, queries[panel["query"]], params)
        except duckdb.CatalogException:
            # A database from before a check existed (or written with it off) has no tables for it.
            columns, rows = [], []
        data[panel["id"]] = {"columns": columns, "rows": [list(r) for r in rows]}
    boot = {
        "mode": "static",
        "spec": spec,
        "data": data,
        "range": f"{since:%Y-%m-%d %H:%M} – {end:%Y-%m-%d %H:%M} UTC",
        "generated": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
    }
    page = (WEB_DIR / "index.html").read_text(encoding="utf-8")
    page = _replace(page, "STYLE", f"<style>{(WEB_DIR / 'app.css').read_text(encoding='utf-8')}</style>")
    page = _replace(page, "BOOT", f"<script>window.CLAIMWATCH = {_script_json(boot)};</script>")
    page = _replace(page, "CHART", _inline_script(WEB_DIR / "vendor" / "chart.umd.min.js"))
    return _replace(page, "APP", _inline_script(WEB_DIR / "app.js"))


def bucket_for(seconds: float) -> str:
    """The same bucket widths the live dashboard picks for a window."""
    for limit, bucket in ((3600, "1 minute"), (6 * 3600, "5 minutes"), (2 * 86400, "1 hour"), (8 * 86400, "6 hours")):
        if seconds <= limit:
            return bucket
    return "1 day"


def _replace(page: str, marker: str, content: str) -> str:
    start, end = f"<!--CLAIMWATCH:{marker}-->", f"<!--/CLAIMWATCH:{marker}-->"
    head, rest = page.split(start, 1)
    _, tail = rest.split(end, 1)
    return head + content + tail


def _script_json(value) -> str:
    # "</" would end the script element early; JSON allows the escaped form.
    return json.dumps(value, default=str, ensure_ascii=False).replace("</", "<\\/")


def _inline_script(path: Path) -> str:
    return "<script>" + path.read_text(encoding="utf-8").replace("</script", "<\\/script") + "</script>"
