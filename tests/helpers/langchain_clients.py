"""LangChain / LangGraph and Strands agents, each in a process of its own, for tests/test_real_clients_langchain.py.

    python -m tests.helpers.langchain_clients CLIENT --llm URL --otlp URL [--claimwatch CONFIG_JSON]

The same runner as `tests/helpers/real_clients.py` (same flags, same JSON line
out), with these clients added. Each is a desk agent: a LangGraph ReAct agent
(`langgraph.prebuilt.create_react_agent` over `langchain_openai.ChatOpenAI`) or
a Strands agent (`strands.Agent` over its OpenAI model provider) that calls a
tool, gets its result and answers, against the fake OpenAI-compatible server.

- `langgraph-openinference[-desk]`: traced by Arize's openinference-instrumentation-langchain
  (CHAIN spans for the graph and its nodes, LLM spans, TOOL spans; outputs in `output.value`);
- `langgraph-openllmetry[-desk]`: traced by Traceloop's opentelemetry-instrumentation-langchain
  (workflow/task spans with `traceloop.entity.output`, LLM spans with `gen_ai.completion.*`);
- `strands[-desk]`: Strands' own GenAI spans (invoke_agent, event loop cycles, chat, execute_tool);
  `strands-latest[-desk]` with `OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental`.

The `-desk` variants run the help-desk scenario (`get_reservation`, `bash`); the others `check_docker`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

from tests.helpers import real_clients as rc


def _langgraph_agent(llm_url: str, tools: list[Callable[..., str]], prompt: str) -> str:
    """A LangGraph ReAct agent named AGENT: model node, tool node, loop until the model answers."""
    from langchain_openai import ChatOpenAI
    from langgraph.prebuilt import create_react_agent

    model = ChatOpenAI(model="gpt-test", base_url=llm_url, api_key="test-key", max_retries=0)
    agent = create_react_agent(model, tools=tools, name=rc.AGENT, prompt="Answer questions about the build host.")
    result = agent.invoke({"messages": [("user", prompt)]})
    return str(result["messages"][-1].content)


def _openinference(provider) -> None:
    from openinference.instrumentation.langchain import LangChainInstrumentor

    LangChainInstrumentor().instrument(tracer_provider=provider)


def _openllmetry(provider) -> None:
    os.environ.setdefault("TRACELOOP_TRACE_CONTENT", "true")
    from opentelemetry.instrumentation.langchain import LangchainInstrumentor

    LangchainInstrumentor().instrument(tracer_provider=provider)


def run_langgraph_openinference(llm_url: str, provider) -> str:
    _openinference(provider)
    return _langgraph_agent(llm_url, [rc.check_docker], rc.PROMPT)


def run_langgraph_openinference_desk(llm_url: str, provider) -> str:
    _openinference(provider)
    return _langgraph_agent(llm_url, list(rc.DESK_TOOLS), rc.DESK_PROMPT)


def run_langgraph_openllmetry(llm_url: str, provider) -> str:
    _openllmetry(provider)
    return _langgraph_agent(llm_url, [rc.check_docker], rc.PROMPT)


def run_langgraph_openllmetry_desk(llm_url: str, provider) -> str:
    _openllmetry(provider)
    return _langgraph_agent(llm_url, list(rc.DESK_TOOLS), rc.DESK_PROMPT)


def _strands_agent(llm_url: str, provider, tools: list[Callable[..., str]], prompt: str) -> str:
    """A Strands agent on its OpenAI model provider. Strands traces with the global tracer provider."""
    from opentelemetry import trace
    from strands import Agent, tool
    from strands.models.openai import OpenAIModel

    trace.set_tracer_provider(provider)
    model = OpenAIModel(client_args={"base_url": llm_url, "api_key": "test-key", "max_retries": 0}, model_id="gpt-test")
    agent = Agent(
        model=model,
        name=rc.AGENT,
        tools=[tool(t) for t in tools],
        system_prompt="Answer questions about the build host.",
        callback_handler=None,  # no printing to stdout: the runner's last line is its JSON report
    )
    return str(agent(prompt)).strip()


def run_strands(llm_url: str, provider) -> str:
    return _strands_agent(llm_url, provider, [rc.check_docker], rc.PROMPT)


def run_strands_desk(llm_url: str, provider) -> str:
    return _strands_agent(llm_url, provider, list(rc.DESK_TOOLS), rc.DESK_PROMPT)


def _latest(run: Callable[[str, object], str]) -> Callable[[str, object], str]:
    """`run` with the latest GenAI conventions: gen_ai.input/output.messages attributes instead of events."""

    def latest(llm_url: str, provider) -> str:
        os.environ["OTEL_SEMCONV_STABILITY_OPT_IN"] = "gen_ai_latest_experimental"
        return run(llm_url, provider)

    return latest


CLIENTS: dict[str, Callable[[str, object], str]] = {
    "langgraph-openinference": run_langgraph_openinference,
    "langgraph-openinference-desk": run_langgraph_openinference_desk,
    "langgraph-openllmetry": run_langgraph_openllmetry,
    "langgraph-openllmetry-desk": run_langgraph_openllmetry_desk,
    "strands": run_strands,
    "strands-desk": run_strands_desk,
    "strands-latest": _latest(run_strands),
    "strands-latest-desk": _latest(run_strands_desk),
}
rc.CLIENTS.update(CLIENTS)


if __name__ == "__main__":
    sys.exit(rc.main())
