"""What the agent wrote but did not assert: code, tool-call payloads and the text it types or drafts.

Fenced blocks and multi-word inline code are examples, commands or output; tool-call tags and
inline calls with string arguments (`fill('#msg', 'Hi Ana, ...')`) hold arguments; text after a
typing verb, in a JSON typed-text key, in WebArena's `type [id] [text]` or quoted under a line
announcing a draft is what the agent enters, not what it claims.
"""

from __future__ import annotations

import re
from bisect import bisect_right

_INLINE = re.compile(r"`[^`\n]+`")
_EXPRESSION = re.compile(r"[<>=!]")


def fence_spans(text: str) -> list[tuple[int, int]]:
    """Sorted spans of fenced code blocks (``` or ~~~)."""
    # One character first: `in` finds a single character with memchr, a three-character needle at
    # about a nanosecond a character (1.6 us over 2,000 characters with no fence), and most texts
    # hold no "~" at all.
    if ("`" not in text or "```" not in text) and ("~" not in text or "~~~" not in text):
        return []
    return _fence_spans(text)


# Tool-call payloads: `<function=...>...</function>` and `<tool_call>` blocks, and calls written
# inline with a string argument, `fill('#msg', 'Hi Ana, ...')`. What they hold is typed text or
# arguments, not the agent's assertion.
# Also OpenHands' CodeAct actions (`<execute_bash>`, `<execute_ipython>`, `<execute_browse>`) and aider's
# `<source>` fence: a command or a file's text.
_TAG_PAYLOAD = re.compile(
    r"<(function|tool_call|tool_use|invoke|parameter|execute_bash|execute_ipython|execute_browse|source)\b"
    r"[^>\n]{0,200}>.{0,4000}?(?:</\1>|\Z)",
    re.DOTALL,
)
# aider's edit blocks, fenced or not: the lines between `<<<<<<< SEARCH` and `>>>>>>> REPLACE` are a file's
# old and new text.
_EDIT_BLOCK = re.compile(r"^<{7}[ \t]*SEARCH\b.*?(?:^>{7}[ \t]*REPLACE\b[^\n]*|\Z)", re.DOTALL | re.MULTILINE)
_CALL_PAYLOAD = re.compile(r"\b[A-Za-z_][\w.]{0,60}\((?=[^()\n]{0,400}['\"])(?:[^()\n]|\([^()\n]{0,200}\)){0,400}\)")


_TAG_NAMES = ("<function", "<tool_call", "<tool_use", "<invoke", "<parameter", "<execute_", "<source")


def code_spans(text: str) -> list[tuple[int, int]]:
    """Sorted, merged spans of fenced code and tool-call tags (inline calls: see `in_code`)."""
    spans = fence_spans(text)
    if "<" in text:
        if any(tag in text for tag in _TAG_NAMES):
            spans = spans + [m.span() for m in _TAG_PAYLOAD.finditer(text)]
        if "<<<<<<<" in text:
            spans = spans + [m.span() for m in _EDIT_BLOCK.finditer(text)]
    return merge_spans(spans) if len(spans) > 1 else spans


def merge_spans(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The spans sorted, with those that overlap or touch merged: what `overlaps` searches."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def in_code(text: str, fences: list[tuple[int, int]], start: int, end: int, subject: str | None = None) -> bool:
    """True when [start, end) touches a fenced block or multi-word inline code.

    Claims there are examples, commands or tool output, not the agent's own
    assertions. A single-token inline span is not code here: "`rg` is not
    installed" names its subject in backticks; nor is multi-word code inside
    the claim's `subject` ("`npm run build` failed", "there is no `ORDER BY`
    clause"), unless it is an expression ("`xa < 0` is possible"). Inline code
    never spans lines, so only the lines of the match are searched.
    """
    if fences and overlaps(fences, start, end):
        return True
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    # A claim may begin at the call itself ('send_msg_to_user("The run failed")'): look for "(" up to its end.
    if text.find("(", line_start, end) >= 0 and _in_call(text, line_start, start, end, line_end):
        return True
    if _in_typed_text(text, line_start, start, end, line_end):
        return True
    if text.find("[", line_start, start) >= 0 and _in_bracket_typing(text, line_start, start, end, line_end):
        return True
    if _in_drafted_block(text, line_start):
        return True
    if text.find("`", line_start, end + 200) < 0:
        return False
    stop = len(text) if line_end < 0 else line_end
    spans = [(s, e) for s, e in _line_spans(_multi_word_inline, text, line_start, stop) if s < end and start < e]
    if not spans:
        return False
    named = text.find(subject, start, end) if subject else -1
    return any(named < 0 or s < named or e > named + len(subject) or _EXPRESSION.search(text, s, e) for s, e in spans)


def _multi_word_inline(text: str, line_start: int, stop: int) -> list[tuple[int, int]]:
    return [
        m.span()
        for m in _INLINE.finditer(text, line_start, stop)
        if _MULTI_WORD.search(text, m.start() + 2, m.end() - 1)
    ]


def _calls(text: str, line_start: int, stop: int) -> list[tuple[int, int]]:
    return [m.span() for m in _CALL_PAYLOAD.finditer(text, line_start, stop)]


def _bracket_typed(text: str, line_start: int, stop: int) -> list[tuple[int, int]]:
    return [m.span(1) for m in _BRACKET_TYPING.finditer(text, line_start, stop)]


# What each line of the last text looked at holds (calls, typed text, inline code), found once per line:
# every claim on a line asks, and a one-line JSON output of thousands of characters holds dozens of claims.
# One tuple, rebound whole when the text changes (thread-safe).
_LINE_MEMO: tuple[str | None, dict] = (None, {})


def _line_spans(finder, text: str, line_start: int, stop: int) -> list[tuple[int, int]]:
    global _LINE_MEMO
    memo = _LINE_MEMO
    if memo[0] is not text:
        memo = _LINE_MEMO = (text, {})
    key = (finder, line_start, stop)
    spans = memo[1].get(key)
    if spans is None:
        spans = memo[1][key] = finder(text, line_start, stop)
    return spans


# "I typed 'Hi Ana, your order shipped' into the reply box": text the agent entered is not
# something it asserts.
_TYPING = re.compile(
    r"\b(?:type|typed|types|typing|enter|entered|enters|fill|filled|fills|write|wrote|writes|paste|pasted|input"
    r"|inputs|send|sent|sends|reply|replied|replies|post|posted|message|messaged)\b[^'\"“‘\n]{0,40}$",
    re.IGNORECASE,
)
_QUOTE_PAIRS = {"'": "'", '"': '"', "“": "”", "‘": "’"}


# The same in a JSON action: {"action": "fill", "selector": "#comment", "value": "The page is broken ..."}.
_TYPED_KEY = re.compile(
    # Not UFO's "Comment": its agent narrates there (a lowercase "comment" key holds typed text).
    r"[\"'](?:value|text|content|body|message|query|input|keys|input_text|reply|(?-i:comment)|subject)[\"']\s*:\s*$",
    re.IGNORECASE,
)
# WebArena's action syntax: type [164] [Hi Jordan, the venue is confirmed] [0].
_BRACKET_TYPING = re.compile(r"\b(?:type|fill)\s*\[[^\]\n]{1,40}\]\s*\[([^\]\n]{0,2000})\]", re.IGNORECASE)
# A line that announces typed or drafted text, the text itself on the next lines, quoted or as a
# block quote: "I'll draft the reply now:" / "> Hi Ruth, the invoice has been ...".
_DRAFT_INTRO = re.compile(
    r"\b(?:type|typing|enter|entering|fill|filling|write|writing|draft|drafting|drafted|compose|composing|send"
    r"|sending|reply|replying|post|posting|paste|pasting|message|following)\b[^\n]{0,120}:[ \t*]*$",
    re.IGNORECASE,
)
_DRAFT_LINE_START = (">", '"', "“", "'")


def _in_typed_text(text: str, line_start: int, start: int, end: int, line_end: int) -> bool:
    """True when [start, end) is inside a quotation that follows a typing verb on its line, or
    that is the value of a typed-text key in a JSON action."""
    stop = len(text) if line_end < 0 else line_end
    for opening, closing in _QUOTE_PAIRS.items():
        at = text.rfind(opening, line_start, start)
        if at < 0 or (opening == "'" and at > 0 and text[at - 1].isalnum()):
            continue  # an apostrophe ("don't"), not a quotation mark
        if opening == '"' and text.count('"', line_start, at) % 2:
            continue  # it closes a quotation ('the "Create post" form. The title ...'): none is open
        close = text.find(closing, max(end - 1, at + 1), stop)
        # Both patterns end at the quote and reach back a few dozen characters: only those are read.
        near = max(line_start, at - 64)
        if close >= 0 and (_TYPING.search(text, near, at) or _TYPED_KEY.search(text, near, at)):
            return True
    return False


def _in_bracket_typing(text: str, line_start: int, start: int, end: int, line_end: int) -> bool:
    """True when [start, end) lies in the text argument of a `type [id] [text]` action."""
    stop = len(text) if line_end < 0 else line_end
    return any(s < end and start < e for s, e in _line_spans(_bracket_typed, text, line_start, stop))


def _in_drafted_block(text: str, line_start: int) -> bool:
    """True when the line is quoted text (a block quote or a quotation) under a line that announces
    what the agent types or drafts: the draft is not the agent's assertion."""
    line = text[line_start : line_start + 4].lstrip(" \t")
    if not line.startswith(_DRAFT_LINE_START):
        return False
    at = line_start
    while at > 0:  # up over the quoted lines and blank lines to the announcing line
        previous = text.rfind("\n", 0, at - 1) + 1
        above = text[previous : at - 1].strip()
        if above and not above.startswith(_DRAFT_LINE_START):
            return _DRAFT_INTRO.search(above) is not None
        at = previous
    return False


def _in_call(text: str, line_start: int, start: int, end: int, line_end: int) -> bool:
    """True when [start, end) lies in the string arguments of a call written inline on its line."""
    stop = len(text) if line_end < 0 else line_end
    return any(s < end and start < e for s, e in _line_spans(_calls, text, line_start, stop))


_INF = float("inf")  # looked up, not built by a call on every overlap test (several per match)


def overlaps(spans: list[tuple[int, int]], start: int, end: int) -> bool:
    """True when [start, end) intersects any of the sorted, disjoint `spans`."""
    i = bisect_right(spans, (start, _INF)) - 1
    if i >= 0 and spans[i][1] > start:
        return True
    return i + 1 < len(spans) and spans[i + 1][0] < end


def _fence_spans(text: str) -> list[tuple[int, int]]:
    """Fenced code blocks; an unclosed fence stops at the first line of prose (see `_unclosed_end`)."""
    markers = _find_all(text, "```")  # in order already
    if "~" in text and "~~~" in text:
        markers = sorted(markers + _find_all(text, "~~~"))
    spans: list[tuple[int, int]] = []
    opened: tuple[int, str] | None = None
    for at in markers:
        if at == 0 or text[at - 1] == "\n":
            line_start = at  # most fences open their line: no look back for the line start
        else:
            line_start = text.rfind("\n", 0, at) + 1
            if text[line_start:at].strip(" \t"):
                continue  # not at the start of a line
        marker = text[at : at + 3]
        if opened is None:
            opened = (line_start, marker)
        elif marker == opened[1]:
            spans.append((opened[0], _line_end(text, at)))
            opened = None
    if opened is not None:
        spans.append((opened[0], _unclosed_end(text, _line_end(text, opened[0]))))
    return spans


# A line of prose: not indented, starts with a capital (after an optional bullet), has at
# least four words, ends like a sentence, and holds no code punctuation.
_PROSE_START = re.compile(r"(?:[-*•]\s+|\d+[.)]\s+)?[A-Z]")
_CODE_CHARS = re.compile(r"[={};<>$|\\`]")


def _is_prose(line: str) -> bool:
    stripped = line.rstrip()
    return (
        stripped.endswith((".", "!", "?"))
        and _PROSE_START.match(line) is not None
        and len(stripped.split()) >= 4
        and _CODE_CHARS.search(stripped) is None
    )


def _unclosed_end(text: str, after: int) -> int:
    """Where an unclosed fence stops hiding text.

    Markdown renders it to the end of the text, but an output cut short, or
    written to evade, would then hide everything after it. A code block
    rarely holds a line of prose, so the block ends before the first one.
    """
    pos = after + 1
    while pos < len(text):
        end = _line_end(text, pos)
        if _is_prose(text[pos:end]):
            return pos
        pos = end + 1
    return len(text)


def _find_all(text: str, needle: str) -> list[int]:
    """Offsets of `needle` in `text`, by str.find (a regex alternation is ten times slower here)."""
    out, at = [], text.find(needle)
    while at >= 0:
        out.append(at)
        at = text.find(needle, at + 3)
    return out


def _line_end(text: str, pos: int) -> int:
    end = text.find("\n", pos)
    return len(text) if end < 0 else end


_MULTI_WORD = re.compile(r"\S\s+\S")
