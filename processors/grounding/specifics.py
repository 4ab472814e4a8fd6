"""Each specific of a claim looked up in the evidence: times, dates, ids, codes, URLs, names, statuses.

Numbers have their own module (`numbers`); this one dispatches every kind and checks the rest. A test-run
status ("all tests pass") is read against the newest run the agent saw.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from functools import lru_cache

from rapidfuzz import fuzz

from .digits import date_starts, digit_starts, matches
from .evidence import EvidencePool, Hit
from .lexicon import HYPOTHETICAL, NEGATION, STATUS_GROUPS
from .numbers import check_number
from .places import airport_code, place_alias
from .problems import Problem, missing_specific, remembered
from .text import MONTH_NAMES, NUMBER_WORDS, QUARTER_WORDS, day_range_month, parse_date, parse_time
from .values import EV_DATE, EV_TIME, counted_noun, counted_otherwise, keyed_value

# Where each pattern read by `_parsed` can start (`digits`): its matches are looked for only there.
_STARTS = {EV_TIME: digit_starts, EV_DATE: date_starts}


_FAILED_COUNT = (
    re.compile(
        r"\b[1-9]\d*[ \t]+(?:failed|failures?|errors?|failing)\b|\bfailed \((?:failures|errors)=[1-9]|^failed\b", re.M
    ),
    re.compile(r"(?<!expected )\bfailures=[1-9]|\berrors=[1-9]"),
)


def check_specific(spec, claim, pool, region, support, problems, derived) -> None:
    """Look one specific up: a hit goes to `support`, a figure worked out to `derived`, a miss to `problems`."""
    kind = spec.kind
    if kind in ("number", "money", "percent", "year"):
        check_number(spec, claim, pool, region, support, problems, derived)
    elif kind == "time":
        _check_parsed(spec, pool, EV_TIME, parse_time, "time", support, problems, region, claim)
    elif kind == "date":
        _check_date(spec, pool, support, problems, region, claim)
    elif kind in ("id", "email", "url", "code"):
        needle = str(spec.value)
        hits = pool.find(needle, word=kind != "url", limit=2)
        if not hits and (kind == "id" or (kind == "code" and len(needle) >= 6 and needle.isidentifier())):
            hits = _snake_part(needle, pool)  # `urlconf` of ROOT_URLCONF, set_urlconf; short code stays whole
        if not hits and kind == "id" and ("-" in needle or " " in needle):
            hits = _spaced(needle, pool)  # "week-47" for "week 47", "SO 5602" for "SO-5602"
        if not hits and kind == "url":
            hits = pool.find(needle.rstrip("/"), word=False, limit=2)
        if hits:
            support.append(hits[0])
        elif kind in ("code", "id") and _said_absent(claim.text, spec.start):
            # "I don't see `KeyTransformIn`": the evidence not having it is what the claim says
            derived.append(f"{spec.text} is absent from the evidence, as the claim says")
        elif kind == "code" and (parts := _composed(needle, pool)):
            derived.append(f"{spec.text} joins {', '.join(repr(p) for p, _ in parts)}, each in the evidence")
            support.extend(hit for _, hit in parts)
        else:  # inline code is often the agent's own proposal, not a report of what it saw
            problems.append(missing_specific(kind, spec.text, pool, region, confidence=0.65 if kind == "code" else 0.9))
    elif kind == "name":
        _check_name(spec, pool, support, problems, region, claim.text)
    elif kind in ("month", "quarter"):
        _check_period(spec, pool, support, problems, region)
    elif kind == "count":
        _check_count(spec, claim, pool, support, problems, region)
    elif kind == "status":
        _check_status(spec, claim, pool, region, support, problems)


# A claim that something is absent from what the agent looked at.
_ABSENT = re.compile(
    r"\b(?:(?:don't|do not|didn't|did not|can't|cannot|couldn't|could not) (?:see|find|spot|locate)"
    r"|(?:doesn't|does not|don't|do not|didn't|did not) (?:have|contain|include|define|mention|exist)"
    r"|(?:isn't|is not|aren't|are not|wasn't|was not) (?:defined|found|there|present|listed|mentioned|used)"
    r"|not found|there (?:is|are) no|no such|no mention)\b",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(r"[.!?]\s")


def _said_absent(text: str, at: int) -> bool:
    """Whether the sentence says, before position `at`, that what follows is absent; or negates it right
    before it ("tests `params`, not `data`", "NOT `Variable`")."""
    if _NOT_BEFORE.search(text, max(0, at - 16), at):
        return True
    ends = [m.end() for m in _SENTENCE_END.finditer(text, 0, at)]
    return _ABSENT.search(text, ends[-1] if ends else 0, at) is not None


_NOT_BEFORE = re.compile(r"\b(?:not|rather than|instead of|except)\s*$", re.IGNORECASE)


_QUALIFIED = re.compile(r"[.:]+")
_FILE_NAME = re.compile(r"\.[a-z]{1,5}$", re.IGNORECASE)
_SELF = frozenset({"self", "cls", "this"})


def _composed(needle: str, pool: EvidencePool) -> list[tuple[str, Hit]]:
    """The parts of a qualified name or path the agent put together ("HasValues.values" for a method it
    read in `class HasValues` and `def values`, "src/_pytest/capture.py" from a listing): each part as a
    whole word somewhere in the evidence, or nothing when any part is missing or there is one part."""
    name = needle.strip("`").rstrip("()")
    if "/" in name:  # a path: each directory and the file name whole
        parts = [p for p in name.split("/") if p]
    elif _FILE_NAME.search(name) and name.count(".") == 1:  # a file name is listed whole or not at all
        return []
    else:
        parts = [p for p in _QUALIFIED.split(name) if p and p.lower() not in _SELF]
    if len(parts) < 2 or any(len(p) < 2 for p in parts):
        return []
    found = []
    for part in parts:
        hits = pool.find(part, word=True, limit=1)
        if not hits:
            return []
        found.append((part, hits[0]))
    return found


def _spaced(needle: str, pool: EvidencePool) -> list[Hit]:
    """An id as the evidence separates its parts: by a hyphen, a space or nothing."""
    for joint in ("-", " ", ""):
        other = needle.replace("-", joint).replace(" ", joint)
        if other != needle and (hits := pool.find(other, limit=1)):
            return hits
    return []


def _snake_part(needle: str, pool: EvidencePool) -> list[Hit]:
    """An id as a whole part of a snake_case name: tools write "certificate_7504069" or `is_py3` and agents
    say "certificate 7504069" or "in Py3"; the underscore is a separator, not part of the id."""
    for hit in pool.lookup(needle, False, 8):
        text = pool.lower(hit.passage)
        before = text[hit.start - 1] if hit.start else " "
        after = text[hit.end] if hit.end < len(text) else " "
        if (before == "_" or not before.isalnum()) and (after == "_" or not after.isalnum()):
            return [hit]
    return []


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
    contrast = keyed_value(spec, claim, pool, region, pattern) if claim is not None else None
    if contrast is not None:
        problems.append(missing_specific(kind, spec.text, pool, region, contrast[0], contrast[1], 0.85))
    else:
        problems.append(missing_specific(kind, spec.text, pool, region, confidence=0.85))


def _check_date(spec, pool, support, problems, region, claim=None) -> None:
    month, day, year = spec.value
    for index in range(len(pool)):
        for value, start, end in _parsed(pool, index, EV_DATE, _evidence_date):
            if (
                value is not None
                and value[0] == month
                and value[1] == day
                and (year is None or value[2] in (None, year))
            ):
                support.append(Hit(index, start, end))
                return
    if (ranged := _range_day(day, month, pool)) is not None:
        support.append(ranged)
        return
    contrast = keyed_value(spec, claim, pool, region, EV_DATE) if claim is not None else None
    if contrast is not None:
        problems.append(missing_specific("date", spec.text, pool, region, contrast[0], contrast[1], 0.85))
    else:
        problems.append(missing_specific("date", spec.text, pool, region, confidence=0.85))


def _range_day(day: int, month: int, pool: EvidencePool) -> Hit | None:
    """The day where the evidence writes it as a range's end whose month is written once ("from 11 to 15
    January", "July 16-18"): read as a date only with its month, as the claim side reads it."""
    for hit in pool.lookup(str(day), True, 8):
        if day_range_month(pool.lower(hit.passage), hit.start, hit.end) == month:
            return hit
    return None


def _evidence_date(raw: str) -> tuple[int, int, int | None] | None:
    kind = "iso_date" if raw[:4].isdigit() and raw[4:5] == "-" else "slash_date" if "/" in raw else "month_date"
    return parse_date(kind, raw)


_GLOSS = re.compile(r"\s*\(([^()]{1,40})\)")


def _check_name(spec, pool, support, problems, region, claim_text: str = "") -> None:
    gloss = _GLOSS.match(claim_text, spec.end) if "(" in claim_text else None
    if gloss and pool.find(gloss.group(1).strip(), limit=1):
        return  # "Miami (MIA)": a gloss of something the evidence states, not a new name
    missing = []
    derived_places: list[Hit] = []
    for word in spec.value:
        if pool.has_word(word):
            continue
        if len(word) >= 5 and _near_spelling(word, pool):
            continue  # a typo or spelling variant of a name the evidence has
        if len(word) <= 6 and _acronym(word, pool):
            continue
        if (code := airport_code(word, pool) or place_alias(word, pool)) is not None:
            derived_places.append(code)  # "Heathrow" for the LHR of a flight record, "Dutch" for "NL"
            continue
        missing.append(word)
    if missing and len(missing) < len(spec.value) and _GENERIC_HEADS.issuperset(missing):
        missing = []  # "Economy Class", "Gold Member", "Javits Center": the evidence has what tells it apart
    if not missing:
        support.extend(pool.lookup(spec.value[0], True, 1) or derived_places[:1])
        return
    shown = " ".join(missing)
    reason = f"names '{shown}', which no evidence mentions"
    confidence = 0.6 if spec.unit == "initial" else 0.7
    if pool.any_truncated:
        reason += " (some evidence was cut short)"
        confidence *= 0.7
    problems.append(Problem("name", reason, confidence, region))


# The generic head nouns of capitalised names ("Economy Class", "Premium Plan", "Javits Center"): a name the
# evidence knows by its other words ("economy", "javits") is not made up for lacking these.
_GENERIC_HEADS = frozenset(
    """class plan tier level member membership card account center centre team service services department office
    room hall airport station terminal street avenue road hotel bank university college school group project
    package pass edition mode program programme app store cabin lounge gate fare""".split()
)


def _near_spelling(word: str, pool: EvidencePool) -> bool:
    """Whether the pool has a word spelt nearly as `word` (remembered per pool: a name recurs)."""
    return remembered(
        pool,
        "near_spellings",
        word,
        lambda: any(abs(len(w) - len(word)) <= 2 and fuzz.ratio(word, w) >= 88 for w in _with_initial(pool, word[:1])),
    )


def _with_initial(pool: EvidencePool, initial: str) -> list[str]:
    """The pool's words that start with `initial`, so a near-spelling is looked for among a few words, not all:
    a range of the pool's words sorted once (a sort in C costs less than sorting them into buckets in Python,
    and a pool asks about one or two initials)."""
    ordered = pool.cache.get("sorted_words")
    if ordered is None:
        ordered = pool.cache["sorted_words"] = sorted(pool.words)
    if not initial:
        return []
    stop = bisect_left(ordered, chr(ord(initial) + 1)) if initial < "\U0010ffff" else len(ordered)
    return ordered[bisect_left(ordered, initial) : stop]


def _acronym(word: str, pool: EvidencePool) -> bool:
    """ "NS-CL" or "CNN": the letters start consecutive evidence words."""
    letters = re.sub(r"[^a-z]", "", word.lower()).rstrip("s")
    if len(letters) < 2 or len(letters) > 6:
        return False
    return remembered(pool, "acronyms", letters, lambda: pool.search(_acronym_pattern(letters)))


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
            problems.append(Problem("status", f"claimed {spec.text}; {cite} says {said}", 0.85, hit))
            return


_YEAR_MONTH = {m: re.compile(rf"\b(?:19|20)\d\d-{m:02d}\b") for m in range(1, 13)}


def _check_period(spec, pool, support, problems, region) -> None:
    """A month or a quarter: its name, its abbreviation, or a date in it ("2026-03-04" for March); a quarter
    as "Q3", "3Q" or "third quarter"."""
    value = spec.value
    if spec.kind == "month":
        name = MONTH_NAMES[value]
        hits = pool.lookup(name, True, 1) or pool.lookup(name[:3], True, 1)
        if not hits and pool.search(_YEAR_MONTH[value]):
            hits = pool.lookup(f"-{value:02d}", False, 1)  # "2026-11" (or a full date in it)
        if not hits:
            for index in range(len(pool)):
                dated = next((Hit(index, s, e) for v, s, e in _parsed(pool, index, EV_DATE, _evidence_date)
                              if v is not None and v[0] == value), None)  # fmt: skip
                if dated is not None:
                    hits = (dated,)
                    break
    else:
        word = QUARTER_WORDS[value]
        hits = (pool.lookup(f"q{value}", True, 1) or pool.lookup(f"{value}q", True, 1)
                or pool.lookup(f"{word} quarter", True, 1) or pool.lookup(f"{word}-quarter", True, 1))  # fmt: skip
        if not hits:  # a date in each of its three months ("paid_at >= '2025-07-01'" ... September's)
            months = range(3 * value - 2, 3 * value + 1)
            dated = [next((Hit(i, s, e) for i in range(len(pool)) for v, s, e in _parsed(pool, i, EV_DATE, _evidence_date)
                           if v is not None and v[0] == month), None) for month in months]  # fmt: skip
            hits = (dated[0],) if dated[0] is not None and dated[-1] is not None else ()
    if hits:
        support.append(hits[0])
    else:
        problems.append(missing_specific("date", spec.text, pool, region, confidence=0.8))


_ORDINAL_SUFFIX = {1: "st", 2: "nd", 3: "rd"}


def _check_count(spec, claim, pool, support, problems, region) -> None:
    """A count or rank in words: found as the word, its figure ("5 hours") or its ordinal ("3rd"); or
    contradicted by another count of the same thing ("seven hours" where the evidence says "5 hours").
    A count the evidence does not state is no problem: it is mostly the agent counting what it listed
    ("two reservations: M05KNL and UHDAHF")."""
    value, word = spec.value
    figure = str(value)
    ordinal = figure + _ORDINAL_SUFFIX.get(value, "th")
    hits = (pool.lookup(word, True, 1) or [h for h in pool.lookup(figure, True, 4) if not _in_date(pool, h)][:1]
            or pool.lookup(ordinal, True, 1))  # fmt: skip
    if hits:
        noun = counted_noun(claim, spec.end) if word in _CARDINALS else None
        places = [*pool.lookup(word, True, 8), *pool.lookup(figure, True, 8)] if noun is not None else []
        other = counted_otherwise(value, noun, pool, places, claim.text.lower()) if places else None
        if other is not None:  # "three" is in the evidence, but of something else: "two flights each weekday"
            said, hit = other
            cite = pool.passages[hit.passage].cite
            confidence = 0.8 if pool.passages[hit.passage].source in ("evidence", "retrieval") else 0.65
            problems.append(Problem("number", f"claimed {spec.text} {noun}; {cite} says {said}", confidence, hit))
        else:
            support.append(hits[0])
        return
    noun = _NOUN_AFTER.match(claim.text, spec.end)
    if noun is None or word not in _CARDINALS:
        return
    counted = noun.group(1).lower()
    for hit in pool.lookup(counted, False, 8):
        before = pool.lower(hit.passage)[max(0, hit.start - 14) : hit.start]
        other = _COUNT_BEFORE.search(before)
        if other and _count_value(other.group(1)) not in (None, value):
            said = pool.lower(hit.passage)[hit.start - len(before) + other.start(1) : hit.end]
            cite = pool.passages[hit.passage].cite
            problems.append(Problem("number", f"claimed {spec.text} {counted}; {cite} says {said}", 0.8, hit))
            return


_CARDINALS = frozenset(w for w in NUMBER_WORDS if not w.endswith(("th", "rd")))
_MONTH_AROUND = re.compile(r"\b(?:" + "|".join(n[:3] for n in MONTH_NAMES[1:]) + r")[a-z]*\.?\s*$")
_MONTH_AFTER = re.compile(r"\s*(?:st|nd|rd|th)?\s+(?:of\s+)?(?:" + "|".join(n[:3] for n in MONTH_NAMES[1:]) + r")")


def _in_date(pool: EvidencePool, hit: Hit) -> bool:
    """Whether a figure is a date's day ("June 3", "3 June"): no count of anything."""
    text = pool.lower(hit.passage)
    return bool(_MONTH_AROUND.search(text, max(0, hit.start - 12), hit.start) or _MONTH_AFTER.match(text, hit.end))
_NOUN_AFTER = re.compile(r"(?:[\s-]+(?:more|other|full|extra|separate|different))?[\s-]+([a-z]{3,})", re.IGNORECASE)
_COUNT_BEFORE = re.compile(r"\b(\d+|" + "|".join(_CARDINALS) + r")[\s-]*$")


def _count_value(said: str) -> int | None:
    return int(said) if said.isdigit() else NUMBER_WORDS.get(said)


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
        problems.append(Problem("status", f"claimed {spec.text}; {cite} says {failed.group()}", confidence, hit))
    elif failed:
        support.append(Hit(index, failed.start(), failed.end()))
    elif not says_pass:
        passed = re.search(r"\b\d+ passed\b|^ok\b|all tests passed|\bran \d+ tests? in [\d.]+s\s+ok\b", text, re.M)
        if passed and not negated:
            hit = Hit(index, passed.start(), passed.end())
            cite = pool.passages[index].cite
            problems.append(
                Problem("status", f"claimed {spec.text}; {cite} says {passed.group()}", confidence - 0.05, hit)
            )
