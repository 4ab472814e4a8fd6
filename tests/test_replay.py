"""Replay before enforcing: stored claims and OTLP captures judged again under a candidate config."""

from __future__ import annotations

import base64
import copy
import json
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import duckdb
import pytest
from google.protobuf.json_format import MessageToDict
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from claimwatch.checks.pipeline import Pipeline
from claimwatch.collector.cli import main
from claimwatch.core.config import load_config
from claimwatch.core.model import Claim
from claimwatch.core.validator import OutputValidator
from claimwatch.otel.records import SpanRecord
from claimwatch.replay import replay_claims, replay_otlp
from claimwatch.store import AuditStore
from claimwatch.store.queries import load_queries, run_query
from claimwatch.store.rows import outcome_rows

BASE = datetime(2026, 11, 1, tzinfo=UTC)
SINCE = datetime(2026, 10, 1)

# What the outputs were recorded under. "ops" is untrusted but ignores unverified claims,
# so only a contradiction can block it.
RECORDED = {
    "validation": {
        "factRegistries": [
            {
                "id": "infra",
                "facts": [
                    {"id": "docker-running", "category": "system_state", "subject": "docker",
                     "value": {"type": "state", "state": "running"}},
                    {"id": "pipeline-green", "category": "operational_status", "subject": "pipeline",
                     "value": {"type": "status", "status": "operational"}},
                ],
            }
        ],
        "agentOverrides": [{"agent": "ops", "unverifiedClaimPolicy": "ignore"}],
    },
    "agents": {"rules": [{"match": "sub-*", "trust": 10}, {"match": "ops", "trust": 10}]},
}

OUTPUTS = [  # (agent, hours after BASE, text)
    ("sub-1", 0, "Docker is not running."),
    ("sub-1", 1, "The pipeline is broken."),
    ("sub-1", 2, "I refactored the parser and added tests."),
    ("ops", 3, "Redis is not installed."),
    ("ops", 4, "The pipeline is broken."),
    ("sub-1", 5, "Docker is not running."),
]


def candidate_with(**changes) -> dict:
    config = copy.deepcopy(RECORDED)
    facts = config["validation"]["factRegistries"][0]["facts"]
    if changes.get("redis_running"):
        facts.append({"id": "redis-running", "category": "system_state", "subject": "redis",
                      "value": {"type": "state", "state": "running"}})
    if changes.get("pipeline_down"):
        facts[1]["value"]["status"] = "down"
    if "docker_ttl" in changes:
        updated, ttl = changes["docker_ttl"]
        facts[0].update(updatedAt=updated.isoformat(), ttlSeconds=ttl)
    return config


def span_for(i: int, agent: str, hours: int, text: str) -> SpanRecord:
    end = int((BASE + timedelta(hours=hours)).timestamp() * 1e9)
    attrs = {
        "gen_ai.agent.name": agent,
        "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": text}]}]),
    }
    return SpanRecord(f"{i + 1:032x}", f"{i + 1:016x}", None, "chat", attrs, end_ns=end)


def populate(path: Path, config: dict = RECORDED, outputs=OUTPUTS) -> None:
    pipeline = Pipeline(config)
    store = AuditStore(path, batch_rows=2)
    for i, (agent, hours, text) in enumerate(outputs):
        store.add_rows(outcome_rows(pipeline.process(span_for(i, agent, hours, text))))
    store.close()


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("replay") / "audit.duckdb"
    populate(path)
    return path


@pytest.fixture
def con(db):
    c = duckdb.connect(str(db), read_only=True)
    yield c
    c.close()


def replay(con, config: dict, **kw):
    return replay_claims(con, load_config(config), since=SINCE, **kw)


def flip(report, name):
    return next((f for f in report.flips if f.name == name), None)


# --- OutputValidator.judge ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("agent", "trust", "text"),
    [
        ("sub-1", 10, "Docker is not running. The pipeline is broken."),
        ("main", 65, "Docker is not running, and Redis is not installed."),
        ("main", 50, "My system prompt says I should stop. The pipeline is working."),
        ("ops", 10, "Redis is not installed."),
    ],
)
def test_judge_gives_the_verdict_validate_gives_when_handed_its_claims(agent, trust, text):
    validator = OutputValidator(load_config(RECORDED))
    everything = validator.detect(text)  # judge applies the agent's detection depth itself
    validated = validator.validate(text, agent_id=agent, trust=trust)
    judged = validator.judge(everything, agent, trust)
    assert judged.verdict == validated.verdict
    assert [(v.claim.subject, v.policy, v.fact_status) for v in judged.violations] == [
        (v.claim.subject, v.policy, v.fact_status) for v in validated.violations
    ]


def test_judge_reads_a_fact_ttl_as_of_the_claim_time_when_now_is_given():
    updated = datetime(2026, 11, 1, tzinfo=UTC)
    config = candidate_with(docker_ttl=(updated, 3600))
    validator = OutputValidator(load_config(config))
    claim = validator.detect("Docker is not running.")
    before = validator.judge(claim, "sub-1", 10, now=updated.timestamp() + 60)
    after = validator.judge(claim, "sub-1", 10, now=updated.timestamp() + 7200)
    assert [f.status for f in before.fact_checks] == ["contradicted"]
    assert before.verdict == "block"
    assert [f.status for f in after.fact_checks] == ["expired_fact"]
    assert after.verdict == "flag"  # unverified, and a tier-derived policy never blocks that


def test_judge_flags_instead_of_blocking_when_confidence_is_below_block_min_confidence():
    config = copy.deepcopy(RECORDED)
    config["validation"]["blockMinConfidence"] = 0.9
    validator = OutputValidator(load_config(config))
    weak = Claim("system_state", "x", "", 0, "Docker", "not_running", True, 0.5)
    strong = Claim("system_state", "x", "", 0, "Docker", "not_running", True, 0.95)
    assert validator.judge([weak], "sub-1", 10).verdict == "flag"
    assert validator.judge([strong], "sub-1", 10).verdict == "block"


def test_judge_skips_exempt_agents_and_applies_the_truncated_output_policy():
    config = copy.deepcopy(RECORDED)
    config["validation"]["exempt"] = ["bot-*"]
    validator = OutputValidator(load_config(config))
    claims = validator.detect("Docker is not running.")
    assert validator.judge(claims, "bot-7", 10).skipped == "exempt"
    assert validator.judge([], "sub-1", 10, truncated=True).verdict == "flag"  # untrusted: truncated -> flag


# --- replay of stored claims ----------------------------------------------------------------------


def test_replay_under_the_recorded_config_flips_nothing_and_keeps_the_rates(con):
    report = replay(con, RECORDED)
    assert report.evaluations == len(OUTPUTS)
    assert report.flips == []
    recorded = dict(
        con.execute("SELECT verdict, count(*) FROM evaluations WHERE check_name = 'output' GROUP BY 1").fetchall()
    )
    totals = report.totals()
    assert totals["block_pct_now"] == totals["block_pct_candidate"] == round(100 * recorded["block"] / 6, 2)
    for row in report.agents:
        assert row.now == row.candidate


def test_replay_shows_pass_to_block_when_the_candidate_adds_a_contradicting_fact(con):
    report = replay(con, candidate_with(redis_running=True))
    to_block = flip(report, "pass->block")
    assert to_block is not None and to_block.count == 1
    [example] = to_block.examples
    assert (example["agent_id"], example["subject"], example["matched_text"]) == (
        "ops", "Redis", "Redis is not installed")
    assert (example["action"], example["candidate_action"]) == ("none", "block")
    assert to_block.facts[0]["fact_id_candidate"] == "redis-running"
    assert (to_block.facts[0]["status_now"], to_block.facts[0]["status_candidate"]) == (
        "no_fact_found", "contradicted")
    ops = next(r for r in report.agents if r.agent_id == "ops")
    assert ops.to_dict()["block_pct_now"] == 50.0  # "The pipeline is broken" contradicts pipeline-green
    assert ops.to_dict()["block_pct_candidate"] == 100.0


def test_replay_shows_block_to_pass_when_the_candidate_changes_the_fact_behind_a_block(con):
    report = replay(con, candidate_with(pipeline_down=True, redis_running=True))
    to_pass = flip(report, "block->pass")
    assert to_pass is not None and to_pass.count == 2  # sub-1 and ops said the pipeline is broken
    assert {e["agent_id"] for e in to_pass.examples} == {"sub-1", "ops"}
    assert {(f["fact_id_now"], f["status_now"], f["status_candidate"]) for f in to_pass.facts} == {
        ("pipeline-green", "contradicted", "confirmed")}
    assert flip(report, "pass->block").count == 1  # both ways in one replay
    assert report.flips[0].name == "pass->block" and report.flips[1].name == "block->pass"


def test_replay_reads_fact_expiry_at_each_claim_time_when_the_candidate_adds_a_ttl(con):
    # docker-running was updated half an hour in and lives 3 h: the claim at 0 h is before its
    # expiry, the one at 5 h after it.
    report = replay(con, candidate_with(docker_ttl=(BASE + timedelta(minutes=30), 3 * 3600)))
    to_flag = flip(report, "block->flag")
    assert to_flag is not None and to_flag.count == 1
    [example] = to_flag.examples
    assert example["time"] == "2026-11-01 05:00:00"
    assert (example["candidate_status"], example["candidate_fact"]) == ("expired_fact", "docker-running")


def test_replay_leaves_out_evaluations_whose_claims_were_never_stored(tmp_path):
    path = tmp_path / "old.duckdb"
    populate(path)
    c = duckdb.connect(str(path))
    # As a database written before claims were kept: the first output's claim is gone.
    c.execute("DELETE FROM claims WHERE agent_id = 'sub-1' AND time = ?", [datetime(2026, 11, 1)])
    c.close()
    c = duckdb.connect(str(path), read_only=True)
    try:
        report = replay(c, RECORDED)
    finally:
        c.close()
    assert report.not_replayed == {"claims_missing": 1}
    assert report.evaluations == len(OUTPUTS) - 1
    assert report.flips == []  # not a block->pass: unknown, not judged
    assert any("none stored" in note for note in report.notes)


def test_replay_filters_by_agent_glob_and_window(con):
    report = replay_claims(
        con, load_config(candidate_with(redis_running=True)), since=datetime(2026, 11, 1, 3), agent="op*"
    )
    assert {r.agent_id for r in report.agents} == {"ops"}
    assert report.evaluations == 2
    assert replay_claims(con, load_config(RECORDED), since=datetime(2026, 11, 2)).evaluations == 0


def test_replay_uses_the_candidate_trust_rule_and_mode_when_they_change(con):
    config = candidate_with()
    config["agents"]["rules"][0] = {"match": "sub-*", "trust": 50, "mode": "enforce"}
    report = replay(con, config)
    sub = next(r for r in report.agents if r.agent_id == "sub-1")
    assert (sub.trust_tier, sub.candidate_tier) == ("untrusted", "standard")
    assert (sub.mode, sub.candidate_mode) == ("audit", "enforce")
    # Standard tier flags a contradiction where untrusted blocked it.
    assert flip(report, "block->flag").count == 3


# --- the command ----------------------------------------------------------------------------------


def write_config(tmp_path: Path, config: dict) -> str:
    path = tmp_path / "candidate.json"
    path.write_text(json.dumps(config))
    return str(path)


def test_cli_replay_prints_json_and_records_the_run_for_the_dashboard(tmp_path, capsys):
    path = tmp_path / "audit.duckdb"
    populate(path)
    candidate = write_config(tmp_path, candidate_with(redis_running=True, pipeline_down=True))
    code = main(["replay", "--config", candidate, "--db", str(path), "--since", "2026-10-01", "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    report = json.loads(out)
    assert {f["flip"]: f["count"] for f in report["flips"]} == {"pass->block": 1, "block->pass": 2}
    assert "recorded as replay run" in err
    con = duckdb.connect(str(path), read_only=True)
    try:
        assert con.execute("SELECT source, flips, to_block, to_pass FROM replay_runs").fetchall() == [
            ("claims", 3, 1, 2)]
        columns, rows = run_query(con, load_queries()["replay_last"], {"since": "2026-10-01"})
        last = {r[columns.index("agent_id")]: dict(zip(columns, r, strict=True)) for r in rows}
        assert (last["ops"]["to_block"], last["ops"]["to_pass"]) == (1, 1)  # Redis blocks, the pipeline passes
        assert (last["sub-1"]["to_block"], last["sub-1"]["to_pass"]) == (0, 1)
        assert last["sub-1"]["block_pct_in_range"] == last["sub-1"]["block_pct_now"]
    finally:
        con.close()


def test_cli_replay_prints_a_table_and_records_nothing_with_no_save(tmp_path, capsys):
    path = tmp_path / "audit.duckdb"
    populate(path)
    candidate = write_config(tmp_path, candidate_with(redis_running=True))
    code = main(["replay", "--config", candidate, "--db", str(path), "--since", "2026-10-01", "--no-save"])
    out, _ = capsys.readouterr()
    assert code == 0
    assert "pass->block: 1 evaluation" in out
    assert "Redis is not installed" in out
    con = duckdb.connect(str(path), read_only=True)
    try:
        assert con.execute("SELECT count(*) FROM replay_runs").fetchone() == (0,)
    finally:
        con.close()


def test_cli_replay_says_what_to_do_when_a_collector_holds_the_database(tmp_path, capsys):
    path = tmp_path / "audit.duckdb"
    populate(path)
    holder = subprocess.Popen(
        [sys.executable, "-c",
         f"import duckdb, sys, time; c = duckdb.connect({str(path)!r}); print('held', flush=True); time.sleep(60)"],
        stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        code = main(["replay", "--config", write_config(tmp_path, RECORDED), "--db", str(path)])
    finally:
        holder.kill()
        holder.wait()
    err = capsys.readouterr().err
    assert code == 2
    assert "held by another process" in err and "--db" in err
    assert len(err.strip().splitlines()) == 1


def test_cli_replay_fails_in_one_line_when_the_database_is_missing(tmp_path, capsys):
    code = main(["replay", "--config", write_config(tmp_path, RECORDED), "--db", str(tmp_path / "none.duckdb")])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("claimwatch: no audit database") and len(err.strip().splitlines()) == 1


def test_cli_replay_opens_the_file_when_no_collector_answers(tmp_path, capsys, monkeypatch):
    path = tmp_path / "audit.duckdb"
    populate(path)
    monkeypatch.setenv("CLAIMWATCH_DB", str(path))
    candidate = write_config(tmp_path, candidate_with(redis_running=True))
    code = main(["replay", "--config", candidate, "--server", "http://127.0.0.1:9", "--since", "2026-10-01",
                 "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert {f["flip"]: f["count"] for f in json.loads(out)["flips"]} == {"pass->block": 1}
    assert f"in {path}" in err


def test_replay_request_replays_on_a_collector_store_and_records_the_run(tmp_path):
    from claimwatch.replay import replay_request

    path = tmp_path / "held.duckdb"
    populate(path)
    store = AuditStore(path)  # as a running collector holds it
    try:
        body = {"config": candidate_with(redis_running=True), "configName": "candidate.yaml", "since": "2026-10-01"}
        report = replay_request(store, body)
        assert {f["flip"]: f["count"] for f in report["flips"]} == {"pass->block": 1}
        cursor = store.cursor()
        try:
            assert cursor.execute("SELECT run_id, candidate FROM replay_runs").fetchall() == [
                (report["run_id"], "candidate.yaml")]
        finally:
            cursor.close()
        with pytest.raises(ValueError, match="config"):
            replay_request(store, {"since": "7d"})
        with pytest.raises(ValueError, match="examples"):
            replay_request(store, {"config": RECORDED, "examples": "3"})
    finally:
        store.close()


# --- replay of an OTLP/JSON capture ---------------------------------------------------------------


def _hex_ids(value):
    """The Collector's file exporter writes ids in hex, where protobuf's JSON mapping writes base64."""
    if isinstance(value, dict):
        return {
            k: (base64.b64decode(v).hex() if k in ("traceId", "spanId", "parentSpanId") and v else _hex_ids(v))
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_hex_ids(v) for v in value]
    return value


def capture(path: Path, outputs: list[tuple[str, str]]) -> Path:
    """A file of OTLP/JSON lines from real SDK spans: an agent span over each LLM span.

    Each LLM span is written on one line and its agent span on the next, as a file
    exporter batching by end time does, so identity comes from a span on another line.
    """
    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "agents"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("replay-test")
    for agent, text in outputs:
        with tracer.start_as_current_span("invoke_agent", attributes={"gen_ai.agent.name": agent}):
            with tracer.start_as_current_span("chat", attributes={"gen_ai.operation.name": "chat"}) as span:
                span.set_attribute(
                    "gen_ai.output.messages",
                    json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": text}]}]),
                )
    lines = [json.dumps(_hex_ids(MessageToDict(encode_spans([s])))) for s in exporter.get_finished_spans()]
    lines.insert(1, json.dumps({"resourceLogs": []}))  # other signals share the file; they are skipped
    path.write_text("\n".join(lines) + "\n")
    return path


def test_replay_otlp_reruns_detection_and_compares_verdicts_per_output(tmp_path):
    path = capture(tmp_path / "traces.jsonl", [("sub-1", "The pipeline is broken."),
                                               ("ops", "Redis is not installed."),
                                               ("sub-1", "The build finished.")])
    with path.open() as lines:
        report = replay_otlp(lines, load_config(candidate_with(redis_running=True, pipeline_down=True)),
                             load_config(RECORDED))
    assert report.evaluations == 3  # the agent spans repeat their LLM span's output: not counted twice
    assert {f.name: f.count for f in report.flips} == {"pass->block": 1, "block->pass": 1}
    to_block = flip(report, "pass->block")
    assert to_block.examples[0]["subject"] == "Redis"
    assert to_block.facts[0]["fact_id_candidate"] == "redis-running"
    assert flip(report, "block->pass").examples[0]["agent_id"] == "sub-1"
    assert report.not_replayed == {"lines_skipped": 1}


def test_cli_replay_otlp_tries_a_new_detector_on_captured_traffic(tmp_path, capsys):
    path = capture(tmp_path / "traces.jsonl", [("sub-1", "The deploy key rotation is three weeks late.")])
    candidate = copy.deepcopy(RECORDED)
    candidate["validation"]["customDetectors"] = [
        {"id": "overdue", "category": "operational_status", "patterns": [r"(?P<subject>[Tt]he deploy key rotation) is three weeks late"],
         "assertion": "broken", "confidence": 0.95}
    ]
    baseline = write_config(tmp_path, RECORDED)
    cand_path = tmp_path / "with-detector.json"
    cand_path.write_text(json.dumps(candidate))
    code = main(["replay", "--otlp", str(path), "--config", str(cand_path), "--baseline-config", baseline,
                 "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    report = json.loads(out)
    assert report["source"] == "otlp"
    assert [f["flip"] for f in report["flips"]] == ["pass->flag"]
    assert report["flips"][0]["examples"][0]["detector_id"] == "overdue"


def test_cli_replay_otlp_fails_in_one_line_on_a_file_without_traces(tmp_path, capsys):
    path = tmp_path / "empty.jsonl"
    path.write_text('{"resourceMetrics": []}\nnot json at all\n')
    code = main(["replay", "--otlp", str(path), "--config", write_config(tmp_path, RECORDED)])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("claimwatch: ") and len(err.strip().splitlines()) == 1


# --- replay agrees with running the candidate itself ----------------------------------------------


def _corpus_config(**changes) -> dict:
    from benchmarks.corpus import hundred_facts

    config = hundred_facts()
    facts = config["validation"]["factRegistries"][0]["facts"]
    config["validation"]["factRegistries"][0]["facts"] = facts
    config["agents"] = {"rules": [{"match": "w-0", "trust": 10}, {"match": "w-1", "trust": 30},
                                  {"match": "w-2", "trust": 50}]}
    if changes.get("candidate"):
        by_id = {f["id"]: f for f in facts}
        by_id["docker"]["value"] = {"type": "state", "state": "not_installed"}
        by_id["pipeline"]["value"] = {"type": "status", "status": "down"}
        facts.append({"id": "redis-up", "category": "system_state", "subject": "redis",
                      "value": {"type": "state", "state": "running"}})
        facts.append({"id": "payments-up", "category": "operational_status", "subject": "payments service",
                      "value": {"type": "status", "status": "operational"}})
        config["validation"]["blockMinConfidence"] = 0.85
        config["validation"]["agentOverrides"] = [{"agent": "w-2", "unverifiedClaimPolicy": "block"}]
        config["agents"]["rules"][1] = {"match": "w-1", "trust": 15}
    return config


def test_replayed_candidate_verdicts_equal_running_the_candidate_on_the_same_outputs(tmp_path):
    from benchmarks.corpus import corpus

    texts = corpus(300, count=120, seed=11)
    outputs = [(f"w-{i % 3}", i, text) for i, text in enumerate(texts)]
    path = tmp_path / "corpus.duckdb"
    populate(path, _corpus_config(), outputs)
    candidate = _corpus_config(candidate=True)
    expected: dict[str, dict[str, int]] = {}
    pipeline = Pipeline(candidate)
    for i, (agent, hours, text) in enumerate(outputs):
        outcome = pipeline.process(span_for(i, agent, hours, text))
        if outcome is not None:
            counts = expected.setdefault(agent, {})
            counts[outcome.verdict] = counts.get(outcome.verdict, 0) + 1
    con = duckdb.connect(str(path), read_only=True)
    try:
        same = replay(con, _corpus_config())
        report = replay(con, candidate)
    finally:
        con.close()
    assert same.flips == []
    assert report.flips, "the candidate changes facts the corpus talks about"
    got = {r.agent_id: {k: v for k, v in r.candidate.items() if v} for r in report.agents}
    assert got == expected


def test_replay_judges_by_agent_name_when_a_rule_matches_the_name_not_the_id(tmp_path):
    path = tmp_path / "names.duckdb"
    recorded = copy.deepcopy(RECORDED)
    recorded["agents"]["rules"].append({"match": "*", "trust": 50})
    pipeline = Pipeline(recorded)
    store = AuditStore(path, batch_rows=1)
    for i, name in enumerate(("alpha", "beta")):
        span = span_for(i, name, i, "The pipeline is broken.")
        span = SpanRecord(span.trace_id, span.span_id, None, "chat",
                          {**span.attributes, "gen_ai.agent.id": "shared"}, end_ns=span.end_ns)
        store.add_rows(outcome_rows(pipeline.process(span)))
    store.close()
    candidate = copy.deepcopy(recorded)
    candidate["agents"]["rules"].insert(0, {"match": "beta", "trust": 10})  # beta becomes untrusted
    con = duckdb.connect(str(path), read_only=True)
    try:
        report = replay(con, candidate)
    finally:
        con.close()
    assert [(r.agent_id, r.trust_tier, r.candidate_tier) for r in report.agents] == [
        ("shared", "standard", "standard"), ("shared", "standard", "untrusted")]
    assert {f.name: f.count for f in report.flips} == {"flag->block": 1}
