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
from .phrases import normalize_subject
from .quotes import names_a_kind
from .subjects import (
    NEGATIVE_REFERENTS,
    RESOLVED,
    RESOLVED_FACTOR,
    UNRESOLVED,
    UNRESOLVED_FACTOR,
    locate_subject,
)

_NEGATION = re.compile(NEGATION, re.IGNORECASE)
_NO_BEFORE = re.compile(r"\b(?:no|none\s+of|neither\s+of)\s+$", re.IGNORECASE)
_NONE_OF_BEFORE = re.compile(r"\b(?:none|neither)\s+of\s+$", re.IGNORECASE)
# Words after "is running" that make it an activity, not a state ("running out of memory").
_NOT_A_STATE = re.compile(r"\s+(?:out\b|late\b|low\b|short\b|behind\b|into\b|away\b|a\b|an\b|the\b|some\b|my\b|our\b)")


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


# How far back `reject_before` reads: a policy's preamble may stand that far before its rule ("According to our
# policy, **basic economy reservations cannot be modified**").
BEFORE_WINDOW = 72


def _inside_a_word(text: str, raw: RawMatch) -> bool:
    """Whether a builtin pattern matched inside something that is no English word: the attribute of a dotted name
    ("`os.path.exists`", "the race between os.path.exists and open": `\\b` holds after the dot), or the "'s" of
    "let's" read as a copula ("Let's clean up", "let's open the file")."""
    start = raw.start
    if start >= 2 and text[start - 1] == "." and text[start - 2].isalnum() and text[start].islower():
        return True
    cop = raw.groups.get("cop")
    if cop is not None and cop.text[:2] in ("'s", "’s") and cop.start >= 3:
        return text[cop.start - 3 : cop.start].lower() == "let"
    return False


def rejected_early(text: str, raw: RawMatch) -> bool:
    """Whether a match is no claim by the few characters around it alone (its detector's `reject_after`,
    `reject_state`, `reject_before`): a short regex match each, so the validator charges these matches
    far less than one it turns into a claim. `build_claim` runs the rest."""
    spec = raw.spec
    if spec.builtin and _inside_a_word(text, raw):
        return True
    if spec.builtin and spec.subject_before and "state" in raw.groups:
        if raw.groups["state"].text.lower().startswith("running") and _NOT_A_STATE.match(text, raw.end):
            return True
    if spec.reject_after and _compiled(spec.reject_after).match(text, raw.end):
        return True
    if spec.reject_state and "state" in raw.groups and _compiled(spec.reject_state).fullmatch(raw.groups["state"].text):
        return True
    return bool(
        spec.reject_before and _rejected_before(spec.reject_before, text[max(0, raw.start - BEFORE_WINDOW) : raw.start])
    )


def build_claim(text: str, raw: RawMatch, screened: bool = False) -> Claim | None:
    """Turn one match into a claim, or None when the context shows it is not an assertion.

    `text` is the folded detection text (`normalise.fold`): no control characters but tab,
    CR and LF, which the RE2 shortcut of `_rejected_before` relies on. `screened`: the caller
    has already asked `rejected_early` (and got False).
    """
    spec = raw.spec
    if not screened and rejected_early(text, raw):
        return None
    located = locate_subject(text, raw)
    if located is None:
        return None
    subject, role, start = located
    resolved = role is RESOLVED
    unresolved = role is UNRESOLVED
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
    no_before = (spec.subject_before or raw.start >= start) and _no_before(text, start)  # asked once: pure
    if spec.subject_before and no_before:
        negative = not negative  # "no results are found": the determiner carries the negation
    elif raw.start >= start and no_before and _NONE_OF_BEFORE.search(text, max(0, start - 12), start):
        negative = not negative  # "None of the builds passed": outside the pattern's match, the quantifier negates
    elif unresolved and normalize_subject(subject) in NEGATIVE_REFERENTS:
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
    """Whether "no" ("no tests are failing"), "none of" or "neither of" ("none of the tests are failing")
    and spaces end the twelve characters before `start` (`_NO_BEFORE`).

    The search runs only when an "n" is there at all: most subjects follow "the", a
    bullet or nothing, and a regex call costs more than two `str.find`s.
    """
    low = max(0, start - 12)
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


_LEADING_PUNCT = frozenset(" \t\r\n.,!?;:")
# A pattern may read the start of the next clause to know this one ended ("worked and the").
_CONJUNCTION_TAIL = re.compile(r"[ \t]+(?:and|but|so)[ \t]+(?:the|a|an|it|its|i|we|my|your|now)$", re.IGNORECASE)
# Where a claim may not end: the clause's punctuation a pattern read to know the clause ended.
_TRAILING = frozenset(" \t\r\n.,;:!—–")


_patterns: dict[str, re.Pattern] = {}


def _claim_end(text: str, raw: RawMatch, subject: str) -> int:
    """Where the claim ends: after its subject when the subject closes the match ("couldn't find
    kubectl", not "couldn't find kubectl on the PATH. The")."""
    spec = raw.spec
    group = raw.groups.get(spec.subject_group or "subject") if spec.builtin else None
    if group is not None and spec.subject_before:
        # The words a pattern took after its state ("is flagged urgent. Do you want me"): up to the sentence's end.
        if not _has_sentence_mark(text, group.start, raw.end):
            return raw.end  # `_SENTENCE_END` needs one; it tries its look-behinds at every offset before finding none
        stop = _SENTENCE_END.search(text, group.start, raw.end)
        return stop.start() + 1 if stop else raw.end
    if group is None or spec.name_group or spec.fixed_subject:
        return raw.end
    words = subject.split()
    if not words:
        return raw.end
    state = raw.groups.get("state")
    if state is not None and state.end > group.end:
        return state.end  # the subject leads ("Email sent.", "- Redis: not running"): end with the state
    last = words[-1]
    at = text.find(last, group.start, raw.end)
    return at + len(last) if at >= 0 else raw.end


# A sentence ends with its punctuation and a space before a capital letter ("urgent. Do"), not in "Dr. Okafor"'s
# abbreviation or "v1.2".
_SENTENCE_END = re.compile(r"(?<!\bDr)(?<!\bMr)(?<!\bMs)(?<!\bSt)(?<!\bvs)[.!?][\"”')\]]*[ \t\n]+(?=[A-Z])")
_before: dict[str, tuple[re.Pattern, object | None]] = {}


def _has_sentence_mark(text: str, start: int, end: int) -> bool:
    """Whether text[start:end] holds a "." "!" or "?" (three searches in C)."""
    return text.find(".", start, end) >= 0 or text.find("!", start, end) >= 0 or text.find("?", start, end) >= 0


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
    # Grouped: a source with alternatives ("would|will ...|n't\s+$") is anchored at the window's end as a whole.
    python = re.compile(end_anchored(source), re.IGNORECASE)
    try:
        fast = re2.compile(f"(?i)(?:{source})\\s*$", _BEFORE_OPTIONS)  # spelled as `python` is
    except re2.error:
        return python, None
    regexp = getattr(fast, "_regexp", None)
    return python, (regexp if regexp is not None and _UNANCHORED is not None else None)


_DOLLAR = re.compile(r"(?<!\\)\$")


def end_anchored(source: str) -> str:
    """`source` anchored at the very end of a window, for Python's engine: its `$` also matches before a final
    newline ("when \\n" would frame a claim on the next line), RE2's only at the end, so `$` becomes `\\Z`."""
    return _DOLLAR.sub(r"\\Z", f"(?:{source})\\s*$")


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


def _negated(raw: RawMatch) -> bool:
    group = raw.groups.get(raw.spec.negation_group or "")
    if not group:
        return False
    # A function of the group's words, which are a few copulas said again and again ("is not", "has"): remembered.
    negated = _NEGATED.get(group.text)
    if negated is None:
        negated = group.text.strip().lower() in ("no", "zero", "none") or _NEGATION.search(group.text) is not None
        if len(_NEGATED) >= _MAX_ASSERTIONS:
            _NEGATED.clear()
        _NEGATED[group.text] = negated
    return negated


_NEGATED: dict[str, bool] = {}


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
