"""Grade one claim against the evidence pool: GROUNDED, INFERRED or FABRICATED, with citations and a reason.

The grader reads the structure of the claim rather than its surface: each
specific (number, amount, date, time, id, code, name, URL, status) is looked
up; a number the evidence does not state may still be derived (a sum, a
difference, a product, a unit change); a claim's polarity, antonyms and
closed-class words are compared with the passage it aligns to. Every
FABRICATED grade says what was claimed and what the evidence says instead,
or that no evidence states it.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.claims import positional
from .align import align, content_support
from .claims import OPINION_KIND, REASONING_KIND, Claim
from .evidence import EvidencePool, Hit
from .polarity import check_polarity, check_words
from .problems import Problem, remembered
from .records import check_record
from .specifics import check_specific
from .text import stem
from .trace import AGENT_ACTION

GROUNDED, INFERRED, FABRICATED = "GROUNDED", "INFERRED", "FABRICATED"


@dataclass(frozen=True, slots=True)
class Grade:
    """The grade of one claim, its evidence and why."""

    grade: str | None  # GROUNDED | INFERRED | FABRICATED | None (not graded: opinion, or no evidence)
    evidence: tuple[Hit, ...]
    reason: str
    confidence: float
    issue: str | None = None  # what kind of thing was unsupported: money, number, date, name, negation, ...


# Every graded claim makes one: set its slots directly (`positional`).
_new_grade = positional(Grade, "grade evidence reason confidence issue")


def grade_claim(claim: Claim, pool: EvidencePool) -> Grade:
    """Grade one FACTUAL claim. Opinions and reasoning are labelled, not graded; with no evidence nothing is
    GROUNDED."""
    if claim.kind == OPINION_KIND:
        return Grade(None, (), "opinion: needs no evidence", 1.0)
    if claim.kind == REASONING_KIND:  # issue 12 grades FACTUAL claims: a conclusion the agent draws is no report
        return Grade(None, (), "reasoning: an inference the agent draws, not graded as a fact", 1.0)
    if not pool:
        return Grade(None, (), "no evidence", 0.0)
    # A claim met again (said twice in an output, or by another output graded against this pool) is graded
    # once: its grade reads the claim's text, kind, negation, content words and specifics, not its place.
    # Kept by text (a string hashes once), the rest compared on a hit: hashing specifics costs more.
    kept, grade = remembered(pool, "grades", claim.text, lambda: (claim, _grade(claim, pool)))
    return grade if _same_reading(kept, claim) else _grade(claim, pool)


def _same_reading(a: Claim, b: Claim) -> bool:
    """Whether two claims of the same text read the same to the grader (all but their place in the output)."""
    return a.kind == b.kind and a.negated == b.negated and a.content == b.content and a.specifics == b.specifics


def _grade(claim: Claim, pool: EvidencePool) -> Grade:
    """`grade_claim` for a FACTUAL claim against a pool with evidence."""
    support: list[Hit] = []
    problems: list[Problem] = []
    derived: list[str] = []
    # The word checks below read the same words: their stems and whether the evidence has them, once.
    words = [w for w in claim.content if len(w) > 2]
    stems = list(map(stem, words))
    known = {w: pool.has_word(w) for w in claim.content if len(w) > 1}
    region = align(claim, pool, words, stems, known)
    for spec in claim.specifics:
        check_specific(spec, claim, pool, region, support, problems, derived)
    check_words(claim, pool, region, problems, words, known)
    if not problems:
        check_record(claim, pool, problems)
    if region is not None:
        check_polarity(claim, pool, region, problems, words, stems)
    action = _own_action(support, pool)
    if region is not None and not support:
        support.append(region)
    if problems:
        problems = [_weigh(p, pool) for p in problems]
        worst = max(problems, key=lambda p: p.confidence)
        cites = tuple(p.hit for p in problems if p.hit is not None)
        return _new_grade(FABRICATED, cites, "; ".join(p.reason for p in problems), worst.confidence, worst.issue)
    if action is not None:
        reason = f"rests on the agent's own action ({action}): what it ran or wrote, not what a tool returned"
        return _new_grade(INFERRED, tuple(support), reason, 0.7, "own_action")
    if derived:
        return _new_grade(INFERRED, tuple(support), "; ".join(derived), 0.8, "derived")
    found, total = content_support(claim, pool, known)  # only now: a grade settled above does not read it
    ratio = found / total if total else 1.0
    has_specific = any(s.kind not in ("status",) for s in claim.specifics)
    if has_specific:  # every specific it states was found (a missing one is a problem above)
        reason = f"supported: every specific found; {found} of {total} content words"
        return _new_grade(GROUNDED, tuple(support), reason, 0.9, None)
    if ratio >= 0.5:
        reason = f"supported: {found} of {total} content words in the evidence"
        return _new_grade(GROUNDED, tuple(support), reason, 0.9, None)
    if found == 0 and total >= 2 and documents(pool):
        # Against documents (a summary, a RAG answer), a statement none of whose words the documents
        # use is unsupported, not a paraphrase. Tool output is another matter: agents rightly add what
        # they know about the tools they run, so there it stays a weak INFERRED.
        reason = f"unsupported: no evidence uses any of its {total} content words"
        return _new_grade(FABRICATED, tuple(support), reason, 0.5, "unsupported")
    if total and ratio < 0.2:  # nothing contradicts it and nothing states it: a loose paraphrase at best
        reason = f"weak support: {found} of {total} content words in the evidence"
        return _new_grade(INFERRED, tuple(support), reason, 0.4, "paraphrase")
    return _new_grade(
        INFERRED, tuple(support), f"paraphrase: {found} of {total} content words in the evidence", 0.6, "paraphrase"
    )


_DOCUMENTS = frozenset(("evidence", "retrieval"))


def documents(pool: EvidencePool) -> bool:
    """Whether the pool holds documents (given evidence, retrieved passages) rather than only tool output
    and messages."""
    return remembered(pool, "documents", None, lambda: any(p.source in _DOCUMENTS for p in pool.passages))


def _own_action(support: list[Hit], pool: EvidencePool) -> str | None:
    """The citation of the agent's own earlier action a specific was found in, if any.

    An action (a command it ran, a file it wrote, a tool call's arguments) shows what the agent did, so a
    detail taken from it is not FABRICATED; but it is not what a tool returned (the command may have failed,
    the file may differ), so the claim is INFERRED, not GROUNDED. Actions come after all other evidence in
    the pool, so a specific found there first is one no tool result or user message states."""
    for hit in support:
        passage = pool.passages[hit.passage]
        if passage.source == AGENT_ACTION:
            return passage.cite
    return None


def _weigh(problem: Problem, pool: EvidencePool) -> Problem:
    """What a user said is weaker ground for a contradiction than what a tool returned."""
    if problem.hit is not None and pool.passages[problem.hit.passage].source == "user_message":
        return Problem(problem.issue, problem.reason, problem.confidence * 0.85, problem.hit)
    return problem
