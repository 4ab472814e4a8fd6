"""Words of a claim against the passage it rests on: antonyms, closed-class substitutes and negation.

"The flight is refundable" aligned to a passage that says "non-refundable", "before" where the evidence
says "after", a negated claim on a passage that is not negated. These read words, not parses, so their
grades stay below the default flag threshold except in documents' prose.
"""

from __future__ import annotations

import re

from .claims import Claim
from .evidence import EvidencePool, Hit
from .lexicon import ANTONYMS, CLOSED_CLASS, NEGATING_PREFIXES, NEGATION, OPPOSED_PREFIXES, STOPWORDS
from .problems import Problem, remembered
from .text import Folded, stem
from .trace import AGENT_ACTION

_NEGATION = Folded(NEGATION)  # on the pool's lowercased text: the case-sensitive compile where it is ASCII


def check_words(claim: Claim, pool: EvidencePool, region: Hit | None, problems: list[Problem], words: list[str],
                 known: dict[str, bool]) -> None:  # fmt: skip
    """Antonyms and closed-class substitutes of a claim word, in the passage region the claim rests on."""
    if region is None or pool.passages[region.passage].source == AGENT_ACTION:
        return  # a command or a file the agent wrote is no statement of what is so
    unknown = [w for w in words if not (known[w] or ("-" in w and pool.lookup(w, True, 1)))]
    if not unknown:
        _swapped_in_sentence(claim, pool, region, problems, words)
        return  # the evidence has every word: nothing was swapped but what its own sentence says
    # The opposite must sit in the passage the claim rests on: about a paragraph of a document, a few lines
    # of a tool's output.
    radius = 800 if pool.passages[region.passage].source in ("evidence", "retrieval") else 200
    window = pool.lower(region.passage)[max(0, region.start - radius) : region.end + radius]
    window = _without_fixed_phrases(window)
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
            and not _negated_in(opposite, word, window)
        ):
            swapped.append((word, opposite))
            continue
        cls = CLOSED_CLASS.get(word)
        if cls == "month" and any(sp.kind in ("month", "date") for sp in claim.specifics):
            continue  # a month the claim states is a specific, checked against the evidence's dates as one
        if cls is not None:
            if classed_here is None:
                classed_here = _closed_class_words(pool, region, radius, window)
            other = next((w for w in classed_here if CLOSED_CLASS[w] == cls and w != word), None)
            if other is not None:
                classed.append((word, other, cls))
    if not (swapped or classed):
        _swapped_in_sentence(claim, pool, region, problems, words)
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
        problems.append(Problem("antonym", f"claimed '{word}'; {cite} says '{opposite}'", confidence, hit))
    for word, other, cls in classed:
        hit = next((h for h in pool.find(other, limit=8) if h.passage == region.passage), region)
        cite = pool.passages[hit.passage].cite
        problems.append(Problem(cls, f"claimed '{word}'; {cite} says '{other}'", 0.8, hit))


_WORDS = re.compile(r"[a-z]+")
_HAS_ANTONYM = frozenset(ANTONYMS)


def _swapped_in_sentence(claim: Claim, pool: EvidencePool, region: Hit, problems: list[Problem], words: list[str]) -> None:
    """A word the evidence has elsewhere, whose antonym is in the very sentence the claim rests on: "the
    southern zone was below its median" where that sentence says "above" (and "below" is said of another
    zone). Read only in documents' prose, whose sentence the claim's other words pin down."""
    if pool.passages[region.passage].source not in ("evidence", "retrieval"):
        return
    lowered = claim.text.lower()
    # "below" and "above" are no content words: every word of the claim, those with antonyms picked in C
    said = _HAS_ANTONYM.intersection(_WORDS.findall(lowered))
    if not said:
        return  # most claims: no sentence to cut
    sentence = _without_fixed_phrases(pool.lower(region.passage)[region.start : region.end])
    for word in sorted(said, key=lowered.find):
        others = ANTONYMS[word]
        if _in_window(word, sentence):
            continue
        opposite = next((o for o in others if _in_window(o, sentence) and not _in_window(o, lowered)), None)
        if opposite is None:
            continue
        near = sum(1 for w in words if w != word and stem(w) in sentence)
        if near / max(1, len(words) - 1) < 0.7:
            return
        hit = next((h for h in pool.find(opposite, limit=8) if h.passage == region.passage and region.start <= h.start < region.end), region)
        cite = pool.passages[hit.passage].cite
        problems.append(Problem("antonym", f"claimed '{word}'; {cite} says '{opposite}' there", 0.8, hit))
        return


def _closed_class_words(pool: EvidencePool, region: Hit, radius: int, window: str) -> list[str]:
    """The closed-class words of `window` (the region with `radius` around it), in order; remembered per
    pool and window, since the claims of one passage share their region."""
    return remembered(
        pool, "closed_class_words", (region, radius), lambda: [w for w in _WORDS.findall(window) if w in CLOSED_CLASS]
    )


def _without_fixed_phrases(window: str) -> str:
    """The window without phrases whose opposite words say nothing of the claim's subject: a traceback's
    "most recent call last", an issue tracker's "(last modified by ...)"."""
    if "last" in window:
        window = window.replace("most recent call last", "").replace("last modified", "")
    return window


def _negated_in(opposite: str, word: str, window: str) -> bool:
    """Whether the window writes the prefix-opposite negated, saying what the claim's word says: "not
    cured" for "uncured", "not available" for "unavailable". (A true antonym negated, "not early", is no
    "late": only a negating prefix is read so.)"""
    if not any(word == p.rstrip("-") + opposite or opposite == p.rstrip("-") + word for p in NEGATING_PREFIXES):
        return False
    return re.search(rf"\b(?:not|never|no longer|n't)\s+(?:(?:been|be|yet|fully|properly)\s+)?{re.escape(opposite)}\b", window) is not None


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
    return remembered(pool, "opposites", word, lambda: _opposite(word, pool))


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
        if len(word) >= 4 and prefix + word in words:  # as above: "put" is no base of "input"
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


# A negator and the few words it negates, up to the clause's end: "isn't green: 2 tests failed" negates
# "green", not the tests.
_NEGATED_WORD = re.compile(
    r"(?:\b(?:not|no|never|cannot|without|nothing|nobody|none|neither|nor|no one)\b|n't\b|n’t\b)"
    r"((?:[ \t]+[\w'’/`-]+){1,4})",
    re.IGNORECASE,
)
# Words between a negator and what it negates ("isn't really affected", "wasn't able to cancel", "nothing
# was deployed").
_NEGATION_FILLER = frozenset(
    "a an the any be been being to able yet really very currently even ever at all so too much more longer"
    " is are was were has have had got get of".split()
)
# "isn't due until March", "cannot pause until ...": when it happens, not whether.
_UNTIL = re.compile(r"\b(?:until|till|before)\b")


def _negated_targets(text: str) -> list[str]:
    """The stems of the words each negation of `text` negates (its filler and stop words left out)."""
    targets = []
    for m in _NEGATED_WORD.finditer(text):
        targets.extend(stem(w) for w in _WORDS.findall(m.group(1).lower())
                       if w not in _NEGATION_FILLER and w not in STOPWORDS)  # fmt: skip
    return targets


def _negation_unmet(claim: str, window: str) -> bool:
    """Whether the passage states, un-negated, what the claim negates: a word the claim's negator negates
    is in the window ("the shelf isn't affected" needs "affected" there), and no occurrence of it has a
    negation of its own close by ("nothing is published yet", "asthma rather than COPD", "resolved": null,
    `cannot_cancel`, "refills_remaining": 0). A negation whose target the passage never names (a JSON
    record's "status": "delivered") cannot be read as contradicted there, nor one of time ("isn't due until
    March")."""
    if _UNTIL.search(claim.lower()):
        return False
    targets = _negated_targets(claim)
    if not targets:
        return True  # no word to look for: as before, the passage's missing negation is enough
    named = False
    for target in targets:
        at = window.find(target)
        while at != -1:
            named = True
            if _NEAR_NEGATION.search(window, max(0, at - 16), at + len(target) + 16):
                return False  # the passage negates it too, in its own words
            at = window.find(target, at + 1)
    return named


# A negation next to a word, as passages write it: the usual words, a record's false, null, zero or empty
# value, an identifier's "cannot_" or "no_", "rather than".
_NEAR_NEGATION = re.compile(
    r"\b(?:not|no|never|nothing|none|cannot|without|null|false|unable|rather than|instead of|n/a)\b|n't\b|n’t\b"
    r"|(?<![a-z])(?:not|no|cannot|cant|never|non)_|[\"']?\s*[:=]\s*(?:0|\[\]|\"\"|\{\})(?![\d.])"
)


def _negates_claim(sentence: str, stems: list[str]) -> bool:
    """Whether a negation of the passage's sentence negates one of the claim's words ("the drug did not
    reduce falls" for "the drug reduced falls"), not something else the sentence says ("causing no
    injuries", "neither party's liability")."""
    if not _NEGATION.search(sentence, sentence):
        return False
    targets = _negated_targets(sentence)
    return any(t in stems or any(s.startswith(t) or t.startswith(s) for s in stems if len(s) >= 4 and len(t) >= 4)
               for t in targets)  # fmt: skip


def check_polarity(claim: Claim, pool: EvidencePool, region: Hit, problems: list[Problem], words: list[str],
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
    if claim.negated and not _NEGATION.search(scope, scope) and _negation_unmet(claim.text, window):
        cite = pool.passages[region.passage].cite
        problems.append(
            Problem("negation", f"the claim is negated; the passage it rests on ({cite}) is not", 0.6, region)
        )
        return
    if prose and not claim.negated:
        sentence = text[region.start : region.end]
        on = len([s for s in stems if s in sentence])
        if on / len(words) >= 0.7 and _negates_claim(sentence, stems):
            cite = pool.passages[region.passage].cite
            reason = f"the passage it rests on ({cite}) is negated; the claim is not"
            problems.append(Problem("negation", reason, 0.55, region))
