"""The one pipeline both adapters run: identity, the registered checks, the enforce rule, rows.

A span record and a view of its trace go in; an `Outcome` comes out: who
spoke, in which mode, each check's result, whether the block is enforced,
and the annotations and rows that follow. The adapters (SDK processor,
collector engine, `guard`) only apply it. Per-span work never raises.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import re
import uuid
from collections import OrderedDict
from collections.abc import Callable, Mapping, MutableMapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from threading import Lock
from typing import Any

from ..core.config import ClaimwatchConfig, load_config
from ..core.model import Trust
from ..core.policy import PolicyResolver, matches
from ..core.validator import OutputValidator
from ..otel import attributes as A
from ..otel import extract_crewai as crewai
from ..otel import extract_haystack as haystack
from ..otel import extract_vercel as vercel
from ..otel.extract import Output, extract
from ..otel.extract_llamaindex import agent_name as llamaindex_agent_name
from ..otel.extract_llamaindex import earlier_agent_name
from ..otel.records import EventRecord, SpanRecord
from . import output as output_check
from .base import Check, CheckContext, CheckResult, Identity, worst
from .registry import build_checks, evaluation_names
from .trace import HeldTrace

logger = logging.getLogger("claimwatch.pipeline")

_MAX_DEPTH = 64
_MAX_BLOCKED_TRACES = 10_000
# An enforcing agent's blocked texts, kept for its later traces (bounded: agents, and texts per agent).
_MAX_BLOCKED_AGENTS = 1_024
_MAX_BLOCKED_PER_AGENT = 32
# ... for the conversation's next calls, not for good: redacting a trace walks every value of its spans
# (~0.2 ms for an LLM span with 7 KB of history). Span time, so a replay carries them the same way.
_BLOCKED_CARRY_NS = 15 * 60 * 1_000_000_000
_VERBOSITY_RANK = {"silent": 0, "info": 1, "debug": 2}
_SCORE = {"pass": 1.0, "flag": 0.5, "block": 0.0}
AUDIT_VERDICTS = {"pass": "output_pass", "flag": "output_flag", "block": "output_block", "error_fallback": "error_fallback"}
GUARD_SOURCE = "claimwatch.guard"
NOTICE = (
    "[claimwatch] This agent output was blocked: {reason}. "
    "See the audit log (trace {trace_id}, span {span_id}) for details."
)


# What a span needs to keep of its ancestors for identity resolution (the collector keeps only these).
IDENTITY_KEYS = (
    A.GEN_AI_AGENT_ID,
    A.GEN_AI_AGENT_NAME,
    A.AGENT_NAME,
    A.GEN_AI_CONVERSATION_ID,
    A.SESSION_ID,
    A.AGENT_TRUST,
    A.TRACELOOP_SPAN_KIND,
    A.TRACELOOP_ENTITY_NAME,
    A.OPENINFERENCE_SPAN_KIND,
    vercel.FUNCTION_ID,
)
# And what identity reads of an ancestor only when it has one of those (OpenInference's metadata).
ANCESTOR_KEYS = (*IDENTITY_KEYS, A.OPENINFERENCE_METADATA, A.OPENINFERENCE_GRAPH_NODE, A.GEN_AI_SYSTEM,
                 *haystack.ANCESTOR_KEYS)


def enforces(mode: str, verdict: str) -> bool:
    """The enforce rule, the only place it is written: an enforcing agent's block is applied."""
    return mode == "enforce" and verdict == "block"


@dataclass(frozen=True, slots=True)
class Guarded:
    """A result a call-site guard already produced for a span (and whether it raised)."""

    check: str
    result: CheckResult
    enforced: bool
    text: str | None = None  # the output the guard saw, used when the span carries none
    agent_id: str | None = None


@dataclass(frozen=True, slots=True)
class Outcome:
    """Everything the checks concluded about one span, and what the adapters must do with it."""

    span: SpanRecord
    identity: Identity
    mode: str
    results: tuple[CheckResult, ...]
    enforced: bool
    time: datetime
    evaluation_ids: tuple[str, ...]
    trust: Trust | None = None  # the agent's trust score and tier (the default trust when no rule sets one)
    duplicate_of: str | None = None  # span id whose identical evaluation this one repeats
    upstream: bool = False  # evaluated by a claimwatch upstream: recorded, not judged again

    @property
    def verdict(self) -> str:
        return worst([r.verdict for r in self.results])

    def result(self, check: str) -> CheckResult | None:
        return next((r for r in self.results if r.check == check), None)

    @property
    def blocked_texts(self) -> tuple[str, ...]:
        return tuple(t for r in self.results if r.verdict == "block" for t in r.blocked_texts) if self.enforced else ()

    def notice(self) -> str:
        """What replaces blocked content: the reason class, never the content."""
        return notice_for(self.results, self.span.trace_id, self.span.span_id)


def notice_for(results, trace_id: str, span_id: str) -> str:
    """The block notice for these results: why (the reason class) and where the audit record is."""
    reasons = [r.block_reason or f"the {r.check} check blocked it" for r in results if r.verdict == "block"]
    return NOTICE.format(reason="; ".join(reasons) or "policy", trace_id=trace_id, span_id=span_id)


class Pipeline:
    """Resolves identity, trust and mode for span records and runs the registered checks on them."""

    def __init__(
        self,
        config: ClaimwatchConfig | str | dict | None = None,
        validator: OutputValidator | None = None,
        checks: list[Check] | None = None,
    ) -> None:
        self.config = load_config(config)
        overrides = {}
        if validator is not None:
            overrides[output_check.NAME] = output_check.OutputCheck(validator, self.config.storage.store_matched_text)
        self.checks: tuple[Check, ...] = tuple(checks if checks is not None else build_checks(self.config, overrides))
        self._names = evaluation_names()
        self._tiers = PolicyResolver(self.config.validation)
        self._blocked: OrderedDict[str, tuple[tuple[str, ...], str]] = OrderedDict()
        self._blocked_by_agent: OrderedDict[str, tuple[tuple[str, ...], str, int]] = OrderedDict()
        self._agent_lock = Lock()  # a worker process merges other workers' blocks from another thread
        # Told of each enforced block of an agent (agent, texts, notice, carry-until ns), so a collector with
        # several worker processes hands it to the others: an agent's next trace may be routed to another.
        self.on_agent_block: Callable[[tuple[str, tuple[str, ...], str, int]], None] | None = None

    # --- the contract -----------------------------------------------------------------------------
    def process(
        self,
        span: SpanRecord,
        trace: HeldTrace | None = None,
        guarded: Mapping[str, Guarded] | None = None,
        seen: MutableMapping[tuple, Outcome] | None = None,
    ) -> Outcome | None:
        """Run every check that wants `span`; None when none has anything to say. Never raises.

        `guarded` are results call-site guards produced for this span: they are used
        instead of running those checks again. With `seen`, a span that repeats the
        output of a span below it, for the same agent and mode (an agent span over its
        own LLM span), reuses that evaluation instead of being judged and stored twice.
        """
        trace = trace or HeldTrace(lambda _id: None)
        guarded = guarded or {}
        try:
            if _evaluated_upstream(span):
                return self._upstream(span, trace)
            wanted = [c for c in self.checks if c.name in guarded or c.wants(span)]
            if not wanted:
                self._carry_to_runtime_message(span)
                return None
            ctx = CheckContext(span, trace, self._resolver(trace, guarded), self.config.annotations.verbosity,
                               self._extractor(guarded))
            self._carry_blocked(ctx)
            # Hashed once: the repeat test and the memory of this outcome both key on the output.
            key = _repeat_key(ctx) if seen is not None and ctx.output is not None else None
            repeat = self._repeat(ctx, seen, guarded, key)
            if repeat is not None:
                return repeat
            results = tuple(r for r in (self._run(c, ctx, guarded) for c in wanted) if r is not None)
            if not results:
                return None
            # Enforced means the block was applied: a guard raised, or there is content to keep
            # from travelling. A tool call seen after it ran can only be recorded as would-block.
            enforced = any(g.enforced for g in guarded.values()) or (
                enforces(ctx.mode, worst([r.verdict for r in results]))
                and any(r.blocked_texts for r in results if r.verdict == "block")
            )
            outcome = Outcome(span, ctx.identity, ctx.mode, results, enforced, _time(span),
                              evaluation_ids(span, results), self._tiers.trust(ctx.trust))
            self._remember(outcome, ctx, seen, key)
            return outcome
        except Exception as exc:
            logger.exception("checks failed for span %s; failing open", span.span_id)
            return self._failure(span, exc)

    def check(self, name: str) -> Check | None:
        """The running instance of a registered check, if enabled."""
        return next((c for c in self.checks if c.name == name), None)

    def judge(self, name: str, span: SpanRecord, identity: Identity, trust: float | None, mode: str,
              text: str | None = None) -> CheckResult | None:
        """Run one check for a call-site guard, with identity, trust and mode already known."""
        check = self.check(name)
        if check is None:
            return None
        guarded = {} if text is None else {"_": Guarded(name, CheckResult(name, "pass"), False, text)}
        ctx = CheckContext(span, HeldTrace(lambda _id: None), lambda _s: (identity, trust, mode),
                           self.config.annotations.verbosity, self._extractor(guarded))
        return self._run(check, ctx, {})

    def _run(self, check: Check, ctx: CheckContext, guarded: Mapping[str, Guarded]) -> CheckResult | None:
        if check.name in guarded:
            reuse = getattr(check, "reuse", None)  # optional: re-render for the span as it ended
            return reuse(guarded[check.name].result, ctx) if reuse else guarded[check.name].result
        try:
            return check.run(ctx)
        except Exception as exc:  # a check must not raise; if one does, it fails open alone
            logger.exception("check %s failed on span %s", check.name, ctx.span.span_id)
            return _failed(check.name, exc)

    def _failure(self, span: SpanRecord, exc: Exception) -> Outcome:
        result = _failed("output", exc)
        identity = Identity("unknown", None, None, None)
        return Outcome(span, identity, "audit", (result,), False, _time(span), evaluation_ids(span, (result,)))

    def _extractor(self, guarded: Mapping[str, Guarded]):
        text = next((g.text for g in guarded.values() if g.text is not None), None)

        def read(span: SpanRecord) -> Output | None:
            found = extract(span)
            return found if found is not None or text is None else Output(text, GUARD_SOURCE)

        return read

    # --- repeats of one output --------------------------------------------------------------------
    def _repeat(self, ctx: CheckContext, seen, guarded, key: tuple | None) -> Outcome | None:
        if key is None or guarded:
            return None
        first = seen.get(key)
        if first is None:
            return self._relay(ctx, seen, key)
        # Only an echo on the same line of descent (an agent span over its own LLM span) is
        # the same output; the same words from another LLM call are a new output. So is one
        # response written twice side by side: the anthropic SDK traces its own calls and an
        # instrumentation (OpenLLMetry) writes a sibling span for each, both with the response's id.
        # A chain run's output is never a new one: LangGraph's call_model step repeats the answer
        # of the LLM span beside it, not below it.
        related = (
            ctx.output.source in _RESTATING_SOURCES
            or ctx.trace.is_ancestor(ctx.span.span_id, first.span)
            or ctx.trace.is_ancestor(first.span.span_id, ctx.span)
            or _same_response(ctx.span, first.span)
        )
        if not related:
            return None
        return replace(first, span=ctx.span, duplicate_of=first.span.span_id, time=_time(ctx.span))

    def _relay(self, ctx: CheckContext, seen, key: tuple) -> Outcome | None:
        """An agent span that hands on, word for word, what another agent below it said (an Agno team whose
        member answers the user directly) relays that output, judged once, for the agent that said it, when
        the relaying agent is judged the same way (same mode and trust); else it is judged for its own rules."""
        first = seen.get(_relay_key(ctx, key))
        if first is None or not ctx.output.text.strip() or not ctx.trace.is_ancestor(ctx.span.span_id, first.span):
            return None
        return replace(first, span=ctx.span, duplicate_of=first.span.span_id, time=_time(ctx.span))

    def _remember(self, outcome: Outcome, ctx: CheckContext, seen, key: tuple | None) -> None:
        if key is not None:
            seen[key] = outcome
            seen[_relay_key(ctx, key)] = outcome
        if outcome.enforced and outcome.blocked_texts:
            texts, _ = self._blocked.get(outcome.span.trace_id, ((), ""))
            self._hold_blocked(outcome.span.trace_id, texts + outcome.blocked_texts, outcome.notice())
            block = (outcome.identity.agent_id, outcome.blocked_texts, outcome.notice(),
                     _span_ns(outcome.span) + _BLOCKED_CARRY_NS)  # fmt: skip
            self.carry_agent_block(*block)
            if self.on_agent_block is not None:
                self.on_agent_block(block)

    def carry_agent_block(self, agent: str, texts: tuple[str, ...], notice: str, until: int) -> None:
        """Keep an enforcing agent's blocked texts for redacting its later traces until `until` (ns): its own
        blocks, and those another worker process made (`on_agent_block` there)."""
        with self._agent_lock:
            held, _, held_until = self._blocked_by_agent.pop(agent, ((), "", 0))
            kept = (*held, *(t for t in texts if t not in held))[-_MAX_BLOCKED_PER_AGENT:]
            self._blocked_by_agent[agent] = (kept, notice, max(until, held_until))
            while len(self._blocked_by_agent) > _MAX_BLOCKED_AGENTS:
                self._blocked_by_agent.popitem(last=False)

    def _carry_blocked(self, ctx: CheckContext) -> None:
        """An agent's blocked texts follow it into its later traces: a client that makes every LLM call a
        trace of its own (OpenLLMetry's anthropic.chat and openai.chat spans are roots unless the app opens a
        span around them) sends the blocked turn back as history in the next call's input messages."""
        self._carry(ctx.identity.agent_id, ctx.span)

    def _carry_to_runtime_message(self, span: SpanRecord) -> None:
        """AutoGen's runtime delivers an agent's chat message to its team in a span of a trace of its own,
        the whole message in its `message` attribute: the sender's blocked texts follow it there."""
        sender = span.attributes.get(A.AUTOGEN_SENDER_AGENT_TYPE) if self._blocked_by_agent else None
        if isinstance(sender, str) and A.AUTOGEN_MESSAGE in span.attributes:
            self._carry(_AUTOGEN_TEAM_SUFFIX.sub("", sender), span)

    def _carry(self, agent_id: str, span: SpanRecord) -> None:
        earlier = self._blocked_by_agent.get(agent_id) if self._blocked_by_agent else None
        if earlier is None:
            return
        texts, notice, until = earlier
        if _span_ns(span) > until:  # a later conversation: the block's own is over
            self._blocked_by_agent.pop(agent_id, None)
            return
        held, held_notice = self._blocked.get(span.trace_id, ((), notice))
        new = tuple(t for t in texts if t not in held)
        if new:
            self._hold_blocked(span.trace_id, held + new, held_notice)

    def _hold_blocked(self, trace_id: str, texts: tuple[str, ...], notice: str) -> None:
        """Keep a trace's blocked texts for redacting its spans (the oldest traces go first when full)."""
        self._blocked[trace_id] = (texts, notice)
        while len(self._blocked) > _MAX_BLOCKED_TRACES:
            self._blocked.popitem(last=False)

    def blocked_in(self, trace_id: str) -> tuple[tuple[str, ...], str] | None:
        """(blocked texts, notice) of an enforced block in this trace, so every span of it is redacted."""
        return self._blocked.get(trace_id)

    # --- evaluations made by a claimwatch upstream -------------------------------------------------
    def _upstream(self, span: SpanRecord, trace: HeldTrace) -> Outcome:
        attrs = span.attributes
        names = attrs.get(A.CHECKS) or ("output",)
        results = tuple(
            CheckResult(str(n), str(attrs.get(f"claimwatch.{n}.verdict", attrs.get(A.VERDICT, "pass"))),
                        reason="evaluated upstream")
            for n in names
        )
        who = self._resolver(trace, {})(span)
        return Outcome(span, who[0], str(attrs.get(A.MODE, who[2])), results, bool(attrs.get(A.ENFORCED, False)),
                       _time(span), evaluation_ids(span, results), upstream=True)

    # --- who spoke ------------------------------------------------------------------------------
    def _resolver(self, trace: HeldTrace, guarded: Mapping[str, Guarded]):
        agent = next((g.agent_id for g in guarded.values() if g.agent_id), None)

        def resolve(span: SpanRecord) -> tuple[Identity, float | None, str]:
            identity = self.identify(span, trace.get, lambda: trace.before(span))
            if agent:
                identity = replace(identity, agent_id=agent)
            return identity, self.trust_for(identity), self.mode_for(identity)

        return resolve

    def identify(self, span: SpanRecord, ancestor=None, earlier=None) -> Identity:
        """Agent id, name and session from the span or its nearest ancestors in the trace; with `earlier`
        (the spans of the trace that ended before it, asked only when nothing above names the agent), a
        LlamaIndex agent workflow's agent from the step before."""
        agent_id = agent_name = session = trust = None
        agent_span_name = None  # an agent span's own name, when no attribute names the agent
        current: SpanRecord | None = span
        below: SpanRecord | None = None  # the span the walk came up from
        depth = 0
        while current is not None and depth < _MAX_DEPTH:
            attrs = current.attributes
            if _agent_id_names_the_agent(attrs):
                agent_id = agent_id or _str(attrs.get(A.GEN_AI_AGENT_ID))
            agent_name = agent_name or _str(attrs.get(A.GEN_AI_AGENT_NAME)) or _str(attrs.get(A.AGENT_NAME))
            # The Vercel AI SDK names the function a call serves (experimental_telemetry.functionId) on every span.
            agent_name = agent_name or _str(attrs.get(vercel.FUNCTION_ID))
            if agent_name is None and str(attrs.get(A.TRACELOOP_SPAN_KIND, "")).lower() == "agent":
                agent_name = _str(attrs.get(A.TRACELOOP_ENTITY_NAME))
            # OpenLLMetry's CrewAI task span sits above its agent's span and names the agent only here: read
            # as the process's agent, its repeat of the answer was judged again, and audited.
            agent_name = agent_name or _str(attrs.get(crewai.TASK_AGENT))
            if agent_span_name is None and current is not span:
                # A CrewAI coworker's run, traced by OpenInference inside the delegation tool's span: the
                # spans below it are the coworker's (the delegation call itself is the delegating agent's).
                agent_span_name = crewai.coworker(current)
            if agent_span_name is None:
                # OpenInference names an AGENT span after its agent when it starts, while some
                # frameworks set `agent.name` only when it ends, after its LLM calls were judged; a
                # LlamaIndex agent workflow step names it in the event it got (current_agent_name).
                agent_span_name = openinference_agent_name(current) or llamaindex_agent_name(current)
                # A Haystack Agent run as a pipeline component, or as another agent's tool, is named so.
                agent_span_name = agent_span_name or haystack.agent_name(current, below)
            session = session or _str(attrs.get(A.GEN_AI_CONVERSATION_ID)) or _str(attrs.get(A.SESSION_ID))
            trust = trust if trust is not None else _float(attrs.get(A.AGENT_TRUST))
            if agent_id and session and trust is not None:
                break
            parent = current.parent_span_id
            below, current = current, ancestor(parent) if (ancestor and parent) else None
            depth += 1
        if trust is None:
            trust = _float(span.resource.get(A.AGENT_TRUST))
        agent_name = agent_name or agent_span_name
        if agent_id is None and agent_name is None and earlier is not None:
            # LlamaIndex names its agent only in the events its steps hand on, and OpenLLMetry leaves the
            # step that calls the model without them: the step before it says which agent runs.
            agent_name = earlier_agent_name(earlier())
        resolved = agent_id or agent_name or span.service or "unknown"
        return Identity(resolved, agent_name, session, trust)

    def trust_for(self, identity: Identity) -> float | None:
        """Config rules first; the span's own trust attribute only when the config allows it."""
        rule = self._rule(identity, "trust")
        if rule is not None:
            return rule.trust
        if self.config.agents.trust_from_attributes and identity.trust_attribute is not None:
            return identity.trust_attribute
        return None  # the checks apply their defaults (validation.defaultTrust)

    def mode_for(self, identity: Identity) -> str:
        rule = self._rule(identity, "mode")
        return rule.mode if rule is not None else self.config.agents.default_mode

    def _rule(self, identity: Identity, field: str):
        for rule in self.config.agents.rules:
            if getattr(rule, field) is None:
                continue
            if matches(rule.match, identity.agent_id) or (identity.agent_name and matches(rule.match, identity.agent_name)):
                return rule
        return None

    # --- what the adapters apply ----------------------------------------------------------------
    def annotations(self, outcome: Outcome) -> tuple[dict[str, Any], list[EventRecord]]:
        """(attributes to merge, events to append) for the span; nothing for upstream evaluations."""
        if outcome.upstream or self.config.annotations.verbosity == "silent":
            return {}, []
        attrs: dict[str, Any] = {
            A.VERDICT: outcome.verdict,
            A.MODE: outcome.mode,
            A.ENFORCED: outcome.enforced,
            A.CHECKS: [r.check for r in outcome.results],
        }
        if outcome.duplicate_of is not None:
            attrs[A.DUPLICATE_OF] = outcome.duplicate_of
        events: list[EventRecord] = []
        at = outcome.span.end_ns or 0
        for r in outcome.results:
            attrs.update(r.attributes)
            attrs[f"claimwatch.{r.check}.verdict"] = r.verdict
            events.extend(r.events)
            events.append(EventRecord(A.EVALUATION_EVENT, self._evaluation_event(r), at))
        if outcome.enforced:
            events = _scrubbed(events, outcome.blocked_texts)
        return _clean(attrs), [e if _is_clean(e.attributes) else EventRecord(e.name, _clean(dict(e.attributes)), e.time_ns)
                               for e in events]

    def _evaluation_event(self, r: CheckResult) -> dict[str, Any]:
        out: dict[str, Any] = {
            A.EVALUATION_NAME: self._names.get(r.check, f"claimwatch.{r.check}"),
            A.EVALUATION_SCORE_LABEL: r.verdict,
            A.EVALUATION_EXPLANATION: r.reason or r.verdict,
        }
        if r.verdict in _SCORE:
            out[A.EVALUATION_SCORE_VALUE] = _SCORE[r.verdict]
        return out


def _failed(check: str, exc: Exception) -> CheckResult:
    """The fail-open result of a check that raised."""
    error = f"{type(exc).__name__}: {exc}"
    return CheckResult(check, "error_fallback", reason=f"error_fallback: {error}", error=error)


def _span_ns(span: SpanRecord) -> int:
    return span.end_ns or span.start_ns or 0


def _same_response(a: SpanRecord, b: SpanRecord) -> bool:
    """Both spans carry the provider's id of one model response (two spans of one call)."""
    response = a.attributes.get(A.GEN_AI_RESPONSE_ID)
    return isinstance(response, str) and response != "" and response == b.attributes.get(A.GEN_AI_RESPONSE_ID)


# Outputs read from a chain, task or agent run's output value: they restate what a model said.
_RESTATING_SOURCES = frozenset({A.TRACELOOP_ENTITY_OUTPUT})


def _repeat_key(ctx: CheckContext) -> tuple:
    # Stripped: an agent span may repeat the answer with a newline added (Strands' invoke_agent).
    return (ctx.span.trace_id, output_check.sha256(ctx.output.text.strip()), ctx.identity.agent_id, ctx.mode)


def _relay_key(ctx: CheckContext, key: tuple) -> tuple:
    """`_repeat_key`'s trace and output digest, for any agent judged with this mode and trust."""
    return ("relay", key[0], key[1], ctx.mode, ctx.trust)


def _evaluated_upstream(span: SpanRecord) -> bool:
    return A.VERDICT in span.attributes and A.MODE in span.attributes


def _scrubbed(events: list[EventRecord], blocked: tuple[str, ...]) -> list[EventRecord]:
    """Drop event attributes that quote a blocked output (matched text, claim text)."""
    def quotes(value: Any) -> bool:
        return isinstance(value, str) and len(value) > 3 and any(value in b or b in value for b in blocked)

    return [EventRecord(e.name, {k: v for k, v in e.attributes.items() if not quotes(v) or k.endswith(".reason")}, e.time_ns)
            for e in events]


def clean_text(value: str) -> str:
    """Text safe for protobuf, Arrow and JSON: lone surrogates become U+FFFD."""
    if value.isascii():
        return value
    try:
        value.encode("utf-8")
        return value
    except UnicodeEncodeError:
        return value.encode("utf-8", "surrogatepass").decode("utf-8", "replace")


def _clean(attrs: dict[str, Any]) -> dict[str, Any]:
    for key, value in attrs.items():
        kind = type(value)
        if kind is str:  # most values: an ASCII text needs nothing (a call to clean_text per value cost ~0.4 us)
            if not value.isascii():
                attrs[key] = clean_text(value)
        elif kind is bool or kind is int or kind is float:
            continue
        elif isinstance(value, str):
            attrs[key] = clean_text(value)
        elif isinstance(value, list | tuple):
            attrs[key] = [clean_text(v) if isinstance(v, str) else v for v in value]
    return attrs


def _is_clean(attrs: Mapping[str, Any]) -> bool:
    """`_clean` would leave this dict as it is (ASCII texts, numbers, lists of them): an event's attributes are
    then handed on as the check made them instead of copied (a copy per event was ~1 us of an LLM span each)."""
    if type(attrs) is not dict:
        return False
    for value in attrs.values():
        kind = type(value)
        if kind is str:
            if not value.isascii():
                return False
        elif kind is list:
            if not all(not isinstance(v, str) or v.isascii() for v in value):
                return False
        elif kind is not bool and kind is not int and kind is not float and isinstance(value, str | list | tuple):
            return False  # a subclass or a tuple: `_clean` makes a new value of it
    return True


def evaluation_ids(span: SpanRecord, results) -> tuple[str, ...]:
    """One id per result, the same every time this span is checked.

    A trace delivered twice (a Kafka redelivery, a replayed spool, an exporter's
    retry) gives the same ids, so the store can skip what it already holds. The
    span's name and end time are part of the key because a GenAI event log
    record shares the span id of the span it belongs to. A span without a trace
    id (a guard outside any trace) gets random ones. A log record (the collector
    makes it its own parent) has no id of its own and sibling choices of one
    span may share their time, so its content is part of the key too.
    """
    own_id = bool(span.span_id.strip("0"))
    if not span.trace_id.strip("0") or not (own_id or span.end_ns or span.start_ns):
        return tuple(uuid.uuid4().hex for _ in results)
    base = f"{span.trace_id}/{span.span_id}/{span.name}/{span.end_ns or span.start_ns}/"
    if not own_id or span.parent_span_id == span.span_id:  # a log record: with or without a span id
        base += hashlib.blake2b(repr(sorted(span.attributes.items())).encode(), digest_size=16).hexdigest() + "/"
    return tuple(hashlib.blake2b((base + r.check).encode(), digest_size=16).hexdigest() for r in results)


_EPOCH = datetime(1970, 1, 1)


def _time(span: SpanRecord) -> datetime:
    ended = span.end_ns or span.start_ns
    # Stored as naive UTC: DuckDB returns TIMESTAMPTZ only with pytz installed.
    if not ended:
        return datetime.now(UTC).replace(tzinfo=None)
    # What datetime.fromtimestamp(ended / 1e9, UTC) gives (the seconds' fraction rounded half to even to
    # microseconds, as CPython does), without the time zone and `replace`: 1.7 -> 1.0 us (positional
    # arguments: timedelta's keywords cost more than the conversion saves).
    fraction, whole = math.modf(ended / 1e9)
    return _EPOCH + timedelta(0, int(whole), round(fraction * 1e6))


# OpenInference calls every LangChain run whose name holds "agent" an AGENT span, so the model step
# of each LangGraph prebuilt agent (the node "agent") looked like an agent called "agent", and the
# rules for the real agent never matched (not enforced). The graph's own run, the one span whose
# metadata names no node, carries the name the agent was given (`create_react_agent(name=...)`).
_LANGGRAPH_STEPS = frozenset({"agent", "tools", "model"})  # prebuilt agents' node names
_LANGGRAPH_UNNAMED = "LangGraph"  # a graph's name when it was given none
# OpenInference names other frameworks' AGENT spans after the agent and the method it ran: smolagents
# "<agent>.run", AutoGen AgentChat "<agent>.on_messages_stream". Taken whole, the name matched no rule
# for the agent, so an enforcing agent was only audited. AutoGen's also carry the agent in graph.node.id.
_AGENT_METHOD_SUFFIXES = (".run", ".on_messages_stream")


def openinference_agent_name(span: SpanRecord) -> str | None:
    """The agent an OpenInference span names: an AGENT span's name, or a LangGraph graph run's; not a step's."""
    kind = str(span.attributes.get(A.OPENINFERENCE_SPAN_KIND, "")).upper()
    if kind not in ("AGENT", "CHAIN"):
        return None
    graph, node = _langgraph(span.attributes.get(A.OPENINFERENCE_METADATA))
    if not graph:
        return _agent_of_agent_span(span) if kind == "AGENT" else None
    if node is None:  # the graph's own run
        return None if span.name == _LANGGRAPH_UNNAMED else _str(span.name)
    return _str(span.name) if kind == "AGENT" and span.name not in _LANGGRAPH_STEPS else None


# Where gen_ai.agent.id holds a run's address, not an agent: OpenLLMetry writes LangChain's run id there,
# AutoGen its runtime's AgentId, "<name>_<team uuid>/<team uuid>" in a team, new for every team (an
# agent's rows scattered over ids no rule matches); both name the agent in gen_ai.agent.name.
_RUN_SCOPED_AGENT_ID_SYSTEMS = frozenset({"autogen"})


# AgentChat registers a team's agents with the runtime as "<name>_<team id>", the id a uuid4.
_AUTOGEN_TEAM_SUFFIX = re.compile(r"_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


# A bare UUID in gen_ai.agent.id beside a gen_ai.agent.name is an agent object's id, drawn anew each time the
# agent is built (Semantic Kernel's `Agent.id` defaults to uuid4, so does CrewAI's): read as the agent, each
# process run was an agent of its own that no rule names and no dashboard groups; the name is the agent.
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


def _agent_id_names_the_agent(attrs: Mapping[str, Any]) -> bool:
    if A.TRACELOOP_SPAN_KIND in attrs or attrs.get(A.GEN_AI_SYSTEM) in _RUN_SCOPED_AGENT_ID_SYSTEMS:
        return False
    agent_id = attrs.get(A.GEN_AI_AGENT_ID)
    return not (isinstance(agent_id, str) and _UUID.fullmatch(agent_id.strip()) and _str(attrs.get(A.GEN_AI_AGENT_NAME)))


def _agent_of_agent_span(span: SpanRecord) -> str | None:
    """The agent an OpenInference AGENT span is named after, without the method the framework adds."""
    node = _str(span.attributes.get(A.OPENINFERENCE_GRAPH_NODE))
    if node is not None:
        return node
    name = span.name
    for suffix in _AGENT_METHOD_SUFFIXES:
        if name.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return _str(name)


def _langgraph(metadata: Any) -> tuple[bool, str | None]:
    """(is this a LangGraph run?, the node it ran) from OpenInference's `metadata` JSON."""
    if not isinstance(metadata, str) or "langgraph" not in metadata:
        return False, None
    try:
        decoded = json.loads(metadata)
    except ValueError:
        return False, None
    if not isinstance(decoded, Mapping) or decoded.get("ls_integration") != "langgraph":
        return False, None
    return True, _str(decoded.get("langgraph_node"))


def _str(value: Any) -> str | None:
    return str(value) if value not in (None, "") else None


def _float(value: Any) -> float | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None
