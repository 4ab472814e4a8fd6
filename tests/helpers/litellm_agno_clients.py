"""LiteLLM and Agno agents, each in a process of its own, for tests/test_real_clients_litellm_agno.py.

    python -m tests.helpers.litellm_agno_clients CLIENT --llm URL --otlp URL [--claimwatch CONFIG_JSON]

The same runner as `tests/helpers/real_clients.py` (same flags, same JSON line
out), with these clients added, all against the fake OpenAI-compatible server:

- `litellm-oi[-desk]`: BerriAI's `litellm.completion` in a hand-written tool loop (the model layer under
  CrewAI, ADK and many agents), traced by Arize's openinference-instrumentation-litellm (an LLM span per
  call, `completion`, with `llm.*` messages; the tools run untraced, as in a user's loop). No span names an
  agent: the process's `service.name` does;
- `litellm-otel[-desk]`: the same loop traced by LiteLLM's own OpenTelemetry callback (`litellm.callbacks =
  ["otel"]`), configured the way its docs say, by environment: `OTEL_EXPORTER=otlp_http`, `OTEL_ENDPOINT`,
  `OTEL_SERVICE_NAME`. LiteLLM builds its own tracer provider then (its spans: `litellm_request` with
  `gen_ai.input/output.messages`, and a `raw_gen_ai_request` child with the provider's raw request and
  response under `llm.openai.*`). The runner's provider is not used, only counted into;
- `litellm-otel-agent[-desk]`: the same callback in a process with its own tracer provider and an
  `invoke_agent` span around the loop: LiteLLM uses that provider and writes each call onto the open agent
  span (over the call before; the last call ends after it and is lost there), so only its
  `raw_gen_ai_request` spans record every call;
- `agno[-desk]`: Agno's `Agent` with tools over its `OpenAIChat` model, traced by Arize's
  openinference-instrumentation-agno (AGENT `<name>.run`, LLM `OpenAIChat.invoke`, TOOL `<tool>` spans);
- `agno-team`: an Agno `Team` (the agent leads it) with two members; the leader delegates to
  `docker_checker`, which calls the tool and reports; the leader answers.

The `-desk` variants run the help-desk scenario (`get_reservation`, `bash`); the others `check_docker`.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable

from tests.helpers import real_clients as rc

AGENT = "ops_helper"
SUB_AGENT = "docker_checker"
OTHER_MEMBER = "release_notes"
SYSTEM = "Answer questions about the build host and reservations."
MODEL = "gpt-test"

# Parameter schemas of the tools, as a hand-written loop declares them to the model.
_PARAMS = {"check_docker": None, "get_reservation": "code", "bash": "command"}


# --- LiteLLM ----------------------------------------------------------------------------------------


def _schema(name: str) -> dict:
    param = _PARAMS[name]
    properties = {param: {"type": "string"}} if param else {}
    return {"type": "function", "function": {"name": name, "description": f"The {name} tool.",
                                             "parameters": {"type": "object", "properties": properties,
                                                            "required": [param] if param else []}}}  # fmt: skip


def _litellm_loop(llm_url: str, tools: list[Callable[..., str]], prompt: str) -> str:
    """litellm.completion with tools: ask, run the tools the model calls, ask again, until it answers."""
    import litellm

    try:
        return _ask_until_answered(litellm, {t.__name__: t for t in tools}, llm_url, prompt)
    finally:
        # LiteLLM runs its logging callbacks (its otel spans) in a thread pool after each call has returned:
        # a short-lived process waits for them before it flushes its exporter, or the last call's span is lost.
        from litellm.litellm_core_utils.thread_pool_executor import executor

        executor.shutdown(wait=True)


def _ask_until_answered(litellm, by_name: dict[str, Callable[..., str]], llm_url: str, prompt: str) -> str:
    schemas = [_schema(name) for name in by_name]
    messages: list[dict] = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": prompt}]
    for _ in range(6):
        response = litellm.completion(model=f"openai/{MODEL}", api_base=llm_url, api_key="test-key",
                                      messages=messages, tools=schemas, num_retries=0)  # fmt: skip
        message = response.choices[0].message
        if not message.tool_calls:
            return message.content or ""
        messages.append(message.model_dump(exclude_none=True))
        for call in message.tool_calls:
            result = by_name[call.function.name](**json.loads(call.function.arguments or "{}"))
            messages.append({"role": "tool", "tool_call_id": call.id, "content": result})
    raise RuntimeError("the model kept calling tools")


def _openinference_litellm(llm_url: str, provider, tools, prompt: str) -> str:
    from openinference.instrumentation.litellm import LiteLLMInstrumentor

    LiteLLMInstrumentor().instrument(tracer_provider=provider)
    return _litellm_loop(llm_url, tools, prompt)


def run_litellm_oi(llm_url: str, provider) -> str:
    return _openinference_litellm(llm_url, provider, [rc.check_docker], rc.PROMPT)


def run_litellm_oi_desk(llm_url: str, provider) -> str:
    return _openinference_litellm(llm_url, provider, list(rc.DESK_TOOLS), rc.DESK_PROMPT)


def _litellm_otel(llm_url: str, provider, tools, prompt: str) -> str:
    """LiteLLM's own OpenTelemetry callback, set up by its documented environment variables. It makes its
    own tracer provider and exporter (sets it globally); the runner only adds its span counter to it and
    flushes it at the end, so the JSON line still says how many spans were sent."""
    import litellm
    from opentelemetry import trace

    os.environ.update({"OTEL_EXPORTER": "otlp_http", "OTEL_ENDPOINT": OTLP_URL, "OTEL_SERVICE_NAME": AGENT})
    counters = [p for p in provider._active_span_processor._span_processors if type(p).__name__ == "Counter"]
    set_provider = trace.set_tracer_provider

    def counted(new) -> None:
        for counter in counters:
            new.add_span_processor(counter)
        LITELLM_PROVIDERS.append(new)
        set_provider(new)

    trace.set_tracer_provider = counted
    litellm.callbacks = ["otel"]
    try:
        return _litellm_loop(llm_url, tools, prompt)
    finally:
        for own in LITELLM_PROVIDERS:
            own.force_flush()


def _litellm_otel_in_agent(llm_url: str, provider, tools, prompt: str) -> str:
    """LiteLLM's callback in a process that has its own tracer provider and an agent span around the loop
    (a framework's, or the user's): LiteLLM then uses that provider, and writes each call's attributes onto
    the active span instead of a `litellm_request` span of its own, each call over the last."""
    import litellm
    from opentelemetry import trace

    trace.set_tracer_provider(provider)
    litellm.callbacks = ["otel"]
    attributes = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": AGENT}
    with provider.get_tracer("ops-agent").start_as_current_span(f"invoke_agent {AGENT}", attributes=attributes):
        return _litellm_loop(llm_url, tools, prompt)


def run_litellm_otel_agent(llm_url: str, provider) -> str:
    return _litellm_otel_in_agent(llm_url, provider, [rc.check_docker], rc.PROMPT)


def run_litellm_otel_agent_desk(llm_url: str, provider) -> str:
    return _litellm_otel_in_agent(llm_url, provider, list(rc.DESK_TOOLS), rc.DESK_PROMPT)


OTLP_URL = ""  # the collector's endpoint (main sets it)
LITELLM_PROVIDERS: list = []


def run_litellm_otel(llm_url: str, provider) -> str:
    return _litellm_otel(llm_url, provider, [rc.check_docker], rc.PROMPT)


def run_litellm_otel_desk(llm_url: str, provider) -> str:
    return _litellm_otel(llm_url, provider, list(rc.DESK_TOOLS), rc.DESK_PROMPT)


# --- Agno -------------------------------------------------------------------------------------------


def _agno_model(llm_url: str):
    from agno.models.openai import OpenAIChat

    return OpenAIChat(id=MODEL, base_url=llm_url, api_key="test-key", max_retries=0)


def _agno_agent(llm_url: str, tools: list[Callable[..., str]], name: str = AGENT, **more):
    from agno.agent import Agent

    return Agent(name=name, model=_agno_model(llm_url), tools=list(tools), instructions=SYSTEM, telemetry=False,
                 **more)  # fmt: skip


def _instrument_agno(provider) -> None:
    from openinference.instrumentation.agno import AgnoInstrumentor

    AgnoInstrumentor().instrument(tracer_provider=provider)


def _agno(llm_url: str, provider, tools, prompt: str) -> str:
    _instrument_agno(provider)
    return str(_agno_agent(llm_url, tools).run(prompt).content)


def run_agno(llm_url: str, provider) -> str:
    return _agno(llm_url, provider, [rc.check_docker], rc.PROMPT)


def run_agno_desk(llm_url: str, provider) -> str:
    return _agno(llm_url, provider, list(rc.DESK_TOOLS), rc.DESK_PROMPT)


def run_agno_team(llm_url: str, provider) -> str:
    """A Team led by the agent: it delegates to `docker_checker` (which has the tool), then answers."""
    from agno.team import Team

    _instrument_agno(provider)
    checker = _agno_agent(llm_url, [rc.check_docker], SUB_AGENT, id=SUB_AGENT, role="Checks services on the build host.")
    notes = _agno_agent(llm_url, [], OTHER_MEMBER, id=OTHER_MEMBER, role="Writes release notes.")
    team = Team(name=AGENT, members=[checker, notes], model=_agno_model(llm_url), instructions=SYSTEM,
                telemetry=False)  # fmt: skip
    return str(team.run(rc.PROMPT).content)


CLIENTS: dict[str, Callable[[str, object], str]] = {
    "litellm-oi": run_litellm_oi,
    "litellm-oi-desk": run_litellm_oi_desk,
    "litellm-otel": run_litellm_otel,
    "litellm-otel-desk": run_litellm_otel_desk,
    "litellm-otel-agent": run_litellm_otel_agent,
    "litellm-otel-agent-desk": run_litellm_otel_agent_desk,
    "agno": run_agno,
    "agno-desk": run_agno_desk,
    "agno-team": run_agno_team,
}
rc.CLIENTS.update(CLIENTS)


def main() -> int:
    global OTLP_URL
    if "--otlp" in sys.argv:
        OTLP_URL = sys.argv[sys.argv.index("--otlp") + 1]
    return rc.main()


if __name__ == "__main__":
    sys.exit(main())
