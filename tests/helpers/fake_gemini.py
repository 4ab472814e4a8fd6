"""A tiny Gemini REST server on 127.0.0.1 for end-to-end tests with Google's own clients (google-genai, ADK).

It answers `POST /{version}/models/{model}:generateContent` and
`:streamGenerateContent?alt=sse` (the text in pieces) from the same script of replies as the fake
OpenAI-compatible server (`tests/helpers/fake_llm.py`): each request takes the
next reply, the last one repeats once the script is used up. A text reply is a
`text` part; a tool reply is a `functionCall` part the client is expected to
run and answer with a `functionResponse` before asking again. Requests are kept
(path and decoded body) so a test can check what the client sent.

    llm = FakeGemini([Reply.tool_call("check_docker"), Reply.text("Docker is not running.")])
    model = Gemini(model="gemini-2.5-flash", base_url=llm.base_url)  # with GOOGLE_API_KEY set
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.helpers.fake_llm import Reply

_USAGE = {"promptTokenCount": 7, "candidatesTokenCount": 11, "totalTokenCount": 18}


def generate_content_response(reply: Reply, n: int, model: str) -> dict[str, Any]:
    """A `GenerateContentResponse` carrying `reply` as the one candidate's content."""
    if reply.tool is not None:
        parts: list[dict[str, Any]] = [{"functionCall": {"name": reply.tool, "args": reply.arguments}}]
        if reply.content:  # a model may say something before it calls the tool
            parts.insert(0, {"text": reply.content})
    else:
        parts = [{"text": t} for t in reply.parts or (reply.content,)]
    return {
        "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": _USAGE,
        "modelVersion": model,
        "responseId": f"resp-{n}",
    }


def stream_chunks(response: dict[str, Any], size: int = 12) -> list[dict[str, Any]]:
    """A streamed response as Gemini sends it: the text in pieces, one response each; the finish reason and
    usage on the last. A function call comes whole."""
    candidate = response["candidates"][0]
    parts = candidate["content"]["parts"]
    if any("functionCall" in p for p in parts):
        return [response]
    text = "".join(p["text"] for p in parts)
    pieces = [text[i : i + size] for i in range(0, len(text), size)] or [""]
    chunks = [{"candidates": [{"content": {"role": "model", "parts": [{"text": piece}]}, "index": 0}],
               "modelVersion": response["modelVersion"], "responseId": response["responseId"]} for piece in pieces]  # fmt: skip
    chunks[-1]["candidates"][0]["finishReason"] = candidate["finishReason"]
    chunks[-1]["usageMetadata"] = response["usageMetadata"]
    return chunks


class FakeGemini:
    """The server; `base_url` is the host root (the client adds the API version). A context manager."""

    def __init__(self, replies: list[Reply] | None = None) -> None:
        self.replies = list(replies or [Reply.text("OK.")])
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self._lock = threading.Lock()
        gemini = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {}
                status, payload, stream = gemini.answer(self.path, body)
                data = json.dumps(payload).encode()
                self.send_response(status)
                if stream and status == 200:  # server-sent events, then the connection closes
                    self.send_header("Content-Type", "text/event-stream")
                    self.send_header("Connection", "close")
                    self.end_headers()
                    for chunk in stream_chunks(payload):
                        self.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\r\n\r\n")
                        self.wfile.flush()
                    self.close_connection = True
                    return
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self.server.serve_forever, name="fake-gemini", daemon=True)
        self._thread.start()
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def answer(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any], bool]:
        """(status, JSON payload, streamed?) for one request; uses up the next reply."""
        path = path.split("?", 1)[0]
        model, _, method = path.rpartition("/models/")[2].partition(":")
        if method not in ("generateContent", "streamGenerateContent"):
            return 404, {"error": {"code": 404, "message": f"not served here: {path}", "status": "NOT_FOUND"}}, False
        with self._lock:
            n = len(self.requests)
            self.requests.append((path, body))
            reply = self.replies[min(n, len(self.replies) - 1)]
        return 200, generate_content_response(reply, n + 1, model or "gemini-test"), method == "streamGenerateContent"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self) -> FakeGemini:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
