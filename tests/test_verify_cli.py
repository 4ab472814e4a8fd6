"""`claimwatch verify --jsonl`: one answer per input line, in order, with the documented keys."""

from __future__ import annotations

import io
import json

import pytest

from claimwatch.collector.cli import main

LINES = [
    {"text": "I created `src/parser.py` and all tests pass.", "agent": "coder",
     "actions": [{"tool": "write_file", "arguments": {"path": "src/parser.py", "content": "x = 1\n"}, "result": "ok"},
                 {"tool": "bash", "arguments": {"command": "pytest -q"}, "result": "=== 1 failed, 3 passed ===", "status": "error"}]},
    {"text": '{"summary": 3}', "schema": {"type": "object", "required": ["summary", "traceRef"]}},
    {"text": "Nothing to report."},
]


def verify(monkeypatch, capsys, lines, *args):
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(lines) + "\n"))
    code = main(["verify", "--jsonl", *args])
    out, err = capsys.readouterr()
    return code, [json.loads(line) for line in out.splitlines()], err


def test_each_line_is_answered_in_order_with_findings_grades_and_evidence(monkeypatch, capsys):
    code, out, _ = verify(monkeypatch, capsys, [json.dumps(x) for x in LINES])
    assert code == 0 and len(out) == 3
    first = out[0]
    assert first["valid"] is False
    assert [(c["kind"], c["grade"], c["evidence"]) for c in first["claims"]] == [
        ("file_create", "verified", 0), ("tests", "contradicted", 1)]
    (finding,) = first["findings"]
    assert {k: finding[k] for k in ("level", "category", "grade", "evidence")} == {
        "level": 3, "category": "tests_failed", "grade": "contradicted", "evidence": 1}
    assert finding["claim"]["text"] == "all tests pass" and finding["reason"]
    assert [(f["level"], f["category"], f["path"]) for f in out[1]["findings"]] == [(1, "missing_field", "$.traceRef")]
    assert out[2] == {"valid": True, "findings": [], "claims": [], "levels": [], "evaluation_us": out[2]["evaluation_us"]}


def test_fail_on_contradicted_exits_1(monkeypatch, capsys):
    code, _, _ = verify(monkeypatch, capsys, [json.dumps(LINES[0])], "--fail-on", "contradicted")
    assert code == 1


@pytest.mark.parametrize(
    ("line", "problem"),
    [("not json", "not valid JSON"), ('{"text": 3}', 'string "text"'), ('{"text": "x", "actions": [1]}', "list of objects"),
     ('{"text": "x", "schema": "missing.json"}', "cannot read schema file")],
)
def test_a_bad_line_is_answered_with_an_error_and_the_rest_go_on(monkeypatch, capsys, line, problem):
    code, out, err = verify(monkeypatch, capsys, [line, json.dumps(LINES[2])])
    assert code == 0 and len(out) == 2
    assert problem in out[0]["error"] and out[0]["valid"] is False
    assert out[1]["valid"] is True
    assert "line 1" in err


def test_the_config_section_applies_and_its_errors_name_the_key(monkeypatch, capsys, tmp_path):
    good = tmp_path / "good.yaml"
    good.write_text("checks:\n  actions:\n    schemas:\n      - agent: 'coder*'\n        schema: {type: object, required: [summary]}\n")
    code, out, _ = verify(monkeypatch, capsys, [json.dumps({"text": "{}", "agent": "coder-1"})], "--config", str(good))
    assert out[0]["findings"][0]["category"] == "missing_field"
    bad = tmp_path / "bad.yaml"
    bad.write_text("checks:\n  actions:\n    schemas:\n      - schema: nowhere.json\n")
    code, out, err = verify(monkeypatch, capsys, ["{}"], "--config", str(bad))
    assert code == 2 and "checks.actions.schemas[0].schema" in err and "cannot read schema file" in err


def test_help_has_an_example(capsys):
    with pytest.raises(SystemExit):
        main(["verify", "--help"])
    assert "claimwatch verify --jsonl <" in capsys.readouterr().out
