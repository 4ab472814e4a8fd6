"""A LlamaIndex agent and a RAG query, in a process of their own per run, for tests/test_real_clients_llamaindex.py.

    python -m tests.helpers.llamaindex_clients CLIENT --llm URL --otlp URL [--claimwatch CONFIG_JSON]

The same runner as `tests/helpers/real_clients.py` (same flags, same JSON line
out), with these clients added, against the fake OpenAI-compatible server:

- an agent: a LlamaIndex `FunctionAgent` named AGENT over `llama_index.llms.openai.OpenAI`, streaming
  (its default), that calls a tool, gets its result and answers;
- then a RAG query (the model's last reply): a query engine over a `VectorStoreIndex` of a few in-memory
  Documents, embedded by a deterministic bag-of-words embedding (no network, no model download): the
  retriever finds the reservation's document and the model answers from it. It is no agent: it is known
  by the process's service.name. Both run in one process (most of a run is importing LlamaIndex).

The answer printed is the agent's and the query's, joined by ANSWERS_SEPARATOR.

Two instrumentations, as LlamaIndex users run them:
- `llamaindex-openinference[-desk]`: Arize's openinference-instrumentation-llama-index (CHAIN, LLM,
  TOOL, RETRIEVER, EMBEDDING spans from LlamaIndex's instrumentation dispatcher);
- `llamaindex-openllmetry[-desk]`: Traceloop's opentelemetry-instrumentation-llamaindex
  (workflow/task spans with `traceloop.entity.*`), with OpenLLMetry's OpenAI instrumentation for the
  model calls (`gen_ai.*` LLM spans), as Traceloop's SDK runs them together.

The `-desk` variants run the help-desk scenario (`get_reservation`, `bash`); the plain ones `check_docker`.
"""

from __future__ import annotations

import asyncio
import hashlib
import math
import os
import re
import sys
from collections.abc import Callable

from tests.helpers import real_clients as rc

# A model name LlamaIndex's OpenAI class knows (it looks up the context window and tool support by name);
# the fake server answers any name.
MODEL = "gpt-4o-mini"
RAG_QUESTION = f"What does reservation {rc.RESERVATION_CODE} include?"
# The documents the RAG query retrieves from: the reservation's own, and two it must not pick first.
DOCUMENTS = (
    rc.RESERVATION,
    "Baggage policy: economy fares include one cabin bag; checked bags cost $35 each.",
    "Refunds go back to the original form of payment within 7 business days.",
)
_DIMENSIONS = 512
ANSWERS_SEPARATOR = "\n---\n"
_WORD = re.compile(r"[a-z0-9$]+")


def _embedding_class():
    """A deterministic embedding: each word hashed into one of 64 dimensions, normalised. Documents that
    share words with the question are closer, so retrieval is meaningful and the same on every run."""
    from llama_index.core.embeddings import BaseEmbedding

    def embed(text: str) -> list[float]:
        vector = [0.0] * _DIMENSIONS
        for word in _WORD.findall(text.lower()):
            vector[int(hashlib.blake2b(word.encode(), digest_size=2).hexdigest(), 16) % _DIMENSIONS] += 1.0
        norm = math.sqrt(sum(v * v for v in vector)) or 1.0
        return [v / norm for v in vector]

    class WordsEmbedding(BaseEmbedding):
        def _get_query_embedding(self, query: str) -> list[float]:
            return embed(query)

        async def _aget_query_embedding(self, query: str) -> list[float]:
            return embed(query)

        def _get_text_embedding(self, text: str) -> list[float]:
            return embed(text)

    return WordsEmbedding


def _llm(llm_url: str):
    from llama_index.llms.openai import OpenAI

    return OpenAI(model=MODEL, api_base=llm_url, api_key="test-key", max_retries=0)


def _agent(llm_url: str, tools: list[Callable[..., str]], prompt: str) -> str:
    """A FunctionAgent named AGENT: the model calls a tool, gets its result, answers."""
    from llama_index.core.agent.workflow import FunctionAgent

    agent = FunctionAgent(
        name=rc.AGENT,
        description="Answers questions about the build host and reservations.",
        tools=tools,
        llm=_llm(llm_url),
        system_prompt="Answer questions about the build host and reservations.",
    )

    async def ask() -> str:
        return str(await agent.run(user_msg=prompt))

    return asyncio.run(ask())


def _rag(llm_url: str) -> str:
    """A query engine over in-memory Documents: retrieve the two closest, answer from them."""
    from llama_index.core import Document, VectorStoreIndex

    index = VectorStoreIndex.from_documents([Document(text=t) for t in DOCUMENTS], embed_model=_embedding_class()())
    engine = index.as_query_engine(llm=_llm(llm_url), similarity_top_k=2)
    return str(engine.query(RAG_QUESTION))


def _openinference(provider) -> None:
    from openinference.instrumentation.llama_index import LlamaIndexInstrumentor

    LlamaIndexInstrumentor().instrument(tracer_provider=provider)


def _openllmetry(provider) -> None:
    """OpenLLMetry's LlamaIndex instrumentation leaves LlamaIndex's OpenAI class to OpenLLMetry's OpenAI
    instrumentation (it opens no span of its own for it): both are on, as Traceloop's SDK turns them on."""
    os.environ.setdefault("TRACELOOP_TRACE_CONTENT", "true")
    from opentelemetry.instrumentation.llamaindex import LlamaIndexInstrumentor
    from opentelemetry.instrumentation.openai import OpenAIInstrumentor

    LlamaIndexInstrumentor().instrument(tracer_provider=provider)
    OpenAIInstrumentor().instrument(tracer_provider=provider)


def _client(instrument: Callable[[object], None], desk: bool) -> Callable[[str, object], str]:
    def run(llm_url: str, provider) -> str:
        instrument(provider)
        if desk:
            answer = _agent(llm_url, list(rc.DESK_TOOLS), rc.DESK_PROMPT)
        else:
            answer = _agent(llm_url, [rc.check_docker], rc.PROMPT)
        return answer + ANSWERS_SEPARATOR + _rag(llm_url)

    return run


CLIENTS: dict[str, Callable[[str, object], str]] = {}
for _name, _instrument in (("llamaindex-openinference", _openinference), ("llamaindex-openllmetry", _openllmetry)):
    CLIENTS[_name] = _client(_instrument, desk=False)
    CLIENTS[f"{_name}-desk"] = _client(_instrument, desk=True)
rc.CLIENTS.update(CLIENTS)


if __name__ == "__main__":
    sys.exit(rc.main())
