"""Which received spans no check can want, decided on their wire bytes.

Nine spans in ten of an agent's trace are plain (HTTP calls, database queries,
framework steps): no LLM output, no tool call, no identity, not evaluated
upstream. Asking every check's `wants` builds the span's attribute key set
through protobuf and runs each check's look at it, about a quarter of a plain
span's cost in a worker. The same answer comes from the span's serialized
bytes: an attribute key or event name is written there verbatim, so a span
whose bytes hold none of `MARKERS` has none of the names the builtin checks,
the identity resolution and the upstream test look for. A marker in a value
only sends the span the ordinary way (never a wrong answer, only a slower one).
"""

from __future__ import annotations

import re

# Substrings of every attribute and event name a builtin check's `wants`, identity
# (pipeline.IDENTITY_KEYS) or an upstream evaluation (claimwatch.verdict/mode) reads;
# tests/test_prefilter.py checks each of those names contains one.
MARKERS: tuple[bytes, ...] = (
    b"gen_ai.",  # output messages, completions, tool names, agent and conversation ids, events
    b"claimwatch.",  # upstream verdict and mode, agent trust
    b"traceloop.",
    b"openinference.",
    b"llm.output_messages.",
    b"output.value",
    b"tool.name",
    b"agent.name",
    b"session.id",
    b"sender_agent_type",  # AutoGen's runtime spans: an agent's message, redacted after its block
    b"ai.response.",  # the Vercel AI SDK: model output (extract_vercel.py), tool runs, the function it serves
    b"ai.toolCall.",
    b"ai.telemetry.functionId",
    b"gcp.vertex.agent.",  # Google ADK's legacy schema: a model call's response, a tool's arguments and result
    b".choices",  # LiteLLM's raw response span: llm.<provider>.choices (extract_litellm.py)
    b"haystack.",  # Haystack's own tracing: model calls, tool runs, an Agent component's name (extract_haystack.py)
)
# The checks whose `wants` the markers cover; with any other check enabled, every span is asked.
COVERED_CHECKS = frozenset({"output", "actions", "tool_policy", "grounding"})


def covers(checks) -> bool:
    """True when `MARKERS` cover what every one of `checks` can want (builtin checks only)."""
    return all(c.name in COVERED_CHECKS and type(c).__module__.startswith("claimwatch.checks.") for c in checks)


def _marker_search():
    """A test for any marker in one pass: an RE2 set of the alternation runs it as one DFA over the
    bytes, where a `marker in wire` per marker scanned a span's ~250 bytes 13 times (1.2 against
    4.2 us a span on the benchmark's plain spans; `re2.compile(...).search` takes 1.8, its match
    objects built in Python). `re` when RE2 is missing. The function returns a true value on a hit."""
    pattern = b"|".join(re.escape(m) for m in MARKERS)
    try:
        import re2

        found = re2.Set.SearchSet()
        found.Add(pattern)
        found.Compile()
        return found.Match
    except ImportError:  # pragma: no cover - google-re2 is a dependency
        return re.compile(pattern).search


_search = _marker_search()


def is_plain(wire: bytes) -> bool:
    """True when a span's serialized bytes hold no marker: no check wants it."""
    return not _search(wire)


def plain_wire(proto) -> bytes | None:
    """The span serialized when it holds no marker (no check wants it); None otherwise."""
    wire = proto.SerializeToString()
    return None if _search(wire) else wire
