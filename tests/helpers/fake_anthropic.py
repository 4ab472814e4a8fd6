"""A tiny Anthropic Messages API server on 127.0.0.1 for end-to-end tests with the real `anthropic` client.

It answers `POST /v1/messages`, whole or streamed as server-sent events
(`"stream": true`: message_start, content blocks with text and input_json
deltas, message_delta, message_stop), from a script of `Reply`s (the same
script as `fake_llm.FakeLLM`): each request takes the next reply, the last one
repeats. A reply's text is one `text` block (or one per part), its tool call a
`tool_use` block after it, so a reply with both is what Claude often sends: a
sentence, then the call. Requests are kept (path and decoded body).

    llm = FakeAnthropic([Reply.tool_call("check_docker"), Reply.text("Docker is not running.")])
    client = Anthropic(base_url=llm.base_url, api_key="x")
"""

from __future__ import annotations

import json
from typing import Any

from tests.helpers.fake_llm import FakeLLM, Reply

_USAGE = {"input_tokens": 7, "output_tokens": 11, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}


def blocks(reply: Reply, n: int) -> list[dict[str, Any]]:
    """The content blocks of `reply`: its text (one block per part), then its tool call."""
    out: list[dict[str, Any]] = []
    out.extend({"type": "text", "text": t} for t in (reply.parts or ((reply.content,) if reply.content else ())))
    if reply.tool is not None:
        out.append({"type": "tool_use", "id": f"toolu_{n:02d}", "name": reply.tool, "input": reply.arguments})
    return out


def message(reply: Reply, n: int, model: str) -> dict[str, Any]:
    """A `message` object carrying `reply`."""
    return {
        "id": f"msg_{n:02d}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": blocks(reply, n),
        "stop_reason": "tool_use" if reply.tool is not None else "end_turn",
        "stop_sequence": None,
        "usage": _USAGE,
    }


def _pieces(text: str, size: int = 12) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def message_events(reply: Reply, n: int, model: str) -> list[dict[str, Any]]:
    """The stream events for `reply`, as the Messages API sends them."""
    done = message(reply, n, model)
    start = {**done, "content": [], "stop_reason": None, "usage": {**_USAGE, "output_tokens": 1}}
    events: list[dict[str, Any]] = [{"type": "message_start", "message": start}, {"type": "ping"}]
    for index, block in enumerate(done["content"]):
        if block["type"] == "text":
            events.append(
                {"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}}
            )
            for piece in _pieces(block["text"]):
                events.append(
                    {"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": piece}}
                )
        else:
            events.append({"type": "content_block_start", "index": index, "content_block": {**block, "input": {}}})
            for piece in _pieces(json.dumps(block["input"])):
                delta = {"type": "input_json_delta", "partial_json": piece}
                events.append({"type": "content_block_delta", "index": index, "delta": delta})
        events.append({"type": "content_block_stop", "index": index})
    events.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": done["stop_reason"], "stop_sequence": None},
            "usage": {"output_tokens": _USAGE["output_tokens"]},
        }
    )
    events.append({"type": "message_stop"})
    return events


class FakeAnthropic(FakeLLM):
    """The server; `base_url` is its root (the client adds /v1/messages). A context manager, or call `close()`.
    The HTTP side is `FakeLLM`'s (JSON answers, server-sent events for a stream); only the answers differ."""

    def __init__(self, replies: list[Reply] | None = None) -> None:
        super().__init__(replies)
        self.base_url = self.base_url.removesuffix("/v1")

    def answer(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any] | list[dict[str, Any]]]:
        """(status, JSON payload, or the events of a stream) for one request; uses up the next reply."""
        path = path.split("?", 1)[0].rstrip("/")
        if path != "/v1/messages":
            return 404, {"type": "error", "error": {"type": "not_found_error", "message": f"not served here: {path}"}}
        with self._lock:
            n = len(self.requests)
            self.requests.append((path, body))
            reply = self.replies[min(n, len(self.replies) - 1)]
        model = str(body.get("model") or "claude-test")
        if body.get("stream"):
            return 200, message_events(reply, n + 1, model)
        return 200, message(reply, n + 1, model)
