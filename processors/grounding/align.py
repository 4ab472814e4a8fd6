"""Align a claim to the evidence: the passage region its words and specifics point to.

The region is what the other steps read around (a contradicting value, an antonym, a negation); a claim
with no region is judged on its specifics alone.
"""

from __future__ import annotations

import re

from .claims import Claim
from .evidence import ANCHOR_LIMIT, EvidencePool, Hit, new_hit
from .problems import remembered

_HYPHEN = re.compile(r"[-'’]")


_SENT_BREAK = re.compile(r"[.!?]\s|\n")


def align(claim: Claim, pool: EvidencePool, words: list[str], stems: list[str]) -> Hit | None:
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
    return remembered(pool, "regions", key, lambda: _region(key, pool))


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


def content_support(claim: Claim, pool: EvidencePool, known: dict[str, bool]) -> tuple[int, int]:
    """(content words the evidence has, content words); `known` says which words it has."""
    words = [w for w in claim.content if len(w) > 1 and not w.isdigit()]
    return len([w for w in words if known[w] or _hyphen_parts(w, pool)]), len(words)


def _hyphen_parts(word: str, pool: EvidencePool) -> bool:
    if "-" not in word and "'" not in word and "’" not in word:
        return False  # one part: nothing to look up
    parts = [p for p in _HYPHEN.split(word) if len(p) > 1]
    return len(parts) > 1 and all(pool.has_word(p) for p in parts)
