"""Ground one output against its evidence: claims, grades, score and the phase-6 decision.

`Grounder(settings).ground(text, passages, query)` is the whole pipeline; it
makes no model call and no network call, holds no per-call state and never
raises for odd input (the check wraps it anyway).
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from threading import Lock
from typing import Protocol

from ..core.claims import positional
from .claims import FACTUAL, OPINION_KIND, Claim, as_reported, split_claims
from .decision import Decision, decide
from .evidence import EvidencePool, Hit, Passage, looks_truncated
from .grade import FABRICATED, GROUNDED, INFERRED, Grade, documents, grade_claim


class Scorer(Protocol):
    """An optional second opinion (a model a team plugs in): how well `passage` supports `claim`, 0..1.

    It is asked only about claims the deterministic grader could not settle
    (a loose paraphrase, or nothing found); None means "no opinion".
    """

    def score(self, claim: str, passage: str) -> float | None: ...


@dataclass(frozen=True, slots=True)
class Settings:
    """Grounding knobs; the check builds these from its config section."""

    inferred_weight: float = 0.5
    max_text_chars: int = 20_000
    max_evidence_chars: int = 60_000
    max_claims: int = 200


@dataclass(frozen=True, slots=True)
class GradedClaim:
    claim: Claim
    grade: Grade

    def to_dict(self, pool: EvidencePool | None = None) -> dict:
        return {
            "text": self.claim.text,
            "kind": self.claim.kind,
            "grade": self.grade.grade,
            "evidence": [{"index": h.passage, "start": h.start, "end": h.end} for h in self.grade.evidence],
            "reason": self.grade.reason,
        }


@dataclass(frozen=True, slots=True)
class Report:
    """Everything grounding concluded about one output."""

    claims: tuple[GradedClaim, ...]
    grounding_score: float | None  # None: nothing was graded against evidence
    decision: Decision
    evidence_passages: int
    evidence_chars: int
    evaluation_us: float
    passages: tuple[Passage, ...] = field(default=())
    truncated: bool = False

    @property
    def no_evidence(self) -> bool:
        return self.evidence_passages == 0

    @property
    def fabricated(self) -> tuple[GradedClaim, ...]:
        return tuple(c for c in self.claims if c.grade.grade == FABRICATED)

    def count(self, grade: str) -> int:
        return sum(1 for c in self.claims if c.grade.grade == grade)

    def to_dict(self) -> dict:
        """The JSON answer of `claimwatch ground`."""
        return {
            "decision": self.decision.decision,
            "grounding_score": None if self.grounding_score is None else round(self.grounding_score, 3),
            "confidence": self.decision.confidence,
            "evidence": "none" if self.no_evidence else self.evidence_passages,
            "checks": self.decision.checks,
            "issues": list(self.decision.issues),
            "revision_hints": self.decision.revision_hints,
            "suggested_fixes": self.decision.suggested_fixes,
            "claims": [c.to_dict() for c in self.claims],
            "evaluation_us": round(self.evaluation_us, 1),
        }


# Made per claim and per passage of every call: set their slots directly (`positional`).
_new_graded = positional(GradedClaim, "claim grade")
_new_passage = positional(Passage, "text source span_id key tool_name truncated")
_WEIGHTS = {GROUNDED: 1.0, FABRICATED: 0.0}
_KEPT_POOLS = 8  # each holds at most max_evidence_chars of text twice, and its lookups
_KEPT_SPLITS = 16  # outputs of at most max_text_chars each, and their claims
_KEYABLE = (str, Passage)


class Grounder:
    """Grades outputs against evidence. Build once; `ground` is safe to call from any thread.

    The evidence pools of the last few calls are kept: the LLM calls of one trace (and the spans of one
    output) are mostly graded against the same tool results, so the second one finds the evidence
    indexed and every lookup the first one made remembered. A pool is a pure function of its
    passages, so a kept one grades exactly as a new one would."""

    def __init__(self, settings: Settings | None = None, scorer: Scorer | None = None) -> None:
        self.settings = settings or Settings()
        self.scorer = scorer
        self._pools: OrderedDict[int, tuple[tuple[Passage | str, ...], EvidencePool]] = OrderedDict()
        self._splits: OrderedDict[str, tuple[Claim, ...]] = OrderedDict()
        self._lock = Lock()

    def pool(self, passages: Iterable[Passage | str]) -> EvidencePool:
        given = tuple(passages)
        # Kept only for text and Passages (1 == 1.0 == True would share a pool but not a text), hashed once.
        key = hash(given) if all(type(p) in _KEYABLE for p in given) else None
        if key is not None:
            with self._lock:
                kept = self._pools.get(key)
                if kept is not None and kept[0] == given:
                    self._pools.move_to_end(key)
                    return kept[1]
        items = [
            p
            if isinstance(p, Passage)
            else _new_passage(str(p), "evidence", None, str(i), None, looks_truncated(str(p)))
            for i, p in enumerate(given)
        ]
        pool = EvidencePool(items, max_chars=self.settings.max_evidence_chars)
        if key is not None:
            with self._lock:
                self._pools[key] = (given, pool)
                while len(self._pools) > _KEPT_POOLS:
                    self._pools.popitem(last=False)
        return pool

    def ground(
        self,
        text: str,
        evidence: Iterable[Passage | str] | EvidencePool,
        query: str | None = None,
        claims: list[Claim] | None = None,
        started: float | None = None,
    ) -> Report:
        """Grade `text` against `evidence`; `claims` from an earlier `claims(text)` are reused, not re-split."""
        started = time.perf_counter() if started is None else started
        pool = evidence if isinstance(evidence, EvidencePool) else self.pool(evidence)
        truncated = len(text) > self.settings.max_text_chars
        body = text[: self.settings.max_text_chars]
        if claims is None:
            claims = self._split(body)
        if pool and any(c.kind == OPINION_KIND for c in claims) and documents(pool):
            claims = [as_reported(c) for c in claims]  # "the bill would ...": a report of the document
        graded = [_new_graded(c, self._grade(c, pool)) for c in claims]
        return self._report(body, query, graded, pool, started, truncated)

    def claims(self, text: str) -> list[Claim]:
        return self._split(text[: self.settings.max_text_chars])

    def _split(self, body: str) -> list[Claim]:
        """`split_claims`, kept for the last few outputs: one output is often graded more than once (the
        check asks for its claims, then grades them; an LLM span and its agent span carry the same text).
        Claims are frozen and a pure function of the text, so a kept split is the split."""
        with self._lock:
            kept = self._splits.get(body)
            if kept is not None:
                self._splits.move_to_end(body)
                return list(kept)
        claims = split_claims(body, self.settings.max_claims)
        with self._lock:
            self._splits[body] = tuple(claims)
            while len(self._splits) > _KEPT_SPLITS:
                self._splits.popitem(last=False)
        return claims

    def _grade(self, claim: Claim, pool: EvidencePool) -> Grade:
        grade = grade_claim(claim, pool)
        if self.scorer is not None and pool and _unsettled(grade):
            grade = self._second_opinion(claim, pool, grade)
        return grade

    def _second_opinion(self, claim: Claim, pool: EvidencePool, grade: Grade) -> Grade:
        passage = pool.window(grade.evidence[0], 400) if grade.evidence else pool.lower(0)[:2000]
        try:
            score = self.scorer.score(claim.text, passage)  # type: ignore[union-attr]
        except Exception as exc:  # a plug-in must not take the grader down
            return Grade(grade.grade, grade.evidence, grade.reason + f" (scorer failed: {type(exc).__name__})",
                         grade.confidence, grade.issue)  # fmt: skip
        if score is None:
            return grade
        if score >= 0.5:
            return Grade(GROUNDED, grade.evidence, f"scorer: supported ({score:.2f})", score, None)
        if score < 0.2:
            return Grade(FABRICATED, grade.evidence, f"scorer: not supported ({score:.2f})", 1 - score, "scorer")
        return grade

    def _report(self, text, query, graded, pool, started, truncated) -> Report:
        weights = dict(_WEIGHTS, **{INFERRED: self.settings.inferred_weight})
        scored = [weights[c.grade.grade] for c in graded if c.grade.grade is not None]
        score = sum(scored) / len(scored) if scored else None
        fabricated = [_label(c) for c in graded if c.grade.grade == FABRICATED]
        factual = [c for c in graded if c.claim.kind == FACTUAL]  # reasoning is not graded either
        unsupported = [_label(c) for c in factual if c.grade.grade is None]
        kinds = {s.kind for c in graded for s in c.claim.specifics}
        decision = decide(text, query, score, fabricated, unsupported, bool(pool), kinds)
        return Report(
            claims=tuple(graded),
            grounding_score=score,
            decision=decision,
            evidence_passages=pool.live,
            evidence_chars=pool.total_chars if pool else 0,
            evaluation_us=(time.perf_counter() - started) * 1e6,
            passages=pool.passages,
            truncated=truncated,
        )


def _unsettled(grade: Grade) -> bool:
    return grade.issue in ("paraphrase", "unsupported")


def _label(c: GradedClaim) -> str:
    text = c.claim.text if len(c.claim.text) <= 80 else c.claim.text[:77] + "..."
    return f"'{text}'" + (f" ({c.grade.reason})" if c.grade.grade == FABRICATED else "")


def ground(
    text: str, evidence: Sequence[str | Passage], query: str | None = None, settings: Settings | None = None
) -> Report:
    """Grade `text` against `evidence` with default settings (a convenience for scripts and tests)."""
    return Grounder(settings).ground(text, evidence, query)


__all__ = ["GradedClaim", "Grounder", "Hit", "Report", "Scorer", "Settings", "ground"]
