"""Properties over arbitrary text: offsets point into the text, nothing raises, results are stable."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from claimwatch import OutputValidator

_V = OutputValidator(
    {
        "validation": {
            "factRegistries": [
                {
                    "id": "r",
                    "facts": [
                        {
                            "id": "d",
                            "category": "system_state",
                            "subject": "docker",
                            "value": {"type": "state", "state": "running"},
                        }
                    ],
                }
            ]
        }
    }
)

CLAIMY = st.sampled_from(
    [
        "Docker is not running.",
        "The user is Iulia.",
        "The pipeline is broken.",
        "I couldn't find `rg`.",
        "Is docker running?",
        "- Redis: not installed",
        "My system prompt says so.",
        "There is no such file.",
        "```\nDocker is not running\n```",
        "Ünïcödé service is down.",
    ]
)
TEXT = st.lists(st.one_of(st.text(max_size=80), CLAIMY), max_size=12).map(" ".join)
SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(TEXT, st.integers(min_value=0, max_value=100))
def test_validate_never_raises_and_offsets_point_into_text(text, trust):
    result = _V.validate(text, agent_id="prop", trust=trust)
    assert result.verdict in ("pass", "flag", "block")
    assert result.error is None
    for claim in result.claims:
        assert 0 <= claim.offset < len(text)
        assert text[claim.offset : claim.offset + len(claim.matched_text)] == claim.matched_text
        assert 0.0 <= claim.confidence <= 1.0


@SETTINGS
@given(TEXT)
def test_validation_is_idempotent(text):
    first = _V.validate(text, agent_id="prop", trust=30)
    second = _V.validate(text, agent_id="prop", trust=30)
    assert (first.verdict, first.claims, first.fact_checks, first.violations) == (
        second.verdict,
        second.claims,
        second.fact_checks,
        second.violations,
    )


@SETTINGS
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=3000))
def test_arbitrary_unicode_never_raises(text):
    assert _V.validate(text, agent_id="prop").error is None
