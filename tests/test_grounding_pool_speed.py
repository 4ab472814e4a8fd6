"""The evidence pool's and the grader's fast paths for new evidence give the answers of the plain forms they
replace (issue 12, speed of the cold case): stems asked one at a time, words gathered without a set per
passage, the grade memo, the region's early stop, the truncation pre-check. Seeded random input."""

from __future__ import annotations

import random
import re

import pytest

from claimwatch.grounding import Grounder, Passage
from claimwatch.grounding.align import _breaks, _region, _sentence
from claimwatch.grounding.digits import date_starts, digit_starts, matches, number_starts
from claimwatch.grounding.evidence import TRUNCATION_MARK, EvidencePool, Hit, looks_truncated
from claimwatch.grounding.grade import grade_claim
from claimwatch.grounding.specifics import _with_initial
from claimwatch.grounding.text import evidence_words, stem
from claimwatch.grounding.values import EV_DATE, EV_NUMBER, EV_TIME

BASES = ("part", "class", "run", "hop", "make", "famil", "stat", "bus", "analys", "fill", "stopp", "agree",
         "quick", "box", "fizz", "see", "tie", "dye", "ski", "x", "ab", "abc", "buzz", "pass", "mess", "ann")  # fmt: skip
ENDS = ("", "s", "es", "ies", "y", "e", "ed", "ing", "ly", "ss", "sses", "ied", "ying", "edly", "ingly", "ness",
        "less", "ess", "ous", "is", "us", "ll", "tt", "ee", "1", "2s")  # fmt: skip


def _vocabulary(rng: random.Random, count: int) -> list[str]:
    words = [b + e for b in BASES for e in ENDS]
    words += [b + e + f for b in BASES for e in ENDS for f in ("s", "ed", "ing", "ly", "e")]
    letters = "aeiouybcdfglmnprsstt"
    words += ["".join(rng.choice(letters) for _ in range(rng.randint(1, 9))) for _ in range(count)]
    words += [str(rng.randint(0, 10**6)) for _ in range(50)]
    return words


@pytest.mark.parametrize("seed", range(4))
def test_a_stem_asked_alone_is_in_the_pool_exactly_when_the_stems_of_all_its_words_hold_it(seed):
    rng = random.Random(seed)
    vocabulary = _vocabulary(rng, 3000)
    pool = EvidencePool([Passage(" ".join(rng.sample(vocabulary, 800)))])
    asked = {stem(w) for w in vocabulary} | {w for w in vocabulary} | {"", "'s", "it's", "off-policy", "zz"}
    for word_stem in asked:
        assert pool.has_stem(word_stem) == (word_stem in pool.stems), word_stem
    for word in vocabulary:
        assert pool.has_word(word) == (word in pool.words or stem(word) in pool.stems), word


def test_every_evidence_word_of_the_pool_has_its_stem_found():
    rng = random.Random(7)
    vocabulary = [w for w in _vocabulary(rng, 5000) if not w.isdigit()]
    pool = EvidencePool([Passage(" ".join(vocabulary))])
    assert all(pool.has_stem(stem(w)) for w in vocabulary)


def test_a_pool_s_words_are_its_passages_words_whether_its_passages_are_new_met_before_or_kept():
    rng = random.Random(3)
    vocabulary = _vocabulary(rng, 400)
    texts = [" ".join(rng.choices(vocabulary, k=rng.randint(0, 60))) + f" tag{seed}" for seed in range(12)]
    grounder = Grounder()
    for end in range(1, len(texts) + 1):  # a growing trace: each pool the earlier passages and one more
        for start in (0, end // 2):
            given = texts[start:end]
            expected = {w for t in given for w in evidence_words(t.lower())}
            assert grounder.pool(given).words == expected
            assert EvidencePool([Passage(t) for t in given]).words == expected


def test_a_repeated_claim_takes_the_grade_a_new_pool_gives_it():
    evidence = ["Reservation RES010 has 1 checked bag and costs $121.", "Mike asked Ann to buy butter."]
    answer = "Ann asks Mike to buy butter. RES010 has 2 bags. Ann asks Mike to buy butter. RES010 has 2 bags."
    grounder = Grounder()
    claims = grounder.claims(answer)
    pool = grounder.pool(evidence)
    once = [grade_claim(c, pool) for c in claims]
    again = [grade_claim(c, pool) for c in claims]
    fresh = [grade_claim(c, Grounder().pool(evidence)) for c in claims]
    assert once == again == fresh
    assert once[0] == once[2] and once[1] == once[3]


def test_the_words_with_an_initial_are_those_a_bucket_per_initial_holds():
    rng = random.Random(5)
    pool = EvidencePool([Passage(" ".join(_vocabulary(rng, 2000)) + " zz9 0x 9a é ÿ")])
    buckets: dict[str, set[str]] = {}
    for w in pool.words:
        buckets.setdefault(w[:1], set()).add(w)
    for initial in {*buckets, "", "A", "é", "\U0010ffff", "{", "/"}:
        found = _with_initial(pool, initial)
        assert sorted(found) == found and set(found) == buckets.get(initial, set()), initial


@pytest.mark.parametrize("ascii_only", [True, False])
def test_numbers_times_and_dates_matched_where_they_can_start_are_the_matches_of_a_scan(ascii_only):
    pieces = ["1", "12", "2024", ",", ".", "-", ":", "/", " ", "\n", "t", "k", "kg", "am", "p.m.", "march", "jan.",
              "3rd", "of", "x", "_", "sed", "p"]  # fmt: skip
    if not ascii_only:  # other letters, spaces and dashes; and digits `re` reads as \\d
        pieces += ["’", "é", "—", "\u2003", "\u00a0", "ſ", "٣", "３", "²"]
    rng = random.Random(13)
    for _ in range(6000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 14)))
        for pattern, starts in ((EV_NUMBER, number_starts), (EV_TIME, digit_starts), (EV_DATE, date_starts)):
            assert [m.span() for m in matches(pattern, text, starts)] == [m.span() for m in pattern.finditer(text)], (
                pattern.pattern[:20], text)


def _plain_region_window(positions: list[tuple[int, int, int]]) -> tuple[int, int]:
    """The sliding window of `_region` as it was: every position visited, counts in a dict."""
    best, best_score, lo, counts = (positions[0][0], positions[0][1]), 0, 0, {}
    for passage, pos, anchor in positions:
        counts[anchor] = counts.get(anchor, 0) + 1
        while positions[lo][0] != passage or pos - positions[lo][1] > 320:
            gone = positions[lo][2]
            counts[gone] -= 1
            if not counts[gone]:
                del counts[gone]
            lo += 1
        if len(counts) > best_score:
            best, best_score = (passage, positions[lo][1] + (pos - positions[lo][1]) // 2), len(counts)
    return best


def _plain_score(positions: list[tuple[int, int, int]]) -> int:
    """The most distinct anchors any window of 320 characters in one passage holds."""
    return max(len({a for p, q, a in positions if p == passage and 0 <= q - pos <= 320}) for passage, pos, _ in positions)


def _plain_region(anchors: tuple[str, ...], pool: EvidencePool) -> Hit | None:
    """`_region` with the plain slide, and the sentence around the window's middle as `_region` cuts it."""
    first = {i: pool.find(a, word=False, limit=6) for i, a in enumerate(anchors)}
    positions = {(h.passage, h.start, i) for i, hits in first.items() for h in hits}
    common = [i for i, hits in first.items() if len(hits) == 6]  # only their first six were looked up
    found = len({i for _, _, i in positions})
    whole = positions and len(anchors) > 1 and _plain_score(sorted(positions)) == found
    if common and len(common) < len(anchors) and not whole:  # near each rare anchor's, every common one's
        for passage, pos, i in list(positions):
            if i in common:
                continue
            text = pool.lower(passage)
            for j in common:
                for m in re.finditer(re.escape(anchors[j]), text):  # no overlaps here: these anchors have none
                    if pos - 320 <= m.start() and m.end() <= pos + len(anchors[i]) + 320:
                        positions.add((passage, m.start(), j))
    positions = sorted(positions)
    if not positions:
        return None
    passage, pos = _plain_region_window(positions) if len(anchors) > 1 else positions[0][:2]
    text = pool.lower(passage)
    around = _plain_sentence(text, pos)
    score = _plain_score(positions) if len(anchors) > 1 else 1
    if score > 1:  # the sentence near the window holding the most distinct anchors, the middle's first
        inside = [(p, a) for q, p, a in positions if q == passage and abs(p - pos) <= 320]
        count = lambda bounds: len({a for p, a in inside if bounds[0] <= p < bounds[1]})  # noqa: E731
        if count(around) < score:
            around = max([around, *(_plain_sentence(text, p) for p, _ in inside)], key=count)
    return Hit(passage, *around)


def _plain_sentence(text: str, pos: int) -> tuple[int, int]:
    cut = text.rfind("\n", max(0, pos - 200), pos)
    dot = max(text.rfind(m, max(0, pos - 200), pos) for m in (". ", "! ", "? "))
    start = max(cut + 1, dot + 2) if max(cut, dot) >= 0 else max(0, pos - 200)
    stop = re.compile(r"[.!?]\s|\n").search(text, pos, min(len(text), pos + 300))
    end = stop.start() + 1 if stop and stop.start() - pos < 300 else min(len(text), pos + 300)
    return start, end


@pytest.mark.parametrize("seed", range(4))
def test_a_sentence_read_from_its_passage_s_breaks_has_the_bounds_the_searches_give(seed):
    """`_sentence` bisects the passage's break places (found once per passage) instead of `rfind` back and a
    search on: the same bounds at every place of texts dense in stops, line breaks and other white space."""
    rng = random.Random(seed)
    pieces = ["word", " ", "  ", ".", "!", "?", ". ", "! ", "? ", "\n", "\t", "\xa0", "\u2028", ".\n", "x" * 120, "é"]
    for _ in range(40):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 160)))
        pool = EvidencePool([Passage(text)])
        lower = pool.lower(0)
        for pos in range(len(lower) + 1):
            assert _sentence(lower, pos, _breaks(pool, 0)) == _plain_sentence(lower, pos), (lower, pos)


@pytest.mark.parametrize("seed", range(6))
def test_the_region_s_slide_stopping_early_finds_the_region_the_whole_slide_finds(seed):
    rng = random.Random(seed)
    words = ["alpha", "beta", "gamma", "delta", "omega", "filler", "more", "text"]
    texts = ["\n".join(" ".join(rng.choices(words, weights=(1, 1, 1, 1, 1, 30, 30, 30), k=rng.randint(1, 40))) + "."
                       for _ in range(rng.randint(1, 12))) for _ in range(rng.randint(1, 5))]  # fmt: skip
    pool = EvidencePool([Passage(t) for t in texts])
    for _ in range(60):
        anchors = tuple(rng.sample(words[:5], rng.randint(1, 4)))
        assert _region(anchors, pool) == _plain_region(anchors, pool), anchors


def test_the_window_the_region_picks_is_the_plain_slide_s_window():
    """The early stop itself, on positions alone: the first window with every found anchor is the best."""
    rng = random.Random(11)
    for _ in range(3000):
        count = rng.randint(2, 4)
        positions = sorted(
            (rng.randint(0, 2), rng.randint(0, 2000), rng.randrange(count)) for _ in range(rng.randint(1, 24))
        )
        most = len({a for _, _, a in positions})
        best, best_score, lo, counts, inside = (positions[0][0], positions[0][1]), 0, 0, [0] * count, 0
        for passage, pos, anchor in positions:  # as `_region` slides
            inside += not counts[anchor]
            counts[anchor] += 1
            while positions[lo][0] != passage or pos - positions[lo][1] > 320:
                counts[positions[lo][2]] -= 1
                inside -= not counts[positions[lo][2]]
                lo += 1
            if inside > best_score:
                best, best_score = (passage, positions[lo][1] + (pos - positions[lo][1]) // 2), inside
                if inside == most:
                    break
        assert best == _plain_region_window(positions)


def test_the_truncation_pre_check_agrees_with_the_mark_pattern():
    rng = random.Random(5)
    pieces = ["...", "…", "[truncated]", "[cut here]", "<truncated>", "[1,234 more characters]", "[5 more lines]",
              ".", "]", ">", "x", " ", "\n", "\t", "\x1c", "\x85", "\u2028", "\u3000", "\xa0", "<TRUNCATED>"]  # fmt: skip
    for _ in range(20_000):
        text = "y" * rng.randint(0, 70) + "".join(rng.choice(pieces) for _ in range(rng.randint(0, 8)))
        assert looks_truncated(text) == (TRUNCATION_MARK.search(text[-60:]) is not None), repr(text)
