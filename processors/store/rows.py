"""The rows an outcome writes: shared `evaluations` and `violations` rows, and each check's own tables."""

from __future__ import annotations

from ..checks.pipeline import AUDIT_VERDICTS, Outcome, clean_text
from .secrets import mask_row

# Columns every check's own table starts with (checks.base.own_table); filled here.
OWN_TABLE_KEYS = ("evaluation_id", "time", "trace_id", "span_id", "agent_id", "session_id", "mode")


def outcome_rows(outcome: Outcome, mask_secrets: bool = True) -> dict[str, list[dict]]:
    """{table: rows} for one outcome: an evaluation row per check, a violation row per finding.

    With `mask_secrets`, credential-shaped text in columns that quote output is masked."""
    tables: dict[str, list[dict]] = {"evaluations": [], "violations": []}
    s, who = outcome.span, outcome.identity
    for evaluation_id, r in zip(outcome.evaluation_ids, outcome.results, strict=True):
        enforced = outcome.enforced and r.verdict == "block"
        shared = {
            "evaluation_id": evaluation_id,
            "time": outcome.time,
            "trace_id": s.trace_id,
            "span_id": s.span_id,
            "agent_id": who.agent_id,
            "agent_name": who.agent_name,
            "session_id": who.session_id,
            "mode": outcome.mode,
            "verdict": r.verdict,
            "audit_verdict": _audit_verdict(r.check, r.verdict),
            "enforced": enforced,
            "check_name": r.check,
            "trust_tier": outcome.trust.tier if outcome.trust else None,
        }
        tables["evaluations"].append(
            {
                **r.evaluation_columns,
                **shared,
                "trust_score": outcome.trust.score if outcome.trust else None,
                "parent_span_id": s.parent_span_id,
                "service": s.service,
                "span_name": s.name,
                "severity": r.severity,
                "reason": r.reason,
                "evaluation_us": r.evaluation_us,
                "error": r.error,
            }
        )
        for f in r.findings:
            tables["violations"].append(
                {"action": f.verdict, **f.columns, **shared, "span_id": f.span_id, "severity": f.severity,
                 "reason": f.reason}
            )
        own = {k: shared[k] for k in OWN_TABLE_KEYS}
        for table, rows in r.rows.items():
            tables.setdefault(table, []).extend({**row, **own} for row in rows)
    # Lone surrogates are cleaned by the store only for a batch that has them (rare).
    if mask_secrets:
        for rows in tables.values():
            for row in rows:
                mask_row(row)
    return tables


def _audit_verdict(check: str, verdict: str) -> str:
    # RFC-003 names the output check's audit verdicts; other checks' follow the same shape.
    return AUDIT_VERDICTS.get(verdict, verdict) if check == "output" else f"{check}_{verdict}"


def clean_row(row: dict) -> dict:
    """The row with text safe for Arrow (lone surrogates replaced)."""
    for key, value in row.items():
        if isinstance(value, str):
            row[key] = clean_text(value)
        elif isinstance(value, list):
            row[key] = [clean_text(v) if isinstance(v, str) else v for v in value]
    return row


def record(outcome: Outcome, store, counts) -> None:
    """Count an outcome by check and verdict and queue its rows in `store` (when there is one).

    A repeat of an output already judged in the trace (`duplicate_of`) is counted, not stored.
    """
    if outcome.duplicate_of is not None:
        counts["duplicate_outputs"] += 1
        return
    counts["evaluations"] += 1
    for r in outcome.results:
        counts[f"verdict_{r.verdict}"] += 1
        if r.evaluation_columns.get("bailed_out"):
            counts["bailed_out"] += 1
        if r.check != "output":
            counts[f"{r.check}_{r.verdict}"] += 1
    if outcome.upstream:
        counts["evaluated_upstream"] += 1
    elif outcome.enforced:
        counts["enforced_blocks"] += 1
    if store is not None:
        store.add_rows(outcome_rows(outcome, getattr(store, "mask_secrets", True)))
