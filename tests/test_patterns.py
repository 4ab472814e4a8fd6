"""Pattern safety (RFC §14.1): bounded length, linear-time engine, rejection of ReDoS shapes, timeouts."""

from __future__ import annotations

import pytest

from claimwatch import OutputValidator, PatternError
from claimwatch.core.patterns import DetectorSpec, PatternEngine, backtracking_risk, compile_pattern


def test_re2_compatible_pattern_runs_on_re2_even_with_nested_quantifiers():
    engine, _ = compile_pattern(r"(a+)+b", where="t")
    assert engine == "re2"  # linear time: nested quantifiers are harmless here


def test_lookaround_pattern_falls_back_to_regex_module():
    engine, _ = compile_pattern(r"(?<!not )installed", where="t")
    assert engine == "regex"


@pytest.mark.parametrize("source", [r"(a+)+\1", r"(?=x)(\w+\s?)*$", r"(?<=a)(a|a)*b", r"(?=.)(.*)*x"])
def test_backtracking_shapes_are_rejected_when_re2_cannot_take_them(source):
    with pytest.raises(PatternError, match="backtrack catastrophically"):
        compile_pattern(source, where="t")


@pytest.mark.parametrize("source", [r"(?<!not )installed", r"(?=docker)\w+ is down", r"(\w+) again \1"])
def test_safe_fallback_shapes_are_accepted(source):
    assert backtracking_risk(source) is None


def test_regex_fallback_timeout_skips_pattern_and_is_reported():
    # Backreference forces the backtracking engine; a tiny timeout makes the run time out.
    spec = DetectorSpec(
        id="slow", category="existence", patterns=(r"(?=x)(x[^y]{0,40})+?\1y",), assertion="x", builtin=False
    )
    engine = PatternEngine([spec], regex_timeout_s=1e-7)
    matches, timed_out, _ = engine.scan("x" * 5000)
    assert matches == [] and timed_out == ["slow"]


def test_timed_out_pattern_never_fails_validation():
    v = OutputValidator(
        {
            "validation": {
                "performance": {"regexTimeoutMs": 0.0001},
                "customDetectors": [
                    {"id": "slow", "category": "existence", "patterns": [r"(?=x)(x[^y]{0,40})+?\1y"], "assertion": "x"}
                ],
            }
        }
    )
    result = v.validate("x" * 5000 + " Redis is not running.", agent_id="w", trust=50)
    assert result.patterns_timed_out == ("slow",)
    assert result.verdict == "flag"  # the builtin claim still counts


def test_huge_text_is_bounded_by_max_text_length():
    v = OutputValidator()
    result = v.validate("Redis is not running. " + "a" * 5_000_000, agent_id="w", trust=50)
    assert result.truncated and result.verdict == "flag"


def test_builtin_patterns_all_compile_on_re2():
    from claimwatch.core.detectors import builtin_detectors

    for spec in builtin_detectors():
        for source in spec.patterns:
            assert compile_pattern(source, where=spec.id, trusted=True)[0] == "re2"


def test_split_builtin_patterns_match_span_for_span_like_their_full_form():
    """Patterns ending in the trailing-words fragment run as a head plus anchored steps (for speed);
    on every detector example, with words inserted, they must match exactly where the full pattern does."""
    import random

    from claimwatch import OutputValidator
    from claimwatch.core.patterns import _iter_spans, compile_pattern

    engine = OutputValidator()._engine
    examples = [x for c in engine._compiled for x in c.spec.examples]
    rng = random.Random(7)
    noise = ["`a b`", "'x y'", "\t", "foo.bar", "é", "the", "no", "not", "\n", "n't", "Docker", ":", "..."]
    texts = list(examples)
    for _ in range(400):
        words = rng.choice(examples).split(" ")
        for _ in range(rng.randint(0, 4)):
            words.insert(rng.randint(0, len(words)), rng.choice(noise))
        texts.append(" ".join(words))
    split = [c for c in engine._compiled if c.extend is not None]
    assert split, "no split patterns: the test has nothing to compare"
    for c in split:
        _, full = compile_pattern(c.source, where="test", case_insensitive=c.spec.case_insensitive, trusted=True)
        for text in texts:
            data = text.encode("utf-8")
            expected = [list(map(tuple, s)) for s in _iter_spans(full, data)]
            got = [list(map(tuple, s)) for s in _iter_spans(c.pattern, data, c.extend, c.extend_group)]
            assert got == expected, (c.spec.id, text)
