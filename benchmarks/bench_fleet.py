"""Benchmark: exporting a worker's time partitions to Parquet, and `query --fleet` against the
same named query on the DuckDB file, in one run.

    python benchmarks/bench_fleet.py [--evaluations 1000000] [--workers 2] [--rounds 3]

Builds synthetic audit databases through the store's migrations: one file with all
`--evaluations` evaluation rows (a fifth as many violations) over seven days, 40 agents,
every verdict; and the same rows split by trace across `--workers` files. Then times:

- export: one `PartitionExporter` pass over the single file (every partition, as a stopped
  worker's `claimwatch export` does), a second pass that finds nothing changed, and the
  pass again from a store with file access off (the Arrow route a collector with an API
  token takes);
- query: `verdict_counts` opened and run on the DuckDB file (the baseline, what
  `query --db` does) vs opened and run over the workers' exported partitions (what
  `query --fleet` does: glob, views, duplicate check, then the query), with the view setup
  also shown on its own.

Prints medians of `--rounds` runs and the fleet/file ratio. The machines are shared and
noisy: compare the ratio measured in the same run, not absolute times across runs.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import duckdb

from claimwatch.store.export import PartitionExporter, fleet_connection
from claimwatch.store.queries import load_queries, run_query
from claimwatch.store.schema import migrate

START = "2026-11-01"
AGENTS = 40


def build(path: Path, evaluations: int, worker: int = 0, workers: int = 1) -> None:
    """Rows i with i % workers == worker of a fleet of `evaluations` evaluations (routing by trace)."""
    con = duckdb.connect(str(path))
    try:
        migrate(con)
        where = f"WHERE i % {workers} = {worker}"
        con.execute(
            f"""
            INSERT INTO evaluations (evaluation_id, time, trace_id, span_id, service, span_name, agent_id,
                agent_name, session_id, source, mode, verdict, audit_verdict, enforced, trust_score, trust_tier,
                claim_count, violation_count, evaluation_us, text_length, check_name)
            SELECT md5(i::VARCHAR), TIMESTAMP '{START}' + to_seconds((i * 604800) // {evaluations}),
                md5('t' || i), substr(md5('s' || i), 1, 16), 'agent-svc', 'chat model', 'agent-' || (i % {AGENTS}),
                'agent-' || (i % {AGENTS}), 'conv-' || (i % 5000), 'gen_ai', 'audit',
                CASE WHEN i % 10 = 0 THEN 'block' WHEN i % 5 = 0 THEN 'flag' ELSE 'pass' END,
                'output_pass', false, 50.0, (['untrusted', 'restricted', 'standard', 'trusted'])[1 + i % 4],
                i % 3, CASE WHEN i % 5 = 0 THEN 1 ELSE 0 END, 120.0 + i % 50, 200 + i % 1000,
                (['output', 'tool_policy', 'grounding', 'actions'])[1 + i % 4]
            FROM range({evaluations}) t(i) {where}
            """
        )
        con.execute(
            """
            INSERT INTO violations (evaluation_id, time, trace_id, span_id, agent_id, session_id, mode, verdict,
                trust_tier, action, category, detector_id, matched_text, subject, reason, severity, check_name)
            SELECT evaluation_id, time, trace_id, span_id, agent_id, session_id, mode, verdict, trust_tier,
                verdict, 'system_state', 'system_state.not_running', 'docker is not running', 'docker',
                'contradicts a fact', 'high', check_name
            FROM evaluations WHERE violation_count > 0
            """
        )
        con.execute("CHECKPOINT")
    finally:
        con.close()


def export_once(db: Path, root: Path, worker: str, hardened: bool = False) -> tuple[float, int]:
    con = duckdb.connect(str(db), read_only=True)
    if hardened:  # as the API leaves a collector's store with a token set: the Arrow route
        con.execute("SET enable_external_access = false")
    exporter = PartitionExporter(con.cursor, str(root), worker)
    try:
        t0 = time.perf_counter()
        written = exporter.export(final=True)
        return time.perf_counter() - t0, len(written)
    finally:
        exporter.close()
        con.close()


def on_file(db: Path, query) -> tuple[float, list]:
    t0 = time.perf_counter()
    con = duckdb.connect(str(db), read_only=True)
    try:
        _, rows = run_query(con, query, {})
    finally:
        con.close()
    return time.perf_counter() - t0, rows


def on_fleet(root: Path, query) -> tuple[float, float, list]:
    t0 = time.perf_counter()
    con = fleet_connection(str(root))
    setup = time.perf_counter() - t0
    try:
        _, rows = run_query(con, query, {})
    finally:
        con.close()
    return time.perf_counter() - t0, setup, rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--evaluations", type=int, default=1_000_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    query = load_queries()["verdict_counts"]
    with tempfile.TemporaryDirectory(prefix="bench-fleet-") as tmp:
        tmp = Path(tmp)
        t0 = time.perf_counter()
        single = tmp / "single.duckdb"
        build(single, args.evaluations)
        files = []
        for w in range(args.workers):
            files.append(tmp / f"w{w}.duckdb")
            build(files[-1], args.evaluations, w, args.workers)
        violations = duckdb.connect(str(single), read_only=True).execute("SELECT count(*) FROM violations").fetchone()
        print(f"built {args.evaluations:,} evaluations and {violations[0]:,} violations "
              f"(one file, and {args.workers} worker files) in {time.perf_counter() - t0:.1f} s")

        exports, again, streamed = [], [], []
        for r in range(args.rounds):
            root = tmp / f"export-{r}"
            seconds, partitions = export_once(single, root, "w0")
            exports.append(seconds)
            again.append(export_once(single, root, "w0")[0])
            shutil.rmtree(root)
            streamed.append(export_once(single, root, "w0", hardened=True)[0])
            shutil.rmtree(root)
        rate = args.evaluations / statistics.median(exports)
        print(f"export, every partition ({partitions} files): median {statistics.median(exports):.2f} s "
              f"({rate:,.0f} evaluation rows/s, violations included)")
        print(f"export from a hardened store (Arrow stream to the exporter's DuckDB): median "
              f"{statistics.median(streamed):.2f} s ({statistics.median(streamed) / statistics.median(exports):.2f}x)")
        print(f"export pass with nothing changed: median {statistics.median(again) * 1000:.1f} ms")

        fleet = tmp / "fleet"
        for w, db in enumerate(files):
            export_once(db, fleet, f"w{w}")
        file_times, fleet_times, setups = [], [], []
        for _ in range(args.rounds):
            seconds, expected = on_file(single, query)
            file_times.append(seconds)
            seconds, setup, got = on_fleet(fleet, query)
            fleet_times.append(seconds)
            setups.append(setup)
            if sorted(got) != sorted(expected):
                raise SystemExit("the fleet's answer differs from the single file's")
        base, over = statistics.median(file_times), statistics.median(fleet_times)
        print(f"verdict_counts on the DuckDB file: median {base * 1000:.1f} ms (open + query)")
        print(f"verdict_counts over {args.workers} workers' Parquet: median {over * 1000:.1f} ms "
              f"(of which views and duplicate check {statistics.median(setups) * 1000:.1f} ms)")
        print(f"ratio fleet / file: {over / base:.2f}x  ({datetime.now(UTC):%Y-%m-%d %H:%M} UTC)")


if __name__ == "__main__":
    main()
