"""Grounding's fast paths give the same answers as the plain forms they replace (issue 12, speed).

Each fast path (kept evidence pools, case-folded patterns, patterns rewritten to start with a
character class, numbers looked up by value, one-pass word splitting) is checked against the
plain form on seeded random input; `benchmarks/bench_grounding.py` measures what they save.
"""

from __future__ import annotations

import random
import re

import pytest

from claimwatch.grounding import Grounder, Passage
from claimwatch.grounding.claims import _CLAUSE, _SENTENCE_END
from claimwatch.grounding.decision import _ends_whole
from claimwatch.grounding.engine import _KEPT_POOLS, _KEPT_SPLITS
from claimwatch.grounding.evidence import EvidencePool
from claimwatch.grounding.lexicon import STATUS_PATTERN, STATUS_STATE
from claimwatch.grounding.numbers import _all_numbers, _close, _first_equal
from claimwatch.grounding.specifics import _acronym_pattern
from claimwatch.grounding.text import (
    _LINE_LEAD,
    _START,
    _STATUS,
    EVIDENCE_WORDS,
    NAME,
    SPECIFIC,
    WORD,
    Folded,
    _letter_runs,
    _lowercase_elsewhere,
    _opens,
    _specific_matches,
    _status_spans,
    evidence_words,
    lower_words,
)

PIECES = (
    "Ann", "NASA", "NASAs", "Mike", "A", "and", "And", "but", "though", " ", "  ", "\t", "\n", ";", ",", ".",
    "!", "?", '"', ")", "(", "*", "-", "_", "1", "9", "x", "s", "'", "’", "é", "É", "ſ", "K", "\x1c",
    "not installed", "On Time", "passed", "FAILED",
)  # fmt: skip


def texts(seed: int, count: int = 4000) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(PIECES) for _ in range(rng.randint(0, 14))) for _ in range(count)]


REPLY = "Reservation ZFA04Y has 1 checked bag and costs $121. The flight HAT069 departs on 2024-05-20."
EVIDENCE = [
    '{"reservation_id": "ZFA04Y", "flights": [{"flight_number": "HAT069", "date": "2024-05-20", "price": 121}]}',
    '{"total_baggages": 2, "nonfree_baggages": 1}',
]


def test_a_kept_evidence_pool_grades_exactly_as_a_new_one_when_the_same_evidence_comes_again():
    kept = Grounder()
    first, again = kept.ground(REPLY, EVIDENCE), kept.ground(REPLY, list(EVIDENCE))
    fresh = Grounder().ground(REPLY, [Passage(t, key=str(i)) for i, t in enumerate(EVIDENCE)])
    assert kept.pool(EVIDENCE) is kept.pool(list(EVIDENCE))
    for report in (again, fresh):
        assert [(c.claim.text, c.grade) for c in report.claims] == [(c.claim.text, c.grade) for c in first.claims]


def test_kept_pools_are_bounded_and_other_evidence_gets_its_own_pool():
    grounder = Grounder()
    pools = [grounder.pool([f"{EVIDENCE[0]} {i}"]) for i in range(_KEPT_POOLS + 3)]
    assert len({id(p) for p in pools}) == len(pools)
    assert len(grounder._pools) == _KEPT_POOLS


@pytest.mark.parametrize("pattern", [STATUS_PATTERN, re.compile(r"\b(?:should|maybe)\b|n't\b", re.IGNORECASE)])
def test_a_folded_pattern_finds_what_the_case_insensitive_one_finds_on_ascii_and_other_text(pattern):
    folded = Folded(pattern)
    for text in texts(1):
        assert folded.spans(text) == [m.span() for m in pattern.finditer(text)]
        assert folded.search(text) == (pattern.search(text) is not None)
        assert folded.match(text) == (pattern.match(text) is not None)


def test_folded_refuses_a_pattern_that_is_case_sensitive_or_has_upper_case_letters():
    with pytest.raises(ValueError, match="IGNORECASE"):
        Folded(re.compile(r"\bAnn\b", re.IGNORECASE))
    with pytest.raises(ValueError, match="IGNORECASE"):
        Folded(re.compile(r"ann"))


def test_names_clause_breaks_and_sentence_ends_match_their_plain_forms_when_rewritten_for_speed():
    name = re.compile(r"\b[A-Z][a-z]+(?:[ -][A-Z][a-z]+)*\b|\b[A-Z]{2,}[a-z]?s?\b")
    clause = re.compile(r";\s+|,?\s+(?:and|but|while|whereas|although|though)\s+(?=\S)", re.IGNORECASE)
    sentence_end = re.compile(r"(?<=[.!?])[\"')\]*]*\s+(?=[\"'(\[*]*[A-Z0-9])")
    for text in texts(2):
        assert [m.span() for m in NAME.finditer(text)] == [m.span() for m in name.finditer(text)]
        cut = len(text) // 2
        assert [m.span() for m in _CLAUSE.finditer(text, 1, cut)] == [m.span() for m in clause.finditer(text, 1, cut)]
        # the rewritten sentence end starts at the stop character, one before the plain form's match
        assert [(m.start() + 1, m.end()) for m in _SENTENCE_END.finditer(text)] == [
            m.span() for m in sentence_end.finditer(text)
        ]


def test_evidence_words_split_as_the_word_pattern_does_on_any_text():
    for text in texts(3):
        lower = text.lower()
        assert evidence_words(lower) == EVIDENCE_WORDS.findall(lower)


def test_a_claimed_number_is_found_by_value_where_a_scan_of_the_evidence_finds_it():
    rng = random.Random(4)
    shapes = (lambda: str(rng.randint(0, 50)), lambda: f"{rng.uniform(0, 100):.{rng.randint(0, 7)}f}",
              lambda: "3.1415926", lambda: "3.14159261", lambda: "1,000.50", lambda: "9" * rng.randint(1, 320))  # fmt: skip
    for _ in range(300):
        pool = EvidencePool([Passage(" ".join(rng.choice(shapes)() for _ in range(20))) for _ in range(3)])
        every = _all_numbers(pool)
        for value in [n[0] for n in rng.sample(every, 5)] + [3.1415926, 314.15926, 50.0, float("inf")]:
            for percent in (False, True):
                scanned = next(
                    (i for i, n in enumerate(every) if _close(n[0], value) or (percent and _close(n[0] * 100, value))),
                    None,
                )
                assert _first_equal(value, percent, pool) == scanned


def test_a_finished_answer_is_read_from_its_last_character_as_the_end_anchored_pattern_reads_it():
    pattern = re.compile(r"[.!?:)\]\"'`*|>…]$|\d$|```$|[\U0001F300-\U0001FAFF]$")
    rng = random.Random(5)
    marks = [*".!?:)]\"'`*|>…", "a", "1", "٣", "²", "```", "``", "\U0001f300", "\U0001faff", "\U0001fb00", "\n", " "]
    for _ in range(20_000):
        tail = "".join(rng.choice(marks) for _ in range(rng.randint(1, 8))).rstrip()
        if tail:
            assert _ends_whole(tail) == (pattern.search(tail) is not None)


def test_an_acronym_is_found_in_one_search_of_the_pool_as_passage_by_passage_with_the_plain_pattern():
    rng = random.Random(6)
    words = ["national", "security", "council", "of", "the", "cnn", "news", "ns-cl", "an", "n", "_n", "1n", "é"]
    for _ in range(3000):
        passages = [
            "".join(rng.choice(words) + rng.choice([" ", "", "-", "\n"]) for _ in range(rng.randint(0, 8)))
            for _ in range(rng.randint(1, 3))
        ]
        pool = EvidencePool([Passage(t) for t in passages])
        letters = "".join(rng.choice("nscx") for _ in range(rng.randint(2, 4)))
        plain = re.compile(r"\b" + r"[\w]*[\s-]+(?:(?:of|the|and|for|a|an)\s+)?".join(letters) + r"\w*")
        expected = any(plain.search(pool.lower(i)) for i in range(len(pool)))
        assert pool.search(_acronym_pattern(letters)) == expected


SPECIFIC_PIECES = (
    "May", "may", "Sept", ".", " ", "  ", "\n", "\t", "20", "1", "2024", "-", "05", "/", ":", "usd", "USD", "$",
    "€", "£", "`", "@", "_", "www.", "WWW.", "w", "ww", "http", "http:", "Http:", "https://", "s:", "x.org", "a",
    "ann", "ſ", "K", "٣", "²", "am", "pm", "%", "percent", ",", "th", "of", "June", "ab12", "AB12CD", "+", "(",
    ")", '"', "'", "é", "dollars",
)  # fmt: skip


@pytest.mark.parametrize("ascii_only", [True, False])
def test_specifics_tried_only_near_their_triggers_are_the_matches_of_a_scan_of_the_whole_text(ascii_only):
    pieces = [p for p in SPECIFIC_PIECES if p.isascii() or not ascii_only]
    rng = random.Random(7)
    for _ in range(20_000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 16)))
        assert [(m.span(), m.lastgroup) for m in _specific_matches(text)] == [
            (m.span(), m.lastgroup) for m in SPECIFIC.finditer(text)
        ]


def test_status_words_found_by_their_tokens_are_the_matches_of_the_status_pattern():
    pieces = [*STATUS_STATE, "on", "not", "time", " ", "  ", "-", "_", "x", "1", ".", "\n", "Up", "DOWN", "é", "ſ"]
    rng = random.Random(8)
    for _ in range(20_000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 10)))
        assert list(_status_spans(text, text.lower())) == _STATUS.spans(text, text.lower())


def test_a_name_word_is_written_in_lower_case_elsewhere_exactly_when_it_is_one_of_the_letter_runs():
    for text in texts(9, 8000):
        runs = _letter_runs(text)
        if runs is None:
            assert not text.isascii()
            continue
        for m in NAME.finditer(text):
            for word in m.group().replace("-", " ").split(" "):
                assert (word.lower() in runs) == _lowercase_elsewhere(word, text)


def test_a_kept_split_gives_the_claims_a_new_split_gives_when_the_same_output_comes_again():
    grounder = Grounder()
    first = grounder.claims(REPLY)
    again = grounder.ground(REPLY, EVIDENCE)
    assert [c.claim for c in again.claims] == first == Grounder().claims(REPLY)
    first.clear()  # a caller's list is its own: the kept claims are not changed through it
    assert grounder.claims(REPLY) == Grounder().claims(REPLY)


def test_kept_splits_are_bounded():
    grounder = Grounder()
    for i in range(_KEPT_SPLITS + 5):
        grounder.claims(f"{REPLY} {i}")
    assert len(grounder._splits) == _KEPT_SPLITS


def test_words_split_in_one_pass_are_the_word_pattern_s_words_on_lowercased_and_other_text():
    for text in texts(10):
        for given in (text, text.lower()):
            plain = WORD.findall(given) if not given.isascii() else re.compile(WORD.pattern).findall(given)
            assert lower_words(given) == plain


def test_a_sentence_opening_is_settled_before_the_search_as_the_search_settles_it():
    pieces = [*'.!?:;*()"“-•#1 \t\n', "**", "x", "ab", "é", "\u2003", "\n    *   ", "    "]
    rng = random.Random(11)
    for _ in range(50_000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 10))) + "Ann"
        for start in range(1, len(text) + 1):
            whole_rule = _START.search(text, max(0, start - 6), start) is not None or (
                _LINE_LEAD.fullmatch(text, text.rfind("\n", 0, start) + 1, start) is not None
            )  # the six characters before it, or an indented list item's whole lead
            assert _opens(text, start) == whole_rule
