"""The collector's local HTTP API: health, self-telemetry, named queries and (with a token) ad-hoc SQL.

DuckDB lets one process hold the database file, so while the collector runs,
analysts query through it. Named queries are open to anyone who can reach
the API (it binds 127.0.0.1 by default); ad-hoc SQL needs the configured
token and may only be a single SELECT.
"""

from __future__ import annotations

import hmac
import json
import logging
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from claimwatch.store.queries import QueryError, load_queries, run_query

from .dashboards import load_dashboards, spec_for_client

logger = logging.getLogger("claimwatch.api")


WEB_DIR = Path(__file__).resolve().parent / "web"
# The only files the dashboard serves, and their types.
STATIC_FILES = {
    "app.js": "text/javascript; charset=utf-8",
    "app.css": "text/css; charset=utf-8",
    "vendor/chart.umd.min.js": "text/javascript; charset=utf-8",
}


class ApiServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address, collector) -> None:
        super().__init__(address, ApiHandler)
        self.collector = collector
        self.queries = load_queries()
        self.dashboards = load_dashboards(queries=self.queries)


class ApiHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: ApiServer

    def log_message(self, fmt, *args):
        logger.debug("%s " + fmt, self.address_string(), *args)

    def do_GET(self) -> None:
        url = urllib.parse.urlsplit(self.path)
        route = url.path.rstrip("/") or "/"
        try:
            if route == "/health":
                self._json(200, {"status": "ok"})
            elif route == "/api/status":
                self._json(200, self.server.collector.status())
            elif route == "/metrics":
                self._text(200, prometheus(self.server.collector.status()["counters"]))
            elif route == "/api/queries":
                self._json(200, [_describe(q) for q in self.server.queries.values()])
            elif route.startswith("/api/query/"):
                params = {k: v[-1] for k, v in urllib.parse.parse_qs(url.query).items()}
                self._query(route.removeprefix("/api/query/"), params)
            elif route == "/api/dashboards":
                self._json(200, sorted(self.server.dashboards))
            elif route.startswith("/api/dashboards/"):
                self._dashboard_spec(route.removeprefix("/api/dashboards/"))
            elif route == "/dashboard" or (
                route.startswith("/dashboard/") and not route.startswith("/dashboard/static/")
            ):
                self._dashboard_page(route.removeprefix("/dashboard").strip("/") or "overview")
            elif route.startswith("/dashboard/static/"):
                self._static(route.removeprefix("/dashboard/static/"))
            else:
                self._json(404, {"error": f"no such endpoint {route}"})
        except Exception as exc:
            logger.exception("API error on %s", route)
            self._json(500, {"error": f"internal error: {type(exc).__name__}: {exc}"})

    def do_POST(self) -> None:
        route = urllib.parse.urlsplit(self.path).path.rstrip("/")
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            if route.startswith("/api/query/"):
                self._query(route.removeprefix("/api/query/"), _json_body(body))
            elif route == "/api/sql":
                self._sql(_json_body(body).get("sql", ""))
            else:
                self._json(404, {"error": f"no such endpoint {route}"})
        except ValueError as exc:
            self._json(400, {"error": str(exc)})
        except Exception as exc:
            logger.exception("API error on %s", route)
            self._json(500, {"error": f"internal error: {type(exc).__name__}: {exc}"})

    def _dashboard_spec(self, name: str) -> None:
        dashboard = self.server.dashboards.get(name)
        if dashboard is None:
            self._json(
                404, {"error": f"no dashboard named {name!r} (known: {', '.join(sorted(self.server.dashboards))})"}
            )
            return
        self._json(200, spec_for_client(dashboard, self.server.queries))

    def _dashboard_page(self, name: str) -> None:
        if name not in self.server.dashboards:
            self._json(404, {"error": f"no dashboard named {name!r}"})
            return
        page = (WEB_DIR / "index.html").read_text(encoding="utf-8")
        page = page.replace('dashboard: "overview"', f"dashboard: {json.dumps(name)}")
        self._send(200, page.encode(), "text/html; charset=utf-8")

    def _static(self, name: str) -> None:
        content_type = STATIC_FILES.get(name)
        if content_type is None:
            self._json(404, {"error": f"no static file {name!r}"})
            return
        self._send(200, (WEB_DIR / name).read_bytes(), content_type, cache=True)

    def _query(self, name: str, params: dict) -> None:
        query = self.server.queries.get(name)
        if query is None:
            self._json(404, {"error": f"no query named {name!r} (known: {', '.join(sorted(self.server.queries))})"})
            return
        try:
            columns, rows = run_query(self.server.collector.store, query, {k: str(v) for k, v in params.items()})
        except QueryError as exc:
            self._json(400, {"error": str(exc)})
            return
        self._json(200, {"columns": columns, "rows": rows})

    def _sql(self, sql: str) -> None:
        token = self.server.collector.config.service.api.token
        given = self.headers.get("Authorization", "").removeprefix("Bearer ").strip()
        if not token:
            self._json(403, {"error": "ad-hoc SQL is off: set service.api.token (or CLAIMWATCH_API_TOKEN)"})
            return
        if not hmac.compare_digest(given.encode(), token.encode()):
            self._json(401, {"error": "ad-hoc SQL needs 'Authorization: Bearer <token>'"})
            return
        try:
            columns, rows = read_only_sql(self.server.collector.store, sql)
        except ValueError as exc:
            self._json(400, {"error": str(exc)})
            return
        self._json(200, {"columns": columns, "rows": rows})

    def _json(self, code: int, payload) -> None:
        self._send(code, json.dumps(payload, default=str).encode(), "application/json")

    def _text(self, code: int, text: str) -> None:
        self._send(code, text.encode(), "text/plain; version=0.0.4")

    def _send(self, code: int, body: bytes, content_type: str, cache: bool = False) -> None:
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "max-age=3600" if cache else "no-store")
        self.end_headers()
        self.wfile.write(body)


def read_only_sql(store, sql: str) -> tuple[list[str], list[tuple]]:
    """Run one SELECT; anything else (writes, COPY, ATTACH, several statements) is refused."""
    import duckdb

    cursor = store.cursor()
    try:
        try:
            statements = cursor.extract_statements(sql)
        except duckdb.Error as exc:
            raise ValueError(f"SQL does not parse: {exc}") from None
        if len(statements) != 1 or statements[0].type != duckdb.StatementType.SELECT:
            raise ValueError("only a single SELECT statement is allowed")
        try:
            cursor.execute(sql)
        except duckdb.Error as exc:
            raise ValueError(f"query failed: {exc}") from None
        return [d[0] for d in cursor.description], cursor.fetchall()
    finally:
        cursor.close()


def _json_body(body: bytes) -> dict:
    if not body:
        return {}
    try:
        data = json.loads(body)
    except ValueError:
        raise ValueError("body must be a JSON object") from None
    if not isinstance(data, dict):
        raise ValueError("body must be a JSON object")
    return data


def _describe(query) -> dict:
    return {
        "name": query.name,
        "description": query.description,
        "params": [
            {"name": p.name, "type": p.type, "required": p.required, "default": p.default, "description": p.description}
            for p in query.params
        ],
    }


def prometheus(counters: dict) -> str:
    lines = []
    for key, value in sorted(counters.items()):
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            name = "claimwatch_" + "".join(c if c.isalnum() else "_" for c in key)
            lines.append(f"{name} {value}")
    return "\n".join(lines) + "\n"
