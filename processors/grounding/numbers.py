"""Numbers, amounts and percents of a claim against the evidence's numbers: found, rounded or derived.

A figure the evidence does not state may still follow from it (a sum, a difference, a product, a
multiple, a unit change): that is INFERRED, with the operands cited. Every number of a pool is read once
and kept sorted by value, so each claimed figure is a few comparisons, not a scan.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left, bisect_right

from .claims import Claim
from .digits import digit_starts, matches, number_starts
from .evidence import EvidencePool, Hit
from .problems import Problem, missing_specific
from .records import record_spans, tabular
from .text import NUMBER_WORDS, SCALES, Specific, list_marker, parse_number, parse_time, stem
from .values import EV_NUMBER, EV_TIME, counted_noun, counted_otherwise, keyed_value
from .values import close as _close


def _numbers(pool: EvidencePool, index: int) -> list[tuple[float, int, int]]:
    memo = pool.memo(index)
    found = memo.get("numbers")
    if found is None:
        text = pool.lower(index)
        found = []
        for m in matches(EV_NUMBER, text, number_starts):
            value = parse_number(m.group())
            # smolagents numbers its prompt's rules ("\n2. Always ..."): read as figures, they "found" any 1 to 10
            if value is not None and not list_marker(text, m.start(), m.end()):
                found.append((value, m.start(), m.end()))
        memo["numbers"] = found
    return found


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


def check_number(spec: Specific, claim, pool, region, support, problems, derived) -> None:
    """A claimed figure: found in the evidence (support), rounded or derived from it (`derived`), or a
    problem, contradicted when the evidence gives another value for what it counts."""
    value = float(spec.value)  # type: ignore[arg-type]
    everywhere = _all_numbers(pool)
    first = _first_equal(value, spec.kind == "percent", pool)
    if first is not None:
        if (conflict := _counted_conflict(spec, claim, value, pool)) is not None:
            problems.append(conflict)
            return
        _, s, e, index = everywhere[first]
        support.append(Hit(index, s, e))
        return
    said = _NUMERAL.search(spec.text)
    if said and (literal := _literal(said.group(), pool)) is not None:
        support.append(literal)  # "131" of "131/84", "4.0" of "4.0-5.6": written so, though no figure is read there
        return
    # A rounded figure ("about 3.5" for 3.47, "$471K" for 471,236.18) is the evidence's figure.
    decimals = len(said.group(1) or "") if said else 0
    written = parse_number(said.group()) if said and spec.kind in ("money", "number") else None
    scale = round(value / written) if written and abs(value) > abs(written) * 999 else 1.0  # "$471K", "148-151K"
    half = 0.5 * 10.0**-decimals * scale * (1 + 1e-9)
    if scale != 1.0 and (same := _same_scale(value / scale, scale, pool)) is not None:
        support.append(same)  # "$4.2 billion" where the evidence writes "4.2 billion" too
        return
    for v, s, e, index in everywhere:
        if v and abs(v - value) <= half and abs(v - value) / abs(v) < 0.05:
            derived.append(f"{spec.text} rounds {_fmt(v)} from {pool.passages[index].cite}")
            support.append(Hit(index, s, e))
            return
    if spec.kind == "percent" and (share := _fraction(value, half, everywhere)) is not None:
        v, index, s, e = share
        derived.append(f"{spec.text} rounds {_fmt(v)} as a percent, from {pool.passages[index].cite}")
        support.append(Hit(index, s, e))  # "34% of revenue" from a share_of_revenue of 0.341
        return
    small = value.is_integer() and 0 <= value <= 10 and spec.kind == "number"
    if small and (spelled := _spelled(int(value), spec, claim, pool)) is not None:
        support.append(spelled)  # "1 checked bag" where the user asked to "add one checked bag"
        return
    about = _ABOUT.search(claim.text[max(0, spec.start - 16) : spec.start]) is not None
    if about and spec.unit in _FROM_UNITS and (unit := _about_in_units(value, half, spec.unit, everywhere, region)):
        reason, hit = unit
        derived.append(f"{spec.text} = {reason}")
        support.append(hit)  # "about 4 days" from a median of 96.5 hours
        return
    if spec.kind == "year" and (dated := _year_of_date(int(value), pool)) is not None:
        support.append(dated)  # "in February 2024" from "2024-02-11T09:00:00Z"
        return
    if spec.kind == "number" and (tail := _id_tail(spec, claim, pool)) is not None:
        derived.append(f"{spec.text} ends {pool.passages[tail.passage].cite}'s id")
        support.append(tail)
        return
    if spec.kind == "number" and (lasted := _duration(value, spec, claim, pool)) is not None:
        reason, hits = lasted
        derived.append(f"{spec.text} = {reason}")
        support.extend(hits)
        return
    if spec.kind == "percent" and (share := _share(value, half, spec, claim, everywhere, region)) is not None:
        reason, hits = share
        derived.append(f"{spec.text} = {reason}")
        support.extend(hits)
        return
    if spec.kind in ("money", "number") and not small and (rate := _converted(value, half, spec, claim, everywhere, region)):
        reason, hits = rate
        derived.append(f"{spec.text} = {reason}")
        support.extend(hits)
        return
    how = None if small else _derive(value, everywhere, region)
    if how is None and not small and len(claim.specifics) > 1:  # only then: the common path pays nothing
        operands = _operands(spec, claim, pool)
        how = _derive(value, everywhere, region, operands) if operands else None
    if how is not None and "in other units" not in how[0] and region is not None and _prose(pool, region.passage):
        # Against prose (an article, a policy, a transcript) a figure is the document's, or a unit change of
        # one: a sum, a difference, a product or a multiple of two of its figures is mostly chance ("16 =
        # 2 x 8" for "16 stores" where it says six). Tool output's records are summed and divided by agents.
        how = None
    if how is None and spec.kind == "money" and _TOTAL.search(claim.text):
        how = _pair_total(value, pool)
    if how is None and not small:
        how = _record_total(value, max(half, 0.01 * abs(value)) if about else half, claim, pool, spec.kind == "percent")
    if how is None and (spec.kind != "number" or not small or about):
        how = _own_arithmetic(value, half if about or spec.kind == "money" else 1e-6 * max(1.0, abs(value)),
                              spec, claim, everywhere, region, about)  # fmt: skip
    if how is not None and _MULTIPLE.search(how[0]) and (conflict := _counted_conflict(spec, claim, value, pool, False)):
        problems.append(conflict)  # "16 stores" is 2 x 8, but the evidence counts "six smaller-format stores"
        return
    if how is not None:
        reason, hits = how
        derived.append(f"{spec.text} = {reason}")
        support.extend(hits)
        return
    contrast = _contrast_number(spec, claim, pool, region)
    confidence = 0.6 if small else 0.9
    if contrast is not None:
        shown, hit = contrast
        problems.append(missing_specific(spec.kind, spec.text, pool, region, shown, hit, confidence))
    else:
        problems.append(missing_specific(spec.kind, spec.text, pool, region, confidence=confidence))


def _prose(pool: EvidencePool, index: int) -> bool:
    """Whether a passage is a document's prose: given or retrieved text, neither JSON nor a table. Tool
    results are not, whatever their layout: agents work figures out of them."""
    return pool.passages[index].source in ("evidence", "retrieval") and "{" not in pool.lower(index) and not tabular(pool, index)


def _counted_conflict(spec: Specific, claim: Claim, value: float, pool: EvidencePool, found: bool = True):
    """A figure the evidence has (`found`), but of something else: "three flights" where it says "two
    flights" (and "three" of another thing); or one worked out from other figures where the evidence counts
    the same noun with another ("40 mg" as 2 x 20 where it says "20 mg")."""
    if spec.kind not in ("number", "percent"):
        return None
    noun = counted_noun(claim, spec.end)
    if noun is None:
        return None
    places = [Hit(i, s, e) for v, s, e, i in _all_numbers(pool) if _close(v, value)] if found else None
    other = counted_otherwise(value, noun, pool, places, claim.text.lower())
    if other is None:
        return None
    said, hit = other
    # Read from words next to figures: sure enough in a document's prose, below the flag threshold in tool
    # output (listings, logs), where a figure next to a word is often no count of it.
    confidence = 0.8 if pool.passages[hit.passage].source in ("evidence", "retrieval") else 0.65
    return Problem("number", f"claimed {spec.text} {noun}; {pool.passages[hit.passage].cite} says {said}", confidence, hit)


# A figure worked out as a product or a multiple ("2 x 8"): found by chance more often than a sum or a
# difference, which agents do work out; only such a one yields to the evidence's own count.
_MULTIPLE = re.compile(r"^\d[\d.]* x \d")


_ENDING = re.compile(r"\b(?:ending|ends) (?:in|with)\W*$|\blast (?:\w+ )?digits\W*$", re.IGNORECASE)


def _id_tail(spec: Specific, claim: Claim, pool: EvidencePool) -> Hit | None:
    """'The card ending in 1784': the last digits of an id the evidence has ("gift_card_1591784")."""
    digits = spec.text
    if not digits.isdigit() or len(digits) < 3 or not _ENDING.search(claim.text[max(0, spec.start - 24) : spec.start]):
        return None
    for hit in pool.find(digits, word=False, limit=8):
        text = pool.passages[hit.passage].text
        if hit.start and text[hit.start - 1].isdigit() and (hit.end == len(text) or not text[hit.end].isalnum()):
            return hit
    return None


_NUMERAL = re.compile(r"\d[\d,]*(?:\.(\d+))?")
_SPELLED = {n: w for w, n in {**NUMBER_WORDS, "one": 1}.items() if w not in ("third", "fourth", "fifth", "sixth",
            "seventh", "eighth", "ninth", "tenth")}  # fmt: skip


def _spelled(value: int, spec: Specific, claim: Claim, pool: EvidencePool) -> Hit | None:
    """A small figure the evidence writes as a word before the same noun ("one checked bag" for "1 checked
    bag"): the word alone ("one") is too common to be the figure."""
    word = _SPELLED.get(value)
    noun = counted_noun(claim, spec.end) if word else None
    if noun is None:
        return None
    for hit in pool.lookup(f"{word} {noun}", True, 1) or pool.lookup(f"{word} {stem(noun)}", False, 1):
        return hit
    return None


def _literal(numeral: str, pool: EvidencePool) -> Hit | None:
    """The claimed figure written as the claim writes it, where the evidence's number pattern reads no
    figure: a blood pressure's "131/84", a range's "4.0-5.6", a port's ":6379". Not inside
    a longer number or a word ("x131", "1310", "131.5"), nor two digits of a date or a time ("11-20",
    "09:15"). Two digits at least: a lone digit is anywhere."""
    if len(numeral) < 2:
        return None
    for hit in pool.lookup(numeral, False, 8):
        text = pool.lower(hit.passage)
        before = text[hit.start - 1] if hit.start else " "
        after = text[hit.end : hit.end + 2]
        anchor = before == "l" and text[hit.start - 2 : hit.start - 1] == "#"  # a source link's line, "file.py#L84"
        if (before.isalnum() and not anchor) or (before in ".," and text[hit.start - 2 : hit.start - 1].isdigit()):
            continue
        if after[:1].isdigit() or (after[:1] in ".," and after[1:2].isdigit()):
            continue
        if len(numeral) <= 2 and ((before in "-:/" and text[hit.start - 2 : hit.start - 1].isdigit())
                                  or (after[:1] in "-:/" and after[1:2].isdigit())):  # fmt: skip
            continue  # a part of a date or a time ("2026-11-20", "09:15"), not a figure
        return hit
    return None


def _same_scale(figure: float, scale: float, pool: EvidencePool) -> Hit | None:
    """The figure written with the same scale word in the evidence ("4.2 billion", "$471k")."""
    for v, s, e, index in _all_numbers(pool):
        if _close(v, figure):
            word = _WORD_AFTER.match(pool.lower(index), e)
            if word and SCALES.get(word.group(1)) == scale:
                return Hit(index, s, word.end())
    return None


_WORD_AFTER = re.compile(r"\s?([a-z]+)")


def _year_of_date(year: int, pool: EvidencePool) -> Hit | None:
    """The year of an ISO date in the evidence ("2024-02-11"), which is read as a date, not a number."""
    for hit in pool.lookup(f"{year}-", False, 8):
        text = pool.lower(hit.passage)
        if (not hit.start or not text[hit.start - 1].isalnum()) and text[hit.end : hit.end + 2].isdigit():
            return Hit(hit.passage, hit.start, hit.end - 1)
    return None


def _fmt(v: float) -> str:
    if float(v).is_integer():
        return str(int(v))
    return f"{v:g}" if abs(v) < 1e5 else f"{v:.2f}".rstrip("0").rstrip(".")  # 1221907.5, not 1.22191e+06


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
            m = at.get(round(value * a, 6))  # a rate: "$55 per seat" from $1,925 for 35 seats
            if m is not None and m is not n and value not in (0, 1):
                return f"{_fmt(m[0])} / {_fmt(a)}", [hit(m), hit(n)]
    for n in near[:12]:
        for times in range(2, 10):
            if n[0] > 1 and _close(n[0] * times, value):
                return f"{times} x {_fmt(n[0])}", [hit(n)]
    total = sum(n[0] for n in near[:12])
    if len(near) >= 3 and _close(total, value):
        return "the sum of " + " + ".join(_fmt(n[0]) for n in near[:12]), [hit(n) for n in near[:12]]
    return None


def _own_figures(spec: Specific, claim: Claim) -> list[float]:
    """The claim's other figures (numbers and amounts, not zero): operands of a share, a change or a rate."""
    return [float(s.value) for s in claim.specifics  # type: ignore[arg-type]
            if s is not spec and s.kind in ("number", "money") and s.value]  # fmt: skip


def _share(value: float, half: float, spec: Specific, claim: Claim, numbers, region: Hit | None):
    """A claimed percent as a share or a change of two figures: of the claim's own ("$471K, up 16% from
    $405K") with each other or with the figures nearest its region, or of the six nearest figures with each
    other ("7,233 of 9,642 verified: about 75%"). Few pairs, and the claimed precision as the tolerance, keep
    a made-up percent from being found by chance."""
    own = [(figure, None) for figure in _own_figures(spec, claim)]
    near = [(n[0], Hit(n[3], n[1], n[2])) for n in (_nearest(numbers, region, 6) if region is not None else [])]
    pairs = [(a, b, True) for a in own for b in own + near if a is not b]
    pairs += [(b, a, False) for a in own for b in near]
    pairs += [(a, b, False) for a in near for b in near if a is not b]
    down = _DOWN.search(claim.text) is not None
    for (x, at_x), (y, at_y), mine in pairs:
        if not y:
            continue
        shares = [(x / y * 100, "of")]
        if mine:  # a change only between the claim's own figures ("$471K, up 16% from $405K")
            shares.append(((y - x if down else x - y) / abs(y) * 100, "change from"))
        for shown, how in shares:
            if abs(shown - value) <= half:
                hits = [h for h in (at_x, at_y) if h is not None]
                return f"{_fmt(x)} {how} {_fmt(y)} ({shown:.1f}%)", hits
    return None


_TOTAL = re.compile(r"\b(?:total|totals|totalling|totaling|in all|altogether|combined|sum|together)\b", re.IGNORECASE)


def _pair_total(value: float, pool: EvidencePool):
    """A claimed total as the sum of two figures one passage lists ("the total is $242": the $112 and $130
    fares of one search result), wherever the claim's words align. Asked only of a total: any two of a
    list's figures add up to many values."""
    for index in range(len(pool)):
        numbers = _numbers(pool, index)
        if len(numbers) < 2:
            continue
        at = {round(v, 6): (v, s, e) for v, s, e in numbers}
        for v, s, e in numbers:
            partner = at.get(round(value - v, 6))
            if partner is not None and partner[1] != s and v > 0 and partner[0] > 0:
                hits = [Hit(index, s, e), Hit(index, partner[1], partner[2])]
                return f"{_fmt(v)} + {_fmt(partner[0])} in {pool.passages[index].cite}", hits
    return None


def _records(pool: EvidencePool, index: int) -> list[tuple[str, dict[str, tuple[float, int, int]]]]:
    """The records of one passage (`records.record_spans`), each (its lowercased text, its figures by
    column): a JSON object's figures by key, a line's (a table's row, a log line) by their place among the
    line's figures. Memoised per passage text."""
    memo = pool.memo(index)
    found = memo.get("records")
    if found is None:
        text = pool.lower(index)
        spans = record_spans(pool, index)
        numbers = _numbers(pool, index)
        starts = [n[1] for n in numbers]
        found = []
        for lo, hi in spans:
            first = bisect_left(starts, lo)
            figures: dict[str, tuple[float, int, int]] = {}
            for place, (v, s, e) in enumerate(numbers[first : bisect_left(starts, hi)]):
                key = _KEY_BEFORE.search(text, max(lo, s - 40), s)
                figures.setdefault(key.group(1) if key else f"#{place}", (v, s, e))
            if figures:
                found.append((text[lo:hi], figures))
        memo["records"] = found
    return found


_KEY_BEFORE = re.compile(r'"([\w .-]{1,40})"\s*:\s*"?$')


def _record_total(value: float, tolerance: float, claim: Claim, pool: EvidencePool, percent: bool = False):
    """A claimed figure as the total of one column over records: all of a passage's records ("three pending
    payments totalling 214.59", "imported 206.6 kWh over five days") or those naming one or two of the
    claim's words ("£105.24 at Tesco across two visits", "delivered orders add up to $479.74", "tax and
    National Insurance took £1,024.92"). The sign is the tool's (a debit is negative): the claim's is not."""
    words = [w for w in dict.fromkeys(claim.content) if len(w) > 2 and not w.isdigit()][:10]
    for index in range(len(pool)):
        records = _records(pool, index)
        if len(records) < 2:
            continue
        named = [frozenset(i for i, (text, _) in enumerate(records) if w in text) for w in words]
        subsets = [frozenset(range(len(records)))] + [n for n in named if len(n) >= 1]
        subsets += [a | b for i, a in enumerate(named) for b in named[i + 1 :] if a and b and a != b]
        for subset in dict.fromkeys(subsets):
            if len(subset) < 2:
                continue
            # Records of one shape only (the same keys; or as many figures and column bars on the line): a
            # table's rows, not the query line above them.
            columns: dict[tuple, list[tuple[float, int, int]]] = {}
            for i in sorted(subset):
                text, figures = records[i]
                shape = (tuple(figures), text.count("|"), text.count("\t"))
                for key, figure in records[i][1].items():
                    columns.setdefault((shape, key), []).append(figure)
            for figures in columns.values():
                total = abs(sum(f[0] for f in figures))
                if len(figures) >= 2 and (abs(total - abs(value)) <= tolerance
                                          or (percent and abs(total * 100 - abs(value)) <= tolerance)):  # fmt: skip
                    hits = [Hit(index, s, e) for _, s, e in figures]
                    return f"the total of {len(figures)} figures of one column in {pool.passages[index].cite}", hits
    return None


# A figure that is a duration: "6 hours 35 minutes", "a 90-minute meeting", "breached by 42 minutes".
_DURATION_AFTER = re.compile(
    r"[\s-]*(hours?|hrs?|h|minutes?|mins?)\b(?:,?\s*(?:and\s*)?(\d{1,2})[\s-]*(?:minutes?|mins?)\b)?", re.IGNORECASE
)
_HOURS_BEFORE = re.compile(r"(\d{1,3})[\s-]*(?:hours?|hrs?|h),?\s*(?:and\s*)?$", re.IGNORECASE)


def _claimed_minutes(value: float, spec: Specific, claim: Claim) -> int | None:
    """The minutes a claimed duration says, its hours and minutes together ("6 hours 35 minutes": 395)."""
    m = _DURATION_AFTER.match(claim.text, spec.end)
    if m is None or not value.is_integer():
        return None
    if m.group(1).lower().startswith("h"):
        return int(value) * 60 + int(m.group(2) or 0)
    before = _HOURS_BEFORE.search(claim.text, max(0, spec.start - 16), spec.start)
    return int(value) + (int(before.group(1)) * 60 if before else 0)


def _times(pool: EvidencePool, index: int) -> list[tuple[int, int, int]]:
    """The clock times of one passage (minutes after midnight, start, end), memoised per passage text."""
    memo = pool.memo(index)
    found = memo.get("times")
    if found is None:
        text = pool.lower(index)
        found = memo["times"] = [(t, m.start(), m.end()) for m in matches(EV_TIME, text, digit_starts)
                                 if (t := parse_time(m.group())) is not None]  # fmt: skip
    return found


def _duration(value: float, spec: Specific, claim: Claim, pool: EvidencePool):
    """A claimed duration as the time between two clock times the claim gives ("from 03:10 to 09:45") or
    from one time of the evidence to the next close by (a record's start and end), or written as a clock
    ("00:23:05" of a call, "-00:42" past an SLA). Any two of a log's many times are not tried: some pair
    would fit most durations."""
    minutes = _claimed_minutes(value, spec, claim)
    if not minutes:
        return None
    own = [s.value for s in claim.specifics if s.kind == "time" and isinstance(s.value, int)]
    for i, a in enumerate(own):  # "lasted 6 hours 35 minutes, from 03:10 to 09:45"
        if any((b - a) % 1440 == minutes for b in own[i + 1 :]):
            return f"{minutes} minutes between the claim's own times", []
    for index in range(len(pool)):
        times = _times(pool, index)
        for k, (t, s, e) in enumerate(times):
            if t == minutes:
                return f"{minutes} minutes written as a clock", [Hit(index, s, e)]
            # A record's start and end: the next time, close by ("start": "09:15", "end": "09:30").
            if k + 1 < len(times) and times[k + 1][1] - e < 160 and (times[k + 1][0] - t) % 1440 == minutes:
                return f"{minutes} minutes from one time to the next", [Hit(index, s, e), Hit(index, *times[k + 1][1:])]
    return None


# A duration in one unit from a figure in another: (factor, the other unit) per unit the claim says.
_FROM = {"minute": ((60, "hours"), (1 / 60, "seconds")), "hour": ((24, "days"), (1 / 60, "minutes")),
         "day": ((7, "weeks"), (1 / 24, "hours")), "week": ((1 / 7, "days"),), "month": ((12, "years"), (1 / 30, "days")),
         "year": ((1 / 12, "months"), (1 / 365, "days"))}  # fmt: skip
_FROM_UNITS = {**{u: f for u, f in _FROM.items()}, **{u + "s": f for u, f in _FROM.items()},
               "min": _FROM["minute"], "mins": _FROM["minute"], "hr": _FROM["hour"], "hrs": _FROM["hour"]}  # fmt: skip


# Words that say which operation gives a result: "less", "leaves" a difference, "plus", "in total" a sum.
_OP_WORDS = re.compile(r"\b(?:less|minus|leaves?|left|remains?|remaining|net|plus|in total|altogether|combined)\b", re.I)
_OPS_SAID = {"less": "-", "minus": "-", "leave": "-", "leaves": "-", "left": "-", "remain": "-", "remains": "-",
             "remaining": "-", "net": "-", "plus": "+", "in total": "+", "altogether": "+", "combined": "+"}  # fmt: skip


def _own_arithmetic(value: float, tolerance: float, spec: Specific, claim: Claim, numbers, region: Hit | None,
                    about: bool):  # fmt: skip
    """A figure as a sum, difference, product or quotient of two others: of the claim's own figures ("52.5
    GB of the 60 GB, which leaves 7.5 GB"; "instalment 14 of 24, 10 left"), or, after "about", of those and
    the eight figures nearest its region, to the claimed precision ("about £457 a year" for £38.12 a
    month x 12, "about $685" for 3,500 - 2,815.40). The claim's own figures are judged on their own."""
    figures = [s for s in claim.specifics if s.kind in ("number", "money", "percent")]
    if not figures or figures[-1] is not spec:
        return None  # the result comes last ("... which leaves 7.5"): an operand is not judged by the others
    own = _own_figures(spec, claim)
    pool = [(x, None) for x in own]
    ops = _OPS_SAID.get(next((m.group().lower() for m in _OP_WORDS.finditer(claim.text)), ""), "+-x/\\")
    if about and region is not None:
        pool += [(n[0], Hit(n[3], n[1], n[2])) for n in _nearest(numbers, region, 8)]
        pool += [(f, None) for f in _UNIT_FACTORS[:4]]  # per minute, hour, day, week, month: x60, x24, x7, x12
    for i, (a, at_a) in enumerate(pool):
        for b, at_b in pool[i + 1 :]:
            if a in _UNIT_FACTORS and b in _UNIT_FACTORS:
                continue
            for shown, how in ((a + b, "+"), (abs(a - b), "-"), (a * b, "x"), (a / b if b else math.inf, "/"),
                               (b / a if a else math.inf, "\\")):  # fmt: skip
                if how in ops and abs(shown - value) <= tolerance:
                    left, right = (b, a) if how == "\\" else (a, b)
                    sign = "/" if how == "\\" else how
                    return f"{_fmt(left)} {sign} {_fmt(right)} ({_fmt(round(shown, 2))})", [h for h in (at_a, at_b) if h]
    return None


def _fraction(value: float, half: float, numbers) -> tuple[float, int, int, int] | None:
    """A figure of the evidence that is the claimed percent as a fraction of one, to the claimed precision."""
    for v, s, e, index in numbers:
        if 0 < abs(v) < 1 and abs(v * 100 - value) <= half:
            return v, index, s, e
    return None


def _about_in_units(value: float, half: float, unit: str, numbers, region: Hit | None):
    """An 'about' duration as one of the nearest figures converted from another unit, to the claimed
    precision ("about 4 days" for a median of 96.5 hours): `_derive` asks for the exact figure."""
    near = _nearest(numbers, region, 40) if region is not None else numbers[:40]
    for v, s, e, index in near:
        for factor, other in _FROM_UNITS[unit]:
            if v and abs(v * factor - value) < half / (1 + 1e-9):  # strictly: 3.5 is no "about 4"
                return f"about {_fmt(v)} {other} in {unit}", Hit(index, s, e)
    return None


_DOWN = re.compile(r"\b(?:down|fell|fall(?:en|s|ing)?|drop(?:ped|s)?|decline[ds]?|decreased?|lower|less|shr[ua]nk|cut)\b", re.I)
_ABOUT = re.compile(r"(?:about|around|roughly|approximately|approx\.?|nearly|almost|~|≈)\s*\W{0,2}$", re.IGNORECASE)


def _converted(value: float, half: float, spec: Specific, claim: Claim, numbers, region: Hit | None):
    """A claimed figure as another of the claim's figures at a rate the evidence gives ("71,500 ISK, about
    €475" at 0.00664): the product or quotient, to the claimed precision, or within 1 % when the claim says
    "about". Only the claim's own figures times the six figures nearest its region: few pairs."""
    own = _own_figures(spec, claim)
    if not own or region is None:
        return None
    about = _ABOUT.search(claim.text[max(0, spec.start - 16) : spec.start]) is not None
    tolerance = max(half, 0.01 * abs(value)) if about else half
    nearest = _nearest(numbers, region, 6)  # sorts the pool's figures: once, not once per own figure
    for x in own:
        for n in nearest:
            rate = n[0]
            if rate in (0, 1) or rate == x:
                continue
            for shown, how in ((x * rate, "x"), (x / rate, "/")):
                if abs(shown - value) <= tolerance:
                    return f"{_fmt(x)} {how} {_fmt(rate)} ({_fmt(round(shown, 2))})", [Hit(n[3], n[1], n[2])]
    return None


def _contrast_number(spec: Specific, claim: Claim, pool: EvidencePool, region: Hit | None):
    """The evidence's own figure for what the claim quantified ("bags" -> "total_baggages": 1)."""
    return keyed_value(spec, claim, pool, region, EV_NUMBER, money=spec.kind == "money", year_ok=spec.kind == "year")
