"""Google's GenAI SDK and Microsoft's Semantic Kernel, each run in a process of its own, for
tests/test_real_clients_genai_sk.py.

    python -m tests.helpers.genai_sk_clients CLIENT --llm URL --otlp URL [--claimwatch CONFIG_JSON]

The same runner as `tests/helpers/real_clients.py` (same flags, same JSON line out):

- `genai[-desk]`: `google-genai`'s `Client.models.generate_content` with Python functions as tools (the
  SDK's automatic function calling runs them and asks again) against the fake Gemini REST server
  (`tests/helpers/fake_gemini.py`, `--llm` is its root URL), traced by the OpenTelemetry project's
  opentelemetry-instrumentation-google-genai: a `generate_content <model>` span per model call and an
  `execute_tool <name>` span per tool run, content on the spans
  (`OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY`);
- `genai-stream`: the same with `generate_content_stream` (the answer arrives in pieces);
- `genai-chat`: two turns of a chat session (`client.chats`), the second one's history holding the first answer;
- `genai[-stream]-events`: content on `gen_ai.client.inference.operation.details` log records only
  (EVENT_ONLY); `genai-both-events`: on the spans and the log records (SPAN_AND_EVENT);
- `genai-upload`: content neither on spans nor log records but uploaded as files by util-genai's
  `upload` completion hook (`OTEL_INSTRUMENTATION_GENAI_COMPLETION_HOOK=upload`): the spans carry
  references (`gen_ai.output.messages_ref`) only.

google-genai has no agent of its own: the agent is the process, named by `service.name` (`--service`).
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Callable

from tests.helpers import real_clients as rc

MODEL = "gemini-2.5-flash"
SYSTEM = "Answer questions about the build host and reservations."
# client variant -> OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT
_CAPTURE = {"spans": "SPAN_ONLY", "events": "EVENT_ONLY", "both": "SPAN_AND_EVENT", "upload": "NO_CONTENT"}


def _instrument_genai(capture: str, provider, logs=None) -> None:
    """The environment util-genai reads its choices from, then the instrumentor (it patches the SDK's
    Models classes, so it must run before a client is built)."""
    os.environ["OTEL_SEMCONV_STABILITY_OPT_IN"] = "gen_ai_latest_experimental"
    os.environ["OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"] = _CAPTURE[capture]
    if capture == "upload":
        os.environ["OTEL_INSTRUMENTATION_GENAI_COMPLETION_HOOK"] = "upload"
        os.environ["OTEL_INSTRUMENTATION_GENAI_UPLOAD_BASE_PATH"] = tempfile.mkdtemp(prefix="genai-upload-")
    from opentelemetry.instrumentation.google_genai import GoogleGenAiSdkInstrumentor

    extra = {"logger_provider": logs} if logs is not None else {}
    GoogleGenAiSdkInstrumentor().instrument(tracer_provider=provider, **extra)


def _genai(capture: str, tools: list[Callable[..., str]], prompt: str, stream: bool = False):
    def run(llm_url: str, provider, logs=None) -> str:
        _instrument_genai(capture, provider, logs)
        from google import genai
        from google.genai import types

        client = genai.Client(api_key="test-key", http_options=types.HttpOptions(base_url=llm_url))
        config = types.GenerateContentConfig(system_instruction=SYSTEM, tools=list(tools))
        if not stream:
            return client.models.generate_content(model=MODEL, contents=prompt, config=config).text or ""
        pieces = client.models.generate_content_stream(model=MODEL, contents=prompt, config=config)
        return "".join(chunk.text or "" for chunk in pieces)

    return run


FOLLOW_UP = "Thanks. Anything else I should know?"


def _genai_chat(capture: str, tools: list[Callable[..., str]], prompt: str = rc.PROMPT):
    """Two turns of a chat session (`client.chats`, where google-genai recommends automatic function
    calling): the second turn's request carries the first answer back in its history."""

    def run(llm_url: str, provider, logs=None) -> str:
        _instrument_genai(capture, provider, logs)
        from google import genai
        from google.genai import types

        client = genai.Client(api_key="test-key", http_options=types.HttpOptions(base_url=llm_url))
        config = types.GenerateContentConfig(system_instruction=SYSTEM, tools=list(tools))
        chat = client.chats.create(model=MODEL, config=config)
        first = chat.send_message(prompt).text or ""
        chat.send_message(FOLLOW_UP)
        return first

    return run


# --- Semantic Kernel ----------------------------------------------------------------------------------

SK_AGENT = rc.AGENT
SK_SUB_AGENT = "docker_checker"


def _sk_plugin(tools: list[Callable[..., str]]):
    """The shared tools as one Semantic Kernel plugin (class name: the plugin's name in tool names)."""
    from semantic_kernel.functions import kernel_function

    class HostTools:
        pass

    for tool in tools:
        method = kernel_function(name=tool.__name__, description=tool.__doc__)(staticmethod(tool).__func__)
        setattr(HostTools, tool.__name__, staticmethod(method))
    return HostTools()


def _sk_logging(logs) -> None:
    """What Semantic Kernel's telemetry sample sets up: its own log records (the chat messages as GenAI
    events) into the OpenTelemetry logger provider through the standard logging module."""
    import logging

    from opentelemetry import _logs
    from opentelemetry.sdk._logs import LoggingHandler

    _logs.set_logger_provider(logs)
    handler = LoggingHandler(logger_provider=logs)
    handler.addFilter(logging.Filter("semantic_kernel"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.INFO)


def _sk(tools: list[Callable[..., str]], prompt: str, team: bool = False, stream: bool = False):
    def run(llm_url: str, provider, logs=None) -> str:
        # Read once, when semantic_kernel is first imported.
        os.environ["SEMANTICKERNEL_EXPERIMENTAL_GENAI_ENABLE_OTEL_DIAGNOSTICS_SENSITIVE"] = "true"
        from opentelemetry import trace

        trace.set_tracer_provider(provider)
        if logs is not None:
            _sk_logging(logs)
        import asyncio

        from openai import AsyncOpenAI
        from semantic_kernel.agents import ChatCompletionAgent
        from semantic_kernel.connectors.ai.open_ai import OpenAIChatCompletion

        def service():
            client = AsyncOpenAI(base_url=llm_url, api_key="test-key", max_retries=0)
            return OpenAIChatCompletion(ai_model_id="gpt-test", async_client=client)

        plugins = [_sk_plugin(tools)]
        if team:  # the sub-agent as the root's plugin, as Semantic Kernel's triage samples do
            checker = ChatCompletionAgent(service=service(), name=SK_SUB_AGENT, plugins=plugins,
                                          instructions="Check services on the build host.")  # fmt: skip
            plugins = [checker]
        agent = ChatCompletionAgent(service=service(), name=SK_AGENT, instructions=SYSTEM, plugins=plugins)

        async def ask() -> str:
            if stream:
                return "".join([str(chunk.content) async for chunk in agent.invoke_stream(messages=prompt)])
            return str((await agent.get_response(messages=prompt)).content)

        return asyncio.run(ask())

    return run


DOCKER = [rc.check_docker]
CLIENTS: dict[str, Callable[..., str]] = {
    "genai": _genai("spans", DOCKER, rc.PROMPT),
    "genai-desk": _genai("spans", list(rc.DESK_TOOLS), rc.DESK_PROMPT),
    "genai-stream": _genai("spans", DOCKER, rc.PROMPT, stream=True),
    "genai-chat": _genai_chat("spans", DOCKER),
    "genai-chat-desk": _genai_chat("spans", list(rc.DESK_TOOLS), rc.DESK_PROMPT),
    # `-events`: the runner exports log records too (tests/helpers/real_clients.py)
    "genai-events": _genai("events", DOCKER, rc.PROMPT),
    "genai-stream-events": _genai("events", DOCKER, rc.PROMPT, stream=True),
    "genai-both-events": _genai("both", DOCKER, rc.PROMPT),
    "genai-upload-events": _genai("upload", DOCKER, rc.PROMPT),
}
CLIENTS["sk"] = _sk(DOCKER, rc.PROMPT)
CLIENTS["sk-desk"] = _sk(list(rc.DESK_TOOLS), rc.DESK_PROMPT)
CLIENTS["sk-team"] = _sk(DOCKER, rc.PROMPT, team=True)
CLIENTS["sk-events"] = _sk(DOCKER, rc.PROMPT)  # with the runner's logger provider
CLIENTS["sk-stream"] = _sk(DOCKER, rc.PROMPT, stream=True)
CLIENTS["sk-stream-events"] = _sk(DOCKER, rc.PROMPT, stream=True)
rc.CLIENTS.update(CLIENTS)


if __name__ == "__main__":
    sys.exit(rc.main())
