"""The value the evidence gives for what a claim quantifies: `"total_baggages": 1` for "2 bags".

A claimed number, time or date no evidence states is contradicted, not merely missing, when the evidence
writes another value right beside the word the claim attaches its value to. These are the patterns of the
evidence's values and that lookup.
"""

from __future__ import annotations

import re

from .claims import Claim
from .evidence import EvidencePool, Hit
from .lexicon import STOPWORDS
from .text import NUMBER_WORDS, SCALES, UNIT_SUFFIXES, Specific, parse_number, stem

_WORD3 = re.compile(r"[a-z]{3,}")


_BREAK_AFTER = re.compile(r"[.!?\n,;{}\[\]]")


_BREAK_BEFORE = re.compile(r"[.!?\n,;:{}]")


# A colon next to a number is a time ("10:30") only with a digit on its other side: grep's and compilers'
# "158:def parse", "http.py:158:" give line numbers that agents quote ("starts at line 158").
# A short range ("3-4 hours", "pages 10-12") gives both its ends; longer hyphenated digit runs stay no number
# (dates, phone numbers, "1-800-555").
_RANGE_END = r"(?![\w/-]|:\d|\.\d)"
EV_NUMBER = re.compile(
    r"(?<![\w./-])(?<!\d:)(?:-(?=\d))?(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?![\w/]|:\d|-\d|\.\d)"
    rf"|(?<![\w./-])\d{{1,3}}(?=-\d{{1,3}}{_RANGE_END})"
    r"|(?:(?<=(?<![\w./-])\d-)|(?<=(?<![\w./-])\d\d-)|(?<=(?<![\w./-])\d\d\d-))\d{1,3}" + _RANGE_END
    # A sed address range's end ("sed -n '100,120p'", "'107,114c\\"): the command letter after it makes it no
    # thousands group, and its start is read as a number already.
    + r"|(?<=\d,)\d+(?=[acdips](?!\w))"
    # A figure with its scale letter attached ("120k", "$1.2m", "4bn"): the figure, whose scale the grader reads
    # after it. ("5m" may be minutes too: either way 5 is what it says.)
    + r"|(?<![\w./-])\d{1,3}(?:,\d{3})*(?:\.\d+)?(?=(?:k|m|mm|mn|mln|bn|b)(?![\w-]))"
    # A figure with its unit attached, as tools print them ("23kg", "512Mi", "39s", "151.2GB", "2h").
    + r"|(?<![\w./-])\d+(?:\.\d+)?(?=" + UNIT_SUFFIXES + r"(?![\w-]))"
)


# A time may follow an ISO date's "t" ("2026-03-04t11:15:00z" once lowercased): no word boundary there.
EV_TIME = re.compile(
    r"(?:\b|(?<=\dt))\d{1,2}:\d{2}(?::\d{2})?(?:\s*[ap]\.?m\.?)?|\b\d{1,2}\s*[ap]\.?m\.?(?![a-z])"
)


# An ISO date may run on into its time ("2024-05-02t06:02:56" once lowercased): no word boundary there.
EV_DATE = re.compile(
    r"\b\d{4}-\d{2}-\d{2}(?:\b|(?=t\d))|\b\d{1,2}/\d{1,2}/\d{2,4}\b"
    r"|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2}(?:st|nd|rd|th)?(?:,?\s+\d{4})?"
    r"|\b\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*(?:,?\s+\d{4})?"
)


# Words next to a number that qualify it rather than name what it counts ("the last 24 hours").
_NOT_KEYS = frozenset(
    "last first next previous within about around over under more less least most only just total new old".split()
)


def keyed_value(spec: Specific, claim: Claim, pool: EvidencePool, region: Hit | None, pattern: re.Pattern,
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
            if _negated_key(hit, pool):
                continue  # "nonfree_baggages": 0 counts the bags that are not free, not the free ones
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


_NEGATING = ("non", "un", "not", "in")
_BOUND = re.compile(r"\b(?:than|at least|at most|up to|no more|no less|over|under|above|below|exceeding)\s*\$?\s*$")


def _negated_key(hit: Hit, pool: EvidencePool) -> bool:
    """Whether the key is the tail of a negated word of its identifier: "free" in `nonfree_baggages`."""
    text = pool.lower(hit.passage)
    start = hit.start
    while start > 0 and text[start - 1].isalpha():
        start -= 1
    return start < hit.start and text[start : hit.start].lstrip("_-") in _NEGATING


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
    if _BOUND.search(text, max(0, m.start() - 14), m.start()):
        return None  # "longer than 3 hours", "at least 2 bags": a bound someone set, not the value
    value = parse_number(m.group()) if pattern is EV_NUMBER else None
    if value is not None and not year_ok and 1900 <= abs(value) <= 2100 and "." not in m.group():
        return None
    return m.group(), Hit(hit.passage, m.start(), m.end())


# The thing a figure counts, read from the claim right after the figure: "three flights", "a 7% raise",
# "2.3 million units", "a five-year lease", "two more doses". (A figure with no noun after it, "rose to
# 38", counts nothing this can read.)
_COUNTED_AFTER = re.compile(
    r"\s*(?:%|percent\b|per cent\b)?(?:\s*(?:thousand|million|billion)\b)?[\s-]+"
    r"(?:(?:more|other|full|extra|separate|different|additional)\s+)?([a-z]{2,})\b",
    re.IGNORECASE,
)
# The same in the evidence, tighter: one space or hyphen apart, as prose writes it (a table's columns are
# further apart, and a figure in one cell counts nothing in the next), at most one word between.
_COUNTED_NEXT = re.compile(r"(?:%| ?percent\b| ?per cent\b)?(?: (?:thousand|million|billion)\b)?[ -](?:[a-z]+ )?([a-z]{2,})")
# A figure right before a noun in the evidence, with at most one word between ("two daily flights"):
# "one" counts here, before a noun ("one checked bag"), though alone it is mostly a pronoun.
_FIGURE_WORDS = {**NUMBER_WORDS, "one": 1}
_FIGURE_BEFORE = re.compile(
    r"(?<![\w.,/:#$€£-])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d{1,4}(?:\.\d+)?|"
    + "|".join(sorted(_FIGURE_WORDS, key=len, reverse=True))
    + r")(?:%| ?percent| ?per cent)?(?: (thousand|million|billion))?[ -](?:([a-z]+) )?$"
)
# The figure is a range's upper end ("82,000 to 86,000 boe"): the noun is counted by the range.
_RANGE_BEFORE = re.compile(r"(?:\d|\b(?:" + "|".join(_FIGURE_WORDS) + r"))\s*%?\s*(?:to|-|–|or|and)\s*$")
_NOT_COUNTED = frozenset("times percent per cent thousand million billion am pm st nd rd th".split())


def counted_noun(claim: Claim, end: int) -> str | None:
    """The noun a claimed figure ending at `end` counts ("flights" of "three flights"), if one follows it."""
    m = _COUNTED_AFTER.match(claim.text, end)
    if m is None:
        return None
    noun = m.group(1).lower()
    return None if noun in STOPWORDS or noun in _NOT_KEYS or noun in _NOT_COUNTED else noun


def counted_otherwise(
    value: float, noun: str, pool: EvidencePool, places: list[Hit] | None, claim: str = ""
) -> tuple[str, Hit] | None:
    """The evidence's own count of `noun` when the claim's figure for it is not the evidence's.

    The claim "three flights" is contradicted when the evidence counts flights with one other figure ("two
    flights each weekday"). `places` are where the evidence writes the claimed figure itself, if it does:
    then it must write it of another noun ("three runs on Saturdays") and never of this one; a figure the
    evidence writes alone (a table's cell, "rose to 38") may be what the claim says. A noun the evidence
    counts with several figures (a list of records), or with figures that add up to the claim's (a total
    the agent worked out), is no contradiction. `places` None: the claimed figure is not in the evidence
    (worked out from other figures, which a count of this very noun overrules). A word between the
    evidence's figure and the noun must be one the claim (`claim`, lowercased) says too."""
    root = stem(noun)
    if len(root) < 2:
        return None
    if places is not None:
        elsewhere = False
        for place in places:
            text = pool.lower(place.passage)
            m = _COUNTED_NEXT.match(text, place.end)
            if m is not None:
                if _same_noun(m.group(1), root):
                    return None  # the evidence says it of this noun too
                elsewhere = elsewhere or m.group(1) not in STOPWORDS
        if not elsewhere:
            return None
    found: dict[float, tuple[str, Hit]] = {}
    total = 0.0
    for hit in pool.lookup(root, False, 8):
        text = pool.lower(hit.passage)
        if hit.start and (text[hit.start - 1].isalnum() or text[hit.start - 1] == "_"):
            continue  # inside another word
        m = _FIGURE_BEFORE.search(text, max(0, hit.start - 28), hit.start)
        if m is None or _RANGE_BEFORE.search(text, max(0, m.start(1) - 12), m.start(1)):
            continue
        if m.group(3) and m.group(3) not in claim:
            continue  # "15 graded credits", "0.28 per kWh": another quantity of the noun than the claim's
        said = m.group(1)
        figure = _FIGURE_WORDS.get(said)
        if figure is None:
            figure = parse_number(said)
            if figure is None or (len(said) == 4 and said.isdigit() and 1900 <= figure <= 2100):
                continue  # no figure, or a year ("Oct 24  2024 tests" of a directory listing)
            figure *= SCALES.get(m.group(2) or "", 1.0)
        end = hit.end
        while end < len(text) and text[end].isalpha():
            end += 1
        total += figure
        found.setdefault(float(figure), (text[m.start(1) : end], Hit(hit.passage, m.start(1), end)))
    if len(found) != 1 or any(close(v, value) for v in found) or close(total, value):
        return None
    return next(iter(found.values()))


def _same_noun(word: str, root: str) -> bool:
    """Whether an evidence word is the claim's noun: same stem, or the same first five letters
    ("accurate" for "accuracy")."""
    return stem(word) == root or (len(word) >= 5 and len(root) >= 5 and word[:5] == root[:5])


def close(a: float, b: float) -> bool:
    """Whether two figures are the same figure (up to float rounding): the one equality every figure check uses."""
    return abs(a - b) <= 1e-6 * max(1.0, abs(a), abs(b))
