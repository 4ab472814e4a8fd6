"""Fact registries: subject matching, the five value types, TTL, disabled registries, names."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from claimwatch import OutputValidator


def make(facts, **extra):
    return OutputValidator({"validation": {"factRegistries": [{"id": "r", "facts": facts}], **extra}})


def fact(subject, category, value, **extra):
    return {"id": extra.pop("id", "f1"), "category": category, "subject": subject, "value": value, **extra}


def status_of(v, text, trust=50):
    result = v.validate(text, agent_id="worker", trust=trust)
    return [(f.status, f.fact_id, f.expected, f.claimed) for f in result.fact_checks]


# value, text, expected status
VALUE_TYPES = [
    ({"type": "state", "state": "installed"}, "Docker is not installed.", "contradicted"),
    ({"type": "state", "state": "installed"}, "Docker is installed.", "confirmed"),
    ({"type": "state", "state": "running"}, "Docker is not installed.", "contradicted"),
    ({"type": "state", "state": "running"}, "I couldn't find docker.", "contradicted"),
    ({"type": "state", "state": "stopped"}, "Docker is running.", "contradicted"),
    ({"type": "state", "state": "stopped"}, "Docker is not running.", "confirmed"),
    ({"type": "state", "state": "installed"}, "Docker is not configured.", "no_fact_found"),
    # the claim names the opposite state of the fact
    ({"type": "state", "state": "running"}, "Docker is stopped.", "contradicted"),
    ({"type": "state", "state": "running"}, "Docker is not stopped.", "confirmed"),
    ({"type": "state", "state": "enabled"}, "Docker is disabled.", "contradicted"),
]


@pytest.mark.parametrize(("value", "text", "expected"), VALUE_TYPES)
def test_state_facts_compare_by_implication(value, text, expected):
    v = make([fact("docker", "system_state", value)])
    assert status_of(v, text)[0][0] == expected


@pytest.mark.parametrize(
    ("category", "value", "text", "expected"),
    [
        ("existence", {"type": "exists", "exists": True}, "The export feature doesn't exist.", "contradicted"),
        ("existence", {"type": "exists", "exists": True}, "There is no export feature.", "contradicted"),
        ("existence", {"type": "exists", "exists": False}, "The export feature doesn't exist.", "confirmed"),
        ("existence", {"type": "exists", "exists": False}, "The export feature already exists.", "contradicted"),
        (
            "operational_status",
            {"type": "status", "status": "operational"},
            "The export feature is down.",
            "contradicted",
        ),
        (
            "operational_status",
            {"type": "status", "status": "operational"},
            "The export feature is working.",
            "confirmed",
        ),
        ("operational_status", {"type": "status", "status": "down"}, "The export feature is down.", "confirmed"),
        ("operational_status", {"type": "status", "status": "down"}, "The export feature is healthy.", "contradicted"),
        ("operational_status", {"type": "status", "status": "degraded"}, "The export feature is failing.", "confirmed"),
        (
            "operational_status",
            {"type": "status", "status": "degraded"},
            "The export feature is offline.",
            "contradicted",
        ),
        (
            "capability",
            {"type": "capability", "supported": True},
            "The export feature is not supported.",
            "contradicted",
        ),
        ("capability", {"type": "capability", "supported": False}, "The export feature is not supported.", "confirmed"),
    ],
)
def test_value_types_confirm_or_contradict(category, value, text, expected):
    v = make([fact("export feature", category, value)])
    assert status_of(v, text)[0][0] == expected


def test_capability_claim_about_a_feature_of_a_product_uses_the_feature_as_subject():
    v = make([fact("streaming", "capability", {"type": "capability", "supported": True})])
    assert status_of(v, "OpenClaw doesn't support streaming.") == [("contradicted", "f1", "supported", "not_supported")]


def test_exact_subject_ignores_case_and_leading_articles():
    v = make([fact("The Gateway", "operational_status", {"type": "status", "status": "operational"})])
    assert status_of(v, "Our gateway is down.")[0][:2] == ("contradicted", "f1")
    assert status_of(v, "GATEWAY is down.")[0][:2] == ("contradicted", "f1")


def test_regex_subject_uses_search_semantics_on_the_normalized_subject():
    v = make([fact(r"node(\.js|js)?", "system_state", {"type": "state", "state": "installed"}, subjectIsRegex=True)])
    assert status_of(v, "The Node.js runtime is not installed.")[0][:2] == ("contradicted", "f1")


def test_category_must_match():
    v = make([fact("docker", "existence", {"type": "exists", "exists": True})])
    assert status_of(v, "Docker is not running.") == [("no_fact_found", None, None, None)]


def test_expired_fact_is_reported_and_not_used():
    old = (datetime.now(UTC) - timedelta(hours=2)).isoformat()
    v = make([fact("docker", "system_state", {"type": "state", "state": "running"}, ttlSeconds=60, updatedAt=old)])
    result = v.validate("Docker is not running.", agent_id="w", trust=50)
    assert [(f.status, f.fact_id) for f in result.fact_checks] == [("expired_fact", "f1")]
    assert result.verdict == "flag"
    assert "expired" in result.violations[0].reason


def test_fresh_fact_with_ttl_is_used():
    now = datetime.now(UTC).isoformat()
    v = make([fact("docker", "system_state", {"type": "state", "state": "running"}, ttlSeconds=600, updatedAt=now)])
    assert status_of(v, "Docker is not running.")[0][0] == "contradicted"


def test_disabled_registry_is_ignored_unless_an_agent_adds_it():
    v = OutputValidator(
        {
            "validation": {
                "factRegistries": [
                    {
                        "id": "off",
                        "enabled": False,
                        "facts": [fact("docker", "system_state", {"type": "state", "state": "running"})],
                    }
                ],
                "agentOverrides": [{"agent": "ops-*", "additionalRegistries": ["off"]}],
            }
        }
    )
    assert v.validate("Docker is not running.", agent_id="w", trust=50).fact_checks[0].status == "no_fact_found"
    assert v.validate("Docker is not running.", agent_id="ops-1", trust=50).fact_checks[0].status == "contradicted"


def test_excluded_registry_is_not_consulted_for_that_agent():
    v = OutputValidator(
        {
            "validation": {
                "factRegistries": [
                    {"id": "infra", "facts": [fact("docker", "system_state", {"type": "state", "state": "running"})]}
                ],
                "agentOverrides": [{"agent": "sandbox", "excludeRegistries": ["infra"]}],
            }
        }
    )
    assert v.validate("Docker is not running.", agent_id="sandbox", trust=50).fact_checks[0].status == "no_fact_found"


# RFC §5.5 registries: names are checked by role and by name.
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The user is Iulia.", ("contradicted", "owner-name", "Albert", "Iulia")),
        ("The user is Albert.", ("confirmed", "owner-name", "Albert", "Albert")),
        ("The owner's name is Albert Hild.", ("confirmed", "owner-name", "Albert", "Albert Hild")),
        ("Iulia reviewed the pull request.", ("contradicted", "irina-name", "Irina", "Iulia")),
        ("My partner is called Irina.", ("confirmed", "irina-name", "Irina", "Irina")),
        ("Her name is Iulia.", ("contradicted", "irina-name", "Irina", "Iulia")),
    ],
)
def test_names_compare_against_correct_name_and_aliases(rfc_validator, text, expected):
    assert status_of(rfc_validator, text) == [expected]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Node.js is not installed.", ("contradicted", "node-installed", "installed", "not_installed")),
        ("The governance plugin doesn't exist.", ("contradicted", "governance-plugin", "exists", "not_exists")),
        ("The gateway is down.", ("contradicted", "gateway-status", "operational", "down")),
        ("The pipeline is broken.", ("contradicted", "pipeline-status", "operational", "broken")),
        ("The CI pipeline failed.", ("contradicted", "pipeline-status", "operational", "failed")),
        ("node is installed.", ("confirmed", "node-installed", "installed", "installed")),
    ],
)
def test_rfc_registries_check_the_rfc_examples(rfc_validator, text, expected):
    assert status_of(rfc_validator, text) == [expected]
