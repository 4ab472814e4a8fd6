"""The validation pipeline: text -> claims -> fact checks -> verdict (RFC-003 §6-§9).

Synchronous, in-memory, no LLM calls. Any internal error fails open with an
`error_fallback` verdict and a logged error; `validate` never raises.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Sequence

from .budget import US_PER_MATCH, US_PER_REJECTED_MATCH, Budget
from .claims import build_claim, positional, prepare, rejected_early, relocate
from .config import ClaimwatchConfig, CustomDetector, ValidationConfig, load_config
from .detectors import builtin_detectors
from .facts import FactIndex
from .model import Claim, FactCheck, ValidationResult, Violation
from .normalise import fold
from .patterns import DetectorSpec, shared_engine
from .policy import AgentPolicy, PolicyResolver
from .selection import ClaimCap, Found, dedupe, processing_order
from .subjects import names_nothing
from .typed import code_spans, in_code, merge_spans, overlaps

logger = logging.getLogger("claimwatch.validation")

_RANK = {"pass": 0, "flag": 1, "block": 2}
_SEVERITY = {"contradicted": "high", "self_referential": "medium", "unverified": "low"}


def custom_spec(detector: CustomDetector) -> DetectorSpec:
    """A user detector from config, as the same spec type the builtins use."""
    return DetectorSpec(
        id=detector.id,
        category=detector.category,
        patterns=detector.patterns,
        assertion=detector.assertion,
        subject_group=detector.subject_group or "subject",
        negative=detector.negative,
        confidence=detector.confidence,
        builtin=False,
        examples=detector.examples,
        priority=5,  # the user's own detector is the most specific one for its text
        fixed_subject="self" if detector.category == "self_referential" else None,
    )


class OutputValidator:
    """Validates agent output text against detectors, fact registries and trust-scaled policies.

    Build one per config (patterns and facts are compiled here, once) and
    call `validate` from any thread: it holds no per-call state.

    `warm_up=False` skips running every pattern once at construction (about a
    third of the build time): for a process that validates a few outputs and
    exits. Results are the same either way (the time budget is a cost model,
    not the clock); only the first output that needs a cold pattern is slower.
    """

    def __init__(
        self,
        config: ClaimwatchConfig | ValidationConfig | str | os.PathLike | dict | None = None,
        *,
        warm_up: bool = True,
    ) -> None:
        if isinstance(config, ValidationConfig):
            config = ClaimwatchConfig(validation=config)
        loaded = load_config(config)
        self.config: ValidationConfig = loaded.validation
        self.config_hash = loaded.config_hash
        families = self.config.builtin_detectors.model_dump(by_alias=True)
        specs = builtin_detectors(families) + [custom_spec(d) for d in self.config.custom_detectors]
        self.detectors: tuple[DetectorSpec, ...] = tuple(specs)
        prepare(specs)
        self._engine = shared_engine(
            self.detectors, regex_timeout_s=self.config.performance.regex_timeout_ms / 1000, warm_up=warm_up
        )
        self._facts = FactIndex(self.config.fact_registries)
        self._policies = PolicyResolver(self.config)
        self._checkable: dict[frozenset[str], frozenset[str]] = {}

    def validate(self, text: str, agent_id: str | None = None, trust: float | None = None) -> ValidationResult:
        """Validate one output. Never raises: an internal error gives verdict `error_fallback`."""
        started = time.perf_counter()
        agent = agent_id or "unknown"
        try:
            return self._validate(text, agent, trust, started)
        except Exception as exc:
            logger.exception("output validation failed for agent %r; failing open", agent)
            return self.failure(exc, agent_id=agent, trust=trust, started=started)

    def failure(
        self, exc: BaseException, agent_id: str | None = None, trust: float | None = None, started: float | None = None
    ) -> ValidationResult:
        """The fail-open result (RFC §15.2) for an error raised while validating."""
        return ValidationResult(
            verdict="error_fallback",
            claims=(),
            fact_checks=(),
            violations=(),
            evaluation_us=_elapsed_us(started) if started is not None else 0.0,
            trust=self._safe_trust(trust),
            agent_id=agent_id,
            error=f"{type(exc).__name__}: {exc}",
        )

    def judge(
        self,
        claims: Sequence[Claim],
        agent_id: str | None = None,
        trust: float | None = None,
        now: float | None = None,
        truncated: bool = False,
    ) -> ValidationResult:
        """Fact checks, policies and verdict for claims already detected, by the rules of `validate`.

        For replaying stored claims under another config: the agent's policy (exempt,
        trust tier, overrides, detection depth), `blockMinConfidence` and the
        truncated-output policy apply as in `validate`; `now` (epoch seconds, default
        the current time) is when the claims were made, so fact TTLs are read as of
        then. No time budget applies. Never raises.
        """
        started = time.perf_counter()
        agent = agent_id or "unknown"
        try:
            trust_ = self._policies.trust(trust)
            policy = self._policies.resolve(agent, trust_)
            if policy.skipped:
                return ValidationResult("pass", (), (), (), _elapsed_us(started), trust_, agent, skipped=policy.skipped)
            claims = list(claims)
            if policy.contradiction_only:
                checkable = self._checkable_categories(policy.registries)
                claims = [c for c in claims if c.category in checkable]
            checks, violations = self._judge(claims, policy, now=now)
            return ValidationResult(
                verdict=_verdict(violations, truncated, policy),
                claims=tuple(claims),
                fact_checks=tuple(checks),
                violations=tuple(violations),
                evaluation_us=_elapsed_us(started),
                trust=trust_,
                agent_id=agent,
                truncated=truncated,
            )
        except Exception as exc:
            logger.exception("judging stored claims failed for agent %r; failing open", agent)
            return self.failure(exc, agent_id=agent, trust=trust, started=started)

    def detect(self, text: str) -> list[Claim]:
        """All claims in `text` with every detector, regardless of agent policy."""
        claims, _, _ = self._detect(text[: self.config.performance.max_text_length], None)
        return claims

    def _safe_trust(self, trust: float | None):
        try:
            return self._policies.trust(trust)
        except (TypeError, ValueError):
            return self._policies.trust(None)

    def _validate(self, text: str, agent: str, trust_score: float | None, started: float) -> ValidationResult:
        trust = self._policies.trust(trust_score)
        policy = self._policies.resolve(agent, trust)
        if not isinstance(text, str):
            text = "" if text is None else str(text)

        if policy.skipped:
            return _skipped(policy.skipped, started, trust, agent)
        if _too_short(text, self.config.min_text_length):
            return _skipped("too_short", started, trust, agent)
        perf = self.config.performance
        truncated = len(text) > perf.max_text_length
        if truncated:
            text = text[: perf.max_text_length]
        budget = Budget(perf.max_eval_us)
        claims, timed_out, bailed = self._detect(text, budget)
        if policy.contradiction_only:
            checkable = self._checkable_categories(policy.registries)
            claims = [c for c in claims if c.category in checkable]
        checks, violations = self._judge(claims, policy, budget)
        bailed = bailed or budget.spent
        return _new_result(
            _verdict(violations, truncated, policy),
            tuple(claims),
            tuple(checks),
            tuple(violations),
            _elapsed_us(started),
            trust,
            agent,
            None,
            truncated,
            bailed,
            None,
            tuple(timed_out),
        )

    def _detect(self, text: str, budget: Budget | None) -> tuple[list[Claim], list[str], bool]:
        # Detection reads a folded copy (no zero-width or bidi characters, no look-alike
        # letters); claims point back into `text`.
        folded = fold(text)
        seen = folded.text
        # Code first: no claim comes of a match that touches it, so the scan does not run the
        # patterns that match only there (a coding agent's test output says "passed" and "failed").
        fences = code_spans(seen)
        raw, timed_out, bailed = self._engine.scan(seen, budget, folded.data, fences)
        if not raw:
            return [], timed_out, bailed
        found: list[Found] = []
        # Most specific first: a match inside a claim of a higher-priority detector would
        # lose to it in `_dedupe` anyway, so it is not built at all. `taken` is the union of
        # the claims of higher priority than the current match's, sorted and merged, so the
        # test is a binary search, not a pass over every claim (a dense text has fifty).
        # Within a level, in text order: what `ClaimCap` needs (ties keep the engine's order: `Found.rank`).
        limit = self.config.performance.max_claims_per_output
        cap = ClaimCap(seen, limit) if len(raw) > limit else None
        taken: list[tuple[int, int]] = []
        level_spans: list[tuple[int, int]] = []
        level = None
        for rank, match in processing_order(raw):
            if match.spec.priority != level:
                if level_spans:
                    taken = merge_spans(taken + level_spans)
                    level_spans = []
                level = match.spec.priority
            if fences and overlaps(fences, match.start, match.end):
                continue  # inside code: no claim can come of it, skip the costly part
            if taken and overlaps(taken, match.start, match.end):
                continue
            if cap is not None and cap.beyond(match, found, budget):
                continue  # its claim would come after `limit` claims already settled: never reported
            if rejected_early(seen, match):
                if budget is not None and budget.charge(US_PER_REJECTED_MATCH):
                    bailed = True
                    break
                continue
            if budget is not None and budget.charge(US_PER_MATCH):
                bailed = True
                break
            claim = build_claim(seen, match, screened=True)
            if claim is not None and not in_code(seen, fences, claim.offset, match.end, claim.subject):
                found.append(Found(match.spec.priority, claim, rank))
                level_spans.append((claim.offset, claim.offset + len(claim.matched_text)))
        claims = dedupe(found, limit)
        if folded.changed:
            claims = [relocate(c, folded) for c in claims]
        return claims, timed_out, bailed

    def _checkable_categories(self, registries: frozenset[str]) -> frozenset[str]:
        cached = self._checkable.get(registries)
        if cached is None:
            by_registry = self._facts.categories_by_registry
            cached = frozenset(c for r in registries for c in by_registry.get(r, ()))
            self._checkable[registries] = cached
        return cached

    def _judge(
        self, claims: list[Claim], policy: AgentPolicy, budget: Budget | None = None, now: float | None = None
    ) -> tuple[list[FactCheck], list[Violation]]:
        checks: list[FactCheck] = []
        violations: list[Violation] = []
        now = time.time() if now is None else now
        for claim in claims:
            if names_nothing(claim):
                continue  # "It works.": a claim about nothing named; no fact can check it
            if claim.category == "self_referential":
                violation = self._violation(
                    claim,
                    policy.self_referential,
                    "self_referential",
                    "self-referential: the agent talks about its own instructions or nature",
                )
            else:
                check = (
                    self._facts.check(claim, policy.registries, now, budget)
                    if policy.registries
                    else FactCheck(claim, "no_fact_found")
                )
                checks.append(check)
                violation = self._violation_for_check(check, policy)
            if violation is not None:
                violations.append(violation)
        return checks, violations

    def _violation_for_check(self, check: FactCheck, policy: AgentPolicy) -> Violation | None:
        claim = check.claim
        if check.status == "confirmed":
            return None
        if check.status == "contradicted":
            reason = f"contradicts fact {check.fact_id!r}: expected {check.expected}, claimed {check.claimed}"
            return self._violation(claim, policy.contradiction, "contradicted", reason, check)
        if check.status == "expired_fact":
            reason = f"unverified: fact {check.fact_id!r} has expired"
        else:
            reason = f"unverified: no fact covers {claim.subject!r}"
        return self._violation(claim, policy.unverified, "unverified", reason, check)

    def _violation(
        self, claim: Claim, action: str, kind: str, reason: str, check: FactCheck | None = None
    ) -> Violation | None:
        if action == "ignore":
            return None
        threshold = self.config.block_min_confidence
        if action == "block" and claim.confidence < threshold:
            action = "flag"
            reason += f" (confidence {claim.confidence:.2f} is below {threshold:.2f}: flagged, not blocked)"
        if check is None:
            return _new_violation(claim, reason, _SEVERITY[kind], action, None, None, None)
        return _new_violation(claim, reason, _SEVERITY[kind], action, check.fact_id, check.expected, check.status)


# Built for every output and every claim: positional constructors that skip the frozen `__init__`.
_new_result = positional(
    ValidationResult,
    "verdict claims fact_checks violations evaluation_us trust agent_id skipped truncated bailed_out error patterns_timed_out",
)
_new_violation = positional(Violation, "claim reason severity policy fact_id expected fact_status")


def _skipped(reason: str, started: float, trust, agent: str) -> ValidationResult:
    return ValidationResult("pass", (), (), (), _elapsed_us(started), trust, agent, skipped=reason)


def _too_short(text: str, minimum: int) -> bool:
    """len(text.strip()) < minimum, without copying a text that has no space at either end."""
    if len(text) < minimum:
        return True
    if text[:1].isspace() or text[-1:].isspace():
        return len(text.strip()) < minimum
    return False


def _verdict(violations: list[Violation], truncated: bool, policy: AgentPolicy) -> str:
    verdict = "pass"
    for violation in violations:  # the highest-ranked policy, the first of equals: max() without a key call each
        if _RANK[violation.policy] > _RANK[verdict]:
            verdict = violation.policy
    if truncated and policy.truncated != "ignore" and _RANK[policy.truncated] > _RANK[verdict]:
        # The unchecked tail could hold anything; the agent's policy says what that is worth.
        verdict = policy.truncated
    return verdict


def _elapsed_us(started: float) -> float:
    return (time.perf_counter() - started) * 1e6
