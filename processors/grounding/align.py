"""Align a claim to the evidence: the passage region its words and specifics point to.

The region is what the other steps read around (a contradicting value, an antonym, a negation); a claim
with no region is judged on its specifics alone.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right

from .claims import Claim
from .evidence import ANCHOR_LIMIT, EvidencePool, Hit, new_hit
from .problems import remembered

_HYPHEN = re.compile(r"[-'’]")


def align(claim: Claim, pool: EvidencePool, words: list[str], stems: list[str], known: dict[str, bool]) -> Hit | None:
    """The evidence region most of the claim's words and specifics point to (`words`: the content words
    of three letters or more, `stems` theirs; `known`: whether the evidence has each content word)."""
    anchors: list[str] = []
    for spec in claim.specifics:
        if spec.kind == "name":
            anchors.extend(spec.value)  # type: ignore[arg-type]
        elif spec.kind in _ANCHOR_KINDS:
            anchors.append(str(spec.value))
    if anchors:
        has = pool.words
        anchors = [a for a in anchors if a in has]
    # Whether the evidence has a word's stem is what `known` says of the word: a word of the evidence stems
    # to a stem of the evidence, and for any other word `has_word` asked `has_stem` itself.
    found = [s for w, s in zip(words, stems, strict=True) if len(w) > 3 and known[w]]
    if found:
        found.sort(key=len, reverse=True)
        anchors.extend(found)
    if not anchors:
        return None
    key = tuple(dict.fromkeys(anchors))[:4]
    return remembered(pool, "regions", key, lambda: _region(key, pool))


_ANCHOR_KINDS = frozenset(("id", "email", "url", "code"))



def _region(anchors: tuple[str, ...], pool: EvidencePool) -> Hit | None:
    """The sentence around the densest cluster of anchors: most distinct anchors within 320 characters."""
    positions: list[tuple[int, int, int]] = []  # (passage, pos, anchor index)
    common: list[int] = []  # anchors with more occurrences than were asked for
    for i, anchor in enumerate(anchors):
        hits = pool.lookup(anchor, False, ANCHOR_LIMIT)
        positions.extend([(h.passage, h.start, i) for h in hits])
        if len(hits) == ANCHOR_LIMIT:
            common.append(i)
    if not positions:
        return None
    positions.sort()
    best, best_score, most = _slide(positions, len(anchors))
    if best_score < most and common and len(common) < len(anchors):
        # No window holds every anchor found: a common anchor's later occurrences may complete one.
        near = _near_rare(anchors, common, positions, pool)
        if near:
            positions.extend(near)
            positions.sort()
            best, best_score, most = _slide(positions, len(anchors))
    passage, pos = best
    text = pool.lower(passage)
    breaks = _breaks(pool, passage)
    start, end = _sentence(text, pos, breaks)
    if best_score > 1:
        start, end = _fullest_sentence(text, passage, pos, (start, end), positions, best_score, breaks)
    return new_hit(passage, start, end)


def _breaks(pool: EvidencePool, passage: int) -> tuple[list[int], list[int], list[int]]:
    """Where one passage's sentences may break, kept with its text (the claims of an output align to a few
    passages, each many times): its line breaks; the places of ". ", "! " and "? "; and every place a
    sentence can end at, a line break or a ".", "!" or "?" before white space (where
    `[.!?]\\s|\\n` can match). Found with `str.find`; `_sentence` bisects them."""
    memo = pool.memo(passage)
    found = memo.get("sentence_breaks")
    if found is None:
        text = pool.lower(passage)
        lines = []
        at = text.find("\n")
        while at != -1:
            lines.append(at)
            at = text.find("\n", at + 1)
        dots, ends = [], lines[:]
        for stop in ".!?":
            at = text.find(stop)
            while at != -1:
                after = text[at + 1 : at + 2]
                if after.isspace():  # str.isspace is what `re` reads as \s
                    ends.append(at)
                    if after == " ":
                        dots.append(at)
                at = text.find(stop, at + 1)
        dots.sort()
        ends.sort()
        found = memo["sentence_breaks"] = (lines, dots, ends)
    return found


def _sentence(text: str, pos: int, breaks: tuple[list[int], list[int], list[int]]) -> tuple[int, int]:
    """The bounds of the sentence (or line) around `pos`, at most about 200 characters back, 300 on: after
    the last line break or ". ", "! ", "? " within 200 characters before `pos`, up to the first stop before
    white space or line break within 300 after it. `breaks` is `_breaks` of the passage: the same bounds as
    `rfind` backward and a regex search forward would give, found by bisection."""
    lines, dots, ends = breaks
    lo = max(0, pos - 200)
    i = bisect_left(lines, pos) - 1  # the last line break before pos
    cut = lines[i] if i >= 0 and lines[i] >= lo else -1
    i = bisect_right(dots, pos - 2) - 1  # the last ". " that ends by pos
    dot = dots[i] if i >= 0 and dots[i] >= lo else -1
    start = max(cut + 1, dot + 2) if max(cut, dot) >= 0 else lo
    stop = min(len(text), pos + 300)
    i = bisect_left(ends, pos)
    # The first place a break can match from pos on, if its match ends by `stop` (a line break is one
    # character, a stop and its white space two): a later place ends later still.
    if i < len(ends) and ends[i] + (1 if text[ends[i]] == "\n" else 2) <= stop:
        return start, ends[i] + 1
    return start, stop


def _fullest_sentence(text, passage, pos, around, positions, score, breaks) -> tuple[int, int]:
    """Of the sentences the best window spans, the one holding the most distinct anchors: the window's
    middle may fall in a sentence next to the one the anchors are in ("the northern zone ... below the
    median. In the southern zone, 84.0%, above the median": "southern", "84.0" and "median" point to the
    second). `positions` is sorted: the anchors within `_WINDOW` of `pos` are one slice of it, and those a
    sentence holds one slice of that."""
    lo, hi = bisect_left(positions, (passage, pos - _WINDOW)), bisect_left(positions, (passage, pos + _WINDOW + 1))
    inside = positions[lo:hi]
    places = [p for _, p, _ in inside]
    anchors = [a for _, _, a in inside]

    def held(bounds):
        return len(set(anchors[bisect_left(places, bounds[0]) : bisect_left(places, bounds[1])]))

    best, most = around, held(around)
    if most >= score:
        return around  # the middle's sentence holds every anchor of the window: the common case
    seen = around
    every = len(set(anchors))  # no sentence can hold more: once one holds these, it is the answer
    for p in places:  # in text order: a sentence is cut once, for its first anchor
        if most == every:
            break
        if seen[0] <= p < seen[1] or around[0] <= p < around[1]:
            continue
        seen = _sentence(text, p, breaks)
        if (count := held(seen)) > most:
            best, most = seen, count
    return best


def _slide(positions: list[tuple[int, int, int]], count: int) -> tuple[tuple[int, int], int, int]:
    """(passage and middle of the first window with the most distinct anchors within `_WINDOW` characters,
    its anchor count, the distinct anchors found at all); `positions` sorted (passage, pos, anchor)."""
    best, best_score = (positions[0][0], positions[0][1]), 0
    most = len({anchor for _, _, anchor in positions})
    if count < 2:
        return best, 1, most
    # The first window holding every anchor found is the answer: only a window with more distinct
    # anchors replaces the best one, so the slide stops there.
    lo = 0
    counts = [0] * count  # anchor -> occurrences inside the sliding window
    inside = 0  # distinct anchors inside the window
    for passage, pos, anchor in positions:
        if not counts[anchor]:
            inside += 1
        counts[anchor] += 1
        while positions[lo][0] != passage or pos - positions[lo][1] > _WINDOW:
            gone = positions[lo][2]
            counts[gone] -= 1
            if not counts[gone]:
                inside -= 1
            lo += 1
        if inside > best_score:
            best, best_score = (passage, positions[lo][1] + (pos - positions[lo][1]) // 2), inside
            if inside == most:
                break
    return best, best_score, most


def _near_rare(
    anchors: tuple[str, ...], cut: list[int], positions: list[tuple[int, int, int]], pool: EvidencePool
) -> list[tuple[int, int, int]]:
    """The occurrences of the common anchors ("flight", "available") near each occurrence of the rare ones
    ("hat030"). Only a common anchor's first occurrences are looked up, and in a list of records they all
    fall in the first passages: without these, the record the rare anchor names ("Error: flight HAT030 not
    available") is never seen to hold them too, and the claim aligns to another flight's record."""
    found: set[tuple[int, int, int]] = set()
    for passage, pos, i in positions:
        if i in cut:
            continue
        text = pool.lower(passage)
        lo, hi = max(0, pos - _WINDOW), min(len(text), pos + len(anchors[i]) + _WINDOW)
        for j in cut:
            at = text.find(anchors[j], lo, hi)
            while at != -1:
                found.add((passage, at, j))
                at = text.find(anchors[j], at + 1, hi)
    return list(found.difference(positions))


_WINDOW = 320  # characters a region's anchors may spread over


def content_support(claim: Claim, pool: EvidencePool, known: dict[str, bool]) -> tuple[int, int]:
    """(content words the evidence has, content words); `known` says which words it has."""
    words = [w for w in claim.content if len(w) > 1 and not w.isdigit()]
    return len([w for w in words if known[w] or _hyphen_parts(w, pool)]), len(words)


def _hyphen_parts(word: str, pool: EvidencePool) -> bool:
    if "-" not in word and "'" not in word and "’" not in word:
        return False  # one part: nothing to look up
    parts = [p for p in _HYPHEN.split(word) if len(p) > 1]
    return len(parts) > 1 and all(pool.has_word(p) for p in parts)
