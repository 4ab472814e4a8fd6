"""Benchmark the dashboard on 1,000,000 evaluations and 300,000 violations.

    python benchmarks/bench_dashboard.py [--evaluations 1000000] [--violations 300000]

Generates the rows in a DuckDB file (30 days, 50 agents), then measures:
1. each panel query's median over 5 runs, for a 24 h and a 30 d window (direct, in process);
2. a whole dashboard refresh through a running collector's API (all panels, as the page asks);
3. with Debian's chromium present, the page load until every panel has rendered.
Goal: every panel query <= 200 ms median.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import duckdb  # noqa: E402

from claimwatch.collector.dashboards import load_dashboards, spec_for_client  # noqa: E402
from claimwatch.collector.report import bucket_for  # noqa: E402
from claimwatch.store.queries import load_queries, run_query  # noqa: E402
from claimwatch.store.schema import migrate  # noqa: E402

GENERATE = """
INSERT INTO evaluations (
    evaluation_id, time, trace_id, span_id, parent_span_id, service, span_name, agent_id, agent_name, session_id,
    source, mode, verdict, audit_verdict, enforced, trust_score, trust_tier, claim_count, violation_count,
    categories, evaluation_us, text_length, text_sha256, truncated, skipped, error, tool_calls, config_hash
)
SELECT
    'e' || i, now()::TIMESTAMP - to_seconds(CAST(random() * 30 * 86400 AS BIGINT)),
    md5(i::VARCHAR), substr(md5(i::VARCHAR || 's'), 1, 16), NULL, 'svc-' || (i % 5), 'chat',
    'agent-' || (i % 50), 'agent-' || (i % 50), 'session-' || (i % 5000), 'gen_ai.output.messages',
    CASE WHEN i % 50 < 10 THEN 'enforce' ELSE 'audit' END,
    v, CASE v WHEN 'pass' THEN 'output_pass' WHEN 'flag' THEN 'output_flag' WHEN 'block' THEN 'output_block'
              ELSE 'error_fallback' END,
    v = 'block' AND i % 50 < 10, (i % 50) * 2, tier, (i % 4)::INTEGER, CASE WHEN v = 'pass' THEN 0 ELSE 1 END,
    ['system_state'], 40 + random() * 400, 2000, md5(i::VARCHAR || 't'), false, NULL, NULL, [], 'bench'
FROM (
    SELECT i,
        CASE WHEN random() < 0.80 THEN 'pass' WHEN random() < 0.80 THEN 'flag' WHEN random() < 0.99 THEN 'block'
             ELSE 'error_fallback' END AS v,
        ['untrusted', 'restricted', 'standard', 'trusted', 'privileged'][(i % 50) // 10 + 1] AS tier
    FROM range($evaluations) t(i)
)
"""
GENERATE_VIOLATIONS = """
INSERT INTO violations (
    evaluation_id, time, trace_id, span_id, agent_id, agent_name, session_id, mode, verdict, audit_verdict,
    trust_tier, action, category, detector_id, matched_text, subject, assertion, reason, severity,
    contradicted_fact_id, expected, fact_status, confidence, claim_offset, claim_count, trigger, iso_controls
)
SELECT evaluation_id, time, trace_id, span_id, agent_id, agent_name, session_id, mode, verdict, audit_verdict,
    trust_tier, CASE WHEN verdict = 'block' THEN 'block' ELSE 'flag' END,
    ['system_state', 'entity_name', 'existence', 'operational_status', 'capability', 'self_referential'][(n % 6) + 1],
    ['system_state.copula', 'entity_name.role', 'existence.does_not_exist', 'operational_status.failing',
     'capability.does_not_support', 'self_referential.instructions'][(n % 6) + 1],
    'Service' || (n % 300) || ' is not running', 'service' || (n % 300), 'not_running',
    'contradicts fact', ['low', 'high', 'medium'][(n % 3) + 1],
    CASE WHEN n % 3 = 1 THEN 'fact-' || (n % 40) END, CASE WHEN n % 3 = 1 THEN 'running' END,
    CASE WHEN n % 3 = 1 THEN 'contradicted' WHEN n % 3 = 0 THEN 'no_fact_found' END,
    0.9, 0, 1, 'gen_ai.output.messages', ['A.8.10']
FROM (SELECT e.*, row_number() OVER () AS n FROM evaluations e, range(2) r(k)
      WHERE e.verdict IN ('flag', 'block') LIMIT $violations)
"""


def generate(path: Path, evaluations: int, violations: int) -> None:
    con = duckdb.connect(str(path))
    migrate(con)
    start = time.perf_counter()
    con.execute(GENERATE.replace("$evaluations", str(evaluations)))
    con.execute(GENERATE_VIOLATIONS.replace("$violations", str(violations)))
    con.execute("CHECKPOINT")
    counts = con.execute("SELECT (SELECT count(*) FROM evaluations), (SELECT count(*) FROM violations)").fetchall()[0]
    con.close()
    print(f"generated {counts[0]:,} evaluations and {counts[1]:,} violations in {time.perf_counter() - start:.1f} s")


def panel_params(panel: dict, window: str, seconds: float) -> dict:
    params = dict(panel.get("params") or {})
    if "since" in panel["queryParams"]:
        params["since"] = window
    if "bucket" in panel["queryParams"]:
        params["bucket"] = bucket_for(seconds)
    return params


def bench_queries(path: Path, spec: dict, queries) -> float:
    con = duckdb.connect(str(path), read_only=True)
    worst = 0.0
    print(f"\n{'panel':<12} {'query':<26} {'24h median ms':>14} {'30d median ms':>14}")
    for panel in spec["panels"]:
        figures = []
        for window, seconds in (("24h", 86400), ("30d", 30 * 86400)):
            params = panel_params(panel, window, seconds)
            run_query(con, queries[panel["query"]], params)  # warm
            times = []
            for _ in range(5):
                start = time.perf_counter()
                run_query(con, queries[panel["query"]], params)
                times.append((time.perf_counter() - start) * 1000)
            figures.append(statistics.median(times))
        worst = max(worst, *figures)
        print(f"{panel['id']:<12} {panel['query']:<26} {figures[0]:>14.1f} {figures[1]:>14.1f}")
    con.close()
    return worst


def bench_api(path: Path, spec: dict) -> None:
    from claimwatch import load_config
    from claimwatch.collector.service import Collector

    collector = Collector(
        load_config(
            {
                "storage": {"path": str(path)},
                "receivers": {"otlp": {"protocols": {"http": {"enabled": False}, "grpc": {"enabled": False}}}},
                "service": {"api": {"endpoint": "127.0.0.1:0"}},
            }
        )
    )
    api = collector.start().api

    def fetch(panel):
        query = urllib.parse.urlencode(panel_params(panel, "24h", 86400))
        with urllib.request.urlopen(f"http://{api}/api/query/{panel['query']}?{query}", timeout=60) as r:
            return json.loads(r.read())

    times = []
    with ThreadPoolExecutor(max_workers=6) as pool:  # a browser opens about six connections per host
        list(pool.map(fetch, spec["panels"]))
        for _ in range(5):
            start = time.perf_counter()
            list(pool.map(fetch, spec["panels"]))
            times.append((time.perf_counter() - start) * 1000)
    print(f"\nwhole dashboard refresh through the API (11 panels, 24 h): median {statistics.median(times):.0f} ms")
    browser_load(api)
    collector.stop()


def browser_load(api: str) -> None:
    chromium = Path("/usr/bin/chromium")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return
    if not chromium.exists():
        return
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=str(chromium),
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"],
        )
        times = []
        for _ in range(3):
            page = browser.new_page(viewport={"width": 1400, "height": 1800})
            start = time.perf_counter()
            page.goto(f"http://{api}/dashboard")
            page.wait_for_selector("body[data-ready=true]", timeout=60000)
            times.append((time.perf_counter() - start) * 1000)
            page.close()
        browser.close()
    print(f"page load in chromium until every panel rendered: median {statistics.median(times):.0f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--evaluations", type=int, default=1_000_000)
    parser.add_argument("--violations", type=int, default=300_000)
    args = parser.parse_args()
    queries = load_queries()
    spec = spec_for_client(load_dashboards(queries=queries)["overview"], queries)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "million.duckdb"
        generate(path, args.evaluations, args.violations)
        worst = bench_queries(path, spec, queries)
        print(f"slowest panel query median: {worst:.1f} ms (goal <= 200 ms)")
        bench_api(path, spec)


if __name__ == "__main__":
    main()
