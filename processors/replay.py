"""Replay: what a candidate config would have concluded, before anyone enforces it.

Two sources:

- `replay_claims`: the output check's stored claims (the `claims` table) judged again
  under the candidate's facts, policies, trust rules and `blockMinConfidence`,
  compared with the verdicts recorded in `evaluations`. Detection is not re-run.
  Claims are grouped in DuckDB by everything the judgement depends on (the
  agent's candidate policy, category, subject, assertion, polarity, role,
  confidence, and which side of each fact's expiry the claim fell), each group is
  judged once in Python, and the per-group actions are joined back and folded per
  evaluation in DuckDB: a million claims cost a few thousand judgements.
- `replay_otlp`: OTLP/JSON lines (the OpenTelemetry Collector's file exporter)
  run through the whole pipeline, detection included, once under a baseline
  config and once under the candidate, compared span by span.

Both give a `ReplayReport`: per agent and trust tier, evaluations and the
flag/block rates now and under the candidate, the verdicts that flip with
example claims, and the facts behind the flips.
"""

from __future__ import annotations

import json
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import pyarrow as pa

from .checks.base import Identity
from .checks.pipeline import Pipeline
from .core.config import BuiltinDetectors, ClaimwatchConfig
from .core.model import Claim
from .core.policy import PolicyResolver
from .core.validator import OutputValidator

RANK = {"pass": 0, "flag": 1, "block": 2}
VERDICTS = ("pass", "flag", "block")
_ACTION_RANK = {"none": 0, "ignore": 0, "flag": 1, "block": 2}


class ReplayError(ValueError):
    """The replay cannot run: a missing table, an unreadable file; the text says why."""


# --- the report -----------------------------------------------------------------------------------


@dataclass
class AgentRow:
    """One agent at one trust tier: its evaluations and rates now and under the candidate."""

    agent_id: str
    trust_tier: str | None
    candidate_tier: str | None
    mode: str
    candidate_mode: str
    evaluations: int = 0
    now: Counter = field(default_factory=Counter)
    candidate: Counter = field(default_factory=Counter)
    flips: Counter = field(default_factory=Counter)

    def to_dict(self) -> dict[str, Any]:
        n = self.evaluations or 1
        return {
            "agent_id": self.agent_id,
            "trust_tier": self.trust_tier,
            "candidate_trust_tier": self.candidate_tier,
            "mode": self.mode,
            "candidate_mode": self.candidate_mode,
            "evaluations": self.evaluations,
            "flag_pct_now": round(100.0 * self.now["flag"] / n, 2),
            "block_pct_now": round(100.0 * self.now["block"] / n, 2),
            "flag_pct_candidate": round(100.0 * self.candidate["flag"] / n, 2),
            "block_pct_candidate": round(100.0 * self.candidate["block"] / n, 2),
            "flips": dict(sorted(self.flips.items())),
        }


@dataclass
class Flip:
    """Every evaluation whose verdict moves from `before` to `after`, with examples and facts."""

    before: str
    after: str
    count: int
    examples: list[dict] = field(default_factory=list)
    facts: list[dict] = field(default_factory=list)

    @property
    def name(self) -> str:
        return f"{self.before}->{self.after}"

    def to_dict(self) -> dict[str, Any]:
        return {"flip": self.name, "count": self.count, "examples": self.examples, "facts": self.facts}


@dataclass
class ReplayReport:
    source: str  # "claims" (stored claims) or "otlp" (a file of OTLP/JSON lines)
    candidate: dict[str, Any]
    baseline: dict[str, Any]
    window: dict[str, Any]
    agents: list[AgentRow]
    flips: list[Flip]
    evaluations: int
    claims: int = 0
    judgements: int = 0  # claim groups judged (claims) or spans run twice (otlp)
    not_replayed: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def totals(self) -> dict[str, Any]:
        now, cand, flips = Counter(), Counter(), Counter()
        for row in self.agents:
            now.update(row.now)
            cand.update(row.candidate)
            flips.update(row.flips)
        n = self.evaluations or 1
        return {
            "flag_pct_now": round(100.0 * now["flag"] / n, 2),
            "block_pct_now": round(100.0 * now["block"] / n, 2),
            "flag_pct_candidate": round(100.0 * cand["flag"] / n, 2),
            "block_pct_candidate": round(100.0 * cand["block"] / n, 2),
            "flips": sum(flips.values()),
            "to_block": sum(v for k, v in flips.items() if k.endswith("->block")),
            "to_pass": sum(v for k, v in flips.items() if k.endswith("->pass")),
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "candidate": self.candidate,
            "baseline": self.baseline,
            "window": self.window,
            "evaluations": self.evaluations,
            "claims": self.claims,
            "judgements": self.judgements,
            "totals": self.totals(),
            "agents": [row.to_dict() for row in self.agents],
            "flips": [f.to_dict() for f in self.flips],
            "not_replayed": self.not_replayed,
            "notes": self.notes,
            "seconds": round(self.seconds, 3),
        }


# --- replaying stored claims ----------------------------------------------------------------------

def _window(alias: str = "") -> str:
    a = f"{alias}." if alias else ""
    return f"{a}time >= $since AND ($until IS NULL OR {a}time < $until) AND ($agent IS NULL OR {a}agent_id GLOB $agent)"


_AGENTS_SQL = f"""
SELECT agent_id, coalesce(agent_name, '') AS agent_name, coalesce(trust_score, -1.0) AS trust_key
FROM evaluations
WHERE check_name = 'output' AND {_window()}
GROUP BY ALL
"""

# The stored evaluations of the window, each with its agent's candidate policy (pid).
_EV_CTE = f"""
ev AS (
    SELECT e.evaluation_id, e.time, e.agent_id, e.trust_tier, e.mode, e.verdict, e.text_length, e.skipped, e.claim_count,
           a.pid, a.candidate_tier, a.candidate_mode, a.trunc_rank, a.policy_skipped
    FROM evaluations e
    JOIN _replay_agents a
      ON e.agent_id = a.agent_id AND coalesce(e.agent_name, '') = a.agent_name
     AND coalesce(e.trust_score, -1.0) = a.trust_key
    WHERE e.check_name = 'output' AND {_window("e")}
)"""

# The claims of the window that the candidate's limits still reach, with their agent's
# candidate policy (pid), keyed as groups are. `{policy}` joins that policy in: through
# a small (agent, recorded trust) table when the agent's name changes nothing, else
# through each claim's evaluation.
_CLAIMS_CTE = f"""
cl AS (
    SELECT c.evaluation_id, p.pid, c.category, coalesce(c.subject, '') AS subject,
           coalesce(c.assertion, '') AS assertion, coalesce(c.negative, false) AS negative,
           coalesce(c.role, '') AS role, coalesce(c.confidence, 0.0) < $min_confidence AS low,
           coalesce(c.confidence, 0.0) AS confidence, {{epoch}} AS epoch, c.time, c.detector_id,
           c.matched_text, c.trace_id, c.span_id, c.agent_id, c.action, c.fact_status, c.fact_id, c.expected,
           coalesce(c.claim_index, 0) < $max_claims AND coalesce(c.claim_offset, 0) < $max_length AS reach
    FROM claims c {{policy}}
    WHERE {_window("c")} AND NOT p.policy_skipped
)"""
_POLICY_BY_AGENT = (
    "JOIN _replay_claim_policy p ON c.agent_id = p.agent_id AND coalesce(c.trust_score, -1.0) = p.trust_key"
)
_POLICY_BY_EVALUATION = "JOIN ev p USING (evaluation_id)"

# A group: claims the candidate must judge alike (same policy, claim fields, and side of
# `blockMinConfidence`; a claim's confidence matters to the verdict only there).
_KEY = ("pid", "category", "subject", "assertion", "negative", "role", "low")

_GROUPS_SQL = f"""
WITH {_EV_CTE}, {_CLAIMS_CTE}
SELECT {", ".join(_KEY)}, min(confidence) AS confidence, any_value(detector_id) AS detector_id,
       count(*) AS claims
FROM cl
WHERE reach
GROUP BY ALL
"""

# Groups whose fact check depends on when the claim was made, split by expiry epoch.
_TIMED_SQL = f"""
WITH {_EV_CTE}, {_CLAIMS_CTE}
SELECT {", ".join(f"cl.{k}" for k in _KEY)}, cl.epoch, epoch_ms(min(cl.time)) / 1000.0 AS at
FROM cl SEMI JOIN _replay_timed t ON {" AND ".join(f"t.{k} = cl.{k}" for k in _KEY)}
WHERE cl.reach
GROUP BY ALL
"""

# Each claim's group; a group judged per epoch (timed) matches only claims of its epoch.
# Claims past the candidate's maxClaimsPerOutput or maxTextLength have none: the candidate
# would not have found them.
_GROUP_JOIN = f"""
JOIN _replay_groups g ON {" AND ".join(f"g.{k} = cl.{k}" for k in _KEY)} AND (g.epoch = -1 OR g.epoch = cl.epoch)
 AND cl.reach
"""

_EVALUATIONS_SQL = f"""
WITH {_EV_CTE}, {_CLAIMS_CTE},
worst AS (SELECT cl.evaluation_id, max(g.rank) AS rank FROM cl LEFT {_GROUP_JOIN} GROUP BY cl.evaluation_id)
SELECT ev.evaluation_id, ev.time, ev.agent_id, ev.trust_tier, ev.candidate_tier, ev.mode, ev.candidate_mode,
       ev.verdict AS now,
       CASE
         WHEN ev.verdict = 'error_fallback' THEN 'error_fallback'
         WHEN ev.policy_skipped OR coalesce(ev.text_length, $min_length) < $min_length THEN 'pass'
         -- claims were found but none is stored (written before claims were kept): unknown
         WHEN coalesce(ev.claim_count, 0) > 0 AND w.evaluation_id IS NULL THEN 'claims_missing'
         ELSE ['pass', 'flag', 'block'][1 + greatest(
             coalesce(w.rank, 0),
             CASE WHEN coalesce(ev.text_length, 0) > $max_length THEN ev.trunc_rank ELSE 0 END)]
       END AS candidate,
       ev.skipped IS NOT NULL AND NOT ev.policy_skipped AS was_skipped
FROM ev LEFT JOIN worst w USING (evaluation_id)
"""

_SUMMARY_SQL = """
SELECT agent_id, trust_tier, candidate_tier, mode, candidate_mode, now, candidate, count(*) AS n
FROM _replay_ev
WHERE now <> 'error_fallback' AND candidate <> 'claims_missing'
GROUP BY ALL
ORDER BY ALL
"""

# The claims behind each flip: for a verdict that rises, the claims the candidate acts on
# at the new level; for one that falls, the claims that were acted on at the old level.
# `{flipped}` is the set of evaluations looked at: every flip for the facts, a few
# recent ones per flip for the examples.
_DRIVING_CTE = f"""
WITH {_EV_CTE}, {_CLAIMS_CTE},
driving AS (
    SELECT f.now, f.candidate, cl.*, g.action AS candidate_action, g.fact_status AS candidate_status,
           g.fact_id AS candidate_fact, g.expected AS candidate_expected
    FROM cl JOIN ({{flipped}}) f USING (evaluation_id) {_GROUP_JOIN}
    WHERE (f.candidate = 'block' AND g.rank = 2) OR (f.candidate = 'flag' AND f.now = 'pass' AND g.rank = 1)
       OR (f.now = 'block' AND f.candidate <> 'block' AND cl.action = 'block')
       OR (f.now = 'flag' AND f.candidate = 'pass' AND cl.action = 'flag')
)"""
_ALL_FLIPS = "SELECT evaluation_id, now, candidate FROM _replay_ev WHERE now <> candidate AND now <> 'error_fallback' AND candidate <> 'claims_missing'"
_RECENT_FLIPS = f"""
SELECT evaluation_id, now, candidate FROM ({_ALL_FLIPS.replace("SELECT evaluation_id,", "SELECT evaluation_id, time,")})
QUALIFY row_number() OVER (PARTITION BY now, candidate ORDER BY time DESC, evaluation_id) <= $examples
"""

_FLIP_FACTS_SQL = f"""
{_DRIVING_CTE.replace("{flipped}", _ALL_FLIPS)}
SELECT now, candidate, fact_id, fact_status, candidate_fact, candidate_status, count(*) AS claims,
       count(DISTINCT evaluation_id) AS evaluations
FROM driving GROUP BY ALL
ORDER BY now, candidate, claims DESC, fact_id NULLS LAST, candidate_fact NULLS LAST
"""

_FLIP_EXAMPLES_SQL = f"""
{_DRIVING_CTE.replace("{flipped}", _RECENT_FLIPS)}
SELECT now, candidate, time, agent_id, trace_id, span_id, category, detector_id, subject, assertion, negative,
       matched_text, action, fact_status, fact_id, expected, candidate_action, candidate_status, candidate_fact,
       candidate_expected
FROM driving
QUALIFY row_number() OVER (PARTITION BY now, candidate ORDER BY time DESC, evaluation_id, subject) <= $examples
ORDER BY now, candidate, time DESC, evaluation_id, subject
"""


def replay_claims(
    con,
    candidate: ClaimwatchConfig,
    *,
    since: datetime,
    until: datetime | None = None,
    agent: str | None = None,
    examples: int = 3,
    candidate_label: str | None = None,
) -> ReplayReport:
    """Judge the stored claims of `[since, until)` again under `candidate`; compare with the stored verdicts."""
    started = time.perf_counter()
    _require_tables(con)
    validator = OutputValidator(_judging_only(candidate))
    limits = candidate.validation.performance
    params = {"since": since, "until": until, "agent": agent}
    cursor = con.cursor()
    try:
        agents = _candidate_policies(cursor.execute(_AGENTS_SQL, params).fetchall(), candidate)
        cursor.register("_replay_agents", agents.table)
        if agents.by_agent is not None:
            cursor.register("_replay_claim_policy", agents.by_agent)
        boundaries = _expiry_boundaries(candidate)
        epoch = _epoch_sql(boundaries)
        policy = _POLICY_BY_AGENT if agents.by_agent is not None else _POLICY_BY_EVALUATION

        def sql(text: str) -> str:
            return text.replace("{epoch}", epoch).replace("{policy}", policy)

        claim_params = {
            **params,
            "max_claims": limits.max_claims_per_output,
            "max_length": limits.max_text_length,
            "min_confidence": candidate.validation.block_min_confidence,
        }
        groups = _arrow(cursor, sql(_GROUPS_SQL), claim_params)
        judged, timed, judgements = _judge_groups(groups, agents, validator, _Expiring.of(candidate))
        if timed.num_rows:
            cursor.register("_replay_timed", timed)
            per_epoch = _arrow(cursor, sql(_TIMED_SQL), claim_params)
            judged = pa.concat_tables([judged, _judge_epochs(per_epoch, agents, validator)])
            judgements += per_epoch.num_rows
        cursor.register("_replay_groups", judged)
        ev_params = {**claim_params, "min_length": candidate.validation.min_text_length}
        per_ev = _arrow(cursor, sql(_EVALUATIONS_SQL), ev_params)
        cursor.register("_replay_ev", per_ev)
        rows = _agent_rows(cursor.execute(_SUMMARY_SQL).fetchall())
        fact_rows, example_rows, example_columns = [], [], []
        if any(row.flips for row in rows):
            fact_rows = cursor.execute(sql(_FLIP_FACTS_SQL), claim_params).fetchall()
            example_rows = cursor.execute(sql(_FLIP_EXAMPLES_SQL), {**claim_params, "examples": examples}).fetchall()
            example_columns = [d[0] for d in cursor.description]
        not_replayed = _not_replayed(cursor)
    finally:
        cursor.close()
    report = ReplayReport(
        source="claims",
        candidate={"path": candidate_label, "config_hash": candidate.config_hash},
        baseline={"verdicts": "as recorded"},
        window={"since": _iso(since), "until": _iso(until), "agent": agent},
        agents=rows,
        flips=_flips(rows, fact_rows, example_rows, example_columns),
        evaluations=sum(r.evaluations for r in rows),
        claims=sum(groups.column("claims").to_pylist()),
        judgements=judgements,
        not_replayed=not_replayed,
        notes=_claim_notes(not_replayed, agents, limits),
    )
    report.seconds = time.perf_counter() - started
    return report


def _arrow(cursor, sql: str, params: dict) -> pa.Table:
    """A query's answer as an Arrow table, without the extra copy of a DB-API fetch."""
    relation = cursor.sql(sql, params=params)
    fetch = getattr(relation, "to_arrow_table", None) or relation.arrow  # DuckDB 2 / DuckDB 1
    return fetch()


def _judging_only(config: ClaimwatchConfig) -> ClaimwatchConfig:
    """The candidate without detectors: replay judges stored claims, and compiling the
    detectors' patterns would cost seconds for nothing. Facts and policies are untouched."""
    v = config.validation
    off = BuiltinDetectors(**{family: False for family in BuiltinDetectors.model_fields})
    return config.model_copy(update={"validation": v.model_copy(update={"builtin_detectors": off, "custom_detectors": ()})})


def _require_tables(con) -> None:
    cursor = con.cursor()
    try:
        names = {r[0] for r in cursor.execute("SELECT table_name FROM information_schema.tables").fetchall()}
    finally:
        cursor.close()
    missing = [t for t in ("evaluations", "claims") if t not in names]
    if missing:
        raise ReplayError(
            f"the database has no {' or '.join(missing)} table (written by claimwatch since claims are stored); "
            "replay a capture with --otlp FILE instead"
        )


@dataclass
class _Policies:
    table: pa.Table  # one row per (agent, name, recorded trust): pid and the candidate's view of it
    representative: dict[int, tuple[str, float]]  # pid -> an (agent, trust) that resolves to that policy
    checked_more: int = 0  # agents recorded at a trusted tier that the candidate checks in full
    # (agent, recorded trust) -> pid, when no agent's name changes its policy (the usual case)
    by_agent: pa.Table | None = None


def _candidate_policies(rows, candidate: ClaimwatchConfig) -> _Policies:
    """Each (agent, name, recorded trust) with the candidate's trust, tier, mode and policy.

    Trust under the candidate is its agent rule's when one matches; otherwise the trust
    the output was recorded with (it came from a rule, a span attribute or the default,
    and the stored row cannot say which).
    """
    pipeline = Pipeline(candidate, checks=[])  # identity rules only: no check is built
    resolver = PolicyResolver(candidate.validation)
    pids: dict[Any, int] = {}
    representative: dict[int, tuple[str, float]] = {}
    columns: dict[str, list] = defaultdict(list)
    checked_more = 0
    for agent_id, agent_name, trust_key in rows:
        identity = Identity(agent_id, agent_name or None, None, None)
        trust = pipeline.trust_for(identity)  # the candidate's rule (no attribute is passed)
        if trust is None:
            trust = None if trust_key < 0 else trust_key
        resolved = resolver.trust(trust)
        policy = resolver.resolve(agent_id, resolved)
        # Claims of agents with the same policy are judged alike: one group, one judgement.
        pid = pids.setdefault(policy, len(pids))
        representative.setdefault(pid, (agent_id, resolved.score))
        recorded_tier = None if trust_key < 0 else resolver.trust(trust_key).tier
        if recorded_tier in ("trusted", "privileged") and not policy.contradiction_only and not policy.skipped:
            checked_more += 1
        columns["agent_id"].append(agent_id)
        columns["agent_name"].append(agent_name)
        columns["trust_key"].append(float(trust_key))
        columns["pid"].append(pid)
        columns["candidate_tier"].append(resolved.tier)
        columns["candidate_mode"].append(pipeline.mode_for(identity))
        columns["trunc_rank"].append(_ACTION_RANK.get(policy.truncated, 0))
        columns["policy_skipped"].append(policy.skipped is not None)
    schema = pa.schema(
        [
            ("agent_id", pa.string()),
            ("agent_name", pa.string()),
            ("trust_key", pa.float64()),
            ("pid", pa.int32()),
            ("candidate_tier", pa.string()),
            ("candidate_mode", pa.string()),
            ("trunc_rank", pa.int32()),
            ("policy_skipped", pa.bool_()),
        ]
    )
    table = pa.table({name: columns.get(name, []) for name in schema.names}, schema=schema)
    seen: dict[tuple[str, float], tuple[int, bool]] = {}
    consistent = True
    for agent_id, trust_key, pid, skipped in zip(
        columns["agent_id"], columns["trust_key"], columns["pid"], columns["policy_skipped"], strict=True
    ):
        if seen.setdefault((agent_id, trust_key), (pid, skipped)) != (pid, skipped):
            consistent = False
    by_agent = None
    if consistent:
        by_agent = pa.table(
            {
                "agent_id": [k[0] for k in seen],
                "trust_key": [k[1] for k in seen],
                "pid": [v[0] for v in seen.values()],
                "policy_skipped": [v[1] for v in seen.values()],
            },
            schema=pa.schema(
                [("agent_id", pa.string()), ("trust_key", pa.float64()), ("pid", pa.int32()), ("policy_skipped", pa.bool_())]
            ),
        )
    return _Policies(table, representative, checked_more, by_agent)


def _expiry_boundaries(config: ClaimwatchConfig) -> list[datetime]:
    """The instants at which a fact of the candidate expires (naive UTC, like the tables).

    A claim's fact check can only change where one of these falls between two claims,
    so claims are grouped by how many of them lie before the claim. A fact with a TTL
    and no `updatedAt` counts from when the validator loaded it (here: now), so it has
    not expired for any stored claim (`claimwatch.core.facts` reads TTLs the same way).
    """
    out = set()
    for registry in config.validation.fact_registries:
        for fact in registry.facts:
            if fact.ttl_seconds is None or fact.updated_at is None:
                continue
            base = fact.updated_at if fact.updated_at.tzinfo else fact.updated_at.replace(tzinfo=UTC)
            out.add(datetime.fromtimestamp(base.timestamp() + fact.ttl_seconds, UTC).replace(tzinfo=None))
    return sorted(out)


def _epoch_sql(boundaries: list[datetime]) -> str:
    """SQL for the number of expiry instants strictly before a claim's time (0 with none)."""
    if not boundaries:
        return "0"
    # The instants are ours (datetimes from a validated config), formatted, not user text.
    terms = [f"(c.time > TIMESTAMP '{b.isoformat(sep=' ')}')::INTEGER" for b in boundaries]
    return "(" + " + ".join(terms) + ")"


_KEY_FIELDS = [
    ("pid", pa.int32()),
    ("category", pa.string()),
    ("subject", pa.string()),
    ("assertion", pa.string()),
    ("negative", pa.bool_()),
    ("role", pa.string()),
    ("low", pa.bool_()),
]
_GROUP_SCHEMA = pa.schema(
    [
        *_KEY_FIELDS,
        ("epoch", pa.int32()),  # -1: the same at any time
        ("rank", pa.int32()),
        ("action", pa.string()),
        ("fact_status", pa.string()),
        ("fact_id", pa.string()),
        ("expected", pa.string()),
    ]
)
_BEFORE_ANY_EXPIRY, _AFTER_EVERY_EXPIRY = float("-inf"), float("inf")


def _claims_of(cols: dict[str, list], n: int) -> list[Claim]:
    return [
        Claim(
            category=cols["category"][i],
            detector_id=(cols.get("detector_id") or [""] * n)[i] or "",
            matched_text="",
            offset=0,
            subject=cols["subject"][i],
            assertion=cols["assertion"][i],
            negative=cols["negative"][i],
            confidence=cols["confidence"][i],
            role=cols["role"][i] or None,
        )
        for i in range(n)
    ]


def _outcomes(validator: OutputValidator, claims: list[Claim], who: tuple[str, float], now: float) -> list[tuple]:
    """(action, fact status, fact id, expected) of each claim, judged in one call."""
    result = validator.judge(claims, who[0], who[1], now=now)
    if result.error:
        raise ReplayError(f"the candidate could not judge stored claims: {result.error}")
    checks = {id(f.claim): f for f in result.fact_checks}
    actions = {id(v.claim): v.policy for v in result.violations}
    out = []
    for claim in claims:
        f = checks.get(id(claim))
        out.append((actions.get(id(claim), "none"), *((f.status, f.fact_id, f.expected) if f else (None, None, None))))
    return out


def _by_pid(pids: list[int]) -> dict[int, list[int]]:
    rows: dict[int, list[int]] = defaultdict(list)
    for i, pid in enumerate(pids):
        rows[pid].append(i)
    return rows


@dataclass(frozen=True)
class _Expiring:
    """The candidate's facts that expire (a TTL), and their categories."""

    facts: frozenset[str]
    categories: frozenset[str]

    @classmethod
    def of(cls, config: ClaimwatchConfig) -> _Expiring:
        facts = [f for r in config.validation.fact_registries for f in r.facts if f.ttl_seconds is not None]
        return cls(frozenset(f.id for f in facts), frozenset(f.category for f in facts))

    def may_change(self, category: str, outcome: tuple) -> bool:
        """Could this answer (given as if no fact had expired) differ at another time?

        Lookup is per category, so only a category with expiring facts can. The first
        fact that speaks to a claim decides it; when that fact never expires, no expiry
        changes the answer (an expired fact before it would not have spoken either).
        With no fact speaking, an expired one may turn 'no fact' into 'expired'.
        """
        if category not in self.categories:
            return False
        _action, status, fact_id, _expected = outcome
        return status == "no_fact_found" or fact_id in self.facts


def _judge_groups(
    groups: pa.Table, policies: _Policies, validator: OutputValidator, expiring: _Expiring
) -> tuple[pa.Table, pa.Table, int]:
    """(judged groups, groups whose answer depends on when, judgements made).

    Each policy's groups are judged in one call as if no fact had expired. Those whose
    answer could change with time are judged again as if every expiring fact had
    expired; where the two agree the answer holds at any time (the first fact that
    speaks decides, expired or not, so no expiry in between changes it). The rest
    are judged per expiry epoch (`_judge_epochs`).
    """
    n = groups.num_rows
    cols = {name: groups.column(name).to_pylist() for name in groups.column_names}
    claims = _claims_of(cols, n)
    early: list = [None] * n
    moving: list[int] = []
    judgements = n
    for pid, rows in _by_pid(cols["pid"]).items():
        who = policies.representative[pid]
        for i, outcome in zip(rows, _outcomes(validator, [claims[i] for i in rows], who, _BEFORE_ANY_EXPIRY), strict=True):
            early[i] = outcome
        again = [i for i in rows if expiring.may_change(cols["category"][i], early[i])]
        if again:
            judgements += len(again)
            late = _outcomes(validator, [claims[i] for i in again], who, _AFTER_EVERY_EXPIRY)
            moving += [i for i, outcome in zip(again, late, strict=True) if outcome != early[i]]
    moved = set(moving)
    fixed = [i for i in range(n) if i not in moved]
    judged = _group_table(cols, fixed, [-1] * len(fixed), [early[i] for i in fixed])
    timed_keys = pa.table({k: [cols[k][i] for i in moving] for k, _ in _KEY_FIELDS}, schema=pa.schema(_KEY_FIELDS))
    return judged, timed_keys, judgements


def _judge_epochs(per_epoch: pa.Table, policies: _Policies, validator: OutputValidator) -> pa.Table:
    """Time-dependent groups judged once per expiry epoch, as of a claim of that epoch."""
    n = per_epoch.num_rows
    cols = {name: per_epoch.column(name).to_pylist() for name in per_epoch.column_names}
    cols["confidence"] = [0.0 if low else 1.0 for low in cols["low"]]  # only its side of the threshold counts
    claims = _claims_of(cols, n)
    batches: dict[tuple[int, int], list[int]] = defaultdict(list)
    for i in range(n):
        batches[(cols["pid"][i], cols["epoch"][i])].append(i)
    outcomes: list = [None] * n
    for (pid, _epoch), rows in batches.items():
        # Every claim of one epoch lies between the same two expiry instants: any one's time will do.
        now = cols["at"][rows[0]]
        batch = [claims[i] for i in rows]
        for i, outcome in zip(rows, _outcomes(validator, batch, policies.representative[pid], now), strict=True):
            outcomes[i] = outcome
    return _group_table(cols, list(range(n)), cols["epoch"], outcomes)


def _group_table(cols: dict[str, list], rows: list[int], epochs: list[int], outcomes: list[tuple]) -> pa.Table:
    out: dict[str, list] = {k: [cols[k][i] for i in rows] for k, _ in _KEY_FIELDS}
    out["epoch"] = list(epochs)
    out["rank"] = [_ACTION_RANK[o[0]] for o in outcomes]
    out["action"] = [o[0] for o in outcomes]
    out["fact_status"] = [o[1] for o in outcomes]
    out["fact_id"] = [o[2] for o in outcomes]
    out["expected"] = [o[3] for o in outcomes]
    return pa.table(out, schema=_GROUP_SCHEMA)


def _agent_rows(summary) -> list[AgentRow]:
    rows: dict[tuple, AgentRow] = {}
    for agent_id, tier, cand_tier, mode, cand_mode, now, cand, n in summary:
        key = (agent_id, tier, cand_tier)
        row = rows.get(key)
        if row is None:
            row = rows[key] = AgentRow(agent_id, tier, cand_tier, mode or "", cand_mode)
        elif mode and mode not in row.mode.split(","):
            row.mode = ",".join(sorted([*filter(None, row.mode.split(",")), mode]))
        if cand_mode not in row.candidate_mode.split(","):
            row.candidate_mode = ",".join(sorted([*row.candidate_mode.split(","), cand_mode]))
        row.evaluations += n
        row.now[now] += n
        row.candidate[cand] += n
        if now != cand:
            row.flips[f"{now}->{cand}"] += n
    return sorted(rows.values(), key=lambda r: (r.agent_id, r.trust_tier or ""))


def _flips(rows: list[AgentRow], fact_rows, example_rows, example_columns) -> list[Flip]:
    counts: Counter = Counter()
    for row in rows:
        counts.update(row.flips)
    flips = {name: Flip(*name.split("->"), count) for name, count in counts.items()}
    for now, cand, fact_id, status, cand_fact, cand_status, claims, evaluations in fact_rows:
        flip = flips.get(f"{now}->{cand}")
        if flip is not None and len(flip.facts) < 10:
            flip.facts.append(
                {
                    "fact_id_now": fact_id,
                    "status_now": status,
                    "fact_id_candidate": cand_fact,
                    "status_candidate": cand_status,
                    "claims": claims,
                    "evaluations": evaluations,
                }
            )
    for values in example_rows:
        item = dict(zip(example_columns, values, strict=True))
        flip = flips.get(f"{item.pop('now')}->{item.pop('candidate')}")
        if flip is not None:
            item["time"] = _iso(item["time"])
            flip.examples.append(item)
    return sorted(flips.values(), key=_flip_order)


def _flip_order(flip: Flip) -> tuple:
    # The two that matter most for a rollout first: pass->block, then block->pass.
    first = {"pass->block": 0, "block->pass": 1}
    return (first.get(flip.name, 2), -flip.count, flip.name)


def _not_replayed(cursor) -> dict[str, int]:
    counts = dict(
        cursor.execute(
            "SELECT 'error_fallback', count(*) FILTER (WHERE now = 'error_fallback') FROM _replay_ev "
            "UNION ALL SELECT 'skipped_when_recorded', count(*) FILTER (WHERE was_skipped) FROM _replay_ev "
            "UNION ALL SELECT 'claims_missing', count(*) FILTER (WHERE candidate = 'claims_missing') FROM _replay_ev"
        ).fetchall()
    )
    return {k: int(v) for k, v in counts.items() if v}


def _claim_notes(not_replayed: dict[str, int], policies: _Policies, limits) -> list[str]:
    notes = [
        "detection is not re-run: the stored claims are judged again (replay --otlp FILE re-detects a capture)"
    ]
    if not_replayed.get("skipped_when_recorded"):
        notes.append(
            f"{not_replayed['skipped_when_recorded']} evaluation(s) were skipped when recorded (no claims stored) "
            "and the candidate would check them: they count as pass here"
        )
    if not_replayed.get("claims_missing"):
        notes.append(
            f"{not_replayed['claims_missing']} evaluation(s) found claims but have none stored (recorded before "
            "claims were kept) and are left out"
        )
    if not_replayed.get("error_fallback"):
        notes.append(f"{not_replayed['error_fallback']} evaluation(s) failed open when recorded and are left out")
    if policies.checked_more:
        notes.append(
            f"{policies.checked_more} agent(s) recorded at a trusted tier are checked in full by the candidate; "
            "their claims outside fact-checkable categories were not stored, so replay may undercount them"
        )
    return notes


# --- replaying a capture of OTLP/JSON lines -------------------------------------------------------


def read_otlp_lines(lines: Iterable[str]) -> tuple[list, int, str | None]:
    """Decode OTLP/JSON lines into spans (`ReceivedSpan`); (spans, lines skipped, first problem).

    Each line is one `ExportTraceServiceRequest` as the Collector's file exporter writes
    it; lines of logs or metrics in the same file are skipped, as are blank ones.
    """
    from .collector.otlp import MalformedRequest, iter_spans, parse_traces

    spans, skipped, problem = [], 0, None
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        if '"resourceSpans"' not in line and '"resource_spans"' not in line:
            skipped += 1
            continue
        try:
            request = parse_traces(line.encode("utf-8", "surrogatepass"), "application/json")
        except MalformedRequest as exc:
            skipped += 1
            problem = problem or f"line {number}: {exc}"
            continue
        spans.extend(iter_spans(request))
    return spans, skipped, problem


def _traces(spans) -> Iterator[tuple[dict, list]]:
    by_trace: dict[str, list] = defaultdict(list)
    for item in spans:
        by_trace[item.record.trace_id].append(item.record)
    for records in by_trace.values():
        records.sort(key=lambda r: r.end_ns or r.start_ns)
        yield {r.span_id: r for r in records}, records


def _run(pipeline: Pipeline, spans) -> dict[tuple[str, str], Any]:
    """Each span's outcome under `pipeline`, the trace assembled from the whole capture."""
    from .checks.trace import HeldTrace

    out = {}
    for index, records in _traces(spans):
        view = HeldTrace(index.get, records)
        seen: dict = {}
        for record in records:
            outcome = pipeline.process(record, view, seen=seen)
            if outcome is not None:
                out[(record.trace_id, record.span_id)] = outcome
    return out


def replay_otlp(
    lines: Iterable[str],
    candidate: ClaimwatchConfig,
    baseline: ClaimwatchConfig,
    *,
    agent: str | None = None,
    examples: int = 3,
    candidate_label: str | None = None,
    baseline_label: str | None = None,
) -> ReplayReport:
    """Run a capture through the whole pipeline under `baseline` and under `candidate`; compare per output."""
    from fnmatch import fnmatchcase

    started = time.perf_counter()
    spans, skipped, problem = read_otlp_lines(lines)
    if not spans:
        raise ReplayError(problem or "the file holds no OTLP/JSON trace lines")
    before = _run(Pipeline(baseline), spans)
    after = _run(Pipeline(candidate), spans)
    rows: dict[tuple, AgentRow] = {}
    flips: dict[str, Flip] = {}
    facts: dict[str, Counter] = defaultdict(Counter)
    evaluated = 0
    for key in sorted(before.keys() | after.keys()):
        b, a = before.get(key), after.get(key)
        if (b is not None and (b.duplicate_of or b.upstream)) or (a is not None and (a.duplicate_of or a.upstream)):
            continue
        who = (b or a).identity
        if agent is not None and not fnmatchcase(who.agent_id, agent):
            continue
        now, cand = (b.verdict if b else "pass"), (a.verdict if a else "pass")
        now, cand = _plain(now), _plain(cand)
        evaluated += 1
        tier = b.trust.tier if b is not None and b.trust else None
        cand_tier = a.trust.tier if a is not None and a.trust else None
        row_key = (who.agent_id, tier, cand_tier)
        row = rows.get(row_key)
        if row is None:
            row = rows[row_key] = AgentRow(
                who.agent_id, tier, cand_tier, b.mode if b else "", a.mode if a else ""
            )
        row.evaluations += 1
        row.now[now] += 1
        row.candidate[cand] += 1
        if now == cand:
            continue
        name = f"{now}->{cand}"
        row.flips[name] += 1
        flip = flips.setdefault(name, Flip(now, cand, 0))
        flip.count += 1
        driving = _driving(b, a, now, cand)
        for item in driving:
            facts[name][(item["fact_id"], item["fact_status"], item["candidate_fact"], item["candidate_status"])] += 1
        if len(flip.examples) < examples and driving:
            record = (b or a).span
            flip.examples.append({**driving[0], "trace_id": record.trace_id, "span_id": record.span_id,
                                  "agent_id": who.agent_id})
    for name, counter in facts.items():
        flips[name].facts = [
            {"fact_id_now": f, "status_now": s, "fact_id_candidate": cf, "status_candidate": cs, "claims": n}
            for (f, s, cf, cs), n in counter.most_common(10)
        ]
    report = ReplayReport(
        source="otlp",
        candidate={"path": candidate_label, "config_hash": candidate.config_hash},
        baseline={"path": baseline_label, "config_hash": baseline.config_hash},
        window={"agent": agent},
        agents=sorted(rows.values(), key=lambda r: (r.agent_id, r.trust_tier or "")),
        flips=sorted(flips.values(), key=_flip_order),
        evaluations=evaluated,
        claims=sum(len(o.result("output").detail.claims) for o in after.values() if _has_claims(o) and not o.duplicate_of),
        judgements=len(spans),
        not_replayed={"lines_skipped": skipped} if skipped else {},
        notes=[problem] if problem else [],
    )
    report.seconds = time.perf_counter() - started
    return report


def _plain(verdict: str) -> str:
    return verdict if verdict in RANK else "pass"  # error_fallback fails open


def _has_claims(outcome) -> bool:
    r = outcome.result("output")
    return r is not None and getattr(r.detail, "claims", None) is not None


def _driving(before, after, now: str, cand: str) -> list[dict]:
    """The findings behind a flip: the candidate's at the new level, or the baseline's at the old one."""
    rising = RANK[cand] > RANK[now]
    source, level = (after, cand) if rising else (before, now)
    other = before if rising else after
    out = []
    for result in source.results if source is not None else ():
        detail = result.detail if result.check == "output" else None
        if detail is None or not hasattr(detail, "violations"):
            if result.verdict == level:
                out.append(_finding_item(result))
            continue
        other_checks = _other_fact_checks(other)
        for v in detail.violations:
            if v.policy != level:
                continue
            c = v.claim
            twin = other_checks.get((c.category, c.subject, c.assertion, c.negative))
            item = {
                "check": "output",
                "category": c.category,
                "detector_id": c.detector_id,
                "subject": c.subject,
                "assertion": c.assertion,
                "negative": c.negative,
                "matched_text": c.matched_text,
                "reason": v.reason,
            }
            mine = (v.fact_id, v.fact_status)
            theirs = (twin.fact_id, twin.status) if twin is not None else (None, None)
            now_fact, cand_fact = (theirs, mine) if rising else (mine, theirs)
            item.update(fact_id=now_fact[0], fact_status=now_fact[1],
                        candidate_fact=cand_fact[0], candidate_status=cand_fact[1])
            out.append(item)
    return out


def _other_fact_checks(outcome) -> dict[tuple, Any]:
    r = outcome.result("output") if outcome is not None else None
    detail = getattr(r, "detail", None)
    checks = getattr(detail, "fact_checks", ()) or ()
    return {(f.claim.category, f.claim.subject, f.claim.assertion, f.claim.negative): f for f in checks}


def _finding_item(result) -> dict:
    return {
        "check": result.check,
        "reason": result.reason,
        "fact_id": None,
        "fact_status": None,
        "candidate_fact": None,
        "candidate_status": None,
    }


# --- the replay_runs table ------------------------------------------------------------------------


def save(con, report: ReplayReport) -> str:
    """Record a replay in `replay_runs` and `replay_agents` (for the dashboard); its run id.

    `con` is a DuckDB connection or an `AuditStore` (anything with `cursor()`).
    """
    cursor = con.cursor()
    try:
        return _save(cursor, report)
    finally:
        cursor.close()


def _save(con, report: ReplayReport) -> str:
    run_id = uuid.uuid4().hex
    at = datetime.now(UTC).replace(tzinfo=None)
    totals = report.totals()
    con.execute(
        "INSERT INTO replay_runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            run_id,
            at,
            report.source,
            report.candidate.get("path"),
            report.candidate.get("config_hash"),
            report.window.get("since"),
            report.window.get("until"),
            report.window.get("agent"),
            report.evaluations,
            report.claims,
            totals["flips"],
            totals["to_block"],
            totals["to_pass"],
            json.dumps(report.to_dict(), default=str, ensure_ascii=False),
        ],
    )
    for row in report.agents:
        d = row.to_dict()
        con.execute(
            "INSERT INTO replay_agents VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                run_id,
                at,
                d["agent_id"],
                d["trust_tier"],
                d["candidate_trust_tier"],
                d["mode"],
                d["candidate_mode"],
                d["evaluations"],
                d["flag_pct_now"],
                d["block_pct_now"],
                d["flag_pct_candidate"],
                d["block_pct_candidate"],
                sum(row.flips.values()),
                sum(v for k, v in row.flips.items() if k.endswith("->block")),
                sum(v for k, v in row.flips.items() if k.endswith("->pass")),
            ],
        )
    return run_id


def _iso(value) -> str | None:
    if value is None:
        return None
    if isinstance(value, datetime):
        return value.isoformat(sep=" ", timespec="seconds")
    return str(value)


def replay_request(store, body: Mapping[str, Any]) -> dict[str, Any]:
    """A replay asked of a running collector, on its own database (for `POST /api/replay`).

    A collector holds its DuckDB file, so `claimwatch replay` asks it instead of opening
    the file. `body`: {"config": the candidate config as a mapping, "configName": a label,
    "since": "7d", "until": null, "agent": null, "examples": 3, "save": true}. Returns the
    report (`ReplayReport.to_dict()`) with "run_id" when recorded. A bad request raises
    ValueError (ConfigError, QueryError, ReplayError) with a message for the caller.
    """
    from .core.config import load_config
    from .store.queries import parse_time

    if not isinstance(body, Mapping) or not isinstance(body.get("config"), Mapping):
        raise ReplayError('a replay request needs "config": the candidate config as a JSON object')
    examples = body.get("examples", 3)
    if isinstance(examples, bool) or not isinstance(examples, int) or not 0 <= examples <= 100:
        raise ReplayError(f'"examples" must be an integer from 0 to 100, got {examples!r}')
    for key in ("since", "until", "agent", "configName"):
        if body.get(key) is not None and not isinstance(body[key], str):
            raise ReplayError(f'"{key}" must be a string, got {body[key]!r}')
    candidate = load_config(dict(body["config"]))
    report = replay_claims(
        store,
        candidate,
        since=parse_time(body.get("since") or "7d"),
        until=parse_time(body["until"]) if body.get("until") else None,
        agent=body.get("agent"),
        examples=examples,
        candidate_label=body.get("configName"),
    )
    out = report.to_dict()
    if body.get("save", True):
        out["run_id"] = save(store, report)
    return out
