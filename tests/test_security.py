"""The query surface cannot change or leak what it should not (issue 9): read-only ad-hoc SQL, no file,
environment or network access, bounded and cancellable queries, Host/Origin/token/content-type checks."""

from __future__ import annotations

import http.client
import json
import random
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import duckdb
import pytest
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter as HttpExporter

from claimwatch.collector import api, sql_guard
from claimwatch.collector.cli import main
from claimwatch.store.queries import load_queries
from tests.conftest import ROOT
from tests.otlp_helpers import rows, start_collector, wait_for
from tests.test_collector import run_agent

pytestmark = pytest.mark.e2e
TOKEN = "s3cret"  # start_collector's token


def _fed_collector(path):
    c = start_collector(path)
    run_agent(HttpExporter(endpoint=f"http://{c.addresses.otlp_http}/v1/traces"))
    wait_for(lambda: rows(c, "SELECT count(*) FROM violations")[0][0] >= 2)
    return c


@pytest.fixture
def collector(tmp_path):
    c = _fed_collector(tmp_path)
    yield c
    c.stop()


@pytest.fixture(scope="module")
def shared_collector(tmp_path_factory):
    """One collector for the read-only checks: each test asserts nothing changed."""
    c = _fed_collector(tmp_path_factory.mktemp("security"))
    yield c
    c.stop()


def call(collector, method, path, body=None, headers=None, token=TOKEN, content_type="application/json"):
    host, port = collector.addresses.api.split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=30)
    all_headers = {**({"Authorization": f"Bearer {token}"} if token else {}), **(headers or {})}
    if body is not None:
        all_headers.setdefault("Content-Type", content_type)
    conn.request(method, path, body=body, headers=all_headers)
    response = conn.getresponse()
    payload = response.read()
    conn.close()
    try:
        return response.status, json.loads(payload)
    except ValueError:
        return response.status, payload


def sql(collector, text, **kwargs):
    return call(collector, "POST", "/api/sql", json.dumps({"sql": text}), **kwargs)


# --- item 11: ad-hoc SQL reads the audit tables and nothing else -------------------------------------------
ATTACKS = {
    "WITH d AS (DELETE FROM violations RETURNING 1) SELECT count(*) FROM d": "only a single SELECT",
    "WITH u AS (UPDATE evaluations SET verdict = 'pass' RETURNING 1) SELECT * FROM u": "only a single SELECT",
    "WITH i AS (INSERT INTO violations (check_name) VALUES ('forged') RETURNING 1) SELECT * FROM i": "only a single SELECT",
    "UPDATE evaluations SET verdict = 'pass'": "only a single SELECT",
    "INSERT INTO violations (check_name) VALUES ('forged')": "only a single SELECT",
    "DELETE FROM schema_migrations": "only a single SELECT",
    "SELECT 1; DELETE FROM violations": "only a single SELECT",
    "SELECT * FROM read_text('/etc/passwd')": "table function 'read_text' is not allowed",
    "SELECT * FROM read_blob('/proc/self/environ')": "table function 'read_blob' is not allowed",
    "SELECT * FROM glob('/*')": "table function 'glob' is not allowed",
    "SELECT * FROM parquet_scan('/tmp/x.parquet')": "table function 'parquet_scan' is not allowed",
    "SELECT * FROM '/etc/passwd'": "is not a table of the audit database",
    "SELECT * FROM 'https://example.com/x.csv'": "is not a table of the audit database",
    "SELECT * FROM query('DELETE FROM violations')": "table function 'query' is not allowed",
    "SELECT current_setting('home_directory')": "function 'current_setting' is not allowed",
    "SELECT getenv('HOME')": "function 'getenv' is not allowed",
    "SELECT write_log('forged', level := 'error')": "function 'write_log' is not allowed",
    "SELECT st_point(1, 2)": "function 'st_point' is not allowed",  # would autoinstall spatial
    "SELECT 'x'::H3INDEX": "type 'H3INDEX' is not available",
    "SELECT * FROM duckdb_settings()": "table function 'duckdb_settings' is not allowed",
    "SELECT (SELECT content FROM read_text('/etc/hostname')) FROM violations": "table function 'read_text'",
    "ATTACH '/tmp/other.duckdb' AS o": "only a single SELECT",
    "COPY violations TO '/tmp/out.csv'": "only a single SELECT",
    "INSTALL spatial": "only a single SELECT",
    "SET enable_external_access = true": "only a single SELECT",
    "SELECT " + "(" * 2000 + "1" + ")" * 2000: "SQL does not parse",
}


@pytest.mark.parametrize("attack", list(ATTACKS))
def test_ad_hoc_sql_refuses_writes_files_and_network_and_changes_nothing(shared_collector, attack):
    collector = shared_collector
    before = rows(collector, "SELECT (SELECT count(*) FROM violations), (SELECT count(*) FROM schema_migrations), "
                              "(SELECT string_agg(verdict, ',' ORDER BY evaluation_id) FROM evaluations)")
    status, answer = sql(collector, attack)
    assert status == 400
    assert ATTACKS[attack] in answer["error"]
    assert "Traceback" not in answer["error"]
    after = rows(collector, "SELECT (SELECT count(*) FROM violations), (SELECT count(*) FROM schema_migrations), "
                             "(SELECT string_agg(verdict, ',' ORDER BY evaluation_id) FROM evaluations)")
    assert after == before


def test_the_store_instance_has_no_file_access_once_ad_hoc_sql_is_on(collector):
    cursor = collector.store.cursor()
    try:
        with pytest.raises(duckdb.PermissionException):
            cursor.execute("SELECT * FROM read_text('/etc/passwd')").fetchall()
    finally:
        cursor.close()
    # ... while the writer keeps writing.
    run_agent(HttpExporter(endpoint=f"http://{collector.addresses.otlp_http}/v1/traces"))
    wait_for(lambda: rows(collector, "SELECT count(*) FROM violations")[0][0] >= 4)


def test_ad_hoc_sql_answers_reads_with_timestamps_and_a_row_cap(collector):
    status, answer = sql(collector, "SELECT now() AS t, count(*) AS n FROM violations")
    assert status == 200
    assert answer["columns"] == ["t", "n"] and answer["rows"][0][1] >= 2
    assert answer["rows"][0][0].startswith(time.strftime("%Y"))
    status, answer = sql(collector, "SELECT * FROM range(25000)")
    assert (status, len(answer["rows"]), answer["truncated"]) == (200, api.SQL_MAX_ROWS, True)
    tables = {r[0] for r in rows(collector, "SELECT table_name FROM duckdb_tables()")}
    for query in load_queries().values():  # the shipped queries are what analysts copy from
        try:
            sql_guard.check(collector.store.cursor(), query.sql)
        except sql_guard.Refused as exc:  # only for tables of checks this collector does not run
            assert "is not a table of the audit database" in str(exc), (query.name, str(exc))
            assert str(exc).split("'")[1] not in tables, (query.name, str(exc))


def test_ad_hoc_sql_is_cancelled_at_the_time_limit(collector, monkeypatch):
    monkeypatch.setattr(api, "SQL_TIMEOUT_S", 0.5)
    status, answer = sql(collector, "SELECT count(*) FROM range(1000000000000)")
    assert (status, answer["error"]) == (400, "query cancelled: over the time limit")
    assert sql(collector, "SELECT 1 AS one")[1]["rows"] == [[1]]


def test_ad_hoc_sql_is_cancelled_when_the_client_goes_away(collector, monkeypatch):
    monkeypatch.setattr(api, "SQL_TIMEOUT_S", 120)
    body = json.dumps({"sql": "SELECT count(*) FROM range(1000000000000)"}).encode()
    host, port = collector.addresses.api.split(":")
    sock = socket.create_connection((host, int(port)), timeout=5)
    sock.sendall(
        f"POST /api/sql HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {TOKEN}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body
    )
    wait_for(lambda: len(collector._api.running) == 1)
    sock.close()
    wait_for(lambda: len(collector._api.running) == 0, timeout=5)  # long before the 120 s limit


def test_cancel_queries_ends_running_ad_hoc_sql_before_the_store_closes(collector):
    answers = []
    client = threading.Thread(
        target=lambda: answers.append(sql(collector, "SELECT count(*) FROM range(1000000000000)"))
    )
    client.start()
    wait_for(lambda: len(collector._api.running) == 1)
    assert collector._api.cancel_queries() == 1
    client.join(10)
    assert answers == [(400, {"error": "query cancelled: the collector is shutting down"})]
    assert sql(collector, "SELECT 1") == (400, {"error": "query refused: the collector is shutting down"})


def test_sigterm_during_an_ad_hoc_query_exits_cleanly(tmp_path):
    config = tmp_path / "c.yaml"
    config.write_text(
        "receivers:\n  otlp:\n    protocols:\n      http: {endpoint: '127.0.0.1:0'}\n"
        "      grpc: {endpoint: '127.0.0.1:0'}\nservice:\n  api: {endpoint: '127.0.0.1:0', token: t0k}\n"
        f"storage: {{path: '{tmp_path / 's.duckdb'}'}}\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "claimwatch.collector.cli", "serve", "--config", str(config)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        lines = []
        while not any(line.strip().startswith("API") for line in lines):
            lines.append(proc.stdout.readline())
            assert proc.poll() is None, "".join(lines)
        address = next(line for line in lines if line.strip().startswith("API")).split("http://")[1].split()[0]
        answers = []

        def long_query():
            host, port = address.split(":")
            conn = http.client.HTTPConnection(host, int(port), timeout=30)
            body = json.dumps({"sql": "SELECT count(*) FROM range(1000000000000)"})
            try:
                conn.request("POST", "/api/sql", body, {"Authorization": "Bearer t0k", "Content-Type": "application/json"})
                answers.append(conn.getresponse().status)
            except OSError as exc:
                answers.append(exc)

        client = threading.Thread(target=long_query)
        client.start()
        time.sleep(1.0)
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=30)
        client.join(30)
        assert proc.returncode == 0, out
        assert "Traceback" not in out
        assert "claimwatch: stopped after" in out
        assert answers and (answers[0] in (400, 503) or isinstance(answers[0], OSError))
    finally:
        if proc.poll() is None:
            proc.kill()


def test_cli_sql_on_a_file_is_read_only_and_has_no_file_access(tmp_path, capsys):
    db = tmp_path / "a.duckdb"
    con = duckdb.connect(str(db))
    con.execute("CREATE TABLE violations (reason VARCHAR); INSERT INTO violations VALUES ('x')")
    con.close()
    assert main(["query", "--db", str(db), "--sql", "SELECT count(*) AS n FROM violations", "--format", "csv"]) == 0
    assert capsys.readouterr().out == "n\n1\n"
    for attack in ("SELECT * FROM read_text('/etc/passwd')", "WITH d AS (DELETE FROM violations RETURNING 1) SELECT * FROM d"):
        assert main(["query", "--db", str(db), "--sql", attack]) == 2
        err = capsys.readouterr().err
        assert err.startswith("claimwatch: ") and err.count("\n") == 1


# --- item 17: who may ask ---------------------------------------------------------------------------------
def test_host_header_must_name_this_collector(collector):
    port = collector.addresses.api.split(":")[1]
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", "[::1]", "10.1.2.3:8787"):
        assert call(collector, "GET", "/api/query/verdict_counts", headers={"Host": host})[0] == 200, host
    for host in (f"attacker.example:{port}", "rebind.127.0.0.1.nip.io", ""):
        status, answer = call(collector, "GET", "/api/query/verdict_counts", headers={"Host": host})
        assert status == 403, host
        assert "not this collector's address" in answer["error"]


def test_cross_origin_and_non_json_posts_are_refused(collector):
    body = json.dumps({"agent": "*"})
    status, answer = call(
        collector, "POST", "/api/query/violations", body, headers={"Origin": "http://attacker.example"}
    )
    assert status == 403 and "cross-origin" in answer["error"]
    status, answer = call(collector, "POST", "/api/query/violations", body, content_type="text/plain")
    assert status == 415 and "application/json" in answer["error"]
    port = collector.addresses.api.split(":")[1]
    status, _ = call(collector, "POST", "/api/query/violations", body, headers={"Origin": f"http://127.0.0.1:{port}"})
    assert status == 200


def test_row_data_needs_the_token_when_one_is_set(collector):
    for method, path, body in (
        ("GET", "/api/query/violations", None),
        ("POST", "/api/query/violations", "{}"),
        ("POST", "/api/sql", json.dumps({"sql": "SELECT reason FROM violations"})),
    ):
        status, answer = call(collector, method, path, body, token=None)
        assert status == 401, path
        assert "Authorization: Bearer <token>" in answer["error"]
        assert call(collector, method, path, body, token="wrong")[0] == 401
        assert call(collector, method, path, body)[0] == 200
    for path in ("/health", "/api/status", "/dashboard", "/api/dashboards/overview", "/dashboard/static/app.js"):
        assert call(collector, "GET", path, token=None)[0] == 200, path


@pytest.mark.parametrize(
    "path, body",
    [
        ("/api/sql", b'{"sql": "SELECT \\ud800"}'),
        ("/api/sql", b'{"sql": ' + b"[" * 50_000 + b"]" * 50_000 + b"}"),
        ("/api/query/violations", b'{"limit": [1], "since": {"a": 1}}'),
        ("/api/query/violations", b'{"agent": "\\udfff"}'),
        ("/api/query/violations", b"\xff\xfe not json"),
        ("/api/query/violations", b"[1, 2]"),
        ("/api/query/nope", b"{}"),
    ],
)
def test_malformed_api_bodies_are_4xx(shared_collector, path, body):
    status, answer = call(shared_collector, "POST", path, body)
    assert 400 <= status < 500, answer


def test_other_methods_are_405_not_a_server_error(collector):
    for method in ("OPTIONS", "PUT", "DELETE", "PATCH", "HEAD"):
        status, _ = call(collector, method, "/api/sql", token=None)
        assert status == 405, method


# --- item 19: bad parameters are the caller's error, not the server's -----------------------------------
@pytest.mark.parametrize("param", ["limit=-1", "since=99999999999d", "since=not-a-time"])
def test_bad_query_parameters_are_400_and_one_cli_line(collector, capsys, param):
    status, answer = call(collector, "GET", f"/api/query/violations?{param}")
    assert status == 400
    assert "Traceback" not in answer["error"]
    server = f"http://{collector.addresses.api}"
    assert main(["query", "violations", "--param", param, "--server", server, "--token", TOKEN]) == 2
    err = capsys.readouterr().err
    assert err.startswith("claimwatch: ") and err.count("\n") == 1 and "Traceback" not in err


# --- the dashboard carries the token ------------------------------------------------------------------------
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian's chromium is not installed")
def test_dashboard_sends_the_token_from_its_address_once(collector):
    playwright = pytest.importorskip("playwright.sync_api")
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])
        try:
            page = browser.new_page()
            errors = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(f"http://{collector.addresses.api}/dashboard?token={TOKEN}")
            page.wait_for_selector("body[data-ready=true]", timeout=30000)
            assert "token" not in page.url
            assert int(page.get_attribute("#panel-violations", "data-rows")) > 0
            page.reload()  # kept for the tab
            page.wait_for_selector("body[data-ready=true]", timeout=30000)
            assert int(page.get_attribute("#panel-violations", "data-rows")) > 0
            assert errors == []
            fresh = browser.new_page()  # another tab without the token sees no rows
            fresh.goto(f"http://{collector.addresses.api}/dashboard")
            fresh.wait_for_selector("#panel-violations .error", timeout=30000)
            assert "token" in fresh.locator("#panel-violations .error").inner_text()
        finally:
            browser.close()


def test_environment_token_reaches_the_cli(collector, capsys, monkeypatch):
    monkeypatch.setenv("CLAIMWATCH_API_TOKEN", TOKEN)
    server = f"http://{collector.addresses.api}"
    assert main(["query", "verdict_counts", "--server", server, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)


def test_random_sql_from_dangerous_tokens_is_refused_or_read_only(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("MARKER-8f2c")
    con = duckdb.connect(str(tmp_path / "fuzz.duckdb"))
    con.execute("CREATE TABLE violations (a INT, reason VARCHAR); INSERT INTO violations VALUES (1, 'x')")
    sql_guard.harden(con)
    tokens = [
        "SELECT", "FROM", "violations", "(", ")", ",", "1", "*", "WITH", "x", "AS", "UNION", "ALL", "WHERE",
        "read_text", f"'{secret}'", "DELETE", "UPDATE", "SET", "RETURNING", "JOIN", "ON", "true", "[", "]",
        "::", "VARCHAR", "lambda", ":", ".", "main", '"a"', "--", ";", "query", "glob", "'*'", "INSERT", "INTO",
        "VALUES", "COPY", "TO", "ATTACH", "getenv", "current_setting",
    ]
    rng = random.Random(5)
    for _ in range(1500):
        text = " ".join(rng.choice(tokens) for _ in range(rng.randint(1, 14)))
        try:
            result = sql_guard.run(con, text, timeout_s=2)
        except sql_guard.Refused:
            continue
        assert "MARKER-8f2c" not in repr(result.rows), text
    assert con.execute("SELECT count(*), min(reason) FROM violations").fetchall() == [(1, "x")]
    con.close()
