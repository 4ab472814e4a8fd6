"""The phase-6 decision for one output: APPROVE, REVISE, RETRY or FAIL, with issues and hints.

Four checks (claims supported, no fabrication, query addressed, coherent
format) and a confidence give the decision by band: >= 0.80 with every check
passing approves, 0.50-0.79 revises the response, 0.30-0.49 retries the
approach, below 0.30 fails. A query with several goals is decided by the
multi-goal matrix: every goal scored on its own (>= 0.75 pass, 0.50-0.74
partial, below fail).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from .lexicon import STOPWORDS
from .text import WORD, specifics, stem

APPROVE, REVISE, RETRY, FAIL = "APPROVE", "REVISE", "RETRY", "FAIL"

_RAW_URL = re.compile(r"(?<![(<\[])\bhttps?://[^\s)>\]]+(?![^\[]*\]\()")
_MD_LINK_URL = re.compile(r"\]\(\s*https?://[^)]*\)")
_GOAL_SPLIT = re.compile(r"\?\s+|\n\s*(?:[-*•]|\d+[.)])\s+|;\s+|\b(?:and also|also|as well as|plus)\b\s+", re.I)
_WANTS = (
    (re.compile(r"\b(?:how much|price|cost|costs|fee|charge|refund|pay|paid)\b", re.I), ("money", "number")),
    (re.compile(r"\b(?:when|what time|which day|what date|how long)\b", re.I), ("date", "time", "number")),
    (re.compile(r"\bhow many\b", re.I), ("number",)),
    (re.compile(r"\b(?:status|is it|did it|was it|has it)\b", re.I), ("status",)),
)
_LIMIT_WORDS = re.compile(
    r"\b(?:under|below|less than|at most|max(?:imum)?|cheaper than)\s+\$?\s?(\d[\d,]*(?:\.\d+)?)", re.I
)


MAX_GOALS = 8  # a pasted task description is not eight questions; past that, the first ones stand for it


@dataclass(frozen=True, slots=True)
class Goal:
    text: str
    score: float
    status: str  # PASS | PARTIAL | FAIL
    missing: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Decision:
    decision: str
    confidence: float
    checks: dict
    issues: tuple[str, ...]
    revision_hints: str | None
    suggested_fixes: str | None
    goals: tuple[Goal, ...] = ()
    partial: bool = False


def format_issues(text: str) -> list[str]:
    """Coherent-format problems: raw URLs, unbalanced markdown, a broken table, text cut mid-sentence."""
    issues: list[str] = []
    # Each pattern is only run when its literal ("```", "http", "`") is there: whole-text scans
    # cost more than the rest of this function.
    body = re.sub(r"```.*?```", "", text, flags=re.S) if "```" in text else text
    if "http" in body and _RAW_URL.search(_MD_LINK_URL.sub("", body)):
        issues.append("raw URL instead of a markdown link")
    if body.count("```") % 2 or text.count("```") % 2:
        issues.append("unclosed code fence")
    inline = re.sub(r"`[^`\n]*`", "", body) if "`" in body else body
    if inline.count("**") % 2:
        issues.append("unbalanced bold markers (**)")
    if inline.count("`") % 2:
        issues.append("unbalanced inline code (`)")
    if inline.count("[") != inline.count("]") or inline.count("(") < inline.count(")"):
        issues.append("unbalanced brackets")
    rows = [r for r in text.splitlines() if r.strip().startswith("|")]
    if len(rows) >= 2 and len({r.strip().strip("|").count("|") for r in rows}) > 1:
        issues.append("table rows with different numbers of cells")
    tail = text.rstrip()
    if len(tail) > 40 and not _ends_whole(tail):
        issues.append("ends mid-sentence (truncated?)")
    return issues


_END_MARKS = frozenset(".!?:)]\"'`*|>…")


def _ends_whole(tail: str) -> bool:
    """Whether right-stripped text ends like a finished answer: a stop or closing mark, a digit (what the
    pattern \\d matches: str.isdecimal), a code fence or an emoji. Read from the last character, not by a
    pattern anchored at the end that `re` would try at every position."""
    last = tail[-1]
    return last in _END_MARKS or last.isdecimal() or tail.endswith("```") or "\U0001f300" <= last <= "\U0001faff"


def _keywords(text: str) -> set[str]:
    return {stem(w) for w in WORD.findall(text.lower()) if w not in STOPWORDS and w not in _QUERY_WORDS and len(w) > 2}


_QUERY_WORDS = frozenset("many much tell know show give find please could would like want need can".split())


def split_goals(query: str) -> list[str]:
    """The separate asks in a query: questions, list items, 'and also' clauses."""
    parts = [p.strip(" ,.") for p in _GOAL_SPLIT.split(query) if p and p.strip(" ,.")]
    parts = [p for p in parts if len(_keywords(p)) >= 1]
    return parts or ([query.strip()] if query.strip() else [])


@lru_cache(maxsize=64)
def _goals(query: str) -> tuple[str, ...]:
    """`split_goals(query)`, the first `MAX_GOALS`, remembered: every reply of a conversation has the same query."""
    return tuple(split_goals(query)[:MAX_GOALS])


def score_goal(goal: str, answer: str, answer_kinds: set[str], grounding: float,
               found_words: set[str] | None = None) -> Goal:  # fmt: skip
    """How well the answer covers one goal: its entities and words, the kind of answer it asks for."""
    wanted, entities, wants, limit = _read_goal(goal)
    found_words = _keywords(answer) if found_words is None else found_words
    missing = sorted(w for w in wanted if w not in found_words)
    coverage = 1.0 - len(missing) / len(wanted) if wanted else 1.0
    lowered = answer.lower() if entities else answer  # once, not once per entity
    missing_entities = [e for e in entities if e not in lowered]
    if entities:
        coverage = min(coverage, 1.0 - len(missing_entities) / len(entities) * 0.5)
    intent_ok = True
    for kinds in wants:
        if not answer_kinds.intersection(kinds):
            intent_ok = False
            missing.append("a " + "/".join(kinds))
            break
    if limit is not None:
        cap, said = limit
        offered = [float(s.value) for s in specifics(answer) if s.kind == "money"]  # type: ignore[arg-type]
        if offered and min(offered) > cap:
            intent_ok = False
            missing.append(f"an option within {said}")
    score = (0.6 * coverage + 0.4 * grounding) * (1.0 if intent_ok else 0.6)
    status = "PASS" if score >= 0.75 else "PARTIAL" if score >= 0.5 else "FAIL"
    return Goal(goal, round(score, 3), status, tuple(missing[:6]))


@lru_cache(maxsize=256)
def _read_goal(goal: str) -> tuple[frozenset[str], frozenset[str], tuple[tuple[str, ...], ...], tuple[float, str] | None]:
    """What `score_goal` reads from the goal alone: its keywords, its entities, the kinds of answer its
    patterns ask for (in `_WANTS` order) and its spending limit (cap, as written). Remembered: every reply
    of a conversation is scored against the same query, often a long pasted task."""
    entities = frozenset(s.text.lower() for s in specifics(goal) if s.kind != "status")
    wants = tuple(kinds for pattern, kinds in _WANTS if pattern.search(goal))
    limit = _LIMIT_WORDS.search(goal)
    cap = (float(limit.group(1).replace(",", "")), limit.group(0)) if limit is not None else None
    return frozenset(_keywords(goal)), entities, wants, cap


def decide(
    answer: str,
    query: str | None,
    grounding_score: float | None,
    fabricated: list[str],
    unsupported: list[str],
    has_evidence: bool,
    answer_kinds: set[str],
) -> Decision:
    """The phase-6 decision from the grades, the query and the format."""
    issues: list[str] = []
    fmt = format_issues(answer)
    grounding = 1.0 if grounding_score is None else grounding_score
    if grounding_score is None and unsupported:
        grounding = 0.5  # factual claims, nothing to check them against
    goals: tuple[Goal, ...] = ()
    if query and query.strip():
        words = _keywords(answer)
        goals = tuple(score_goal(g, answer, answer_kinds, grounding, words) for g in _goals(query))
    addressed = all(g.status != "FAIL" for g in goals)
    checks = {
        "claims_supported": not fabricated and not unsupported,
        "no_hallucinations": not fabricated,
        "query_addressed": addressed,
        "coherent_format": not fmt,
    }
    for claim in fabricated:
        issues.append(f"fabricated: {claim}")
    for claim in unsupported:
        issues.append(f"unsupported: {claim}")
    if not has_evidence and unsupported:
        issues.append("no evidence: nothing the agent saw can support its factual claims")
    for g in goals:
        if g.status == "FAIL":
            issues.append(
                f"query goal not addressed: {g.text!r}" + (f" (missing {', '.join(g.missing)})" if g.missing else "")
            )
    issues.extend(fmt)
    confidence = grounding
    if not addressed:
        confidence *= 0.6
    confidence -= 0.1 * min(2, len(fmt))
    confidence = round(max(0.0, min(1.0, confidence)), 3)
    partial = False
    if len(goals) > 1:
        decision, partial = _matrix(goals)
        if fabricated and decision == APPROVE:
            decision = REVISE
    else:
        decision = _band(confidence, all(checks.values()))
        if fabricated and decision == APPROVE:
            decision = REVISE
    hints = fixes = None
    if decision == REVISE:
        parts = [f"Remove or correct {c}" for c in fabricated] + [f"Cite evidence for {c}" for c in unsupported[:5]]
        parts += [f"Fix format: {f}" for f in fmt]
        parts += [f"Address: {g.text}" for g in goals if g.status == "FAIL"]
        hints = "; ".join(parts) or "Tighten the wording against the evidence."
    elif decision == RETRY:
        missing = [g.text for g in goals if g.status == "FAIL"]
        fixes = (
            "Gather evidence first: call the tools that answer " + "; ".join(missing)
            if missing
            else "Gather the missing data: the response rests on claims no evidence supports"
        )
    return Decision(decision, confidence, checks, tuple(issues), hints, fixes, goals, partial)


def _band(confidence: float, all_pass: bool) -> str:
    if confidence >= 0.8:
        return APPROVE if all_pass else REVISE
    if confidence >= 0.5:
        return REVISE
    if confidence >= 0.3:
        return RETRY
    return FAIL


def _matrix(goals: tuple[Goal, ...]) -> tuple[str, bool]:
    failed = sum(1 for g in goals if g.status == "FAIL")
    if failed == 0:
        partial = any(g.status == "PARTIAL" for g in goals)
        return APPROVE, partial
    if failed == 1:
        return REVISE, False
    return RETRY, False
