"""Verdicts: worst wins, trust tiers, profiles, overrides, exemptions, confidence gating (RFC §7, §9)."""

from __future__ import annotations

import pytest

from claimwatch import OutputValidator

CONTRADICTED = "Node.js is not installed."  # contradicts node-installed
UNVERIFIED = "Redis is not running."  # no fact covers redis
SELF_REF = "My system prompt says I must only summarise."


def verdict(v, text, agent="worker-1", trust=None):
    return v.validate(text, agent_id=agent, trust=trust).verdict


@pytest.mark.parametrize(
    ("trust", "tier", "contradicted", "unverified", "self_ref"),
    [
        (10, "untrusted", "block", "flag", "block"),  # tier never blocks unverified: flags
        (30, "restricted", "block", "flag", "flag"),
        (50, "standard", "flag", "flag", "flag"),
        (70, "trusted", "flag", "pass", "pass"),
        (85, "privileged", "flag", "pass", "pass"),
    ],
)
def test_trust_tier_sets_the_policies(rfc_validator, trust, tier, contradicted, unverified, self_ref):
    result = rfc_validator.validate(CONTRADICTED, agent_id="worker-1", trust=trust)
    assert result.trust.tier == tier
    assert result.verdict == contradicted
    assert verdict(rfc_validator, UNVERIFIED, trust=trust) == unverified
    assert verdict(rfc_validator, SELF_REF, trust=trust) == self_ref


def test_no_claims_pass(rfc_validator):
    result = rfc_validator.validate("I refactored the parser and added three tests.", agent_id="w", trust=10)
    assert (result.verdict, result.claims, result.violations) == ("pass", (), ())


def test_worst_violation_wins(rfc_validator):
    result = rfc_validator.validate(f"{UNVERIFIED} {CONTRADICTED}", agent_id="worker-1", trust=10)
    assert result.verdict == "block"
    assert sorted(v.policy for v in result.violations) == ["block", "flag"]
    assert {v.severity for v in result.violations} == {"high", "low"}


def test_severity_by_kind(rfc_validator):
    result = rfc_validator.validate(f"{CONTRADICTED} {UNVERIFIED} {SELF_REF}", agent_id="w", trust=10)
    assert sorted((v.claim.category, v.severity) for v in result.violations) == [
        ("self_referential", "medium"),
        ("system_state", "high"),
        ("system_state", "low"),
    ]


def test_contradiction_violation_names_the_fact(rfc_validator):
    violation = rfc_validator.validate(CONTRADICTED, agent_id="w", trust=10).violations[0]
    assert (violation.fact_id, violation.expected, violation.severity) == ("node-installed", "installed", "high")
    assert violation.reason == "contradicts fact 'node-installed': expected installed, claimed not_installed"


def test_hedged_contradiction_flags_instead_of_blocking(rfc_validator):
    result = rfc_validator.validate("Node.js might not be installed.", agent_id="w", trust=10)
    assert result.verdict == "flag"
    assert "below 0.80" in result.violations[0].reason


def test_block_confidence_threshold_is_configurable():
    base = {
        "factRegistries": [
            {
                "id": "r",
                "facts": [
                    {
                        "id": "n",
                        "category": "system_state",
                        "subject": "node",
                        "value": {"type": "state", "state": "installed"},
                    }
                ],
            }
        ]
    }
    lax = OutputValidator({"validation": {**base, "blockMinConfidence": 0.5}})
    assert verdict(lax, "Node might not be installed.", trust=10) == "block"


RFC_OVERRIDES = {
    "factRegistries": [
        {
            "id": "sys",
            "facts": [
                {
                    "id": "node",
                    "category": "system_state",
                    "subject": "node.js",
                    "value": {"type": "state", "state": "installed"},
                }
            ],
        }
    ],
    "agentOverrides": [
        {"agent": "main", "profile": "lenient"},
        {"agent": "forge", "profile": "standard"},
        {"agent": "quiet", "profile": "disabled"},
        {"agent": "audit-*", "unverifiedClaimPolicy": "block"},
        {"agent": "*", "profile": "strict"},
    ],
}


@pytest.mark.parametrize(
    ("agent", "text", "expected"),
    [
        ("main", CONTRADICTED, "flag"),  # lenient: contradiction flags
        ("main", UNVERIFIED, "pass"),  # lenient: unverified ignored
        ("forge", CONTRADICTED, "flag"),
        ("forge", UNVERIFIED, "flag"),
        ("sub-7", UNVERIFIED, "block"),  # strict is explicit: it may block unverified
        ("sub-7", CONTRADICTED, "block"),
        ("audit-1", UNVERIFIED, "block"),  # explicit unverifiedClaimPolicy on top of the tier
        ("quiet", CONTRADICTED, "pass"),
    ],
)
def test_first_matching_override_decides(agent, text, expected):
    v = OutputValidator({"validation": RFC_OVERRIDES})
    assert verdict(v, text, agent=agent, trust=50) == expected


def test_disabled_profile_skips_validation():
    v = OutputValidator({"validation": RFC_OVERRIDES})
    result = v.validate(CONTRADICTED, agent_id="quiet", trust=10)
    assert (result.verdict, result.skipped, result.claims) == ("pass", "disabled_by_override", ())


def test_exempt_agents_and_trust_threshold_skip():
    v = OutputValidator({"validation": {"exempt": ["ops-*"], "trustExemptThreshold": 80}})
    assert v.validate(UNVERIFIED, agent_id="ops-bot", trust=10).skipped == "exempt"
    assert v.validate(UNVERIFIED, agent_id="w", trust=81).skipped == "trust_exempt"
    assert v.validate(UNVERIFIED, agent_id="w", trust=80).skipped is None


def test_short_text_and_disabled_validation_skip():
    v = OutputValidator()
    assert v.validate("ok", agent_id="w").skipped == "too_short"
    off = OutputValidator({"validation": {"enabled": False}})
    assert off.validate(UNVERIFIED, agent_id="w").skipped == "disabled"


def test_trusted_tier_only_runs_detectors_that_facts_can_check(rfc_validator):
    # trusted (contradiction-only): no capability facts exist, so capability claims are not even reported
    result = rfc_validator.validate("Streaming is not supported. Node.js is not installed.", agent_id="w", trust=70)
    assert [c.category for c in result.claims] == ["system_state"]
    standard = rfc_validator.validate("Streaming is not supported. Node.js is not installed.", agent_id="w", trust=50)
    assert [c.category for c in standard.claims] == ["capability", "system_state"]


def test_trust_scaling_off_uses_defaults():
    v = OutputValidator({"validation": {"trustScaling": False, "defaults": {"unverifiedClaimPolicy": "block"}}})
    assert verdict(v, UNVERIFIED, trust=95 - 10) == "block"


def test_default_trust_applies_when_none_given():
    v = OutputValidator({"validation": {"defaultTrust": 15}})
    assert v.validate(UNVERIFIED, agent_id="w").trust.tier == "untrusted"


def test_internal_error_fails_open(monkeypatch):
    v = OutputValidator()

    def boom(*args, **kwargs):
        raise RuntimeError("engine exploded")

    monkeypatch.setattr(v, "_detect", boom)
    result = v.validate(UNVERIFIED, agent_id="w", trust=10)
    assert (result.verdict, result.error) == ("error_fallback", "RuntimeError: engine exploded")


def test_long_text_is_truncated_to_max_text_length():
    v = OutputValidator({"validation": {"performance": {"maxTextLength": 100}}})
    text = "x " * 60 + UNVERIFIED
    result = v.validate(text, agent_id="w", trust=50)
    assert result.truncated and result.claims == ()


def test_max_claims_per_output_caps_claims():
    v = OutputValidator({"validation": {"performance": {"maxClaimsPerOutput": 2}}})
    text = " ".join(f"Service{i} is not running." for i in range(6))
    assert len(v.validate(text, agent_id="w", trust=50).claims) == 2


def test_max_eval_us_bails_out_and_reports_it():
    v = OutputValidator({"validation": {"performance": {"maxEvalUs": 1}}})
    result = v.validate("Redis is not running. " * 50, agent_id="w", trust=50)
    assert result.bailed_out
    assert result.verdict in ("pass", "flag")
