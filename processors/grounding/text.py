"""Tokens, stems and the specifics a claim can state (numbers, money, dates, times, ids, names, URLs, statuses).

Everything here works on plain strings with precompiled regular expressions;
the grader calls it on every output, so the per-call cost is kept to a few
regex scans and dictionary lookups.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from functools import lru_cache
from operator import itemgetter

from .lexicon import CLOSED_CLASS, LOOSE, STATUS_PATTERN, STATUS_STATE, STOPWORDS

WORD = re.compile(r"[a-z][a-z'’]*(?:-[a-z][a-z'’]*)*[a-z]|[a-z]", re.IGNORECASE)  # "off-policy" is one word
EVIDENCE_WORDS = re.compile(r"[a-z0-9]+")  # on lowercased text
# EVIDENCE_WORDS.findall in one C pass: every byte but a-z and 0-9 becomes a space (a non-ASCII character
# is one "?" after encoding, so it separates words just as it does for the pattern), then split.
_EVIDENCE_BYTES = bytes(c if 48 <= c <= 57 or 97 <= c <= 122 else 32 for c in range(256))


def evidence_words(lower: str) -> list[str]:
    """`EVIDENCE_WORDS.findall(lower)`, about twice as fast on a long passage."""
    return lower.encode("ascii", "replace").translate(_EVIDENCE_BYTES).decode("ascii").split()


@lru_cache(maxsize=131_072)
def stem(word: str) -> str:
    """A light, cached English suffix stripper: plural, -ing, -ed, -ly, final e; doubled last consonant."""
    w = word.lower().replace("’", "'")
    if w.endswith("'s"):
        w = w[:-2]
    if len(w) > 4 and w.endswith("ies"):
        w = w[:-3] + "y"
    elif len(w) > 4 and w.endswith("sses"):
        w = w[:-2]
    elif len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    if len(w) > 5 and w.endswith("ing"):
        w = w[:-3]
    elif len(w) > 4 and w.endswith("ed"):
        w = w[:-2]
    elif len(w) > 5 and w.endswith("ly"):
        w = w[:-2]
    if len(w) > 3 and w.endswith("e"):
        w = w[:-1]
    if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "aeiouls":
        w = w[:-1]
    return w


_WORD_CASED = re.compile(WORD.pattern)


def lower_words(lower: str) -> list[str]:
    """`WORD.findall(lower)` for text already lowercased (ASCII text skips case folding: same words).

    Without an apostrophe or a hyphen a word of ASCII text is a run of letters, split out in one C pass."""
    if not lower.isascii():
        return WORD.findall(lower)
    if "'" in lower or "-" in lower:
        return _WORD_CASED.findall(lower)
    return _letter_words(lower)


def content_words(text: str) -> list[re.Match]:
    """Word matches that are not function words."""
    return [m for m in WORD.finditer(text) if m.group().lower() not in STOPWORDS]


# --- specifics ------------------------------------------------------------------------------

_MONTHS = {
    "jan": 1, "january": 1, "feb": 2, "february": 2, "mar": 3, "march": 3, "apr": 4, "april": 4, "may": 5,
    "jun": 6, "june": 6, "jul": 7, "july": 7, "aug": 8, "august": 8, "sep": 9, "sept": 9, "september": 9,
    "oct": 10, "october": 10, "nov": 11, "november": 11, "dec": 12, "december": 12,
}  # fmt: skip
_MONTH = r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
_NUM = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
# A figure's scale word or letter: "$471K", "$1.22 million", "412K users", "3 billion". A bare "m" or "b" after
# a plain number is minutes or bytes as often ("5m" in kubectl's ages): only a capital M or B there.
_MONEY_SCALE = r"\s?(?:k|m|mm|mn|mln|bn|b|thousand|million|billion|trillion)\b"
_NUMBER_SCALE = r"\s?(?:k|mln|bn|thousand|million|billion|trillion)\b|(?-i:[MB])\b"
SCALES = {"k": 1e3, "thousand": 1e3, "m": 1e6, "mm": 1e6, "mn": 1e6, "mln": 1e6, "million": 1e6, "b": 1e9, "bn": 1e9,
          "billion": 1e9, "trillion": 1e12}  # fmt: skip
_RANGE_SCALE = re.compile(rf"\s?[-–]\s?(?:{_NUM})(?:{_NUMBER_SCALE})(?![\w])", re.IGNORECASE)
_SCALE_AT_END = re.compile(r"(?<=\d)\s?([a-z]+)$", re.IGNORECASE)


def scale_of(said: str) -> float:
    """The factor a figure's scale word gives ("$471K": 1000; "1.22 million": 1e6; "$300": 1)."""
    m = _SCALE_AT_END.search(said.rstrip())
    return SCALES.get(m.group(1).lower(), 1.0) if m else 1.0


# Units tools print attached to a figure ("23kg", "512Mi", "39s", "151.2GB"): read by claims here and by the
# evidence's number pattern (`values.EV_NUMBER`).
UNIT_SUFFIXES = r"(?:kg|g|km|cm|mm|mi|ml|gb|mb|kb|tb|gib|mib|kib|tib|gi|ki|ti|ms|s|sec|min|mins|h|hr|hrs|px|pt|x)"
_CURRENCY_WORDS = r"(?:usd|dollars?|bucks|eur|euros?|gbp|pounds?|£|€|\$)"

# Every alternative of SPECIFIC starts at a currency sign or backtick, or at a word boundary before a token
# holding a digit, "@", "_" or a backtick, a word and a digit ("May 20", "usd 5"), "www." or "http:". This
# lookahead states that necessary condition once, so `re` rejects most positions with one cheap test
# instead of trying every alternative there (about 6x faster on prose); it removes no match.
_SPECIFIC_START = r"(?=[$€£`]|\b(?:[\w.+-]*[\d@_`]|[a-z]+\.?\s+\d|www\.|https?:))"
SPECIFIC = re.compile(
    _SPECIFIC_START + r"(?:"
    r"(?P<url>\bhttps?://[^\s<>()\"'\]]+|\bwww\.[^\s<>()\"'\]]+)"
    r"|(?P<email>\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b)"
    r"|(?P<iso_date>\b\d{4}-\d{2}-\d{2}\b)"
    r"|(?P<slash_date>\b\d{1,2}/\d{1,2}/\d{2,4}\b)"
    rf"|(?P<month_date>\b{_MONTH}\.?\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+\d{{4}})?\b)"
    rf"|(?P<date_month>\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}\b(?:,?\s+\d{{4}})?)"
    r"|(?P<time>\b\d{1,2}:\d{2}(?::\d{2})?(?:\s*(?:[ap]\.?m\.?)(?![a-z]))?|\b\d{1,2}\s*(?:[ap]\.m\.|[ap]m)(?![a-z]))"
    rf"|(?P<money>(?:[$€£]|\b(?:usd|eur|gbp)\s?)\s?(?:{_NUM})(?:{_MONEY_SCALE})?"
    rf"|(?<![\w.])(?:{_NUM})(?:{_MONEY_SCALE})?\s?(?:usd|dollars?|euros?|eur|gbp|pounds)\b)"
    rf"|(?P<percent>(?<![\w.])(?:{_NUM})\s?(?:%|percent\b))"
    r"|(?P<code>`[\w./:@#-]{1,80}`)"  # an identifier, path or flag; an expression the agent wrote is not a specific
    # A version or an address ("2.8.1", "10.0.0.12") is one id, not the number 2.8.
    r"|(?P<id>\b(?=[\w-]*\d)(?=[\w-]*[a-z_])[a-z][\w-]*\d[\w-]*\b|\b[a-z]+_[\w]+\b|\b\d{5,}\b"
    r"|(?<![\w.])\d+(?:\.\d+){2,}\b(?!\.\d)"
    r"|(?-i:\b\d[A-Z0-9]*[A-Z][A-Z0-9]{2,}\b))"
    # Not the "151" of "151.2GB" nor the "16" of "10.20.0.0/16".
    # Nor a ratio's "1" ("a 1:1 with Marco", "3:2"), which is no quantity.
    rf"|(?P<number>(?<![\w./])(?<!\d:)(?:{_NUM})(?!:\d)(?:(?:{_NUMBER_SCALE})?(?![\w]|\.\d)|(?={UNIT_SUFFIXES}\b))))",
    re.IGNORECASE,
)
# Every match of SPECIFIC holds a trigger (a digit, currency sign, backtick, "@", "_", "www." or "http:"), and
# what comes before its first trigger is word characters, dots, pluses or hyphens, then white space ("May 20",
# "usd 5", "ann.lee@x.org"). So a match starts within that run before some trigger: `_specific_matches` tries
# SPECIFIC only there, instead of `re` trying its lookahead at every position of the text (10x less work on
# prose).
_TRIGGER = re.compile(r"[\d$€£`@_]|www\.|https?:", re.IGNORECASE)
_RUN_CHARS = frozenset("_.+-")
_MAYBE_SPECIFIC = re.compile(r"[\d$€£@`]|www\.|_|\b(?:usd|eur|gbp)\b", re.IGNORECASE)
STATUS_FIRST_WORDS = frozenset(w.split()[0].split("-")[0] for w in STATUS_STATE)
# A capitalised word or run of them ("Ann", "New York", "Jean-Luc"), or an upper-case word ("NASA", "CNNs"),
# starting at a word boundary. Written to start with its first letter (the boundary is the lookbehind
# after it) so `re` skips to the next capital instead of trying both forms at every position.
NAME = re.compile(r"[A-Z](?<!\w[A-Z])(?:[a-z]+(?:[ -][A-Z][a-z]+)*\b|[A-Z]+[a-z]?s?\b)")


class Folded:
    """A case-insensitive pattern, run on lowercased ASCII text by a case-sensitive compile of it.

    With IGNORECASE, `re` compares every literal of an alternation case-folded and skips its quick
    first-character test, which makes long word alternations several times slower. On ASCII text the
    lowercased text against the case-sensitive compile gives the same matches at the same offsets
    (the source holds no upper-case letter outside an escape; checked here); other text takes the
    exact pattern. Matches are (start, end) pairs: read the surface text from the original string.
    """

    __slots__ = ("exact", "fast")

    def __init__(self, pattern: re.Pattern) -> None:
        if not pattern.flags & re.IGNORECASE or _UPPER.search(_ESCAPE.sub("", pattern.pattern)):
            raise ValueError(f"Folded needs an IGNORECASE pattern with lower-case literals: {pattern.pattern[:60]!r}")
        self.exact = pattern
        self.fast = re.compile(pattern.pattern, pattern.flags & ~re.IGNORECASE)

    def search(self, text: str, lower: str | None = None) -> bool:
        """Whether the pattern occurs in `text`; `lower` is `text.lower()` when the caller has it."""
        if text.isascii():
            return self.fast.search(text.lower() if lower is None else lower) is not None
        return self.exact.search(text) is not None

    def match(self, text: str, lower: str | None = None) -> bool:
        """Whether the pattern matches at the start of `text`."""
        if text.isascii():
            return self.fast.match(text.lower() if lower is None else lower) is not None
        return self.exact.match(text) is not None

    def spans(self, text: str, lower: str | None = None) -> list[tuple[int, int]]:
        if text.isascii():
            return [m.span() for m in self.fast.finditer(text.lower() if lower is None else lower)]
        return [m.span() for m in self.exact.finditer(text)]


_UPPER = re.compile(r"[A-Z]")
_ESCAPE = re.compile(r"\\.")
_STATUS = Folded(STATUS_PATTERN)
_MAYBE_CHARS = re.compile(r"[0-9$@`_]")  # on ASCII text: the characters of _MAYBE_SPECIFIC


def _maybe_specific(text: str, lower: str) -> bool:
    """`_MAYBE_SPECIFIC.search(text)`: on ASCII text a character-set scan and substring tests (the
    alternation tried at every position costs more than everything else in a text without digits)."""
    if not text.isascii():
        return _MAYBE_SPECIFIC.search(text) is not None
    if _MAYBE_CHARS.search(lower) or "www." in lower:
        return True
    return any(_bounded_word(lower, code) for code in _CURRENCY_CODES)


_CURRENCY_CODES = ("usd", "eur", "gbp")


def _bounded_word(lower: str, word: str) -> bool:
    """Whether `word` occurs in ASCII `lower` between non-word characters: `str.find` and two character
    tests ("eur" inside "europe" is common, and a \b alternation tried at every position is slow)."""
    at = lower.find(word)
    while at != -1:
        if bounded(lower, at, at + len(word)):
            return True
        at = lower.find(word, at + 1)
    return False


def bounded(text: str, start: int, end: int) -> bool:
    """Whether text[start:end] stands between non-word characters (or the text's ends), as \b says."""
    before = text[start - 1] if start > 0 else " "
    after = text[end] if end < len(text) else " "
    return not (before.isalnum() or before == "_") and not (after.isalnum() or after == "_")


def _specific_matches(text: str) -> list[re.Match]:
    """`list(SPECIFIC.finditer(text))`, with SPECIFIC tried only where a match can start: from the run of
    word characters, dots, pluses, hyphens and white space that ends at a trigger, up to the trigger.

    Positions are tried left to right and each once, and a search resumes after a match, as `finditer`
    does; `match` at a position reads the text before it for \\b and look-behinds, as a scan does."""
    found: list[re.Match] = []
    triggers = _triggers(text)
    pos = 0  # where finditer would resume: after the last match
    tried = 0  # every position below this one has been tried (or lies before `pos`)
    match = SPECIFIC.match
    i = 0
    while i < len(triggers):
        at = triggers[i]
        if at < pos:
            i += 1
            continue
        start = at
        floor = max(pos, tried)
        while start > floor and text[start - 1].isspace():  # str.isspace is re's \s, isalnum or "_" its \w
            start -= 1
        while start > floor and (text[start - 1].isalnum() or text[start - 1] in _RUN_CHARS):
            start -= 1
        for candidate in range(start, at + 1):
            m = match(text, candidate)
            if m is not None:
                found.append(m)
                pos = tried = m.end()
                break
        else:
            tried = at + 1
            i += 1
    return found


_ASCII_TRIGGERS = (*"0123456789$`@_", "www.", "http:", "https:")


def _triggers(text: str) -> list[int]:
    """Where _TRIGGER matches, sorted: on ASCII text found with `str.find` (a C scan per trigger, much
    faster than `re` trying the case-insensitive alternation at every position); extra places, such as
    the overlapping ones a scan would not report, only widen where SPECIFIC is tried."""
    if not text.isascii():
        return [m.start() for m in _TRIGGER.finditer(text)]
    lower = text.lower()
    places: list[int] = []
    for trigger in _ASCII_TRIGGERS:
        at = lower.find(trigger)
        while at != -1:
            places.append(at)
            at = lower.find(trigger, at + 1)
    places.sort()
    return places


_LETTER_BYTES = bytes(c if 97 <= c <= 122 else 32 for c in range(256))


def _letter_words(lower: str) -> list[str]:
    """The [a-z]+ runs of `lower` (what `re.findall(r"[a-z]+", lower)` gives) in one C pass."""
    return lower.encode("ascii", "replace").translate(_LETTER_BYTES).decode("ascii").split()


@dataclass(frozen=True, slots=True)
class Specific:
    """One specific a claim states: its kind, surface text, normalised value and place in the claim."""

    kind: str  # url email date time money percent code id number name status class
    text: str
    value: object
    start: int
    end: int
    unit: str | None = None  # for numbers: the word after ("bags"); for money: currency


_CLOCK = re.compile(r"(\d{1,2})(?::(\d{2}))?(?::\d{2})?(am|pm)?")
_LETTERS = re.compile(r"[a-z]+")
_DIGITS = re.compile(r"\d+")
_NUM_RE = re.compile(_NUM)


def parse_number(text: str) -> float | None:
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def parse_time(text: str) -> int | None:
    """Minutes after midnight: "6:00 AM", "06:00:00", "7pm", "12:00 PM"."""
    t = text.lower().replace(".", "").replace(" ", "")
    m = _CLOCK.match(t)
    if not m:
        return None
    hour, minute, half = int(m.group(1)), int(m.group(2) or 0), m.group(3)
    if hour > 24 or minute > 59:
        return None
    if half == "pm" and hour < 12:
        hour += 12
    elif half == "am" and hour == 12:
        hour = 0
    return (hour % 24) * 60 + minute


def parse_date(kind: str, text: str) -> tuple[int, int, int | None] | None:
    """(month, day, year or None)."""
    t = text.lower()
    try:
        if kind == "iso_date":
            y, mo, d = (int(p) for p in t.split("-"))
            return mo, d, y
        if kind == "slash_date":
            a, b, c = t.split("/")
            y = int(c) + (2000 if len(c) == 2 else 0)
            return int(a), int(b), y
        month = next(_MONTHS[w] for w in _LETTERS.findall(t) if w in _MONTHS)
        nums = [int(n) for n in _DIGITS.findall(t)]
        day = next((n for n in nums if n <= 31), None)
        year = next((n for n in nums if n > 31), None)
        if day is None:
            return None
        return month, day, year
    except (ValueError, StopIteration):
        return None


_UNIT_AFTER = re.compile(r"\s*([a-z]+)", re.IGNORECASE)


_PART_OF_YEAR = re.compile(r"(?:mid|early|late|end|start)-((?:19|20)\d\d)")
_DAY_RANGE_AFTER = re.compile(
    rf"\s*(?:to|-|–|until|through|and)\s*\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH})\b", re.IGNORECASE
)
_DAY_RANGE_BEFORE = re.compile(
    rf"\b({_MONTH})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?\s*(?:to|-|–|until|through|and)\s*$", re.IGNORECASE
)


def day_range_month(text: str, start: int, end: int) -> int | None:
    """The month of a day range a bare day number opens or closes ("9 to 13 January", "January 9 to 13")."""
    after = _DAY_RANGE_AFTER.match(text, end)
    if after is None:
        after = _DAY_RANGE_BEFORE.search(text[max(0, start - 24) : start])
    return _MONTHS.get(after.group(1).lower().rstrip(".")) if after else None


def specifics(text: str, opens_sentence: bool = True, context: str | None = None) -> list[Specific]:
    """Every specific stated in `text`, in order.

    A capitalised word that opens a sentence is a name only when it is no common opener and the
    text (or `context`, the whole output) never writes it in lower case; such names are marked
    `unit="initial"` so the grader can weigh them less."""
    return [Specific(*f) for f in specific_fields(text, opens_sentence, context)]


SpecificFields = tuple[str, str, object, int, int, "str | None"]


def specific_fields(text: str, opens_sentence: bool = True, context: str | None = None) -> list[SpecificFields]:
    """`specifics` as plain field tuples (kind, text, value, start, end, unit): the claim splitter makes
    its Specifics once, with offsets relative to each claim, from these."""
    found: list[SpecificFields] = []
    taken: list[tuple[int, int]] = []
    lower = text.lower()
    scan = _specific_matches(text) if _maybe_specific(text, lower) else ()
    for m in scan:
        kind = m.lastgroup or ""
        raw = m.group()
        value: object
        unit = None
        if kind in ("iso_date", "slash_date", "month_date", "date_month"):
            value = parse_date(kind, raw)
            if value is None:
                continue
            kind = "date"
        elif kind == "time":
            value = parse_time(raw)
            if value is None:
                continue
        elif kind in ("money", "percent", "number"):
            num = _NUM_RE.search(raw)
            value = parse_number(num.group()) if num else None
            if value is None:
                continue
            if kind != "percent" and not raw[-1].isdigit():
                value *= scale_of(raw.removesuffix("dollars").removesuffix("usd"))  # "$471K", "412K"
            elif kind == "number" and (shared := _RANGE_SCALE.match(text, m.end())):
                value *= scale_of(shared.group())  # "148-151K": the range's scale is written once
            if kind == "number":
                if _enumerator(text, m.start(), m.end(), raw):
                    continue  # "1. ...", "**Flight 2:**": which item of a list, not a quantity
                if value <= 31 and raw.isdigit() and (month := day_range_month(text, m.start(), m.end())):
                    found.append(("date", raw, (month, int(value), None), m.start(), m.end(), None))
                    taken.append((m.start(), m.end()))
                    continue  # "from 9 to 13 January": a day of that month
                after = _UNIT_AFTER.match(text, m.end())
                unit = after.group(1).lower() if after else None
                if 1900 <= value <= 2100 and raw.isdigit():
                    kind = "year"
            elif kind == "money":
                unit = "money"
        elif kind == "code":
            value = raw.strip("`").strip().lower()
            if not value:
                continue
        else:
            value = raw.lower().rstrip(".,;:")
            if kind == "id" and len(value) <= 3:
                continue  # "Py3", "v2", "S3", "xa0": a version or a name's abbreviation, not a record's id
            if kind == "id" and (year := _PART_OF_YEAR.fullmatch(value)):
                kind, value = "year", float(year.group(1))  # "mid-2028", "early-2025"
        found.append((kind, raw, value, m.start(), m.end(), unit))
        taken.append((m.start(), m.end()))
    for start, end in _status_spans(text, lower):
        if not _overlaps(taken, start, end):
            said = text[start:end]
            found.append(("status", said, STATUS_STATE[said.lower()], start, end, None))
    whole = context if context is not None else text
    verdicts: dict[str, bool] = {}
    runs: list[frozenset[str] | None] = []  # the letter runs of `whole`, made at the first name

    def like(word: str) -> bool:
        known = verdicts.get(word)
        if known is None:
            if not runs:
                runs.append(_letter_runs(whole))
            known = verdicts[word] = _name_like(word, whole, runs[0])
        return known

    shapes: dict[tuple[str, bool], tuple[tuple[str, ...], str | None]] = {}
    labels = ":" in text  # a label ends in a colon: without one, no capitalised word is a label
    for m in NAME.finditer(text):
        start, end = m.span()
        if (taken and _overlaps(taken, start, end)) or (labels and _LABEL_AFTER.match(text, end)):
            continue  # "Total Cost:", "**New Cabin**:" are labels, not names
        said = m.group()
        opening = (start == 0 and opens_sentence) or (start > 0 and _opens(text, start))
        # What the words alone say is worked out once per name and place (a name recurs); whether a
        # capitalised first word acts as a name depends on what follows it, so that is read each time.
        shape = shapes.get((said, bool(opening)))
        if shape is None:
            shape = shapes[(said, bool(opening))] = _name_shape(said, bool(opening), like)
        rest, initial = shape
        unit = None
        if initial is not None and _acts_as_name(text, m, initial):
            words = (initial.lower(), *rest)
            unit = "initial" if len(words) == 1 else None
        else:
            words = rest
        if words and len(words) == 1 and said[-1] == "s" and _TIMED_VERB.match(text, end):
            continue  # "Departs at 22:00, Arrives at 01:00": a verb of a schedule, not a name
        if words:
            found.append(("name", said, words, start, end, unit))
    found.sort(key=_START_OF)
    return found


# What follows a schedule's verb ("Arrives at 01:00", "Opens on 3 May", "Leaves from 9"): a preposition and a
# figure. A name is seldom followed so.
_TIMED_VERB = re.compile(r"\s+(?:at|on|by|from|until|in)\s+[\d$€£]")


# A month or a quarter said without a day ("in March", "Q3", "third-quarter revenue"). "May" is a month only
# after a word that takes a time ("in May", "since May"); otherwise it is mostly the verb.
MONTH_NAMES = "_ january february march april may june july august september october november december".split()
QUARTER_WORDS = ("_", "first", "second", "third", "fourth")  # by the quarter's number
_MONTH_NUMBER = {name: i for i, name in enumerate(MONTH_NAMES) if i}
_MAY_AFTER = frozenset("in of by since until from early late mid through during last next".split())
_QUARTER_OF = {word: i for i, word in enumerate(QUARTER_WORDS) if i}
_QUARTER_BEFORE = re.compile(r"(first|second|third|fourth)[- ]$")
_PERIOD_WORDS = frozenset([*_MONTH_NUMBER, "q1", "q2", "q3", "q4", "quarter"])


def _whole_words(lower: str, words) -> list[tuple[str, int, int]]:
    """Where each of `words` occurs in `lower` as a whole word, found with `str.find` (a few C scans: an
    alternation with word boundaries is tried at every position of the text)."""
    found = []
    for word in words:
        at = lower.find(word)
        while at != -1:
            end = at + len(word)
            if (not at or not lower[at - 1].isalnum()) and (end == len(lower) or not lower[end].isalnum()):
                found.append((word, at, end))
            at = lower.find(word, end)
    return found


def _periods(text: str, lower: str) -> list[tuple[str, int, int, int]]:
    """(kind, start, end, value) of each month name (capitalised, as written) and quarter ("Q3", "third
    quarter", "third-quarter")."""
    found = []
    for name, start, end in _whole_words(lower, _MONTH_NUMBER):
        if not text[start].isupper() or lower[start - 1 : start] == "-":
            continue
        if name == "may" and lower[max(0, start - 9) : start].split()[-1:] not in ([w] for w in _MAY_AFTER):
            continue
        found.append(("month", start, end, _MONTH_NUMBER[name]))
    for said, start, end in _whole_words(lower, ("q1", "q2", "q3", "q4")):
        if text[start] == "Q":
            found.append(("quarter", start, end, int(said[1])))
    for _, start, end in _whole_words(lower, ("quarter",)):
        before = _QUARTER_BEFORE.search(lower[max(0, start - 7) : start])
        if before:
            found.append(("quarter", start - len(before.group()), end, _QUARTER_OF[before.group(1)]))
    return found


def word_specifics(text: str, lower: str, bag: set[str], fields: list[SpecificFields]) -> list[SpecificFields]:
    """The specifics written as words in a claim: months and quarters said without a day, counts and ranks
    ("five hours", "third"). Asked per claim, of its words (`bag`), so most claims pay one set test; the
    rest are looked up with `str.find` in the claim's text, skipping what `fields` already holds ("13 January")."""
    months, counts = not bag.isdisjoint(_PERIOD_WORDS), not bag.isdisjoint(NUMBER_WORDS)
    if not (months or counts):
        return []
    taken = [(f[3], f[4]) for f in fields]
    found: list[SpecificFields] = []
    if months:
        for kind, start, end, value in _periods(text, lower):
            if not _overlaps(taken, start, end):
                found.append((kind, text[start:end], value, start, end, None))
    if counts:
        for word, start, end in _whole_words(lower, bag.intersection(NUMBER_WORDS)):
            if (not _overlaps(taken, start, end) and not _LISTED_AFTER.match(text, end)
                    and lower[end : end + 1] not in "-'"):  # fmt: skip
                found.append(("count", text[start:end], (NUMBER_WORDS[word], word), start, end, None))
    return found


# Counts and ranks written as words ("five hours", "by four wickets", "lifted to third"): "one" and "second"
# are left out, being words of too many other uses ("one of", "a second").
NUMBER_WORDS = {w: i for i, w in enumerate("_ _ two three four five six seven eight nine ten eleven twelve".split()) if i > 1}
NUMBER_WORDS.update({w: i for i, w in enumerate("_ _ _ third fourth fifth sixth seventh eighth ninth tenth".split()) if i > 2})
# "Two friends, Steve and Carly": the count of the names listed next, not a figure to look up.
_LISTED_AFTER = re.compile(r"\s+[a-z]+,?\s+[A-Z]\w*(?:,\s+[A-Z]\w*)*,?\s+(?:and|&)\s+[A-Z]")



_START_OF = itemgetter(3)


def _name_shape(said: str, opening: bool, like) -> tuple[tuple[str, ...], str | None]:
    """(the lowered words of a NAME match that look like names, the first word when it opens a sentence
    and may still be a name if it acts like one). `like` says whether a word looks like a name."""
    words = said.replace("-", " ").split(" ")  # NAME joins its words by one space or hyphen
    initial = None
    if opening:
        initial, words = words[0], words[1:]  # the first word of a sentence is capitalised anyway
        if initial in OPENERS or not like(initial):
            initial = None
    return tuple([w.lower() for w in words if like(w)]), initial


# The [\w-]+ runs of lowercased ASCII text (what STATUS_PATTERN's (?<![\w-]) and (?![\w-]) bound), by split.
_TOKEN_BYTES = bytes(c if 48 <= c <= 57 or 97 <= c <= 122 or c in b"_-" else 32 for c in range(256))
# Each status word or phrase by its last token: a match of the pattern ends with a whole token.
_STATUS_BY_LAST: dict[str, tuple[str, ...]] = {}
for _said in sorted(STATUS_STATE):
    _STATUS_BY_LAST[_said.split(" ")[-1]] = (*_STATUS_BY_LAST.get(_said.split(" ")[-1], ()), _said)


def _status_spans(text: str, lower: str) -> list[tuple[int, int]] | tuple[()]:
    """`_STATUS.spans(text, lower)`: on ASCII text, the tokens of the text looked up in the status words and
    each found one located with `str.find` (the alternation tried at every position costs more)."""
    if not text.isascii():
        return _STATUS.spans(text, lower) if not set(_letter_words(lower)).isdisjoint(STATUS_FIRST_WORDS) else ()
    last = _STATUS_BY_LAST.keys() & set(lower.encode("ascii").translate(_TOKEN_BYTES).decode("ascii").split())
    if not last:
        return ()
    found: list[tuple[int, int]] = []
    for token in last:
        for said in _STATUS_BY_LAST[token]:
            at = lower.find(said)
            while at != -1:
                end = at + len(said)
                if (not at or not _token_char(lower[at - 1])) and (end == len(lower) or not _token_char(lower[end])):
                    found.append((at, end))
                at = lower.find(said, at + 1)
    # Leftmost first and, at one place, the longest (the pattern's alternatives are longest first); none
    # overlapping an earlier one, as a scan resumes after its match.
    found.sort(key=lambda span: (span[0], -span[1]))
    spans: list[tuple[int, int]] = []
    for start, end in found:
        if not spans or start >= spans[-1][1]:
            spans.append((start, end))
    return spans


def _token_char(c: str) -> bool:
    return c.isalnum() or c in "_-"


def _overlaps(taken: list[tuple[int, int]], start: int, end: int) -> bool:
    """Whether [start, end) overlaps a taken span; `taken` is sorted by start and its spans do not overlap."""
    i = bisect_right(taken, (start, 1 << 62))
    return (i > 0 and taken[i - 1][1] > start) or (i < len(taken) and taken[i][0] < end)


_MARKER_AFTER = re.compile(r"[.)][ \t]")


def list_marker(text: str, start: int, end: int, bullets: str = "") -> bool:
    """Whether the digits text[start:end] are a numbered list's item marker ("\n2. Always ..."), which says
    no quantity; `bullets` may also stand before it on its line ("- 1. ...")."""
    if not _MARKER_AFTER.match(text, end):
        return False
    before = text[text.rfind("\n", 0, start) + 1 : start]
    return not (before.strip(" \t" + bullets) if bullets else before.strip()) and text[start:end].isdigit()


# An item's number in a list: a line's "1." / "2)" marker, or a capitalised label's "Flight 2:" / "Step 3**:".
_LABEL_NUMBER = re.compile(r"(?<![\w$])[A-Z][a-z]+ $")
_LABEL_END = re.compile(r"\**:")


def _enumerator(text: str, start: int, end: int, raw: str) -> bool:
    if not raw.isdigit() or len(raw) > 2:
        return False
    if list_marker(text, start, end, "*#-"):
        return True
    return _LABEL_END.match(text, end) is not None and _LABEL_NUMBER.search(text, max(0, start - 20), start) is not None


def _opens(text: str, start: int) -> bool:
    """Whether a word at `start` (> 0) opens a sentence: `_START` in the six characters before it. Each
    of its forms ends in a line break and white space, or in one of `_OPENING_MARKS` and white space, so
    most places (a word and a space before) are settled without the search: first the commonest, a space
    after a letter, digit or comma (no form ends so), by two characters."""
    if start > 1 and text[start - 1] == " " and (text[start - 2].isalnum() or text[start - 2] == ","):
        return False
    window = text[max(0, start - 6) : start]
    lead = window.rstrip()
    if "\n" not in window and not lead.endswith(_OPENING_MARKS):
        return not lead and _list_item(text, start)  # only white space: the marker may be further back
    return _START.search(text, max(0, start - 6), start) is not None or _list_item(text, start)


def _list_item(text: str, start: int) -> bool:
    """An indented list item ("    *   Passed `x` to ..."): its marker may be more than six characters after
    the line break, so the line's whole lead is read."""
    return _LINE_LEAD.fullmatch(text, text.rfind("\n", 0, start) + 1, start) is not None


_LINE_LEAD = re.compile(r"[ \t]*(?:[-*•]|\d+[.)])[ \t]+")
_OPENING_MARKS = tuple('.!?:;*("“-•)#')
_START = re.compile(r"(?:^|^\s*(?:[-*•]\s+|\d+[.)]\s+|#+\s+)|[.!?:;]\**\s+|\n\s*(?:[-*•]\s+|\d+[.)]\s+|#+\s+)?|\*\*|[(\"“]\s*)$")
_JOINED = re.compile(r"\s+(?:and|or)\s")
_ITEM_START = re.compile(r"(?:^|\n)[ \t]*(?:\d+[.)]|[-*•])[ \t]+(?:\*\*)?$")
_AFTER_NAME = re.compile(
    r"(?:'s\b|\s+(?:and|or)\s+[A-Z]|,\s+[A-Z][a-z]+\s+and\s|\s+(?!is\b|was\b|has\b|does\b)[a-z]{2,}s\b(?:\s+\S+){2})"
)


def _acts_as_name(text: str, m: re.Match, initial: str) -> bool:
    """A capitalised first word is taken for a name only when it acts like one: "Sarah asks Mike to ...",
    "Ann and Mike", "Sarah's"; not "Looking at", "Safe travels!" or "Correct."."""
    verbish = initial.lower().endswith(("ing", "ed", "ly"))
    if " " in m.group():  # several words (NAME joins them by single spaces): "Sarah Lee", "Looking Glass"
        return not verbish
    after = _AFTER_NAME.match(text, m.start() + len(initial))
    if (after is not None and after.group()[:1].isspace() and not _JOINED.match(after.group())
            and _ITEM_START.search(text, max(0, m.start() - 12), m.start())):  # fmt: skip
        return False  # "1. Insert lines at 1829": a step's verb; "1. Ann's" or "- Ann and Bo" still name
    return not verbish and after is not None


def _name_like(word: str, whole: str, runs: frozenset[str] | None = None) -> bool:
    """`runs` is `_letter_runs(whole)` when the caller has it: the same answer as a search of `whole`."""
    low = word.lower()
    if len(word) <= 2 or low in _NOT_NAMES or word.isupper():  # ID, EST, TEXT: abbreviations and shouting
        return False
    if word[-1] == "s" and word[:-1].isupper():  # IDs, ORs, URLs: an abbreviation's plural
        return False
    if runs is not None and word.isascii():
        return low not in runs
    return not _lowercase_elsewhere(word, whole)


# Common words, whatever their case, and the constants code writes capitalised ("`isinstance` is False").
_NOT_NAMES = frozenset(STOPWORDS | CLOSED_CLASS.keys() | LOOSE | {"true", "false", "none", "null", "nan"})


_NOT_LETTER = bytes(c if 65 <= c <= 90 or 97 <= c <= 122 else 32 for c in range(256))


def _letter_runs(text: str) -> frozenset[str] | None:
    """On ASCII text, its maximal runs of letters, case kept: an ASCII word occurs in `text` between
    non-letters (`_lowercase_elsewhere`) exactly when it is one of them. None on other text, where
    str.isalpha knows more letters than A-Z."""
    if not text.isascii():
        return None
    return frozenset(text.encode("ascii").translate(_NOT_LETTER).decode("ascii").split())


# Capitalised sentence openers that never name anyone.
OPENERS = frozenset(
    """
    The This That These Those It He She They We You There Here Everything Nothing Someone Everyone Anyone Then
    Now Also But And So Yes No Ok Okay Note Please Thanks Sure Done Next First Finally As When If After Before
    Once While Since Because Although Though Today Yesterday Tomorrow All Each Every Some Any Both Hi Hello Hey
    Dear Meanwhile However Still Just Only Even Let Our Your My Their His Her Its What Which Who Why How Where
    Great Good Perfect Sorry Unfortunately Fortunately Additionally Furthermore Moreover Overall Currently
    Based According Given Unlike Like Despite Instead Otherwise Therefore Thus Hence Indeed Actually Basically
    Looks Seems Wait Alright Understood Certainly Absolutely Of Thank Welcome Great Excellent Nice Awesome
    One Two Three Four Five Six Seven Eight Nine Ten Several Many Most Few Another Other Either Neither
    """.split()
)
_LABEL_AFTER = re.compile(r"[*_]*\s*:")


def _lowercase_elsewhere(word: str, text: str) -> bool:
    """A capitalised word the same text also writes in lower case is a common word ("Cost" / "cost")."""
    low = word.lower()
    at = text.find(low)
    while at != -1:
        before = text[at - 1] if at else " "
        after = text[at + len(low)] if at + len(low) < len(text) else " "
        if not before.isalpha() and not after.isalpha():
            return True
        at = text.find(low, at + 1)
    return False
