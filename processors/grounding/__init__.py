"""Evidence grounding: is what the agent says supported by what it saw? (issue 12; seeds 003, 004)

Split an output into atomic claims, class each FACTUAL / REASONING / OPINION,
grade each checkable claim GROUNDED / INFERRED / FABRICATED against the
evidence the agent could see (tool results, retrieved documents, earlier
messages), score it and decide APPROVE / REVISE / RETRY / FAIL. Tool results
also become short-lived facts (`dynamic_facts`) that the output check's claim
detection can be contradicted against. Deterministic: no model, no network.
"""

from .claims import FACTUAL, OPINION_KIND, REASONING_KIND, Claim, split_claims
from .decision import APPROVE, FAIL, RETRY, REVISE, Decision, format_issues
from .engine import GradedClaim, Grounder, Report, Scorer, Settings, ground
from .evidence import EvidencePool, Hit, Passage
from .grade import FABRICATED, GROUNDED, INFERRED, Grade, grade_claim

__all__ = [
    "APPROVE",
    "FABRICATED",
    "FACTUAL",
    "FAIL",
    "GROUNDED",
    "INFERRED",
    "OPINION_KIND",
    "REASONING_KIND",
    "RETRY",
    "REVISE",
    "Claim",
    "Decision",
    "EvidencePool",
    "Grade",
    "GradedClaim",
    "Grounder",
    "Hit",
    "Passage",
    "Report",
    "Scorer",
    "Settings",
    "format_issues",
    "grade_claim",
    "ground",
    "split_claims",
]
