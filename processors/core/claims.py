"""From raw pattern matches to claims: subject, assertion, polarity, confidence, context."""

from __future__ import annotations

import re
from dataclasses import replace

from .context import HEDGE_FACTOR, frame_claim
from .detectors._fragments import NEGATION
from .model import Claim
from .normalise import Folded
from .patterns import RawMatch
from .phrases import is_pronoun, normalize_subject, phrase_after, phrase_before

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
    visibility
    """.split()
)
# Capitalised words that start sentences but never name anyone.
_NON_NAMES = frozenset(
    """
    The This That These Those It He She They We I You There Here Everything Nothing Someone Everyone Anyone
    Then Now Also But And So Yes No Ok Okay Note Please Thanks Sure Done Next First Finally As When If After
    Before Once While Since Because Although Though Today Yesterday Tomorrow All Each Every Some Any Both
    Hi Hello Hey Dear Team Everybody Nobody Someone Somebody Meanwhile However Still Just Only Even Let
    Our Your My Their His Her Its What Which Who Why How Where Great Good Perfect Sorry Unfortunately
    """.split()
)


def build_claim(text: str, raw: RawMatch) -> Claim | None:
    """Turn one match into a claim, or None when the context shows it is not an assertion."""
    spec = raw.spec
    if spec.builtin and spec.subject_before and "state" in raw.groups:
        if raw.groups["state"].text.lower().startswith("running") and _NOT_A_STATE.match(text, raw.end):
            return None
    located = _subject(text, raw)
    if located is None:
        return None
    subject, role, start = located
    frame = frame_claim(text, start, raw.end)
    if not frame.asserted:
        return None
    negative = spec.negative or _negated(raw)
    if spec.subject_before and _NO_BEFORE.search(text, max(0, start - 4), start):
        negative = not negative  # "no results are found": the determiner carries the negation
    confidence = spec.confidence * (HEDGE_FACTOR if frame.hedged else 1.0)
    return Claim(
        category=spec.category,
        detector_id=spec.id,
        matched_text=text[start : raw.end],
        offset=start,
        subject=subject,
        assertion=_assertion(spec.assertion, raw, negative),
        negative=negative,
        confidence=round(confidence, 3),
        role=role,
    )


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
        if found is None or (is_pronoun(normalize_subject(found[0])) and spec.builtin):
            return None
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
        subject = trimmed[0]
        words = normalize_subject(subject).split(" ")
        if is_pronoun(" ".join(words)) or words[0] in _IDIOM_SUBJECTS or words[-1] in _IDIOM_SUBJECTS:
            return None
    role = None
    start = raw.start
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
    if name.text.split(" ")[0] in _NON_NAMES:
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


def _negated(raw: RawMatch) -> bool:
    group = raw.groups.get(raw.spec.negation_group or "")
    return bool(group and _NEGATION.search(group.text))


def _assertion(template: str, raw: RawMatch, negative: bool) -> str:
    if "{" not in template:
        return template
    values = {name: _SPACES.sub("_", g.text.strip().lower()) for name, g in raw.groups.items()}
    values["not_"] = "not_" if negative else ""
    try:
        return template.format_map(_Default(values))
    except (ValueError, IndexError):
        return template


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
    return replace(claim, offset=start, matched_text=folded.original[start:end], subject=subject)
