"""The collector's local HTTP API: health, self-telemetry, named queries and (with a token) ad-hoc SQL.

DuckDB lets one process hold the database file, so while the collector runs,
analysts query through it. The API binds 127.0.0.1 by default and defends
itself against the browser on the same machine:

- the `Host` header must name this collector (localhost, an IP address, the
  configured or the machine's host name), so a DNS-rebinding page cannot reach it,
  and an `Origin` header, when sent, must be one of those too;
- POST bodies must be `application/json`, which a cross-origin page cannot send
  without a CORS preflight this API never grants;
- with `service.api.token` set, everything that returns audit rows (named queries,
  ad-hoc SQL) needs `Authorization: Bearer <token>`; the dashboard page loads
  without it and its data calls carry it. Without a token, ad-hoc SQL is off.

Ad-hoc SQL goes through `sql_guard`: one read-only SELECT over the audit tables,
bounded in rows and time, cancelled when the client goes away.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import logging
import select
import socket
import threading
import time
import urllib.parse
import uuid
from pathlib import Path

import duckdb

from claimwatch.store.queries import QueryError, load_queries, run_query

from . import sql_guard
from .dashboards import load_dashboards, spec_for_client
from .httpserver import BadRequest, BoundedHandler, BoundedHTTPServer, TooLarge

logger = logging.getLogger("claimwatch.api")


WEB_DIR = Path(__file__).resolve().parent / "web"
# The only files the dashboard serves, and their types.
STATIC_FILES = {
    "app.js": "text/javascript; charset=utf-8",
    "app.css": "text/css; charset=utf-8",
    "vendor/chart.umd.min.js": "text/javascript; charset=utf-8",
}
MAX_BODY_BYTES = 1 << 20
SQL_MAX_ROWS = 10_000
SQL_TIMEOUT_S = 10.0
SQL_CONCURRENCY = 2


class ApiServer(BoundedHTTPServer):
    thread_name = "claimwatch-api-conn"

    def __init__(self, address, collector) -> None:
        super().__init__(address, ApiHandler, max_connections=64, timeout_s=30.0)
        self.collector = collector
        self.queries = load_queries()
        self.dashboards = load_dashboards(queries=self.queries)
        self.token = collector.config.service.api.token or ""
        configured = collector.config.service.api.endpoint.rpartition(":")[0].lower()
        self.host_names = {"localhost", configured, socket.gethostname().lower()} - {""}
        self.sql_slots = threading.BoundedSemaphore(SQL_CONCURRENCY)
        self.replay_slot = threading.BoundedSemaphore(1)
        self.running = sql_guard.Running()
        if self.token:
            # Ad-hoc SQL is on: no file, network or extension access for this database instance.
            sql_guard.harden(collector.store)

    def cancel_queries(self) -> int:
        """Cancel running ad-hoc queries and refuse new ones: call before the store closes."""
        return self.running.cancel()

    def host_allowed(self, host: str) -> bool:
        """A Host (or Origin host) naming this collector: an IP literal, localhost or a configured name."""
        host = host.strip().lower()
        if host.startswith("["):
            name = host[1 : host.find("]")] if "]" in host else ""
        else:
            name = host.rsplit(":", 1)[0] if host.count(":") == 1 else host
        if not name:
            return False
        if name in self.host_names:
            return True
        try:
            ipaddress.ip_address(name)
        except ValueError:
            return False
        return True  # an IP literal cannot be a rebound DNS name


class ApiHandler(BoundedHandler):
    server: ApiServer

    def do_GET(self) -> None:
        url = urllib.parse.urlsplit(self.path)
        route = url.path.rstrip("/") or "/"
        self._discard_body()
        if not self._trusted_origin(route):
            return
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
                if self._authorized("a named query"):
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
            self._internal_error(route, exc)

    def do_POST(self) -> None:
        route = urllib.parse.urlsplit(self.path).path.rstrip("/")
        content_type = self.headers.get("Content-Type", "").split(";", 1)[0].strip().lower()
        try:
            body = self.read_body(MAX_BODY_BYTES)
        except BadRequest as exc:
            self._json(400, {"error": str(exc)})
            return
        except TooLarge as exc:
            self._json(413, {"error": str(exc)})
            return
        if not self._trusted_origin(route):
            return
        if content_type != "application/json":
            self._json(415, {"error": f"POST bodies must be application/json, got {content_type or 'none'!r}"})
            return
        try:
            if route.startswith("/api/query/"):
                if self._authorized("a named query"):
                    self._query(route.removeprefix("/api/query/"), _json_body(body))
            elif route == "/api/sql":
                self._sql(_json_body(body).get("sql", ""))
            elif route == "/api/policy/decide":
                # It changes session counts: with a token set, only a holder may (hooks send it).
                if self._authorized("a policy decision"):
                    self._policy_decide(_json_body(body))
            elif route == "/api/replay":
                if self._authorized("a replay"):
                    self._replay(_json_body(body))
            else:
                self._json(404, {"error": f"no such endpoint {route}"})
        except ValueError as exc:
            self._json(400, {"error": str(exc)})
        except Exception as exc:
            self._internal_error(route, exc)

    def _policy_decide(self, body: dict) -> None:
        """A pre-tool hook asks; the decision uses (and counts in) the collector's session state."""
        from claimwatch.policy.http import decide_http

        check = self.server.collector.engine.pipeline.check("tool_policy")
        if check is None:
            self._json(404, {"error": "the tool_policy check is switched off in this collector's config"})
            return
        status, answer = decide_http(body, check.engine, self._record_hook_decision)
        self._json(status, answer)

    def _record_hook_decision(self, body: dict, decision) -> None:
        """A hook's decision becomes rows like an audited tool span's (source `hook`), counted once."""
        from claimwatch.checks.pipeline import Guarded
        from claimwatch.checks.tool_policy import hook_result
        from claimwatch.otel import attributes as A
        from claimwatch.otel.records import SpanRecord
        from claimwatch.store.rows import record

        attrs = {A.GEN_AI_OPERATION_NAME: "execute_tool", A.GEN_AI_TOOL_NAME: decision.tool}
        if decision.agent:
            attrs[A.GEN_AI_AGENT_NAME] = decision.agent
        if decision.session:
            attrs[A.GEN_AI_CONVERSATION_ID] = decision.session
        span = SpanRecord(uuid.uuid4().hex, uuid.uuid4().hex[:16], None, f"execute_tool {decision.tool}", attrs,
                          end_ns=time.time_ns())
        result = hook_result(decision, body.get("tool_call_id"))
        engine = self.server.collector.engine
        outcome = engine.pipeline.process(span, guarded={"tool_policy": Guarded("tool_policy", result, decision.enforced)})
        if outcome is not None:
            record(outcome, self.server.collector.store, engine.counts)

    def _replay(self, body: dict) -> None:
        """Replay a candidate config over this collector's stored claims (one at a time: it holds the GIL)."""
        from claimwatch.replay import replay_request

        if not self.server.replay_slot.acquire(blocking=False):
            self._json(503, {"error": "a replay is already running; try again when it ends"})
            return
        try:
            self._json(200, replay_request(self.server.collector.store, body))
        finally:
            self.server.replay_slot.release()

    # --- who may ask --------------------------------------------------------------------------------
    def _trusted_origin(self, route: str) -> bool:
        """Refuse requests whose Host or Origin is not this collector (DNS rebinding, cross-site pages)."""
        host = self.headers.get("Host", "")
        if not self.server.host_allowed(host):
            self._json(
                403,
                {
                    "error": f"Host {host[:100]!r} is not this collector's address; use http://127.0.0.1:PORT, "
                    "http://localhost:PORT or the host name configured in service.api.endpoint"
                },
            )
            return False
        origin = self.headers.get("Origin")
        if origin is not None:
            parsed = urllib.parse.urlsplit(origin)
            if parsed.scheme not in ("http", "https") or not self.server.host_allowed(parsed.netloc):
                self._json(403, {"error": f"cross-origin requests from {origin[:100]!r} are not allowed"})
                return False
        return True

    def _authorized(self, what: str) -> bool:
        token = self.server.token
        if not token:
            return True
        given = self.headers.get("Authorization", "").removeprefix("Bearer ").strip()
        if hmac.compare_digest(given.encode(), token.encode()):
            return True
        self._json(401, {"error": f"{what} needs 'Authorization: Bearer <token>' (service.api.token is set)"})
        return False

    # --- answers ------------------------------------------------------------------------------------
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
        except duckdb.Error as exc:  # a parameter DuckDB refuses (limit=-1) is the caller's to fix
            self._json(400, {"error": f"query {name!r} failed: {sql_guard.first_line(exc)}"})
            return
        self._json(200, {"columns": columns, "rows": rows})

    def _sql(self, sql) -> None:
        if not self.server.token:
            self._json(403, {"error": "ad-hoc SQL is off: set service.api.token (or CLAIMWATCH_API_TOKEN)"})
            return
        if not self._authorized("ad-hoc SQL"):
            return
        if not isinstance(sql, str):
            self._json(400, {"error": "'sql' must be a string"})
            return
        if not self.server.sql_slots.acquire(blocking=False):
            self._json(503, {"error": f"{SQL_CONCURRENCY} ad-hoc queries are running; retry later"}, retry_after=1)
            return
        try:
            result = sql_guard.run(
                self.server.collector.store,
                sql,
                max_rows=SQL_MAX_ROWS,
                timeout_s=SQL_TIMEOUT_S,
                client_gone=lambda: _peer_closed(self.connection),
                running=self.server.running,
            )
        except sql_guard.Refused as exc:
            self._json(400, {"error": str(exc)})
            return
        finally:
            self.server.sql_slots.release()
        self._json(200, {"columns": result.columns, "rows": result.rows, "truncated": result.truncated})

    def _discard_body(self) -> None:
        try:
            self.read_body(MAX_BODY_BYTES)
        except (BadRequest, TooLarge):
            pass  # the connection is marked to close

    def _internal_error(self, route: str, exc: Exception) -> None:
        logger.exception("API error on %s", route)
        self.close_connection = True
        self._json(500, {"error": f"internal error ({type(exc).__name__}); see the collector's log"})

    def _json(self, code: int, payload, retry_after: int | None = None) -> None:
        headers = {"Cache-Control": "no-store"}
        if retry_after is not None:
            headers["Retry-After"] = str(retry_after)
        self.send_body(code, json.dumps(payload, default=str).encode(), "application/json", headers)

    def _text(self, code: int, text: str) -> None:
        self._send(code, text.encode(), "text/plain; version=0.0.4")

    def _send(self, code: int, body: bytes, content_type: str, cache: bool = False) -> None:
        self.send_body(code, body, content_type, {"Cache-Control": "max-age=3600" if cache else "no-store"})


def read_only_sql(con, sql: str) -> tuple[list[str], list[tuple]]:
    """Run one read-only SELECT over the audit tables (see `sql_guard`); ValueError says why not."""
    result = sql_guard.run(con, sql, max_rows=SQL_MAX_ROWS, timeout_s=SQL_TIMEOUT_S)
    return result.columns, result.rows


def _peer_closed(sock) -> bool:
    """True once the client has closed its side (or reset) the connection."""
    try:
        readable, _, _ = select.select([sock], [], [], 0)
        return bool(readable) and sock.recv(1, socket.MSG_PEEK) == b""
    except (OSError, ValueError):
        return True


def _json_body(body: bytes) -> dict:
    if not body:
        return {}
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        raise ValueError("body must be a JSON object") from None
    if not isinstance(data, dict):
        raise ValueError("body must be a JSON object")
    for key, value in data.items():
        for text in (key, value):
            if isinstance(text, str) and not text.isascii():
                try:
                    text.encode("utf-8")
                except UnicodeEncodeError:
                    raise ValueError(f"{key[:40]!r} holds a lone surrogate: JSON strings must be valid Unicode") from None
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
