"""The output check (RFC-003): claims in LLM output text, checked against fact registries.

The first check on the contract and the worked example in
`docs/architecture.md`. Its configuration is the top-level `validation`
section (the RFC's `outputValidation` block), kept where RFC users expect it,
so its `checks.output` section only switches it on or off. Its shared rows
fill the output columns of `evaluations` and one `violations` row per
violation; its annotations are the `claimwatch.*` attributes and the
`claimwatch.violation` / `claimwatch.claim` events.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from typing import Any

from pydantic import Field

from ..core.config import ClaimwatchConfig
from ..core.config_base import _Model
from ..core.model import ValidationResult, Violation
from ..core.validator import OutputValidator
from ..otel import attributes as A
from ..otel.extract import may_carry_output
from ..otel.records import EventRecord, SpanRecord
from .base import CheckContext, CheckResult, CheckSpec, Finding, Migration, own_table

NAME = "output"
# RFC-003 §11.3: the ISO 27001 controls an audit record of each verdict evidences.
ISO_CONTROLS = {
    "pass": ["A.8.10"],
    "flag": ["A.8.10", "A.5.24"],
    "block": ["A.8.10", "A.5.24", "A.5.28"],
    "error_fallback": ["A.8.10"],
}
_BLOCK_REASONS = {
    "contradicted": "it contradicts known facts",
    "unverified": "it makes claims that no fact registry confirms",
    "self_referential": "it discusses the agent's own instructions or prompt",
}


class OutputCheckConfig(_Model):
    """`checks.output`: the output check runs unless switched off; its settings are `validation`."""

    enabled: bool = Field(default=True, description="run RFC-003 output validation on LLM output spans")


class OutputCheck:
    """Runs an `OutputValidator` over the LLM output a span carries."""

    name = NAME

    def __init__(self, validator: OutputValidator, store_matched_text: bool = True) -> None:
        self.validator = validator
        self.store_matched_text = store_matched_text

    def wants(self, span: SpanRecord) -> bool:
        return may_carry_output(span)

    def run(self, ctx: CheckContext) -> CheckResult | None:
        output = ctx.output
        if output is None:
            return None
        result = self.validator.validate(output.text, agent_id=ctx.identity.agent_id, trust=ctx.trust)
        return self.result(result, ctx, output)

    def reuse(self, guarded: CheckResult, ctx: CheckContext) -> CheckResult:
        """A guard's result, described with the output the span carries when it ended."""
        output = ctx.output
        return self.result(guarded.detail, ctx, output) if output is not None else guarded

    def result(self, r: ValidationResult, ctx: CheckContext, output) -> CheckResult:
        """The contract's view of a validation result (also used for results `guard` produced)."""
        text = output.text
        findings = tuple(self._finding(v, r, ctx, output.source) for v in r.violations)
        attrs, events = _annotations(r, output, ctx.verbosity, ctx.span)
        return CheckResult(
            check=NAME,
            verdict=r.verdict,
            findings=findings,
            severity=_severity(r.violations),
            reason=explanation(r),
            block_reason=block_reason(r.violations),
            evaluation_us=r.evaluation_us,
            attributes=attrs,
            events=events,
            evaluation_columns={
                "source": output.source,
                "trust_score": r.trust.score,
                "trust_tier": r.trust.tier,
                "claim_count": len(r.claims),
                "violation_count": len(r.violations),
                "categories": sorted({c.category for c in r.claims}),
                "text_length": len(text),
                "text_sha256": sha256(text),
                "truncated": output.truncated or r.truncated,
                "skipped": r.skipped,
                "bailed_out": r.bailed_out,
                "error": r.error,
                "tool_calls": [t.name for t in output.tool_calls],
                "config_hash": self.validator.config_hash,
            },
            rows={"claims": self._claim_rows(r)},
            blocked_texts=output.blocked_forms if r.verdict == "block" else (),
            error=r.error,
            detail=r,
        )

    def _claim_rows(self, r: ValidationResult) -> list[dict]:
        """Every detected claim, confirmed or not, with its fact status and what the policy did."""
        checks = {id(f.claim): f for f in r.fact_checks}
        actions = {id(v.claim): v.policy for v in r.violations}
        rows = []
        for index, c in enumerate(r.claims):
            f = checks.get(id(c))
            rows.append(
                {
                    "claim_index": index,
                    "category": c.category,
                    "detector_id": c.detector_id,
                    "subject": c.subject,
                    "assertion": c.assertion,
                    "negative": c.negative,
                    "role": c.role,
                    "confidence": c.confidence,
                    "claim_offset": c.offset,
                    "matched_text": c.matched_text if self.store_matched_text else None,
                    "fact_status": f.status if f else None,  # None: the agent's policy did not check it
                    "fact_id": f.fact_id if f else None,
                    "expected": f.expected if f else None,
                    "action": actions.get(id(c), "none"),
                    "trust_score": r.trust.score,
                    "verdict": r.verdict,
                }
            )
        return rows

    def _finding(self, v: Violation, r: ValidationResult, ctx: CheckContext, source: str) -> Finding:
        c = v.claim
        return Finding(
            check=NAME,
            verdict=v.policy,
            severity=v.severity,
            reason=v.reason,
            span_id=ctx.span.span_id,
            columns={
                "trust_tier": r.trust.tier,
                "action": v.policy,
                "category": c.category,
                "detector_id": c.detector_id,
                "matched_text": c.matched_text if self.store_matched_text else None,
                "subject": c.subject,
                "assertion": c.assertion,
                "contradicted_fact_id": v.fact_id if v.fact_status == "contradicted" else None,
                "expected": v.expected,
                "fact_status": v.fact_status,
                "confidence": c.confidence,
                "claim_offset": c.offset,
                "claim_count": len(r.claims),
                "trigger": source,
                "iso_controls": ISO_CONTROLS[r.verdict],
            },
        )


def _severity(violations) -> str:
    order = ("low", "medium", "high")
    return max((v.severity for v in violations), key=order.index, default="info")


def block_reason(violations) -> str:
    blocking = [v for v in violations if v.policy == "block"]
    if not blocking:
        return ""
    kinds = {"self_referential" if v.claim.category == "self_referential" else v.fact_status for v in blocking}
    return "; ".join(_BLOCK_REASONS.get(k, "it breaks the output policy") for k in sorted(kinds, key=str))


def explanation(r: ValidationResult) -> str:
    """One line a person can read: the verdict and its first reason."""
    if r.error:
        return f"error_fallback: {r.error}"
    if r.skipped:
        return f"{r.verdict}: skipped ({r.skipped})"
    if not r.violations:
        return f"{r.verdict}: {len(r.claims)} claim(s), no violation"
    worst = max(r.violations, key=lambda v: (v.policy == "block", v.severity == "high", v.severity == "medium"))
    more = f" (+{len(r.violations) - 1} more)" if len(r.violations) > 1 else ""
    return f"{r.verdict}: {worst.reason}{more}"


@lru_cache(maxsize=16)  # one output is hashed for its row, its repeat key and its echo: hash it once
def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _annotations(r: ValidationResult, output, verbosity: str, span: SpanRecord):
    if verbosity == "silent":
        return {}, ()
    attrs: dict[str, Any] = {
        A.CLAIMS_COUNT: len(r.claims),
        A.VIOLATIONS_COUNT: len(r.violations),
        A.CLAIMS_CATEGORIES: sorted({c.category for c in r.claims}),
        A.TRUST_SCORE: r.trust.score,
        A.TRUST_TIER: r.trust.tier,
        A.EVALUATION_US: round(r.evaluation_us, 1),
        A.TRUNCATED: output.truncated or r.truncated,
        A.SOURCE: output.source,
    }
    if r.skipped:
        attrs[A.SKIPPED] = r.skipped
    if r.bailed_out:
        attrs[A.BAILED_OUT] = True
    at = span.end_ns or 0
    events = [EventRecord(A.VIOLATION_EVENT, _violation_attrs(v, verbosity), at) for v in r.violations]
    if verbosity == "debug":
        events += [EventRecord(A.CLAIM_EVENT, _claim_attrs(c), at) for c in r.claims]
    return attrs, tuple(events)


def _violation_attrs(v: Violation, verbosity: str) -> dict[str, Any]:
    out = {
        A.V_CATEGORY: v.claim.category,
        A.V_DETECTOR: v.claim.detector_id,
        A.V_SUBJECT: v.claim.subject,
        A.V_ASSERTION: v.claim.assertion,
        A.V_SEVERITY: v.severity,
        A.V_REASON: v.reason,
        A.V_ACTION: v.policy,
    }
    if v.fact_id:
        out[A.V_FACT_ID] = v.fact_id
    if v.expected:
        out[A.V_EXPECTED] = v.expected
    if verbosity == "debug":
        out[A.V_MATCHED_TEXT] = v.claim.matched_text
    return out


def _claim_attrs(c) -> dict[str, Any]:
    return {
        A.C_CATEGORY: c.category,
        A.C_DETECTOR: c.detector_id,
        A.C_SUBJECT: c.subject,
        A.C_ASSERTION: c.assertion,
        A.C_NEGATIVE: c.negative,
        A.C_CONFIDENCE: c.confidence,
        A.C_OFFSET: c.offset,
        A.C_MATCHED_TEXT: c.matched_text,
    }


def _build(section: OutputCheckConfig, config: ClaimwatchConfig) -> OutputCheck:
    return OutputCheck(OutputValidator(config), store_matched_text=config.storage.store_matched_text)


CHECK = CheckSpec(
    name=NAME,
    description="RFC-003 output validation: claims in LLM output checked against fact registries",
    config_model=OutputCheckConfig,
    factory=_build,
    migrations=(
        Migration(
            1,
            "every detected claim, for fact curation, precision checks and replay",
            own_table(
                "claims",
                """
                claim_index INTEGER,
                category VARCHAR,
                detector_id VARCHAR,
                subject VARCHAR,
                assertion VARCHAR,
                negative BOOLEAN,
                role VARCHAR,
                confidence DOUBLE,
                claim_offset INTEGER,
                matched_text VARCHAR,
                fact_status VARCHAR,
                fact_id VARCHAR,
                expected VARCHAR,
                action VARCHAR,
                trust_score DOUBLE,
                verdict VARCHAR
                """,
            )
            + "; CREATE INDEX claims_time ON claims (time)",
        ),
    ),
    attribute_prefix="claimwatch",
    evaluation_name=A.EVALUATION_NAME_VALUE,
)
