"""Properties over arbitrary text: offsets point into the text, nothing raises, results are stable."""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from claimwatch import OutputValidator
from claimwatch.core.claims import BEFORE_WINDOW, _rejected_before, end_anchored, positional
from claimwatch.core.detectors import builtin_detectors
from claimwatch.core.model import Claim

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


# The words the builtin `reject_before` expressions turn on, and what sits around them.
_LEAD_WORDS = st.sampled_from([
    *"when whenever if unless until once would will should shall 'll 'd to still also now really "
    "quickly the build it fails . ; , ! ? \n \t".split(" "), "\n", "\t", "  ", "Once", "WHEN", "IF",
])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_LEAD_WORDS, max_size=14), st.sampled_from([" ", "", "\t", "  "]))
def test_reject_before_gives_pythons_answer_when_the_window_is_ascii(words, tail):
    window = (" ".join(words) + tail)[-BEFORE_WINDOW:]
    for spec in builtin_detectors():
        if spec.reject_before:
            # anchored as a whole, at the very end (Python's `$` would also match before a final newline)
            python = re.compile(end_anchored(spec.reject_before), re.IGNORECASE)
            assert _rejected_before(spec.reject_before, window) == (python.search(window) is not None)


@given(st.text(max_size=20), st.integers(), st.booleans(), st.floats(allow_nan=False), st.none() | st.text(max_size=5))
def test_positional_constructor_builds_the_same_claim_as_the_dataclass(text, offset, negative, confidence, role):
    args = ("system_state", "d", text, offset, text[:3], "running", negative, confidence, role)
    names = "category detector_id matched_text offset subject assertion negative confidence role"
    made = positional(Claim, names)(*args)
    assert made == Claim(*args) and type(made) is Claim and repr(made) == repr(Claim(*args))
    # Fields named out of the model's order are passed by keyword: the same claim again.
    swapped = positional(Claim, names.replace("category detector_id", "detector_id category"))
    assert swapped(*(args[1], args[0], *args[2:])) == Claim(*args)
    # Fields left out take their defaults.
    assert positional(Claim, names.removesuffix(" role"))(*args[:-1]) == Claim(*args[:-1])
