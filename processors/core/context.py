"""Sentence context that tells an assertion from a question, a condition or an instruction.

A regex finds "Docker is running" equally in "Docker is running." and in
"Is Docker running?", "If Docker is running, ..." or "Make sure Docker is
running". Only the first asserts anything. These checks look at the sentence
around a match, cheaply, and only for texts that had a match at all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Fenced blocks and multi-word inline code are examples, commands or output,
# not the agent's own assertions. A single-token inline span stays: "`rg` is
# not installed" names its subject in backticks.
_FENCE = re.compile(r"(?ms)^[ \t]*(```|~~~)[^\n]*\n.*?(?:^[ \t]*\1[ \t]*$|\Z)")
_INLINE = re.compile(r"`[^`\n]+`")
_SENTENCE_END = re.compile(r"[.!?](?=\s|$)|\n")
_CLAUSE_BREAK = re.compile(r";|\bbut\b|\bhowever\b|\bwhereas\b|\bexcept\b|—|–| - ")

_QUESTION_LEAD = re.compile(
    r"^\W*(?:is|are|was|were|does|do|did|can|could|has|have|why|how|what|which|who|where|should|would|will)\b"
)
_CONDITIONAL = re.compile(
    r"\b(?:if|unless|whether|in case|assuming|assume|suppose|supposing|provided that|in the event|"
    r"once(?! again| more)|until|when(?:ever)? (?:you|we)|as long as|otherwise)\b"
)
_INSTRUCTION_LEAD = re.compile(
    r"^\W*(?:please\s+)?(?:make sure|ensure|be sure|verify|check|confirm|double[- ]check|see|try|consider|"
    r"remember|don't forget|do not forget|wait|test|determine|find out|install|ask|tell)\b"
)
_SUGGESTION = re.compile(
    r"\b(?:you|we|they) (?:might|may|could|should|must|need to|have to|will need to|'ll need to|'ll want to|"
    r"will want to|want to|ought to)\b|\b(?:i|we) (?:recommend|suggest|advise|would suggest|'d suggest|"
    r"'d recommend)\b|\b(?:make sure|ensure|be sure) (?:that )?|\bconsider\b|\bto (?:make sure|ensure)\b"
)
_INTENT = re.compile(
    r"\b(?:let me|let's|let us|i'll|i will|i'm going to|i am going to|i need to|i want to|i'd like to|"
    r"we need to|we'll|we will|i should|going to|about to|trying to|i'm checking|i am checking|"
    r"i'll now|next,? i)\b"
)
_VERIFY_RIGHT_BEFORE = re.compile(
    r"\b(?:check|verify|confirm|see|determine|test|find out|investigate|ensure|know)\s+(?:that\s+|if\s+|whether\s+)?$"
)
_HEDGE = re.compile(
    r"\b(?:seems?|seemingly|appears?|apparently|might|may|could|possibly|probably|perhaps|maybe|likely|"
    r"unlikely|presumably|supposedly|i think|i believe|i suspect|i guess|i assume|not sure|unsure|"
    r"unclear|not certain|potentially|looks like|it's possible|suggests?|as far as i can tell|"
    r"i'm not certain|might be|could be)\b"
)
_NEGATED_FRAME = re.compile(r"\b(?:not true|isn't true|is false|incorrect|wrong) that\b|\bnot that\b")
_ASCII_APOS = str.maketrans({"’": "'", "‘": "'"})

HEDGE_FACTOR = 0.6


@dataclass(frozen=True, slots=True)
class Sentence:
    start: int
    end: int
    terminator: str


def mask_code(text: str) -> str:
    """Blank out code (same length, so offsets still point into the original text)."""
    if "`" not in text and "~~~" not in text:
        return text
    chars = list(text)

    def blank(start: int, end: int) -> None:
        for i in range(start, end):
            if chars[i] != "\n":
                chars[i] = " "

    for m in _FENCE.finditer(text):
        blank(m.start(), m.end())
    masked = "".join(chars)
    for m in _INLINE.finditer(masked):
        inner = m.group(0)[1:-1]
        if any(ch.isspace() for ch in inner.strip()) or not inner.strip():
            blank(m.start(), m.end())
    return "".join(chars)


def sentence_at(text: str, pos: int) -> Sentence:
    """The sentence around `pos`: from after the previous terminator to the next one."""
    start = 0
    for m in _SENTENCE_END.finditer(text, max(0, pos - 400), pos):
        start = m.end()
    nxt = _SENTENCE_END.search(text, pos)
    end = nxt.start() if nxt else len(text)
    terminator = nxt.group(0) if nxt else ""
    if terminator == "\n":
        # A line without punctuation can still end in a question mark before trailing spaces.
        stripped = text[start:end].rstrip()
        terminator = "?" if stripped.endswith("?") else "\n"
    return Sentence(start, end, terminator)


@dataclass(frozen=True, slots=True)
class Frame:
    """What the sentence around a claim says about it."""

    asserted: bool
    reason: str | None
    hedged: bool


def frame_claim(text: str, claim_start: int, match_end: int) -> Frame:
    """Decide whether the words before a claim make it a question, condition, instruction or intent."""
    sentence = sentence_at(text, claim_start)
    if sentence.terminator == "?" or _next_nonspace(text, match_end) == "?":
        return Frame(False, "question", False)
    prefix = text[sentence.start : claim_start].lower().translate(_ASCII_APOS)
    clause = _last_clause(prefix)
    whole = (prefix + text[claim_start:match_end].lower()).translate(_ASCII_APOS)
    if _QUESTION_LEAD.match(prefix) and not clause.strip():
        return Frame(False, "question", False)
    if _CONDITIONAL.search(clause):
        return Frame(False, "conditional", False)
    if _INSTRUCTION_LEAD.match(clause) or _SUGGESTION.search(clause):
        return Frame(False, "suggestion", False)
    if _INTENT.search(clause) or _VERIFY_RIGHT_BEFORE.search(clause):
        return Frame(False, "intent", False)
    if _NEGATED_FRAME.search(clause):
        return Frame(False, "negated", False)
    return Frame(True, None, bool(_HEDGE.search(_last_clause(whole))))


def _last_clause(prefix: str) -> str:
    ends = [m.end() for m in _CLAUSE_BREAK.finditer(prefix)]
    return prefix[ends[-1] :] if ends else prefix


def _next_nonspace(text: str, pos: int) -> str:
    for ch in text[pos : pos + 40]:
        if not ch.isspace():
            return ch
    return ""
