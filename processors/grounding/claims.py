"""Atomic claims: split an output into one-fact units and class each FACTUAL, REASONING or OPINION.

"Booked for May 20 and costs $320" is two claims. Splitting is by sentence,
list item and table row, then at coordinating conjunctions and semicolons when
both sides carry something checkable (a specific, or enough content words).
Questions, greetings and code blocks are not claims.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass, replace
from operator import attrgetter

from ..core.claims import positional
from .lexicon import (
    COURTESY,
    GUESS,
    GUESS_HINTS,
    INTENT,
    LOOSE,
    NEGATORS,
    OPINION,
    OPINION_HINTS,
    REASONING,
    REASONING_HINTS,
    REASONING_LEAD,
    STOPWORDS,
    WORKED,
)
from .text import WORD, Folded, Specific, SpecificFields, lower_words, specific_fields, word_specifics

FACTUAL, REASONING_KIND, OPINION_KIND = "FACTUAL", "REASONING", "OPINION"

_FENCE = re.compile(r"```.*?(?:```|\Z)", re.S)
_UNITS = re.compile(r"[^\n]+")
# A sentence ends after ., ! or ? (and closing quotes or brackets) and white space before a capital, a
# digit or inline code ("What if it is a tab? `\\t`."): agents open sentences with a backticked name. The
# match starts at the stop itself, so `re` can skip to the next stop; the break is one past it.
_SENTENCE_END = re.compile(r"[.!?][\"')\]*]*\s+(?=[\"'(\[*]*[A-Z0-9`])")
# A clause break: "; " or ", and " / " but " / " while " ... before more text. Written to start with one
# character of [;,\s] (a lookbehind then says which) so `re` skips to candidates; same matches as
# r";\s+|,?\s+(?:and|but|...)\s+(?=\S)".
_JOINERS = r"(?:and|but|while|whereas|although|though)"
_CLAUSE = re.compile(rf"[;,\s](?:(?<=;)\s+|(?<=,)\s+{_JOINERS}\s+(?=\S)|(?<=\s)\s*{_JOINERS}\s+(?=\S))", re.IGNORECASE)
_LIST_MARK = re.compile(r"^[ \t]*(?:[-*•][ \t]+|\d+[.)][ \t]+|#+[ \t]+|>[ \t]+)")
_TABLE_RULE = re.compile(r"^[ \t]*(?:\|[ \t]*)?:?-{2,}")
_BLANK = re.compile(r"[^\n]")
_CUT_MARK = re.compile(
    r"^\W*(?:\.\.\.|…)?\s*\[\d[\d,]* more (?:characters|chars|lines|bytes)\]\W*$", re.IGNORECASE
)  # a cut, not a claim
_PLAIN = re.compile(r"[a-z]+")
_NEGATOR = re.compile(
    r"(?<![\w-])(?:" + "|".join(sorted(w for w in NEGATORS if w.isalpha())) + r")(?![\w-])", re.IGNORECASE
)


def _negates(text: str) -> bool:
    """Whether a negator stands as a word of its own: not the "NO" of a code such as NO6SVK, nor Python's
    `None` as a value ("`mask` is None"), which a capital after the sentence's start marks."""
    for m in _NEGATOR.finditer(text):
        if m.group() == "None" and m.start() > 0:
            continue
        return True
    return False


_QUARTER_CODE = re.compile(r"\bq[1-4]\b")
_START = attrgetter("start")
_BETWEEN = re.compile(r"\bbetween\s+[^\s,;]+(?:\s+[^\s,;]+)?\s*$", re.IGNORECASE)
_DIGITISH = re.compile(r"\d|[$€£]")
_ABBREVIATIONS = re.compile(r"\b(?:e\.g|i\.e|etc|vs|mr|mrs|ms|dr|no|approx|a\.m|p\.m)\.$", re.IGNORECASE)
_CLAUSE_FOLDED = Folded(_CLAUSE).fast
_INTENT, _GUESS, _REASONING, _OPINION = Folded(INTENT), Folded(GUESS), Folded(REASONING), Folded(OPINION)
_REASONING_LEAD = Folded(REASONING_LEAD)
_COURTESY = Folded(COURTESY)


def _may_guess(lower: str, bag: set[str]) -> bool:
    """A set test before GUESS. On ASCII text a match of one of GUESS's words between word boundaries is a
    word of the claim, or a part of a hyphenated or apostrophed word, which `bag` also holds; elsewhere
    case folding can match more ("ſhould"), so the pattern decides."""
    return not bag.isdisjoint(GUESS_HINTS) or not lower.isascii()


_NOT_CONTENT = STOPWORDS | LOOSE
# A lead-in whose list is what the agent will do ("I'll create a script that:", "Next steps:"); not one that
# presents what is ("Here are the details:", "To proceed, here is your booking:").
# "Let's look at / calculate / review ...:" presents what is, so "let me" and "let's" lead no plan here.
_PLAN_LEAD = re.compile(
    r"(?:thought:\s*)?(?:(?:now|next|first|then),?\s+)?(?:i'll|i will|i'm going to|i am going to|we'll|we will"
    r"|(?:i|we) (?:need|plan|want) to|(?:my |the )?plan\b|next steps?\b|steps:|to ?do:"
    # A prediction's lead-in: what a run "will find:" or "should print:" is no report of what it did.
    r"|.*\b(?:will|should|would)\s+(?:find|show|print|return|output|produce|contain|list|match)\b)",
    re.I,
)
# A worked example's lead: a labelled input or case ("Input `05`.", "Case 2:", "My logic: ..."), or a
# supposition. "Input validation fails" and "Case 81 is closed" are no such lead.
_WORKED_LEAD = re.compile(
    r"(?:(?:input|case|example|simplify|my logic|e\.g\.)\s*(?:\d+\s*)?[:`(]|(?:for example|e\.g\.),?\s"
    r"|(?:suppose|imagine|consider)\s)",
    re.I,
)
_INLINE_CODE = re.compile(r"`[^`\n]+`")
_COMPARED = re.compile(r"\b(?:vs\.?|versus|or|and)(?=\W|$)", re.IGNORECASE)


def _reports_amount(text: str, lower: str, found: tuple[Specific, ...]) -> bool:
    """ "You saved a total of $310": an amount the agent reports, a sum the grader can check (INFERRED when
    it adds up), not reasoning; unless the sentence opens with a conclusion word ("So the total is $242")."""
    return any(s.kind == "money" for s in found) and not _REASONING_LEAD.match(text, lower)


_ASSERTS = re.compile(r"\b(?:i|we|is|are|was|were|has|have|had|found|shows?|says?|costs?|departs?|arrives?)\b", re.I)


def _question(text: str) -> bool:
    """ "Is it X?" and a trailing-off "Is it X?..." are questions, not claims."""
    return text.endswith("?") or (text.endswith(("...", "…")) and text.rstrip(".…").endswith("?"))


def _heading(text: str) -> bool:
    """ "In `app/models.py`:", "Outgoing flight (May 19):": a label for what follows, asserting nothing.
    "I found a flight on May 24th:" asserts it found one, so a lead-in with a verb stays a claim."""
    return text.endswith(":") and _ASSERTS.search(text) is None


def _worked(text: str, found: tuple[Specific, ...]) -> bool:
    """A hand trace, a worked example or a line of code ("`x` = `f(2)`", "`visit(3 < 4)`"): the agent
    reasoning, not reporting. An amount keeps it a claim: a sum of prices is checked."""
    if any(s.kind == "money" for s in found):
        return False
    # Every form of WORKED holds "=", "->" or "→": most claims hold none and skip the search.
    if ("=" in text or "->" in text or "→" in text) and WORKED.search(text):
        return True
    if _WORKED_LEAD.match(text):  # "Input `05`.", "Case 2: ...", "Suppose `x` is 3.", "My logic: `1905`."
        return True
    # Nothing but inline code, or code set against code ("`10.9` vs `10.9.5`.").
    return "`" in text and not _COMPARED.sub("", _INLINE_CODE.sub("", text)).strip(" .,:;!*_-")


@dataclass(frozen=True, slots=True)
class Claim:
    """One atomic claim: its text and place in the output, its kind and the specifics it states."""

    text: str
    start: int
    end: int
    kind: str  # FACTUAL | REASONING | OPINION
    specifics: tuple[Specific, ...]  # offsets relative to the claim text
    content: tuple[str, ...]  # content words (lowercase) that are not loose vocabulary
    negated: bool = False


def split_claims(text: str, max_claims: int = 200) -> list[Claim]:
    """The atomic claims of `text`, in order."""
    claims: list[Claim] = []
    masked = _FENCE.sub(lambda m: _BLANK.sub(" ", m.group()), text) if "```" in text else text  # keep line breaks
    found = specific_fields(masked, opens_sentence=True, context=text)  # one pass over the whole output
    starts = [f[3] for f in found]
    seen: dict[str, list[str]] = {}  # words of the pieces looked at, for this output only
    # What a claim reads as, by its text, for this output only: an output that says a thing twice (a summary
    # restating its lead, a reply repeating a detail) reads it once. A pure function of the text and its
    # specifics (offsets relative to the claim), which a hit compares.
    made: dict[str, tuple[list[SpecificFields], tuple | None]] = {}
    planned_list = False  # the list items after a plan's lead-in ("I'll write a script that:") are its steps
    for unit in _UNITS.finditer(masked):
        line = unit.group()
        if not line.strip() or _TABLE_RULE.match(line) or ("[" in line and _CUT_MARK.match(line)):
            continue
        base = unit.start()
        mark = _LIST_MARK.match(line)
        offset = mark.end() if mark else 0
        lower = line.lower()
        sentences = _sentences(line, offset)
        if mark is None or mark.group().lstrip()[:1] == "#":  # not an item (a heading ends the list too)
            planned_list = line.rstrip().endswith(":") and _plan_lead(line, sentences)
        for s_start, s_end in sentences:
            pieces = _clauses(line, s_start, s_end, lower, seen)
            plan = (mark is not None and planned_list) or (len(pieces) > 1 and _plan(line[s_start:s_end]))
            for c_start, c_end in pieces:
                claim = _claim(text, base + c_start, base + c_end, found, starts, seen, made)
                if claim is not None and plan and claim.kind != OPINION_KIND:
                    claim = replace(claim, kind=OPINION_KIND)  # "I'll add X and `y`": `y` is planned too
                if claim is not None:
                    claims.append(claim)
                    if len(claims) >= max_claims:
                        return claims
    return claims


def _plan_lead(line: str, sentences: list[tuple[int, int]]) -> bool:
    """Whether the line's last sentence (the one its colon ends) leads in a plan's steps."""
    start = sentences[-1][0] if sentences else 0
    return _PLAN_LEAD.match(line[start:].strip().strip("*_|").strip()) is not None


def _plan(sentence: str) -> bool:
    """Whether a sentence opens with an intent ("I'll", "let me", "if ..."): every clause the splitter cuts
    from it is part of the plan, not only the first."""
    lead = sentence.strip().strip("*_|").strip()
    return _INTENT.match(lead, lead.lower())


def _sentences(line: str, offset: int) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    start = offset
    for m in _SENTENCE_END.finditer(line, offset):
        stop = m.start() + 1
        if _ABBREVIATIONS.search(line, max(0, stop - 6), stop):
            continue
        spans.append((start, stop))
        start = m.end()
    spans.append((start, len(line)))
    # Table rows: each cell run is one unit of facts about the row.
    return [(s, e) for s, e in spans if line[s:e].strip()]


def _clauses(line: str, start: int, end: int, lower: str, seen: dict[str, list[str]]) -> list[tuple[int, int]]:
    """`lower` is `line.lower()`: clause breaks are found there when the line is ASCII (same offsets)."""
    pieces: list[tuple[int, int]] = []
    cursor = start
    breaks = _CLAUSE_FOLDED.finditer(lower, start, end) if line.isascii() else _CLAUSE.finditer(line, start, end)
    for m in breaks:
        if "between" in lower[max(cursor, m.start() - 40) : m.start()] and _BETWEEN.search(lower, cursor, m.start()):
            continue  # "between 21 and 27 November" is one span, not two claims
        if _checkable(line, lower, cursor, m.start(), seen) and _checkable(line, lower, m.end(), end, seen):
            pieces.append((cursor, m.start()))
            cursor = m.end()
    pieces.append((cursor, end))
    return pieces


def _checkable(line: str, lower: str, start: int, end: int, seen: dict[str, list[str]]) -> bool:
    """Whether line[start:end] carries something checkable: a digit or currency, or three content words."""
    if _DIGITISH.search(line, start, end):
        return True
    if not line.isascii():  # lowercasing may change lengths there: words of the piece itself
        return sum(1 for w in WORD.findall(line[start:end]) if w.lower() not in STOPWORDS) >= 3
    return len([w for w in _words(lower[start:end], seen) if w not in STOPWORDS]) >= 3


def _words(lower: str, seen: dict[str, list[str]]) -> list[str]:
    """`lower_words`, remembered for one output: a clause tested for content is mostly a claim next."""
    words = seen.get(lower)
    if words is None:
        words = seen[lower] = lower_words(lower)
    return words


def _claim(
    text: str,
    start: int,
    end: int,
    every: list[SpecificFields],
    starts: list[int],
    seen: dict[str, list[str]],
    made: dict[str, tuple[list[SpecificFields], tuple | None]],
) -> Claim | None:
    raw = text[start:end]
    stripped = raw.strip().strip("*_|").strip()
    if not stripped:
        return None
    lead = raw.find(stripped)
    start, end = start + lead, start + lead + len(stripped)
    mine: list[SpecificFields] = []
    for i in range(bisect_left(starts, start), len(every)):
        kind, said, value, f_start, f_end, unit = every[i]
        if f_start >= end:
            break
        if f_end <= end:  # offsets relative to the claim's text
            mine.append((kind, said, value, f_start - start, f_end - start, unit))
    # Kept by text (a string hashes once), the specifics compared on a hit.
    kept = made.get(stripped)
    if kept is not None and kept[0] == mine:
        reading = kept[1]
    else:
        reading = _reading(stripped, mine, seen)
        made[stripped] = (mine, reading)
    if reading is None:
        return None
    return _new_claim(stripped, start, end, *reading)


def _reading(stripped: str, fields: list[SpecificFields], seen: dict[str, list[str]]) -> tuple | None:
    """What a claim text with these specifics reads as: (kind, specifics, content, negated), or None when it
    is no claim (a question, a courtesy, a heading, too little content)."""
    lower = stripped.lower()
    if _question(stripped) or _COURTESY.match(stripped, lower) or ("[" in stripped and _CUT_MARK.match(stripped)):
        return None
    if _heading(stripped):
        return None
    found = tuple([_specific(*f) for f in fields])
    words = _words(lower, seen)
    content = tuple([w for w in words if w not in _NOT_CONTENT])
    bag = set(words)
    if "-" in lower or "'" in lower:
        for w in words:
            if "-" in w or "'" in w:
                bag.update(_PLAIN.findall(w))
    if "q" in lower and _QUARTER_CODE.search(lower):
        bag.update(_QUARTER_CODE.findall(lower))  # "Q3" is no word of letters
    spelled = word_specifics(stripped, lower, bag, fields)
    if spelled:
        found = tuple(sorted([*found, *(_specific(*f) for f in spelled)], key=_START))
    if not found and len(content) < 2:
        return None
    # Every alternative of INTENT is anchored at ^ (and it is no MULTILINE pattern): match = search.
    if _INTENT.match(stripped, lower) or (_may_guess(lower, bag) and _GUESS.search(stripped, lower)):
        kind = OPINION_KIND  # a plan, a conditional or a guess: nothing is asserted to be so
    elif (not bag.isdisjoint(REASONING_HINTS) and _REASONING.search(stripped, lower)
          and not _reports_amount(stripped, lower, found)):  # fmt: skip
        kind = REASONING_KIND
    elif (not bag.isdisjoint(OPINION_HINTS) and not any(s.kind != "name" for s in found)
          and _OPINION.search(stripped, lower)):  # fmt: skip
        kind = OPINION_KIND
    else:
        kind = REASONING_KIND if _worked(stripped, found) else FACTUAL
    negated = "n't" in stripped or "n’t" in stripped or (not bag.isdisjoint(NEGATORS) and _negates(stripped))
    return kind, found, content, negated


# A claim and its specifics are made per claim of every output graded: set their slots directly.
_new_claim = positional(Claim, "text start end kind specifics content negated")
_specific = positional(Specific, "kind text value start end unit")


# A document's own modal wording, reported: "the bill would extend leave", "schools should give breaks every 20
# minutes". Not the writer's own hedge or advice; not "usually" ("`X` usually handles `Y`" is what an agent
# knows in general, and measured on the written sets it adds nothing "would" and "should" do not).
_REPORTED_MODAL = re.compile(r"\b(?:would|should)\b", re.IGNORECASE)
_PERSONAL = re.compile(
    r"\b(?:i|i'd|i'll|i'm|we|we'd|we'll|let's|you|your|please|probably|perhaps|maybe|likely|seems?|apparently"
    r"|think|believe|guess|suspect|assume|recommend|suggest)\b",
    re.IGNORECASE,
)


def as_reported(claim: Claim) -> Claim:
    """An OPINION claim whose only mark is a modal, read as FACTUAL: against documents a summary's "would"
    or "should" reports what the document says (a bill, a guideline, a policy), which the document can
    support or contradict. Called only when the evidence holds documents."""
    if claim.kind != OPINION_KIND or not _REPORTED_MODAL.search(claim.text) or _PERSONAL.search(claim.text):
        return claim
    if _INTENT.match(claim.text, claim.text.lower()):
        return claim  # a plan or a condition, not a modal report
    return replace(claim, kind=FACTUAL)
