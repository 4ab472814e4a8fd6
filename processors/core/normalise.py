"""Fold text before detection, and keep the way back to the original offsets.

"Node.js is not installed." must be found however it is spelled: with a
no-break space, a zero-width space, a right-to-left override, a NUL, a
combining accent, fullwidth letters or Cyrillic look-alikes. Detection runs on
a folded copy of the text: compatibility forms decomposed (NFKC per
character), format and control characters dropped, combining marks dropped
with their base kept, and common confusables mapped to the Latin letter they
imitate. Claims are reported with offsets and text of the original, so a
reader sees exactly what the agent wrote.

Most agent output is plain ASCII; it is returned as is, without a copy.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right

import re2

# Letters from other scripts that render like Latin ones (after Unicode TR39's
# idea of confusables; a short hand-picked table of the ones used in practice).
_CONFUSABLES = {
    # Cyrillic
    "а": "a", "в": "b", "е": "e", "ѐ": "e", "ё": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p",
    "с": "c", "т": "t", "у": "y", "х": "x", "ѕ": "s", "і": "i", "ї": "i", "ј": "j", "ԁ": "d", "һ": "h",
    "ӏ": "l", "ԛ": "q", "ԝ": "w", "ɡ": "g", "ս": "u", "օ": "o", "ո": "n",
    "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P", "С": "C", "Т": "T",
    "Х": "X", "У": "Y", "Ѕ": "S", "І": "I", "Ј": "J", "Ԁ": "D", "Ӏ": "I", "Ԛ": "Q", "Ԝ": "W",
    # Greek
    "α": "a", "ο": "o", "ι": "i", "κ": "k", "ν": "v", "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "ϲ": "c",
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N", "Ο": "O",
    "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X", "Ϲ": "C",
    # Latin variants that NFKC keeps
    "ı": "i", "ȷ": "j", "ℓ": "l", "ſ": "s",
}  # fmt: skip
# Separators that end a line for every reader.
_LINE_BREAKS = {"\u2028": "\n", "\u2029": "\n", "\x85": "\n", "\x0b": "\n", "\x0c": "\n"}
# Characters other than printable ASCII, tab and newlines: the only ones that may change.
_SPECIAL = re.compile(r"[^\t\n\r\x20-\x7e]")
_cache: dict[str, str] = {}


def fold_char(ch: str) -> str:
    """What one character becomes in the detection text ('' when it is dropped)."""
    cached = _cache.get(ch)
    if cached is not None:
        return cached
    folded = _fold_char(ch)
    if len(_cache) < 100_000:
        _cache[ch] = folded
    return folded


def _fold_char(ch: str) -> str:
    if ch in _LINE_BREAKS:
        return _LINE_BREAKS[ch]
    category = unicodedata.category(ch)
    if category in ("Cf", "Cc", "Cs", "Co", "Cn", "Mn", "Me"):
        # Format (zero-width, bidi overrides), control (NUL), lone surrogates,
        # private-use, unassigned, combining marks: nothing a reader sees as a letter.
        return ""
    decomposed = unicodedata.normalize("NFKD", ch)
    if any(unicodedata.combining(c) for c in decomposed):
        # A precomposed accented letter: keep the base ("é" -> "e").
        base = "".join(c for c in decomposed if not unicodedata.combining(c))
        out = unicodedata.normalize("NFKC", base)
    else:
        out = unicodedata.normalize("NFKC", ch)
    return "".join(_CONFUSABLES.get(c, c) for c in out if unicodedata.category(c) not in ("Cf", "Cc", "Mn"))


class Folded:
    """A folded text and the map from its offsets back to the original's."""

    __slots__ = ("_folded_starts", "_original_starts", "_runs", "data", "original", "text")

    def __init__(
        self, original: str, text: str, segments: list[tuple[int, int, bool]] | None, data: bytes | None = None
    ) -> None:
        self.original = original
        self.text = text
        # `text` as UTF-8 when folding had it at hand (detection reuses it), else None.
        self.data = data
        if segments is None:
            self._folded_starts = None
            return
        self._folded_starts = [s[0] for s in segments]
        self._original_starts = [s[1] for s in segments]
        self._runs = [s[2] for s in segments]

    @property
    def changed(self) -> bool:
        return self._folded_starts is not None

    def start(self, pos: int) -> int:
        """Original offset of the folded character at `pos` (or the end)."""
        if self._folded_starts is None:
            return pos
        if pos >= len(self.text):
            return len(self.original)
        i = bisect_right(self._folded_starts, pos) - 1
        if self._runs[i]:
            return self._original_starts[i] + pos - self._folded_starts[i]
        return self._original_starts[i]

    def end(self, pos: int) -> int:
        """Original offset just after the folded character before `pos` (an exclusive end)."""
        if self._folded_starts is None or pos <= 0:
            return pos
        return self.start(pos - 1) + 1

    def span(self, start: int, end: int) -> tuple[int, int]:
        """Original (start, end) of the folded span [start, end)."""
        o_start = self.start(start)
        return o_start, max(o_start, self.end(end))


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def fold(text: str) -> Folded:
    """The detection text of `text`; unchanged (and not copied) when nothing needs folding."""
    if text.isascii():
        data = text.encode("ascii")
        if not data.translate(None, _PLAIN_BYTES):  # no control characters
            return Folded(text, text, None, data)
    else:
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError:
            # Half an emoji from a JSON escape cannot be encoded for RE2; U+FFFD keeps every offset.
            text = _LONE_SURROGATE.sub("\ufffd", text)
            data = text.encode("utf-8")
        if _nothing_to_fold(text, data):
            # Typographic quotes, dashes, emoji, CJK: nothing to fold, and no per-character walk.
            return Folded(text, text, None, data)
    pieces: list[str] = []
    segments: list[tuple[int, int, bool]] = []  # (folded start, original start, is a 1:1 run)
    folded_len = 0
    copied = 0  # original offset up to which text is accounted for
    for m in _SPECIAL.finditer(text):
        at = m.start()
        ch = text[at]
        out = fold_char(ch)
        if out == ch:
            continue
        if at > copied:
            segments.append((folded_len, copied, True))
            pieces.append(text[copied:at])
            folded_len += at - copied
        if out:
            segments.append((folded_len, at, len(out) == 1))
            pieces.append(out)
            folded_len += len(out)
        copied = at + 1
    if not segments and copied == 0:
        return Folded(text, text, None)
    if copied < len(text):
        segments.append((folded_len, copied, True))
        pieces.append(text[copied:])
    if not segments:  # everything was dropped
        segments.append((0, len(text), False))
    return Folded(text, "".join(pieces), segments)


_PLAIN_BYTES = bytes(range(0x20, 0x7F)) + b"\t\n\r"


def _nothing_to_fold(text: str, data: bytes) -> bool:
    """`is_normalized("NFKC", text) and not _suspect(data)`, read off the few characters that matter.

    Both look at characters other than printable ASCII: `data` without its printable ASCII
    bytes (deleted in C) holds them in order, usually a handful, and the RE2 search and the
    quick check over the whole text cost 10-20 us at 2,000 characters. Unsuspect characters
    that are NFKC among themselves are NFKC in the text too: an ASCII character has no
    decomposition and combining class 0, so it can only take part in a composition as the
    base of a combining mark of U+0300-U+036F (the only marks that compose with ASCII
    letters, `<`, `=` or `>`), and those are suspect. When the characters alone are not NFKC
    (taking out the ASCII between them can make them compose), the whole text decides.
    """
    others = data.translate(None, _PLAIN_BYTES)
    if _suspect(others):
        return False
    return unicodedata.is_normalized("NFKC", others.decode("utf-8")) or unicodedata.is_normalized("NFKC", text)


def _ascii_controls(text: str) -> bool:
    """True when ASCII `text` holds a control character (bytes.translate runs in C, a regex would not)."""
    return bool(text.encode("ascii").translate(None, _PLAIN_BYTES))


# Characters NFKC leaves alone that folding still changes: controls, accented Latin letters,
# combining marks, Greek and Cyrillic look-alikes, zero-width and bidi controls, private use.
_SUSPECT = re2.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u00ad\u00c0-\u024f\u0300-\u036f\u0370-\u03ff\u0400-\u052f"
    "\u0530-\u058f\u1ab0-\u1aff\u1dc0-\u1dff\u200b-\u200f\u2028-\u202e\u2060-\u206f\u20d0-\u20ff"
    "\ue000-\uf8ff\ufe00-\ufe0f\ufe20-\ufe2f\ufeff\U000e0000-\U000e007f\U000f0000-\U0010ffff]"
)


_SUSPECT_RE2 = getattr(_SUSPECT, "_regexp", None)
_UNANCHORED = getattr(getattr(re2, "_Anchor", None), "UNANCHORED", None)


def _suspect(data: bytes) -> bool:
    """`_SUSPECT` on UTF-8 bytes, through the binding's RE2 object when it is exposed (the
    wrapper would convert offsets we do not need)."""
    if _SUSPECT_RE2 is not None and _UNANCHORED is not None:
        return _SUSPECT_RE2.Match(_UNANCHORED, data, 0, len(data))[0][0] >= 0
    return _SUSPECT.search(data) is not None


def fold_key(text: str) -> str:
    """`text` folded for comparison: the same letters as detection sees, lowercased."""
    if text.isascii() and not _ascii_controls(text):
        return text.lower()
    return fold(text).text.lower()
