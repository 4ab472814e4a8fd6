"""Records of tool output (a JSON object, a table's row, a log line) and the claim that mixes two of them.

Agents reply about one record among several of the same shape: an order, a flight, a ticket, a person. A
reply may take a value from the record next to the one it names ("the attempt at 9 Quarry View (SO-5602)",
where 9 Quarry View is SO-5611's address): every value is in the evidence, so each specific alone is found.
Read together with the record the claim names, the value is another record's.
"""

from __future__ import annotations

import re

from .claims import Claim
from .evidence import EvidencePool, Hit
from .problems import Problem
from .text import parse_number
from .values import EV_NUMBER, close

_OBJECT = re.compile(r"\{[^{}]*\}")


_STRUCTURE = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]]')


def _listed_objects(text: str) -> list[tuple[int, int]]:
    """The JSON objects that are items of an array, as (start, end): the records of a tool's result, whatever
    they nest ("fare": {"amount": 412.00}). Strings are skipped whole, so braces inside them do not count."""
    found: list[tuple[int, int]] = []
    stack: list[tuple[str, int]] = []  # open brackets and braces, with where they opened
    for m in _STRUCTURE.finditer(text):
        token = m.group()
        if token in "[{":
            stack.append((token, m.start()))
        elif token in "]}":
            if not stack:
                continue
            opened, start = stack.pop()
            if token == "}" and opened == "{" and stack and stack[-1][0] == "[":
                found.append((start, m.end()))
    return sorted(found)


def record_spans(pool: EvidencePool, index: int) -> list[tuple[int, int]]:
    """The records of one passage as (start, end): the objects of its JSON arrays, else its flat JSON
    objects, else its lines. Memoised per passage text."""
    memo = pool.memo(index)
    found = memo.get("record_spans")
    if found is None:
        text = pool.lower(index)
        found = _listed_objects(text) if "[" in text and "{" in text else []
        if len(found) < 2:
            found = [(m.start(), m.end()) for m in _OBJECT.finditer(text)] if "{" in text else []
        if not found:
            at = 0
            for line in text.split("\n"):
                found.append((at, at + len(line)))
                at += len(line) + 1
        memo["record_spans"] = found
    return found


def tabular(pool: EvidencePool, index: int) -> bool:
    """Whether a passage is records (tool output), not prose: two JSON objects or more, or three lines or
    more laid out as a table's rows (column bars, or columns two spaces apart). Memoised per passage text."""
    memo = pool.memo(index)
    found = memo.get("tabular")
    if found is None:
        text = pool.lower(index)
        objects = len(_OBJECT.findall(text)) if "{" in text else 0
        rows = sum(1 for line in text.split("\n") if line.count("|") >= 2 or len(_COLUMN_GAP.findall(line)) >= 2)
        found = memo["tabular"] = objects >= 2 or rows >= 3
    return found


_COLUMN_GAP = re.compile(r"\S {2,}(?=\S)")
def _names_record(spec) -> bool:
    """Whether a specific can name one record: an id, a code, a name of two words or more ("British
    Airways"; "Tom" or "Galaxy" alone name no record surely enough), a number of four digits or more
    ("TGV 9245")."""
    if spec.kind in ("id", "code"):
        return True
    if spec.kind == "name":
        return len(spec.value) >= 2
    return spec.kind == "number" and float(spec.value).is_integer() and len(spec.text) >= 4 and spec.text.isdigit()


def _has_value(record: str, spec) -> bool:
    """Whether a record writes the claim's figure (by value: "438" is the record's "438.00")."""
    value = float(spec.value)
    percent = spec.kind == "percent"
    for m in EV_NUMBER.finditer(record):
        figure = parse_number(m.group())
        if figure is not None and (close(figure, value) or (percent and close(figure * 100, value))):
            return True
    return False


_VALUE_KINDS = frozenset(("number", "money", "percent", "name", "id", "code"))
_NUMERAL = re.compile(r"\d[\d,]*(?:\.\d+)?")


def _needles(spec) -> list[str]:
    """What a specific is written as in a record, lowercased: a figure's numeral, a name's words, an id."""
    if spec.kind in ("number", "money", "percent"):
        numeral = _NUMERAL.search(spec.text)
        return [numeral.group().replace(",", "")] if numeral and len(numeral.group()) >= 2 else []
    if spec.kind == "name":
        return [" ".join(spec.value)]  # the whole name: "basic" alone is in every fare's "basic_economy"
    return [str(spec.value).lower()] if spec.value else []


_COMPOUND = re.compile(r"-[a-z]")
# Figures only: a claim that lists times often lists records ("the sync at 9:30, your 1:1 at 11:00").
_VALUES = frozenset(("number", "money", "percent"))
_JSON_KEY = re.compile(r'"([\w .-]{1,40})"\s*:')


def _shape(record: str) -> tuple:
    """What records of one kind share: a JSON object's keys, a table row's column bars and gaps."""
    if record.startswith("{"):
        return tuple(sorted(_JSON_KEY.findall(record)))
    return record.count("|"), len(_COLUMN_GAP.findall(record))


_TOKEN = re.compile(r"[a-z0-9]+")


def _speaks_of(claim: Claim, other: str, mine: str) -> bool:
    """Whether the claim names the other record too: a token of its own with a digit ("vs3") or a word of its
    names, which that record holds and the named one does not."""
    names = {w for s in claim.specifics if s.kind == "name" for w in s.value}
    words = set(_TOKEN.findall(other))
    for token in set(_TOKEN.findall(claim.text.lower())):
        if (token in names or (len(token) >= 3 and any(c.isdigit() for c in token) and not token.isdigit())) \
                and token in words and token not in mine:
            return True
    return False


def check_record(claim: Claim, pool: EvidencePool, problems: list[Problem]) -> None:
    """A value the claim gives the one record it names, which that record does not hold and another record
    of the same passage does. Only when the claim names one record (by an id, a code or a name found in
    exactly one record), and only in tool output laid out as records: a document's sentences are none."""
    specs = [s for s in claim.specifics if s.kind in _VALUE_KINDS]
    if len(specs) < 2:
        return
    named: dict[tuple[int, int], object] = {}  # the record (passage, its place) -> the specific naming it
    for spec in specs:
        if not _names_record(spec):
            continue
        for needle in _needles(spec):
            place = _only_record(needle, pool)
            if place is not None:
                named.setdefault(place, spec)
    if len(named) != 1:
        return  # no record named, or several (a comparison, a list): nothing to hold the values to
    (passage, place), key = next(iter(named.items()))
    spans = record_spans(pool, passage)
    text = pool.lower(passage)
    mine = text[slice(*spans[place])]
    shape = _shape(mine)
    for spec in specs:
        if spec is key or spec.kind not in _VALUES or _COMPOUND.match(claim.text, spec.end):
            continue  # a name or an id may name a second record the claim speaks of; "a 12-month attrition"
        if _has_value(mine, spec):
            continue
        other = next((i for i, span in enumerate(spans) if i != place
                      and _has_value(row := text[slice(*span)], spec) and _shape(row) == shape), None)  # fmt: skip
        if other is None:
            continue  # in no record, or not in this passage's: the other checks judge it
        if _speaks_of(claim, text[slice(*spans[other])], mine):
            return  # the claim names that record too ("BA117 at £412 beats VS3 at £438"): a comparison
        cite = pool.passages[passage].cite
        reason = f"claimed {spec.text} of {key.text}; in {cite} it belongs to another record"
        problems.append(Problem("record", reason, 0.7, Hit(passage, *spans[other])))
        return


def _only_record(needle: str, pool: EvidencePool) -> tuple[int, int] | None:
    """(passage, record place) of the one record of tool output holding `needle`, if exactly one does."""
    found = None
    for hit in pool.lookup(needle, False, 8):
        if not tabular(pool, hit.passage):
            continue
        spans = record_spans(pool, hit.passage)
        place = next((i for i, (lo, hi) in enumerate(spans) if lo <= hit.start < hi), None)
        if place is None:
            continue
        if found is not None and found != (hit.passage, place):
            return None
        found = (hit.passage, place)
    return found
