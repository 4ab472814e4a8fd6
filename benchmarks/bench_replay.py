"""Benchmark: `replay_claims` over stored claims vs a naive per-claim replay, in one run.

    python benchmarks/bench_replay.py [--claims 1000000] [--naive-claims 100000] [--rounds 3]

Builds a synthetic audit database (the real schema, through the store's migrations):
`--claims` claims over a quarter as many output evaluations, 40 agents at five trust
levels, ~3,000 subjects, every claim category, a candidate config with a hundred facts
(some with TTLs that expire inside the window). Then times:

- grouped: `replay_claims` on the whole database (the goal: 1,000,000 claims <= 10 s);
- naive: the same answer computed the obvious way, every claim judged on its own in
  Python and folded per evaluation, on the first `--naive-claims` claims, against the
  grouped replay of the same window, so the ratio compares like with like.

Prints medians of `--rounds` runs. These machines are shared and noisy: compare the
ratio measured in the same run, not absolute times across runs.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from datetime import datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import duckdb

from claimwatch.core.config import load_config
from claimwatch.core.model import Claim
from claimwatch.core.validator import OutputValidator
from claimwatch.replay import RANK, replay_claims
from claimwatch.store.schema import migrate

START = datetime(2026, 11, 1)
DAYS = 7
AGENTS = 40
SUBJECTS = 3000
CATEGORY_ASSERTIONS = {
    "system_state": ["not_installed", "installed", "not_running", "running", "missing"],
    "operational_status": ["broken", "down", "working", "healthy", "failing"],
    "existence": ["exists", "missing", "not_exists"],
    "capability": ["supported", "not_supported", "available"],
    "entity_name": ["name"],
    "self_referential": ["self_referential"],
}


def candidate_config() -> dict:
    """A hundred facts over the synthetic subjects; a fifth of them expire mid-window."""
    facts = []
    for i in range(100):
        kind = i % 4
        fact = {"id": f"fact-{i}", "subject": f"service{i * 7}"}
        if kind == 0:
            fact.update(category="system_state", value={"type": "state", "state": "running"})
        elif kind == 1:
            fact.update(category="operational_status", value={"type": "status", "status": "operational"})
        elif kind == 2:
            fact.update(category="existence", value={"type": "exists", "exists": True})
        else:
            fact.update(category="capability", value={"type": "capability", "supported": False})
        if i % 5 == 0:
            fact.update(ttlSeconds=86400, updatedAt=(START + timedelta(days=i % DAYS)).isoformat() + "Z")
        facts.append(fact)
    return {
        "validation": {"factRegistries": [{"id": "bench", "facts": facts}], "blockMinConfidence": 0.8},
        "agents": {
            "rules": [
                {"match": "agent-0*", "trust": 10},
                {"match": "agent-1*", "trust": 30, "mode": "enforce"},
                {"match": "agent-2*", "trust": 50},
            ]
        },
    }


def build(path: Path, claims: int) -> None:
    """The synthetic database, written by DuckDB itself (a million pipeline runs would take an hour)."""
    con = duckdb.connect(str(path))
    migrate(con)
    evaluations = claims // 4
    seconds = DAYS * 86400
    con.execute(
        f"""
        INSERT INTO evaluations (evaluation_id, time, trace_id, span_id, agent_id, agent_name, mode, verdict,
                                 trust_score, trust_tier, claim_count, text_length, check_name)
        SELECT 'e' || i, TIMESTAMP '{START}' + to_seconds((i * {seconds} // {evaluations})::BIGINT),
               printf('%032x', i), printf('%016x', i), 'agent-' || (i % {AGENTS}), 'agent-' || (i % {AGENTS}),
               CASE WHEN i % {AGENTS} BETWEEN 10 AND 19 THEN 'enforce' ELSE 'audit' END,
               ['pass', 'pass', 'flag', 'block'][1 + (hash(i) % 4)::INTEGER],
               [10.0, 30.0, 50.0, 70.0, 90.0][1 + (i % {AGENTS}) // 8], NULL, 4, 400, 'output'
        FROM range({evaluations}) t(i)
        """
    )
    cats = list(CATEGORY_ASSERTIONS)
    con.execute(
        f"""
        INSERT INTO claims (evaluation_id, time, trace_id, span_id, agent_id, mode, claim_index, category,
                            detector_id, subject, assertion, negative, role, confidence, claim_offset,
                            matched_text, fact_status, fact_id, expected, action, trust_score, verdict)
        SELECT e.evaluation_id, e.time, e.trace_id, e.span_id, e.agent_id, e.mode, k, cat,
               cat || '.bench', CASE WHEN cat = 'self_referential' THEN 'self' ELSE 'service' || (h % {SUBJECTS}) END,
               a, a LIKE 'not_%', NULL, [0.7, 0.85, 0.95][1 + (h // 7 % 3)::INTEGER], k * 40,
               'synthetic claim ' || k, 'no_fact_found', NULL, NULL, ['none', 'flag', 'block'][1 + (h % 3)::INTEGER],
               e.trust_score, e.verdict
        FROM (SELECT *, row_number() OVER () - 1 AS n FROM evaluations) e, range(4) r(k),
             LATERAL (SELECT hash(e.n * 4 + k) AS h) hh,
             LATERAL (SELECT {cats}[1 + (h % {len(cats)})::INTEGER] AS cat) cc,
             LATERAL (SELECT CASE cat {" ".join(f"WHEN '{c}' THEN {a}" for c, a in CATEGORY_ASSERTIONS.items())}
                             END[1 + (h // 3 % 5)::INTEGER] AS a0) aa,
             LATERAL (SELECT coalesce(a0, CASE cat {" ".join(f"WHEN '{c}' THEN '{a[0]}'" for c, a in CATEGORY_ASSERTIONS.items())} END) AS a) bb
        """
    )
    con.execute("UPDATE evaluations SET trust_tier = CASE WHEN trust_score < 20 THEN 'untrusted' "
                "WHEN trust_score < 40 THEN 'restricted' WHEN trust_score < 60 THEN 'standard' "
                "WHEN trust_score < 80 THEN 'trusted' ELSE 'privileged' END")
    con.execute("CHECKPOINT")
    con.close()


def naive(con, config, until: datetime) -> dict[tuple[str, str], int]:
    """Every claim of the window judged alone, in Python, folded per evaluation: the obvious replay."""
    from claimwatch.checks.base import Identity
    from claimwatch.checks.pipeline import Pipeline

    validator = OutputValidator(config)
    pipeline = Pipeline(config, checks=[])
    rows = con.execute(
        "SELECT c.evaluation_id, c.agent_id, e.agent_name, e.trust_score, e.verdict, epoch_ms(c.time) / 1000.0, "
        "c.category, c.subject, c.assertion, c.negative, c.role, c.confidence, c.detector_id "
        "FROM claims c JOIN evaluations e USING (evaluation_id) WHERE c.time >= ? AND c.time < ?",
        [START, until],
    ).fetchall()
    worst: dict[str, int] = defaultdict(int)
    now_of: dict[str, str] = {}
    for ev, agent, name, trust, verdict, at, cat, subject, assertion, negative, role, conf, det in rows:
        rule = pipeline.trust_for(Identity(agent, name, None, None))
        claim = Claim(cat, det, "", 0, subject, assertion, negative, conf, role)
        result = validator.judge([claim], agent, rule if rule is not None else trust, now=at)
        worst[ev] = max(worst[ev], RANK[result.verdict])
        now_of[ev] = verdict
    flips: dict[tuple[str, str], int] = defaultdict(int)
    for ev, rank in worst.items():
        cand = ("pass", "flag", "block")[rank]
        if cand != now_of[ev]:
            flips[(now_of[ev], cand)] += 1
    return flips


def timed(fn, rounds: int):
    samples, result = [], None
    for _ in range(rounds):
        started = time.perf_counter()
        result = fn()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claims", type=int, default=1_000_000)
    parser.add_argument("--naive-claims", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    config = load_config(candidate_config())
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.duckdb"
        started = time.perf_counter()
        build(path, args.claims)
        print(f"built {args.claims:,} claims in {time.perf_counter() - started:.1f} s")
        con = duckdb.connect(str(path), read_only=True)
        total, report = timed(lambda: replay_claims(con, config, since=START), args.rounds)
        print(
            f"grouped replay, all {report.claims:,} claims: median {total:.2f} s over {args.rounds} runs "
            f"({report.judgements:,} judgements, {report.evaluations:,} evaluations, "
            f"{report.totals()['flips']:,} flips)  goal <= 10 s"
        )
        # The naive replay's window: the first --naive-claims claims (claims are spread evenly in time).
        share = min(1.0, args.naive_claims / max(1, args.claims))
        until = START + timedelta(seconds=DAYS * 86400 * share)
        part, small = timed(lambda: replay_claims(con, config, since=START, until=until), args.rounds)
        slow, flips = timed(lambda: naive(con, config, until), max(1, args.rounds // 2))
        same = {(f.before, f.after): f.count for f in small.flips} == dict(flips)
        print(
            f"same window ({small.claims:,} claims): grouped {part:.2f} s, naive per-claim {slow:.2f} s, "
            f"ratio {slow / part:.1f}x  (same flips: {same})"
        )
        con.close()


if __name__ == "__main__":
    main()
