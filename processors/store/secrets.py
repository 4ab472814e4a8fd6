"""Secret-looking strings (API keys, tokens, passwords) masked in stored text.

Rows keep matched text, subjects and reasons so analysts see why a finding was
raised; an agent's output can carry a credential, and the audit store must not
become a second place it leaks from. Patterns are well-known credential shapes,
not a guess at every secret: a high-entropy catch-all would mask ids and hashes
analysts need.
"""

from __future__ import annotations

import re

MASK = "[secret]"
# Shapes of credentials that show up in agent text; each is specific enough to leave ids alone.
_PATTERNS = (
    r"\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{16,}",  # OpenAI / Anthropic style keys
    r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b",  # AWS access key ids
    r"\bgh[pousr]_[A-Za-z0-9]{30,}\b",  # GitHub tokens
    r"\bgithub_pat_[A-Za-z0-9_]{40,}\b",
    r"\bxox[abposr]-[A-Za-z0-9-]{10,}",  # Slack tokens
    r"\bglpat-[A-Za-z0-9_-]{20,}",  # GitLab tokens
    r"\bAIza[0-9A-Za-z_-]{35}\b",  # Google API keys
    r"\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}",  # JWTs
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)",
    r"(?i:\b(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token)\b\s*[:=]\s*['\"]?[^\s'\",;]{6,})",
    r"(?i:\bbearer\s+[A-Za-z0-9._~+/-]{16,}=*)",
    r"(?i:\b[a-z][a-z0-9+.-]*://[^\s:/@]+:[^\s@/]+@)",  # credentials in a URL
)
_SECRET = re.compile("|".join(f"(?:{p})" for p in _PATTERNS))
# Only text columns that can quote agent output are scanned.
TEXT_COLUMNS = frozenset({"matched_text", "subject", "reason", "expected", "assertion", "claim", "evidence"})


# Every pattern above contains one of these (lowercased); text with none is left alone
# without running the regex (most stored text: subjects, reasons, matched claims).
_HINTS = ("sk-", "akia", "asia", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat", "xox", "glpat", "aiza",
          "eyj", "private key", "pass", "pwd", "secret", "apikey", "api_key", "api-key", "token", "bearer", "://")
_HINT = re.compile("|".join(map(re.escape, _HINTS)))


def mask(text: str) -> str:
    """`text` with every credential-shaped substring replaced by `[secret]`."""
    if not text:
        return text
    if _HINT.search(text.lower()) is None:
        return text
    return _SECRET.sub(MASK, text)


# What `mask` made of texts seen recently. The masked columns of an LLM span's rows (subjects,
# reasons, expected values) mostly repeat from span to span: the regex ran ~15 times a span for
# the same few hundred strings (~15 us of an LLM span in a collector worker).
_MASKED: dict[str, str] = {}
_MASKED_MAX = 4096
_MASKED_LENGTH = 512  # longer texts are masked each time: the cache stays a few MB at most


_TEXT_COLUMN_LIST = tuple(sorted(TEXT_COLUMNS))  # seven lookups a row, not a set built of its ~35 keys


def mask_row(row: dict) -> dict:
    for key in _TEXT_COLUMN_LIST:
        value = row.get(key)
        if value is None:
            continue
        if type(value) is str and len(value) <= _MASKED_LENGTH:
            masked = _MASKED.get(value)
            if masked is None:
                masked = mask(value)
                if len(_MASKED) >= _MASKED_MAX:
                    _MASKED.clear()  # a flood of distinct texts costs what it cost before, no more memory
                _MASKED[value] = masked
            row[key] = masked
        elif isinstance(value, str):
            row[key] = mask(value)
    return row
