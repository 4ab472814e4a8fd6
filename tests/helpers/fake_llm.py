"""A tiny OpenAI-compatible server on 127.0.0.1 for end-to-end tests with real agent clients.

It answers `POST /v1/chat/completions` and `POST /v1/responses`, whole or
streamed as server-sent events (`"stream": true`), from a script of replies: each request takes the next reply, and the last
one repeats once the script is used up. A reply is plain text, or a tool call
the client is expected to run before asking again. Requests are kept (path
and decoded body) so a test can check what the client sent.

    llm = FakeLLM([Reply.tool("check_docker"), Reply.text("Docker is not running.")])
    client = OpenAI(base_url=llm.base_url, api_key="x")
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True, slots=True)
class Reply:
    """One canned answer: text, or a call of the tool `tool` with JSON `arguments`.

    A Responses API answer may come in several text parts (`parts`); chat completions join them."""

    content: str = ""
    tool: str | None = None
    arguments: dict[str, Any] = field(default_factory=dict)
    parts: tuple[str, ...] = ()

    @classmethod
    def text(cls, content: str, *more: str) -> Reply:
        return cls(content="".join((content, *more)), parts=(content, *more) if more else ())

    @classmethod
    def tool_call(cls, name: str, **arguments: Any) -> Reply:
        return cls(tool=name, arguments=arguments)


_USAGE_CHAT = {"prompt_tokens": 7, "completion_tokens": 11, "total_tokens": 18}
_USAGE_RESPONSES = {
    "input_tokens": 7,
    "input_tokens_details": {"cached_tokens": 0},
    "output_tokens": 11,
    "output_tokens_details": {"reasoning_tokens": 0},
    "total_tokens": 18,
}


def chat_completion(reply: Reply, n: int, model: str) -> dict[str, Any]:
    """A `chat.completion` object carrying `reply`."""
    message: dict[str, Any] = {"role": "assistant", "content": reply.content or None}
    finish = "stop"
    if reply.tool is not None:
        message["tool_calls"] = [
            {
                "id": f"call_{n}",
                "type": "function",
                "function": {"name": reply.tool, "arguments": json.dumps(reply.arguments)},
            }
        ]
        finish = "tool_calls"
    return {
        "id": f"chatcmpl-{n}",
        "object": "chat.completion",
        "created": 1_700_000_000 + n,
        "model": model,
        "choices": [{"index": 0, "finish_reason": finish, "message": message, "logprobs": None}],
        "usage": _USAGE_CHAT,
    }


def response(reply: Reply, n: int, model: str) -> dict[str, Any]:
    """A Responses API `response` object carrying `reply`."""
    if reply.tool is not None:
        item: dict[str, Any] = {
            "type": "function_call",
            "id": f"fc_{n}",
            "call_id": f"call_{n}",
            "name": reply.tool,
            "arguments": json.dumps(reply.arguments),
            "status": "completed",
        }
    else:
        item = {
            "type": "message",
            "id": f"msg_{n}",
            "status": "completed",
            "role": "assistant",
            "content": [{"type": "output_text", "text": t, "annotations": []} for t in reply.parts or (reply.content,)],
        }
    return {
        "id": f"resp_{n}",
        "object": "response",
        "created_at": 1_700_000_000 + n,
        "status": "completed",
        "model": model,
        "output": [item],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": _USAGE_RESPONSES,
    }


def _pieces(text: str, size: int = 12) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def chat_chunks(reply: Reply, n: int, model: str, usage: bool) -> list[dict[str, Any]]:
    """The `chat.completion.chunk` objects streaming `reply`: role, content in pieces, finish, usage."""
    head = {"id": f"chatcmpl-{n}", "object": "chat.completion.chunk", "created": 1_700_000_000 + n, "model": model}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {**head, "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}]}

    chunks = [chunk({"role": "assistant", "content": ""})]
    if reply.tool is not None:
        call = {"index": 0, "id": f"call_{n}", "type": "function", "function": {"name": reply.tool, "arguments": ""}}
        chunks.append(chunk({"tool_calls": [call]}))
        for piece in _pieces(json.dumps(reply.arguments)):
            chunks.append(chunk({"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}))
        chunks.append(chunk({}, "tool_calls"))
    else:
        chunks.extend(chunk({"content": piece}) for piece in _pieces(reply.content))
        chunks.append(chunk({}, "stop"))
    if usage:
        chunks.append({**head, "choices": [], "usage": _USAGE_CHAT})
    return chunks


def response_events(reply: Reply, n: int, model: str) -> list[dict[str, Any]]:
    """The Responses API stream events for `reply`: created, the item (text in deltas), completed."""
    done = response(reply, n, model)
    item = done["output"][0]
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": {**done, "status": "in_progress", "output": [], "usage": None}},
    ]
    if item["type"] == "message":
        events.append(
            {
                "type": "response.output_item.added",
                "output_index": 0,
                "item": {**item, "status": "in_progress", "content": []},
            }
        )
        for k, part in enumerate(item["content"]):
            at = {"item_id": item["id"], "output_index": 0, "content_index": k}
            events.append({"type": "response.content_part.added", **at, "part": {**part, "text": ""}})
            for piece in _pieces(part["text"]):
                events.append({"type": "response.output_text.delta", **at, "delta": piece, "logprobs": []})
            events.append({"type": "response.output_text.done", **at, "text": part["text"], "logprobs": []})
            events.append({"type": "response.content_part.done", **at, "part": part})
    else:
        events.append(
            {
                "type": "response.output_item.added",
                "output_index": 0,
                "item": {**item, "status": "in_progress", "arguments": ""},
            }
        )
        events.append(
            {
                "type": "response.function_call_arguments.done",
                "item_id": item["id"],
                "output_index": 0,
                "arguments": item["arguments"],
                "name": item["name"],
            }
        )
    events.append({"type": "response.output_item.done", "output_index": 0, "item": item})
    events.append({"type": "response.completed", "response": done})
    return [{**e, "sequence_number": i} for i, e in enumerate(events)]


class FakeLLM:
    """The server; `base_url` ends in /v1. Use as a context manager or call `close()`."""

    def __init__(self, replies: list[Reply] | None = None) -> None:
        self.replies = list(replies or [Reply.text("OK.")])
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self._lock = threading.Lock()
        llm = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {}
                status, payload = llm.answer(self.path, body)
                if isinstance(payload, list):  # a stream: server-sent events, then the connection closes
                    self.send_response(status)
                    self.send_header("Content-Type", "text/event-stream")
                    self.send_header("Connection", "close")
                    self.end_headers()
                    for event in payload:
                        name = f"event: {event['type']}\n" if "type" in event else ""
                        self.wfile.write(f"{name}data: {json.dumps(event)}\n\n".encode())
                        self.wfile.flush()
                    if self.path.rstrip("/").endswith("/chat/completions"):
                        self.wfile.write(b"data: [DONE]\n\n")
                    self.close_connection = True
                    return
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self.server.serve_forever, name="fake-llm", daemon=True)
        self._thread.start()
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def answer(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any] | list[dict[str, Any]]]:
        """(status, JSON payload, or the list of events of a stream) for one request; uses up the next reply."""
        path = path.split("?", 1)[0].rstrip("/")
        if not path.endswith(("/chat/completions", "/responses")):
            return 404, {"error": {"message": f"not served here: {path}", "type": "invalid_request_error"}}
        with self._lock:
            n = len(self.requests)
            self.requests.append((path, body))
            reply = self.replies[min(n, len(self.replies) - 1)]
        model = str(body.get("model") or "gpt-test")
        chat = path.endswith("/chat/completions")
        if body.get("stream"):
            usage = bool((body.get("stream_options") or {}).get("include_usage"))
            return 200, chat_chunks(reply, n + 1, model, usage) if chat else response_events(reply, n + 1, model)
        return 200, (chat_completion if chat else response)(reply, n + 1, model)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self) -> FakeLLM:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
