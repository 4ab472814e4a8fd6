"""Fleet-wide queries: which time partitions a worker exports and when, the Parquet layout, and
reading every worker's partitions back as the store's tables (claimwatch.store.export)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import duckdb
import pytest

from claimwatch.collector.cli import main
from claimwatch.store import AuditStore
from claimwatch.store.export import (
    FleetError,
    Partition,
    PartitionExporter,
    check_worker,
    default_worker,
    due,
    fleet_connection,
    parse_file,
    partition_of,
)
from claimwatch.store.queries import load_queries, run_query

NOW = datetime(2026, 3, 10, 12, 30)  # naive UTC, like the tables
DAY = timedelta(days=1)


def _clock(when: datetime):
    return lambda: when.replace(tzinfo=UTC).timestamp()


def _evaluation(i: int, when: datetime, agent: str = "agent-a", verdict: str = "flag") -> dict:
    return {"evaluation_id": f"e{i}", "time": when, "trace_id": f"t{i}", "span_id": f"s{i}", "agent_id": agent,
            "check_name": "output", "verdict": verdict, "trust_tier": "standard"}


def _violation(i: int, when: datetime, agent: str = "agent-a") -> dict:
    return {"evaluation_id": f"e{i}", "time": when, "trace_id": f"t{i}", "span_id": f"s{i}", "agent_id": agent,
            "check_name": "output", "verdict": "flag", "category": "system_state"}


@pytest.fixture
def store(tmp_path):
    s = AuditStore(tmp_path / "worker.duckdb", flush_interval_s=0.05)
    yield s
    s.close()


def _add(store, *rows: tuple[int, datetime]) -> None:
    for i, when in rows:
        store.add(_evaluation(i, when), [_violation(i, when)])
    store.flush()


def _exporter(store, root, now=NOW, **kw) -> PartitionExporter:
    kw.setdefault("grace_s", 60)
    return PartitionExporter(store.cursor, str(root), "w1", clock=_clock(now), **kw)


# --- choosing partitions --------------------------------------------------------------------------
def test_partition_of_truncates_to_the_day_or_the_hour():
    when = datetime(2026, 3, 10, 7, 45, 12)
    assert partition_of("evaluations", when, "day") == Partition("evaluations", datetime(2026, 3, 10), "day")
    assert partition_of("evaluations", when, "hour") == Partition("evaluations", datetime(2026, 3, 10, 7), "hour")


def test_layout_is_table_date_hour_worker_and_parses_back():
    day = Partition("violations", datetime(2026, 3, 10), "day")
    hour = Partition("violations", datetime(2026, 3, 10, 7), "hour")
    assert day.directory("/x/", "w1") == "/x/violations/date=2026-03-10/worker=w1"
    assert hour.directory("s3://b/f", "w1") == "s3://b/f/violations/date=2026-03-10/hour=07/worker=w1"
    assert parse_file(day.directory("/x", "w1") + "/part.parquet") == (day, "w1")
    assert parse_file(hour.directory("/x", "w1") + "/part.parquet") == (hour, "w1")
    assert parse_file("/x/violations/date=2026-03-10/worker=w1/.part.parquet.1.2.tmp") is None


def test_a_closed_partition_is_due_when_never_exported():
    closed = Partition("evaluations", NOW.replace(hour=0) - DAY)
    assert due({closed: 3}, {}, now=NOW, grace=timedelta(minutes=5)) == [closed]


def test_the_open_partition_waits_until_shutdown():
    today = Partition("evaluations", NOW.replace(hour=0, minute=0))
    assert due({today: 3}, {}, now=NOW, grace=timedelta(0)) == []
    assert due({today: 3}, {}, now=NOW, grace=timedelta(0), final=True) == [today]


def test_a_partition_stays_open_for_the_grace_after_its_end():
    yesterday = Partition("evaluations", NOW.replace(hour=0, minute=0) - DAY)
    just_after_midnight = NOW.replace(hour=0, minute=1)
    assert due({yesterday: 1}, {}, now=just_after_midnight, grace=timedelta(minutes=5)) == []
    assert due({yesterday: 1}, {}, now=just_after_midnight, grace=timedelta(seconds=30)) == [yesterday]


def test_an_exported_partition_is_due_again_only_when_its_row_count_changed():
    closed = Partition("evaluations", NOW.replace(hour=0, minute=0) - DAY)
    assert due({closed: 3}, {closed: 3}, now=NOW, grace=timedelta(0), final=True) == []
    assert due({closed: 4}, {closed: 3}, now=NOW, grace=timedelta(0)) == [closed]


# --- exporting from a store -----------------------------------------------------------------------
def test_exporter_writes_closed_partitions_of_every_table_holding_rows(store, tmp_path):
    _add(store, (1, NOW - 2 * DAY), (2, NOW - DAY), (3, NOW))
    written = _exporter(store, tmp_path / "fleet").export()
    assert sorted((p.table, p.start.date()) for p in written) == sorted(
        (t, (NOW - d).date()) for t in ("evaluations", "violations") for d in (2 * DAY, DAY)
    )
    part = tmp_path / "fleet" / "evaluations" / f"date={(NOW - DAY).date()}" / "worker=w1" / "part.parquet"
    assert duckdb.sql(f"SELECT evaluation_id FROM '{part}'").fetchall() == [("e2",)]
    assert not list((tmp_path / "fleet").rglob("*.tmp"))


def test_a_late_row_rewrites_its_closed_partition_whole(store, tmp_path):
    exporter = _exporter(store, tmp_path / "fleet")
    _add(store, (1, NOW - DAY))
    exporter.export()
    _add(store, (2, NOW - DAY + timedelta(hours=1)))
    written = exporter.export()
    assert {p.table for p in written} == {"evaluations", "violations"}
    part = tmp_path / "fleet" / "evaluations" / f"date={(NOW - DAY).date()}" / "worker=w1" / "part.parquet"
    assert sorted(duckdb.sql(f"SELECT evaluation_id FROM '{part}'").fetchall()) == [("e1",), ("e2",)]
    assert exporter.export() == []


def test_a_restarted_exporter_reads_what_it_wrote_and_rewrites_nothing(store, tmp_path):
    _add(store, (1, NOW - 2 * DAY), (2, NOW - DAY))
    _exporter(store, tmp_path / "fleet").export(final=True)
    again = _exporter(store, tmp_path / "fleet")
    assert again.export(final=True) == []
    _add(store, (3, NOW - DAY))
    assert {p.start for p in again.export()} == {(NOW - DAY).replace(hour=0, minute=0)}


def test_stop_exports_the_open_partition(store, tmp_path):
    exporter = _exporter(store, tmp_path / "fleet")
    exporter.start(every_s=3600)
    _add(store, (1, NOW))
    exporter.stop(final=True)
    assert (tmp_path / "fleet" / "evaluations" / f"date={NOW.date()}" / "worker=w1" / "part.parquet").exists()


def test_bookkeeping_and_replay_tables_are_not_exported(store, tmp_path):
    cursor = store.cursor()
    cursor.execute("INSERT INTO replay_runs (run_id, time) VALUES ('r1', ?)", [NOW - DAY])
    cursor.close()
    _add(store, (1, NOW - DAY))
    _exporter(store, tmp_path / "fleet").export(final=True)
    assert sorted(p.name for p in (tmp_path / "fleet").iterdir()) == ["evaluations", "violations"]


def test_hourly_partitions_add_an_hour_level(store, tmp_path):
    _add(store, (1, NOW - timedelta(hours=3)))
    _exporter(store, tmp_path / "fleet", partition="hour").export()
    hour = (NOW - timedelta(hours=3)).strftime("%H")
    assert (tmp_path / "fleet" / "violations" / f"date={NOW.date()}" / f"hour={hour}" / "worker=w1").is_dir()


def test_default_worker_name_is_stable_for_one_file_and_differs_between_files(tmp_path):
    a, b = str(tmp_path / "a" / "claimwatch.duckdb"), str(tmp_path / "b" / "claimwatch.duckdb")
    assert default_worker(a) == default_worker(a)
    assert default_worker(a) != default_worker(b)
    assert check_worker(default_worker(a)) == default_worker(a)


@pytest.mark.parametrize("name", ["a/b", "", "x=y", "../up", "-lead"])
def test_worker_names_that_are_not_one_path_segment_are_refused(name):
    with pytest.raises(FleetError, match="worker name"):
        check_worker(name)


# --- reading the fleet ----------------------------------------------------------------------------
def _two_workers(tmp_path) -> str:
    root = tmp_path / "fleet"
    for worker, agent, start in (("w1", "agent-a", 0), ("w2", "agent-b", 10)):
        s = AuditStore(tmp_path / f"{worker}.duckdb", flush_interval_s=0.05)
        for i in range(start, start + 3):
            s.add(_evaluation(i, NOW - DAY, agent, "flag" if i % 2 else "pass"), [_violation(i, NOW - DAY, agent)])
        s.flush()
        PartitionExporter(s.cursor, str(root), worker, clock=_clock(NOW)).export()
        s.close()
    return str(root)


def test_fleet_views_union_every_workers_rows_with_date_and_worker(tmp_path):
    con = fleet_connection(_two_workers(tmp_path))
    assert con.execute("SELECT worker, count(*) FROM evaluations GROUP BY 1 ORDER BY 1").fetchall() == [
        ("w1", 3),
        ("w2", 3),
    ]
    assert con.execute("SELECT DISTINCT date FROM violations").fetchall() == [((NOW - DAY).date(),)]


def test_a_table_no_worker_exported_is_an_empty_view_with_the_store_columns(tmp_path, store):
    con = fleet_connection(_two_workers(tmp_path))
    columns = [r[0] for r in con.execute("DESCRIBE claims").fetchall()]
    assert columns == [*store.columns("claims"), "date", "worker"]
    assert con.execute("SELECT count(*) FROM claims").fetchone() == (0,)


def test_columns_an_older_worker_did_not_have_read_as_null(tmp_path, store):
    root = tmp_path / "fleet"
    old = root / "evaluations" / "date=2026-03-09" / "worker=old"
    old.mkdir(parents=True)
    duckdb.sql(
        "COPY (SELECT 'e9' AS evaluation_id, TIMESTAMP '2026-03-09 10:00' AS time, 'agent-z' AS agent_id) "
        f"TO '{old}/part.parquet' (FORMAT parquet)"
    )
    con = fleet_connection(str(root))
    assert con.execute("SELECT agent_id, verdict, worker FROM evaluations").fetchall() == [("agent-z", None, "old")]
    assert [r[0] for r in con.execute("DESCRIBE evaluations").fetchall()][:-2] == store.columns("evaluations")


def test_every_named_query_runs_over_the_fleet(tmp_path):
    con = fleet_connection(_two_workers(tmp_path))
    for query in load_queries().values():
        params = {p.name: "x" for p in query.params if p.required}
        run_query(con, query, params)


def test_mixed_daily_and_hourly_workers_are_refused_with_the_reason(tmp_path):
    root = _two_workers(tmp_path)
    hourly = tmp_path / "fleet" / "evaluations" / "date=2026-03-09" / "hour=03" / "worker=w3"
    hourly.mkdir(parents=True)
    duckdb.sql(f"COPY (SELECT 'e9' AS evaluation_id) TO '{hourly}/part.parquet' (FORMAT parquet)")
    with pytest.raises(FleetError, match="mixes daily and hourly"):
        fleet_connection(root)


def test_fleet_errors_say_what_is_missing(tmp_path):
    with pytest.raises(FleetError, match="no such directory"):
        fleet_connection(str(tmp_path / "nowhere"))
    with pytest.raises(FleetError, match="no exported Parquet partitions"):
        fleet_connection(str(tmp_path))


# --- the commands ---------------------------------------------------------------------------------
def test_export_command_then_query_fleet_answers_like_the_database(tmp_path, capsys):
    db = tmp_path / "stopped.duckdb"
    s = AuditStore(db, flush_interval_s=0.05)
    today = datetime.now(UTC).replace(tzinfo=None)
    for i in range(4):
        s.add(_evaluation(i, today - timedelta(hours=30 * i), "agent-a" if i % 2 else "agent-b"), [])
    s.close()
    assert main(["export", "--db", str(db), "--to", str(tmp_path / "fleet"), "--worker", "node-3"]) == 0
    assert "as worker node-3" in capsys.readouterr().out
    assert main(["query", "verdict_counts", "--db", str(db), "--format", "csv"]) == 0
    single = capsys.readouterr().out
    assert main(["query", "verdict_counts", "--fleet", str(tmp_path / "fleet"), "--format", "csv"]) == 0
    assert capsys.readouterr().out == single
    assert main(["export", "--db", str(db), "--to", str(tmp_path / "fleet"), "--worker", "node-3"]) == 0
    assert "exported 0 partition(s)" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["query", "verdict_counts", "--fleet", "{tmp}/nowhere"], "no such directory"),
        (["query", "verdict_counts", "--fleet", "{tmp}"], "no exported Parquet partitions"),
        (["query", "--fleet", "{tmp}", "--sql", "SELECT 1"], "--fleet runs named queries"),
        (["export", "--db", "{tmp}/missing.duckdb", "--to", "{tmp}/fleet"], "no audit database"),
        (["export", "--db", "{tmp}/w.duckdb", "--to", "{tmp}/fleet", "--worker", "a/b"], "worker name"),
    ],
)
def test_command_errors_are_one_line_with_exit_code_2(tmp_path, capsys, argv, message):
    AuditStore(tmp_path / "w.duckdb").close()
    assert main([a.replace("{tmp}", str(tmp_path)) for a in argv]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err


def test_an_evaluation_two_workers_both_stored_counts_once(tmp_path):
    # A Kafka partition moved to another consumer before the first committed: same ids, two workers.
    root = tmp_path / "fleet"
    for worker in ("w1", "w2"):
        s = AuditStore(tmp_path / f"{worker}.duckdb", flush_interval_s=0.05)
        for i in (1, 2):
            s.add(_evaluation(i, NOW - DAY), [_violation(i, NOW - DAY), _violation(i, NOW - DAY)])
        if worker == "w2":
            s.add(_evaluation(3, NOW - DAY), [_violation(3, NOW - DAY)])
        s.flush()
        PartitionExporter(s.cursor, str(root), worker, clock=_clock(NOW)).export()
        s.close()
    con = fleet_connection(str(root))
    assert con.execute("SELECT evaluation_id, worker FROM evaluations ORDER BY 1").fetchall() == [
        ("e1", "w1"),
        ("e2", "w1"),
        ("e3", "w2"),
    ]
    assert con.execute("SELECT count(*) FROM violations").fetchone() == (5,)


def test_a_store_whose_file_access_the_api_turned_off_still_exports(store, tmp_path):
    from claimwatch.collector.sql_guard import harden

    harden(store)  # what the API does when ad-hoc SQL is on: one-way for the store's instance
    _add(store, (1, NOW - DAY), (2, NOW - DAY))
    written = _exporter(store, tmp_path / "fleet").export()
    assert {p.table for p in written} == {"evaluations", "violations"}
    con = fleet_connection(str(tmp_path / "fleet"))
    assert con.execute("SELECT count(*) FROM evaluations").fetchone() == (2,)
