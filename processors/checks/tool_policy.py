"""The tool_policy check (issue 11): what the tool-call policy would have decided, for every call seen.

It reads tool executions (`execute_tool` spans: GenAI `gen_ai.tool.name` /
`gen_ai.tool.call.arguments` / `gen_ai.tool.call.id`; OpenInference TOOL spans
`tool.name` with `input.value` or `tool.parameters`; OpenLLMetry tool spans
`traceloop.entity.input`) and the tool calls an LLM asked for
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
"""

from __future__ import annotations

from typing import Any

from ..otel.extract import may_carry_output
from ..otel.records import EventRecord, SpanRecord
from ..policy.config import ToolPolicyConfig, settings_beside_store
from ..policy.engine import Decision, PolicyEngine
from ..verify.actions import requested_arguments, tool_call_of_span
from .base import CheckContext, CheckResult, CheckSpec, Finding, Migration, own_table, worst

NAME = "tool_policy"
PREFIX = "claimwatch.tool_policy"
DECISION_EVENT = f"{PREFIX}.decision"
_TOOL_KEYS = frozenset({"gen_ai.tool.name", "tool.name", "traceloop.span.kind", "openinference.span.kind"})
_VERDICT = {"block": "block", "dry_run": "flag", "allow": "pass"}
_MAX_CALLS_PER_SPAN = 64

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
)


class ToolPolicyCheck:
    """Runs the policy engine over the tool calls on a span."""

    name = NAME

    def __init__(self, engine: PolicyEngine, store_matched_text: bool = True) -> None:
        self.engine = engine
        self.store_matched_text = store_matched_text

    def wants(self, span: SpanRecord) -> bool:
        """Tool spans of any convention, and spans that may carry an LLM's tool calls."""
        keys = span.attributes.keys()
        return not _TOOL_KEYS.isdisjoint(keys) or may_carry_output(span)

    def run(self, ctx: CheckContext) -> CheckResult | None:
        """One decision per tool call on the span; None when it has none. Never raises."""
        try:
            calls = _calls(ctx)
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
            rows={"tool_policy_decisions": [self._row(c, d) for c, d in decided]},
            detail=[d for _, d in decided],
        )

    def _finding(self, ctx: CheckContext, call: tuple, d: Decision) -> Finding:
        severity = "low" if d.decision == "dry_run" else _severity(d)
        return Finding(
            check=NAME, verdict=_VERDICT[d.decision], severity=severity, reason=f"{d.tool}: {d.reason}",
            span_id=ctx.span.span_id,
            columns={
                "action": _VERDICT[d.decision], "category": d.category or d.step, "subject": d.tool,
                "detector_id": d.rule, "assertion": d.step,
                "matched_text": d.matched if self.store_matched_text else None,
            },
        )

    def _row(self, call: tuple, d: Decision) -> dict[str, Any]:
        source, tool, _, call_id = call
        return {
            "source": source, "tool_name": tool, "tool_call_id": call_id, "risk_tier": d.risk_tier,
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


def _calls(ctx: CheckContext) -> list[tuple[str, str, Any, str | None]]:
    """(source, tool, arguments, call id) for the executed tool on this span, else the LLM's requested calls."""
    executed = tool_call_of_span(ctx.span)
    if executed is not None:
        tool, arguments, _, _, call_id = executed
        if arguments is None and call_id:
            # The anthropic SDK's tool spans carry no arguments unless it records content: the call ran with
            # those the LLM asked for under its id.
            arguments = requested_arguments(ctx.trace.before(ctx.span)).get(call_id)
        return [("execute_tool", tool, arguments, call_id)]
    output = ctx.output
    if output is None or not output.tool_calls:
        return []
    return [("llm_output", c.name, c.arguments, None) for c in output.tool_calls]


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
