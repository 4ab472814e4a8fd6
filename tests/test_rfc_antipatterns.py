"""RFC-003 §13: each production anti-pattern, the claim it yields and the verdict per tier."""

from __future__ import annotations

import pytest

from claimwatch import OutputValidator

# text, (category, subject, assertion, negative), fact status, verdict at trust 10 / 50 / 70
ANTI_PATTERNS = [
    (
        "Node.js is not installed on the host.",
        ("system_state", "Node.js", "not_installed", True),
        "contradicted",
        ("block", "flag", "flag"),
    ),
    (
        "I spoke with the user. The user is Iulia.",
        ("entity_name", "Iulia", "name_reference", False),
        "contradicted",
        ("block", "flag", "flag"),
    ),
    (
        "The governance plugin doesn't exist.",
        ("existence", "The governance plugin", "not_exists", True),
        "contradicted",
        ("block", "flag", "flag"),
    ),
    (
        "The pipeline is broken.",
        ("operational_status", "The pipeline", "broken", False),
        "contradicted",
        ("block", "flag", "flag"),
    ),
    (
        "My instructions say I should not touch that.",
        ("self_referential", "self", "self_referential", False),
        None,
        ("block", "flag", "pass"),
    ),
]


@pytest.mark.parametrize(("text", "claim", "status", "verdicts"), ANTI_PATTERNS)
def test_antipattern_is_caught_with_tier_scaled_verdict(rfc_validator, text, claim, status, verdicts):
    for trust, expected in zip((10, 50, 70), verdicts, strict=True):
        result = rfc_validator.validate(text, agent_id="sub-agent", trust=trust)
        assert result.verdict == expected, (trust, result.violations)
    result = rfc_validator.validate(text, agent_id="sub-agent", trust=10)
    c = result.claims[-1]
    assert (c.category, c.subject, c.assertion, c.negative) == claim
    if status:
        assert result.fact_checks[-1].status == status


def test_no_registry_means_claims_are_flagged_never_blocked():
    # RFC §15.3: upgrading with no facts monitors without enforcement.
    v = OutputValidator()
    for trust in (0, 10, 30, 50):
        assert v.validate("Docker is not installed.", agent_id="w", trust=trust).verdict == "flag"


def test_unclosed_fence_hides_the_rest_of_the_text(validator):
    assert validator.detect("Output:\n```\nDocker is not running\nand more") == []


def test_claim_after_a_closed_fence_is_found(validator):
    text = "```bash\n$ docker ps\nCannot connect: docker is not running\n```\nRedis is not running."
    assert [c.subject for c in validator.detect(text)] == ["Redis"]
