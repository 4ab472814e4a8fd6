"""The audit schema, built by ordered, append-only migrations recorded in `schema_migrations`.

Never edit a released migration: add the next one.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pyarrow as pa

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
]

_S, _B, _D, _I, _T = pa.string(), pa.bool_(), pa.float64(), pa.int32(), pa.timestamp("us")
_LIST = pa.list_(pa.string())

# Arrow types of the rows the store inserts, in column order.
EVALUATION_SCHEMA = pa.schema(
    [
        ("evaluation_id", _S),
        ("time", _T),
        ("trace_id", _S),
        ("span_id", _S),
        ("parent_span_id", _S),
        ("service", _S),
        ("span_name", _S),
        ("agent_id", _S),
        ("agent_name", _S),
        ("session_id", _S),
        ("source", _S),
        ("mode", _S),
        ("verdict", _S),
        ("audit_verdict", _S),
        ("enforced", _B),
        ("trust_score", _D),
        ("trust_tier", _S),
        ("claim_count", _I),
        ("violation_count", _I),
        ("categories", _LIST),
        ("evaluation_us", _D),
        ("text_length", _I),
        ("text_sha256", _S),
        ("truncated", _B),
        ("skipped", _S),
        ("error", _S),
        ("tool_calls", _LIST),
        ("config_hash", _S),
    ]
)
VIOLATION_SCHEMA = pa.schema(
    [
        ("evaluation_id", _S),
        ("time", _T),
        ("trace_id", _S),
        ("span_id", _S),
        ("agent_id", _S),
        ("agent_name", _S),
        ("session_id", _S),
        ("mode", _S),
        ("verdict", _S),
        ("audit_verdict", _S),
        ("trust_tier", _S),
        ("action", _S),
        ("category", _S),
        ("detector_id", _S),
        ("matched_text", _S),
        ("subject", _S),
        ("assertion", _S),
        ("reason", _S),
        ("severity", _S),
        ("contradicted_fact_id", _S),
        ("expected", _S),
        ("fact_status", _S),
        ("confidence", _D),
        ("claim_offset", _I),
        ("claim_count", _I),
        ("trigger", _S),
        ("iso_controls", _LIST),
    ]
)
EVALUATION_COLUMNS = EVALUATION_SCHEMA.names
VIOLATION_COLUMNS = VIOLATION_SCHEMA.names


def migrate(con) -> list[int]:
    """Apply the migrations this database has not seen; return the versions applied."""
    con.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations "
        "(version INTEGER PRIMARY KEY, name VARCHAR NOT NULL, applied_at TIMESTAMPTZ NOT NULL)"
    )
    done = {row[0] for row in con.execute("SELECT version FROM schema_migrations").fetchall()}
    applied = []
    for version, name, sql in MIGRATIONS:
        if version in done:
            continue
        con.execute("BEGIN TRANSACTION")
        try:
            for statement in filter(str.strip, sql.split(";")):
                con.execute(statement)
            con.execute("INSERT INTO schema_migrations VALUES (?, ?, ?)", [version, name, datetime.now(UTC)])
            con.execute("COMMIT")
        except Exception:
            con.execute("ROLLBACK")
            raise
        applied.append(version)
    return applied
