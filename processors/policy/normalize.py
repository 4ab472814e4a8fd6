"""Normalise a tool argument before any deny rule reads it (seed §8.4, adversarial hardening).

- Unicode: zero-width and other invisible characters are dropped, compatibility
  forms folded (NFKC: fullwidth letters, ligatures), and letters that look like
  Latin ones (Cyrillic `е`, Greek `ο`, ...) mapped to them.
- Structure: a JSON-encoded argument is decoded, a list-form command
  (`["bash", "-c", "..."]`) is read as the command it runs, nested mappings are
  walked (bounded).
- Shell: `claimwatch.policy.shell` splits scripts, heredocs, `-c` strings and
  decoded payloads into simple commands.

Each text carries `via`, the chain of normalisations that produced it, so a
decision can say which one exposed the match (`homoglyph`, `base64`, `list+shell -c`).
"""

from __future__ import annotations

import json
import posixpath
import unicodedata
from collections.abc import Mapping
from typing import Any

from .shell import SHELLS

_INVISIBLE = dict.fromkeys(
    map(ord, "\u200b\u200c\u200d\u200e\u200f\u2060\u2061\u2062\u2063\u2064\ufeff\u00ad\u180e\u034f\u061c"
        "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"),
    None,
)
# Letters from other scripts that render like ASCII ones (after NFKC); the usual spoofing set
# (Unicode's confusables for Latin letters from Cyrillic, Greek, Armenian and Latin extensions).
_LOOKALIKE_PAIRS = {
    "a": "аαɑ", "b": "Ьƅ", "c": "сϲⅽ", "d": "ԁⅾ", "e": "еεҽ", "g": "ɡց", "h": "һհ", "i": "іιıɩӏ", "j": "јȷϳ",
    "k": "κк", "l": "ℓӀⅼ", "m": "ⅿ", "n": "ոη", "o": "оοօσ", "p": "рρ", "q": "ԛ", "r": "г", "s": "ѕꜱ", "t": "τ",
    "u": "υսμ", "v": "νѵ", "w": "ԝѡ", "x": "хχ", "y": "уүγ", "z": "ᴢ",
    "A": "АΑ", "B": "ВΒ", "C": "СϹ", "E": "ЕΕ", "H": "НΗ", "I": "ІΙӀ", "J": "Ј", "K": "КΚ", "M": "МΜ", "N": "Ν",
    "O": "ОΟՕ", "P": "РΡ", "S": "Ѕ", "T": "ТΤ", "X": "ХΧ", "Y": "ҮΥ", "Z": "Ζ",
    "/": "∕⁄", "\\": "∖", "-": "‐‑‒–—―−﹣", ":": "：", ";": "；", "|": "｜", "&": "＆", ">": "＞", "<": "＜",
}
_LOOKALIKES = str.maketrans({c: ascii_ for ascii_, chars in _LOOKALIKE_PAIRS.items() for c in chars})
MAX_TEXT = 64_000  # characters of one argument that are read; the rest is ignored
_MAX_DEPTH = 6


def fold(text: str) -> tuple[str, str]:
    """`text` with invisible characters dropped and look-alike letters mapped to ASCII, and what changed."""
    if text.isascii():
        return text, ""
    steps = []
    stripped = text.translate(_INVISIBLE)
    if stripped != text:
        steps.append("zero-width")
    folded = unicodedata.normalize("NFKC", stripped).translate(_LOOKALIKES)
    if folded != stripped:
        steps.append("homoglyph")
    return folded, "+".join(steps)


def command_texts(value: Any, via: str = "", depth: int = 0) -> list[tuple[str, str]]:
    """The shell scripts a shell tool's argument holds: plain, JSON-encoded, list-form or nested."""
    if depth > _MAX_DEPTH or value is None:
        return []
    if isinstance(value, str):
        text = value[:MAX_TEXT]
        stripped = text.lstrip()
        if stripped[:1] in ("[", "{") or stripped.startswith('"'):
            try:
                decoded = json.loads(stripped)
            except ValueError:
                decoded = None
            if decoded is not None and not isinstance(decoded, (int, float, bool)):
                return command_texts(decoded, _join(via, "json"), depth + 1)
        return [(text, via)]
    if isinstance(value, Mapping):
        return [t for v in value.values() for t in command_texts(v, _join(via, "nested"), depth + 1)]
    if isinstance(value, (list, tuple)):
        return _list_form(list(value), via, depth)
    return [(str(value), via)] if isinstance(value, (int, float)) else []


def _list_form(items: list[Any], via: str, depth: int) -> list[tuple[str, str]]:
    """`["bash", "-c", "..."]` is the script; `["rm", "-rf", "/"]` is one command; anything else, each item."""
    via = _join(via, "list")
    if items and all(isinstance(i, str) for i in items):
        program = items[0].rsplit("/", 1)[-1]
        if program in SHELLS:
            for i, item in enumerate(items[1:-1], start=1):
                if item.startswith("-") and "c" in item[1:] and not item.startswith("--"):
                    return command_texts(items[i + 1], _join(via, "shell -c"), depth + 1)
        import shlex  # only list-form arguments need it here

        texts = [(shlex.join(items), via)]
        if any(" " in i for i in items[1:]):
            texts += [t for i in items for t in command_texts(i, via, depth + 1)]
        return texts
    return [t for i in items for t in command_texts(i, via, depth + 1)]


def path_texts(value: Any, cwd: str | None = None, depth: int = 0) -> list[tuple[str, str]]:
    """A file tool's path argument(s), normalised: `~` and `$HOME` kept as `~`, `..` resolved."""
    if depth > 2 or value is None:
        return []
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in path_texts(v, cwd, depth + 1)]
    if not isinstance(value, str):
        return []
    text, via = fold(value.strip()[:4096])
    text = text.replace("${HOME}", "~").replace("$HOME", "~")
    if not text.startswith(("/", "~")) and cwd and ".." in text:
        text = posixpath.join(cwd, text)
    if text.startswith("/") and ("//" in text or "/." in text):
        text = "/" + posixpath.normpath(text).lstrip("/")
    return [(text, via)]


def _join(via: str, step: str) -> str:
    return f"{via}+{step}" if via else step
