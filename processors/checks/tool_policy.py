"""The tool_policy check (issue 11): what the tool-call policy would have decided, for every call seen.

It reads tool executions (`execute_tool` spans: GenAI `gen_ai.tool.name` /
`gen_ai.tool.call.arguments` / `gen_ai.tool.call.id`; OpenInference TOOL spans
`tool.name` with `input.value` or `tool.parameters`; OpenLLMetry tool spans
`traceloop.entity.input`; the Vercel AI SDK's `ai.toolCall` spans) and the tool calls an LLM asked for
(`gen_ai.output.messages` parts and the other output conventions), runs the
policy engine on each and records the decision, so a team can run audit-only
first and see what enforcement would block.

Verdicts: a `block` decision gives verdict block (severity from the rule,
medium for allowlist and escalation blocks); `dry_run` gives flag (severity
low: the call would have been stubbed, nothing was wrong with it); allow gives
pass. The span is after the fact, so nothing is redacted (`blocked_texts`
stays empty): enforcement for tools happens before the call, in `guard_tool`
or `claimwatch policy hook`. Escalation counts only executions: a call the LLM
asked for and its `execute_tool` span are one call, counted once.

One call, one decision in the counts: a traced call shows as the LLM's request
(its output's tool call) and as its execution (the tool span). Each sighting
keeps its span annotations (the tool span still says the policy would block
it) and its decision row, with the call's id and one `finding_key` (check,
trace, call id) shared by the call's decision rows and findings. The store
keeps the first violation per key and marks a later decision row `repeated`;
the policy queries skip repeated rows. A tool span without an id
(OpenInference TOOL spans have none unless `tool.id` is set) takes the id of
the latest request for the same tool with the same arguments in its trace. A
call without any id (older clients) counts once per sighting, as before. The
scope is the trace, not the session: some servers number calls per response
(call_1, call_2, ...), so one session's runs reuse ids. A hook's decision is
recorded in a trace of its own (a hook knows no trace id), so it and the
call's spans count apart; escalation still counts the call once.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from dataclasses import replace
from typing import Any

from ..otel.extract import extract, may_carry_output
from ..otel.extract_adk import client_call_id, is_adk
from ..otel.records import EventRecord, SpanRecord
from ..policy.config import ToolPolicyConfig, settings_beside_store
from ..policy.engine import Decision, PolicyEngine
from ..verify.actions import requested_arguments, tool_call_of_span
from .base import CheckContext, CheckResult, CheckSpec, Finding, Migration, own_table, worst

NAME = "tool_policy"
PREFIX = "claimwatch.tool_policy"
DECISION_EVENT = f"{PREFIX}.decision"
_TOOL_KEYS = frozenset({"gen_ai.tool.name", "tool.name", "traceloop.span.kind", "openinference.span.kind",
                        "ai.toolCall.name", "haystack.tool.name"})
_VERDICT = {"block": "block", "dry_run": "flag", "allow": "pass"}
_MAX_CALLS_PER_SPAN = 64
# OpenInference's id on a TOOL span ("the identifier for the result of the tool call"), rarely set.
OPENINFERENCE_TOOL_ID = "tool.id"
# How far back a tool span without an id looks, among the LLM outputs its trace holds, for the one that
# asked for it when no request seen before matches (spans out of order): the request is normally the last
# output before the execution, but a tool that runs an agent has LLM spans of its own.
_REQUESTS_SCANNED = 8
# Recent requests remembered by (trace, tool), and calls kept per pair, for executions that arrive late.
_REMEMBERED = 20_000
_PER_TOOL = 8

MIGRATIONS = (
    Migration(
        1,
        "tool_policy_decisions",
        own_table(
            "tool_policy_decisions",
            """
            source VARCHAR,          -- execute_tool | llm_output
            tool_name VARCHAR,
            tool_call_id VARCHAR,
            risk_tier VARCHAR,       -- T0 | T1 | T2
            step VARCHAR,            -- kill_switch | dry_run | deny_pattern | essential_t0 | allowlist | escalation | default
            decision VARCHAR,        -- allow | block | dry_run
            would_block BOOLEAN,     -- block, whatever the mode (audit mode: what enforcement would do)
            rule_id VARCHAR,
            param VARCHAR,
            category VARCHAR,
            severity VARCHAR,
            normalisation VARCHAR,   -- the chain that exposed the match: base64, homoglyph, list+shell -c, ...
            profile VARCHAR,         -- strict | standard | lenient | disabled
            blocked_count INTEGER,   -- the session's blocked calls after this one
            reason VARCHAR,
            matched_text VARCHAR,    -- the normalised text the rule matched (storage.storeMatchedText)
            evaluation_us DOUBLE
            """,
        )
        + "; "
        + 'CREATE INDEX tool_policy_decisions_time ON tool_policy_decisions (time)',
    ),
    Migration(
        2,
        "one decision per tool call in the counts",
        # finding_key: the call's key (trace, call id), as on its violation; repeated: the store marks a
        # later sighting of a call already stored (its tool span after its request), which queries skip.
        "ALTER TABLE tool_policy_decisions ADD COLUMN finding_key VARCHAR; "
        "ALTER TABLE tool_policy_decisions ADD COLUMN repeated BOOLEAN",
    ),
)


class ToolPolicyCheck:
    """Runs the policy engine over the tool calls on a span."""

    name = NAME

    def __init__(self, engine: PolicyEngine, store_matched_text: bool = True) -> None:
        self.engine = engine
        self.store_matched_text = store_matched_text
        self.requests = RequestedCalls()

    def wants(self, span: SpanRecord) -> bool:
        """Tool spans of any convention, and spans that may carry an LLM's tool calls."""
        keys = span.attributes.keys()
        return not _TOOL_KEYS.isdisjoint(keys) or may_carry_output(span)

    def run(self, ctx: CheckContext) -> CheckResult | None:
        """One decision per tool call on the span; None when it has none. Never raises."""
        try:
            calls = self._calls(ctx)
            if not calls:
                return None
            return self._result(ctx, [(c, self._decide(ctx, c)) for c in calls[:_MAX_CALLS_PER_SPAN]])
        except Exception as exc:  # per-span work never raises: fail open, say why
            return CheckResult(NAME, "pass", reason=f"error_fallback: {type(exc).__name__}",
                               error=f"{type(exc).__name__}: {exc}")

    def reuse(self, result: CheckResult, ctx: CheckContext) -> CheckResult:
        """A decision already taken for this call (a hook asked the collector): rendered, not re-decided."""
        decided = result.detail.get("hook") if isinstance(result.detail, dict) else None
        return self._result(ctx, [decided]) if decided else result

    def _calls(self, ctx: CheckContext) -> list[tuple[str, str, Any, str | None]]:
        """(source, tool, arguments, call id) for the executed tool on this span, else the LLM's requested calls."""
        executed = tool_call_of_span(ctx.span)
        if executed is not None:
            tool, arguments, _, _, call_id = executed
            if arguments is None and call_id:
                # The anthropic SDK's tool spans carry no arguments unless it records content: the call ran with
                # those the LLM asked for under its id.
                arguments = requested_arguments(ctx.trace.before(ctx.span)).get(call_id)
            call_id = call_id or _str(ctx.span.attributes.get(OPENINFERENCE_TOOL_ID))
            if client_call_id(call_id):  # ADK named the call after the model's output did: one call, its id
                call_id = self.requests.id_of(ctx, tool, arguments) or call_id
            return [("execute_tool", tool, arguments, call_id or self.requests.id_of(ctx, tool, arguments))]
        output = ctx.output
        if output is None or not output.tool_calls:
            return []
        calls = output.tool_calls
        if is_adk(ctx.span.attributes):  # ADK's legacy call_llm span ends after the tools it asked for ran
            calls = tuple(replace(c, id=_executed_as(ctx, c) or c.id) for c in calls)
        self.requests.add(ctx.span.trace_id, calls)
        return [("llm_output", c.name, c.arguments, c.id) for c in calls]

    def _decide(self, ctx: CheckContext, call: tuple) -> Decision:
        source, tool, arguments, call_id = call
        who = ctx.identity
        session = who.session_id or ctx.span.trace_id
        return self.engine.decide(tool, arguments, agent=who.agent_id, session=session, trust=ctx.trust,
                                  mode=ctx.mode, count=source == "execute_tool", call_id=call_id)

    def _result(self, ctx: CheckContext, decided: list[tuple[tuple, Decision]]) -> CheckResult:
        verdicts = [_VERDICT[d.decision] for _, d in decided]
        verdict = worst(verdicts)
        findings = tuple(self._finding(ctx, c, d) for c, d in decided if d.decision != "allow")
        worst_decision = next((d for _, d in decided if _VERDICT[d.decision] == verdict), decided[0][1])
        return CheckResult(
            check=NAME,
            verdict=verdict,
            findings=findings,
            severity=max((f.severity for f in findings), key=_SEVERITY_RANK.index, default="info"),
            reason=f"{worst_decision.tool}: {worst_decision.reason}",
            block_reason=f"the tool-call policy blocks {worst_decision.tool}" if verdict == "block" else "",
            evaluation_us=sum(d.evaluation_us for _, d in decided),
            attributes=self._attributes(ctx, worst_decision, len(decided)),
            events=self._events(ctx, decided),
            rows={"tool_policy_decisions": [self._row(ctx, c, d) for c, d in decided]},
            detail=[d for _, d in decided],
        )

    def _finding(self, ctx: CheckContext, call: tuple, d: Decision) -> Finding:
        severity = "low" if d.decision == "dry_run" else _severity(d)
        key = finding_key(ctx.span.trace_id, call[3])
        return Finding(
            check=NAME, verdict=_VERDICT[d.decision], severity=severity, reason=f"{d.tool}: {d.reason}",
            span_id=ctx.span.span_id,
            columns={
                "action": _VERDICT[d.decision], "category": d.category or d.step, "subject": d.tool,
                "detector_id": d.rule, "assertion": d.step,
                "matched_text": d.matched if self.store_matched_text else None, "finding_key": key,
            },
        )

    def _row(self, ctx: CheckContext, call: tuple, d: Decision) -> dict[str, Any]:
        source, tool, _, call_id = call
        return {
            "source": source, "tool_name": tool, "tool_call_id": call_id,
            "finding_key": finding_key(ctx.span.trace_id, call_id), "risk_tier": d.risk_tier,
            "step": d.step, "decision": d.decision, "would_block": d.would_block, "rule_id": d.rule,
            "param": d.param, "category": d.category, "severity": _severity(d) if d.would_block else d.severity,
            "normalisation": d.normalisation, "profile": d.profile, "blocked_count": d.blocked_count,
            "reason": d.reason, "matched_text": d.matched if self.store_matched_text else None,
            "evaluation_us": round(d.evaluation_us, 1),
        }

    def _attributes(self, ctx: CheckContext, d: Decision, calls: int) -> dict[str, Any]:
        if ctx.verbosity == "silent":
            return {}
        attrs: dict[str, Any] = {
            f"{PREFIX}.decision": d.decision, f"{PREFIX}.step": d.step, f"{PREFIX}.risk_tier": d.risk_tier,
            f"{PREFIX}.would_block": d.would_block, f"{PREFIX}.calls": calls,
        }
        for key, value in (("rule", d.rule), ("param", d.param), ("normalisation", d.normalisation)):
            if value:
                attrs[f"{PREFIX}.{key}"] = value
        if ctx.verbosity == "debug" and d.matched:
            attrs[f"{PREFIX}.matched_text"] = d.matched
        return attrs

    def _events(self, ctx: CheckContext, decided) -> tuple[EventRecord, ...]:
        if ctx.verbosity == "silent":
            return ()
        events = []
        for _, d in decided:
            if d.decision == "allow" and ctx.verbosity != "debug":
                continue
            attrs = {f"{PREFIX}.tool": d.tool, f"{PREFIX}.decision": d.decision, f"{PREFIX}.step": d.step,
                     f"{PREFIX}.reason": d.reason}
            if d.rule:
                attrs[f"{PREFIX}.rule"] = d.rule
            events.append(EventRecord(DECISION_EVENT, attrs, ctx.span.end_ns))
        return tuple(events)


_SEVERITY_RANK = ("info", "low", "medium", "high", "critical")


def _severity(d: Decision) -> str:
    return d.severity if d.severity in _SEVERITY_RANK and d.severity != "info" else "medium"


class RequestedCalls:
    """The ids LLMs gave the calls they asked for, to name an execution whose span carries none
    (OpenInference TOOL spans). Recent requests are remembered by (trace, tool) because the collector
    releases a trace `decisionWaitMs` after its first span, and an exporter's next batch often brings
    the execution later; the trace the adapter holds is read when none matches (spans out of order)."""

    def __init__(self, limit: int = _REMEMBERED) -> None:
        # (trace, tool) -> ((fingerprint of the arguments, call id), ...), oldest first; no arguments are
        # kept: a call writing a file can carry megabytes.
        self._recent: OrderedDict[tuple[str, str], tuple[tuple[bytes, str], ...]] = OrderedDict()
        self._lock = threading.Lock()  # the SDK processor checks spans on the threads that end them
        self._limit = limit

    def add(self, trace_id: str, calls) -> None:
        """Remember the calls of one LLM output that have an id."""
        with self._lock:
            for call in calls:
                if call.id:
                    key = (trace_id, call.name)
                    kept = self._recent.pop(key, ())[1 - _PER_TOOL:]
                    self._recent[key] = (*kept, (_fingerprint(call.arguments), call.id))
            while len(self._recent) > self._limit:
                self._recent.popitem(last=False)

    def id_of(self, ctx: CheckContext, tool: str, arguments: Any) -> str | None:
        """The id of the latest earlier request for this tool with these arguments in the span's trace."""
        wanted = _fingerprint(arguments)
        return self._remembered(ctx.span.trace_id, tool, wanted) or _in_trace(ctx, tool, wanted)

    def _remembered(self, trace_id: str, tool: str, wanted: bytes) -> str | None:
        with self._lock:
            known = self._recent.get((trace_id, tool), ())
        return next((call_id for fingerprint, call_id in reversed(known) if fingerprint == wanted), None)


def _in_trace(ctx: CheckContext, tool: str, wanted: bytes) -> str | None:
    """The id of the latest request for the call among the LLM outputs that ended before the span."""
    scanned = 0
    for span in reversed(ctx.trace.before(ctx.span)):
        output = extract(span) if may_carry_output(span) else None
        if output is None or not output.tool_calls:
            continue
        for call in output.tool_calls:
            if call.id and call.name == tool and _fingerprint(call.arguments) == wanted:
                return call.id
        scanned += 1
        if scanned >= _REQUESTS_SCANNED:
            return None
    return None


def _executed_as(ctx: CheckContext, call) -> str | None:
    """The id ADK gave the execution of a requested call that ended before the request's span (its own
    `adk-` id: the model gave none), so both sightings are one call."""
    wanted = None
    for span in reversed(ctx.trace.before(ctx.span)):
        executed = tool_call_of_span(span)
        if executed is None or executed[0] != call.name or not client_call_id(executed[4]):
            continue
        wanted = _fingerprint(call.arguments) if wanted is None else wanted
        if _fingerprint(executed[1]) == wanted:
            return executed[4]
    return None


def _fingerprint(arguments: Any) -> bytes:
    """Arguments as one comparable digest: a request's JSON string and a tool span's input differ in spacing,
    and a tool of one argument may be traced with its value alone (LangChain under OpenInference: input.value
    "K7QX2" for the request's {"code": "K7QX2"})."""
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            arguments = arguments.strip()
    if isinstance(arguments, dict) and len(arguments) == 1:
        (arguments,) = arguments.values()
    text = _CANONICAL_JSON.encode(arguments)
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


# Built once: json.dumps with options builds an encoder per call, half the cost of a fingerprint.
_CANONICAL_JSON = json.JSONEncoder(sort_keys=True, ensure_ascii=False, default=str)


def _str(value: Any) -> str | None:
    return str(value) if value not in (None, "") else None


def finding_key(trace_id: str, call_id: str | None) -> str | None:
    """The key every sighting of one call in a trace gives its finding, so the store keeps one violation
    per call; None without a call id."""
    if not call_id:
        return None
    return hashlib.blake2b(f"{NAME}/{trace_id}/{call_id}".encode(), digest_size=16).hexdigest()


def hook_result(decision: Decision, call_id: str | None) -> CheckResult:
    """A pre-tool hook's decision as a result the pipeline reuses for its record (see `reuse`)."""
    call = ("hook", decision.tool, None, call_id)
    return CheckResult(NAME, _VERDICT[decision.decision], detail={"hook": (call, decision)})


def _build(section: ToolPolicyConfig, config) -> ToolPolicyCheck:
    engine = PolicyEngine(settings_beside_store(section, config))
    return ToolPolicyCheck(engine, store_matched_text=config.storage.store_matched_text)


CHECK = CheckSpec(
    name=NAME,
    description="tool calls judged by the tool-call policy (deny patterns, tiers, allowlists, escalation)",
    config_model=ToolPolicyConfig,
    factory=_build,
    migrations=MIGRATIONS,
    attribute_prefix=PREFIX,
)
