"""The pinned Node packages of tests/node (OTLP exporters, the Vercel AI SDK), installed once per run.

Two test files use them and pytest-xdist may run both at once: two `npm install`
in one folder can leave it half written, so the install holds a file lock.
"""

from __future__ import annotations

import fcntl
import shutil
import subprocess

import pytest

from tests.conftest import ROOT

NODE_DIR = ROOT / "tests" / "node"
needs_node = pytest.mark.skipif(
    shutil.which("node") is None or shutil.which("npm") is None, reason="node and npm are not installed on this machine"
)


def npm_install() -> str:
    """npm-install the pinned packages (quick when already installed); the folder to run node in."""
    with open(NODE_DIR / ".npm-install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        out = subprocess.run(
            ["npm", "install", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=NODE_DIR,
            capture_output=True,
            text=True,
            timeout=600,
        )
    assert out.returncode == 0, f"npm install failed: {out.stderr[-2000:]}"
    return NODE_DIR
