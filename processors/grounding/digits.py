"""Where a number, a time or a date can start in an evidence passage, found without a regex scan.

The grader reads every number, time and date of a passage once per passage (`numbers._numbers`,
`specifics._parsed`). Their patterns begin with a look-behind or a word boundary, so `re` tries them at every
character: about 12 ns a character, ~0.9 ms a pattern on a 20,000-character pool. Every match of them
holds a digit, and starts where a run of digits starts (after a "-" for a negative number) or, for a date
such as "march 3", where the month's word starts. Those places are found with `bytes.find` (memchr) on a
copy of the text with digits marked, and the pattern is matched only there: the same matches, in the same
order, as `finditer`. Text with other characters takes the same path unless one of them is a digit to `re`
(`\\d` is any decimal digit there): each becomes one "?" in the marked copy, so offsets stay, and the patterns
read their `\\w`, `\\s` and `\\b` on the text itself.
"""

from __future__ import annotations

import re
from collections.abc import Callable

# Digits become "0", every other byte a space: runs of digits are then found with two memchr calls each.
_DIGIT_BYTES = bytes(48 if 48 <= c <= 57 else 32 for c in range(256))
_LOWER = frozenset("abcdefghijklmnopqrstuvwxyz")


def digit_starts(text: str) -> list[int]:
    """Where each run of ASCII digits of a text starts."""
    marks = text.encode("ascii", "replace").translate(_DIGIT_BYTES)
    found: list[int] = []
    at = marks.find(b"0")
    while at != -1:
        found.append(at)
        end = marks.find(b" ", at)
        if end == -1:
            break
        at = marks.find(b"0", end)
    return found


def number_starts(text: str) -> list[int]:
    """Where a number can start: a run of digits, or the "-" right before one."""
    found: list[int] = []
    for at in digit_starts(text):
        if at and text[at - 1] == "-":
            found.append(at - 1)
        found.append(at)
    return found


def date_starts(text: str) -> list[int]:
    """Where a date can start: a run of digits, or the word before one that only white space (and a "."
    after the word) separates from it, as a month's name is in "march 3" or "jan. 5"."""
    found: list[int] = []
    for at in digit_starts(text):
        gap = at
        while gap and text[gap - 1].isspace():  # `\s`, on any text (str.isspace is what `re` reads as \s)
            gap -= 1
        if gap < at:  # white space before the digits: a month's name may end before it (and its ".")
            word = gap - 1 if gap and text[gap - 1] == "." else gap
            start = word
            while start and text[start - 1] in _LOWER:
                start -= 1
            if start < word:
                found.append(start)
        found.append(at)
    found.sort()
    return found


def matches(pattern: re.Pattern, text: str, starts: Callable[[str], list[int]]) -> list[re.Match]:
    """`list(pattern.finditer(text))` for a pattern whose matches are never empty and start only where
    `starts(text)` says, on text whose digits are ASCII: `match` at each such place not inside the last
    match (a match reads the text before its start for `\\b` and look-behinds, as a scan does)."""
    if not text.isascii() and _other_digits(text):
        return list(pattern.finditer(text))
    found: list[re.Match] = []
    resume = 0
    for at in starts(text):
        if at >= resume:
            m = pattern.match(text, at)
            if m is not None:
                found.append(m)
                resume = m.end()
    return found


def _other_digits(text: str) -> bool:
    """Whether a character of `text` outside ASCII is a digit to `re` (a decimal digit: "٣", "３"), where a
    match could start that the ASCII digit runs do not show. Tool output with "’", "é" or "—" has none."""
    return any(c.isdecimal() for c in set(text) if not c.isascii())
