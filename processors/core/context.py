"""Sentence context that tells an assertion from a question, a condition or an instruction.

A regex finds "Docker is running" equally in "Docker is running." and in
"Is Docker running?", "If Docker is running, ..." or "Make sure Docker is
running". Only the first asserts anything. These checks look at the sentence
around a match, cheaply, and only for texts that had a match at all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import re2

# The sentence-frame expressions run on RE2 (a DFA: these alternations cost Python's
# backtracking engine tens of microseconds per claim). RE2 has no lookahead, so a sentence
# end consumes the space after it, and words that only look like a frame are rewritten before the
# search (`_NOT_A_FRAME`).
_SENTENCE_END = re.compile(r"[.!?](?=\s|$)|\n")
_CLAUSE_BREAK = re2.compile(r";|\bbut\b|\bhowever\b|\bwhereas\b|\bexcept\b|—|–| - ")

# A prefix that is only an interrogative: "Is |Docker running", "Why is |the build failing".
_QUESTION_LEAD = re.compile(
    r"^\W*(?:(?:why|how|what|which|who|where|when)\s+)?"
    r"(?:is|are|was|were|does|do|did|can|could|has|have|should|would|will)\s*$"
)
_CONDITIONAL = re.compile(
    r"\b(?:if|unless|whether|in case|assuming|assume|suppose|supposing|provided that|in the event|"
    r"once|until|when(?:ever)? (?:you|we)|as long as|otherwise)\b"
    # Generic statements ("usually fields are defined ...", "refunds typically go back ...") and
    # temporal clauses ("after the booking is complete") assert no particular fact.
    r"|\b(?:usually|typically|generally|normally|in general|in some cases|in most cases|often)\b"
    r"|(?:^|,\s*|\s)(?:after|before)\s+(?:[^\s,]+\s+){0,4}$"
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
_VERIFY_RIGHT_BEFORE = re2.compile(
    r"\b(?:check|verify|confirm|determine|find out|investigate|ensure|know)\s+(?:that\s+|if\s+|whether\s+)?$"
    # "see" only as a check ("to see if", "let me see whether", "and see that"): "I see test-output is already in
    # .gitignore" reports what the agent sees.
    # ("see if", "see whether" are the embedded question's below).
    r"|\b(?:to|and|me|us|'ll|will|would|then|please|'d)\s+see\s+(?:that\s+)?$"
    # An embedded question: "locate where the commands are defined", "see how it is configured".
    r"|\b(?:locate|find|see|check|know|determine|identify|understand|figure out|show|look at|explain|investigate"
    r"|learn|find out|verify|confirm|ask|wonder|tell)\s+(?:exactly\s+)?(?:where|how|why|whether|if|what|which|when)\s+"
    r"(?:\S+\s+){0,3}$"
)
_HEDGE = re2.compile(
    r"\b(?:seems?|seemingly|appears?|apparently|might|may|could|possibly|probably|perhaps|maybe|likely|"
    r"unlikely|presumably|supposedly|i think|i believe|i suspect|i guess|i assume|not sure|unsure|"
    r"unclear|not certain|potentially|looks like|it's possible|suggests?|as far as i can tell|"
    r"i'm not certain|might be|could be)\b"
)
_NEGATED_FRAME = re.compile(r"\b(?:not true|isn't true|is false|incorrect|wrong) that\b|\bnot that\b")
_ASCII_APOS = str.maketrans({"’": "'", "‘": "'"})

_WHEN = re2.compile(r"\bwhen(?:ever)?\b")
_PAST = re2.compile(
    r"\b(?:was|were|wasn't|weren't|had|has been|have been|hasn't been|haven't been|failed|crashed|timed out"
    r"|errored|went down|passed|succeeded)\b"
)
_NOT_ASSERTED = re2.compile(
    rf"(?P<conditional>{_CONDITIONAL.pattern})|(?P<suggestion>{_SUGGESTION.pattern})"
    rf"|(?P<intent>{_INTENT.pattern})|(?P<negated>{_NEGATED_FRAME.pattern})"
)

HEDGE_FACTOR = 0.6
# The claim's own words are a few dozen characters: Python's engine is quicker there than a
# call into the RE2 binding.
_PAST_SHORT = re.compile(_PAST.pattern)
_HEDGE_SHORT = re.compile(_HEDGE.pattern)

# One RE2 pass over a clause tells which of the frame expressions occur in it; the binding
# costs microseconds per call, so one call replaces five.
_FRAME_SET_ORDER = ("not_asserted", "verify", "when", "hedge")
_FRAME_OPTIONS = re2.Options()
_FRAME_OPTIONS.log_errors = False
_FRAME_SET = re2.Set.SearchSet(_FRAME_OPTIONS)
for _source in (_NOT_ASSERTED.pattern, _VERIFY_RIGHT_BEFORE.pattern, _WHEN.pattern, _HEDGE.pattern):
    _FRAME_SET.Add(_source)
_FRAME_SET.Compile()


@dataclass(frozen=True, slots=True)
class Sentence:
    start: int
    end: int
    terminator: str


# Everything up to the last terminator (a newline, or . ! ? and a space, tab or CR): matched
# greedily, it backtracks from the end of the window to that terminator, without a copy.
_UP_TO_TERMINATOR = re.compile(r"(?s:.*)(?:\n|[.!?][ \t\r])")
_STOPS = (". ", "! ", "? ", ".\t", "!\t", "?\t", ".\r", "\n")
_STOP = re.compile("|".join(map(re.escape, _STOPS)))
_LOOK = 400  # how far a sentence is followed either way


def sentence_at(text: str, pos: int) -> Sentence:
    """The sentence around `pos`: from after the previous terminator to the next one.

    Terminators are searched within `_LOOK` characters either way (this runs once per
    candidate claim).
    """
    return Sentence(*_bounds(text, pos))


def _bounds(text: str, pos: int) -> tuple[int, int, str]:
    """`sentence_at` as a plain tuple (start, end, terminator)."""
    low = max(0, pos - _LOOK)
    back = _UP_TO_TERMINATOR.match(text, low, pos)  # the nearest terminator before `pos`
    start = back.end() if back else low
    # The first of `_STOPS` within the window: one search instead of a str.find per stop.
    found = _STOP.search(text, pos, pos + _LOOK + 1)
    if found is not None:
        end = found.start()
        terminator = text[end]
    else:
        end, terminator = min(len(text), pos + _LOOK), ""
        if end == len(text) and text[end - 1 : end] in (".", "!", "?"):
            end, terminator = end - 1, text[end - 1]  # the text ends with the sentence
    if terminator == "\n":
        # A line without punctuation can still end in a question mark before trailing spaces.
        terminator = "?" if text[start:end].rstrip().endswith("?") else "\n"
    return start, end, terminator


@dataclass(frozen=True, slots=True)
class Frame:
    """What the sentence around a claim says about it."""

    asserted: bool
    reason: str | None
    hedged: bool


# A list's lead that makes its items conditions, not facts: "you can change it online as long as:", "You are eligible
# if:", "Requirements:", "Make sure that:". Matched on the lead's last line, which ends with a colon.
_CONDITION_LEAD = re.compile(
    r"\b(?:as long as|provided that|only if|only when|on condition that|eligible if|qualif(?:y|ies) if|to qualify"
    r"|(?:must|need to|needs to|have to|has to) (?:be|meet|have|satisfy)|make sure|ensure)\b[^\n]*:\s*$"
    r"|\b(?:conditions|requirements|criteria)(?:\s+(?:are|is)\s+met|\s+apply)?\s*:\s*$",
    re.IGNORECASE,
)
_BULLET = re.compile(r"[ \t]*(?:[-*•+]|\d{1,2}[.)])[ \t]")
_LEAD_LOOK = 3000  # how far back a list's lead is looked for


def _under_condition_lead(text: str, claim_start: int) -> bool:
    """Whether the claim is an item of a list whose lead makes its items conditions ("as long as:")."""
    line = text.rfind("\n", 0, claim_start) + 1
    if not _BULLET.match(text, line):
        return False
    floor = max(0, claim_start - _LEAD_LOOK)
    while line > floor:
        previous = text.rfind("\n", 0, line - 1) + 1
        row = text[previous : line - 1]
        if row.strip() and not _BULLET.match(row):
            return _CONDITION_LEAD.search(row) is not None
        line = previous
        if previous == 0:
            break
    return False


def frame_claim(text: str, claim_start: int, match_end: int) -> Frame:
    """Decide whether the words before a claim make it a question, condition, instruction or intent."""
    if _under_condition_lead(text, claim_start):
        return _CONDITIONAL_FRAME
    start, end, terminator = _bounds(text, claim_start)
    # The next character that is not a space: "Is Docker running?" (str.lstrip runs in C).
    if (terminator == "?" and not _quoted_after(text, match_end, end)) or text[
        match_end : match_end + 40
    ].lstrip()[:1] == "?":
        return _QUESTION
    prefix = _ascii_apostrophes(text[start:claim_start].lower())
    if not prefix:  # the claim opens its sentence: nothing before it can frame it
        return _HEDGED if _hedged(_ascii_apostrophes(text[claim_start:match_end].lower())) else _ASSERTED
    framed, hits = _prefix_frame(prefix)
    if framed is not None:
        return framed
    claim_text = _ascii_apostrophes(text[claim_start:match_end].lower())
    # "returns 404 when the resource is not found" describes behaviour; "when I checked,
    # docker was not running" reports what happened: only present tense is conditional.
    if 2 in hits and not _PAST_SHORT.search(claim_text):
        return _CONDITIONAL_FRAME
    return _HEDGED if 3 in hits or _hedged(claim_text) else _ASSERTED


def _quoted_after(text: str, claim_end: int, question_mark: int) -> bool:
    """Whether the question mark ending the sentence sits inside a quotation opened after the claim:
    'A dialog popped up: "Keep current format?' asks nothing of the reader."""
    between = text[claim_end:question_mark]
    return between.count('"') % 2 == 1 or between.count("“") > between.count("”")


def _prefix_frame(prefix: str) -> tuple[Frame | None, tuple[int, ...]]:
    """What the words before a claim decide on their own: a frame that is not an assertion,
    or None and which frame expressions (`_FRAME_SET_ORDER`) the last clause holds.

    A function of the prefix alone, remembered: agents open claims with the same few words
    ("the ", "your reservation ", "i ") again and again, and this is most of the frame's cost.
    """
    known = _PREFIX_FRAMES.get(prefix)
    if known is not None:
        return known
    known = _prefix_frame_uncached(prefix)
    if len(_PREFIX_FRAMES) >= _MAX_PREFIXES:
        _PREFIX_FRAMES.clear()
    _PREFIX_FRAMES[prefix] = known
    return known


def _prefix_frame_uncached(prefix: str) -> tuple[Frame | None, tuple[int, ...]]:
    if _QUESTION_LEAD.match(prefix):
        return _QUESTION, ()
    clause = _last_clause(prefix)
    if _may_look_like_a_frame(clause):
        clause = _NOT_A_FRAME.sub(_unframed, clause)
    if _INSTRUCTION_LEAD.match(clause):
        return _SUGGESTION, ()
    hits = tuple(_frame_hits(clause)) if clause else ()
    if 0 in hits:
        marker = _NOT_ASSERTED.search(clause)
        if marker is not None:
            return Frame(False, marker.lastgroup, False), hits
    if 1 in hits:
        return _INTENT_FRAME, hits
    if _reported(clause):
        return _REPORTED_FRAME, hits
    return None, hits


# Words that look like a frame and are none, rewritten before the frame is read: "once again" is no
# condition; "Wait, I don't see ..." an interjection, not "wait for ..."; "my guidelines don't let me"
# no intent; "I should mention that ...", "I should be upfront: ...", "I can see that ...": the agent says
# or saw what follows, it plans or checks nothing. RE2 has no lookahead, so this runs before the search.
_NOT_A_FRAME = re.compile(
    r"once (?:again|more)|^wait,|n't let me|not let me"
    r"|\bi should (?:also )?(?:mention|note|clarify|point out|say|add|flag|stress|emphasi[sz]e|let you know|tell you"
    r"|be (?:upfront|clear|transparent|honest))\b"
    r"|\bi (?:can )?(?:see|notice|noticed|saw) that\b"
    # "I need to inform you that this reservation is not eligible": the agent says what follows, it plans nothing.
    r"|\b(?:i|we) (?:need|have|must|regret|want|'d like|would like) to (?:inform|tell|let) you(?: know)?\b"
)
_UNFRAMED = {"once again": "again", "once more": "more", "wait,": "", "n't let me": " forbid me", "not let me": "forbid me"}
# Words each alternative of `_NOT_A_FRAME` holds: a clause with none of them is left as it is without the search
# (Python's engine tries the alternation at every offset; a prefix is read once per text, so first reads pay it).
_NOT_A_FRAME_WORDS = (
    "once ", "wait,", "let me", "i should ", "see that", "notice that", "noticed that", "saw that", "to inform you",
    "to tell you", "to let you",
)  # fmt: skip


def _may_look_like_a_frame(clause: str) -> bool:
    """False when `_NOT_A_FRAME` cannot match `clause` (it holds none of `_NOT_A_FRAME_WORDS`)."""
    for words in _NOT_A_FRAME_WORDS:
        if words in clause:
            return True
    return False


def _unframed(m: re.Match) -> str:
    return _UNFRAMED.get(m.group(), "i report")


# Reported speech right before the claim: "the customer says exports have been stuck", "a maintainer says a fix
# is merged", "earlier I told you the coupon had been applied". Someone's words (or the agent's earlier ones),
# reported, not asserted (GUIDE.md: quoted text "is reported, not asserted by the agent"). Only verbs of saying
# ("the log shows ...", "the page confirms ..." are what the agent saw), and not when a screen is the sayer: "the
# form now says the message was delivered" is what the page displays, as '... says "Sent"' is. Not a noun
# ("the Reports menu", "the claims page"): a determiner or "the" just before it.
_REPORTED = re.compile(
    r"(?<!\bthe )(?<!\ba )(?<!\ban )(?<!\bmy )(?<!\bour )(?<!\byour )(?<!\bits )(?<!\bthis )(?<!\btheir )"
    r"\b(?:says|said|saying|reports|reported|states|stated|claims|claimed|claiming|mentions|mentioned|writes|wrote"
    r"|replied|replies|answered|explains|explained|tells\s+(?:me|us|you)|told\s+(?:me|us|you))"
    r"(?:\s+(?:that|again|here|there|earlier|before))?\s*$"
)
# A screen, a page or a control displaying something is an observation, not speech (see `_REPORTED`).
_SCREEN_SAYS = re.compile(
    r"\b(?:page|panel|form|banner|screen|dialog|modal|pop-?up|toast|notification|alert|tooltip|badge|label|status"
    r"|confirmation|dashboard|console|window|pane|header|field|button|menu|card|widget|bar|site|app|ui|display"
    r"|prompt|overlay|message\s+(?:below|above|under)\s+\S+|\S+\s+bar)\s+(?:now\s+|still\s+|also\s+|just\s+)?\S+"
    r"(?:\s+that)?\s*$"
)


# What the user told the agent, taken up with sympathy or relief: "I'm sorry to hear your card isn't working",
# "glad to hear the app works again". The user's report, not something the agent checked.
_HEARD = re.compile(r"\b(?:sorry|sad|glad|happy|relieved|pleased)\s+to\s+(?:hear|learn|read)(?:\s+that)?\s*$")


def _reported(clause: str) -> bool:
    """Whether the clause ends with someone's verb of saying (`_REPORTED`), a screen not being the sayer, or
    takes up what the user said (`_HEARD`)."""
    # Both expressions end with a word and spaces only: a clause that ends with none of their last words is read no
    # further (Python's engine would try `_REPORTED`'s look-behinds at every offset).
    tail = clause.rstrip()
    if not tail.endswith(_SAYING_ENDS):
        return False
    if _HEARD.search(clause) is not None:
        return True
    return _REPORTED.search(clause) is not None and _SCREEN_SAYS.search(clause) is None


# The words `_REPORTED` and `_HEARD` can end with (before their trailing spaces).
_SAYING_ENDS = (
    "says", "said", "saying", "reports", "reported", "states", "stated", "claims", "claimed", "claiming", "mentions",
    "mentioned", "writes", "wrote", "replied", "replies", "answered", "explains", "explained", "me", "us", "you",
    "that", "again", "here", "there", "earlier", "before", "hear", "learn", "read",
)  # fmt: skip


_PREFIX_FRAMES: dict[str, tuple[Frame | None, tuple[int, ...]]] = {}
_MAX_PREFIXES = 4096  # remembered prefixes; the whole memo is dropped when full


# Frames are frozen: the common outcomes are shared, not built per claim.
_QUESTION = Frame(False, "question", False)
_SUGGESTION = Frame(False, "suggestion", False)
_INTENT_FRAME = Frame(False, "intent", False)
_CONDITIONAL_FRAME = Frame(False, "conditional", False)
_REPORTED_FRAME = Frame(False, "reported", False)
_ASSERTED = Frame(True, None, False)
_HEDGED = Frame(True, None, True)
_FRAME_SET_RE2 = getattr(_FRAME_SET, "_set", None)


def _frame_hits(clause: str) -> list[int]:
    """Indices (in `_FRAME_SET_ORDER`) of the frame expressions found in `clause`."""
    if _FRAME_SET_RE2 is not None:
        return _FRAME_SET_RE2.Match(clause.encode("utf-8", "surrogatepass")) or []
    return _FRAME_SET.Match(clause) or []


def _ascii_apostrophes(text: str) -> str:
    """Typographic single quotes as ASCII ones (translate only when there are any: it is slow)."""
    if "’" in text or "‘" in text:
        return text.translate(_ASCII_APOS)
    return text


# Substrings every hedge contains: most claims hold none, and `in` is far cheaper than the search.
_HEDGE_HINTS = (
    "seem", "appear", "might", "may", "could", "possib", "probab", "perhap", "maybe", "likely", "presum",
    "suppos", "think", "believe", "suspect", "guess", "assume", "sure", "unclear", "certain", "potential",
    "looks like", "suggest", "as far as",
)  # fmt: skip


_HEDGE_HINT = re.compile("|".join(map(re.escape, _HEDGE_HINTS)))


@lru_cache(maxsize=4096)
def _hedged(claim_text: str) -> bool:
    """Whether the claim's own words hedge it; remembered, as the same claims recur ("the build
    is failing"), and the two searches cost more than the lookup."""
    return _HEDGE_HINT.search(claim_text) is not None and _HEDGE_SHORT.search(claim_text) is not None


# Where a new clause starts: the last of these in the words before a claim. A reason after a comma is stated, whatever
# the clause before it plans: "I will first need to search Google, since there is no direct link in the tree".
_CLAUSE_BREAKS = (";", "—", "–", " - ", " but ", " but,", " however", " whereas ", " except ", ": ", ", since ", ", because ")


# Everything up to the last break: matched greedily, it backtracks from the end to the break
# that ends last (breaks never contain one another, so the last to start is the last to end).
_UP_TO_BREAK = re.compile("(?s:.*)(?:" + "|".join(map(re.escape, _CLAUSE_BREAKS)) + ")")


def _last_clause(prefix: str) -> str:
    last = _UP_TO_BREAK.match(prefix)
    cut = last.end() if last else 0
    if prefix.startswith(("but ", "however")):
        cut = max(cut, prefix.find(" ") + 1)
    return prefix[cut:]
