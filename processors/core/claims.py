"""From raw pattern matches to claims: subject, assertion, polarity, confidence, context."""

from __future__ import annotations

import re
import types
from dataclasses import MISSING, fields
from string import Formatter

import re2

from .context import HEDGE_FACTOR, frame_claim
from .detectors._fragments import NEGATION
from .model import Claim
from .normalise import Folded
from .patterns import RawMatch
from .phrases import (
    REFERRING,
    antecedent,
    is_pronoun,
    normalize_subject,
    phrase_after,
    phrase_before,
)
from .quotes import names_a_kind

_NEGATION = re.compile(NEGATION, re.IGNORECASE)
_SPACES = re.compile(r"\s+")
_NO_BEFORE = re.compile(r"\bno\s+$", re.IGNORECASE)
# Words after "is running" that make it an activity, not a state ("running out of memory").
_NOT_A_STATE = re.compile(r"\s+(?:out\b|late\b|low\b|short\b|behind\b|into\b|away\b|a\b|an\b|the\b|some\b|my\b|our\b)")
# "there is no need to", "there's no way": idioms, not claims about a thing.
_IDIOM_SUBJECTS = frozenset(
    """
    need way reason point doubt harm chance guarantee difference rush hurry longer more question telling
    knowing problem problems issue issues worry worries excuse substitute shortage limit time evidence sign
    indication mention cost charge one luck denying access permission permissions ability context information
    visibility action
    find locate detect see wait stress help thank imagine say tell guarantee believe recall remember overstate
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
    Our Your My Their His Her Its What Which Who Why How Where Great Good Perfect Sorry Unfortunately Thank Welcome Regards Best Cheers Kind
    """.split()
)


def positional(cls, names: str):
    """A constructor of the frozen, slotted dataclass `cls` taking the fields `names` (spaced) by position.

    It sets the slots directly: the generated `__init__` goes through `object.__setattr__`
    once per field (frozen), about twice the cost, and the validator makes a claim, a fact
    check and a violation per claim and a result per output. The same object either way.
    Callers spell out the fields they pass, so a change to the model cannot shift values:
    when `names` are not its first fields in order, or a later field has no plain default,
    or the class has a `__post_init__` or no slots, the class itself is called by keyword.
    """
    wanted = names.split()
    declared = fields(cls)
    slots = [cls.__dict__.get(f.name) for f in declared]
    rest = declared[len(wanted) :]
    if (
        [f.name for f in declared[: len(wanted)]] != wanted
        or any(f.default is MISSING for f in rest)
        or hasattr(cls, "__post_init__")
        or not all(isinstance(slot, types.MemberDescriptorType) for slot in slots)
        or any(name.startswith("_") or name == "self" for name in wanted)
    ):
        return lambda *values: cls(**dict(zip(wanted, values, strict=True)))
    namespace = {"_new": object.__new__, "_cls": cls}
    namespace.update({f"_set_{f.name}": slot.__set__ for f, slot in zip(declared, slots, strict=True)})
    namespace.update({f"_default_{f.name}": f.default for f in rest})
    body = "".join(f"\n    _set_{name}(self, {name})" for name in wanted)
    body += "".join(f"\n    _set_{f.name}(self, _default_{f.name})" for f in rest)
    exec(f"def new_{cls.__name__}({', '.join(wanted)}):\n    self = _new(_cls){body}\n    return self", namespace)
    return namespace[f"new_{cls.__name__}"]


_claim = positional(Claim, "category detector_id matched_text offset subject assertion negative confidence role")


def prepare(specs) -> None:
    """Compile the context expressions of `specs` now, at construction, rather than in the
    first validation that meets a match of theirs (a large alternation costs Python's
    compiler a millisecond or more). A source that does not compile is left to fail there,
    where the validator fails open."""
    for spec in specs:
        try:
            for source in (spec.reject_after, spec.reject_subject, spec.reject_state):
                if source:
                    _compiled(source)
            if spec.code_narration:
                _compiled(f"(?:{spec.code_narration})$")
            if spec.reject_before and spec.reject_before not in _before:
                _before[spec.reject_before] = _compile_before(spec.reject_before)
        except re.error:
            continue


# The verbs of _IDIOM_SUBJECTS: what "I can't ..." says as a manner of speaking, or what
# another detector reports ("I can't find the file" is a system-state claim).
_IDIOM_ACTIONS = frozenset(
    "find locate detect see wait stress help thank imagine say tell guarantee believe recall remember overstate".split()
)


# Idiom nouns that are things a page, record or machine can lack: "the page doesn't list nutrition
# information", "the VM has no internet access". Said of a named thing they are claims; said after
# "there is no" or of a pronoun ("I have no access") they stay idioms.
_THING_IDIOMS = frozenset("information access mention visibility context permission permissions evidence".split())


def _said_of_a_thing(text: str, raw: RawMatch, words: list[str]) -> bool:
    """Whether an idiom noun is said of a concrete owner before the match ("the page doesn't list ...")."""
    if not (words[0] in _THING_IDIOMS or words[-1] in _THING_IDIOMS):
        return False
    found = phrase_before(text, raw.start)
    return found is not None and not is_pronoun(normalize_subject(found[0]))


_SEE_IDIOMS = frozenset("why how what whether if much".split())
_SEE_ALONE = frozenset("that it this any".split())  # "I can't see that.", but "I can't see that option"


def _idiom(words: list[str], spec) -> bool:
    """Whether the subject's words make the match an idiom rather than a claim about a thing."""
    if spec.action_subject:
        if words[0] == "see":  # "I can't see why", "I can't see that": idioms; "I can't see your screen": a limit
            return len(words) == 1 or words[1] in _SEE_IDIOMS or (len(words) == 2 and words[1] in _SEE_ALONE)
        return words[0] in _IDIOM_ACTIONS
    return words[0] in _IDIOM_SUBJECTS or words[-1] in _IDIOM_SUBJECTS


def rejected_early(text: str, raw: RawMatch) -> bool:
    """Whether a match is no claim by the few characters around it alone (its detector's `reject_after`,
    `reject_state`, `reject_before`): a short regex match each, so the validator charges these matches
    far less than one it turns into a claim. `build_claim` runs the rest."""
    spec = raw.spec
    if spec.builtin and spec.subject_before and "state" in raw.groups:
        if raw.groups["state"].text.lower().startswith("running") and _NOT_A_STATE.match(text, raw.end):
            return True
    if spec.reject_after and _compiled(spec.reject_after).match(text, raw.end):
        return True
    if spec.reject_state and "state" in raw.groups and _compiled(spec.reject_state).fullmatch(raw.groups["state"].text):
        return True
    return bool(spec.reject_before and _rejected_before(spec.reject_before, text[max(0, raw.start - 40) : raw.start]))


def build_claim(text: str, raw: RawMatch, screened: bool = False) -> Claim | None:
    """Turn one match into a claim, or None when the context shows it is not an assertion.

    `text` is the folded detection text (`normalise.fold`): no control characters but tab,
    CR and LF, which the RE2 shortcut of `_rejected_before` relies on. `screened`: the caller
    has already asked `rejected_early` (and got False).
    """
    spec = raw.spec
    if not screened and rejected_early(text, raw):
        return None
    located = _subject(text, raw)
    if located is None:
        return None
    subject, role, start = located
    resolved = role is _RESOLVED
    unresolved = role is _UNRESOLVED
    if resolved or unresolved:
        role = None
    if spec.reject_subject and _compiled(spec.reject_subject).search(subject):
        return None
    if spec.code_narration and _narrates_code(subject, raw, spec.code_narration):
        return None
    while start < raw.end and text[start] in _LEADING_PUNCT:
        start += 1  # a pattern may read the sentence break before its claim (". There are ..."): not the claim's
    frame = frame_claim(text, start, raw.end)
    if not frame.asserted:
        return None
    negative = spec.negative or _negated(raw)
    if spec.subject_before and _no_before(text, start):
        negative = not negative  # "no results are found": the determiner carries the negation
    elif unresolved and normalize_subject(subject) in _NEGATIVE_REFERENTS:
        negative = not negative  # "Nothing is booked yet": no thing is
    confidence = spec.confidence * (HEDGE_FACTOR if frame.hedged else 1.0)
    end = _claim_end(text, raw, subject)
    while end > start + 1 and text[end - 1] in _TRAILING:
        end -= 1  # a pattern may read the clause's end ("the item is listed."): the claim stops before it
    tail = _CONJUNCTION_TAIL.search(text, max(start, end - 16), end)
    if tail is not None:
        end = tail.start()  # "the reload worked and the ...": the next clause is not this claim's
    if resolved:
        confidence *= RESOLVED_FACTOR
    elif unresolved:
        confidence *= UNRESOLVED_FACTOR
    # Positional: category, detector_id, matched_text, offset, subject, assertion, negative, confidence, role.
    return _claim(
        spec.category,
        spec.id,
        text[start:end],
        start,
        subject,
        _assertion(spec.assertion, raw, negative),
        negative,
        _rounded(confidence),
        role,
    )


def _no_before(text: str, start: int) -> bool:
    """Whether "no" and spaces end the four characters before `start` (`_NO_BEFORE`).

    The search runs only when an "n" is there at all: most subjects follow "the", a
    bullet or nothing, and a regex call costs more than two `str.find`s.
    """
    low = max(0, start - 4)
    if text.find("n", low, start) < 0 and text.find("N", low, start) < 0:
        return False
    return _NO_BEFORE.search(text, low, start) is not None


# Confidences rounded to three places: the same few products of a detector's confidence and
# the hedge and resolution factors come up again and again.
_ROUNDED: dict[float, float] = {}


def _rounded(confidence: float) -> float:
    rounded = _ROUNDED.get(confidence)
    if rounded is None:
        rounded = round(confidence, 3)
        if len(_ROUNDED) < 1024:
            _ROUNDED[confidence] = rounded
    return rounded


def _subject(text: str, raw: RawMatch) -> tuple[str, str | None, int] | None:
    """(subject, role, claim start offset), or None when there is no usable subject."""
    spec = raw.spec
    if spec.fixed_subject:
        return spec.fixed_subject, None, raw.start
    if spec.name_group:
        return _name_subject(text, raw)
    if spec.subject_before:
        anchor = raw.groups[spec.subject_includes_match_group].start if spec.subject_includes_match_group else raw.start
        found = phrase_before(text, anchor)
        if spec.subject_includes_match_group:
            start = found[1] if found else anchor
            subject = _SPACES.sub(" ", text[start : raw.groups[spec.subject_includes_match_group].end])
            return subject, None, start
        if found is None:
            return None
        normalized = normalize_subject(found[0])
        if spec.builtin and _unusable(normalized, spec):
            referent = antecedent(text, found[1], normalized) if normalized in REFERRING else None
            if referent is None:
                if normalized in _UNKNOWN_REFERENTS or normalized in _NEGATIVE_REFERENTS:
                    # "It works.", "They are still pending.": a claim all the same (issue 10 stores every
                    # claim), about a thing the text does not name: no fact can check it.
                    return found[0], _UNRESOLVED, found[1]
                return None
            # "Since the reservation is in basic economy, it cannot be changed": about the reservation.
            return referent, _RESOLVED, found[1]
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
        if _idiom(words, spec) and not (spec.role_before and _said_of_a_thing(text, raw, words)):
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


def _name_subject(text: str, raw: RawMatch) -> tuple[str, str | None, int] | None:
    spec = raw.spec
    name = raw.groups.get(spec.name_group)
    if name is None:
        return None
    first = name.text.split(" ")[0]
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


_LEADING_PUNCT = frozenset(" \t\r\n.!?;:")
# A pattern may read the start of the next clause to know this one ended ("worked and the").
_CONJUNCTION_TAIL = re.compile(r"[ \t]+(?:and|but|so)[ \t]+(?:the|a|an|it|its|i|we|my|your|now)$", re.IGNORECASE)
# Where a claim may not end: the clause's punctuation a pattern read to know the clause ended.
_TRAILING = frozenset(" \t\r\n.,;:!—–")
# With their contractions: "I've been unable", "we're not eligible" (normalized subjects use "'").
_PERSONS = frozenset("i we you i've i'd i'm we've we'd we're you've you'd you're".split())
_TRAILING_PARTICIPLES = frozenset("needed required necessary involved left here there".split())
# A subject found by resolving "it" or "which" is a guess: such a claim is flagged, never blocked.
RESOLVED_FACTOR = 0.75
_RESOLVED = "\0resolved"
# "It works" with nothing before it to name "it": kept at a low confidence and left unchecked (the validator
# skips it, `names_nothing`), so no policy flags or blocks it.
UNRESOLVED_FACTOR = 0.6
_UNRESOLVED = "\0unresolved"
_UNKNOWN_REFERENTS = frozenset("it they this that these those".split())
# "Nothing is booked yet", "none are disputed": a claim about every thing of a scope the text leaves open, negated;
# unchecked like an unresolved pronoun.
_NEGATIVE_REFERENTS = frozenset("nothing none nobody".split())


def names_nothing(claim: Claim) -> bool:
    """Whether a claim's subject is a pronoun nothing in the text resolved ("It works."): no fact can
    check it, so the validator leaves it unchecked (stored with no fact status)."""
    subject = normalize_subject(claim.subject)  # as the subject was judged a pronoun
    return subject in _UNKNOWN_REFERENTS or subject in _NEGATIVE_REFERENTS


# "no mention of a timeout", "no sign of the banner": the claim is about what follows "of".
_OF_NOUNS = frozenset("mention mentions sign signs trace traces evidence indication instance instances".split())
_ROLE_WORDS = frozenset(
    """
    user users customer client assistant agent bot system admin administrator operator reviewer owner author
    maintainer developer engineer team manager lead passenger member guest
    """.split()
)
_patterns: dict[str, re.Pattern] = {}


def _claim_end(text: str, raw: RawMatch, subject: str) -> int:
    """Where the claim ends: after its subject when the subject closes the match ("couldn't find
    kubectl", not "couldn't find kubectl on the PATH. The")."""
    spec = raw.spec
    group = raw.groups.get(spec.subject_group or "subject") if spec.builtin else None
    if group is not None and spec.subject_before:
        # The words a pattern took after its state ("is flagged urgent. Do you want me"): up to the sentence's end.
        stop = _SENTENCE_END.search(text, group.start, raw.end)
        return stop.start() + 1 if stop else raw.end
    if group is None or spec.name_group or spec.fixed_subject or not subject.split():
        return raw.end
    state = raw.groups.get("state")
    if state is not None and state.end > group.end:
        return state.end  # the subject leads ("Email sent.", "- Redis: not running"): end with the state
    last = subject.split()[-1]
    at = text.find(last, group.start, raw.end)
    return at + len(last) if at >= 0 else raw.end


# A sentence ends with its punctuation and a space before a capital letter ("urgent. Do"), not in "Dr. Okafor"'s
# abbreviation or "v1.2".
_SENTENCE_END = re.compile(r"(?<!\bDr)(?<!\bMr)(?<!\bMs)(?<!\bSt)(?<!\bvs)[.!?][\"”')\]]*[ \t\n]+(?=[A-Z])")
_before: dict[str, tuple[re.Pattern, object | None]] = {}


def _rejected_before(source: str, window: str) -> bool:
    """Whether `window` (the text just before a match) ends with `reject_before`.

    Python's engine tries the pattern at every offset of the window (3-4 us a candidate);
    RE2 reads a `$`-anchored pattern from the end and saves about a third of that. Same
    answer on ASCII: the detection text is folded, so it holds no control characters but
    tab, CR and LF, and there RE2's word boundaries, word and space classes and case folding
    are Python's. Other windows, and patterns RE2 cannot compile, keep Python's engine.
    """
    compiled = _before.get(source)
    if compiled is None:
        compiled = _before[source] = _compile_before(source)
    python, fast = compiled
    if fast is not None and window.isascii():
        data = window.encode("ascii")
        return fast.Match(_UNANCHORED, data, 0, len(data))[0][0] >= 0
    return python.search(window) is not None


def _compile_before(source: str) -> tuple[re.Pattern, object | None]:
    """`reject_before` compiled to match at the end of a window: Python's and RE2's (or None)."""
    python = re.compile(source + r"\s*$", re.IGNORECASE)
    try:
        fast = re2.compile(f"(?i){source}\\s*$", _BEFORE_OPTIONS)  # spelled as `python` is
    except re2.error:
        return python, None
    regexp = getattr(fast, "_regexp", None)
    return python, (regexp if regexp is not None and _UNANCHORED is not None else None)


_BEFORE_OPTIONS = re2.Options()
_BEFORE_OPTIONS.log_errors = False  # a pattern RE2 cannot read simply stays on Python's engine
_UNANCHORED = getattr(getattr(re2, "_Anchor", None), "UNANCHORED", None)


def _compiled(source: str) -> re.Pattern:
    pattern = _patterns.get(source)
    if pattern is None:
        pattern = _patterns[source] = re.compile(source, re.IGNORECASE)
    return pattern


_PRESENT = re.compile(r"^(?:is|are|'s|’s|'re|’re)(?:n't|n’t)?(?:\s+not)?(?:\s+being)?(?:\s+\w+ly)?$", re.IGNORECASE)


def _narrates_code(subject: str, raw: RawMatch, states: str) -> bool:
    """`xa` is created: the present tense of a code identifier describes the code, not a state. Not when
    the subject says what kind of thing the name is ("the branch `main` is protected")."""
    if "`" not in subject or names_a_kind(subject):
        return False
    state = raw.groups.get("state")
    cop = raw.groups.get("cop")
    if state is None or cop is None or not _compiled(f"(?:{states})$").match(state.text):
        return False
    return bool(_PRESENT.match(cop.text.strip()))


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


def _negated(raw: RawMatch) -> bool:
    group = raw.groups.get(raw.spec.negation_group or "")
    return bool(group and (group.text.strip().lower() in ("no", "zero", "none") or _NEGATION.search(group.text)))


def _assertion(template: str, raw: RawMatch, negative: bool) -> str:
    if "{" not in template:
        return template
    fields = _template_fields(template)
    groups = raw.groups
    if fields is None:
        return _formatted(template, {name: g.text for name, g in groups.items()}, negative)
    # Only the groups the template names (most matches carry several it never reads). The
    # outcome is a function of their texts, and those are a few state words ("installed",
    # "not running") said again and again: remembered.
    key = (template, negative, *[groups[name].text if name in groups else None for name in fields])
    assertion = _ASSERTIONS.get(key)
    if assertion is None:
        assertion = _formatted(template, {name: groups[name].text for name in fields if name in groups}, negative)
        if len(_ASSERTIONS) >= _MAX_ASSERTIONS:
            _ASSERTIONS.clear()
        _ASSERTIONS[key] = assertion
    return assertion


_ASSERTIONS: dict[tuple, str] = {}
_MAX_ASSERTIONS = 4096  # remembered assertions; the whole memo is dropped when full


def _formatted(template: str, texts: dict[str, str], negative: bool) -> str:
    """`template` filled with the group texts (lowercased, runs of spaces as "_") and `{not_}`."""
    # "_".join(split()) is `\s+` -> "_" on the stripped text, without a regex.
    values = {name: "_".join(text.lower().split()) for name, text in texts.items()}
    values["not_"] = "not_" if negative else ""
    try:
        return template.format_map(_Default(values))
    except (ValueError, IndexError):
        return template


_FIELDS: dict[str, frozenset[str] | None] = {}


def _template_fields(template: str) -> frozenset[str] | None:
    """The plain names an assertion template reads, or None when it has other fields (then all are given)."""
    try:
        return _FIELDS[template]
    except KeyError:
        pass
    try:
        parsed = [(field, spec) for _, field, spec, _ in Formatter().parse(template) if field is not None]
        # A nested field in a format spec ("{a:{b}}") is read too: leave such templates to the full path.
        names = [field if "{" not in (spec or "") else "?" for field, spec in parsed]
    except ValueError:
        names = ["?"]
    fields = frozenset(names) if all(n.isidentifier() for n in names) else None
    if len(_FIELDS) < 4096:
        _FIELDS[template] = fields
    return fields


class _Default(dict):
    def __missing__(self, key: str) -> str:
        return ""


def relocate(claim: Claim, folded: Folded) -> Claim:
    """The claim found in the folded text, with offset, matched text and subject of the original."""
    start, end = folded.span(claim.offset, claim.offset + len(claim.matched_text))
    subject = claim.subject
    at = claim.matched_text.find(subject) if subject else -1
    if at >= 0:
        s_start, s_end = folded.span(claim.offset + at, claim.offset + at + len(subject))
        subject = folded.original[s_start:s_end]
    return _claim(
        claim.category, claim.detector_id, folded.original[start:end], start, subject, claim.assertion,
        claim.negative, claim.confidence, claim.role,
    )  # fmt: skip
