"""Detection cannot be evaded by how a claim is spelled (issue 9, item 18), and offsets stay true."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from claimwatch import OutputValidator
from claimwatch.core.normalise import _nothing_to_fold, _suspect, fold, fold_key
from tests.conftest import DOCKER_RUNNING

NODE_FACT = {
    "id": "node-installed",
    "category": "system_state",
    "subject": "Node.js",
    "value": {"type": "state", "state": "installed"},
}


@pytest.fixture(scope="module")
def guarded() -> OutputValidator:
    return OutputValidator({"validation": {"factRegistries": [{"id": "r", "facts": [NODE_FACT, DOCKER_RUNNING]}]}})


EVASIONS = {
    "no-break space": "Node.js\u00a0is not installed.",
    "zero-width space": "Node.js is\u200b not installed.",
    "right-to-left override": "\u202eNode.js is not installed.",
    "NUL": "Node.js is not\x00 installed.",
    "combining mark": "No\u0301de.js is not installed.",
    "Cyrillic homoglyphs": "Nоde.js іs nоt installed.",  # о, і, о are Cyrillic
    "fullwidth letters": "Ｎｏｄｅ.js is not installed.",
    "soft hyphen": "Node.js is not in\u00adstalled.",
    "unclosed fence before it": "Output:\n```\nnode --version\n\nNode.js is not installed.",
}


@pytest.mark.parametrize("text", EVASIONS.values(), ids=EVASIONS.keys())
def test_evasion_is_still_caught_and_blocked_for_an_untrusted_agent(guarded, text):
    result = guarded.validate(text, agent_id="sub", trust=10)
    assert result.verdict == "block", [(c.subject, c.assertion) for c in result.claims]
    assert [f.status for f in result.fact_checks] == ["contradicted"]


@pytest.mark.parametrize("text", EVASIONS.values(), ids=EVASIONS.keys())
def test_claim_offsets_point_into_the_original_text(guarded, text):
    claim = guarded.validate(text, agent_id="sub", trust=10).claims[0]
    assert text[claim.offset : claim.offset + len(claim.matched_text)] == claim.matched_text
    assert "installed" in claim.matched_text.replace("\u00ad", "")


def test_text_after_max_text_length_is_reported_truncated_and_untrusted_output_cannot_pass(guarded):
    text = "All good so far. " * 700 + "Node.js is not installed."
    assert len(text) > 10_000
    untrusted = guarded.validate(text, agent_id="sub", trust=10)
    assert untrusted.truncated and untrusted.verdict == "flag"
    trusted = guarded.validate(text, agent_id="sub", trust=70)
    assert trusted.truncated and trusted.verdict == "pass"


def test_truncated_output_policy_is_set_per_agent():
    v = OutputValidator({"validation": {"agentOverrides": [{"agent": "strict-*", "truncatedOutputPolicy": "block"}]}})
    text = "x " * 6_000
    assert v.validate(text, agent_id="strict-1", trust=50).verdict == "block"
    assert v.validate(text, agent_id="other", trust=50).verdict == "pass"


def test_closed_fence_still_hides_its_content(validator):
    assert validator.detect("```\nNode.js is not installed.\n```") == []


def test_unclosed_fence_hides_code_lines_but_not_the_prose_after_them(validator):
    text = "```python\ndef main():\n    # node is not installed.\n    return 1\n\nRedis is not running on this host."
    assert [c.subject for c in validator.detect(text)] == ["Redis"]


def test_folding_plain_ascii_returns_the_text_itself():
    text = "Docker is not running."
    folded = fold(text)
    assert folded.text is text and not folded.changed


def test_folding_maps_every_position_back_into_the_original():
    text = "a\u200bb\u0301 ﬁle \u00a0Ｘ"
    folded = fold(text)
    assert folded.text == "ab file  X"
    for i in range(len(folded.text) + 1):
        assert 0 <= folded.start(i) <= len(text)
    start, end = folded.span(0, len(folded.text))
    assert (start, end) == (0, len(text))


def test_subject_keys_fold_like_detection():
    assert fold_key("No\u0301de.JS") == fold_key("node.js") == "node.js"
    assert fold_key("Zürich") == "zurich"


# Characters around the shortcut of `fold` that reads only the non-ASCII characters: combining
# marks that compose with ASCII letters (and with "=" or "<"), marks of other blocks, Hangul
# jamo that compose with each other, compatibility forms, typographic punctuation, controls.
_TRICKY = (
    "ae=<> \n\t.\u0301\u0302\u0338\u0327\u0323\u3099\u309a\u0951\u093c\u05b0\u1100\u1161\u11a8\uac00"
    "\ufb01\uff21\u00e9\u2019\u2014\u25cf\u00a0\u200b\x00\x0b\u0430"
)


@given(st.text(alphabet=_TRICKY, max_size=12))
@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
def test_fold_shortcut_agrees_with_the_whole_text_checks_when_text_mixes_ascii_and_marks(text):
    data = text.encode("utf-8")
    assert _nothing_to_fold(text, data) == (unicodedata.is_normalized("NFKC", text) and not _suspect(data))


def test_fold_shortcut_keeps_a_mark_that_composes_with_the_ascii_letter_before_it():
    # Alone, the accent is NFKC; after "e" it composes: the text must still be folded.
    assert fold("Cafe\u0301 is not running.").text == "Cafe is not running."
    assert fold("\u1100a\u1161 \u25cf").changed is False
