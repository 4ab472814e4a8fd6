"""The grounding check (issue 12): is what the agent says supported by what it saw?

For each LLM output span it gathers the evidence the agent could see (tool
results, retrieved documents and earlier tool/user messages of the trace:
`claimwatch.grounding.trace`), splits the output into atomic claims, grades
each GROUNDED / INFERRED / FABRICATED, scores the output and takes the
phase-6 decision (APPROVE / REVISE / RETRY / FAIL). Tool results also become
short-lived facts (`claimwatch.grounding.dynamic`): the output validator's
claims ("node is not installed", "the tests are failing") are checked against
them, and a contradicted one is reported like a registry contradiction,
citing the tool span.

Verdicts: a FABRICATED claim with confidence >= `minConfidence` (0.8) flags,
and so does a claim a fresh tool result contradicts; nothing blocks unless
`fabricatedPolicy` / `dynamicFacts.contradictionPolicy` say `block`. The
decision itself is recorded, not enforced (`decisionPolicy` maps it to a
verdict when a team wants that). With no evidence nothing is GROUNDED: the
result says "no evidence" and passes.
"""

from __future__ import annotations

import time
from typing import Any, Literal

from pydantic import Field

from ..core.config import ClaimwatchConfig, FactRegistry
from ..core.config_base import _Model
from ..core.facts import FactIndex
from ..core.validator import OutputValidator
from ..grounding import FABRICATED, GROUNDED, INFERRED, OPINION_KIND, Grounder, Report, Settings
from ..grounding.dynamic import DynamicFact, derive_facts
from ..grounding.evidence import Passage
from ..grounding.places import warm_places
from ..grounding.trace import evidence_for
from ..otel.extract import may_carry_output
from ..otel.records import EventRecord, SpanRecord
from .base import CheckContext, CheckResult, CheckSpec, Finding, Migration, own_table, worst

NAME = "grounding"
PREFIX = "claimwatch.grounding"
FABRICATED_EVENT = f"{PREFIX}.fabricated"
Policy = Literal["ignore", "flag", "block"]

MIGRATIONS = (
    Migration(
        1,
        "grounding_evaluations and grounding_claims",
        own_table(
            "grounding_evaluations",
            """
            decision VARCHAR,           -- APPROVE | REVISE | RETRY | FAIL
            grounding_score DOUBLE,     -- NULL: nothing graded against evidence
            confidence DOUBLE,
            claims INTEGER,             -- atomic claims, opinions included
            factual INTEGER,            -- FACTUAL and REASONING claims
            grounded INTEGER,
            inferred INTEGER,
            fabricated INTEGER,
            no_evidence BOOLEAN,        -- the agent saw no evidence before it spoke
            evidence_passages INTEGER,
            evidence_chars INTEGER,
            dynamic_facts INTEGER,      -- facts derived from tool results
            contradicted_facts INTEGER, -- output-check claims a fresh tool result contradicts
            query_addressed BOOLEAN,
            coherent_format BOOLEAN,
            issues VARCHAR[],
            verdict VARCHAR,
            evaluation_us DOUBLE
            """,
        )
        + "; "
        + own_table(
            "grounding_claims",
            """
            claim_index INTEGER,
            kind VARCHAR,               -- FACTUAL | REASONING (opinions are not stored)
            grade VARCHAR,              -- GROUNDED | INFERRED | FABRICATED | NULL (no evidence)
            issue VARCHAR,              -- what was unsupported: money, number, date, name, status, negation, dynamic_fact, ...
            confidence DOUBLE,
            verdict VARCHAR,            -- what this claim did to the span: pass | flag | block
            claim_offset INTEGER,
            claim_text VARCHAR,         -- NULL when storage.storeMatchedText is off
            reason VARCHAR,
            evidence_span_id VARCHAR,   -- the span the first citation points into
            evidence_source VARCHAR,    -- tool_result | retrieval | tool_message | user_message
            evidence_key VARCHAR,       -- attribute or message index inside that span
            evidence_tool VARCHAR,
            evidence_start INTEGER,
            evidence_end INTEGER,
            fact_id VARCHAR             -- dynamic fact contradicted, if any
            """,
        )
        + "; "
        + 'CREATE INDEX grounding_evaluations_time ON grounding_evaluations (time)'
        + "; "
        + 'CREATE INDEX grounding_claims_time ON grounding_claims (time)',
    ),
)


class DynamicFactsConfig(_Model):
    """`checks.grounding.dynamicFacts`: tool results as short-lived facts (RFC-003 App. B)."""

    enabled: bool = True
    ttl_seconds: float = Field(default=300.0, gt=0, description="how long a tool result stays a fact")
    contradiction_policy: Policy = "flag"


class GroundingConfig(_Model):
    """`checks.grounding`: evidence grounding of LLM output against the trace.

    Off unless switched on: it costs ~0.5-5 ms per LLM output with evidence, tens of
    times the output check, which a collector at tens of thousands of spans/s must opt into."""

    enabled: bool = False
    inferred_weight: float = Field(default=0.5, ge=0.0, le=1.0, description="score of an INFERRED claim")
    fabricated_policy: Policy = "flag"
    min_confidence: float = Field(default=0.8, ge=0.0, le=1.0, description="FABRICATED below this only records")
    decision_policy: dict[Literal["APPROVE", "REVISE", "RETRY", "FAIL"], Policy] = Field(default_factory=dict)
    dynamic_facts: DynamicFactsConfig = DynamicFactsConfig()
    max_text_chars: int = Field(default=20_000, gt=0)
    max_evidence_chars: int = Field(default=60_000, gt=0, description="newest evidence kept per output")
    max_evidence_spans: int = Field(default=400, gt=0)
    max_claim_rows: int = Field(default=100, gt=0)


class GroundingCheck:
    """Grades the claims of an LLM output against the evidence in its trace."""

    name = NAME

    def __init__(self, config: GroundingConfig, validator: OutputValidator | None = None,
                 store_claim_text: bool = True) -> None:  # fmt: skip
        self.config = config
        self.grounder = Grounder(
            Settings(
                inferred_weight=config.inferred_weight,
                max_text_chars=config.max_text_chars,
                max_evidence_chars=config.max_evidence_chars,
            )
        )
        self.validator = validator if config.dynamic_facts.enabled else None
        self.store_claim_text = store_claim_text
        # The airport table (~0.1 s to read) at start-up, not inside the first span that names a place.
        warm_places()

    def wants(self, span: SpanRecord) -> bool:
        return may_carry_output(span)

    def run(self, ctx: CheckContext) -> CheckResult | None:
        try:
            return self._run(ctx)
        except Exception as exc:  # per-span work never raises: fail open, say why
            return CheckResult(NAME, "pass", reason=f"error_fallback: {type(exc).__name__}",
                               error=f"{type(exc).__name__}: {exc}")  # fmt: skip

    def _run(self, ctx: CheckContext) -> CheckResult | None:
        output = ctx.output
        if output is None or not output.text.strip():
            return None
        started = time.perf_counter()
        claims = self.grounder.claims(output.text)
        factual = [c for c in claims if c.kind != OPINION_KIND]
        if not factual:
            return None  # nothing asserted: no evidence needs reading
        span = ctx.span
        passages, query = evidence_for(span, ctx.trace.before(span), self.config.max_evidence_spans)
        if not any(p.text.strip() for p in passages):
            return self._no_evidence(ctx, factual, started)
        report = self.grounder.ground(output.text, passages, query, claims=claims, started=started)
        started = time.perf_counter()
        dynamic, contradicted = self._dynamic(output.text, report.passages, span)
        extra_us = (time.perf_counter() - started) * 1e6
        return self._result(ctx, output.text, report, dynamic, contradicted, extra_us)

    # --- no evidence: claims are counted, never graded ---------------------------------------

    def _no_evidence(self, ctx: CheckContext, claims, started: float) -> CheckResult:
        us = (time.perf_counter() - started) * 1e6
        reason = f"no evidence: {len(claims)} factual claim(s), nothing the agent saw to ground them in"
        attrs = {} if ctx.verbosity == "silent" else {
            f"{PREFIX}.no_evidence": True, f"{PREFIX}.claims.factual": len(claims),
            f"{PREFIX}.evaluation_us": round(us, 1),
        }  # fmt: skip
        row = _evaluation_row(
            None, len(claims), len(claims), 0, 0, 0, True, 0, 0, 0, 0, None, None, [reason], "pass", us
        )
        claim_rows = [
            {**_EMPTY_CLAIM, "claim_index": i, "kind": c.kind, "verdict": "pass", "claim_offset": c.start,
             "claim_text": c.text[:300] if self.store_claim_text else None, "reason": "no evidence"}
            for i, c in enumerate(claims[: self.config.max_claim_rows])
        ]  # fmt: skip
        return CheckResult(NAME, "pass", reason=reason, evaluation_us=us, attributes=attrs,
                           rows={"grounding_evaluations": [row], "grounding_claims": claim_rows})  # fmt: skip

    # --- dynamic facts ----------------------------------------------------------------------

    def _dynamic(self, text: str, passages: tuple[Passage, ...], span: SpanRecord):
        if self.validator is None:
            return [], []
        facts = derive_facts(passages, self.config.dynamic_facts.ttl_seconds, prefix=f"trace.{span.trace_id[:8]}")
        if not facts:
            return [], []
        index = FactIndex((FactRegistry(id="trace", facts=tuple(f.fact for f in facts)),))
        by_id = {f.fact.id: f for f in facts}
        now = span.end_ns / 1e9 if span.end_ns else time.time()
        contradicted = []
        for claim in self.validator.detect(text):
            check = index.check(claim, frozenset({"trace"}), now)
            if check.status == "contradicted" and check.fact_id in by_id:
                contradicted.append((claim, check, by_id[check.fact_id]))
        return facts, contradicted

    # --- the result ---------------------------------------------------------------------------

    def _verdict(self, grade: str | None, confidence: float) -> str:
        if grade != FABRICATED or confidence < self.config.min_confidence:
            return "pass"
        return _policy(self.config.fabricated_policy)

    def _result(self, ctx: CheckContext, text: str, report: Report, dynamic: list[DynamicFact], contradicted,
                extra_us: float) -> CheckResult:  # fmt: skip
        span = ctx.span
        passages = report.passages
        decided = [(c, self._verdict(c.grade.grade, c.grade.confidence)) for c in report.claims]
        findings: list[Finding] = []
        for c, verdict in decided:
            if verdict != "pass":
                findings.append(self._finding(span, c.claim.text, c.claim.start, c.grade.issue or "fabricated",
                                              c.grade.reason, c.grade.confidence, verdict))  # fmt: skip
        fact_verdict = _policy(self.config.dynamic_facts.contradiction_policy)
        for claim, check, fact in contradicted:
            p = passages[fact.passage]
            reason = (f"contradicts a fresh tool result ({p.cite}): expected {check.expected}, "
                      f"claimed {check.claimed}")  # fmt: skip
            if fact_verdict != "pass":
                findings.append(self._finding(span, claim.matched_text, claim.offset, "dynamic_fact", reason,
                                              claim.confidence, fact_verdict, fact.fact.id, check.expected))  # fmt: skip
        decision = report.decision
        verdict = worst(
            [f.verdict for f in findings] + [_policy(self.config.decision_policy.get(decision.decision, "ignore"))]
        )
        us = report.evaluation_us + extra_us
        counts = (report.count(GROUNDED), report.count(INFERRED), report.count(FABRICATED))
        factual = sum(1 for c in report.claims if c.claim.kind != OPINION_KIND)
        eval_row = _evaluation_row(
            report.grounding_score, len(report.claims), factual, *counts, False, report.evidence_passages,
            report.evidence_chars, len(dynamic), len(contradicted), decision, decision.confidence,
            list(decision.issues)[:20] if self.store_claim_text else [], verdict, us,
        )  # fmt: skip
        return CheckResult(
            check=NAME,
            verdict=verdict,
            findings=tuple(findings),
            severity="high" if any(f.severity == "high" for f in findings) else ("medium" if findings else "info"),
            reason=_explain(report, counts, len(contradicted)),
            block_reason="it states things the evidence it saw does not support" if verdict == "block" else "",
            evaluation_us=us,
            attributes=self._attributes(ctx, report, counts, len(contradicted), us),
            events=self._events(ctx, decided, contradicted, passages, verdict),
            rows={
                "grounding_evaluations": [eval_row],
                "grounding_claims": self._claim_rows(decided, contradicted, passages, fact_verdict),
            },
            blocked_texts=(ctx.output.blocked_forms if ctx.output is not None else (text,)) if verdict == "block" else (),
            detail=report,
        )

    def _finding(self, span, claim_text, offset, issue, reason, confidence, verdict, fact_id=None,
                 expected=None) -> Finding:  # fmt: skip
        return Finding(
            check=NAME,
            verdict=verdict,
            severity="high" if fact_id or confidence >= 0.85 else "medium",
            reason=reason if self.store_claim_text else f"{issue}: not supported by the evidence",
            span_id=span.span_id,
            columns={
                "action": verdict,
                "category": "fabricated" if fact_id is None else "contradicted",
                "detector_id": f"grounding.{issue}",
                "subject": issue,
                "assertion": FABRICATED,
                "matched_text": claim_text[:300] if self.store_claim_text else None,
                "contradicted_fact_id": fact_id,
                "expected": expected,
                "fact_status": "contradicted" if fact_id else None,
                "confidence": round(confidence, 3),
                "claim_offset": offset,
            },
        )

    def _attributes(self, ctx: CheckContext, report: Report, counts, contradicted: int, us: float) -> dict[str, Any]:
        if ctx.verbosity == "silent":
            return {}
        grounded, inferred, fabricated = counts
        attrs: dict[str, Any] = {
            f"{PREFIX}.decision": report.decision.decision,
            f"{PREFIX}.confidence": report.decision.confidence,
            f"{PREFIX}.claims.count": len(report.claims),
            f"{PREFIX}.claims.grounded": grounded,
            f"{PREFIX}.claims.inferred": inferred,
            f"{PREFIX}.claims.fabricated": fabricated,
            f"{PREFIX}.evidence.count": report.evidence_passages,
            f"{PREFIX}.evaluation_us": round(us, 1),
        }
        if report.grounding_score is not None:
            attrs[f"{PREFIX}.score"] = round(report.grounding_score, 3)
        if contradicted:
            attrs[f"{PREFIX}.facts.contradicted"] = contradicted
        return attrs

    def _events(self, ctx: CheckContext, decided, contradicted, passages, verdict: str) -> tuple[EventRecord, ...]:
        """One event per FABRICATED claim. Claim text and the full reason (which quotes the output) only
        at debug verbosity, and never when the output is blocked."""
        if ctx.verbosity == "silent":
            return ()
        at = ctx.span.end_ns or 0
        verbose = ctx.verbosity == "debug" and verdict != "block"
        out = []
        for c, claim_verdict in decided:
            g = c.grade
            if g.grade != FABRICATED:
                continue
            attrs: dict[str, Any] = {
                f"{PREFIX}.issue": g.issue or "fabricated",
                f"{PREFIX}.confidence": round(g.confidence, 3),
                f"{PREFIX}.verdict": claim_verdict,
                f"{PREFIX}.claim.kind": c.claim.kind,
                f"{PREFIX}.claim.offset": c.claim.start,
            }
            attrs.update(_citation(g.evidence, passages))
            if verbose:
                attrs[f"{PREFIX}.reason"] = g.reason
                attrs[f"{PREFIX}.claim.text"] = c.claim.text
            out.append(EventRecord(FABRICATED_EVENT, attrs, at))
        for claim, check, fact in contradicted:
            p = passages[fact.passage]
            attrs = {f"{PREFIX}.issue": "dynamic_fact", f"{PREFIX}.fact_id": fact.fact.id,
                     f"{PREFIX}.expected": str(check.expected), f"{PREFIX}.claim.offset": claim.offset,
                     f"{PREFIX}.evidence.span_id": p.span_id or "", f"{PREFIX}.evidence.source": p.source}  # fmt: skip
            if verbose:
                attrs[f"{PREFIX}.claim.text"] = claim.matched_text
            out.append(EventRecord(FABRICATED_EVENT, attrs, at))
        return tuple(out)

    def _claim_rows(self, decided, contradicted, passages, fact_verdict: str) -> list[dict[str, Any]]:
        rows = []
        keep = self.store_claim_text
        for i, (c, verdict) in enumerate(decided):
            if c.claim.kind == OPINION_KIND:
                continue
            g = c.grade
            cite = _cite_row(g.evidence, passages)
            rows.append({**_EMPTY_CLAIM, **cite, "claim_index": i, "kind": c.claim.kind, "grade": g.grade,
                         "issue": g.issue, "confidence": round(g.confidence, 3), "verdict": verdict,
                         "claim_offset": c.claim.start, "claim_text": c.claim.text[:300] if keep else None,
                         "reason": g.reason[:500] if keep else (g.issue or g.grade)})  # fmt: skip
        for claim, check, fact in contradicted:
            p = passages[fact.passage]
            rows.append({**_EMPTY_CLAIM, "claim_index": -1, "kind": "FACTUAL", "grade": FABRICATED,
                         "issue": "dynamic_fact", "confidence": claim.confidence, "verdict": fact_verdict,
                         "claim_offset": claim.offset, "claim_text": claim.matched_text[:300] if keep else None,
                         "reason": f"expected {check.expected}, claimed {check.claimed}",
                         "evidence_span_id": p.span_id, "evidence_source": p.source, "evidence_key": p.key,
                         "evidence_tool": p.tool_name, "fact_id": fact.fact.id})  # fmt: skip
        return rows[: self.config.max_claim_rows]


_EMPTY_CLAIM = {
    "claim_index": None, "kind": None, "grade": None, "issue": None, "confidence": None, "verdict": None,
    "claim_offset": None, "claim_text": None, "reason": None, "evidence_span_id": None, "evidence_source": None,
    "evidence_key": None, "evidence_tool": None, "evidence_start": None, "evidence_end": None, "fact_id": None,
}  # fmt: skip


def _cite_row(hits, passages) -> dict[str, Any]:
    if not hits:
        return {}
    h = hits[0]
    p = passages[h.passage]
    return {"evidence_span_id": p.span_id, "evidence_source": p.source, "evidence_key": p.key,
            "evidence_tool": p.tool_name, "evidence_start": h.start, "evidence_end": h.end}  # fmt: skip


def _citation(hits, passages) -> dict[str, Any]:
    if not hits:
        return {f"{PREFIX}.evidence": "none"}
    h = hits[0]
    p = passages[h.passage]
    attrs = {
        f"{PREFIX}.evidence.source": p.source,
        f"{PREFIX}.evidence.start": h.start,
        f"{PREFIX}.evidence.end": h.end,
    }
    if p.span_id:
        attrs[f"{PREFIX}.evidence.span_id"] = p.span_id
    if p.tool_name:
        attrs[f"{PREFIX}.evidence.tool"] = p.tool_name
    return attrs


def _evaluation_row(score, claims, factual, grounded, inferred, fabricated, no_evidence, passages, chars, facts,
                    contradicted, decision, confidence, issues, verdict, us) -> dict[str, Any]:  # fmt: skip
    return {
        "decision": decision.decision if decision is not None else None,
        "grounding_score": None if score is None else round(score, 4),
        "confidence": confidence,
        "claims": claims, "factual": factual, "grounded": grounded, "inferred": inferred, "fabricated": fabricated,
        "no_evidence": no_evidence, "evidence_passages": passages, "evidence_chars": chars,
        "dynamic_facts": facts, "contradicted_facts": contradicted,
        "query_addressed": decision.checks["query_addressed"] if decision is not None else None,
        "coherent_format": decision.checks["coherent_format"] if decision is not None else None,
        "issues": issues, "verdict": verdict, "evaluation_us": round(us, 1),
    }  # fmt: skip


def _policy(policy: str) -> str:
    return "pass" if policy == "ignore" else policy


def _explain(report: Report, counts, contradicted: int) -> str:
    grounded, inferred, fabricated = counts
    score = "n/a" if report.grounding_score is None else f"{report.grounding_score:.2f}"
    text = (f"{report.decision.decision}: grounding {score} ({grounded} grounded, {inferred} inferred, "
            f"{fabricated} fabricated) against {report.evidence_passages} evidence passage(s)")  # fmt: skip
    if contradicted:
        text += f"; {contradicted} claim(s) contradicted by fresh tool results"
    first = next((c for c in report.claims if c.grade.grade == FABRICATED), None)
    if first is not None:
        text += f"; first: {first.grade.reason}"
    return text


def _build(section: GroundingConfig, config: ClaimwatchConfig) -> GroundingCheck:
    store = getattr(getattr(config, "storage", None), "store_matched_text", True)
    validator = OutputValidator(config) if section.dynamic_facts.enabled else None
    return GroundingCheck(section, validator, store_claim_text=store)


CHECK = CheckSpec(
    name=NAME,
    description="evidence grounding: claims in LLM output graded against the tool results and documents it saw",
    config_model=GroundingConfig,
    factory=_build,
    migrations=MIGRATIONS,
    attribute_prefix=PREFIX,
    enabled_by_default=False,
)
