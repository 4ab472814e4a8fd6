"""Redaction of blocked output, wherever in a trace it travels, whatever the key.

An enforced block must keep the output from leaving in any form: not on the
LLM span only, but on the agent span that repeats it (`final_result`,
`pydantic_ai.all_messages`, ...), in events, and under keys claimwatch has
never heard of. So redaction walks every attribute value: a string that
contains a blocked text has it replaced by the notice; a JSON string is
parsed and its string leaves are redacted in place, so the value keeps its
type and shape (a structured `gen_ai.output.messages` stays structured,
`output.value` stays JSON when its mime type says so).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from ..otel.extract_adk import joined_pieces

_MISSING = object()
# A text part shorter than this that happens to occur inside a blocked output (a word, a
# name) is left alone; a longer one is a piece of the blocked output and is replaced.
_MIN_PART = 24
_MIN_WHOLE_PART = 8  # a whole sentence or line of a blocked output, shorter than _MIN_PART
_ENDS = ".!?:;"


def redacted_value(value: Any, blocked: Sequence[str], notice: str) -> Any:
    """`value` with every trace of the blocked texts replaced by `notice`; `_MISSING` if unchanged."""
    if isinstance(value, str):
        return _string(value, blocked, notice)
    if isinstance(value, list | tuple):
        joined = joined_pieces(value)  # a streamed turn written in pieces: redacted as the one message it is
        if joined is not value:
            return redacted_value(joined, blocked, notice)
        changed = False
        out = []
        for item in value:
            new = redacted_value(item, blocked, notice)
            changed |= new is not _MISSING
            out.append(item if new is _MISSING else new)
        return (type(value)(out) if isinstance(value, tuple) else out) if changed else _MISSING
    if isinstance(value, Mapping):
        changed = False
        out_map = {}
        for key, item in value.items():
            new = redacted_value(item, blocked, notice)
            changed |= new is not _MISSING
            out_map[key] = item if new is _MISSING else new
        return out_map if changed else _MISSING
    return _MISSING


def redacted_attributes(attrs: Mapping[str, Any], blocked: Sequence[str], notice: str) -> dict[str, Any]:
    """The attributes to overwrite so none of `attrs` carries a blocked text."""
    updates = {}
    for key, value in attrs.items():
        new = redacted_value(value, blocked, notice)
        if new is not _MISSING:
            updates[key] = new
    return updates


def _is_part(piece: str, text: str) -> bool:
    """`piece` is a part of the blocked `text`: a long enough stretch of it, or a whole part of
    the parts it was made of (message parts, output_text parts: whole sentences or lines)."""
    if not piece or piece not in text:
        return False
    if len(piece) >= _MIN_PART:
        return True
    if len(piece) < _MIN_WHOLE_PART:
        return False
    at = text.find(piece)
    while at != -1:
        before = text[at - 1] if at else ""
        after = text[at + len(piece)] if at + len(piece) < len(text) else ""
        left = not before or before.isspace() or before in _ENDS
        right = not after or after.isspace() or piece[-1] in _ENDS
        if left and right:
            return True
        at = text.find(piece, at + 1)
    return False


@lru_cache(maxsize=256)
def _forms(text: str) -> tuple[str, ...]:
    """The ways a blocked text is written inside other strings: as itself, and as the body of its Python
    repr (LangGraph's routing values, `Send(node='tools', arg={... AIMessage(content='...')})`, reach
    the chain spans as repr strings, where a newline or a quote of the text is escaped)."""
    if not text:
        return ()
    quoted = repr(text)[1:-1]
    return (text,) if quoted == text else (text, quoted)


_ELLIPSES = ("...", "…")


def _without_cut_copy(value: str, text: str, notice: str) -> str | None:
    """`value` with a cut copy of `text` at its end replaced; None when it ends on none. A copy is cut
    when a value is shortened: OpenInference writes a LlamaIndex step's result as its repr cut at 200
    characters and an ellipsis ("text='Docker is not runni..."), an SDK's attribute limit cuts anywhere.
    Only the text's own first characters count, at least `_MIN_PART` of them."""
    if len(text) <= _MIN_PART:
        return None
    body = value
    for mark in _ELLIPSES:
        if body.endswith(mark):
            body = body[: -len(mark)]
            break
    head = text[:_MIN_PART]
    at = body.find(head)
    while at != -1:
        if text.startswith(body[at:]):
            return value[:at] + notice
        at = body.find(head, at + 1)
    return None


def _string(value: str, blocked: Sequence[str], notice: str) -> Any:
    if not value:
        return _MISSING
    stripped = value.strip()
    if stripped[:1] in "[{" and len(stripped) > 1:
        try:
            parsed = json.loads(stripped)
        except ValueError:
            parsed = _MISSING
        if parsed is not _MISSING and isinstance(parsed, list | dict):
            new = redacted_value(parsed, blocked, notice)
            return _MISSING if new is _MISSING else json.dumps(new, ensure_ascii=False)
    out, changed = value, False
    for text in blocked:
        for form in _forms(text):
            if form in out:
                out, changed = out.replace(form, notice), True
            cut = _without_cut_copy(out, form, notice)
            if cut is not None:
                out, changed = cut, True
    if not changed and any(_is_part(stripped, text) for text in blocked):
        return notice  # one part of a multi-part output

    return out if changed else _MISSING
