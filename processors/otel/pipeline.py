"""The processing contract shared by the SDK span processor and the OTLP collector.

A span record goes in; if it carries LLM output, an `Evaluation` comes out:
who spoke, in which mode, the validation result, the span annotations and the
audit rows. Per-span work never raises: a failure becomes an
`error_fallback` evaluation and a logged error.
"""

from __future__ import annotations

import hashlib
import logging
import uuid
from collections.abc import Callable, MutableMapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from ..core.config import ClaimwatchConfig, load_config
from ..core.model import ValidationResult
from ..core.policy import matches
from ..core.validator import OutputValidator
from . import attributes as A
from .extract import Output, extract
from .records import SpanRecord

logger = logging.getLogger("claimwatch.pipeline")

AncestorLookup = Callable[[str], "SpanRecord | None"]
_MAX_DEPTH = 64
AUDIT_VERDICTS = {
    "pass": "output_pass",
    "flag": "output_flag",
    "block": "output_block",
    "error_fallback": "error_fallback",
}
# RFC-003 §11.3
ISO_CONTROLS = {
    "output_pass": ["A.8.10"],
    "output_flag": ["A.8.10", "A.5.24"],
    "output_block": ["A.8.10", "A.5.24", "A.5.28"],
    "error_fallback": ["A.8.10"],
}
REPLACEMENT_NOTICE = (
    "[claimwatch] This agent output was blocked: it contradicts known facts. "
    "See the audit log (trace {trace_id}, span {span_id}) for details."
)


@dataclass(frozen=True, slots=True)
class Identity:
    agent_id: str
    agent_name: str | None
    session_id: str | None
    trust_attribute: float | None


@dataclass(frozen=True, slots=True)
class Guarded:
    """What `guard()` decided for a span, for the processor to record instead of validating again."""

    text: str
    result: ValidationResult
    enforced: bool
    agent_id: str | None


GUARD_SOURCE = "claimwatch.guard"


@dataclass(frozen=True, slots=True)
class Evaluation:
    """One validated output: everything needed to annotate the span and write rows."""

    evaluation_id: str
    span: SpanRecord
    output: Output
    identity: Identity
    mode: str
    result: ValidationResult
    enforced: bool
    time: datetime
    text_length: int
    text_sha256: str
    # Set when the same text was already evaluated in this trace (an agent span repeating its
    # LLM span's output): the span is annotated alike, but no second row is stored.
    duplicate_of: SpanRecord | None = None

    @property
    def audit_verdict(self) -> str:
        return AUDIT_VERDICTS[self.result.verdict]


class Pipeline:
    """Resolves identity, trust and mode for span records and validates their output."""

    def __init__(
        self, config: ClaimwatchConfig | str | dict | None = None, validator: OutputValidator | None = None
    ) -> None:
        self.config = load_config(config)
        self.validator = validator or OutputValidator(self.config)

    def evaluate(
        self,
        span: SpanRecord,
        ancestor: AncestorLookup | None = None,
        guarded: Guarded | None = None,
        seen: MutableMapping[str, Evaluation] | None = None,
    ) -> Evaluation | None:
        """Validate the output on `span`; None when it carries no output. Never raises.

        `guarded` is a result `guard()` already produced for this span: it is reused, and
        its text stands in when the span carries no output attributes. With `seen`, an
        output whose text was already evaluated in the same trace reuses that evaluation
        (marked `duplicate_of`) instead of being validated and stored twice.
        """
        try:
            output = extract(span)
        except Exception:
            logger.exception("could not read output from span %s", span.span_id)
            return None
        if output is None:
            if guarded is None:
                return None
            output = Output(guarded.text, GUARD_SOURCE)
        try:
            text = guarded.text if guarded is not None else output.text
            digest = _sha256(text)
            key = f"{span.trace_id}:{digest}" if seen is not None and guarded is None else None
            first = seen.get(key) if key is not None else None
            if first is not None:
                return replace(first, evaluation_id=uuid.uuid4().hex, span=span, output=output, duplicate_of=first.span)
            identity = self.identify(span, ancestor)
            mode = self.mode_for(identity)
            if guarded is not None:
                result, enforced = guarded.result, guarded.enforced
                if guarded.agent_id:
                    identity = replace(identity, agent_id=guarded.agent_id)
            else:
                enforced = False
                result = self.validator.validate(text, agent_id=identity.agent_id, trust=self.trust_for(identity))
            evaluation = _evaluation(span, output, identity, mode, result, enforced, text, digest)
            if key is not None:
                seen[key] = evaluation
            return evaluation
        except Exception as exc:
            logger.exception("evaluation failed for span %s; failing open", span.span_id)
            identity = Identity("unknown", None, None, None)
            return _evaluation(span, output, identity, "audit", self.validator.failure(exc), False, output.text)

    def record(self, ev: Evaluation, store, counts) -> None:
        """Count the evaluation by verdict and queue its rows in `store` (when there is one)."""
        from ..store.rows import evaluation_row, violation_rows  # store.rows imports this module

        if ev.duplicate_of is not None:
            counts["duplicate_outputs"] += 1
            return
        counts["evaluations"] += 1
        counts[f"verdict_{ev.result.verdict}"] += 1
        if store is not None:
            store.add(
                evaluation_row(ev, self.validator.config_hash),
                violation_rows(ev, self.config.storage.store_matched_text),
            )

    def identify(self, span: SpanRecord, ancestor: AncestorLookup | None = None) -> Identity:
        """Agent id, name and session from the span or its nearest ancestors in the trace."""
        agent_id = agent_name = session = trust = None
        current: SpanRecord | None = span
        depth = 0
        while current is not None and depth < _MAX_DEPTH:
            attrs = current.attributes
            agent_id = agent_id or _str(attrs.get(A.GEN_AI_AGENT_ID))
            agent_name = agent_name or _str(attrs.get(A.GEN_AI_AGENT_NAME)) or _str(attrs.get(A.AGENT_NAME))
            if agent_name is None and str(attrs.get(A.TRACELOOP_SPAN_KIND, "")).lower() == "agent":
                agent_name = _str(attrs.get(A.TRACELOOP_ENTITY_NAME))
            session = session or _str(attrs.get(A.GEN_AI_CONVERSATION_ID)) or _str(attrs.get(A.SESSION_ID))
            trust = trust if trust is not None else _float(attrs.get(A.AGENT_TRUST))
            if agent_id and session and trust is not None:
                break
            parent = current.parent_span_id
            current = ancestor(parent) if (ancestor and parent) else None
            depth += 1
        if trust is None:
            trust = _float(span.resource.get(A.AGENT_TRUST))
        resolved = agent_id or agent_name or span.service or "unknown"
        return Identity(resolved, agent_name, session, trust)

    def trust_for(self, identity: Identity) -> float | None:
        """Config rules first; the span's own trust attribute only when the config allows it."""
        rule = self._rule(identity, "trust")
        if rule is not None:
            return rule.trust
        if self.config.agents.trust_from_attributes and identity.trust_attribute is not None:
            return identity.trust_attribute
        return None  # the validator applies validation.defaultTrust

    def mode_for(self, identity: Identity) -> str:
        rule = self._rule(identity, "mode")
        return rule.mode if rule is not None else self.config.agents.default_mode

    def _rule(self, identity: Identity, field: str):
        for rule in self.config.agents.rules:
            if getattr(rule, field) is None:
                continue
            if matches(rule.match, identity.agent_id) or (
                identity.agent_name and matches(rule.match, identity.agent_name)
            ):
                return rule
        return None


def _evaluation(span, output, identity, mode, result, enforced, text, digest: str | None = None) -> Evaluation:
    ended = span.end_ns or span.start_ns
    # Stored as naive UTC: DuckDB returns TIMESTAMPTZ only with pytz installed.
    when = (datetime.fromtimestamp(ended / 1e9, UTC) if ended else datetime.now(UTC)).replace(tzinfo=None)
    return Evaluation(
        evaluation_id=uuid.uuid4().hex,
        span=span,
        output=output,
        identity=identity,
        mode=mode,
        result=result,
        enforced=enforced,
        time=when,
        text_length=len(text),
        text_sha256=digest or _sha256(text),
    )


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _str(value: Any) -> str | None:
    return str(value) if value not in (None, "") else None


def _float(value: Any) -> float | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None
