"""Dashboards and the query library on demo-scenario data; the web dashboard and report in real Chromium."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from claimwatch import ConfigError, load_config
from claimwatch.collector.dashboards import load_dashboards
from claimwatch.collector.demo import DEMO_CONFIG, run_scenario
from claimwatch.collector.service import Collector
from claimwatch.store.queries import load_queries, run_query
from tests.conftest import ROOT

pytestmark = pytest.mark.e2e

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
# The README's screenshot is refreshed with CLAIMWATCH_UPDATE_SCREENSHOT=1; otherwise it goes to a temp dir.
UPDATE_SCREENSHOT = os.environ.get("CLAIMWATCH_UPDATE_SCREENSHOT") == "1"


@pytest.fixture(scope="module")
def demo_collector(tmp_path_factory):
    """A running collector fed the demo scenario three times."""
    tmp = tmp_path_factory.mktemp("dash")
    config = {
        **DEMO_CONFIG,
        "storage": {"path": str(tmp / "demo.duckdb")},
        "receivers": {
            "otlp": {"protocols": {"http": {"endpoint": "127.0.0.1:0"}, "grpc": {"endpoint": "127.0.0.1:0"}}}
        },
        "service": {"api": {"endpoint": "127.0.0.1:0"}},
    }
    collector = Collector(load_config(config))
    addresses = collector.start()
    for _ in range(3):
        run_scenario(f"http://{addresses.otlp_http}/v1/traces")
    collector.engine.flush(30)
    yield collector
    collector.stop()


def test_every_query_runs_on_demo_data_with_its_declared_parameters(demo_collector):
    queries = load_queries()
    assert len(queries) >= 12
    for query in queries.values():
        params = {p.name: p.default for p in query.params if p.default is not None}
        columns, rows = run_query(demo_collector.store, query, {})
        assert columns, query.name
        assert rows, f"{query.name} returned no rows on the demo data (defaults {params})"


def test_rollout_readiness_marks_agents_by_would_block_rate(demo_collector):
    query = load_queries()["rollout_readiness"]
    columns, rows = run_query(demo_collector.store, query, {"min_outputs": "3", "max_block_pct": "10"})
    table = {r[0]: dict(zip(columns, r, strict=True)) for r in rows}
    # The enforcing ops-sub-* agents are not in audit mode.
    assert set(table) == {"planner", "researcher", "coder", "support", "faq-bot"}
    assert table["researcher"]["ready"] is True and table["researcher"]["would_block_pct"] == 0
    assert table["planner"]["would_flag_pct"] == 50.0  # its output flags, its grounding passes


def test_dashboard_panels_name_real_queries_and_columns(demo_collector):
    queries = load_queries()
    for dashboard in load_dashboards(queries=queries).values():
        for panel in dashboard.panels:
            columns, _ = run_query(demo_collector.store, queries[panel.query], dict(panel.params))
            for column in (panel.x, *panel.series, *panel.columns):
                if column:
                    assert column in columns, f"panel {panel.id}: {panel.query} has no column {column!r}"


def test_dashboard_naming_a_missing_query_fails_at_load(tmp_path):
    (tmp_path / "bad.yaml").write_text(
        "name: bad\ntitle: Bad\npanels:\n  - {id: a, title: A, query: nope, chart: table}\n"
        "  - {id: b, title: B, query: violations, chart: violations, filters: [colour]}\n"
    )
    with pytest.raises(ConfigError) as info:
        load_dashboards(tmp_path)
    assert str(info.value) == (
        f"invalid config {tmp_path / 'bad.yaml'}:\n  panels[0].query: no query named 'nope' in "
        "queries/\n  panels[1]: query 'violations' has no parameter 'colour'"
    )


# --- real browser -------------------------------------------------------------------------------
browser = pytest.mark.skipif(
    not Path(CHROMIUM).exists(), reason="Debian's chromium is not installed (.ci/run installs it)"
)
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]


@pytest.fixture(scope="module")
def chromium():
    playwright = pytest.importorskip("playwright.sync_api")
    with playwright.sync_playwright() as p:
        instance = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield instance
        instance.close()


def open_page(chromium, url):
    page = chromium.new_page(viewport={"width": 1400, "height": 1800})
    errors, hosts = [], set()
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on(
        "request",
        lambda r: hosts.add(
            r.url.split("/")[2] if "://" in r.url and not r.url.startswith(("file:", "data:")) else "local"
        ),
    )
    page.goto(url)
    page.wait_for_selector("body[data-ready=true]", timeout=30000)
    return page, errors, hosts


@browser
def test_dashboard_renders_filters_and_stays_on_localhost(demo_collector, chromium, tmp_path):
    page, errors, hosts = open_page(chromium, f"http://{demo_collector.addresses.api}/dashboard")
    for panel in ("verdicts", "tiers", "agents", "detectors", "categories", "selfref"):
        assert page.locator(f"#panel-{panel} canvas").count() == 1, panel
    for panel in ("facts", "readiness", "latency", "unverified", "violations"):
        assert int(page.get_attribute(f"#panel-{panel}", "data-rows")) > 0, panel
    rows_before = page.locator("#panel-violations tr.main").count()
    assert page.locator("#panel-violations tr.explain").first.inner_text().startswith("why: ")
    page.select_option("#panel-violations select[name=category]", "self_referential")
    page.wait_for_function(
        "document.querySelectorAll('#panel-violations tr.main').length > 0 && "
        f"document.querySelectorAll('#panel-violations tr.main').length < {rows_before}"
    )
    categories = page.locator("#panel-violations tr.main td:nth-child(8)").all_inner_texts()
    assert set(categories) == {"self_referential"}
    page.fill("#panel-violations input[name=agent]", "ops-sub-*")
    page.locator("#panel-violations input[name=agent]").dispatch_event("change")
    page.wait_for_timeout(500)
    assert set(page.locator("#panel-violations tr.main td:nth-child(2)").all_inner_texts()) == {"ops-sub-2"}
    page.click("#panel-facts th[data-column=fact_id]")  # sort descending by fact id
    facts = page.locator("#panel-facts tbody td:first-child").all_inner_texts()
    assert facts == sorted(facts, reverse=True)
    page.select_option("#panel-violations select[name=category]", "")
    page.fill("#panel-violations input[name=agent]", "")
    page.locator("#panel-violations input[name=agent]").dispatch_event("change")
    page.wait_for_timeout(500)
    screenshot = ROOT / "docs" / "dashboard.png" if UPDATE_SCREENSHOT else tmp_path / "dashboard.png"
    page.screenshot(path=str(screenshot), full_page=True)
    assert screenshot.stat().st_size > 50_000
    assert errors == []
    assert hosts <= {demo_collector.addresses.api}, hosts


@browser
def test_static_report_opens_offline(demo_collector, chromium, tmp_path):
    snapshot = tmp_path / "copy.duckdb"
    demo_collector.engine.flush(10)
    cursor = demo_collector.store.cursor()
    cursor.execute(f"ATTACH '{snapshot}' AS snap; COPY FROM DATABASE {_db_name(cursor)} TO snap; DETACH snap;")
    cursor.close()
    out = tmp_path / "report.html"
    result = subprocess.run(
        [sys.executable, "-m", "claimwatch.collector.cli", "report", "--db", str(snapshot), "-o", str(out), "--since", "1d"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    html = out.read_text()
    assert "<script src=" not in html and '<link rel="stylesheet"' not in html
    context = chromium.new_context(offline=True)
    page = context.new_page()
    errors = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(out.as_uri())
    page.wait_for_selector("body[data-ready=true]", timeout=30000)
    assert page.locator("#panel-verdicts canvas").count() == 1
    assert int(page.get_attribute("#panel-violations", "data-rows")) > 0
    page.select_option("#panel-violations select[name=category]", "entity_name")
    page.wait_for_timeout(300)
    assert set(page.locator("#panel-violations tr.main td:nth-child(8)").all_inner_texts()) == {"entity_name"}
    assert errors == []
    context.close()


def _db_name(cursor) -> str:
    return cursor.execute("SELECT current_database()").fetchall()[0][0]
