"""The audit schema, built by ordered, append-only migrations recorded in `schema_migrations`.

Never edit a released migration: add the next one.
"""

from __future__ import annotations

from datetime import UTC, datetime

MIGRATIONS: list[tuple[int, str, str]] = [
    (
        1,
        "evaluations and violations",
        """
        CREATE TABLE evaluations (
            evaluation_id VARCHAR NOT NULL,
            time TIMESTAMP NOT NULL, -- UTC
            trace_id VARCHAR,
            span_id VARCHAR,
            parent_span_id VARCHAR,
            service VARCHAR,
            span_name VARCHAR,
            agent_id VARCHAR,
            agent_name VARCHAR,
            session_id VARCHAR,
            source VARCHAR,
            mode VARCHAR,
            verdict VARCHAR,
            audit_verdict VARCHAR,
            enforced BOOLEAN,
            trust_score DOUBLE,
            trust_tier VARCHAR,
            claim_count INTEGER,
            violation_count INTEGER,
            categories VARCHAR[],
            evaluation_us DOUBLE,
            text_length INTEGER,
            text_sha256 VARCHAR,
            truncated BOOLEAN,
            skipped VARCHAR,
            error VARCHAR,
            tool_calls VARCHAR[],
            config_hash VARCHAR
        );
        CREATE TABLE violations (
            evaluation_id VARCHAR NOT NULL,
            time TIMESTAMP NOT NULL, -- UTC
            trace_id VARCHAR,
            span_id VARCHAR,
            agent_id VARCHAR,
            agent_name VARCHAR,
            session_id VARCHAR,
            mode VARCHAR,
            verdict VARCHAR,
            audit_verdict VARCHAR,
            trust_tier VARCHAR,
            action VARCHAR,
            category VARCHAR,
            detector_id VARCHAR,
            matched_text VARCHAR,
            subject VARCHAR,
            assertion VARCHAR,
            reason VARCHAR,
            severity VARCHAR,
            contradicted_fact_id VARCHAR,
            expected VARCHAR,
            fact_status VARCHAR,
            confidence DOUBLE,
            claim_offset INTEGER,
            claim_count INTEGER,
            trigger VARCHAR,
            iso_controls VARCHAR[]
        );
        """,
    ),
    (
        2,
        "indexes for time and agent filters",
        """
        CREATE INDEX evaluations_time ON evaluations (time);
        CREATE INDEX violations_time ON violations (time);
        CREATE INDEX violations_agent ON violations (agent_id);
        """,
    ),
    (
        3,
        "every check writes evaluations and violations; per-check migrations",
        """
        ALTER TABLE evaluations ADD COLUMN check_name VARCHAR DEFAULT 'output';
        ALTER TABLE evaluations ADD COLUMN severity VARCHAR;
        ALTER TABLE evaluations ADD COLUMN reason VARCHAR;
        ALTER TABLE violations ADD COLUMN check_name VARCHAR DEFAULT 'output';
        ALTER TABLE violations ADD COLUMN enforced BOOLEAN;
        CREATE TABLE check_migrations (
            check_name VARCHAR NOT NULL,
            version INTEGER NOT NULL,
            name VARCHAR NOT NULL,
            applied_at TIMESTAMPTZ NOT NULL,
            PRIMARY KEY (check_name, version)
        );
        """,
    ),
    (
        4,
        "replay runs: what a candidate config would have concluded, for the dashboard",
        """
        CREATE TABLE replay_runs (
            run_id VARCHAR NOT NULL,
            time TIMESTAMP NOT NULL, -- UTC, when the replay ran
            source VARCHAR, -- claims (stored claims) or otlp (a capture file)
            candidate VARCHAR, -- the candidate config file
            candidate_hash VARCHAR,
            since VARCHAR,
            until VARCHAR,
            agent_glob VARCHAR,
            evaluations BIGINT,
            claims BIGINT,
            flips BIGINT,
            to_block BIGINT,
            to_pass BIGINT,
            report VARCHAR -- the whole report as JSON (replay --format json)
        );
        CREATE TABLE replay_agents (
            run_id VARCHAR NOT NULL,
            time TIMESTAMP NOT NULL,
            agent_id VARCHAR,
            trust_tier VARCHAR,
            candidate_trust_tier VARCHAR,
            mode VARCHAR,
            candidate_mode VARCHAR,
            evaluations BIGINT,
            flag_pct_now DOUBLE,
            block_pct_now DOUBLE,
            flag_pct_candidate DOUBLE,
            block_pct_candidate DOUBLE,
            flips BIGINT,
            to_block BIGINT,
            to_pass BIGINT
        );
        """,
    ),
    (
        5,
        "evaluations say when the time budget ran out",
        """
        ALTER TABLE evaluations ADD COLUMN bailed_out BOOLEAN;
        """,
    ),
    (
        6,
        "one violation per finding key: a finding seen on several spans (a tool call's request and execution)",
        """
        ALTER TABLE violations ADD COLUMN finding_key VARCHAR;
        """,
    ),
]

def migrate(con, checks=None) -> list[str]:
    """Apply the migrations this database has not seen, the core's then each check's own
    (`checks`: CheckSpecs, default every registered check); return what was applied."""
    con.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations "
        "(version INTEGER PRIMARY KEY, name VARCHAR NOT NULL, applied_at TIMESTAMPTZ NOT NULL)"
    )
    done = {row[0] for row in con.execute("SELECT version FROM schema_migrations").fetchall()}
    applied = []
    for version, name, sql in MIGRATIONS:
        if version not in done:
            _apply(con, sql, "INSERT INTO schema_migrations VALUES (?, ?, ?)", [version, name])
            applied.append(f"core:{version}")
    if checks is None:
        from ..checks import registered

        checks = registered().values()
    done_checks = set(con.execute("SELECT check_name, version FROM check_migrations").fetchall())
    for spec in checks:
        for m in spec.migrations:
            if (spec.name, m.version) not in done_checks:
                _apply(con, m.sql, "INSERT INTO check_migrations VALUES (?, ?, ?, ?)", [spec.name, m.version, m.name])
                applied.append(f"{spec.name}:{m.version}")
    return applied


def _apply(con, sql: str, record: str, key: list) -> None:
    """One migration in one transaction, recorded with the time it was applied."""
    con.execute("BEGIN TRANSACTION")
    try:
        for statement in filter(str.strip, sql.split(";")):
            con.execute(statement)
        con.execute(record, [*key, datetime.now(UTC)])
        con.execute("COMMIT")
    except Exception:
        con.execute("ROLLBACK")
        raise
