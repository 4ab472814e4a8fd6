"""Google ADK agents, each in a process of its own, for tests/test_real_clients_google_adk.py.

    python -m tests.helpers.adk_clients CLIENT --llm URL --otlp URL [--claimwatch CONFIG_JSON]

The same runner as `tests/helpers/real_clients.py` (same flags, same JSON line
out). The model is ADK's own Gemini class (google-genai underneath) pointed at
the fake Gemini REST server (`tests/helpers/fake_gemini.py`, `--llm` is its root URL):

- `adk[-desk]`: an `LlmAgent` with tools, traced by ADK's own OpenTelemetry spans in their current
  schema (v2: `invoke_agent`, `generate_content`, `execute_tool`), content on the spans as a user who
  wants it asks (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY);
- `adk-legacy[-desk]`: the same under ADK's legacy schema (ADK_TELEMETRY_SCHEMA_VERSION_OPT_IN=1, what
  ADK's web UI reads): `call_llm` spans with the exchange in `gcp.vertex.agent.llm_request`/`llm_response`,
  tools in `gcp.vertex.agent.tool_call_args`/`tool_response`;
- `adk[-stream]-events`: the current schema with `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`
  (EVENT_ONLY): the messages only on `gen_ai.client.inference.operation.details` log records;
- `adk-openinference[-desk]`: the same agent traced by Arize's openinference-instrumentation-google-adk;
- `*-stream`: the same agent with ADK's server-sent-events streaming (the answer arrives in pieces);
- `*-team`: a root agent that transfers to a sub-agent (`docker_checker`, ADK's `transfer_to_agent`),
  which calls the tool and answers the user itself.

ADK wants an agent's name to be a Python identifier: the agent is `AGENT`, `ops_helper`.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Callable

from tests.helpers import real_clients as rc

AGENT = "ops_helper"
SUB_AGENT = "docker_checker"
SYSTEM = "Answer questions about the build host and reservations."
MODEL = "gemini-2.5-flash"


def _configure(variant: str, provider, logs=None) -> None:
    """The environment ADK reads its telemetry choices from (once, when it builds its config), then the
    tracer provider ADK's module-level tracers resolve to, or OpenInference's instrumentor."""
    os.environ.setdefault("GOOGLE_API_KEY", "test-key")
    os.environ.pop("GOOGLE_GENAI_USE_VERTEXAI", None)
    if variant == "legacy":
        os.environ["ADK_TELEMETRY_SCHEMA_VERSION_OPT_IN"] = "1"
    elif variant == "native":
        os.environ["OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"] = "SPAN_ONLY"
    elif variant in ("events", "both"):  # the older boolean form: on log records only (EVENT_ONLY); or both
        os.environ["OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"] = "true" if variant == "events" else "SPAN_AND_EVENT"
        from opentelemetry import _logs

        _logs.set_logger_provider(logs)
    if variant == "openinference":
        from openinference.instrumentation.google_adk import GoogleADKInstrumentor

        GoogleADKInstrumentor().instrument(tracer_provider=provider)
    else:
        from opentelemetry import trace

        trace.set_tracer_provider(provider)


def _agent(llm_url: str, tools: list[Callable[..., str]], name: str = AGENT, sub_agents=(), description=""):
    from google.adk.agents import LlmAgent
    from google.adk.models import Gemini

    return LlmAgent(name=name, model=Gemini(model=MODEL, base_url=llm_url), instruction=SYSTEM,
                    description=description, tools=list(tools), sub_agents=list(sub_agents))  # fmt: skip


async def _ask(agent, prompt: str, stream: bool = False) -> str:
    """One user turn through ADK's in-memory runner: the last final response's text is the answer."""
    from google.adk.agents.run_config import RunConfig, StreamingMode
    from google.adk.runners import InMemoryRunner
    from google.genai import types

    runner = InMemoryRunner(agent=agent, app_name="ops")
    session = await runner.session_service.create_session(app_name="ops", user_id="u-1")
    message = types.Content(role="user", parts=[types.Part(text=prompt)])
    config = RunConfig(streaming_mode=StreamingMode.SSE if stream else StreamingMode.NONE)
    answer = ""
    async for event in runner.run_async(user_id="u-1", session_id=session.id, new_message=message, run_config=config):
        if event.is_final_response() and not event.partial and event.content and event.content.parts:
            answer = "".join(p.text or "" for p in event.content.parts) or answer
    await runner.close()
    return answer


def _run(variant: str, tools: list[Callable[..., str]], prompt: str, team: bool = False, stream: bool = False):
    def run(llm_url: str, provider, logs=None) -> str:
        _configure(variant, provider, logs)
        if team:
            checker = _agent(llm_url, tools, SUB_AGENT, description="Checks services on the build host.")
            agent = _agent(llm_url, [], sub_agents=[checker])
        else:
            agent = _agent(llm_url, tools)
        return asyncio.run(_ask(agent, prompt, stream))

    return run


DOCKER = [rc.check_docker]
CLIENTS: dict[str, Callable[[str, object], str]] = {}
for _variant, _client in (("native", "adk"), ("legacy", "adk-legacy"), ("openinference", "adk-openinference")):
    CLIENTS[_client] = _run(_variant, DOCKER, rc.PROMPT)
    CLIENTS[_client + "-desk"] = _run(_variant, list(rc.DESK_TOOLS), rc.DESK_PROMPT)
    CLIENTS[_client + "-team"] = _run(_variant, DOCKER, rc.PROMPT, team=True)
    CLIENTS[_client + "-stream"] = _run(_variant, DOCKER, rc.PROMPT, stream=True)
CLIENTS["adk-events"] = _run("events", DOCKER, rc.PROMPT)  # `-events`: the runner exports log records too
CLIENTS["adk-stream-events"] = _run("events", DOCKER, rc.PROMPT, stream=True)
CLIENTS["adk-both-events"] = _run("both", DOCKER, rc.PROMPT)  # SPAN_AND_EVENT: on the spans and log records
rc.CLIENTS.update(CLIENTS)


if __name__ == "__main__":
    sys.exit(rc.main())
