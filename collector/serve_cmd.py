"""`claimwatch serve` and `claimwatch status`."""

from __future__ import annotations

import argparse
import json
import logging
import signal
import sys
import threading
import urllib.error
import urllib.request

from claimwatch import ConfigError
from claimwatch.core.settings import SERVER, SETTINGS

from .settings import add_setting_flags, flag_values, resolve, server_url

SERVE_EPILOG = """\
examples:
  claimwatch serve                                   # defaults: OTLP on 127.0.0.1:4318/4317, API on :8787
  claimwatch serve --config claimwatch.yaml --db /var/lib/claimwatch/audit.duckdb
  OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 python my_agent.py   # then point an agent at it

Settings: flags > environment > config file > defaults. Environment variables:
""" + "\n".join(f"  {s.env:<30} {s.key}" for s in SETTINGS) + "\n\nclaimwatch check-config --explain prints every setting with its default."

STATUS_EPILOG = """\
example:
  claimwatch status --server http://127.0.0.1:8787
"""


def add_parser(sub) -> None:
    serve = sub.add_parser(
        "serve",
        help="run the collector: receive OTLP, validate, annotate, store, forward",
        description="Run the claimwatch collector until SIGINT/SIGTERM, then drain and flush everything accepted.",
        epilog=SERVE_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    serve.add_argument("--config", metavar="FILE", help="YAML or JSON config file")
    add_setting_flags(serve)
    serve.add_argument("--log-level", default="INFO", choices=("DEBUG", "INFO", "WARNING", "ERROR"))
    serve.set_defaults(handler=run_serve)

    status = sub.add_parser(
        "status",
        help="show a running collector's counters",
        description="Ask a running collector for its listen addresses and self-telemetry counters.",
        epilog=STATUS_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_server_flag(status)
    status.add_argument("--json", action="store_true")
    status.set_defaults(handler=run_status)


def add_server_flag(parser) -> None:
    """--server, as every command that talks to a running collector spells it."""
    parser.add_argument(SERVER.flag, metavar=SERVER.metavar, help=f"{SERVER.description} (env {SERVER.env}; default {SERVER.default})")


def run_serve(args: argparse.Namespace) -> int:
    from .engine import tune_gc
    from .service import Collector

    logging.basicConfig(level=args.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    tune_gc()
    _raise_fd_limit()
    config = resolve(args.config, flag_values(args))
    collector = Collector(config)
    try:
        addresses = collector.start()
    except OSError as exc:
        print(f"claimwatch: cannot start: {exc}", file=sys.stderr)
        return 2
    print(f"claimwatch {collector.status()['version']} collecting", flush=True)
    if addresses.otlp_http:
        print(f"  OTLP/HTTP  http://{addresses.otlp_http}/v1/traces  (and /v1/logs)", flush=True)
    if addresses.otlp_grpc:
        print(f"  OTLP/gRPC  {addresses.otlp_grpc}", flush=True)
    print(f"  API        http://{addresses.api}  (/health, /metrics, /api/status, /api/query/<name>)", flush=True)
    print(f"  database   {config.storage.path}", flush=True)
    if config.exporters.otlp:
        print(f"  forwarding {config.exporters.otlp.protocol} -> {config.exporters.otlp.endpoint}", flush=True)
    print("  stop with Ctrl-C (SIGINT) or SIGTERM; everything accepted is flushed first", flush=True)
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    stop.wait()
    print("claimwatch: shutting down, flushing buffered spans and the store ...", flush=True)
    from .sql_guard import cancel_all

    cancel_all()  # an ad-hoc query must not hold the store while it closes
    collector.stop()
    counters = collector.engine.stats()
    print(
        f"claimwatch: stopped after {counters.get('spans_received', 0)} spans, "
        f"{counters.get('evaluations', 0)} evaluations",
        flush=True,
    )
    return 0


def _raise_fd_limit() -> None:
    """Use the hard file-descriptor limit: each client connection costs one, and the listeners'
    connection caps are derived from the soft limit."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = hard if hard != resource.RLIM_INFINITY else 65536
    if soft != resource.RLIM_INFINITY and soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (min(target, 65536), hard))
        except (ValueError, OSError):
            pass


def fetch_json(url: str, timeout: float = 5.0, data: bytes | None = None, headers: dict | None = None):
    """GET (or POST `data`) JSON from the API; raises ConnectionError when nothing listens."""
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as exc:
        try:
            payload = json.loads(exc.read() or b"{}")
        except (ValueError, OSError):
            payload = {}
        message = payload.get("error") if isinstance(payload, dict) else None
        raise RuntimeError(message or f"HTTP {exc.code} from {url}") from None
    except (urllib.error.URLError, OSError) as exc:
        raise ConnectionError(f"no collector at {url}: {getattr(exc, 'reason', exc)}") from None


def run_status(args: argparse.Namespace) -> int:
    base = server_url(args.server)
    try:
        status = fetch_json(f"{base}/api/status")
    except (ConnectionError, RuntimeError) as exc:
        print(f"claimwatch: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(status, indent=2))
        return 0
    print(f"claimwatch {status['version']} up {status['uptime_s']}s, database {status['database']}")
    for name, address in status["listening"].items():
        print(f"  {name:<10} {address}")
    for key, value in sorted(status["counters"].items()):
        print(f"  {key:<28} {value}")
    return 0


__all__ = ["ConfigError", "add_parser", "fetch_json"]
