"""Subject phrases: find them next to a predicate, and normalise them for lookup.

Builtin detectors match only the predicate ("is not installed") and take the
subject from the few words before it (or after a trigger such as "couldn't
find"). Doing this here, on a short window, keeps the regexes small, which is
what makes the RE2 set fast, and lets us stop a phrase at words that cannot
belong to it ("I checked and docker ...").
"""

from __future__ import annotations

import re
from functools import lru_cache

from .normalise import fold_key
from .quotes import OPENING_OF, quoted_at, quoted_before, with_kind

_MAX_WORDS = 5
_WINDOW = 160
_OPENING = {'"': '"', "'": "'", "`": "`", "“": "”", "‘": "’", "«": "»"}

# Words that end a subject phrase when met while walking away from the predicate.
_BOUNDARY_WORDS = frozenset(
    """
    and or but so because since as that which who whom whose where when while whereas although though
    if unless whether then than also however therefore thus hence now currently still already yet
    actually apparently clearly obviously unfortunately sadly indeed just really definitely probably
    usually typically generally normally often sometimes always
    possibly maybe perhaps likely certainly basically essentially otherwise meanwhile instead
    i we you they he she me us them
    is are was were be been being am has have had do does did can could will would should may might
    must shall not no never think believe found noticed confirmed see saw seen says said shows showed
    reports reported means meaning verified checked noted note looks seems appears turns out
    to at by into onto about after before during via per like only even
    tells told says said know knew realized realised discovered learned learnt
    sure ensure ensures verify check confirm make makes please try consider remember wait determine
    assume suppose expect expected hope hoping guess suspect wonder wondering whether
    """.split()
)
# What a test or a change is meant to bring about, said right before the subject: "the test
# expects that the lock file is missing", "it should assert the table does not exist", "this
# ensures the directory exists", "so that the handler is registered", "the goal is that the tests
# pass", "the expected behaviour is that the field is optional". Nothing is asserted. Matched on
# the last words before the subject with sets, not a regex search: this runs for every candidate.
_EXPECTING = frozenset("expect expects expecting assert asserts asserting ensures ensuring".split())
_GOALS = frozenset("goal aim idea intent intention hope expectation".split())
_EXPECTED_THINGS = frozenset("behaviour behavior result outcome".split())
# Conditions the sentence frame does not know, said right before the subject: "as soon as the
# build fails", "every time the test fails", "the case where the column is missing".
_TIMES = frozenset("every each any next".split())
_CASES = frozenset("case cases situation situations scenario scenarios".split())
# A wh-word right before a noun phrase opens an embedded question ("I need to know which tests
# fail", "this changes what columns are selected", "how many seats are left"): nothing is asserted.
_WH_DETERMINERS = frozenset("which what whichever whatever how".split())
_LEADING_DETERMINERS = frozenset(
    "the a an this that these those our your my their its his her some any all every each both".split()
)
# Subjects that carry no referent: a claim about them cannot be checked.
PRONOUN_SUBJECTS = frozenset(
    """
    it this that these those there they he she we you i which what who something anything nothing
    one ones here everyone someone anyone nobody someone else thing things stuff
    i've i'll i'd i'm we've we'll we'd we're you've you'll you'd you're it'll it'd they've they'll they'd they're
    """.split()
)
# Type nouns that decorate a name ("the docker service", "file config.yaml");
# fact lookup also tries the name without them.
_TYPE_NOUNS = frozenset(
    """
    service services daemon server package binary binaries cli command tool plugin module library lib app
    application extension process container feature function file directory folder dir config option
    setting field parameter method class endpoint key variable repo repository project branch table
    column image integration api
    """.split()
)
_EDGE_PUNCT = "\"'`“”‘’«»*_()[]{}<>,;:!?"
_STOP_CHARS = frozenset(".,;:!?)]")
_BULLET = re.compile(r"^(?:[-*•+>#]+|\d+[.)]|[a-z][.)])$")
_BULLET_LAST = frozenset("-*•+>#.)")  # a bullet ends with one of these: most words need no regex
_SPACES = re.compile(r"\s+")


def phrase_before(text: str, pos: int) -> tuple[str, int] | None:
    """The noun phrase that ends just before `pos`, and its start offset.

    Stops at sentence or clause punctuation, at boundary words, at bullets
    and after five words. A quoted or backticked phrase is taken whole.
    """
    end = pos
    while end > 0 and text[end - 1] in " \t":
        end -= 1
    if end == 0:
        return None
    if text[end - 1] == ")":
        # "the monitoring stack (Prometheus and Grafana) is offline": the aside is not the subject
        opened = text.rfind("(", max(0, end - 120), end - 1)
        if opened > 0 and "\n" not in text[opened:end]:
            end = opened
            while end > 0 and text[end - 1] in " \t":
                end -= 1
            if end == 0:
                return None
    closing = text[end - 1]
    if closing in OPENING_OF:
        quoted = quoted_before(text, end, closing)
        if quoted:
            if closing != '"' and quoted_at(text, quoted[1]):
                return None  # a toast says "required field 'Fix Version' is empty": inside the quoted words
            return with_kind(text, *quoted) if closing == "`" else quoted
    window_start = max(0, end - _WINDOW)
    line_start = text.rfind("\n", window_start, end)
    window_start = line_start + 1 if line_start >= 0 else window_start
    start = -1
    kept = 0
    skipped = 0
    cursor = end
    for word in _last_words(text, window_start, end):
        # Each word's offset, walking back (a word ends with a character that is no space, so its last occurrence
        # before the cursor is the word itself); most phrases stop after two words.
        at = cursor = text.rfind(word, window_start, cursor)
        if kept and word[-1] in _STOP_CHARS:
            break
        bare = word.strip(_EDGE_PUNCT).lower()
        if not kept and skipped < 2 and bare in _SENTENCE_ADVERBS and word[-1] not in _STOP_CHARS:
            # "the wiki page probably doesn't exist", "Docker also isn't running": the adverb stands
            # between subject and predicate; the subject is before it (the frame still sees the hedge).
            skipped += 1
            end = at
            while end > window_start and text[end - 1] in " \t":
                end -= 1
            continue
        if not bare or (word[-1] in _BULLET_LAST and _BULLET.match(word)):
            break
        if bare in _BOUNDARY_WORDS and not (not kept and bare in PRONOUN_SUBJECTS):
            if not kept and bare in _NOUNS_TOO and _after_a_modifier(text, window_start, at):
                kept += 1  # "the required check is failing": the noun, not the verb "check"
                start = at
                continue
            if kept and bare in _WH_DETERMINERS:
                return None  # "which tests fail", "changes what columns are selected": an embedded question
            break
        if kept and bare in _WH_DETERMINERS:
            return None
        kept += 1
        start = at
        if bare in PRONOUN_SUBJECTS or bare in _LEADING_DETERMINERS or kept >= _MAX_WORDS:
            break
        if word[0] == "(" and ")" not in text[at:end]:
            break  # "Wi-Fi is off (Airplane mode is on)": a bracket still open starts the phrase
    if not kept:
        return None
    if _not_asserted_before(text[max(window_start, start - 40) : start]):
        return None  # "the test expects that the lock file is missing": an expectation, not a claim
    phrase = text[start:end]
    # Markdown emphasis or an opening bracket at the front is not part of the name.
    stripped = phrase.lstrip("*_([{<“\"'")
    start += len(phrase) - len(stripped)
    if quoted_at(text, start):
        return None  # the issue says: "the lookup doesn't work ...": reported words, not the agent's
    phrase = stripped.rstrip("*_:,")
    return (phrase, start) if phrase else None


# Boundary words that are nouns too: after a determiner or a modifier they head the subject ("the
# required check is failing", "the note says ...").
_NOUNS_TOO = frozenset("check checks note notes wait guess report reports".split())
_LAST_WORD = re.compile(r"([A-Za-z][\w'-]*)[ \t]+$")


def _after_a_modifier(text: str, window_start: int, at: int) -> bool:
    """Whether the word before `at` is a determiner or a plain word that can modify a noun."""
    m = _LAST_WORD.search(text, max(window_start, at - 40), at)
    if m is None:
        return False
    word = m.group(1).lower()
    return word in _LEADING_DETERMINERS or (word not in _BOUNDARY_WORDS and word not in PRONOUN_SUBJECTS)


# Adverbs that may stand between a subject and its predicate without being part of the subject.
_SENTENCE_ADVERBS = frozenset(
    """
    probably likely also still definitely really actually apparently clearly indeed now currently already
    just possibly certainly obviously presumably simply even evidently seemingly
    """.split()
)
# A double-quoted label inside a noun phrase ('the "Add to cart" button') is one word of it.
_QUOTED_WORD = re.compile(r'"[^"\n]{1,80}"|“[^”\n]{1,80}”|\S+')


def _last_words(text: str, window_start: int, end: int) -> list[str]:
    """The last words of text[window_start:end], nearest first (at most six).

    Most windows hold no double quote: str.rsplit (in C) splits off the last six words. A window with one
    tokenises forward, so a quoted label is one word (`findall`: the words, not a match object each)."""
    segment = text[window_start:end]
    if '"' in segment or "“" in segment:
        words = _QUOTED_WORD.findall(segment)
    else:
        words = segment.rsplit(None, _MAX_WORDS + 1)
    return words[: -(_MAX_WORDS + 2) : -1]


def _not_asserted_before(lead: str) -> bool:
    """Whether `lead` (the words before a subject) ends with an expectation, a purpose or a condition."""
    words = lead.split()
    if not words:
        return False
    last = words[-1].lower()
    if last == "that":
        if len(words) < 2:
            return False
        words.pop()
        last = words[-1].lower()
        if last == "so" or (last == "order" and len(words) > 1 and words[-2].lower() == "in"):
            return True
    if last in _EXPECTING:
        return True
    before = words[-2].lower() if len(words) > 1 else ""
    if last == "time":
        return before in _TIMES
    if last == "as":
        return before == "soon"
    if last in ("where", "when"):
        return before in _CASES
    if last == "which":
        return before == "in" and len(words) > 2 and words[-3].lower() in _CASES
    if last == "is":
        return before in _GOALS or (before in _EXPECTED_THINGS and len(words) > 2 and words[-3].lower() == "expected")
    return False


def phrase_after(text: str, start: int, end: int) -> tuple[str, int] | None:
    """Trim a subject window captured after a trigger ("couldn't find X on this host")."""
    if quoted_at(text, start):
        return None  # it says "SQLite doesn't support DISTINCT ...": reported words, not the agent's
    raw = text[start:end]
    if raw[:1] in _OPENING:
        close = raw.find(_OPENING[raw[0]], 1)
        if close > 0:
            return raw[: close + 1], start
    words: list[str] = []
    for word in raw.split():  # the `\S+` tokens, in C
        bare = word.strip(_EDGE_PUNCT + ".").lower()
        if not bare or ((bare in _BOUNDARY_WORDS or bare in _MODIFIER_STOP) and words) or bare in _AFTER_STOP:
            break
        if not words and bare in _LEADING_DETERMINERS:
            words.append(word)
            continue
        words.append(word.rstrip(".,;:!?"))
        if word[-1] in _STOP_CHARS:  # it ends with a stop: the phrase does too
            break
    phrase = " ".join(words).strip(_EDGE_PUNCT.replace(")", "")) if words else ""
    return (phrase, start) if phrase else None


# Words after a trigger that begin a modifier, not more of the name.
_AFTER_STOP = frozenset(
    """
    on in at anywhere here there for with within inside under anymore any more either yet today now currently
    """.split()
)
# The same after the name only: before it they modify it ("there are no available flights", "any running
# containers"), after it they say its state ("couldn't find kubectl installed").
_MODIFIER_STOP = frozenset("installed running available configured enabled defined".split())


@lru_cache(maxsize=8192)
def normalize_subject(subject: str) -> str:
    """Fold, lowercase, strip quotes/markup and leading determiners: the key facts are looked up by.

    Folding (see `normalise`) drops accents, invisible characters and look-alike
    letters, so "Ńode.js" with a combining mark finds the fact about "node.js".
    """
    key = fold_key(subject).strip(_EDGE_PUNCT + " .")
    if not key.isprintable() or "  " in key:  # a printable string's only space is " ": then nothing to collapse
        key = _SPACES.sub(" ", key)
    words = key.split(" ")
    words = [w.strip(_EDGE_PUNCT) for w in words]
    while len(words) > 1 and words[0] in _LEADING_DETERMINERS:
        words = words[1:]
    if words and words[0] in _LEADING_DETERMINERS and len(words) == 1:
        return ""
    return " ".join(w for w in words if w).strip(" .")


@lru_cache(maxsize=8192)
def _candidates(normalized: str) -> tuple[str, ...]:
    return tuple(_subject_candidates(normalized))


def subject_candidates(normalized: str) -> list[str]:
    """The subject as written, then without a leading or trailing type noun (cached)."""
    return list(_candidates(normalized))


def _subject_candidates(normalized: str) -> list[str]:
    """The subject as written, then without a leading or trailing type noun."""
    out = [normalized] if normalized else []
    words = normalized.split(" ")
    if len(words) > 1 and words[0] in _TYPE_NOUNS:
        out.append(" ".join(words[1:]))
    if len(words) > 1 and words[-1] in _TYPE_NOUNS:
        out.append(" ".join(words[:-1]))
    for possessive in ("'s", "’s"):
        if normalized.endswith(possessive):
            out.append(normalized[: -len(possessive)])
    # Last, the head noun of a short phrase: "the ci pipeline" is about "pipeline".
    if 1 < len(words) <= 3 and words[-1] not in _TYPE_NOUNS and words[-1] not in out:
        out.append(words[-1])
    return out


def is_pronoun(normalized: str) -> bool:
    return not normalized or normalized in PRONOUN_SUBJECTS


# Pronouns whose referent may be found in the text before them.
REFERRING = frozenset("it this that they these those which".split())
_CANDIDATE = re.compile(
    r"`[^`\n]{1,60}`|\*\*[^*\n]{1,60}\*\*|\b(?:the|your|our|my|their)\s+(?=[\w`*\"'])", re.IGNORECASE
)
_LOOK_BACK = 300


def antecedent(text: str, pronoun_start: int, pronoun: str) -> str | None:
    """What "it", "this" or "which" at `pronoun_start` most likely refers to, or None.

    "..., which": the noun phrase just before the comma. Otherwise the last
    noun phrase with a determiner ("the reservation", "your flight") or the last
    code span before the pronoun, in the same paragraph and at most 300
    characters back. A guess: claims about a referent found this way are
    reported with lower confidence.
    """
    low = max(0, pronoun_start - _LOOK_BACK)
    paragraph = text.rfind("\n\n", low, pronoun_start)
    low = paragraph + 2 if paragraph >= 0 else low
    if pronoun == "which":
        before = text[low:pronoun_start].rstrip()
        if not before.endswith(","):
            return None
        found = phrase_before(text, low + len(before) - 1)
        return found[0] if found and not is_pronoun(normalize_subject(found[0])) else None
    best = None
    for m in _CANDIDATE.finditer(text, low, pronoun_start):
        token = m.group(0)
        if token.startswith(("`", "**")):
            best = token
            continue
        found = phrase_after(text, m.start(), min(pronoun_start, m.start() + 80))
        if found and not is_pronoun(normalize_subject(found[0])):
            best = found[0]
    return best
