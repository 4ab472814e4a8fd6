"""Payloads a script decodes before it runs them: base64, hex and escaped bytes, reversed strings.

Only scripts that also decode (a `base64 -d`, `xxd -r`, `b64decode`, `printf` of escapes,
`rev`) are searched, and only text that decodes to printable UTF-8 is kept, so ordinary
words and hashes are not mistaken for payloads.
"""

from __future__ import annotations

import base64
import binascii
import re

_ESCAPES = re.compile(r"\\(?:x([0-9a-fA-F]{1,2})|([0-7]{1,3})|u([0-9a-fA-F]{4}))")
_B64 = re.compile(r"[A-Za-z0-9+/]{8,}={0,2}")
_HEX = re.compile(r"\b(?:[0-9a-fA-F]{2}){6,}\b")


def decoded_payloads(script: str) -> list[tuple[str, str]]:
    """Base64, hex and escaped payloads in a script that also decodes (base64 -d, xxd -r, printf)."""
    found: list[tuple[str, str]] = []
    low = script.lower()
    if "base64" in low or "b64decode" in low or "openssl" in low:
        for m in _B64.finditer(script):
            text = _b64(m.group(0))
            if text is not None:
                found.append((text, "base64"))
    if "xxd" in low or "unhexlify" in low or "fromhex" in low:
        for m in _HEX.finditer(script):
            text = _printable(binascii.unhexlify(m.group(0)))
            if text is not None:
                found.append((text, "hex"))
    if script.count("\\x") + script.count("\\0") >= 3 or re.search(r"\\[0-7]{3}.*\\[0-7]{3}", script):
        text = unescape(script)
        if text != script:
            found.append((text, "hex"))
    if "rev" in low:
        for m in re.finditer(r"(?:echo|printf)\s+['\"]?([^|'\"]+)['\"]?\s*\|\s*rev\b", script):
            found.append((m.group(1)[::-1], "reversed"))
    return found


def _b64(token: str) -> str | None:
    try:
        raw = base64.b64decode(token + "=" * (-len(token) % 4), validate=True)
    except (binascii.Error, ValueError):
        return None
    return _printable(raw)


def _printable(raw: bytes) -> str | None:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if len(text) < 4 or sum(c.isprintable() or c in "\n\t" for c in text) < 0.95 * len(text):
        return None
    return text


def unescape(text: str) -> str:
    """`\\x72`, `\\162`, `\\u0072`, `\\n` and `\\t` escapes replaced by what they stand for."""
    def sub(m: re.Match) -> str:
        value = m.group(1) or m.group(2) or m.group(3)
        return chr(int(value, 16 if m.group(1) or m.group(3) else 8))

    return _ESCAPES.sub(sub, text).replace("\\n", "\n").replace("\\t", "\t")
