"""Grade one claim against the evidence pool: GROUNDED, INFERRED or FABRICATED, with citations and a reason.

The grader reads the structure of the claim rather than its surface: each
specific (number, amount, date, time, id, code, name, URL, status) is looked
up; a number the evidence does not state may still be derived (a sum, a
difference, a product, a unit change); a claim's polarity, antonyms and
closed-class words are compared with the passage it aligns to. Every
FABRICATED grade says what was claimed and what the evidence says instead,
or that no evidence states it.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from functools import lru_cache

from rapidfuzz import fuzz

from ..core.claims import positional
from .claims import OPINION_KIND, REASONING_KIND, Claim
from .digits import date_starts, digit_starts, matches, number_starts
from .evidence import ANCHOR_LIMIT, EvidencePool, Hit, new_hit
from .lexicon import (
    ANTONYMS,
    CLOSED_CLASS,
    HYPOTHETICAL,
    NEGATING_PREFIXES,
    NEGATION,
    OPPOSED_PREFIXES,
    STATUS_GROUPS,
    STOPWORDS,
)
from .text import Folded, Specific, parse_date, parse_number, parse_time, stem
from .trace import AGENT_ACTION

_HYPHEN = re.compile(r"[-'’]")
_WORD3 = re.compile(r"[a-z]{3,}")
_BREAK_AFTER = re.compile(r"[.!?\n,;{}\[\]]")
_BREAK_BEFORE = re.compile(r"[.!?\n,;:{}]")
GROUNDED, INFERRED, FABRICATED = "GROUNDED", "INFERRED", "FABRICATED"

_EV_NUMBER = re.compile(r"(?<![\w.:/-])(?:-(?=\d))?(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?![\w:/]|-\d|\.\d)")
_EV_TIME = re.compile(r"\b\d{1,2}:\d{2}(?::\d{2})?(?:\s*[ap]\.?m\.?)?|\b\d{1,2}\s*[ap]\.?m\.?(?![a-z])")
# An ISO date may run on into its time ("2024-05-02t06:02:56" once lowercased): no word boundary there.
_EV_DATE = re.compile(
    r"\b\d{4}-\d{2}-\d{2}(?:\b|(?=t\d))|\b\d{1,2}/\d{1,2}/\d{2,4}\b"
    r"|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2}(?:st|nd|rd|th)?(?:,?\s+\d{4})?"
    r"|\b\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*(?:,?\s+\d{4})?"
)
# Where each pattern read by `_parsed` can start (`digits`): its matches are looked for only there.
_STARTS = {_EV_TIME: digit_starts, _EV_DATE: date_starts}
_FAILED_COUNT = (
    re.compile(
        r"\b[1-9]\d*[ \t]+(?:failed|failures?|errors?|failing)\b|\bfailed \((?:failures|errors)=[1-9]|^failed\b", re.M
    ),
    re.compile(r"(?<!expected )\bfailures=[1-9]|\berrors=[1-9]"),
)
_SENT_BREAK = re.compile(r"[.!?]\s|\n")
_NEGATION = Folded(NEGATION)  # on the pool's lowercased text: the case-sensitive compile where it is ASCII


@dataclass(frozen=True, slots=True)
class Grade:
    """The grade of one claim, its evidence and why."""

    grade: str | None  # GROUNDED | INFERRED | FABRICATED | None (not graded: opinion, or no evidence)
    evidence: tuple[Hit, ...]
    reason: str
    confidence: float
    issue: str | None = None  # what kind of thing was unsupported: money, number, date, name, negation, ...


# Every graded claim makes one: set its slots directly (`positional`).
_new_grade = positional(Grade, "grade evidence reason confidence issue")


@dataclass(frozen=True, slots=True)
class _Problem:
    issue: str
    reason: str
    confidence: float
    hit: Hit | None


def grade_claim(claim: Claim, pool: EvidencePool) -> Grade:
    """Grade one FACTUAL claim. Opinions and reasoning are labelled, not graded; with no evidence nothing is
    GROUNDED."""
    if claim.kind == OPINION_KIND:
        return Grade(None, (), "opinion: needs no evidence", 1.0)
    if claim.kind == REASONING_KIND:  # issue 12 grades FACTUAL claims: a conclusion the agent draws is no report
        return Grade(None, (), "reasoning: an inference the agent draws, not graded as a fact", 1.0)
    if not pool:
        return Grade(None, (), "no evidence", 0.0)
    # A claim met again (said twice in an output, or by another output graded against this pool) is graded
    # once: its grade reads the claim's text, kind, negation, content words and specifics, not its place.
    # Kept by text (a string hashes once), the rest compared on a hit: hashing specifics costs more.
    kept, grade = _remembered(pool, "grades", claim.text, lambda: (claim, _grade(claim, pool)))
    return grade if _same_reading(kept, claim) else _grade(claim, pool)


def _same_reading(a: Claim, b: Claim) -> bool:
    """Whether two claims of the same text read the same to the grader (all but their place in the output)."""
    return a.kind == b.kind and a.negated == b.negated and a.content == b.content and a.specifics == b.specifics


def _grade(claim: Claim, pool: EvidencePool) -> Grade:
    """`grade_claim` for a FACTUAL claim against a pool with evidence."""
    support: list[Hit] = []
    problems: list[_Problem] = []
    derived: list[str] = []
    # The word checks below read the same words: their stems and whether the evidence has them, once.
    words = [w for w in claim.content if len(w) > 2]
    stems = list(map(stem, words))
    known = {w: pool.has_word(w) for w in claim.content if len(w) > 1}
    region = _align(claim, pool, words, stems)
    for spec in claim.specifics:
        _check_specific(spec, claim, pool, region, support, problems, derived)
    _check_words(claim, pool, region, problems, words, known)
    if region is not None:
        _check_polarity(claim, pool, region, problems, words, stems)
    action = _own_action(support, pool)
    if region is not None and not support:
        support.append(region)
    if problems:
        problems = [_weigh(p, pool) for p in problems]
        worst = max(problems, key=lambda p: p.confidence)
        cites = tuple(p.hit for p in problems if p.hit is not None)
        return _new_grade(FABRICATED, cites, "; ".join(p.reason for p in problems), worst.confidence, worst.issue)
    if action is not None:
        reason = f"rests on the agent's own action ({action}): what it ran or wrote, not what a tool returned"
        return _new_grade(INFERRED, tuple(support), reason, 0.7, "own_action")
    if derived:
        return _new_grade(INFERRED, tuple(support), "; ".join(derived), 0.8, "derived")
    found, total = _content_support(claim, pool, known)  # only now: a grade settled above does not read it
    ratio = found / total if total else 1.0
    has_specific = any(s.kind not in ("status",) for s in claim.specifics)
    if has_specific:  # every specific it states was found (a missing one is a problem above)
        reason = f"supported: every specific found; {found} of {total} content words"
        return _new_grade(GROUNDED, tuple(support), reason, 0.9, None)
    if ratio >= 0.5:
        reason = f"supported: {found} of {total} content words in the evidence"
        return _new_grade(GROUNDED, tuple(support), reason, 0.9, None)
    if found == 0 and total >= 2 and _documents(pool):
        # Against documents (a summary, a RAG answer), a statement none of whose words the documents
        # use is unsupported, not a paraphrase. Tool output is another matter: agents rightly add what
        # they know about the tools they run, so there it stays a weak INFERRED.
        reason = f"unsupported: no evidence uses any of its {total} content words"
        return _new_grade(FABRICATED, tuple(support), reason, 0.5, "unsupported")
    if total and ratio < 0.2:  # nothing contradicts it and nothing states it: a loose paraphrase at best
        reason = f"weak support: {found} of {total} content words in the evidence"
        return _new_grade(INFERRED, tuple(support), reason, 0.4, "paraphrase")
    return _new_grade(
        INFERRED, tuple(support), f"paraphrase: {found} of {total} content words in the evidence", 0.6, "paraphrase"
    )


_DOCUMENTS = frozenset(("evidence", "retrieval"))


def _documents(pool: EvidencePool) -> bool:
    """Whether the pool holds documents (given evidence, retrieved passages) rather than only tool output
    and messages."""
    return _remembered(pool, "documents", None, lambda: any(p.source in _DOCUMENTS for p in pool.passages))


def _own_action(support: list[Hit], pool: EvidencePool) -> str | None:
    """The citation of the agent's own earlier action a specific was found in, if any.

    An action (a command it ran, a file it wrote, a tool call's arguments) shows what the agent did, so a
    detail taken from it is not FABRICATED; but it is not what a tool returned (the command may have failed,
    the file may differ), so the claim is INFERRED, not GROUNDED. Actions come after all other evidence in
    the pool, so a specific found there first is one no tool result or user message states."""
    for hit in support:
        passage = pool.passages[hit.passage]
        if passage.source == AGENT_ACTION:
            return passage.cite
    return None


def _weigh(problem: _Problem, pool: EvidencePool) -> _Problem:
    """What a user said is weaker ground for a contradiction than what a tool returned."""
    if problem.hit is not None and pool.passages[problem.hit.passage].source == "user_message":
        return _Problem(problem.issue, problem.reason, problem.confidence * 0.85, problem.hit)
    return problem


# --- alignment ----------------------------------------------------------------------------


def _align(claim: Claim, pool: EvidencePool, words: list[str], stems: list[str]) -> Hit | None:
    """The evidence region most of the claim's words and specifics point to (`words`: the content words
    of three letters or more, `stems` theirs)."""
    anchors: list[str] = []
    for spec in claim.specifics:
        if spec.kind == "name":
            anchors.extend(spec.value)  # type: ignore[arg-type]
        elif spec.kind in _ANCHOR_KINDS:
            anchors.append(str(spec.value))
    if anchors:
        has = pool.words
        anchors = [a for a in anchors if a in has]
    found = [s for w, s in zip(words, stems, strict=True) if len(w) > 3 and pool.has_stem(s)]
    if found:
        found.sort(key=len, reverse=True)
        anchors.extend(found)
    if not anchors:
        return None
    key = tuple(dict.fromkeys(anchors))[:4]
    return _remembered(pool, "regions", key, lambda: _region(key, pool))


_MEMO_LIMIT = 8192  # entries per table: a pool reused by many outputs keeps its memos bounded
_MISSING = object()


def _remembered(pool: EvidencePool, table: str, key, compute):
    """`compute()`, remembered in the pool's cache under `table` and `key`; for answers that are a
    pure function of the pool and the key. A full table is cleared rather than grown."""
    memo = pool.cache.setdefault(table, {})
    found = memo.get(key, _MISSING)
    if found is _MISSING:
        if len(memo) >= _MEMO_LIMIT:
            memo.clear()
        found = memo[key] = compute()
    return found


_ANCHOR_KINDS = frozenset(("id", "email", "url", "code"))


def _region(anchors: tuple[str, ...], pool: EvidencePool) -> Hit | None:
    """The sentence around the densest cluster of anchors: most distinct anchors within 320 characters."""
    positions: list[tuple[int, int, int]] = []  # (passage, pos, anchor index)
    for i, anchor in enumerate(anchors):
        positions.extend([(h.passage, h.start, i) for h in pool.lookup(anchor, False, ANCHOR_LIMIT)])
    if not positions:
        return None
    positions.sort()
    best, best_score = (positions[0][0], positions[0][1]), 0
    if len(anchors) > 1:
        # The first window holding every anchor found is the answer: only a window with more distinct
        # anchors replaces the best one, so the slide stops there.
        most = len({anchor for _, _, anchor in positions})
        lo = 0
        counts = [0] * len(anchors)  # anchor -> occurrences inside the sliding window
        inside = 0  # distinct anchors inside the window
        for passage, pos, anchor in positions:
            if not counts[anchor]:
                inside += 1
            counts[anchor] += 1
            while positions[lo][0] != passage or pos - positions[lo][1] > 320:
                gone = positions[lo][2]
                counts[gone] -= 1
                if not counts[gone]:
                    inside -= 1
                lo += 1
            if inside > best_score:
                best, best_score = (passage, positions[lo][1] + (pos - positions[lo][1]) // 2), inside
                if inside == most:
                    break
    passage, pos = best
    text = pool.lower(passage)
    cut = text.rfind("\n", max(0, pos - 200), pos)
    dot = max(text.rfind(". ", max(0, pos - 200), pos), text.rfind("! ", max(0, pos - 200), pos),
              text.rfind("? ", max(0, pos - 200), pos))  # fmt: skip
    start = max(cut + 1, dot + 2) if max(cut, dot) >= 0 else max(0, pos - 200)
    stop = _SENT_BREAK.search(text, pos, min(len(text), pos + 300))
    end = stop.start() + 1 if stop and stop.start() - pos < 300 else min(len(text), pos + 300)
    return new_hit(passage, start, end)


def _content_support(claim: Claim, pool: EvidencePool, known: dict[str, bool]) -> tuple[int, int]:
    """(content words the evidence has, content words); `known` says which words it has."""
    words = [w for w in claim.content if len(w) > 1 and not w.isdigit()]
    return len([w for w in words if known[w] or _hyphen_parts(w, pool)]), len(words)


def _hyphen_parts(word: str, pool: EvidencePool) -> bool:
    if "-" not in word and "'" not in word and "’" not in word:
        return False  # one part: nothing to look up
    parts = [p for p in _HYPHEN.split(word) if len(p) > 1]
    return len(parts) > 1 and all(pool.has_word(p) for p in parts)


# --- specifics ----------------------------------------------------------------------------


def _check_specific(spec, claim, pool, region, support, problems, derived) -> None:
    kind = spec.kind
    if kind in ("number", "money", "percent", "year"):
        _check_number(spec, claim, pool, region, support, problems, derived)
    elif kind == "time":
        _check_parsed(spec, pool, _EV_TIME, parse_time, "time", support, problems, region, claim)
    elif kind == "date":
        _check_date(spec, pool, support, problems, region, claim)
    elif kind in ("id", "email", "url", "code"):
        needle = str(spec.value)
        hits = pool.find(needle, word=kind != "url", limit=2)
        if not hits and kind == "url":
            hits = pool.find(needle.rstrip("/"), word=False, limit=2)
        if hits:
            support.append(hits[0])
        else:  # inline code is often the agent's own proposal, not a report of what it saw
            problems.append(_missing(kind, spec.text, pool, region, confidence=0.65 if kind == "code" else 0.9))
    elif kind == "name":
        _check_name(spec, pool, support, problems, region, claim.text)
    elif kind == "status":
        _check_status(spec, claim, pool, region, support, problems)


def _missing(kind: str, claimed: str, pool: EvidencePool, region: Hit | None, contrast: str | None = None,
             hit: Hit | None = None, confidence: float = 0.9) -> _Problem:  # fmt: skip
    """A specific the evidence does not state: contradicted when the passage the claim rests on says
    something else, otherwise missing. Cut evidence lowers the confidence (it may be beyond the cut)."""
    cut = " (some evidence was cut short: it may be beyond the cut)" if pool.any_truncated else ""
    factor = 0.7 if cut else 1.0
    if contrast is not None and hit is not None:
        cite = pool.passages[hit.passage].cite
        near = region is not None and hit.passage == region.passage and abs(hit.start - region.start) <= 400
        return _Problem(
            kind, f"claimed {claimed}; {cite} says {contrast}{cut}", confidence * factor * (1 if near else 0.85), hit
        )
    # Nothing says otherwise: FABRICATED by the rule (a specific no evidence supports), but below the default
    # flag threshold, since the agent may know it from a prompt or a result the trace did not record.
    return _Problem(
        kind, f"claimed {kind} {claimed}: no evidence states it{cut}", min(confidence, 0.75) * factor, region
    )


def _numbers(pool: EvidencePool, index: int) -> list[tuple[float, int, int]]:
    memo = pool.memo(index)
    found = memo.get("numbers")
    if found is None:
        text = pool.lower(index)
        found = []
        for m in matches(_EV_NUMBER, text, number_starts):
            value = parse_number(m.group())
            if value is not None and not _list_marker(text, m.start(), m.end()):
                found.append((value, m.start(), m.end()))
        memo["numbers"] = found
    return found


# A numbered list's item marker: "\n2. Always use the right arguments" says no quantity. smolagents' system
# prompt numbers its rules, so any claim's 1 to 10 was "found" there and the claim GROUNDED.
_MARKER_AFTER = re.compile(r"[.)][ \t]")


def _list_marker(text: str, start: int, end: int) -> bool:
    if not _MARKER_AFTER.match(text, end):
        return False
    line = text.rfind("\n", 0, start) + 1
    return not text[line:start].strip() and text[start:end].isdigit()


def _all_numbers(pool: EvidencePool) -> list[tuple[float, int, int, int]]:
    """Every number of the pool as (value, start, end, passage), in passage and text order."""
    found = pool.cache.get("numbers")
    if found is None:
        found = pool.cache["numbers"] = [(v, s, e, i) for i in range(len(pool)) for v, s, e in _numbers(pool, i)]
    return found


def _by_value(pool: EvidencePool) -> tuple[list[float], list[int]]:
    """The pool's numbers sorted by value (values, and their places in `_all_numbers`)."""
    found = pool.cache.get("by_value")
    if found is None:
        every = _all_numbers(pool)
        order = sorted(range(len(every)), key=lambda i: every[i][0])
        found = pool.cache["by_value"] = ([every[i][0] for i in order], order)
    return found


def _first_equal(value: float, percent: bool, pool: EvidencePool) -> int | None:
    """The first number of the pool (in text order) `_close` to `value` (or to it as a percent of 1).

    Looked up by value: every finite number `_close` to `value` lies within 2e-6 * max(1, |value|) of
    it (and of value / 100 for a percent), so only those few, and any huge ones, are tested, not every
    number of the pool."""
    every = _all_numbers(pool)
    if not math.isfinite(value):
        return next((i for i, n in enumerate(every) if _close(n[0], value) or (percent and _close(n[0] * 100, value))),
                    None)  # fmt: skip
    keys, order = _by_value(pool)
    tol = 2e-6 * max(1.0, abs(value))
    places = [j for target in ((value, value / 100) if percent else (value,))
              for j in range(bisect_left(keys, target - tol), bisect_right(keys, target + tol))]  # fmt: skip
    # A huge figure overflows `_close` to true (inf <= inf) for any value: tested wherever it is.
    lo, hi = 0, len(keys) - 1
    while lo <= hi and abs(keys[lo]) >= _HUGE:
        places.append(lo)
        lo += 1
    while hi >= lo and abs(keys[hi]) >= _HUGE:
        places.append(hi)
        hi -= 1
    best = None
    for j in places:
        i = order[j]
        v = every[i][0]
        if (best is None or i < best) and (_close(v, value) or (percent and _close(v * 100, value))):
            best = i
    return best


_HUGE = 1e306  # above this, v * 100 (or v itself) may be infinite


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-6 * max(1.0, abs(a), abs(b))


def _check_number(spec: Specific, claim, pool, region, support, problems, derived) -> None:
    value = float(spec.value)  # type: ignore[arg-type]
    everywhere = _all_numbers(pool)
    first = _first_equal(value, spec.kind == "percent", pool)
    if first is not None:
        _, s, e, index = everywhere[first]
        support.append(Hit(index, s, e))
        return
    # A rounded figure ("about 3.5" for 3.47) is the evidence's figure.
    decimals = len(spec.text.split(".")[1].rstrip("%")) if "." in spec.text else 0
    for v, s, e, index in everywhere:
        if v and round(v, decimals) == value and abs(v - value) / abs(v) < 0.05:
            derived.append(f"{spec.text} rounds {_fmt(v)} from {pool.passages[index].cite}")
            support.append(Hit(index, s, e))
            return
    small = value.is_integer() and 0 <= value <= 10 and spec.kind == "number"
    how = None if small else _derive(value, everywhere, region)
    if how is None and not small and len(claim.specifics) > 1:  # only then: the common path pays nothing
        operands = _operands(spec, claim, pool)
        how = _derive(value, everywhere, region, operands) if operands else None
    if how is not None:
        reason, hits = how
        derived.append(f"{spec.text} = {reason}")
        support.extend(hits)
        return
    contrast = _contrast_number(spec, claim, pool, region)
    confidence = 0.6 if small else 0.9
    if contrast is not None:
        shown, hit = contrast
        problems.append(_missing(spec.kind, spec.text, pool, region, shown, hit, confidence))
    else:
        problems.append(_missing(spec.kind, spec.text, pool, region, confidence=confidence))


def _fmt(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else f"{v:g}"


_UNIT_FACTORS = (60.0, 24.0, 7.0, 12.0, 100.0, 1000.0, 1_000_000.0)


def _operands(spec: Specific, claim: Claim, pool: EvidencePool) -> list[Hit]:
    """Where the claim's other figures are in the evidence ("$123 + $167 = $290": the 123 and the 167):
    the passages a derived figure most likely comes from, whatever passage the claim's words align to."""
    found: list[Hit] = []
    everywhere = _all_numbers(pool)
    for other in claim.specifics:
        if other is spec or other.kind not in ("number", "money", "percent") or len(found) >= 3:
            continue
        first = _first_equal(float(other.value), other.kind == "percent", pool)  # type: ignore[arg-type]
        if first is not None:
            _, s, e, index = everywhere[first]
            found.append(Hit(index, s, e))
    return found


def _nearest(numbers: list[tuple[float, int, int, int]], at: Hit, count: int = 40) -> list:
    """The `count` numbers nearest a place: in its passage first, by distance."""
    return sorted(numbers, key=lambda n: (n[3] != at.passage, abs(n[1] - at.start)))[:count]


def _derive(value: float, numbers: list[tuple[float, int, int, int]], region: Hit | None, operands: list[Hit] = ()):
    """value as a sum, difference, product, multiple or unit change of evidence numbers (nearest first).

    The candidates are the 40 numbers nearest the aligned region and the 40 nearest each of the claim's
    other figures found in the evidence (at most three): bounded, yet a sum of two prices listed in another
    passage than the one the claim's words align to is found. Linear in the candidates: each one's partner
    is looked up in a dict of values, not paired with every other number."""
    near = _nearest(numbers, region) if region is not None else numbers[:40]
    if operands:
        seen = set(near)
        for at in operands:
            near.extend(n for n in _nearest(numbers, at) if n not in seen and not seen.add(n))
    at: dict[float, tuple[float, int, int, int]] = {}
    for n in near:
        at.setdefault(round(n[0], 6), n)

    def hit(n):
        return Hit(n[3], n[1], n[2])

    for n in near:
        v = n[0]
        for factor in _UNIT_FACTORS:
            if v and _close(v * factor, value):
                return f"{_fmt(v)} in other units (x{_fmt(factor)})", [hit(n)]
            if v and _close(v / factor, value):
                return f"{_fmt(v)} in other units (x1/{_fmt(factor)})", [hit(n)]
    for n in near:
        a = n[0]
        for partner, how in ((value - a, "+"), (a - value, "-"), (a + value, "r")):
            m = at.get(round(partner, 6))
            if m is None or m is n:
                continue
            if how == "+":
                return f"{_fmt(a)} + {_fmt(m[0])}", [hit(n), hit(m)]
            if value:
                big, small = (n, m) if how == "-" else (m, n)
                return f"{_fmt(big[0])} - {_fmt(small[0])}", [hit(big), hit(small)]
        if a not in (0, 1):
            m = at.get(round(value / a, 6))
            if m is not None and m is not n and m[0] not in (0, 1):
                return f"{_fmt(a)} x {_fmt(m[0])}", [hit(n), hit(m)]
    for n in near[:12]:
        for times in range(2, 10):
            if n[0] > 1 and _close(n[0] * times, value):
                return f"{times} x {_fmt(n[0])}", [hit(n)]
    total = sum(n[0] for n in near[:12])
    if len(near) >= 3 and _close(total, value):
        return "the sum of " + " + ".join(_fmt(n[0]) for n in near[:12]), [hit(n) for n in near[:12]]
    return None


def _contrast_number(spec: Specific, claim: Claim, pool: EvidencePool, region: Hit | None):
    """The evidence's own figure for what the claim quantified ("bags" -> "total_baggages": 1)."""
    return _contrast(spec, claim, pool, region, _EV_NUMBER, money=spec.kind == "money", year_ok=spec.kind == "year")


# Words next to a number that qualify it rather than name what it counts ("the last 24 hours").
_NOT_KEYS = frozenset(
    "last first next previous within about around over under more less least most only just total new old".split()
)


def _contrast(spec: Specific, claim: Claim, pool: EvidencePool, region: Hit | None, pattern: re.Pattern,
              money: bool = False, year_ok: bool = True):  # fmt: skip
    """The value the evidence gives right next to the word the claim attaches its value to.

    Keys are the word just after the claimed value (its unit: "2 bags") and the word just before it
    ("created on 2024-05-01", "line 84"); the evidence value must sit within a few characters of the
    key, as in `"total_baggages": 1` or "10 hours", so an unrelated figure in the same passage is not
    taken for the evidence's answer."""
    keys: list[str] = []
    if money:  # an amount contrasts only with what the evidence says a price or total is
        keys.extend(_MONEY_KEYS)
    else:
        after = [w for w in _WORD3.findall(claim.text[spec.end : spec.end + 24].lower()) if w not in STOPWORDS][:2]
        before = [w for w in _WORD3.findall(claim.text[max(0, spec.start - 30) : spec.start].lower())
                  if w not in STOPWORDS][-1:]  # fmt: skip
        keys.extend(stem(w) for w in [*after[::-1], *before] if w not in STOPWORDS and w not in _NOT_KEYS)
    claim_stems = frozenset(stem(w) for w in claim.content)
    for key in dict.fromkeys(k for k in keys if len(k) > 2):
        hits = pool.find(key, word=False, limit=6)
        if region is not None:
            hits.sort(key=lambda h: (h.passage != region.passage, abs(h.start - region.start)))
        scored: list[tuple[int, str, Hit]] = []
        for hit in hits:
            if money and not _names_money(hit, pool):
                continue
            value = _value_at(hit, pool, pattern, year_ok)
            if value is not None:
                scored.append((_qualifiers(hit, pool, claim_stems), value[0], value[1]))
        if not scored:
            continue
        best = min(q for q, _, _ in scored)
        values = {v: h for q, v, h in scored if q == best}
        if len(values) == 1:  # the evidence gives one answer for this key; several (a list of flights) is no answer
            return next(iter(values.items()))
    return None


_MONEY_KEYS = ("price", "amount", "cost", "total", "fee", "balance", "refund", "paid", "charge")


def _names_money(hit: Hit, pool: EvidencePool) -> bool:
    """Whether the identifier a money key sits in names an amount: `total_price`, `refund` do;
    `total_baggages` (a count of bags) does not, though "total" is in it. Its last part decides."""
    return _identifier(hit, pool).rsplit("_", 1)[-1].startswith(_MONEY_KEYS)


def _identifier(hit: Hit, pool: EvidencePool) -> str:
    """The lowercased identifier (letters, digits, `_`) the hit sits in: `total_baggages` for "total"."""
    text = pool.lower(hit.passage)
    start, end = hit.start, hit.end
    while start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_"):
        start -= 1
    while end < len(text) and (text[end].isalnum() or text[end] == "_"):
        end += 1
    return text[start:end]


def _qualifiers(hit: Hit, pool: EvidencePool, claim_stems: frozenset[str]) -> int:
    """How many words of the identifier around a key the claim does not say ("nonfree_baggages" for "bags":
    one, and a negating one counts double), so "total_baggages" wins over "nonfree_baggages"."""
    text = pool.lower(hit.passage)
    extra = 0
    for part in _identifier(hit, pool).split("_"):
        if not part or part in text[hit.start : hit.end] or stem(part) in claim_stems or part in ("total", "id"):
            continue
        extra += 2 if part.startswith(("non", "un", "not")) else 1
    return extra


def _value_at(hit: Hit, pool: EvidencePool, pattern: re.Pattern, year_ok: bool) -> tuple[str, Hit] | None:
    """The value written right after (or right before) a key occurrence, if any."""
    if True:
        if True:
            text = pool.lower(hit.passage)
            key_end = hit.end
            while key_end < len(text) and (text[key_end].isalpha() or text[key_end] == "_"):
                key_end += 1  # the rest of the key: "baggag" -> "baggages", "creat" -> "created_at"
            m = pattern.search(text, key_end, min(len(text), key_end + 16))
            if m is None or _BREAK_AFTER.search(text[key_end : m.start()].replace('",', "")):
                back = pattern.search(text, max(0, hit.start - 12), hit.start)
                if back is None or _BREAK_BEFORE.search(text[back.end() : hit.start]):
                    return None
                m = back
            value = parse_number(m.group()) if pattern is _EV_NUMBER else None
            if value is not None and not year_ok and 1900 <= abs(value) <= 2100 and "." not in m.group():
                return None
            return m.group(), Hit(hit.passage, m.start(), m.end())
    return None


def _parsed(pool: EvidencePool, index: int, pattern: re.Pattern, parse) -> list[tuple[object, int, int]]:
    """Every match of `pattern` in one passage with its parsed value, memoised per passage text."""
    memo = pool.memo(index)
    key = (pattern.pattern, parse)
    found = memo.get(key)
    if found is None:
        found = memo[key] = [(parse(m.group()), m.start(), m.end())
                             for m in matches(pattern, pool.lower(index), _STARTS[pattern])]  # fmt: skip
    return found


def _check_parsed(spec, pool, pattern, parse, kind, support, problems, region, claim=None) -> None:
    for index in range(len(pool)):
        for value, start, end in _parsed(pool, index, pattern, parse):
            if value == spec.value:
                support.append(Hit(index, start, end))
                return
    if kind == "time" and isinstance(spec.value, int) and spec.value % 60 == 0:
        hour = spec.value // 60
        for h in {hour, hour % 12 or 12}:  # "7 pm" from "let's make it 7"
            hits = pool.find(str(h), limit=1)
            if hits:
                support.append(hits[0])
                return
    contrast = _contrast(spec, claim, pool, region, pattern) if claim is not None else None
    if contrast is not None:
        problems.append(_missing(kind, spec.text, pool, region, contrast[0], contrast[1], 0.85))
    else:
        problems.append(_missing(kind, spec.text, pool, region, confidence=0.85))


def _check_date(spec, pool, support, problems, region, claim=None) -> None:
    month, day, year = spec.value
    for index in range(len(pool)):
        for value, start, end in _parsed(pool, index, _EV_DATE, _evidence_date):
            if (
                value is not None
                and value[0] == month
                and value[1] == day
                and (year is None or value[2] in (None, year))
            ):
                support.append(Hit(index, start, end))
                return
    contrast = _contrast(spec, claim, pool, region, _EV_DATE) if claim is not None else None
    if contrast is not None:
        problems.append(_missing("date", spec.text, pool, region, contrast[0], contrast[1], 0.85))
    else:
        problems.append(_missing("date", spec.text, pool, region, confidence=0.85))


def _evidence_date(raw: str) -> tuple[int, int, int | None] | None:
    kind = "iso_date" if raw[:4].isdigit() and raw[4:5] == "-" else "slash_date" if "/" in raw else "month_date"
    return parse_date(kind, raw)


_GLOSS = re.compile(r"\s*\(([^()]{1,40})\)")


def _check_name(spec, pool, support, problems, region, claim_text: str = "") -> None:
    gloss = _GLOSS.match(claim_text, spec.end) if "(" in claim_text else None
    if gloss and pool.find(gloss.group(1).strip(), limit=1):
        return  # "Miami (MIA)": a gloss of something the evidence states, not a new name
    missing = []
    for word in spec.value:
        if pool.has_word(word):
            continue
        if len(word) >= 5 and _near_spelling(word, pool):
            continue  # a typo or spelling variant of a name the evidence has
        if len(word) <= 6 and _acronym(word, pool):
            continue
        missing.append(word)
    if not missing:
        support.extend(pool.lookup(spec.value[0], True, 1))
        return
    shown = " ".join(missing)
    reason = f"names '{shown}', which no evidence mentions"
    confidence = 0.6 if spec.unit == "initial" else 0.7
    if pool.any_truncated:
        reason += " (some evidence was cut short)"
        confidence *= 0.7
    problems.append(_Problem("name", reason, confidence, region))


def _near_spelling(word: str, pool: EvidencePool) -> bool:
    """Whether the pool has a word spelt nearly as `word` (remembered per pool: a name recurs)."""
    return _remembered(pool, "near_spellings", word, lambda: any(
        abs(len(w) - len(word)) <= 2 and fuzz.ratio(word, w) >= 88 for w in _by_initial(pool).get(word[:1], ())
    ))


def _by_initial(pool: EvidencePool) -> dict[str, list[str]]:
    """The pool's words by first character, so a near-spelling is looked for among a few words, not all."""
    found = pool.cache.get("by_initial")
    if found is None:
        found = {}
        for w in pool.words:
            found.setdefault(w[:1], []).append(w)
        pool.cache["by_initial"] = found
    return found


def _acronym(word: str, pool: EvidencePool) -> bool:
    """ "NS-CL" or "CNN": the letters start consecutive evidence words."""
    letters = re.sub(r"[^a-z]", "", word.lower()).rstrip("s")
    if len(letters) < 2 or len(letters) > 6:
        return False
    return _remembered(pool, "acronyms", letters, lambda: pool.search(_acronym_pattern(letters)))


@lru_cache(maxsize=1024)
def _acronym_pattern(letters: str) -> re.Pattern:
    """Words starting with `letters` in a row, joined by spaces, hyphens or a small word ("of", "the").
    The first letter leads, its word boundary checked by the lookbehind after it, so `re` jumps to it."""
    joint = r"[\w]*[\s-]+(?:(?:of|the|and|for|a|an)\s+)?"
    return re.compile(letters[0] + r"(?<!\w.)" + joint + joint.join(letters[1:]))


_PARTIAL = re.compile(r"\b(?:other|rest|remaining|some|most|except|apart from|besides|existing)\b", re.I)
_TESTISH = re.compile(
    r"\b(?:tests?|test suite|specs?|checks?|builds?|ci|pipeline|suite|pytest|jest|assertions?)\b", re.I
)
_COMMAND_OUTPUT = re.compile(
    r"\b\d+ (?:passed|failed|errors?)\b|\bran \d+ tests?\b|^(?:ok|failed)\b|\btests? (?:passed|failed)\b|={3,} .*(?:passed|failed)",
    re.I | re.M,
)


_WORLD = frozenset({"tool_result", "tool_message", "retrieval", "evidence"})


def _latest_run(pool: EvidencePool) -> int | None:
    """The newest tool output that reads like a command or test run: earlier failures may be fixed since."""
    for index in range(len(pool) - 1, -1, -1):
        p = pool.passages[index]
        if p.source in ("tool_result", "tool_message") and _COMMAND_OUTPUT.search(pool.lower(index)):
            return index
    return None


def _check_status(spec, claim, pool, region, support, problems) -> None:
    group, state = spec.value
    negated = bool(NEGATION.search(claim.text[max(0, spec.start - 16) : spec.start]))
    if group == 0:
        _check_run_status(spec, claim, pool, state, negated, support, problems)
        return
    same = pool.find_any(STATUS_GROUPS[group][state], limit=2)
    if same and not negated:
        support.append(same[0])
        return
    for other, words in enumerate(STATUS_GROUPS[group]):
        if other == state:
            continue
        hits = [
            h
            for h in pool.find_any(words, limit=4)
            if (region is None or h.passage == region.passage) and pool.passages[h.passage].source in _WORLD
        ]
        if hits:
            if negated:
                support.append(hits[0])
                return
            hit = hits[0]
            said = pool.lower(hit.passage)[hit.start : hit.end]
            cite = pool.passages[hit.passage].cite
            problems.append(_Problem("status", f"claimed {spec.text}; {cite} says {said}", 0.85, hit))
            return


def _check_run_status(spec, claim, pool, state, negated, support, problems) -> None:
    """ "All tests pass" against the newest run: a failure count there contradicts it."""
    if not _TESTISH.search(claim.text) or HYPOTHETICAL.search(claim.text) or _PARTIAL.search(claim.text):
        return  # "passes the body to", "the test should pass": not a report of a run's outcome
    index = _latest_run(pool)
    if index is None:
        return
    text = pool.lower(index)
    failed = _FAILED_COUNT[0].search(text) or _FAILED_COUNT[1].search(text)
    says_pass = not negated and state == 0
    # The run the claim reports on is most likely the newest one; older runs may predate a fix.
    newest = index == max((i for i, p in enumerate(pool.passages) if p.source in _WORLD), default=index)
    confidence = 0.85 if newest else 0.7
    if says_pass and failed:
        hit = Hit(index, failed.start(), failed.end())
        cite = pool.passages[index].cite
        problems.append(_Problem("status", f"claimed {spec.text}; {cite} says {failed.group()}", confidence, hit))
    elif failed:
        support.append(Hit(index, failed.start(), failed.end()))
    elif not says_pass:
        passed = re.search(r"\b\d+ passed\b|^ok\b|all tests passed|\bran \d+ tests? in [\d.]+s\s+ok\b", text, re.M)
        if passed and not negated:
            hit = Hit(index, passed.start(), passed.end())
            cite = pool.passages[index].cite
            problems.append(
                _Problem("status", f"claimed {spec.text}; {cite} says {passed.group()}", confidence - 0.05, hit)
            )


# --- words: antonyms, closed classes, polarity -----------------------------------------------


def _check_words(claim: Claim, pool: EvidencePool, region: Hit | None, problems: list[_Problem], words: list[str],
                 known: dict[str, bool]) -> None:  # fmt: skip
    """Antonyms and closed-class substitutes of a claim word, in the passage region the claim rests on."""
    if region is None or pool.passages[region.passage].source == AGENT_ACTION:
        return  # a command or a file the agent wrote is no statement of what is so
    unknown = [w for w in words if not (known[w] or ("-" in w and pool.lookup(w, True, 1)))]
    if not unknown:
        return  # the evidence has every word: nothing was swapped
    # The opposite must sit in the passage the claim rests on: about a paragraph of a document, a few lines
    # of a tool's output.
    radius = 800 if pool.passages[region.passage].source in ("evidence", "retrieval") else 200
    window = pool.lower(region.passage)[max(0, region.start - radius) : region.end + radius]
    lowered = claim.text.lower()
    swapped: list[tuple[str, str]] = []
    classed: list[tuple[str, str, str]] = []
    classed_here: list[str] | None = None  # the window's closed-class words, in order, read at the first need
    for word in unknown:
        opposite = _opposite_in(word, pool)
        if (
            opposite is not None
            and _in_window(opposite, window)
            and not _compound(opposite, word, lowered)
            and not _in_window(opposite, lowered)
        ):
            swapped.append((word, opposite))
            continue
        cls = CLOSED_CLASS.get(word)
        if cls is not None:
            if classed_here is None:
                classed_here = _closed_class_words(pool, region, radius, window)
            other = next((w for w in classed_here if CLOSED_CLASS[w] == cls and w != word), None)
            if other is not None:
                classed.append((word, other, cls))
    if not (swapped or classed):
        return
    # The claim must rest on this passage: its other words (and the swapped ones' opposites) are here.
    near = sum(1 for w in words if stem(w) in window) + len(swapped) + len(classed)
    if near / len(words) < 0.6:
        return
    # An antonym in prose is a swapped word; in a log or a stack trace it is mostly a fixed phrase
    # ("most recent call last"), so it is recorded there below the flag threshold.
    confidence = 0.8 if pool.passages[region.passage].source in ("evidence", "retrieval") else 0.6
    for word, opposite in swapped:
        hit = next((h for h in pool.find(opposite, limit=8) if h.passage == region.passage), region)
        cite = pool.passages[hit.passage].cite
        problems.append(_Problem("antonym", f"claimed '{word}'; {cite} says '{opposite}'", confidence, hit))
    for word, other, cls in classed:
        hit = next((h for h in pool.find(other, limit=8) if h.passage == region.passage), region)
        cite = pool.passages[hit.passage].cite
        problems.append(_Problem(cls, f"claimed '{word}'; {cite} says '{other}'", 0.8, hit))


_WORDS = re.compile(r"[a-z]+")


def _closed_class_words(pool: EvidencePool, region: Hit, radius: int, window: str) -> list[str]:
    """The closed-class words of `window` (the region with `radius` around it), in order; remembered per
    pool and window, since the claims of one passage share their region."""
    return _remembered(pool, "closed_class_words", (region, radius),
                       lambda: [w for w in _WORDS.findall(window) if w in CLOSED_CLASS])


def _in_window(word: str, window: str) -> bool:
    at = window.find(word)
    while at != -1:
        before = window[at - 1] if at else " "
        after = window[at + len(word)] if at + len(word) < len(window) else " "
        if not (before.isalnum() or before == "_") and not (after.isalnum() or after == "_"):
            return True  # a whole word, not part of an identifier such as nonfree_baggages
        at = window.find(word, at + 1)
    return False


def _compound(opposite: str, word: str, claim: str) -> bool:
    """'non-free' written as 'non' + 'free' is the evidence's 'nonfree', not its opposite."""
    for prefix in NEGATING_PREFIXES:
        if opposite == prefix.rstrip("-") + word and re.search(
            rf"\b{re.escape(prefix.rstrip('-'))}[- ]?{re.escape(word)}\b", claim
        ):
            return True
    return False


def _opposite_in(word: str, pool: EvidencePool) -> str | None:
    """`_opposite`, remembered per pool: a pure function of the word and the pool's words."""
    return _remembered(pool, "opposites", word, lambda: _opposite(word, pool))


def _opposite(word: str, pool: EvidencePool) -> str | None:
    words = pool.words
    for other in ANTONYMS.get(word, ()):
        if other in words or ("-" in other and pool.find(other, limit=1)):
            return other
    for prefix in NEGATING_PREFIXES:
        if word.startswith(prefix) and len(word) - len(prefix) >= 4:
            base = word[len(prefix) :]
            if base in words:
                return base
        if prefix + word in words:
            return prefix + word
    return _opposed_prefix(word, pool)


_OPPOSED_STARTS = tuple(p for pair in OPPOSED_PREFIXES for p in pair)


def _opposed_prefix(word: str, pool: EvidencePool) -> str | None:
    """The same stem behind the opposite prefix, as the evidence writes it ("post-stimulus" for "pre-stimulus")."""
    if not word.startswith(_OPPOSED_STARTS):
        return None  # most words start with none of the prefixes: one test instead of one per prefix
    for a, b in OPPOSED_PREFIXES:
        for mine, other in ((a, b), (b, a)):
            if not word.startswith(mine):
                continue
            rest = word[len(mine) :]
            hyphen = rest.startswith("-")
            rest = rest.lstrip("-")
            if len(rest) < 4:  # "up" + "on" is no prefix
                continue
            for candidate in (other + "-" + rest, other + rest) if hyphen else (other + rest, other + "-" + rest):
                if candidate in pool.words or ("-" in candidate and pool.find(candidate, limit=1)):
                    return candidate
    return None


def _check_polarity(claim: Claim, pool: EvidencePool, region: Hit, problems: list[_Problem], words: list[str],
                    stems: list[str]) -> None:  # fmt: skip
    """A negated claim aligned to a passage that states the same thing without negation (and back)."""
    if len(words) < 2:
        return
    source = pool.passages[region.passage].source
    if source in ("user_message", AGENT_ACTION):
        return  # what the user said, or what the agent ran, is no evidence of what is or is not so
    text = pool.lower(region.passage)
    lo = max(0, region.start - 160)
    window = text[lo : region.end + 160]
    near = len([s for s in stems if s in window])
    # Word polarity reads prose (documents) well and tool output (JSON, code, logs) poorly: ask more there.
    prose = source in ("evidence", "retrieval")
    if near / len(words) < (0.5 if prose else 0.7) or len(words) < (2 if prose else 3):
        return
    # Polarity is read from words, not parsed: a hint, recorded below the default flag threshold.
    scope = text[region.start : region.end] if prose else window  # a document's own sentence; a log's surroundings
    if claim.negated and not _NEGATION.search(scope, scope):
        cite = pool.passages[region.passage].cite
        problems.append(
            _Problem("negation", f"the claim is negated; the passage it rests on ({cite}) is not", 0.6, region)
        )
        return
    if prose and not claim.negated:
        sentence = text[region.start : region.end]
        on = len([s for s in stems if s in sentence])
        if on / len(words) >= 0.7 and _NEGATION.search(sentence, sentence):
            cite = pool.passages[region.passage].cite
            reason = f"the passage it rests on ({cite}) is negated; the claim is not"
            problems.append(_Problem("negation", reason, 0.55, region))
