"""`claimwatch replay`: what a candidate config would have concluded, from stored claims or a capture."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from claimwatch.core.config import load_config
from claimwatch.core.settings import db_path
from claimwatch.replay import ReplayError, ReplayReport, replay_claims, replay_otlp, save
from claimwatch.store.queries import QueryError, parse_time

from .query_cmd import render
from .serve_cmd import add_server_flag

EPILOG = """\
examples:
  claimwatch replay --config candidate.yaml
  claimwatch replay --config candidate.yaml --since 30d --agent 'worker-*' --format json
  claimwatch replay --config candidate.yaml --otlp traces.jsonl --baseline-config claimwatch.yaml

From stored claims (the audit database, the default): every claim the output check
stored in the window is judged again under the candidate's facts, policies and trust
rules, and compared with the verdict recorded for its output. Detection is not re-run.

From a capture (--otlp: OTLP/JSON lines, as the OpenTelemetry Collector's file exporter
writes them): the whole pipeline, detection included, runs once under the baseline config
(--baseline-config, default the builtin defaults) and once under the candidate.

While a collector runs it holds the DuckDB file, so replay asks it (--server, default
$CLAIMWATCH_SERVER or http://127.0.0.1:8787; --token for one with service.api.token) to
replay on its own database. With no collector running, or with --db, the file is opened
directly; a file held by a collector without the replay endpoint cannot be: stop it, or
replay a copy (--db copy.duckdb). The run is recorded in replay_runs / replay_agents for
the dashboard's "Last replay" panel (--no-save to skip; a read-only file is only printed).
exit codes: 0 done, 2 usage, config or database error.
"""


def add_parser(sub) -> None:
    r = sub.add_parser(
        "replay",
        help="replay stored claims (or a capture) under a candidate config before enforcing it",
        description="Recompute fact checks, policies and verdicts under a candidate config and show what flips.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    r.add_argument("--config", metavar="FILE", required=True, help="the candidate config (YAML or JSON)")
    r.add_argument("--since", default="7d", help="start of the window: ISO 8601 or an age (default 7d)")
    r.add_argument("--until", default=None, help="end of the window (default now)")
    r.add_argument("--agent", metavar="GLOB", default=None, help="only agents whose id matches")
    r.add_argument("--db", metavar="FILE", help="open this DuckDB file instead of asking a running collector")
    add_server_flag(r)
    r.add_argument("--token", metavar="TOKEN", help="API token of a collector that has one (or $CLAIMWATCH_API_TOKEN)")
    r.add_argument("--otlp", metavar="FILE", type=Path, help="replay a file of OTLP/JSON lines instead")
    r.add_argument("--baseline-config", metavar="FILE", help="with --otlp: the config to compare with (default builtin)")
    r.add_argument("--examples", type=int, default=3, metavar="N", help="example claims per flip (default 3)")
    r.add_argument("--no-save", action="store_true", help="do not record the run in replay_runs")
    r.add_argument("--format", choices=("table", "json"), default="table")
    r.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    try:
        candidate = load_config(args.config)
        if args.examples < 0:
            raise ReplayError("--examples must be 0 or more")
        if args.otlp is not None:
            report, saved = _from_capture(args, candidate).to_dict(), None
        else:
            report, saved = _from_database(args, candidate)
    except (ReplayError, QueryError, OSError) as exc:
        print(f"claimwatch: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(report, default=str, ensure_ascii=False) if args.format == "json" else describe(report))
    if saved:
        print(f"claimwatch: {saved}", file=sys.stderr)
    return 0


def _from_capture(args, candidate) -> ReplayReport:
    if args.db or args.since != "7d" or args.until:
        raise ReplayError("--otlp replays the whole file: --db, --since and --until do not apply")
    baseline = load_config(args.baseline_config)
    with args.otlp.open(encoding="utf-8", errors="surrogateescape") as lines:
        return replay_otlp(
            lines,
            candidate,
            baseline,
            agent=args.agent,
            examples=args.examples,
            candidate_label=args.config,
            baseline_label=args.baseline_config or "builtin defaults",
        )


def _from_database(args, candidate) -> tuple[dict, str | None]:
    if args.baseline_config:
        raise ReplayError("--baseline-config applies to --otlp; stored claims are compared with their recorded verdicts")
    since = parse_time(args.since)
    until = parse_time(args.until) if args.until else None
    if args.db is None:
        try:
            return _via_server(args)
        except ConnectionError:
            pass  # no collector: the file is free to open
    db = Path(db_path(args.db))
    con, writable = open_database(db, want_write=not args.no_save)
    try:
        report = replay_claims(
            con, candidate, since=since, until=until, agent=args.agent, examples=args.examples,
            candidate_label=args.config,
        )
        if args.no_save:
            return report.to_dict(), None
        if not writable:
            return report.to_dict(), f"{db} is read-only: the run is printed, not recorded"
        run_id = save(con, report)
        return report.to_dict(), f"recorded as replay run {run_id} in {db}"
    finally:
        con.close()


class _NoReplayEndpoint(Exception):
    """The collector that answered has no replay endpoint (an older one)."""


def _via_server(args) -> tuple[dict, str | None]:
    """Ask a running collector to replay on its own database (it holds the file).

    ConnectionError when none answers; a collector without the endpoint leaves the
    file to be tried (and reported as held).
    """
    from claimwatch.core.config import read_config_data

    from .serve_cmd import fetch_json
    from .settings import server_url

    base = server_url(args.server)
    token = args.token or os.environ.get("CLAIMWATCH_API_TOKEN", "")
    body = {
        "config": read_config_data(args.config),
        "configName": args.config,
        "since": args.since,
        "until": args.until,
        "agent": args.agent,
        "examples": args.examples,
        "save": not args.no_save,
    }
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    try:
        report = fetch_json(f"{base}/api/replay", timeout=120.0, data=json.dumps(body).encode(), headers=headers)
    except RuntimeError as exc:
        if "no such endpoint" in str(exc):
            raise ConnectionError(str(exc)) from None  # an older collector: fall back to the file
        raise ReplayError(f"the collector at {base} refused the replay: {exc}") from None
    run_id = report.pop("run_id", None)
    return report, (f"recorded as replay run {run_id} by the collector at {base}" if run_id else None)


def open_database(db: Path, want_write: bool = True):
    """(connection, writable): read-write when asked and allowed, else read-only.

    DuckDB lets one process hold a file for writing, and a collector holds its own:
    then nothing else can open it, read-only included, and the message says what to do.
    """
    import duckdb

    from claimwatch.store.schema import migrate

    if not db.exists():
        raise ReplayError(f"no audit database at {db} (pass --db FILE, or replay a capture with --otlp FILE)")
    try:
        if want_write:
            try:
                con = duckdb.connect(str(db))
            except duckdb.IOException as exc:
                if _held(exc):
                    raise
                return duckdb.connect(str(db), read_only=True), False  # e.g. a file we may not write
            try:
                migrate(con)  # an older file gets the replay tables, as a collector start would give it
            except duckdb.Error:
                con.close()
                return duckdb.connect(str(db), read_only=True), False
            return con, True
        return duckdb.connect(str(db), read_only=True), False
    except duckdb.IOException as exc:
        if _held(exc):
            raise ReplayError(
                f"{db} is held by another process (a running collector?): stop it, or replay a copy "
                f"(cp {db} /tmp/replay.duckdb, then --db /tmp/replay.duckdb)"
            ) from None
        raise ReplayError(f"cannot open {db}: {exc}") from None
    except duckdb.Error as exc:
        raise ReplayError(f"cannot open {db}: {exc}") from None


def _held(exc: Exception) -> bool:
    return "lock" in str(exc).lower()


# --- the readable report --------------------------------------------------------------------------


def describe(report: dict) -> str:
    """The report (`ReplayReport.to_dict()`) as a person reads it: the agent table, then each flip."""
    out = [_heading(report), ""]
    columns = ["agent_id", "tier", "mode", "evaluations", "flag% now", "flag% cand", "block% now", "block% cand",
               "flips"]
    rows = []
    for d in report["agents"]:
        tier = d["trust_tier"] if d["trust_tier"] == d["candidate_trust_tier"] else (
            f"{d['trust_tier']}->{d['candidate_trust_tier']}")
        mode = d["mode"] if d["mode"] == d["candidate_mode"] else f"{d['mode']}->{d['candidate_mode']}"
        flips = ", ".join(f"{k} {v}" for k, v in d["flips"].items()) or "-"
        rows.append((d["agent_id"], tier, mode, d["evaluations"], d["flag_pct_now"], d["flag_pct_candidate"],
                     d["block_pct_now"], d["block_pct_candidate"], flips))
    t = report["totals"]
    rows.append(("(all)", "", "", report["evaluations"], t["flag_pct_now"], t["flag_pct_candidate"],
                 t["block_pct_now"], t["block_pct_candidate"], str(t["flips"])))
    out.append(render(columns, rows, "table"))
    if not report["flips"]:
        out += ["", "no verdict flips under the candidate"]
    for flip in report["flips"]:
        count = flip["count"]
        out += ["", f"{flip['flip']}: {count} evaluation{'s' if count != 1 else ''}"]
        for fact in flip["facts"]:
            out.append("  fact  " + _fact_line(fact))
        for example in flip["examples"]:
            out.append("  e.g.  " + _example_line(example))
    for note in report["notes"]:
        out += [f"note: {note}"] if out[-1].startswith("note:") else ["", f"note: {note}"]
    return "\n".join(out)


def _heading(report: dict) -> str:
    cand, window = report["candidate"], report["window"]
    who = f" for agents {window['agent']}" if window.get("agent") else ""
    if report["source"] == "otlp":
        base = report["baseline"]
        what = (f"replay of a capture{who}: {base.get('path')} "
                f"(hash {base.get('config_hash')}) vs candidate {cand.get('path')} (hash {cand.get('config_hash')})")
    else:
        until = window.get("until") or "now"
        what = (f"replay of stored claims {window.get('since')} .. {until}{who}: recorded verdicts vs "
                f"candidate {cand.get('path')} (hash {cand.get('config_hash')})")
    unit = "judgements" if report["source"] == "claims" else "spans"
    return (f"{what}\n{report['evaluations']} evaluations, {report['claims']} claims, "
            f"{report['judgements']} {unit}, {report['seconds']:.2f} s")


def _fact_line(fact: dict) -> str:
    now = _status(fact.get("fact_id_now"), fact.get("status_now"))
    cand = _status(fact.get("fact_id_candidate"), fact.get("status_candidate"))
    return f"{now} -> {cand}: {fact['claims']} claim{'s' if fact['claims'] != 1 else ''}"


def _status(fact_id, status) -> str:
    if status is None:
        return "not checked"
    return f"{status} ({fact_id})" if fact_id else status


def _example_line(e: dict) -> str:
    if e.get("check", "output") != "output" and "subject" not in e:
        return f"{e.get('agent_id', '')} {e['check']}: {e.get('reason', '')}"
    said = e.get("matched_text") or f"{e.get('subject')} {e.get('assertion')}"
    when = f"{e['time']} " if e.get("time") else ""
    fact = _status(e.get("candidate_fact"), e.get("candidate_status"))
    action = e.get("candidate_action")
    acted = f", {e.get('action')} -> {action}" if action else ""
    return f"{when}{e.get('agent_id', '')} {e.get('category')} {said!r}{acted}, now {fact}"
