"""Evaluation and violation rows, as dicts keyed by the schema's column names."""

from __future__ import annotations

from ..otel.pipeline import ISO_CONTROLS, Evaluation


def evaluation_row(ev: Evaluation, config_hash: str) -> dict:
    r = ev.result
    s = ev.span
    return {
        "evaluation_id": ev.evaluation_id,
        "time": ev.time,
        "trace_id": s.trace_id,
        "span_id": s.span_id,
        "parent_span_id": s.parent_span_id,
        "service": s.service,
        "span_name": s.name,
        "agent_id": ev.identity.agent_id,
        "agent_name": ev.identity.agent_name,
        "session_id": ev.identity.session_id,
        "source": ev.output.source,
        "mode": ev.mode,
        "verdict": r.verdict,
        "audit_verdict": ev.audit_verdict,
        "enforced": ev.enforced,
        "trust_score": r.trust.score,
        "trust_tier": r.trust.tier,
        "claim_count": len(r.claims),
        "violation_count": len(r.violations),
        "categories": sorted({c.category for c in r.claims}),
        "evaluation_us": r.evaluation_us,
        "text_length": ev.text_length,
        "text_sha256": ev.text_sha256,
        "truncated": ev.output.truncated or r.truncated,
        "skipped": r.skipped,
        "error": r.error,
        "tool_calls": [t.name for t in ev.output.tool_calls],
        "config_hash": config_hash,
    }


def violation_rows(ev: Evaluation, store_matched_text: bool = True) -> list[dict]:
    r = ev.result
    controls = ISO_CONTROLS[ev.audit_verdict]
    return [
        {
            "evaluation_id": ev.evaluation_id,
            "time": ev.time,
            "trace_id": ev.span.trace_id,
            "span_id": ev.span.span_id,
            "agent_id": ev.identity.agent_id,
            "agent_name": ev.identity.agent_name,
            "session_id": ev.identity.session_id,
            "mode": ev.mode,
            "verdict": r.verdict,
            "audit_verdict": ev.audit_verdict,
            "trust_tier": r.trust.tier,
            "action": v.policy,
            "category": v.claim.category,
            "detector_id": v.claim.detector_id,
            "matched_text": v.claim.matched_text if store_matched_text else None,
            "subject": v.claim.subject,
            "assertion": v.claim.assertion,
            "reason": v.reason,
            "severity": v.severity,
            "contradicted_fact_id": v.fact_id if v.fact_status == "contradicted" else None,
            "expected": v.expected,
            "fact_status": v.fact_status,
            "confidence": v.claim.confidence,
            "claim_offset": v.claim.offset,
            "claim_count": len(r.claims),
            "trigger": ev.output.source,
            "iso_controls": controls,
        }
        for v in r.violations
    ]
