"""A Haystack agent and RAG pipeline, and a DSPy ReAct agent, each run in a process of its own, for
tests/test_real_clients_haystack_dspy.py.

    python -m tests.helpers.haystack_dspy_clients CLIENT --llm URL --otlp URL [--claimwatch CONFIG_JSON]

The same runner as `tests/helpers/real_clients.py` (same flags, same JSON line out), with these clients
added, against the fake OpenAI-compatible server:

- Haystack (deepset): an `Agent` (haystack.components.agents) over `OpenAIChatGenerator` with Python tools,
  run as the component named AGENT of a `Pipeline` (how a Haystack user names it), that calls a tool, gets
  its result and answers; then a RAG pipeline (the model's last reply): an in-memory BM25 retriever over a
  few Documents feeding a `ChatPromptBuilder` (the documents in the prompt) feeding an `OpenAIChatGenerator`.
  It is no agent: it is known by the process's service.name. Two tracings, as Haystack users run them:
  `haystack-otel[-desk]`, Haystack's own tracer (deepset's opentelemetry-haystack `OpenTelemetryTracer`, with
  `HAYSTACK_CONTENT_TRACING_ENABLED=true`), and `haystack-openinference[-desk]`, Arize's
  openinference-instrumentation-haystack.
- DSPy (stanfordnlp) under Arize's openinference-instrumentation-dspy: a `dspy.ReAct` agent with Python tools
  (the `-desk` variant: `get_reservation`, `bash`; else `check_docker`, `bash`), its LM `dspy.LM("openai/...",
  api_base=...)` (LiteLLM underneath) against the fake server, then a `dspy.ChainOfThought` question (no
  agent). DSPy's adapter asks for fields between `[[ ## name ## ]]` markers: the fake server's replies are
  written in that form by the test (`dspy_reply`).

The answer printed is the agent's and the second run's, joined by ANSWERS_SEPARATOR.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

from tests.helpers import real_clients as rc

MODEL = "gpt-4o-mini"
ANSWERS_SEPARATOR = "\n---\n"
RAG_QUESTION = f"What does reservation {rc.RESERVATION_CODE} include?"
DOCUMENTS = (
    rc.RESERVATION,
    "Baggage policy: economy fares include one cabin bag; checked bags cost $35 each.",
    "Refunds go back to the original form of payment within 7 business days.",
)
RAG_TEMPLATE = (
    "Answer from these documents only.\n"
    "{% for document in documents %}Document: {{ document.content }}\n{% endfor %}"
    "Question: {{ question }}"
)
COT_QUESTION = "Is docker running on the build host?"
# The team variant: the agent hands the question to a sub-agent, an Agent given to it as a ComponentTool.
SUB_AGENT = "docker_checker"


# --- Haystack -------------------------------------------------------------------------------------------


def _generator(llm_url: str):
    from haystack.components.generators.chat import OpenAIChatGenerator
    from haystack.utils import Secret

    return OpenAIChatGenerator(
        api_key=Secret.from_token("test-key"), model=MODEL, api_base_url=llm_url, max_retries=0
    )


def _haystack_agent(llm_url: str, tools: list[Callable[..., str]], prompt: str) -> str:
    """An Agent with `tools`, run as the pipeline component named AGENT."""
    from haystack import Pipeline
    from haystack.components.agents import Agent
    from haystack.dataclasses import ChatMessage
    from haystack.tools import create_tool_from_function

    agent = Agent(
        chat_generator=_generator(llm_url),
        tools=[create_tool_from_function(t) for t in tools],
        system_prompt="Answer questions about the build host and reservations.",
    )
    pipeline = Pipeline()
    pipeline.add_component(rc.AGENT, agent)
    result = pipeline.run({rc.AGENT: {"messages": [ChatMessage.from_user(prompt)]}})
    return result[rc.AGENT]["last_message"].text or ""


def _haystack_team(llm_url: str) -> str:
    """The agent named AGENT with one tool: SUB_AGENT, an Agent (with `check_docker`) as a ComponentTool."""
    from haystack import Pipeline
    from haystack.components.agents import Agent
    from haystack.dataclasses import ChatMessage
    from haystack.tools import ComponentTool, create_tool_from_function

    sub = Agent(chat_generator=_generator(llm_url), tools=[create_tool_from_function(rc.check_docker)],
                system_prompt="Check the docker service and report its state.")  # fmt: skip
    tool = ComponentTool(component=sub, name=SUB_AGENT, description="Checks the docker service on the build host.",
                         outputs_to_string={"source": "last_message"})  # fmt: skip
    agent = Agent(chat_generator=_generator(llm_url), tools=[tool], system_prompt="Delegate host checks.")
    pipeline = Pipeline()
    pipeline.add_component(rc.AGENT, agent)
    result = pipeline.run({rc.AGENT: {"messages": [ChatMessage.from_user(rc.PROMPT)]}})
    return result[rc.AGENT]["last_message"].text or ""


def _haystack_rag(llm_url: str) -> str:
    """Retriever -> ChatPromptBuilder (the documents in the prompt) -> OpenAIChatGenerator."""
    from haystack import Document, Pipeline
    from haystack.components.builders import ChatPromptBuilder
    from haystack.components.retrievers.in_memory import InMemoryBM25Retriever
    from haystack.dataclasses import ChatMessage
    from haystack.document_stores.in_memory import InMemoryDocumentStore

    store = InMemoryDocumentStore()
    store.write_documents([Document(content=t) for t in DOCUMENTS])
    pipeline = Pipeline()
    pipeline.add_component("retriever", InMemoryBM25Retriever(store, top_k=2))
    pipeline.add_component(
        "prompt_builder", ChatPromptBuilder(template=[ChatMessage.from_user(RAG_TEMPLATE)], required_variables="*")
    )
    pipeline.add_component("llm", _generator(llm_url))
    pipeline.connect("retriever.documents", "prompt_builder.documents")
    pipeline.connect("prompt_builder.prompt", "llm.messages")
    result = pipeline.run({"retriever": {"query": RAG_QUESTION}, "prompt_builder": {"question": RAG_QUESTION}})
    return result["llm"]["replies"][0].text or ""


def _haystack_tracer(provider) -> None:
    """Haystack's own tracing: deepset's OpenTelemetryTracer, content tracing on."""
    os.environ["HAYSTACK_CONTENT_TRACING_ENABLED"] = "true"
    from haystack import tracing
    from haystack_integrations.tracing.opentelemetry import OpenTelemetryTracer

    tracing.tracer.is_content_tracing_enabled = True  # read at import: set again for a late env var
    tracing.enable_tracing(OpenTelemetryTracer(provider.get_tracer("haystack")))


def _haystack_openinference(provider) -> None:
    from openinference.instrumentation.haystack import HaystackInstrumentor

    HaystackInstrumentor().instrument(tracer_provider=provider)


def _haystack_client(instrument: Callable[[object], None], desk: bool, team: bool = False
                     ) -> Callable[[str, object], str]:
    def run(llm_url: str, provider) -> str:
        # A Haystack user's module imports its components first, then turns tracing on (OpenInference wraps
        # the component classes registered by then; others only once a pipeline runs them).
        from haystack.components.agents import Agent  # noqa: F401
        from haystack.components.builders import ChatPromptBuilder  # noqa: F401
        from haystack.components.generators.chat import OpenAIChatGenerator  # noqa: F401
        from haystack.components.retrievers.in_memory import InMemoryBM25Retriever  # noqa: F401

        instrument(provider)
        if team:
            return _haystack_team(llm_url)
        if desk:
            answer = _haystack_agent(llm_url, list(rc.DESK_TOOLS), rc.DESK_PROMPT)
        else:
            answer = _haystack_agent(llm_url, [rc.check_docker], rc.PROMPT)
        return answer + ANSWERS_SEPARATOR + _haystack_rag(llm_url)

    return run


# --- DSPy -----------------------------------------------------------------------------------------------


def _dspy_client(desk: bool) -> Callable[[str, object], str]:
    def run(llm_url: str, provider) -> str:
        from openinference.instrumentation.dspy import DSPyInstrumentor

        DSPyInstrumentor().instrument(tracer_provider=provider)
        import dspy

        lm = dspy.LM(f"openai/{MODEL}", api_base=llm_url, api_key="test-key", cache=False, num_retries=0)
        dspy.configure(lm=lm)
        tools = list(rc.DESK_TOOLS) if desk else [rc.check_docker, rc.bash]
        agent = dspy.ReAct("question -> answer", tools=tools, max_iters=4)
        answer = agent(question=rc.DESK_PROMPT if desk else rc.PROMPT).answer
        thought = dspy.ChainOfThought("question -> answer")(question=COT_QUESTION).answer
        return answer + ANSWERS_SEPARATOR + thought

    return run


CLIENTS: dict[str, Callable[[str, object], str]] = {}
for _name, _instrument in (("haystack-otel", _haystack_tracer), ("haystack-openinference", _haystack_openinference)):
    CLIENTS[_name] = _haystack_client(_instrument, desk=False)
    CLIENTS[f"{_name}-desk"] = _haystack_client(_instrument, desk=True)
    CLIENTS[f"{_name}-team"] = _haystack_client(_instrument, desk=False, team=True)
CLIENTS["dspy"] = _dspy_client(desk=False)
CLIENTS["dspy-desk"] = _dspy_client(desk=True)
rc.CLIENTS.update(CLIENTS)


if __name__ == "__main__":
    sys.exit(rc.main())
