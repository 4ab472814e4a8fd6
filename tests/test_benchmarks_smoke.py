"""Every benchmark runs at a tiny size, so none rots between the runs that produce figures."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.e2e

# Tiny arguments per benchmark script; a new script must be added here (the test below says so).
SMOKE = {
    "bench_validate.py": ["--count", "5", "--rounds", "1"],
    "bench_processor.py": ["--spans", "3000"],
    "bench_collector.py": ["--batches", "3", "--runs", "1"],
    "bench_dashboard.py": ["--evaluations", "3000", "--violations", "600"],
    "bench_detection.py": ["--part", "check"],
    "bench_flood.py": ["--exporters", "5", "--idle", "10", "--flood-clients", "1", "--flood-mb", "1",
                       "--grpc-calls", "20"],
    "bench_fuzz.py": ["--count", "40"],
    "bench_grounding.py": ["--rounds", "3"],
    "bench_policy.py": ["--hook-runs", "2"],
    "bench_verify.py": ["--outputs", "10", "--rounds", "1"],
    "bench_replay.py": ["--claims", "20000", "--naive-claims", "2000", "--rounds", "1"],
    "bench_kafka.py": ["--batches", "2", "--rounds", "1"],
    "bench_fleet.py": ["--evaluations", "3000", "--rounds", "1"],
    "bench_spool.py": ["--batches", "3", "--rounds", "1"],
    "bench_overload.py": ["--seconds", "2", "--exporters", "2", "--batches", "2", "--limit-mb", "1"],
}


def test_every_benchmark_has_a_smoke_size():
    scripts = {p.name for p in (ROOT / "benchmarks").glob("bench_*.py")}
    assert scripts == set(SMOKE)


@pytest.mark.parametrize("script", sorted(SMOKE))
def test_benchmark_runs_at_a_tiny_size(script, tmp_path):
    out = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / script), *SMOKE[script]],
        capture_output=True, text=True, cwd=tmp_path, timeout=300,
    )
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-3000:]
    assert out.stdout.strip(), "a benchmark prints its figures"
