"""smolagents and AutoGen AgentChat agents, each in a process of its own, for tests/test_real_clients_smol_autogen.py.

    python -m tests.helpers.smol_autogen_clients CLIENT --llm URL --otlp URL [--claimwatch CONFIG_JSON]

The same runner as `tests/helpers/real_clients.py` (same flags, same JSON line
out), with these clients added, all against the fake OpenAI-compatible server:

- `smolagents[-desk]`: Hugging Face's `ToolCallingAgent` over `OpenAIServerModel`, traced by Arize's
  openinference-instrumentation-smolagents (AGENT `<name>.run`, CHAIN `Step N`, LLM `OpenAIModel.generate`,
  TOOL spans). The agent answers by calling its `final_answer` tool: the model's answer is that call's
  argument, and the tool span, the step span and the run span repeat it;
- `smolagents-managed`: a manager agent that hands the question to a managed sub-agent (`docker_checker`),
  which calls the tool and answers it; the manager then answers the user;
- `autogen[-desk]`: Microsoft's `AssistantAgent` with tools over `OpenAIChatCompletionClient`, traced by
  Arize's openinference-instrumentation-autogen-agentchat (AGENT `<name>.on_messages_stream`, LLM
  `OpenAIChatCompletionClient.create`, TOOL `<name>.<tool>` spans);
- `autogen-team`: the same agent in a `RoundRobinGroupChat` after a `planner` agent, same instrumentation;
- `autogen-native[-desk]`: a `RoundRobinGroupChat` of the agent traced by AutoGen's own OpenTelemetry spans
  (invoke_agent, execute_tool and its runtime's publish/process spans, which carry the chat messages)
  with the chat calls traced by opentelemetry-instrumentation-openai-v2, as AutoGen's docs suggest.

The `-desk` variants run the help-desk scenario (`get_reservation`, `bash`); the others `check_docker`.
Both frameworks require an agent's name to be a Python identifier: the agent is `AGENT`, `ops_helper`.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Callable

from tests.helpers import real_clients as rc

AGENT = "ops_helper"
SUB_AGENT = "docker_checker"
PLANNER = "planner"
SYSTEM = "Answer questions about the build host and reservations."


# --- smolagents -------------------------------------------------------------------------------------


def _smol_tools(tools: list[Callable[..., str]]) -> list:
    """The shared tools as smolagents tools: its @tool wants each argument described in an Args section."""
    from smolagents import tool

    def get_reservation(code: str) -> str:
        """Looks up a reservation by its code.

        Args:
            code: the reservation code.
        """
        return rc.get_reservation(code)

    def bash(command: str) -> str:
        """Runs a shell command on the build host.

        Args:
            command: the command line.
        """
        return rc.bash(command)

    def check_docker() -> str:
        """Reports the state of the docker service."""
        return rc.check_docker()

    wrapped = {"check_docker": check_docker, "get_reservation": get_reservation, "bash": bash}
    return [tool(wrapped[t.__name__]) for t in tools]


def _smol_model(llm_url: str):
    from smolagents import OpenAIServerModel

    return OpenAIServerModel(model_id="gpt-test", api_base=llm_url, api_key="test-key",
                             client_kwargs={"max_retries": 0})  # fmt: skip


def _smolagents(llm_url: str, provider, tools: list[Callable[..., str]], prompt: str) -> str:
    from openinference.instrumentation.smolagents import SmolagentsInstrumentor
    from smolagents import ToolCallingAgent

    SmolagentsInstrumentor().instrument(tracer_provider=provider)
    agent = ToolCallingAgent(tools=_smol_tools(tools), model=_smol_model(llm_url), name=AGENT, verbosity_level=0,
                             max_steps=6)  # fmt: skip
    return str(agent.run(prompt))


def run_smolagents(llm_url: str, provider) -> str:
    return _smolagents(llm_url, provider, [rc.check_docker], rc.PROMPT)


def run_smolagents_desk(llm_url: str, provider) -> str:
    return _smolagents(llm_url, provider, list(rc.DESK_TOOLS), rc.DESK_PROMPT)


def run_smolagents_managed(llm_url: str, provider) -> str:
    """A manager with a managed sub-agent: the manager calls `docker_checker(task=...)` like a tool."""
    from openinference.instrumentation.smolagents import SmolagentsInstrumentor
    from smolagents import ToolCallingAgent

    SmolagentsInstrumentor().instrument(tracer_provider=provider)
    model = _smol_model(llm_url)
    checker = ToolCallingAgent(tools=_smol_tools([rc.check_docker]), model=model, name=SUB_AGENT, verbosity_level=0,
                               description="Checks services on the build host.", max_steps=4)  # fmt: skip
    manager = ToolCallingAgent(tools=[], model=model, name=AGENT, managed_agents=[checker], verbosity_level=0,
                               max_steps=4)  # fmt: skip
    return str(manager.run(rc.PROMPT))


# --- AutoGen AgentChat ------------------------------------------------------------------------------


def _autogen_client(llm_url: str):
    from autogen_core.models import ModelInfo
    from autogen_ext.models.openai import OpenAIChatCompletionClient

    info = ModelInfo(vision=False, function_calling=True, json_output=False, family="unknown",
                     structured_output=False)  # fmt: skip
    return OpenAIChatCompletionClient(model="gpt-test", base_url=llm_url, api_key="test-key", max_retries=0,
                                      model_info=info)  # fmt: skip


def _assistant(llm_url: str, tools: list[Callable[..., str]], name: str = AGENT):
    """An AssistantAgent that keeps calling tools until the model answers in text."""
    from autogen_agentchat.agents import AssistantAgent

    return AssistantAgent(name, model_client=_autogen_client(llm_url), tools=list(tools), system_message=SYSTEM,
                          max_tool_iterations=5, reflect_on_tool_use=False)  # fmt: skip


def _last_text(messages) -> str:
    return str(messages[-1].content)


def _openinference_autogen(provider) -> None:
    from openinference.instrumentation.autogen_agentchat import AutogenAgentChatInstrumentor

    AutogenAgentChatInstrumentor().instrument(tracer_provider=provider)


def _autogen(llm_url: str, provider, tools: list[Callable[..., str]], prompt: str) -> str:
    _openinference_autogen(provider)
    agent = _assistant(llm_url, tools)
    return _last_text(asyncio.run(agent.run(task=prompt)).messages)


def run_autogen(llm_url: str, provider) -> str:
    return _autogen(llm_url, provider, [rc.check_docker], rc.PROMPT)


def run_autogen_desk(llm_url: str, provider) -> str:
    return _autogen(llm_url, provider, list(rc.DESK_TOOLS), rc.DESK_PROMPT)


def _team(llm_url: str, tools: list[Callable[..., str]], planner: bool):
    """A RoundRobinGroupChat: (the planner, then) the agent; it ends on the agent's text answer."""
    from autogen_agentchat.agents import AssistantAgent
    from autogen_agentchat.conditions import TextMessageTermination
    from autogen_agentchat.teams import RoundRobinGroupChat

    members = [_assistant(llm_url, tools)]
    if planner:
        members.insert(0, AssistantAgent(PLANNER, model_client=_autogen_client(llm_url), system_message=SYSTEM))
    return RoundRobinGroupChat(members, termination_condition=TextMessageTermination(AGENT))


def run_autogen_team(llm_url: str, provider) -> str:
    _openinference_autogen(provider)
    team = _team(llm_url, [rc.check_docker], planner=True)
    return _last_text(asyncio.run(team.run(task=rc.PROMPT)).messages)


def _native(llm_url: str, provider, tools: list[Callable[..., str]], prompt: str) -> str:
    """AutoGen's own spans (its runtime and tools trace with the global tracer provider), the chat calls
    by the OpenTelemetry project's OpenAI instrumentation with message content on the spans."""
    from opentelemetry import trace

    os.environ["OTEL_SEMCONV_STABILITY_OPT_IN"] = "gen_ai_latest_experimental"
    os.environ["OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"] = "SPAN_ONLY"
    trace.set_tracer_provider(provider)
    from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor

    OpenAIInstrumentor().instrument(tracer_provider=provider)
    team = _team(llm_url, tools, planner=False)
    return _last_text(asyncio.run(team.run(task=prompt)).messages)


def run_autogen_native(llm_url: str, provider) -> str:
    return _native(llm_url, provider, [rc.check_docker], rc.PROMPT)


def run_autogen_native_desk(llm_url: str, provider) -> str:
    return _native(llm_url, provider, list(rc.DESK_TOOLS), rc.DESK_PROMPT)


CLIENTS: dict[str, Callable[[str, object], str]] = {
    "smolagents": run_smolagents,
    "smolagents-desk": run_smolagents_desk,
    "smolagents-managed": run_smolagents_managed,
    "autogen": run_autogen,
    "autogen-desk": run_autogen_desk,
    "autogen-team": run_autogen_team,
    "autogen-native": run_autogen_native,
    "autogen-native-desk": run_autogen_native_desk,
}
rc.CLIENTS.update(CLIENTS)


if __name__ == "__main__":
    sys.exit(rc.main())
