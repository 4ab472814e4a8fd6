"""Quotation marks and backticks around a subject: quoted words are reported, not asserted.

Double-quoted text on a line (the issue's words, an error message) and `>` block quotes are not
the agent's assertions, except the string values of JSON keys under which an agent narrates
("Observation", "memory"). A backticked name is a code value unless the words before it say
what kind of thing it names ("the branch `main`").
"""

from __future__ import annotations

import re

# A closing quotation mark or backtick -> the mark that opens it.
OPENING_OF = {'"': '"', "'": "'", "`": "`", "”": "“", "’": "‘", "»": "«"}


# The last text looked at, and whether it holds a quote mark or a ">" at all: most texts hold
# none, and then no subject in them can be quoted. One tuple, rebound whole (thread-safe).
_QUOTE_MEMO: tuple[str | None, bool] = (None, True)


def quoted_at(text: str, pos: int) -> bool:
    """Whether `pos` lies inside double-quoted text on its line, or on a `>` blockquote line.

    Quoted text (the issue's words, an error message, output) is reported, not asserted by
    the agent: `The issue says: "X doesn't work on Y"`, `> The solution cannot be determined`.
    Straight quotes are paired by count; curly ones by opening against closing.
    """
    global _QUOTE_MEMO
    memo = _QUOTE_MEMO
    if memo[0] is text:
        if not memo[1]:
            return False
    else:
        may = '"' in text or "“" in text or ">" in text
        _QUOTE_MEMO = (text, may)
        if not may:
            return False
    line = text.rfind("\n", 0, pos) + 1
    first = text[line : line + 1]
    if first == ">" or (first in (" ", "\t") and text[line : line + 4].lstrip(" \t")[:1] == ">"):
        return True
    if text.count('"', line, pos) & 1:
        return not _in_narration_value(text, line, pos)
    opened = text.count("“", line, pos)
    return opened > 0 and opened > text.count("”", line, pos)


# Keys under which an agent writing JSON narrates in its own voice: UFO's "Observation" and "Thought",
# Browser-Use's "evaluation_previous_goal" and "memory", AutoGPT's "thoughts" / "reasoning" / "speak",
# Magentic-One's "reason". Their string values are the agent's assertions, not quoted words; keys of
# typed text ("value", "text") and of arguments ("selector", "url") stay quotations.
_NARRATION_KEY = re.compile(
    r'"(?:observation|observations|thought|thoughts|thinking|reasoning|reason|evaluation|evaluation_previous_goal'
    r"|memory|next_goal|summary|analysis|comment|criticism|speak|explanation|progress|findings|notes?|answer"
    r'|final_answer|response|status_message|page_summary|current_state|result_summary)"[ \t]*:[ \t]*$',
    re.IGNORECASE,
)


def _in_narration_value(text: str, line: int, pos: int) -> bool:
    """Whether `pos` lies in the string value of a JSON narration key on its line: the quote that opens
    the string `pos` is in (the last unescaped one before it) follows such a key. Reads a few dozen
    characters, whatever the line's length."""
    at = pos
    while True:
        at = text.rfind('"', line, at)
        if at < 0:
            return False
        slashes = 0
        while at - slashes - 1 >= line and text[at - slashes - 1] == "\\":
            slashes += 1
        if slashes % 2 == 0:  # not an escaped quote inside the value
            break
    return _NARRATION_KEY.search(text, max(line, at - 48), at) is not None


# What a backticked name names, said before it: "the branch `main`", "the EC2 instance `web-prod-2`", "the
# document `cover_letter.odt`". With it the subject is a thing, not a bare code value ("`mask` is empty").
_KINDS = (
    r"(?:branch|repo|repository|project|instance|vm|bucket"
    r"|job|workflow|run|pipeline|document|spreadsheet|workbook|sheet|folder|file|page|tab|channel|issue|ticket|label"
    r"|tag|cluster|service|pod|deployment|app|site|domain|database|table|queue|topic|volume|disk|image|container"
    r"|extension|package|account|user|team|group|org|organization|workspace)"
)
_KIND = r"\b(?:the|your|my|our|this|that)[ \t]+(?:[\w.-]+[ \t]+)?" + _KINDS + r"[ \t]+"
_KIND_BEFORE = re.compile(_KIND + "$", re.IGNORECASE)  # ends where the backticked name starts
_KIND_PREFIX = re.compile(_KIND + "`", re.IGNORECASE)  # opens a subject
# Or after it, as ops agents write it: "the three `payments-api` pods", "the `billing` service". Only kinds that code
# does not have: "two `URLResolver` instances are created" narrates code.
_KIND_SUFFIX = re.compile(
    r"`[ \t]+(?:branch|repo|repository|bucket|job|workflow|pipeline|cluster|service|pod|deployment|container|node"
    r"|namespace|queue|topic|volume|database|vm|workspace|channel|replica|secret|ingress|stack)(?:s|es)?$",
    re.IGNORECASE,
)


def names_a_kind(subject: str) -> bool:
    """Whether a subject says what its backticked name names ("the branch `main`", "the `payments-api` pods")."""
    return _KIND_PREFIX.match(subject) is not None or _KIND_SUFFIX.search(subject) is not None


def with_kind(text: str, phrase: str, start: int) -> tuple[str, int]:
    """A backticked name with the words before it that say what it names, when they do."""
    m = _KIND_BEFORE.search(text, max(0, start - 60), start)
    if m is None or "\n" in text[m.start() : start]:
        return phrase, start
    return text[m.start() : start] + phrase, m.start()


def quoted_before(text: str, end: int, closing: str) -> tuple[str, int] | None:
    opening = OPENING_OF[closing]
    start = text.rfind(opening, max(0, end - 82), end - 1)
    if start < 0 or "\n" in text[start:end]:
        return None
    inner = text[start + 1 : end - 1]
    if not inner.strip() or len(inner) > 80:
        return None
    return text[start:end], start
