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
                # Only the pattern's own timeout is under test: a whole-output budget a loaded machine can
                # overrun would drop the builtin claim too (seen once in a suite run at load 12).
                "performance": {"regexTimeoutMs": 0.0001, "maxEvalUs": 60_000_000},
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


def test_widened_set_sources_pick_every_pattern_that_matches_and_only_those_on_ascii():
    """The pattern set runs builtin patterns with their Unicode classes widened (it compiles
    faster); a pattern must never be missed, and on ASCII text none may be picked in vain."""
    import random

    import re2

    from claimwatch import OutputValidator
    from claimwatch.core.patterns import widened

    engine = OutputValidator()._engine
    builtin = [c for c in engine._compiled if c.spec.builtin and c.engine == "re2"]
    examples = [x for c in builtin for x in c.spec.examples]
    rng = random.Random(11)
    texts = list(examples)
    for example in examples:
        words = example.split(" ")
        words[rng.randrange(len(words))] = rng.choice(["Ünïcode", "данные", "名前", "①", "naïve", "e\u0301"])
        texts.append(" ".join(words))
    for c in builtin:
        wide = widened(c.set_source)
        assert wide is not None, c.spec.id
        flags = "(?i)" if c.spec.case_insensitive else ""
        exact, loose = re2.compile(flags + c.set_source), re2.compile(flags + wide)
        for text in texts:
            found, picked = exact.search(text) is not None, loose.search(text) is not None
            assert picked or not found, (c.spec.id, text)
            if text.isascii():
                assert picked == found, (c.spec.id, text)


def test_runs_that_search_with_the_widened_twin_find_what_the_pattern_alone_finds():
    """Builtin patterns search with a widened twin first and again with themselves where the twin's
    match reads non-ASCII text: matches and groups must be those of the pattern alone, on ASCII text
    and on text where the twin matches more (a non-ASCII capital, letter or digit next to a trigger)."""
    import dataclasses
    import random

    from claimwatch.core.patterns import _CharOffsets

    engine = OutputValidator()._engine
    twins = [c for c in engine._compiled if c.wide is not None]
    assert twins, "no pattern has a widened twin: the test has nothing to compare"
    examples = [x for c in twins for x in c.spec.examples]
    rng = random.Random(13)
    odd = ["Ünïcode", "ÆØx", "данные", "名前", "①", "naïve", "e\u0301", "“q”", "’s", "Ωmega", "٣"]
    texts = list(examples)
    for _ in range(3):
        for example in examples:
            words = example.split(" ")
            for _ in range(rng.randint(1, 3)):
                words.insert(rng.randint(0, len(words)), rng.choice(odd))
            texts.append(" ".join(words) + " " + example)
    for c in twins:
        alone = dataclasses.replace(c, wide=None)
        for text in texts:
            data = text.encode("utf-8")
            to_char = None if len(data) == len(text) else _CharOffsets(text, data)
            expected = engine._run_re2(alone, text, data, to_char)
            assert engine._run_re2(c, text, data, to_char) == expected, (c.spec.id, text)


def test_widened_leaves_alone_what_it_cannot_widen_safely():
    from claimwatch.core.patterns import widened

    assert widened(r"[^\p{L}]x") is None  # widening inside a negated class would narrow it
    assert widened(r"\P{L}") is None
    assert widened(r"\p{Greek}") is None
    assert widened(r"a\p{L}b") == r"a[a-zA-Z\x{80}-\x{10FFFF}]b"
    assert widened(r"[\p{N}_]") == r"[0-9\x{80}-\x{10FFFF}_]"


def test_validators_with_the_same_detectors_share_one_engine_and_others_get_their_own():
    # Compiling and warming the builtins takes over a second: a reload or another processor with the same detectors
    # reuses the engine (it holds nothing that changes after construction); other detectors get an engine of theirs.
    first, again = OutputValidator(), OutputValidator({"validation": {"performance": {"maxEvalUs": 9000}}})
    assert first._engine is again._engine
    custom = {"validation": {"customDetectors": [
        {"id": "zorp", "category": "system_state", "patterns": [r"\bzorp is (?P<state>glorped)\b"], "assertion": "{state}"}
    ]}}  # fmt: skip
    other = OutputValidator(custom)
    assert other._engine is not first._engine
    assert [c.detector_id for c in other.detect("The zorp is glorped.")] == ["zorp"]
    assert [c.detector_id for c in first.detect("The zorp is glorped.")] == []
    assert OutputValidator(custom)._engine is other._engine


def test_the_picker_picks_the_patterns_a_set_over_the_same_sources_picks():
    # The engine picks with sets over the patterns that combine well and RE2's FilteredRE2 over the rest
    # (one set's automaton over all kept building states on real text): same answers as a set over all.
    import json
    from pathlib import Path

    import re2

    from claimwatch.core.patterns import _SET_OPTIONS, _SplitPicker, set_matches, widened

    engine = OutputValidator()._engine
    (_, picker), = engine._sets
    assert type(picker) is _SplitPicker
    sources = []
    for i in engine._re2_ids:
        c = engine._compiled[i]
        source = (widened(c.set_source) or c.set_source) if c.spec.builtin else c.set_source
        sources.append(f"(?i){source}" if c.spec.case_insensitive else source)
    rset = re2.Set.SearchSet(_SET_OPTIONS)
    for source in sources:
        rset.Add(source)
    rset.Compile()
    data = Path(__file__).resolve().parent.parent / "benchmarks" / "data"
    texts = [json.loads(line)["text"] for name in ("agent_real_dev", "tool_real_dev", "web_real")
             for line in (data / name / "messages.jsonl").open(encoding="utf-8")]  # fmt: skip
    picked = 0
    for text in texts[::3]:
        want = sorted(set_matches(rset, text.encode("utf-8")))
        assert sorted(set_matches(picker, text.encode("utf-8"))) == want, text[:80]
        picked += len(want)
    assert picked > 100


@pytest.mark.parametrize("set_size, sets", [(48, [[0, 1, 2], [3, 4, 5]]), (2, [[0, 1, 2], [3], [4, 5]])])
def test_sets_pick_the_patterns_a_filter_cannot_filter_and_those_at_a_word_boundary_with_the_same_answers(
    monkeypatch, set_size, sets
):
    import re2

    from claimwatch.core import patterns
    from claimwatch.core.patterns import _SET_OPTIONS, _compile_picker, _SplitPicker, set_matches

    monkeypatch.setattr(patterns, "_SET_SIZE", set_size)
    # No literal word of three characters in the first three: the filter would run them on every text.
    # The next three start at a word boundary; the last at a sentence, and stays with the filter.
    sources = [r"(?i)\b(?:is|'s)\s+up\b", r"\bno\s+\w+", r"(?i)^-\s+ok$", r"(?i)\bdocker\s+is\s+running",
               r"(?i)\bnot\s+installed\b", r"(?i)\bdeploy(?:ed|ment)\s+failed",
               r"(?i)(?:^|[.!?]\s+)(?P<subject>\w+)\s+crashed"]  # fmt: skip
    picker = _compile_picker(sources)
    assert type(picker) is _SplitPicker
    assert [ids for ids, _ in picker._sets] == sets
    assert picker._from_filter == [6]
    rset = re2.Set.SearchSet(_SET_OPTIONS)
    for source in sources:
        rset.Add(source)
    rset.Compile()
    for text in ["docker is running, nginx is up", "- ok", "no luck: node not installed", "", "the deployment failed",
                 "nothing here", "Docker's up; deployed failed. Redis crashed", "It crashed"]:  # fmt: skip
        data = text.encode("utf-8")
        assert sorted(set_matches(picker, data)) == sorted(set_matches(rset, data)), text
        assert sorted(set_matches(picker, text)) == sorted(set_matches(rset, data)), text


def test_a_table_with_no_pattern_for_a_set_is_picked_by_the_filter_alone():
    import re2

    from claimwatch.core.patterns import _compile_picker

    sources = [r"(?i)(?:^|\n)docker\s+is\s+running", r"(?i)`[^`]+`\s+not\s+installed"]
    assert type(_compile_picker(sources)) is re2.Filter
