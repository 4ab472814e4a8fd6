"""Airports by their IATA codes: travel tools write "LHR" or "DUB", agents say "Heathrow" or "Dublin".

A place name the evidence never writes out is not made up when the evidence has the code of an airport
of that name or city. The table (airportsdata, about 7,900 airports) is read at the first such question in
a process (~0.1 s), not at import: most outputs never ask.
"""

from __future__ import annotations

import re
from functools import lru_cache

from .evidence import EvidencePool, Hit
from .problems import remembered

_WORDS = re.compile(r"[a-z]+")
# Words of airport names that name no place ("London Heathrow Airport": "london" and "heathrow" do).
_NOT_PLACES = frozenset(
    """airport international regional municipal national county field airfield airstrip aerodrome air base
    station heliport terminal city intl memorial executive metropolitan saint north south east west new
    port island lake river valley mount""".split()
)


@lru_cache(maxsize=1)
def _codes_by_word() -> dict[str, frozenset[str]]:
    """Each place word of an airport's city or name -> the lowercase IATA codes of the airports it names."""
    import airportsdata  # deferred: a 0.1 s read of its table, only when a place name is missing

    found: dict[str, set[str]] = {}
    for code, row in airportsdata.load("IATA").items():
        for text in (row.get("city") or "", row.get("name") or ""):
            for word in _WORDS.findall(text.lower()):
                if len(word) >= 4 and word not in _NOT_PLACES:
                    found.setdefault(word, set()).add(code.lower())
    return {word: frozenset(codes) for word, codes in found.items()}


def warm_places() -> None:
    """Read the airport table now (a checker's start-up), so no graded span pays for it. Never raises: a
    table that cannot be read leaves place names to be judged without it."""
    try:
        _codes_by_word()
    except Exception:  # not cached: a later question tries again, and finds no code if it fails again
        return


def airport_code(word: str, pool: EvidencePool) -> Hit | None:
    """Where the evidence writes, in capitals, the code of an airport that `word` names ("heathrow": LHR)."""
    if len(word) < 4 or not word.isalpha():
        return None
    return remembered(pool, "airport_codes", word, lambda: _find_code(word, pool))


def _find_code(word: str, pool: EvidencePool) -> Hit | None:
    try:
        codes = _codes_by_word().get(word)
    except Exception:
        return None
    if not codes:
        return None
    for code in sorted(codes & pool.words):
        for hit in pool.lookup(code, True, 4):
            if pool.passages[hit.passage].text[hit.start : hit.end] == code.upper():  # a code, not a word
                return hit
    return None
