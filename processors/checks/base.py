"""The checks contract: what every claimwatch check takes and returns.

A check looks at one span record with a read-only view of its trace and the
agent's resolved identity, trust and mode, and returns a `CheckResult`: a
verdict, findings of one shared shape, the span annotations it wants and the
rows for its own tables. It never blocks, redacts or writes anything itself:
the adapters (SDK processor, collector engine, call-site guards) apply the
outcome, and the enforce rule (`enforce` mode and a `block` verdict) lives in
`claimwatch.checks.pipeline`, nowhere else.

A check module exports `CHECK`, a `CheckSpec` naming the check, its config
model, its factory, its migrations and its attribute namespace; registering
it is one line in `claimwatch/checks/__init__.py`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import BaseModel

from ..otel.records import EventRecord, SpanRecord

if TYPE_CHECKING:
    from ..core.config import ClaimwatchConfig
    from ..otel.extract import Output

VERDICTS = ("pass", "flag", "block")
SEVERITIES = ("info", "low", "medium", "high", "critical")
_RANK = {"pass": 0, "error_fallback": 0, "flag": 1, "block": 2}


def worst(verdicts: Sequence[str]) -> str:
    """The most severe of `verdicts` (pass when empty)."""
    return max(verdicts, key=_RANK.__getitem__, default="pass")


@dataclass(frozen=True, slots=True)
class Identity:
    """Who produced a span: resolved from the span and its ancestors."""

    agent_id: str
    agent_name: str | None
    session_id: str | None
    trust_attribute: float | None


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing a check found, in the shape every check shares.

    `columns` fills check-specific columns of the shared `violations` table
    (the output check's category, detector, subject, ...); anything else a
    check wants to keep goes in its own table through `CheckResult.rows`.
    """

    check: str
    verdict: str  # pass | flag | block
    severity: str  # one of SEVERITIES
    reason: str
    span_id: str  # the span the finding concerns
    columns: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class CheckResult:
    """What one check concluded about one span.

    `attributes` and `events` are the span annotations at the configured
    verbosity (already filtered: nothing here may carry text that must not
    leave when the output is blocked, unless `sensitive_events` says so);
    `rows` maps the check's own table names to rows keyed by column; the
    shared `evaluations` and `violations` rows are built by the pipeline from
    this result plus `evaluation_columns` and each finding's `columns`.
    `blocked_texts` are the texts that must not travel downstream when the
    pipeline enforces a block (the redaction covers every attribute and event
    of the trace that carries them).
    """

    check: str
    verdict: str
    findings: tuple[Finding, ...] = ()
    severity: str = "info"
    reason: str = ""
    # A short phrase for the block notice that replaces blocked content; it must not quote
    # the output ("it contradicts known facts").
    block_reason: str = ""
    evaluation_us: float = 0.0
    attributes: Mapping[str, Any] = field(default_factory=dict)
    events: tuple[EventRecord, ...] = ()
    evaluation_columns: Mapping[str, Any] = field(default_factory=dict)
    rows: Mapping[str, Sequence[Mapping[str, Any]]] = field(default_factory=dict)
    blocked_texts: tuple[str, ...] = ()
    error: str | None = None
    detail: Any = None  # the check's own result object, for in-process callers (guard)


class TraceView(Protocol):
    """Read-only access to the spans of one trace that claimwatch holds."""

    def get(self, span_id: str) -> SpanRecord | None:
        """The span with this id, if held."""

    def ancestors(self, span: SpanRecord) -> Iterator[SpanRecord]:
        """Parent, grandparent, ... as far as they are held (bounded depth)."""

    def before(self, span: SpanRecord) -> Sequence[SpanRecord]:
        """Spans of the trace that ended before `span` ended, oldest first (tool calls, retrievals, ...)."""


class CheckContext:
    """Everything a check may read about one span; identity and output are resolved once, lazily."""

    def __init__(
        self,
        span: SpanRecord,
        trace: TraceView,
        resolve: Callable[[SpanRecord], tuple[Identity, float | None, str]],
        verbosity: str = "info",
        extract: Callable[[SpanRecord], Output | None] | None = None,
    ) -> None:
        self.span = span
        self.trace = trace
        self._verbosity = verbosity
        self._resolve = resolve
        self._extract = extract
        self._who_value: tuple[Identity, float | None, str] | None = None
        self._output_value: Output | None = None
        self._output_read = False

    # Plain lazy attributes rather than functools.cached_property, which in Python 3.11 takes
    # a lock shared by every instance on each first read: measurable on every LLM span.
    @property
    def _who(self) -> tuple[Identity, float | None, str]:
        if self._who_value is None:
            self._who_value = self._resolve(self.span)
        return self._who_value

    @property
    def identity(self) -> Identity:
        return self._who[0]

    @property
    def trust(self) -> float | None:
        """The agent's trust from config rules (or a trusted attribute); None means the default."""
        return self._who[1]

    @property
    def mode(self) -> str:
        """audit or enforce, per agent glob."""
        return self._who[2]

    @property
    def verbosity(self) -> str:
        """silent, info or debug; debug is capped at info for an enforcing agent, because its
        output may be blocked and debug annotations quote the output."""
        if self._verbosity == "debug" and self.mode == "enforce":
            return "info"
        return self._verbosity

    @property
    def output(self) -> Output | None:
        """The LLM output on this span (text and tool calls), or None."""
        if not self._output_read:
            self._output_value = self._extract(self.span) if self._extract is not None else None
            self._output_read = True
        return self._output_value


class Check(Protocol):
    """A check instance, built once from config by its spec's factory."""

    name: str

    def wants(self, span: SpanRecord) -> bool:
        """A cheap look (attribute names, span name) that says whether `run` could find anything."""

    def run(self, ctx: CheckContext) -> CheckResult | None:
        """The result for this span, or None when the check has nothing to say about it. Never raises."""

    # Optional: `reuse(result, ctx) -> CheckResult` re-renders a result a call-site guard
    # produced for this span (`guard`, `guard_tool`) with what the ended span carries.


# The columns every check's own table starts with; the pipeline fills them on each row.
OWN_TABLE_KEYS = """
    evaluation_id VARCHAR NOT NULL,
    time TIMESTAMP NOT NULL, -- UTC
    trace_id VARCHAR,
    span_id VARCHAR,
    agent_id VARCHAR,
    session_id VARCHAR,
    mode VARCHAR"""


def own_table(name: str, columns: str) -> str:
    """`CREATE TABLE name (...)` for a check's own table: the shared key columns, then `columns`."""
    return f"CREATE TABLE {name} ({OWN_TABLE_KEYS},\n{columns.strip().rstrip(',')}\n)"


@dataclass(frozen=True, slots=True)
class Migration:
    """One append-only schema step of a check's own tables."""

    version: int
    name: str
    sql: str


@dataclass(frozen=True, slots=True)
class CheckSpec:
    """A check as registered: name, config section model, factory, own tables and attribute namespace.

    `config_model` validates `checks.<name>` of the config file (camelCase or
    snake_case keys, unknown keys refused); the factory gets the validated
    section and the whole config.
    """

    name: str
    description: str
    config_model: type[BaseModel]
    factory: Callable[[BaseModel, ClaimwatchConfig], Check]
    migrations: tuple[Migration, ...] = ()
    attribute_prefix: str = ""
    enabled_by_default: bool = True
    evaluation_name: str = ""  # gen_ai.evaluation.name of its result event; default claimwatch.<name>
