"""`claimwatch demo` end to end, and the collector's settings precedence."""

from __future__ import annotations

import subprocess
import sys

import pytest

from claimwatch import ConfigError
from claimwatch.collector.settings import resolve, server_url
from tests.conftest import ROOT


def test_demo_runs_the_whole_loop():
    out = subprocess.run(
        [sys.executable, "-m", "claimwatch.collector.cli", "demo"], cwd=ROOT, capture_output=True, text=True, timeout=180
    )
    assert out.returncode == 0, out.stderr[-3000:]
    text = out.stdout
    assert "1. collector started" in text and "spans over OTLP/HTTP" in text
    assert "contradicts fact 'docker-running'" in text
    assert "owner-name" in text and "2 blocked output(s) of ops-sub-*" in text
    assert "4. where to look next" in text


def test_flags_override_environment_override_file(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text(
        "storage:\n  path: from-file.duckdb\nservice:\n  api:\n    endpoint: 127.0.0.1:9000\n"
        "receivers:\n  otlp:\n    protocols:\n      http:\n        endpoint: 127.0.0.1:5000\n"
    )
    env = {"CLAIMWATCH_DB": "from-env.duckdb", "CLAIMWATCH_API": "127.0.0.1:9001"}
    config = resolve(str(path), {"storage.path": "from-flag.duckdb", "service.api.endpoint": None}, env)
    assert config.storage.path == "from-flag.duckdb"
    assert config.service.api.endpoint == "127.0.0.1:9001"
    assert config.receivers.otlp.protocols.http.endpoint == "127.0.0.1:5000"


def test_defaults_work_with_no_file():
    config = resolve(None, {}, {})
    assert (
        config.storage.path,
        config.receivers.otlp.protocols.http.endpoint,
        config.receivers.otlp.protocols.grpc.endpoint,
        config.service.api.endpoint,
    ) == ("claimwatch.duckdb", "127.0.0.1:4318", "127.0.0.1:4317", "127.0.0.1:8787")
    assert config.exporters.otlp is None


def test_bad_environment_value_names_variable_and_key():
    with pytest.raises(ConfigError) as info:
        resolve(None, {}, {"CLAIMWATCH_OTLP_HTTP": "not-an-address"})
    assert str(info.value) == (
        "invalid config defaults + CLAIMWATCH_OTLP_HTTP:\n  receivers.otlp.protocols.http.endpoint: "
        "must be HOST:PORT with a host name or IPv4 address and a port from 0 to 65535 (got 'not-an-address')"
    )


def test_server_url_precedence():
    assert server_url("http://a:1/", {"CLAIMWATCH_SERVER": "http://b:2"}) == "http://a:1"
    assert server_url(None, {"CLAIMWATCH_SERVER": "http://b:2"}) == "http://b:2"
    assert server_url(None, {}) == "http://127.0.0.1:8787"
