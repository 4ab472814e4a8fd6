"""A real OpenAI-instrumented call against a local fake of /v1/chat/completions.

Run as a script (the instrumentation reads its env at import and patches
openai globally): prints the exported span attributes as JSON.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

os.environ["OTEL_SEMCONV_STABILITY_OPT_IN"] = "gen_ai_latest_experimental"
os.environ["OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"] = "SPAN_ONLY"

ANSWER = "I checked the host. Docker is not running, and the user is Iulia."


class FakeOpenAI(BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        body = json.dumps(
            {
                "id": "chatcmpl-1",
                "object": "chat.completion",
                "created": 1,
                "model": "gpt-test",
                "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": ANSWER}}],
                "usage": {"prompt_tokens": 5, "completion_tokens": 12, "total_tokens": 17},
            }
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def main(db_path: str, config_path: str) -> None:
    from openai import OpenAI
    from opentelemetry import trace
    from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from claimwatch import ClaimwatchSpanProcessor, load_config

    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeOpenAI)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    config = load_config(config_path).model_copy(
        update={"storage": load_config({"storage": {"path": db_path}}).storage}
    )
    provider.add_span_processor(ClaimwatchSpanProcessor(SimpleSpanProcessor(exporter), config=config))
    trace.set_tracer_provider(provider)
    OpenAIInstrumentor().instrument(tracer_provider=provider)
    tracer = provider.get_tracer("agent")
    client = OpenAI(base_url=f"http://127.0.0.1:{server.server_address[1]}/v1", api_key="x", max_retries=0)
    with tracer.start_as_current_span(
        "invoke_agent ops-helper", attributes={"gen_ai.agent.name": "ops-helper", "gen_ai.conversation.id": "s-9"}
    ):
        client.chat.completions.create(model="gpt-test", messages=[{"role": "user", "content": "status?"}])
    provider.shutdown()
    server.shutdown()
    print(
        json.dumps(
            [
                {"name": s.name, "attributes": dict(s.attributes), "events": [e.name for e in s.events]}
                for s in exporter.get_finished_spans()
            ],
            default=list,
        )
    )


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
