"""Frozen result types produced by the validation core.

Everything here is plain data: the validator builds these objects on the hot
path, and adapters (CLI, span processor, collector) turn them into JSON,
span attributes or rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

ClaimCategory = Literal[
    "system_state",
    "entity_name",
    "existence",
    "operational_status",
    "capability",
    "self_referential",
]
CLAIM_CATEGORIES: tuple[str, ...] = ClaimCategory.__args__  # type: ignore[attr-defined]

Verdict = Literal["pass", "flag", "block", "error_fallback"]
Policy = Literal["ignore", "flag", "block"]
Severity = Literal["low", "medium", "high"]
FactStatus = Literal["no_fact_found", "confirmed", "contradicted", "expired_fact"]
TrustTier = Literal["untrusted", "restricted", "standard", "trusted", "privileged"]


@dataclass(frozen=True, slots=True)
class Claim:
    """One assertion found in agent output, with the evidence of how it was found."""

    category: str
    detector_id: str
    matched_text: str
    offset: int
    subject: str
    assertion: str
    negative: bool
    confidence: float
    # For entity-name claims: the role the name was given to ("user" in
    # "the user is Iulia"); fact lookup tries it as well as the name.
    role: str | None = None

    def to_dict(self) -> dict:
        return {
            "category": self.category,
            "detector_id": self.detector_id,
            "matched_text": self.matched_text,
            "offset": self.offset,
            "subject": self.subject,
            "assertion": self.assertion,
            "negative": self.negative,
            "confidence": round(self.confidence, 3),
        }


@dataclass(frozen=True, slots=True)
class FactCheck:
    """The outcome of comparing one claim with the fact registries."""

    claim: Claim
    status: FactStatus
    fact_id: str | None = None
    expected: str | None = None
    claimed: str | None = None

    def to_dict(self) -> dict:
        return {
            "claim": self.claim.to_dict(),
            "status": self.status,
            "fact_id": self.fact_id,
            "expected": self.expected,
            "claimed": self.claimed,
        }


@dataclass(frozen=True, slots=True)
class Violation:
    """A claim that moved the verdict away from pass, and why."""

    claim: Claim
    reason: str
    severity: Severity
    policy: Policy
    fact_id: str | None = None
    expected: str | None = None
    fact_status: FactStatus | None = None

    def to_dict(self) -> dict:
        return {
            "category": self.claim.category,
            "detector_id": self.claim.detector_id,
            "subject": self.claim.subject,
            "assertion": self.claim.assertion,
            "reason": self.reason,
            "severity": self.severity,
            "fact_id": self.fact_id,
            "expected": self.expected,
        }


@dataclass(frozen=True, slots=True)
class Trust:
    score: float
    tier: TrustTier

    def to_dict(self) -> dict:
        return {"score": self.score, "tier": self.tier}


@dataclass(frozen=True, slots=True)
class ValidationResult:
    """What `OutputValidator.validate` returns: the verdict and everything that explains it."""

    verdict: Verdict
    claims: tuple[Claim, ...]
    fact_checks: tuple[FactCheck, ...]
    violations: tuple[Violation, ...]
    evaluation_us: float
    trust: Trust
    agent_id: str | None = None
    skipped: str | None = None
    truncated: bool = False
    bailed_out: bool = False
    error: str | None = None
    patterns_timed_out: tuple[str, ...] = field(default=())

    def to_dict(self) -> dict:
        return {
            "verdict": self.verdict,
            "skipped": self.skipped,
            # The time budget ran out (claims after that point were not looked for), or the
            # text was longer than maxTextLength and only its start was checked.
            "bailed_out": self.bailed_out,
            "truncated": self.truncated,
            "trust": self.trust.to_dict(),
            "claims": [c.to_dict() for c in self.claims],
            "fact_checks": [f.to_dict() for f in self.fact_checks],
            "violations": [v.to_dict() for v in self.violations],
            "evaluation_us": round(self.evaluation_us, 1),
        }
