"""A CrewAI crew, in a process of its own per run, for tests/test_real_clients_crewai.py.

    python -m tests.helpers.crewai_clients CLIENT --llm URL --otlp URL [--claimwatch CONFIG_JSON]

The same runner as `tests/helpers/real_clients.py` (same flags, same JSON line
out), with these clients added, against the fake OpenAI-compatible server through
CrewAI's native OpenAI provider (`LLM(model=..., provider="openai", base_url=...)`):
a crew of two agents in a sequential process, the researcher (RESEARCHER, with the
tools) and the writer (AGENT). CrewAI names its agents by their role: those are the
names users give rules.

- `crewai-<instrumentation>`: one task, the writer's; the writer may delegate, and hands the question to
  the researcher with CrewAI's `Delegate work to coworker` tool; the researcher runs `check_docker` and
  reports; the writer answers;
- `crewai-<instrumentation>-desk`: two tasks, the researcher's with the help-desk tools
  (`get_reservation`, `bash`), then the writer's, which gets the research as context and answers in a
  conversation of its own.

Two instrumentations, as CrewAI users run them:
- `crewai-openinference[-desk]`: Arize's openinference-instrumentation-crewai (CHAIN spans for the crew
  and each task, AGENT spans, TOOL spans), with Arize's OpenAI instrumentation for the model calls (LLM
  spans), as Arize's docs pair them;
- `crewai-openllmetry[-desk]`: Traceloop's opentelemetry-instrumentation-crewai (`crewai.workflow`,
  `<role>.agent`, `<task>.task` spans), with OpenLLMetry's OpenAI instrumentation for the model calls.

CrewAI's anonymous telemetry and its own trace upload are switched off by their documented variables.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

from tests.helpers import real_clients as rc

# CrewAI's documented switches: no anonymous telemetry, no trace upload, no first-run prompt.
os.environ["CREWAI_DISABLE_TELEMETRY"] = "true"
os.environ["CREWAI_TRACING_ENABLED"] = "false"
os.environ.setdefault("CREWAI_STORAGE_DIR", "claimwatch-tests")

AGENT = "Ops Writer"
RESEARCHER = "Build Host Researcher"
MODEL = "gpt-4o-mini"  # a name CrewAI's native OpenAI provider knows; the fake server answers any


def _tools(tools: list[Callable[..., str]]) -> list:
    """The shared tools as CrewAI tools (its @tool reads the name and docstring)."""
    from crewai.tools import tool

    def get_reservation(code: str) -> str:
        """Looks up a reservation by its code."""
        return rc.get_reservation(code)

    def bash(command: str) -> str:
        """Runs a shell command on the build host."""
        return rc.bash(command)

    def check_docker() -> str:
        """Reports the state of the docker service."""
        return rc.check_docker()

    wrapped = {"check_docker": check_docker, "get_reservation": get_reservation, "bash": bash}
    return [tool(t.__name__)(wrapped[t.__name__]) for t in tools]


def _crew(llm_url: str, tools: list[Callable[..., str]], prompt: str) -> str:
    """Two tasks in sequence: the researcher's, with the tools, then the writer's, with the research as context."""
    from crewai import LLM, Agent, Crew, Process, Task

    llm = LLM(model=MODEL, provider="openai", base_url=llm_url, api_key="test-key", max_retries=0)
    researcher = Agent(role=RESEARCHER, goal="Find out the facts the question needs, with your tools.",
                       backstory="You look things up on the build host and in the reservation system.",
                       tools=_tools(tools), llm=llm, allow_delegation=False, verbose=False, max_iter=5)  # fmt: skip
    writer = Agent(role=AGENT, goal="Answer the user from the research.",
                   backstory="You write short, accurate answers for the user.", llm=llm,
                   allow_delegation=False, verbose=False, max_iter=3)  # fmt: skip
    research = Task(description=f"Research this question: {prompt}", expected_output="The facts found.",
                    agent=researcher)  # fmt: skip
    answer = Task(description=f"Answer the user's question: {prompt}", expected_output="A short answer.",
                  agent=writer, context=[research])  # fmt: skip
    crew = Crew(agents=[researcher, writer], tasks=[research, answer], process=Process.sequential, verbose=False)
    return str(crew.kickoff().raw)


def _delegating_crew(llm_url: str) -> str:
    """One task, the writer's, who may delegate: it hands the question to the researcher with CrewAI's
    `Delegate work to coworker` tool; the researcher runs its own tool and answers; the writer answers."""
    from crewai import LLM, Agent, Crew, Process, Task

    llm = LLM(model=MODEL, provider="openai", base_url=llm_url, api_key="test-key", max_retries=0)
    researcher = Agent(role=RESEARCHER, goal="Find out the facts the question needs, with your tools.",
                       backstory="You look things up on the build host.", tools=_tools([rc.check_docker]), llm=llm,
                       allow_delegation=False, verbose=False, max_iter=5)  # fmt: skip
    writer = Agent(role=AGENT, goal="Answer the user, asking a coworker to look things up.",
                   backstory="You write short, accurate answers for the user.", llm=llm, allow_delegation=True,
                   verbose=False, max_iter=5)  # fmt: skip
    answer = Task(description=f"Answer the user's question: {rc.PROMPT}", expected_output="A short answer.",
                  agent=writer)  # fmt: skip
    crew = Crew(agents=[researcher, writer], tasks=[answer], process=Process.sequential, verbose=False)
    return str(crew.kickoff().raw)


def _openinference(provider) -> None:
    from openinference.instrumentation.crewai import CrewAIInstrumentor
    from openinference.instrumentation.openai import OpenAIInstrumentor

    CrewAIInstrumentor().instrument(tracer_provider=provider)
    OpenAIInstrumentor().instrument(tracer_provider=provider)


def _openllmetry(provider) -> None:
    os.environ.setdefault("TRACELOOP_TRACE_CONTENT", "true")
    from opentelemetry.instrumentation.crewai import CrewAIInstrumentor
    from opentelemetry.instrumentation.openai import OpenAIInstrumentor

    CrewAIInstrumentor().instrument(tracer_provider=provider)
    OpenAIInstrumentor().instrument(tracer_provider=provider)


def _client(instrument: Callable[[object], None], desk: bool = False) -> Callable[[str, object], str]:
    def run(llm_url: str, provider) -> str:
        instrument(provider)
        return _crew(llm_url, list(rc.DESK_TOOLS), rc.DESK_PROMPT) if desk else _delegating_crew(llm_url)

    return run


CLIENTS: dict[str, Callable[[str, object], str]] = {
    "crewai-openinference": _client(_openinference),
    "crewai-openinference-desk": _client(_openinference, desk=True),
    "crewai-openllmetry": _client(_openllmetry),
    "crewai-openllmetry-desk": _client(_openllmetry, desk=True),
}
rc.CLIENTS.update(CLIENTS)


if __name__ == "__main__":
    sys.exit(rc.main())
