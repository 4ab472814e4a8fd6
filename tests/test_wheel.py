"""The product as users install it: a wheel in a fresh virtual environment, run from outside the checkout.

An editable install finds queries/ and dashboards/ in the source tree and
hides missing package data; this test builds the wheel, installs it (not
editable) into a new venv and runs the commands a new user runs first.
"""

from __future__ import annotations

import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """bin/ of a fresh venv holding the built wheel and its dependencies."""
    work = tmp_path_factory.mktemp("wheel")
    dist = work / "dist"
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(dist), str(ROOT)],
        capture_output=True, text=True, cwd=work,
    )
    assert build.returncode == 0, build.stderr
    wheel = next(dist.glob("claimwatch-*.whl"))
    venv = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    install = subprocess.run(
        [str(venv / "bin" / "pip"), "install", "-q", str(wheel)], capture_output=True, text=True, cwd=work
    )
    assert install.returncode == 0, install.stderr
    return venv / "bin"


def run(bin_dir: Path, *args: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "CLAIMWATCH_DB")}
    return subprocess.run([str(bin_dir / args[0]), *args[1:]], capture_output=True, text=True, cwd=cwd,
                          env=env, timeout=timeout)


def test_wheel_ships_the_query_library(installed, tmp_path):
    out = run(installed, "claimwatch", "query", "--list", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "violations:" in out.stdout and "verdict_counts:" in out.stdout


def test_wheel_installs_one_namespace(installed, tmp_path):
    ok = run(installed, "python", "-c", "import claimwatch, claimwatch.collector.cli; print(claimwatch.__file__)",
             cwd=tmp_path)
    assert ok.returncode == 0 and "site-packages/claimwatch/__init__.py" in ok.stdout, ok.stderr
    for bare in ("processors", "collector"):
        gone = run(installed, "python", "-c", f"import {bare}", cwd=tmp_path)
        assert gone.returncode != 0 and "ModuleNotFoundError" in gone.stderr


def test_wheel_demo_and_report_work(installed, tmp_path):
    demo = run(installed, "claimwatch", "demo", "--keep", cwd=tmp_path)
    assert demo.returncode == 0, demo.stderr
    assert "blocked output(s)" in demo.stdout
    db = re.search(r"--db (\S+demo\.duckdb)", demo.stdout).group(1)
    report = run(installed, "claimwatch", "report", "--db", db, "-o", "report.html", cwd=tmp_path)
    assert report.returncode == 0, report.stderr
    html = (tmp_path / "report.html").read_text()
    assert "<html" in html.lower() and "violations" in html


def test_wheel_serve_answers_the_dashboard(installed, tmp_path):
    proc = subprocess.Popen(
        [str(installed / "claimwatch"), "serve", "--db", str(tmp_path / "a.duckdb"), "--otlp-http", "127.0.0.1:0",
         "--otlp-grpc", "127.0.0.1:0", "--api", "127.0.0.1:0"],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    try:
        lines: queue.Queue = queue.Queue()
        threading.Thread(target=lambda: [lines.put(line) for line in proc.stdout], daemon=True).start()
        api = None
        deadline = time.monotonic() + 120
        while api is None and time.monotonic() < deadline:
            try:
                line = lines.get(timeout=1.0)
            except queue.Empty:
                continue
            found = re.search(r"API\s+(?:http://)?(127\.0\.0\.1:\d+)", line)
            api = found.group(1) if found else None
        assert api, "serve did not print its API address"
        with urllib.request.urlopen(f"http://{api}/dashboard", timeout=10) as page:
            assert page.status == 200 and b"<html" in page.read().lower()
        with urllib.request.urlopen(f"http://{api}/api/query/verdict_counts", timeout=10) as answer:
            assert answer.status == 200
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
