"""Conformance with an independent OTLP implementation: the Node exporters (they send chunked bodies)."""

from __future__ import annotations

import subprocess

import pytest

from tests.helpers.node import needs_node, npm_install
from tests.otlp_helpers import start_collector, wait_for

pytestmark = [pytest.mark.e2e, needs_node]


@pytest.fixture(scope="module")
def node_exporters():
    """npm-install the pinned exporters once per run (quick when already installed)."""
    return npm_install()


@pytest.mark.parametrize("kind", ["http", "proto", "grpc"])
def test_node_exporter_spans_are_received_and_validated(tmp_path, node_exporters, kind):
    collector = start_collector(tmp_path)
    try:
        a = collector.addresses
        url = f"http://{a.otlp_grpc}" if kind == "grpc" else f"http://{a.otlp_http}/v1/traces"
        out = subprocess.run(
            ["node", "send.js", kind, url], cwd=node_exporters, capture_output=True, text=True, timeout=120
        )
        assert out.returncode == 0, out.stderr[-2000:]
        wait_for(lambda: collector.engine.stats().get("spans_received", 0) >= 2)
        collector.engine.flush(10)
        cursor = collector.store.cursor()
        rows = cursor.execute("SELECT agent_id, session_id, service, verdict FROM evaluations").fetchall()
        cursor.close()
        assert rows == [(f"node-worker-{kind}", "node-conv", f"node-agent-{kind}", "flag")]
    finally:
        collector.stop()
