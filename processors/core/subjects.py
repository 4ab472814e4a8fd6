"""Where a claim's subject is: before or after its pattern, a name, a pronoun resolved or not, an idiom.

`locate_subject` gives a match's subject, the role words before a name, and where the claim starts;
`names_nothing` tells a claim whose subject no fact can check. Split from `claims` (which builds the
claim around the subject) to keep each module to one question.
"""

from __future__ import annotations

import re

from .model import Claim
from .patterns import RawMatch
from .phrases import REFERRING, antecedent, is_pronoun, normalize_subject, phrase_after, phrase_before
from .quotes import quoted_at

_SPACES = re.compile(r"\s+")


# "there is no need to", "there's no way": idioms, not claims about a thing.
_IDIOM_SUBJECTS = frozenset(
    """
    need way reason point doubt harm chance guarantee difference rush hurry longer more question telling
    knowing problem problems issue issues worry worries excuse substitute shortage limit time evidence sign
    indication mention cost charge one luck denying access permission permissions ability context information
    visibility action
    find locate detect see wait stress thank imagine say tell guarantee believe recall remember overstate
    to been already just done made got
    """.split()
)


# Capitalised words that start sentences but never name anyone.
_NON_NAMES = frozenset(
    """
    The This That These Those It He She They We I You There Here Everything Nothing Someone Everyone Anyone
    Then Now Also But And So Yes No Ok Okay Note Please Thanks Sure Done Next First Finally As When If After
    Before Once While Since Because Although Though Today Yesterday Tomorrow All Each Every Some Any Both
    Hi Hello Hey Dear Team Everybody Nobody Someone Somebody Meanwhile However Still Just Only Even Let
    Dr Mr Mrs Ms Mx Prof Sir Madam
    Our Your My Their His Her Its What Which Who Why How Where Great Good Perfect Sorry Unfortunately
    Thank Welcome Regards Best Cheers Kind
    Successfully Finally Currently Already Fortunately Additionally Basically Actually Clearly Apparently Initially
    Previously Similarly Alternatively Essentially Hopefully Interestingly Luckily Overall Otherwise Instead
    """.split()
)


# The verbs of _IDIOM_SUBJECTS: what "I can't ..." says as a manner of speaking, or what
# another detector reports ("I can't find the file" is a system-state claim).
_IDIOM_ACTIONS = frozenset(
    "find locate detect see wait stress thank imagine say tell guarantee believe recall remember overstate".split()
)


# Idiom nouns that are things a page, record or machine can lack: "the page doesn't list nutrition
# information", "the VM has no internet access". Said of a named thing they are claims; said after
# "there is no" or of a pronoun ("I have no access") they stay idioms. "time" as a page gives one: "the screenshot
# does not show the preparation time".
_THING_IDIOMS = frozenset("information access mention visibility context permission permissions evidence time".split())


def _said_of_a_thing(text: str, raw: RawMatch, words: list[str]) -> bool:
    """Whether an idiom noun is said of a concrete owner before the match ("the page doesn't list ...")."""
    if not (words[0] in _THING_IDIOMS or words[-1] in _THING_IDIOMS):
        return False
    found = phrase_before(text, raw.start)
    return found is not None and not is_pronoun(normalize_subject(found[0]))


# A count just before the subject: "5 issues remain", "2 problems were found" count things, no idiom ("no problem").
_COUNTED = re.compile(r"(?<![\w.,$€£:])\d[\d,]*[ \t]+$")


def _counted_plural(words: list[str]) -> bool:
    """Whether the idiom word of a subject is a plural noun, which a count before it makes things counted ("5 issues
    remain"); "1 point", "3 to add" stay what they were."""
    word = words[0] if words[0] in _IDIOM_SUBJECTS else words[-1]
    return word.endswith("s") and len(word) > 3


_SEE_IDIOMS = frozenset("why how what whether if much".split())


_SEE_ALONE = frozenset("that it this any".split())  # "I can't see that.", but "I can't see that option"
# Idiom nouns a discovery can find: "I found the issue", "we've identified the problem" (but "there is no issue"),
# and a fix can remove ("the patch has fixed the issue").
_FOUND_THINGS = frozenset("issue issues problem problems".split())
_FINDS_OR_FIXES = frozenset(("found", "fixed"))
_HELP_IDIOMS = frozenset("but feeling thinking noticing wondering it myself ourselves laughing".split())


def _idiom(words: list[str], spec) -> bool:
    """Whether the subject's words make the match an idiom rather than a claim about a thing."""
    if spec.action_subject:
        if words[0] == "see":  # "I can't see why", "I can't see that": idioms; "I can't see your screen": a limit
            return len(words) == 1 or words[1] in _SEE_IDIOMS or (len(words) == 2 and words[1] in _SEE_ALONE)
        if words[0] == "help":  # "I can't help but notice", "I can't help it"; "I'm unable to help with that request"
            return len(words) > 1 and words[1] in _HELP_IDIOMS
        return words[0] in _IDIOM_ACTIONS
    if spec.assertion in _FINDS_OR_FIXES and words[-1] in _FOUND_THINGS and words[0] not in ("no", "any"):  # "I found the issue": a discovery, no idiom
        return False
    return words[0] in _IDIOM_SUBJECTS or words[-1] in _IDIOM_SUBJECTS


# What names a thing after its noun: "a button labeled Done", "a tab called Issues". The noun before is the head.
_NAMING_WORDS = frozenset("labeled labelled named called titled marked saying reading".split())


def _head_words(words: list[str]) -> list[str]:
    """The words of a subject up to a naming word: "button labeled done" is a button, whatever its label says."""
    for i, word in enumerate(words):
        if i and word in _NAMING_WORDS:
            return words[:i]
    return words


def locate_subject(text: str, raw: RawMatch) -> tuple[str, str | None, int] | None:
    """(subject, role, claim start offset), or None when there is no usable subject."""
    spec = raw.spec
    if spec.fixed_subject:
        return spec.fixed_subject, None, raw.start
    if spec.name_group:
        return _name_subject(text, raw)
    if spec.subject_before:
        anchor = raw.groups[spec.subject_includes_match_group].start if spec.subject_includes_match_group else raw.start
        if spec.builtin and not spec.subject_includes_match_group:
            quantified = _quantified(text, anchor)
            if quantified is not None:
                return quantified.group("q"), UNRESOLVED, quantified.start("q")
        found = phrase_before(text, anchor)
        if found is None and spec.builtin and not spec.subject_includes_match_group:
            shared = _shared_subject(text, anchor)
            if shared is not None:
                return shared, RESOLVED, anchor  # the claim starts at its own predicate: the first one keeps its claim
        if spec.subject_includes_match_group:
            start = found[1] if found else anchor
            subject = _SPACES.sub(" ", text[start : raw.groups[spec.subject_includes_match_group].end])
            return subject, None, start
        if found is None:
            return None
        if quoted_at(text, raw.start) and not quoted_at(text, found[1]):
            return None  # the error reads "Authentication failed": the predicate is the quoted words, reported
        normalized = normalize_subject(found[0])
        if spec.builtin and _unusable(normalized, spec):
            referent = antecedent(text, found[1], normalized) if normalized in REFERRING else None
            if referent is None:
                if normalized in _UNKNOWN_REFERENTS or normalized in NEGATIVE_REFERENTS:
                    # "It works.", "They are still pending.": a claim all the same (issue 10 stores every
                    # claim), about a thing the text does not name: no fact can check it.
                    return found[0], UNRESOLVED, found[1]
                return None
            # "Since the reservation is in basic economy, it cannot be changed": about the reservation.
            return referent, RESOLVED, found[1]
        return found[0], None, found[1]
    group = raw.groups.get(spec.subject_group or "subject")
    if group is None:
        if spec.builtin:
            return None
        return raw.text, None, raw.start
    subject = group.text
    if spec.builtin:
        trimmed = phrase_after(text, group.start, group.end)
        if trimmed is None:
            return None
        state = raw.groups.get("state")
        if state is not None and state.start >= group.end and not _same_last_word(trimmed[0], subject):
            return None  # a subject that leads its state must reach it: "Node is | not installed" is a clause
        subject = _after_of(trimmed[0])
        words = normalize_subject(subject).split(" ")
        while len(words) > 1 and words[-1] in _TRAILING_PARTICIPLES:
            words = words[:-1]  # "no immediate action needed": the head noun is "action"
        if _unusable(" ".join(words), spec):
            return None
        head = _head_words(words)
        if (
            _idiom(head, spec)
            and not (spec.role_before and _said_of_a_thing(text, raw, words))
            # "5 issues remain", "shows 14 open issues labelled `bug`": things counted, no idiom.
            and not (_counted_plural(head) and _COUNTED.search(text, max(0, group.start - 16), group.start))
        ):
            return None
    role = None
    start = raw.start
    if not text[start : group.start].strip(" \t\r\n.!?;:"):
        start = group.start  # the sentence break a pattern matched before its subject ("... . Email sent")
    if spec.role_before:
        found = phrase_before(text, raw.start)
        if found and not is_pronoun(normalize_subject(found[0])):
            role, start = found
    return subject, role, start


# "The product has been saved and | is now enabled", "WELCOME10 exists and | is **Active**": a second predicate
# after "and" or "but" shares the clause's subject. The conjunction (and adverbs after it) just before the match.
_AND_BEFORE = re.compile(
    r"(?:,[ \t]*)?\b(?:and|but)(?:[ \t]+(?:now|still|also|then|already|currently|probably|is|are|was|were|has|have))?"
    r"[ \t]*$",
    re.IGNORECASE,
)
# Where the clause holding the first predicate starts: a sentence's or a line's start, a bullet, a semicolon, a
# comma ("In Discounts, WELCOME10 exists and ...").
_CLAUSE_START = re.compile(r"(?:^|[.!?;:,][ \t]+|\n[ \t]*(?:[-*•+][ \t]+|\d+[.)][ \t]+)?)(?=\S)")
# A verb the first predicate may start with that the phrase does not stop at: "the rule \"X\" exists but ...".
_LEADING_CONJUNCTION = re.compile(r"(?:and|but|so|or|then|while)[ \t]+", re.I)
_VERB_TAIL = re.compile(r"[ \t]+(?:exists|appears|shows|looks|seems|remains|stays|works|runs|loads|opened|closed)$", re.I)


def _shared_subject(text: str, anchor: int) -> str | None:
    """The subject a coordinated predicate shares with the clause before its "and" / "but".

    The first noun phrase of that clause, when a predicate follows it there (its phrase stops short of the
    conjunction). A guess, as a resolved pronoun is: the claim is flagged, never blocked.
    """
    line = text.rfind("\n", 0, anchor) + 1
    conj = _AND_BEFORE.search(text, max(line, anchor - 40), anchor)
    if conj is None:
        return None
    starts = [m.end() for m in _CLAUSE_START.finditer(text, line, conj.start())]
    if not starts:
        return None
    start = starts[-1]
    lead = _LEADING_CONJUNCTION.match(text, start, conj.start())
    if lead is not None:
        start = lead.end()  # "..., but a linked PR has been merged and ...": the clause's subject follows "but"
    if quoted_at(text, anchor):
        return None  # the error reads "Ticket is closed and cannot be updated": reported words
    found = phrase_after(text, start, conj.start())
    if found is None:
        return None
    subject = _VERB_TAIL.sub("", found[0]).rstrip("*_ ")
    normalized = normalize_subject(subject)
    if not normalized or is_pronoun(normalized) or start + len(found[0]) >= conj.start():
        return None  # "I checked and ...", "it ... and": no named subject; the phrase must leave room for a verb
    words = normalized.split(" ")
    if is_pronoun(words[0]):
        return None  # "It finished in 9.4s and returned 48 rows": the phrase ran into the verb; a pronoun all the same
    if len(words) > 6 or "(" in text[start : conj.start()]:
        return None  # "That explains why `x` fails (it expects failure but succeeds)": no one clause before "but"
    return subject


def _name_subject(text: str, raw: RawMatch) -> tuple[str, str | None, int] | None:
    spec = raw.spec
    name = raw.groups.get(spec.name_group)
    if name is None:
        return None
    first = name.text.split(" ")[0]
    if first in _MONTHS and _DAY_AFTER.match(text, name.end):
        return None  # "an email from Nov 24", "opened Oct 29": a date, not a person ("assigned to Jun" may be one)
    if _GREETING_BEFORE.search(text, max(0, name.start - 12), name.start) and quoted_at(text, name.start):
        return None  # '> Hi Marta, sorry about that', '"Hi Sandra, attached is ...': a drafted reply, quoted
    initial = len(first) == 2 and first[1] == "." and len(name.text) > 3  # "R. Gomez"
    if first in _NON_NAMES or first.lower() in _ROLE_WORDS or (first.isupper() and len(first) <= 4 and not initial):
        # "User confirmed the order": a role, not a name; "your user ID": an abbreviation.
        return None
    start = name.start if spec.subject_group is None and not spec.role_before else raw.start
    role = None
    if spec.role_before:
        found = phrase_before(text, raw.start)
        if found and not is_pronoun(normalize_subject(found[0])):
            role, start = found
    elif spec.subject_group and spec.subject_group in raw.groups:
        role = raw.groups[spec.subject_group].text
    return name.text, role, start


_MONTHS = frozenset(
    """
    Jan Feb Mar Apr Jun Jul Aug Sep Sept Oct Nov Dec January February March April May June July August September
    October November December Mon Tue Tues Wed Thu Thurs Fri Sat Sun Monday Tuesday Wednesday Thursday Friday
    Saturday Sunday
    """.split()
)
_GREETING_BEFORE = re.compile(r"\b(?:hi|hello|hey|dear|thanks|thank\s+you)[ \t]+$", re.IGNORECASE)
_DAY_AFTER = re.compile(r"[ \t]+\d{1,2}(?:st|nd|rd|th)?\b")


# With their contractions: "I've been unable", "we're not eligible" (normalized subjects use "'").
_PERSONS = frozenset("i we you i've i'd i'm we've we'd we're you've you'd you're".split())


_TRAILING_PARTICIPLES = frozenset("needed required necessary involved left here there".split())


# A subject found by resolving "it" or "which" is a guess: such a claim is flagged, never blocked.
RESOLVED_FACTOR = 0.75


RESOLVED = "\0resolved"


# "It works" with nothing before it to name "it": kept at a low confidence and left unchecked (the validator
# skips it, `names_nothing`), so no policy flags or blocks it.
UNRESOLVED_FACTOR = 0.6


UNRESOLVED = "\0unresolved"


_UNKNOWN_REFERENTS = frozenset("it they this that these those".split())


# "Nothing is booked yet", "none are disputed": a claim about every thing of a scope the text leaves open, negated;
# unchecked like an unresolved pronoun.
NEGATIVE_REFERENTS = frozenset(
    ["nothing", "none", "nobody", "nothing else", "neither", "none of them", "none of these", "none of those",
     "neither of them"]
)

# "Both are signed in", "Everything else is ready in the cart", "None of them is marked Urgent": a quantifier as the
# whole subject, just before the predicate. About things of a scope the text leaves open: unchecked like an
# unresolved pronoun, and negated when it is "none", "neither" or "nothing else".
_QUANTIFIED = re.compile(
    r"(?:^|(?<=[\s(\"“*]))(?P<q>(?:both|all|each|none|neither)(?:\s+of\s+(?:them|these|those))?|(?:everything|nothing)\s+else"
    r"|the\s+rest)[ \t]*$",
    re.IGNORECASE,
)
# The last words `_QUANTIFIED` can end with: a window that does not end with one of them (after the spaces and
# the one newline its `[ \t]*$` allows) is not searched, which is most windows (Python's engine tries the pattern
# at each of the thirty offsets).
_QUANTIFIED_ENDS = ("both", "all", "each", "none", "neither", "them", "these", "those", "else", "rest")


def _quantified(text: str, anchor: int) -> re.Match | None:
    """`_QUANTIFIED` searched in the thirty characters before `anchor`."""
    low = max(0, anchor - 30)
    tail = text[low:anchor]
    if tail.isascii():  # other letters may fold to these under IGNORECASE: searched as before
        if tail.endswith("\n"):
            tail = tail[:-1]
        if not tail.rstrip(" \t").lower().endswith(_QUANTIFIED_ENDS):
            return None
    return _QUANTIFIED.search(text, low, anchor)


# How those subjects read once normalised (leading determiners such as "both" and "all" dropped).
_QUANTIFIER_KEYS = frozenset(["", "of them", "of these", "of those", "everything else", "rest", "each"])


def names_nothing(claim: Claim) -> bool:
    """Whether a claim's subject is a pronoun nothing in the text resolved ("It works."): no fact can
    check it, so the validator leaves it unchecked (stored with no fact status)."""
    subject = normalize_subject(claim.subject)  # as the subject was judged a pronoun
    return subject in _UNKNOWN_REFERENTS or subject in NEGATIVE_REFERENTS or subject in _QUANTIFIER_KEYS


# "no mention of a timeout", "no sign of the banner": the claim is about what follows "of".
_OF_NOUNS = frozenset("mention mentions sign signs trace traces evidence indication instance instances".split())


_ROLE_WORDS = frozenset(
    """
    user users customer client assistant agent bot system admin administrator operator reviewer owner author
    maintainer developer engineer team manager lead passenger member guest
    """.split()
)


def _same_last_word(trimmed: str, subject: str) -> bool:
    words = subject.split()
    return bool(words) and trimmed.rstrip().endswith(words[-1].rstrip("*_:,"))


def _unusable(normalized: str, spec) -> bool:
    """A subject nothing can be checked against: a pronoun (but "I", "we", "you" where allowed)."""
    if spec.person_subjects and normalized in _PERSONS:
        return False
    return is_pronoun(normalized)


def _after_of(subject: str) -> str:
    words = subject.split(" ")
    if len(words) > 2 and words[0].lower() in _OF_NOUNS and words[1].lower() == "of":
        return " ".join(words[2:])
    return subject
