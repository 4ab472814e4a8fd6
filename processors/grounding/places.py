"""Places as tools write them: airports by their IATA codes ("LHR" for "Heathrow"), countries by their
ISO codes and their people's adjective ("NL" and "Dutch" for "Netherlands"), cities by their own language's
name ("Genève" for "Geneva"), time zones by their tz name ("America/New_York" for "Eastern").

A place name the evidence never writes out is not made up when the evidence writes it one of these ways.
The airport table (airportsdata, about 7,900 airports) is read at the first such question in a process
(~0.1 s), not at import: most outputs never ask.
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


# One place per line, every way of writing it: lower case words (looked up as words, or as text when they
# hold a "/" or "_"), then UPPER CASE codes, matched only as capitals (the "IT" of Italy is no "it").
_PLACE_LINES = """
united states america american americans usa US USA
united kingdom britain british uk UK GB GBR
england english
scotland scottish scots
wales welsh
ireland irish IE IRL
germany german germans deutschland DE DEU
france french FR FRA
italy italian italians italia IT ITA
spain spanish españa espana ES ESP
portugal portuguese PT PRT
netherlands dutch holland NL NLD
belgium belgian belgians BE BEL
switzerland swiss schweiz suisse CH CHE
austria austrian österreich osterreich AT AUT
denmark danish danes dane danmark DK DNK
sweden swedish swedes sverige SE SWE
norway norwegian norwegians norge NO NOR
finland finnish finns suomi FI FIN
iceland icelandic icelanders ísland IS ISL
poland polish poles polska PL POL
czechia czech czechs CZ CZE
hungary hungarian hungarians HU HUN
romania romanian romanians RO ROU
greece greek greeks GR GRC
turkey turkish türkiye turkiye TR TUR
ukraine ukrainian ukrainians UA UKR
russia russian russians RU RUS
canada canadian canadians CA CAN
mexico mexican mexicans MX MEX
brazil brazilian brazilians brasil BR BRA
argentina argentine argentinian argentinians AR ARG
chile chilean chileans CL CHL
colombia colombian colombians CO COL
japan japanese JP JPN
china chinese CN CHN
india indian indians IN IND
korea korean koreans KR KOR
australia australian australians AU AUS
zealand NZ NZL
singapore singaporean singaporeans SG SGP
israel israeli israelis IL ISR
egypt egyptian egyptians EG EGY
nigeria nigerian nigerians NG NGA
kenya kenyan kenyans KE KEN
thailand thai TH THA
vietnam vietnamese VN VNM
indonesia indonesian indonesians ID IDN
philippines filipino filipinos philippine PH PHL
europe european europeans eu EU
geneva genève geneve genf GVA
munich münchen muenchen MUC
cologne köln koeln CGN
vienna wien VIE
prague praha PRG
lisbon lisboa LIS
warsaw warszawa WAW
copenhagen københavn kobenhavn CPH
florence firenze FLR
venice venezia VCE
milan milano MXP LIN
rome roma FCO
naples napoli NAP
turin torino TRN
brussels bruxelles brussel BRU
antwerp antwerpen
athens athina ATH
seville sevilla SVQ
zurich zürich zuerich ZRH
gothenburg göteborg goteborg GOT
eastern america/new_york est edt ET EST EDT
central america/chicago cst cdt CT CST CDT
mountain america/denver mst mdt MT MST MDT
pacific america/los_angeles pst pdt PT PST PDT
"""
_PLACES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {}
for _line in _PLACE_LINES.strip().splitlines():
    _names = tuple(w for w in _line.split() if not w.isupper())
    _codes = tuple(w for w in _line.split() if w.isupper())
    for _name in _names:
        _PLACES.setdefault(_name, (_names, _codes))


def place_alias(word: str, pool: EvidencePool) -> Hit | None:
    """Where the evidence writes the place `word` names another way: its code in capitals, its people's
    adjective, its own language's name or its time zone's name."""
    found = _PLACES.get(word)
    if found is None:
        return None
    names, codes = found
    for name in names:
        if name == word:
            continue
        hits = pool.lookup(name, "/" not in name and "_" not in name, 1)
        if hits:
            return hits[0]
    for code in codes:
        if code.lower() in pool.words:
            for hit in pool.lookup(code.lower(), True, 4):
                if pool.passages[hit.passage].text[hit.start : hit.end] == code:
                    return hit
    return None
