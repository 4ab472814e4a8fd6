"""The official `anthropic` client in a tool loop, under one of two instrumentations, exporting over OTLP/HTTP.

    python -m tests.helpers.anthropic_clients CLIENT SCENARIO --llm URL --otlp URL [options]

CLIENT is `openinference` (Arize's openinference-instrumentation-anthropic,
under an AGENT span naming the agent, as its docs show) or `openllmetry`
(Traceloop's opentelemetry-instrumentation-anthropic; each call is a root span
and the agent is known by service.name). SCENARIO is `docker` (the
`check_docker` tool of `real_clients`) or `desk` (its `get_reservation` and
`bash` tools). The loop is the one Anthropic's docs teach: send, and while the
model stops for `tool_use`, append its content blocks as they came (SDK
objects) and a user message of `tool_result` blocks, then send again.

Options: --stream (`client.messages.stream(...)`, `get_final_message()`);
--raw-stream (`create(stream=True)`, the events put together by the agent);
--result-blocks (tool results as lists of text blocks); --runner (the SDK's
own tool runner, `client.beta.messages.tool_runner`, which runs the tools in
spans of its own and, on message threads, sends only the new turn);
--global (the provider is also the global one, so the SDK's own tracing, on by
default and metadata only, adds its spans); --sdk-content (that tracing
records the messages too); --outer (openllmetry's calls inside an agent span,
as traceloop-sdk's `@agent` makes); --events (openllmetry in events mode: the
messages as log records; with SDK objects in the history the log exporter
fails to encode the batch, so nothing arrives, and its records carry no trace
context: --plain-history sends the history back as dicts); --claimwatch JSON
(ClaimwatchSpanProcessor in front of the exporter). Runs in a fresh
interpreter (instrumentations patch the `anthropic` package); prints one JSON
line: the answer and how many spans were exported.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable

from tests.helpers.real_clients import AGENT, DESK_PROMPT, DESK_TOOLS, PROMPT, check_docker

MODEL = "claude-test"
_PARAMS = {"check_docker": None, "get_reservation": "code", "bash": "command"}
SCENARIOS: dict[str, tuple[str, tuple[Callable[..., str], ...]]] = {
    "docker": (PROMPT, (check_docker,)),
    "desk": (DESK_PROMPT, DESK_TOOLS),
}
STREAM = False
RAW_STREAM = False  # --raw-stream: create(stream=True), the events read and put together by the agent
RESULT_BLOCKS = False  # --result-blocks: tool results sent as lists of text blocks
RUNNER = False  # --runner: the SDK's tool runner drives the loop
OUTER = False  # --outer: openllmetry's calls run inside an agent span (traceloop-sdk's @agent)
PLAIN_HISTORY = False  # --plain-history: the assistant's turn goes back as plain dicts, not SDK objects
AGENT_NAME = AGENT  # --agent: the agent the AGENT span (openinference) and, by default, service.name name


def _schema(name: str) -> dict:
    param = _PARAMS[name]
    properties = {param: {"type": "string"}} if param else {}
    return {
        "name": name,
        "description": f"The {name} tool.",
        "input_schema": {"type": "object", "properties": properties, "required": [param] if param else []},
    }


def _ask(client, **request):
    if RAW_STREAM:
        return _assembled(client.messages.create(stream=True, **request))
    if not STREAM:
        return client.messages.create(**request)
    with client.messages.stream(**request) as stream:
        return stream.get_final_message()


def _assembled(events):
    """The message a raw event stream (`create(stream=True)`) carries, put together as its reader must."""
    from anthropic.types import Message

    message, blocks, partial = None, [], {}
    for event in events:
        if event.type == "message_start":
            message = event.message.model_dump()
        elif event.type == "content_block_start":
            blocks.append(event.content_block.model_dump(exclude_none=True))
        elif event.type == "content_block_delta" and event.delta.type == "text_delta":
            blocks[event.index]["text"] += event.delta.text
        elif event.type == "content_block_delta" and event.delta.type == "input_json_delta":
            partial[event.index] = partial.get(event.index, "") + event.delta.partial_json
        elif event.type == "message_delta":
            message["stop_reason"] = event.delta.stop_reason
    for index, text in partial.items():
        blocks[index]["input"] = json.loads(text or "{}")
    return Message.model_validate({**message, "content": blocks})


def _result(text: str):
    """A tool result's content: a string, or (--result-blocks) a list of text blocks, as MCP tools return it."""
    return [{"type": "text", "text": text}] if RESULT_BLOCKS else text


def tool_runner(llm_url: str, scenario: str) -> str:
    """The SDK's own tool loop (`client.beta.messages.tool_runner` with `@beta_tool` functions): it runs the
    tools itself, each in an `execute_tool` span of the SDK's tracing."""
    from anthropic import Anthropic, beta_tool

    prompt, tools = SCENARIOS[scenario]
    client = Anthropic(base_url=llm_url, api_key="test-key", max_retries=0)
    runner = client.beta.messages.tool_runner(
        model=MODEL,
        max_tokens=1024,
        system="You answer questions about reservations and the build host.",
        messages=[{"role": "user", "content": prompt}],
        tools=[beta_tool(t) for t in tools],
    )
    final = runner.until_done()
    return "".join(b.text for b in final.content if b.type == "text")


def tool_loop(llm_url: str, scenario: str) -> str:
    """Ask, run each tool the model calls, send the results back, until the model answers in text."""
    if RUNNER:
        return tool_runner(llm_url, scenario)
    from anthropic import Anthropic

    prompt, tools = SCENARIOS[scenario]
    by_name = {t.__name__: t for t in tools}
    client = Anthropic(base_url=llm_url, api_key="test-key", max_retries=0)
    messages: list[dict] = [{"role": "user", "content": prompt}]
    for _ in range(6):
        reply = _ask(
            client,
            model=MODEL,
            max_tokens=1024,
            system="You answer questions about reservations and the build host.",
            messages=messages,
            tools=[_schema(name) for name in by_name],
        )
        if reply.stop_reason != "tool_use":
            return "".join(b.text for b in reply.content if b.type == "text")
        content = [b.model_dump(exclude_none=True) for b in reply.content] if PLAIN_HISTORY else reply.content
        messages.append({"role": "assistant", "content": content})
        results = [
            {"type": "tool_result", "tool_use_id": b.id, "content": _result(by_name[b.name](**dict(b.input or {})))}
            for b in reply.content
            if b.type == "tool_use"
        ]
        messages.append({"role": "user", "content": results})
    raise RuntimeError("the model kept calling tools")


def run_openinference(llm_url: str, scenario: str, provider) -> str:
    from openinference.instrumentation.anthropic import AnthropicInstrumentor

    AnthropicInstrumentor().instrument(tracer_provider=provider)
    tracer = provider.get_tracer("ops-agent")
    with tracer.start_as_current_span(
        AGENT_NAME, attributes={"openinference.span.kind": "AGENT", "agent.name": AGENT_NAME, "session.id": "s-1"}
    ):
        return tool_loop(llm_url, scenario)


def run_openllmetry(llm_url: str, scenario: str, provider, logger_provider=None) -> str:
    """With a logger provider, in events mode: the messages go out as GenAI event log records."""
    os.environ.setdefault("TRACELOOP_TRACE_CONTENT", "true")
    from opentelemetry.instrumentation.anthropic import AnthropicInstrumentor

    if logger_provider is None:
        AnthropicInstrumentor().instrument(tracer_provider=provider)
    else:
        AnthropicInstrumentor(use_attributes=False).instrument(
            tracer_provider=provider, logger_provider=logger_provider
        )
    if not OUTER:
        return tool_loop(llm_url, scenario)
    # What traceloop-sdk's `@agent(name=...)` decorator writes on the span around the agent's work.
    outer = {"traceloop.span.kind": "agent", "traceloop.entity.name": AGENT_NAME}
    with provider.get_tracer("ops-agent").start_as_current_span(f"{AGENT_NAME}.agent", attributes=outer):
        return tool_loop(llm_url, scenario)


CLIENTS: dict[str, Callable[[str, str, object], str]] = {
    "openinference": run_openinference,
    "openllmetry": run_openllmetry,
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("client", choices=sorted(CLIENTS))
    parser.add_argument("scenario", choices=sorted(SCENARIOS))
    parser.add_argument("--llm", required=True, help="the fake Anthropic server's root URL")
    parser.add_argument("--otlp", required=True, help="OTLP/HTTP traces endpoint of the collector")
    parser.add_argument("--agent", default=AGENT, help="the agent's name")
    parser.add_argument("--service", help="service.name of the agent process (default: the agent's name)")
    parser.add_argument("--run-id", help="a resource attribute (test.run.id) telling this run's spans apart")
    parser.add_argument("--claimwatch", help="JSON config: run ClaimwatchSpanProcessor in front of the exporter")
    parser.add_argument("--stream", action="store_true", help="stream each answer (client.messages.stream)")
    parser.add_argument("--plain-history", action="store_true", help="send the assistant's turns back as dicts")
    parser.add_argument("--raw-stream", action="store_true", help="create(stream=True) and read the events")
    parser.add_argument("--result-blocks", action="store_true", help="tool results as lists of text blocks")
    parser.add_argument("--runner", action="store_true", help="the SDK's tool runner drives the loop")
    parser.add_argument("--outer", action="store_true", help="openllmetry: run inside an @agent-style span")
    parser.add_argument("--events", action="store_true", help="openllmetry in events mode (log records)")
    parser.add_argument("--global", dest="global_", action="store_true", help="register the provider globally")
    parser.add_argument(
        "--sdk-content", action="store_true", help="with --global: the SDK's own spans record the messages too"
    )
    args = parser.parse_args(argv)
    global STREAM, AGENT_NAME, PLAIN_HISTORY, OUTER, RAW_STREAM, RESULT_BLOCKS
    STREAM, AGENT_NAME, PLAIN_HISTORY, OUTER = args.stream, args.agent, args.plain_history, args.outer
    RAW_STREAM, RESULT_BLOCKS = args.raw_stream, args.result_blocks
    global RUNNER
    RUNNER = args.runner

    from opentelemetry import trace
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import SpanProcessor, TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    class Counter(SpanProcessor):
        ended = 0

        def on_end(self, span) -> None:
            Counter.ended += 1

    resource = {"service.name": args.service or args.agent}
    if args.run_id:
        resource["test.run.id"] = args.run_id
    provider = TracerProvider(resource=Resource.create(resource))
    export: SpanProcessor = BatchSpanProcessor(OTLPSpanExporter(endpoint=args.otlp))
    if args.claimwatch:
        from claimwatch import ClaimwatchSpanProcessor

        export = ClaimwatchSpanProcessor(export, config=json.loads(args.claimwatch))
    provider.add_span_processor(export)
    provider.add_span_processor(Counter())
    if args.global_:
        trace.set_tracer_provider(provider)
    if args.sdk_content:  # read when a client is made
        os.environ["ANTHROPIC_OPEN_TELEMETRY_TRACES_CONTENT_MODE"] = "content"
    logs = None
    if args.events:
        from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
        from opentelemetry.sdk._logs import LoggerProvider
        from opentelemetry.sdk._logs.export import BatchLogRecordProcessor

        logs = LoggerProvider(resource=provider.resource)
        logs_endpoint = args.otlp.removesuffix("/v1/traces") + "/v1/logs"
        logs.add_log_record_processor(BatchLogRecordProcessor(OTLPLogExporter(endpoint=logs_endpoint)))
        answer = run_openllmetry(args.llm, args.scenario, provider, logs)
    else:
        answer = CLIENTS[args.client](args.llm, args.scenario, provider)
    provider.force_flush()
    stats = export.stats() if args.claimwatch else {}
    if logs is not None:
        logs.shutdown()
    provider.shutdown()
    print(json.dumps({"answer": answer, "spans": Counter.ended, "claimwatch": stats}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
