"""What an evaluation writes onto its span: attributes, violation events, the GenAI evaluation event.

The full output text is never copied. Matched text appears only at `debug`
verbosity, because what was found can itself be sensitive.
"""

from __future__ import annotations

from typing import Any

from . import attributes as A
from .pipeline import Evaluation
from .records import EventRecord

_SCORE = {"pass": 1.0, "flag": 0.5, "block": 0.0}


def span_annotations(ev: Evaluation, verbosity: str) -> tuple[dict[str, Any], list[EventRecord]]:
    """(attributes to merge, events to append) for one evaluation."""
    if verbosity == "silent":
        return {}, []
    r = ev.result
    attrs: dict[str, Any] = {
        A.VERDICT: r.verdict,
        A.MODE: ev.mode,
        A.ENFORCED: ev.enforced,
        A.CLAIMS_COUNT: len(r.claims),
        A.VIOLATIONS_COUNT: len(r.violations),
        A.CLAIMS_CATEGORIES: sorted({c.category for c in r.claims}),
        A.TRUST_SCORE: r.trust.score,
        A.TRUST_TIER: r.trust.tier,
        A.EVALUATION_US: round(r.evaluation_us, 1),
        A.TRUNCATED: ev.output.truncated or r.truncated,
        A.SOURCE: ev.output.source,
    }
    if r.skipped:
        attrs[A.SKIPPED] = r.skipped
    if ev.duplicate_of is not None:
        attrs[A.DUPLICATE_OF] = ev.duplicate_of.span_id
    at = ev.span.end_ns or None
    events = [EventRecord(A.VIOLATION_EVENT, _violation_attrs(v, verbosity), at or 0) for v in r.violations]
    if verbosity == "debug":
        events += [EventRecord(A.CLAIM_EVENT, _claim_attrs(c), at or 0) for c in r.claims]
    events.append(EventRecord(A.EVALUATION_EVENT, _evaluation_attrs(ev), at or 0))
    return attrs, events


def _violation_attrs(v, verbosity: str) -> dict[str, Any]:
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


def _evaluation_attrs(ev: Evaluation) -> dict[str, Any]:
    r = ev.result
    out: dict[str, Any] = {
        A.EVALUATION_NAME: A.EVALUATION_NAME_VALUE,
        A.EVALUATION_SCORE_LABEL: r.verdict,
        A.EVALUATION_EXPLANATION: explanation(ev),
    }
    if r.verdict in _SCORE:
        out[A.EVALUATION_SCORE_VALUE] = _SCORE[r.verdict]
    return out


def explanation(ev: Evaluation) -> str:
    """One line a person can read: the verdict and its first reason."""
    r = ev.result
    if r.error:
        return f"error_fallback: {r.error}"
    if r.skipped:
        return f"{r.verdict}: skipped ({r.skipped})"
    if not r.violations:
        return f"{r.verdict}: {len(r.claims)} claim(s), no violation"
    worst = max(r.violations, key=lambda v: (v.policy == "block", v.severity == "high", v.severity == "medium"))
    more = f" (+{len(r.violations) - 1} more)" if len(r.violations) > 1 else ""
    return f"{r.verdict}: {worst.reason}{more}"
