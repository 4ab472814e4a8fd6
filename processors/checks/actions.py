"""The actions check (issue 13): did the agent do what it says it did?

Three levels over one span, each optional: the output matches its agent's
schema (level 1); tool results match their tool's schema (level 2, run on
`execute_tool` spans and on the new tool results in an LLM span's input);
claims of done work in the output are graded against the actions before it
in the same trace (level 3): `execute_tool` spans that ended earlier and the
tool calls in the span's own `gen_ai.input.messages`.

Verdicts (blocking is opt-in through `blockOn`):
- a `contradicted` claim flags, severity high;
- an `unverified` claim flags (severity low) when the trace shows no such
  action and the agent's trust is below `unverifiedFlagBelowTrust` (default
  40: the untrusted and restricted tiers); above it, or when the trace was
  cut (`trace_incomplete`) or the outcome is not shown (`outcome_unknown`),
  it passes and is kept in `action_findings` only;
- a structure error flags (medium); a tool result that breaks its schema
  flags (low) and names the tool, since the tool, not the agent, is at fault.
"""

from __future__ import annotations

from typing import Any

from ..core.config import ClaimwatchConfig
from ..otel.extract import may_carry_output
from ..otel.records import EventRecord, SpanRecord
from ..verify import actions as V
from ..verify.config import ActionsConfig
from ..verify.grade import CONTRADICTED, UNVERIFIED
from ..verify.timeline import TraceActions
from ..verify.verifier import CLAIMS, STRUCTURE, TOOL_RESULT, Verification, Verifier, VerifyFinding
from .base import CheckContext, CheckResult, CheckSpec, Finding, Migration, own_table, worst

NAME = "actions"
PREFIX = "claimwatch.actions"
FINDING_EVENT = f"{PREFIX}.finding"
_TOOL_KEYS = frozenset({V.GEN_AI_TOOL_NAME, V.OI_TOOL_NAME, V.TRACELOOP_SPAN_KIND, V.vercel.TOOL_CALL_NAME,
                        V.haystack.TOOL_NAME})
_SEVERITY = {STRUCTURE: "medium", TOOL_RESULT: "low"}
_BLOCK_KEY = {STRUCTURE: "structure", TOOL_RESULT: "tool_result"}
_LEVEL_NAMES = {STRUCTURE: "structure", TOOL_RESULT: "tool_result", CLAIMS: "claims"}

MIGRATIONS = (
    Migration(
        1,
        "action_checks and action_findings",
        own_table(
            "action_checks",
            """

            level INTEGER,          -- 1 structure, 2 tool results, 3 action claims
            passed BOOLEAN,
            problems INTEGER,
            claims INTEGER,         -- level 3: claims graded
            verified INTEGER,
            unverified INTEGER,
            contradicted INTEGER,
            evaluation_us DOUBLE
            """,
        )
        + "; "
        + own_table(
            "action_findings",
            """

            level INTEGER,
            category VARCHAR,        -- missing_field, invalid_type, schema_mismatch, tests_failed, verified, ...
            grade VARCHAR,           -- level 3: verified | unverified | contradicted
            verdict VARCHAR,         -- what this finding did to the span: pass | flag | block
            claim_kind VARCHAR,      -- file_edit, tests, install, ...
            subject VARCHAR,         -- path, package or test target
            claim_text VARCHAR,
            pattern_id VARCHAR,
            json_path VARCHAR,       -- levels 1 and 2
            tool_name VARCHAR,       -- level 2: the tool whose result broke its schema
            evidence_index INTEGER,  -- the action that decided the grade
            evidence_span_id VARCHAR,
            reason VARCHAR
            """,
        )
        + "; "
        + 'CREATE INDEX action_findings_time ON action_findings (time)'
        + "; "
        + 'CREATE INDEX action_checks_time ON action_checks (time)',
    ),
)


class ActionsCheck:
    """Structure, tool-result and action-claim verification on one span."""

    name = NAME

    def __init__(self, config: ActionsConfig, default_trust: float = 50.0, store_claim_text: bool = True) -> None:
        self.config = config
        self.verifier = Verifier(config)
        self.trace_actions = TraceActions()  # what earlier tool spans did, kept between outputs
        self.default_trust = default_trust
        self.store_claim_text = store_claim_text

    def wants(self, span: SpanRecord) -> bool:
        if may_carry_output(span):
            return True
        return self.verifier.registry.has_tools and not _TOOL_KEYS.isdisjoint(span.attributes.keys())

    def run(self, ctx: CheckContext) -> CheckResult | None:
        try:
            return self._run(ctx)
        except Exception as exc:  # per-span work never raises: fail open, say why
            return CheckResult(NAME, "pass", reason=f"error_fallback: {type(exc).__name__}", error=f"{type(exc).__name__}: {exc}")

    def _run(self, ctx: CheckContext) -> CheckResult | None:
        span = ctx.span
        call = V.tool_call_of_span(span)
        if call is not None:
            return self._tool_span(ctx, call)
        output = ctx.output
        if output is None or not output.text.strip():
            return None
        # The input conversation's new tool results are level 2's only when a tool has a result schema.
        inputs = V.input_conversation(span) if self.verifier.registry.has_tools else None
        result = self.verifier.verify(
            output.text,
            agent=ctx.identity.agent_id,
            actions=lambda: self.trace_actions.timeline(ctx.trace.before(span), span),
            tool_results=V.latest_turn_results(inputs) if inputs is not None else (),
        )
        if not result.levels:
            return None
        return self._result(ctx, result, output.text)

    def _tool_span(self, ctx: CheckContext, call) -> CheckResult | None:
        tool, args, value, status, _ = call
        if self.verifier.registry.for_tool(tool) is None or value is None:
            return None
        action = V.Action(0, tool, args, value, status, ctx.span.span_id)
        result = self.verifier.verify("", actions=(), tool_results=(action,))
        return self._result(ctx, result, None) if result.levels else None

    def _result(self, ctx: CheckContext, r: Verification, text: str | None) -> CheckResult:
        trust = ctx.trust if ctx.trust is not None else self.default_trust
        decided = [(f, self._verdict(f, trust)) for f in r.findings]
        findings = tuple(self._finding(f, verdict, ctx) for f, verdict in decided if verdict != "pass")
        verdict = worst([v for _, v in decided])
        contradicted = sum(1 for g in r.grades if g.grade == CONTRADICTED)
        unverified = sum(1 for g in r.grades if g.grade == UNVERIFIED)
        return CheckResult(
            check=NAME,
            verdict=verdict,
            findings=findings,
            severity=max((f.severity for f in findings), key=("info", "low", "medium", "high").index, default="info"),
            reason=_explain(verdict, decided, r),
            block_reason="it reports work the trace does not show" if verdict == "block" else "",
            evaluation_us=r.evaluation_us,
            attributes=self._attributes(ctx, r, contradicted, unverified),
            events=self._events(ctx, decided),
            rows={"action_checks": self._level_rows(r, contradicted, unverified),
                  "action_findings": self._finding_rows(r, decided)},
            blocked_texts=(ctx.output.blocked_forms if ctx.output is not None else (text,)) if verdict == "block" and text else (),
            detail=r,
        )

    def _verdict(self, f: VerifyFinding, trust: float) -> str:
        blocks = self.config.block_on
        if f.level in _BLOCK_KEY:
            return "block" if _BLOCK_KEY[f.level] in blocks else "flag"
        if f.grade == CONTRADICTED:
            return "block" if "contradicted" in blocks else "flag"
        # Only "the trace shows no such action" accuses; a cut trace or an unreadable outcome does not.
        if f.grade == UNVERIFIED and f.category == "no_matching_action" and trust < self.config.unverified_flag_below_trust:
            return "block" if "unverified" in blocks else "flag"
        return "pass"

    def _finding(self, f: VerifyFinding, verdict: str, ctx: CheckContext) -> Finding:
        claim = f.claim
        return Finding(
            check=NAME,
            verdict=verdict,
            severity=_severity(f),
            reason=f.reason,
            span_id=ctx.span.span_id,
            columns={
                "action": verdict,
                "category": f.category,
                "subject": f.tool if f.level == TOOL_RESULT else (claim.subject if claim else f.path),
                "assertion": claim.kind if claim else _LEVEL_NAMES[f.level],
                "detector_id": claim.pattern_id if claim else None,
                "claim_offset": claim.offset if claim and claim.offset >= 0 else None,
                "matched_text": claim.text if claim and self.store_claim_text else None,
            },
        )

    def _attributes(self, ctx: CheckContext, r: Verification, contradicted: int, unverified: int) -> dict[str, Any]:
        if ctx.verbosity == "silent":
            return {}
        attrs: dict[str, Any] = {f"{PREFIX}.valid": r.valid, f"{PREFIX}.evaluation_us": round(r.evaluation_us, 1)}
        for level in r.levels:
            attrs[f"{PREFIX}.{_LEVEL_NAMES[level.level]}.problems"] = level.problems
        if r.grades:
            attrs[f"{PREFIX}.claims.count"] = len(r.grades)
            attrs[f"{PREFIX}.claims.contradicted"] = contradicted
            attrs[f"{PREFIX}.claims.unverified"] = unverified
        return attrs

    def _events(self, ctx: CheckContext, decided) -> tuple[EventRecord, ...]:
        if ctx.verbosity == "silent":
            return ()
        at = ctx.span.end_ns or 0
        out = []
        for f, verdict in decided:
            attrs = {f"{PREFIX}.level": f.level, f"{PREFIX}.category": f.category, f"{PREFIX}.verdict": verdict,
                     f"{PREFIX}.reason": f.reason}
            if f.tool:
                attrs[f"{PREFIX}.tool"] = f.tool
            if f.path:
                attrs[f"{PREFIX}.json_path"] = f.path
            if f.claim is not None:
                attrs[f"{PREFIX}.claim.kind"] = f.claim.kind
                attrs[f"{PREFIX}.grade"] = f.grade
                if f.claim.subject:
                    attrs[f"{PREFIX}.claim.subject"] = f.claim.subject
                if ctx.verbosity == "debug":
                    attrs[f"{PREFIX}.claim.text"] = f.claim.text
            if f.evidence_span_id:
                attrs[f"{PREFIX}.evidence_span_id"] = f.evidence_span_id
            out.append(EventRecord(FINDING_EVENT, attrs, at))
        return tuple(out)

    def _level_rows(self, r: Verification, contradicted: int, unverified: int) -> list[dict[str, Any]]:
        rows = []
        for level in r.levels:
            row = {"level": level.level, "passed": level.passed, "problems": level.problems,
                   "evaluation_us": level.evaluation_us, "claims": None, "verified": None,
                   "unverified": None, "contradicted": None}
            if level.level == CLAIMS:
                row.update(claims=len(r.grades), verified=len(r.grades) - contradicted - unverified,
                           unverified=unverified, contradicted=contradicted)
            rows.append(row)
        return rows

    def _finding_rows(self, r: Verification, decided) -> list[dict[str, Any]]:
        verdicts = {id(f.claim): v for f, v in decided if f.claim is not None}
        rows = [_row(f, v) for f, v in decided if f.claim is None]
        for g in r.grades:  # every graded claim, verified ones too: the denominator of the claim metrics
            c = g.claim
            rows.append({
                "level": CLAIMS, "category": g.category, "grade": g.grade, "verdict": verdicts.get(id(c), "pass"),
                "claim_kind": c.kind, "subject": c.subject, "claim_text": c.text[:300] if self.store_claim_text else None,
                "pattern_id": c.pattern_id, "json_path": None, "tool_name": None, "evidence_index": g.evidence,
                "evidence_span_id": g.evidence_span_id, "reason": g.reason,
            })
        return rows


def _row(f: VerifyFinding, verdict: str) -> dict[str, Any]:
    return {"level": f.level, "category": f.category, "grade": None, "verdict": verdict, "claim_kind": None,
            "subject": f.tool, "claim_text": None, "pattern_id": None, "json_path": f.path, "tool_name": f.tool,
            "evidence_index": f.evidence, "evidence_span_id": f.evidence_span_id, "reason": f.reason}


def _severity(f: VerifyFinding) -> str:
    if f.grade == CONTRADICTED:
        return "high"
    return _SEVERITY.get(f.level, "low")


def _explain(verdict: str, decided, r: Verification) -> str:
    problems = [f for f, v in decided if v != "pass"]
    if not problems:
        return f"{verdict}: {len(r.grades)} claim(s) graded, no problem at the levels that ran"
    first = max(problems, key=lambda f: (f.grade == CONTRADICTED, f.level != CLAIMS))
    more = f" (+{len(problems) - 1} more)" if len(problems) > 1 else ""
    return f"{verdict}: level {first.level} {first.category}: {first.reason}{more}"


def _build(section: ActionsConfig, config: ClaimwatchConfig) -> ActionsCheck:
    store = getattr(getattr(config, "storage", None), "store_matched_text", True)
    return ActionsCheck(section, default_trust=config.validation.default_trust, store_claim_text=store)


CHECK = CheckSpec(
    name=NAME,
    description="structured output, tool-result schemas and action claims verified against the trace",
    config_model=ActionsConfig,
    factory=_build,
    migrations=MIGRATIONS,
    attribute_prefix=PREFIX,
)
