from __future__ import annotations

from pathlib import Path

import pytest

from claimwatch import OutputValidator, load_config

ROOT = Path(__file__).resolve().parent.parent
RFC_CONFIG = ROOT / "examples" / "rfc-registries.json"

# The fact most tests contradict with "Docker is not running."
DOCKER_RUNNING = {
    "id": "docker-running",
    "category": "system_state",
    "subject": "docker",
    "value": {"type": "state", "state": "running"},
}


@pytest.fixture(scope="session")
def validator() -> OutputValidator:
    """Builtin detectors, no facts."""
    return OutputValidator()


@pytest.fixture(scope="session")
def rfc_validator() -> OutputValidator:
    """The RFC §5.5 example registries."""
    return OutputValidator(load_config(RFC_CONFIG))


def only_claim(result):
    assert len(result.claims) == 1, [c.matched_text for c in result.claims]
    return result.claims[0]
