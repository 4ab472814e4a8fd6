"""Fact registries indexed for lookup, and the comparison of a claim with a fact (RFC §5.4).

Exact subjects sit in a dict keyed by (category, normalised subject). Regex
subjects of one category are searched together with one RE2 set. Lookup
walks the claim's subject candidates in order and returns the first fact
that can say something about the claim.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import UTC
from functools import lru_cache

import re2

from .budget import US_PER_FACT_CHECK, Budget
from .claims import positional
from .config import Fact, FactRegistry
from .model import Claim, FactCheck
from .patterns import compile_pattern, set_matches
from .phrases import normalize_subject, subject_candidates

_MAX_REMEMBERED = 4096  # subjects whose RE2 set hits are kept (the whole memo is dropped when full)
_OPTIONS = re2.Options()
_OPTIONS.log_errors = False


@dataclass(frozen=True, slots=True)
class IndexedFact:
    fact: Fact
    registry_id: str
    order: int
    expires_at: float | None  # epoch seconds; None = never


class FactIndex:
    """All facts of all registries, looked up per claim; registries are filtered per agent."""

    def __init__(self, registries: tuple[FactRegistry, ...], *, loaded_at: float | None = None) -> None:
        loaded_at = time.time() if loaded_at is None else loaded_at
        self._exact: dict[tuple[str, str], list[IndexedFact]] = {}
        self._regex: dict[str, list[tuple[IndexedFact, object, str]]] = {}
        self._sets: dict[str, object] = {}
        self._hits: dict[tuple[str, str], list[int]] = {}
        self._found: dict[tuple[str, str, frozenset[str]], tuple[IndexedFact, ...]] = {}
        self.categories_by_registry: dict[str, frozenset[str]] = {}
        order = 0
        for registry in registries:
            self.categories_by_registry[registry.id] = frozenset(f.category for f in registry.facts)
            for fact in registry.facts:
                indexed = IndexedFact(fact, registry.id, order, _expiry(fact, loaded_at))
                order += 1
                if fact.subject_is_regex:
                    engine, pattern = compile_pattern(fact.subject, where=f"fact {fact.id!r} subject")
                    self._regex.setdefault(fact.category, []).append((indexed, pattern, engine))
                else:
                    key = (fact.category, normalize_subject(fact.subject))
                    self._exact.setdefault(key, []).append(indexed)
        for category, entries in self._regex.items():
            self._sets[category] = _build_set(entries)
        # Backtracking-engine subjects of each category, in config order: the only entries
        # searched one by one (the set answers for the RE2 ones).
        self._backtracking: dict[str, list[tuple[IndexedFact, object]]] = {
            category: [(indexed, pattern) for indexed, pattern, engine in entries if engine == "regex"]
            for category, entries in self._regex.items()
        }

    def lookup(
        self, category: str, subject: str, registries: frozenset[str], budget: Budget | None = None
    ) -> list[IndexedFact]:
        """Facts of `category` in `registries` whose subject matches, in config order.

        Subjects that only the backtracking engine can run are searched within
        the validation's time budget; once it is spent they are skipped (the
        budget says so, and the result reports a bail-out).
        """
        exact = self._exact.get((category, subject))
        found: list[IndexedFact] = [f for f in exact if f.registry_id in registries] if exact else []
        entries = self._regex.get(category)
        if entries:
            rset = self._sets.get(category)
            if rset is not None:
                # Backtracking-engine entries hold a never-matching slot: every hit is an RE2 subject.
                for i in self._set_hits(category, rset, subject):
                    indexed = entries[i][0]
                    if indexed.registry_id in registries:
                        found.append(indexed)
            for indexed, pattern in self._backtracking[category]:
                if indexed.registry_id in registries and _regex_search(pattern, subject, budget):
                    found.append(indexed)
            if len(found) > 1:
                found.sort(key=lambda f: f.order)
        return found

    def _set_hits(self, category: str, rset, subject: str) -> list[int]:
        """The category's RE2 subjects that match `subject` (remembered: agents name the same
        few services, files and people over and over, and one set call costs microseconds)."""
        key = (category, subject)
        hits = self._hits.get(key)
        if hits is None:
            hits = set_matches(rset, subject.encode("utf-8", "surrogatepass"))
            if len(self._hits) >= _MAX_REMEMBERED:
                self._hits.clear()
            self._hits[key] = hits
        return hits

    def _remembered_lookup(
        self, category: str, subject: str, registries: frozenset[str], budget: Budget | None
    ) -> tuple[IndexedFact, ...] | list[IndexedFact]:
        """`lookup`, remembered where it is a function of its arguments alone: the index never
        changes, and only backtracking-engine subjects (searched within the budget) vary."""
        if self._backtracking.get(category):
            return self.lookup(category, subject, registries, budget)
        key = (category, subject, registries)
        found = self._found.get(key)
        if found is None:
            found = tuple(self.lookup(category, subject, registries))
            if len(self._found) >= _MAX_REMEMBERED:
                self._found.clear()
            self._found[key] = found
        return found

    def check(
        self, claim: Claim, registries: frozenset[str], now: float | None = None, budget: Budget | None = None
    ) -> FactCheck:
        """Compare one claim with the facts; the first fact that speaks to it decides."""
        now = time.time() if now is None else now
        if budget is not None:
            budget.charge(US_PER_FACT_CHECK)
        expired: IndexedFact | None = None
        for candidate in _candidates(claim):
            for indexed in self._remembered_lookup(claim.category, candidate, registries, budget):
                if indexed.expires_at is not None and now > indexed.expires_at:
                    expired = expired or indexed
                    continue
                outcome = compare(claim, indexed.fact)
                if outcome is not None:
                    status, expected = outcome
                    return _fact_check(claim, status, indexed.fact.id, expected, _claimed(claim))
        if expired is not None:
            return _fact_check(claim, "expired_fact", expired.fact.id, None, _claimed(claim))
        return _fact_check(claim, "no_fact_found", None, None, None)


_fact_check = positional(FactCheck, "claim status fact_id expected claimed")


def _build_set(entries):
    rset = re2.Set.SearchSet(_OPTIONS)
    count = 0
    for indexed, _pattern, engine in entries:
        # Keep set indices aligned with `entries`; regex-module entries get a never-matching slot.
        rset.Add(f"(?i){indexed.fact.subject}" if engine == "re2" else r"\z\A")
        count += 1
    rset.Compile()
    return rset if count else None


def _regex_search(pattern, subject: str, budget: Budget | None = None) -> bool:
    """Search a backtracking-engine fact subject, within 2 ms and what is left of the budget."""
    if budget is None:
        try:
            return pattern.search(subject, timeout=0.002) is not None
        except TimeoutError:
            return False
    if budget.exceeded():
        return False
    timeout = max(1e-6, min(0.002, budget.remaining_s()))
    try:
        with budget.timed():
            return pattern.search(subject, timeout=timeout) is not None
    except TimeoutError:
        return False


def _expiry(fact: Fact, loaded_at: float) -> float | None:
    if fact.ttl_seconds is None:
        return None
    base = fact.updated_at
    if base is None:
        return loaded_at + fact.ttl_seconds
    if base.tzinfo is None:
        base = base.replace(tzinfo=UTC)
    return base.timestamp() + fact.ttl_seconds


def _candidates(claim: Claim) -> list[str] | tuple[str, ...]:
    """Subjects to try: for names the role first ("the user"), then the name itself."""
    if not claim.role:  # most claims: the subject's candidates, in order, each once
        return _unique_candidates(normalize_subject(claim.subject)) if claim.subject else ()
    out: list[str] = []
    sources = [claim.role, claim.subject] if claim.category == "entity_name" else [claim.subject, claim.role]
    for source in sources:
        if source:
            for candidate in subject_candidates(normalize_subject(source)):
                if candidate not in out:
                    out.append(candidate)
    return out


@lru_cache(maxsize=8192)
def _unique_candidates(normalized: str) -> tuple[str, ...]:
    """`subject_candidates` without repeats, in order: a function of the subject, and agents name the
    same subjects again and again."""
    return tuple(dict.fromkeys(subject_candidates(normalized)))


def _claimed(claim: Claim) -> str:
    if claim.category == "entity_name":
        return claim.subject.strip("\"'“”‘’")
    return claim.assertion


# --- comparing a claim's assertion with a fact's value -------------------------------------------

_POSITIVE_STATES = {
    "running": {
        "running",
        "active",
        "started",
        "installed",
        "present",
        "available",
        "found",
        "detected",
        "loaded",
        "listening",
        "deployed",
        "exists",
        "up",
        "reachable",
        "accessible",
    },
    "installed": {
        "installed",
        "present",
        "found",
        "detected",
        "available",
        "exists",
        "in_place",
        "on_the_path",
        "on_path",
    },
    "configured": {"configured", "set_up", "setup", "present", "in_place", "initialized", "initialised"},
    "enabled": {"enabled", "active", "configured", "on"},
    "deployed": {"deployed", "installed", "present", "available", "found", "exists"},
}
_NEGATIVE_STATES = {
    "not_installed": {"installed", "running", "present", "found", "loaded", "available"},
    "uninstalled": {"installed", "running", "present", "found", "loaded"},
    "stopped": {"running", "active", "started", "listening", "up"},
    "not_running": {"running", "active", "started", "listening"},
    "disabled": {"enabled", "active", "running"},
    "absent": {"installed", "present", "found", "exists", "running"},
    "missing": {"installed", "present", "found", "exists", "running"},
    "not_configured": {"configured", "set_up", "setup"},
}
_FAILING = {
    "broken",
    "down",
    "failing",
    "crashed",
    "dead",
    "offline",
    "unreachable",
    "unresponsive",
    "unhealthy",
    "erroring",
    "hanging",
    "stuck",
    "red",
    "not_working",
    "not_responding",
    "out_of_service",
    "failed",
    "timed_out",
    "errored",
    "errored_out",
    "went_down",
    "keeps_failing",
    "keep_failing",
    "keeps_crashing",
    "keep_crashing",
    "in_a_crash_loop",
    "crashlooping",
    "crash-looping",
}
_HARD_DOWN = {"down", "crashed", "dead", "offline", "unreachable", "out_of_service", "went_down"}
_HEALTHY = {
    "up",
    "operational",
    "working",
    "healthy",
    "green",
    "passing",
    "online",
    "stable",
    "up_and_running",
    "working_fine",
    "passed",
    "succeeded",
    "running",
}


def compare(claim: Claim, fact: Fact) -> tuple[str, str] | None:
    """('confirmed'|'contradicted', expected) or None when the fact does not speak to the claim."""
    value = fact.value
    kind = value.type
    if kind == "name":
        return _compare_name(claim, value)
    base, negative = _split(claim)
    if kind == "exists":
        return _polar(
            not negative if base in _EXISTENCE_WORDS else None,
            value.exists,
            "exists" if value.exists else "does not exist",
        )
    if kind == "capability":
        claimed = (not negative) if base in ("supported", "available", "enabled", "implemented", "possible") else None
        return _polar(claimed, value.supported, "supported" if value.supported else "not supported")
    if kind == "state":
        return _compare_state(base, negative, value.state)
    if kind == "status":
        return _compare_status(base, negative, value.status)
    return None


_EXISTENCE_WORDS = {
    "exists",
    "found",
    "present",
    "installed",
    "available",
    "detected",
    "supported",
    "implemented",
    "deployed",
    "in_place",
    "missing",
    "absent",
}


def _split(claim: Claim) -> tuple[str, bool]:
    assertion = claim.assertion.lower()
    negative = claim.negative
    if assertion.startswith("not_"):
        assertion, negative = assertion[4:], True
    if assertion in ("missing", "absent"):
        return "exists", True
    return assertion, negative


def _polar(claimed: bool | None, truth: bool, expected: str) -> tuple[str, str] | None:
    if claimed is None:
        return None
    return ("confirmed" if claimed == truth else "contradicted"), expected


def _compare_state(base: str, negative: bool, state: str) -> tuple[str, str] | None:
    fact_state = state.strip().lower().replace(" ", "_").replace("-", "_")
    implied = _POSITIVE_STATES.get(fact_state, {fact_state})
    if fact_state in _NEGATIVE_STATES:
        denied = _NEGATIVE_STATES[fact_state]
        if base in denied:
            return ("confirmed" if negative else "contradicted"), state
        return None
    if base in implied:
        return ("contradicted" if negative else "confirmed"), state
    # The claim names the opposite state: "nginx is stopped" against a fact that it is running, "the flag
    # is disabled" against enabled. Only the state itself: an enabled service may be stopped, a running
    # one disabled at boot.
    if fact_state in _OPPOSITE_CLAIMS.get(base, ()):
        return ("confirmed" if negative else "contradicted"), state
    return None


_OPPOSITE_CLAIMS = {
    "stopped": {"running", "started", "up", "listening"},
    "disabled": {"enabled"},
    "uninstalled": {"installed"},
}


def _compare_status(base: str, negative: bool, status: str) -> tuple[str, str] | None:
    if base in _FAILING:
        failing, hard = not negative, base in _HARD_DOWN
    elif base in _HEALTHY:
        failing, hard = negative, False
    else:
        return None
    if status == "operational":
        return ("contradicted" if failing else "confirmed"), status
    if status == "down":
        return ("confirmed" if failing else "contradicted"), status
    # degraded: trouble is real, but it is neither fine nor fully down.
    if failing and not hard:
        return "confirmed", status
    return "contradicted", status


def _compare_name(claim: Claim, value) -> tuple[str, str] | None:
    if claim.category != "entity_name":
        return None
    claimed = _name_key(claim.subject)
    names = [value.correct_name, *value.aliases]
    for name in names:
        key = _name_key(name)
        mine, theirs = set(claimed.split()), set(key.split())
        # "Albert" names "Albert Hild", and "Albert Hild" names "Albert": same person.
        if claimed and (mine <= theirs or theirs <= mine):
            return "confirmed", value.correct_name
    return "contradicted", value.correct_name


def _name_key(name: str) -> str:
    return " ".join(name.strip("\"'“”‘’ ").lower().split())
