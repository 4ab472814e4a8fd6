"""Real agent clients, each in a process of its own, talking to the fake LLM and exporting over OTLP/HTTP.

    python -m tests.helpers.real_clients CLIENT --llm URL --otlp URL [--claimwatch CONFIG_JSON]

CLIENT is one of `CLIENTS`. Instrumentations patch the `openai` package and
register global trace processors, so each client runs in a fresh interpreter,
as it would in a user's agent process, and nothing leaks between tests.
With --claimwatch the exporter is wrapped in `ClaimwatchSpanProcessor` with
that config (the in-process adapter in front of a collector). Prints one JSON
line: the agent's final answer and how many spans were exported.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from collections.abc import Callable

AGENT = "ops-helper"
PROMPT = "Is docker running on the build host?"
TOOL_RESULT = "docker.service: active (running) since 09:12"
TOOL_DELAY_S = 0.0
REVIEW_DELAY_S = 0.0
STREAM = False
INSTRUMENTATION_VERSION: int | None = None  # pydantic-ai's attribute format (--instrumentation-version)
UNTRACED_TOOLS = False  # openinference-openai-desk: the tools run without `@tracer.tool` spans


def check_docker() -> str:
    """The one tool every agent has: reports the state of the docker service (slowly, with --tool-delay)."""
    time.sleep(TOOL_DELAY_S)
    return TOOL_RESULT


def run_pydantic_ai(llm_url: str, provider) -> str:
    """pydantic-ai's own OpenTelemetry instrumentation (GenAI spans, agent run span with final_result)."""
    from pydantic_ai import Agent
    from pydantic_ai.capabilities.instrumentation import Instrumentation
    from pydantic_ai.models.instrumented import InstrumentationSettings
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    model = OpenAIChatModel("gpt-test", provider=OpenAIProvider(base_url=llm_url, api_key="test-key"))
    instrumentation = Instrumentation(InstrumentationSettings(tracer_provider=provider))
    agent = Agent(model, name=AGENT, tools=[check_docker], capabilities=[instrumentation])
    if not STREAM:
        return agent.run_sync(PROMPT).output

    async def streamed() -> str:
        async with agent.run_stream(PROMPT) as result:
            return await result.get_output()

    return asyncio.run(streamed())


def run_pydantic_ai_structured(llm_url: str, provider) -> str:
    """pydantic-ai with a structured answer: the model answers by calling the `final_result` output tool."""
    from pydantic import BaseModel
    from pydantic_ai import Agent
    from pydantic_ai.capabilities.instrumentation import Instrumentation
    from pydantic_ai.models.instrumented import InstrumentationSettings
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    class Status(BaseModel):
        summary: str
        healthy: bool

    model = OpenAIChatModel("gpt-test", provider=OpenAIProvider(base_url=llm_url, api_key="test-key"))
    instrumentation = Instrumentation(InstrumentationSettings(tracer_provider=provider))
    agent = Agent(model, name=AGENT, tools=[check_docker], output_type=Status, capabilities=[instrumentation])
    return agent.run_sync(PROMPT).output.model_dump_json()


def run_openai_agents(llm_url: str, provider) -> str:
    """The OpenAI Agents SDK on the Responses API, traced by OpenInference (its processor replaces OpenAI's
    own trace exporter, so nothing is sent anywhere but the collector)."""
    from agents import Agent, GuardrailFunctionOutput, OpenAIResponsesModel, Runner, function_tool, output_guardrail
    from openai import AsyncOpenAI
    from openinference.instrumentation.openai_agents import OpenAIAgentsInstrumentor

    @output_guardrail
    def review(context, agent, output) -> GuardrailFunctionOutput:
        """An output guardrail: it runs after the answer, while the agent's span is still open."""
        time.sleep(REVIEW_DELAY_S)
        return GuardrailFunctionOutput(output_info=None, tripwire_triggered=False)

    OpenAIAgentsInstrumentor().instrument(tracer_provider=provider, exclusive_processor=True)
    client = AsyncOpenAI(base_url=llm_url, api_key="test-key", max_retries=0)
    agent = Agent(
        name=AGENT,
        instructions="Answer questions about the build host.",
        model=OpenAIResponsesModel(model="gpt-test", openai_client=client),
        tools=[function_tool(check_docker)],
        output_guardrails=[review],
    )
    return str(Runner.run_sync(agent, PROMPT).final_output)


def _chat_loop(llm_url: str) -> str:
    """A hand-written tool loop on chat completions: ask, run the tool the model calls, ask again."""
    from openai import OpenAI

    client = OpenAI(base_url=llm_url, api_key="test-key", max_retries=0)
    tools = [
        {"type": "function", "function": {"name": "check_docker", "parameters": {"type": "object", "properties": {}}}}
    ]
    messages: list[dict] = [{"role": "user", "content": PROMPT}]
    for _ in range(4):
        message = client.chat.completions.create(model="gpt-test", messages=messages, tools=tools).choices[0].message
        if not message.tool_calls:
            return message.content or ""
        messages.append(message.model_dump(exclude_none=True))
        for call in message.tool_calls:
            messages.append({"role": "tool", "tool_call_id": call.id, "content": check_docker()})
    raise RuntimeError("the model kept calling tools")


def run_openinference_openai(llm_url: str, provider) -> str:
    """OpenInference's instrumentation of the OpenAI client, under an AGENT span naming the agent."""
    from openinference.instrumentation.openai import OpenAIInstrumentor

    OpenAIInstrumentor().instrument(tracer_provider=provider)
    tracer = provider.get_tracer("ops-agent")
    with tracer.start_as_current_span(
        AGENT, attributes={"openinference.span.kind": "AGENT", "agent.name": AGENT, "session.id": "s-1"}
    ):
        return _chat_loop(llm_url)


def run_openllmetry(llm_url: str, provider, logger_provider=None) -> str:
    """Traceloop's OpenLLMetry instrumentation of the OpenAI client; the agent is known by service.name.

    With a logger provider, it runs in events mode: messages go out as GenAI event log records."""
    os.environ.setdefault("TRACELOOP_TRACE_CONTENT", "true")
    from opentelemetry.instrumentation.openai import OpenAIInstrumentor

    if logger_provider is None:
        OpenAIInstrumentor().instrument(tracer_provider=provider)
    else:
        OpenAIInstrumentor(use_attributes=False).instrument(tracer_provider=provider, logger_provider=logger_provider)
    return _chat_loop(llm_url)


# --- A help-desk agent whose tools take arguments (tests/test_real_clients_checks.py) ----------------

RESERVATION_CODE = "K7QX2"
RESERVATION = f"Reservation {RESERVATION_CODE}: 1 checked bag, total price $120, flight LH 404 on 2026-12-01."
INSTALLED = "Successfully installed requests-2.32.3"
DESK_PROMPT = f"What does reservation {RESERVATION_CODE} include? Also make sure requests is installed."


def get_reservation(code: str) -> str:
    """Looks up a reservation by its code."""
    return RESERVATION if code == RESERVATION_CODE else f"No reservation {code}."


def bash(command: str) -> str:
    """Runs a shell command on the build host (canned answers: nothing is run)."""
    return INSTALLED if command.startswith("pip install") else ""


DESK_TOOLS: tuple[Callable[[str], str], ...] = (get_reservation, bash)
_DESK_PARAMS = {"get_reservation": "code", "bash": "command"}


def run_pydantic_ai_desk(llm_url: str, provider) -> str:
    """pydantic-ai with the desk tools: `execute_tool` spans with arguments and results."""
    from pydantic_ai import Agent
    from pydantic_ai.capabilities.instrumentation import Instrumentation
    from pydantic_ai.models.instrumented import InstrumentationSettings
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    model = OpenAIChatModel("gpt-test", provider=OpenAIProvider(base_url=llm_url, api_key="test-key"))
    version = {} if INSTRUMENTATION_VERSION is None else {"version": INSTRUMENTATION_VERSION}
    instrumentation = Instrumentation(InstrumentationSettings(tracer_provider=provider, **version))
    agent = Agent(model, name=AGENT, tools=list(DESK_TOOLS), capabilities=[instrumentation])
    return agent.run_sync(DESK_PROMPT).output


def run_openai_agents_desk(llm_url: str, provider) -> str:
    """The OpenAI Agents SDK with the desk tools, traced by OpenInference (TOOL spans from its function spans)."""
    from agents import Agent, OpenAIResponsesModel, Runner, function_tool
    from openai import AsyncOpenAI
    from openinference.instrumentation.openai_agents import OpenAIAgentsInstrumentor

    OpenAIAgentsInstrumentor().instrument(tracer_provider=provider, exclusive_processor=True)
    client = AsyncOpenAI(base_url=llm_url, api_key="test-key", max_retries=0)
    agent = Agent(
        name=AGENT,
        instructions="Answer questions about reservations and the build host.",
        model=OpenAIResponsesModel(model="gpt-test", openai_client=client),
        tools=[function_tool(t) for t in DESK_TOOLS],
    )
    return str(Runner.run_sync(agent, DESK_PROMPT).final_output)


def _desk_chat_loop(llm_url: str, tools: dict[str, Callable[..., str]]) -> str:
    """`_chat_loop` with the desk tools: each call's JSON arguments are passed to the tool by name."""
    from openai import OpenAI

    client = OpenAI(base_url=llm_url, api_key="test-key", max_retries=0)
    schemas = [
        {
            "type": "function",
            "function": {
                "name": name,
                "parameters": {"type": "object", "properties": {param: {"type": "string"}}, "required": [param]},
            },
        }
        for name, param in _DESK_PARAMS.items()
    ]
    messages: list[dict] = [{"role": "user", "content": DESK_PROMPT}]
    for _ in range(6):
        message = client.chat.completions.create(model="gpt-test", messages=messages, tools=schemas).choices[0].message
        if not message.tool_calls:
            return message.content or ""
        messages.append(message.model_dump(exclude_none=True))
        for call in message.tool_calls:
            result = tools[call.function.name](**json.loads(call.function.arguments or "{}"))
            messages.append({"role": "tool", "tool_call_id": call.id, "content": result})
    raise RuntimeError("the model kept calling tools")


def run_openinference_openai_desk(llm_url: str, provider) -> str:
    """OpenInference's OpenAI instrumentation, the tools traced with OpenInference's own `@tracer.tool`
    (TOOL spans: `tool.name`, `input.value`, `output.value`), under an AGENT span. With --untraced-tools
    the tools run untraced: the calls and results are only in the LLM spans' messages."""
    from openinference.instrumentation import OITracer, TraceConfig
    from openinference.instrumentation.openai import OpenAIInstrumentor

    OpenAIInstrumentor().instrument(tracer_provider=provider)
    tracer = OITracer(provider.get_tracer("ops-agent"), config=TraceConfig())
    tools = {t.__name__: t if UNTRACED_TOOLS else tracer.tool(t) for t in DESK_TOOLS}
    with tracer.start_as_current_span(
        AGENT, attributes={"openinference.span.kind": "AGENT", "agent.name": AGENT, "session.id": "s-1"}
    ):
        return _desk_chat_loop(llm_url, tools)


def run_openllmetry_desk(llm_url: str, provider, logger_provider=None) -> str:
    """OpenLLMetry's OpenAI instrumentation with the desk tools (the tools run untraced: no tool spans;
    the calls and results travel in the LLM spans' messages, or as log records in events mode)."""
    os.environ.setdefault("TRACELOOP_TRACE_CONTENT", "true")
    from opentelemetry.instrumentation.openai import OpenAIInstrumentor

    if logger_provider is None:
        OpenAIInstrumentor().instrument(tracer_provider=provider)
    else:
        OpenAIInstrumentor(use_attributes=False).instrument(tracer_provider=provider, logger_provider=logger_provider)
    return _desk_chat_loop(llm_url, {t.__name__: t for t in DESK_TOOLS})


CLIENTS: dict[str, Callable[[str, object], str]] = {
    "pydantic-ai": run_pydantic_ai,
    "pydantic-ai-structured": run_pydantic_ai_structured,
    "openai-agents": run_openai_agents,
    "openinference-openai": run_openinference_openai,
    "openllmetry": run_openllmetry,
    "openllmetry-events": run_openllmetry,  # with a logger provider (see main)
    "pydantic-ai-desk": run_pydantic_ai_desk,
    "openai-agents-desk": run_openai_agents_desk,
    "openinference-openai-desk": run_openinference_openai_desk,
    "openllmetry-desk": run_openllmetry_desk,
    "openllmetry-desk-events": run_openllmetry_desk,  # with a logger provider (see main)
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("client", choices=sorted(CLIENTS))
    parser.add_argument("--llm", required=True, help="the fake LLM's base URL (ends in /v1)")
    parser.add_argument("--otlp", required=True, help="OTLP/HTTP traces endpoint of the collector")
    parser.add_argument("--service", default=AGENT, help="service.name of the agent process")
    parser.add_argument("--claimwatch", help="JSON config: run ClaimwatchSpanProcessor in front of the exporter")
    parser.add_argument(
        "--simple", action="store_true", help="export each span as it ends (SimpleSpanProcessor), not in a batch"
    )
    parser.add_argument("--tool-delay", type=float, default=0.0, help="seconds the tool takes")
    parser.add_argument("--review-delay", type=float, default=0.0, help="seconds an output guardrail takes")
    parser.add_argument("--stream", action="store_true", help="stream the model's answers (pydantic-ai)")
    parser.add_argument(
        "--instrumentation-version", type=int, help="pydantic-ai's attribute format (pydantic-ai-desk; 2: the old one)"
    )
    parser.add_argument(
        "--untraced-tools", action="store_true", help="run the tools without tool spans (openinference-openai-desk)"
    )
    args = parser.parse_args(argv)
    global TOOL_DELAY_S, REVIEW_DELAY_S, STREAM, INSTRUMENTATION_VERSION, UNTRACED_TOOLS
    TOOL_DELAY_S, REVIEW_DELAY_S, STREAM = args.tool_delay, args.review_delay, args.stream
    INSTRUMENTATION_VERSION, UNTRACED_TOOLS = args.instrumentation_version, args.untraced_tools

    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import SpanProcessor, TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor

    class Counter(SpanProcessor):
        ended = 0

        def on_end(self, span) -> None:
            Counter.ended += 1

    provider = TracerProvider(resource=Resource.create({"service.name": args.service}))
    exporter = OTLPSpanExporter(endpoint=args.otlp)
    export: SpanProcessor = SimpleSpanProcessor(exporter) if args.simple else BatchSpanProcessor(exporter)
    if args.claimwatch:
        from claimwatch import ClaimwatchSpanProcessor

        export = ClaimwatchSpanProcessor(export, config=json.loads(args.claimwatch))
    provider.add_span_processor(export)
    provider.add_span_processor(Counter())
    logs = None
    if args.client.endswith("-events"):
        from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
        from opentelemetry.sdk._logs import LoggerProvider
        from opentelemetry.sdk._logs.export import BatchLogRecordProcessor

        logs = LoggerProvider(resource=provider.resource)
        logs_endpoint = args.otlp.removesuffix("/v1/traces") + "/v1/logs"
        logs.add_log_record_processor(BatchLogRecordProcessor(OTLPLogExporter(endpoint=logs_endpoint)))
        answer = CLIENTS[args.client](args.llm, provider, logs)
    else:
        answer = CLIENTS[args.client](args.llm, provider)
    provider.force_flush()
    stats = export.stats() if args.claimwatch else {}
    if logs is not None:
        logs.shutdown()
    provider.shutdown()
    print(json.dumps({"answer": answer, "spans": Counter.ended, "claimwatch": stats}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
