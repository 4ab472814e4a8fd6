"""What the grader found wrong with a claim, and the memo every grading step keeps in the pool.

A `Problem` is one reason for a FABRICATED grade: what kind of thing was unsupported, why, how sure, and
the evidence it cites. `remembered` keeps answers that depend only on the pool and a key in the pool's
cache, so the claims of one output, and the outputs of one trace, pay for them once.
"""

from __future__ import annotations

from dataclasses import dataclass

from .evidence import EvidencePool, Hit


@dataclass(frozen=True, slots=True)
class Problem:
    """One reason a claim is FABRICATED: the kind of thing unsupported, why, how sure, and what it cites."""

    issue: str
    reason: str
    confidence: float
    hit: Hit | None


_MEMO_LIMIT = 8192  # entries per table: a pool reused by many outputs keeps its memos bounded
_MISSING = object()


def remembered(pool: EvidencePool, table: str, key, compute):
    """`compute()`, remembered in the pool's cache under `table` and `key`; for answers that are a
    pure function of the pool and the key. A full table is cleared rather than grown."""
    memo = pool.cache.setdefault(table, {})
    found = memo.get(key, _MISSING)
    if found is _MISSING:
        if len(memo) >= _MEMO_LIMIT:
            memo.clear()
        found = memo[key] = compute()
    return found


def missing_specific(kind: str, claimed: str, pool: EvidencePool, region: Hit | None, contrast: str | None = None,
             hit: Hit | None = None, confidence: float = 0.9) -> Problem:  # fmt: skip
    """A specific the evidence does not state: contradicted when the passage the claim rests on says
    something else, otherwise missing. Cut evidence lowers the confidence (it may be beyond the cut)."""
    cut = " (some evidence was cut short: it may be beyond the cut)" if pool.any_truncated else ""
    factor = 0.7 if cut else 1.0
    if contrast is not None and hit is not None:
        cite = pool.passages[hit.passage].cite
        near = region is not None and hit.passage == region.passage and abs(hit.start - region.start) <= 400
        return Problem(
            kind, f"claimed {claimed}; {cite} says {contrast}{cut}", confidence * factor * (1 if near else 0.85), hit
        )
    # Nothing says otherwise: FABRICATED by the rule (a specific no evidence supports), but below the default
    # flag threshold, since the agent may know it from a prompt or a result the trace did not record.
    return Problem(
        kind, f"claimed {kind} {claimed}: no evidence states it{cut}", min(confidence, 0.75) * factor, region
    )
