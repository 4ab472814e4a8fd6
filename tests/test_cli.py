"""The `claimwatch` command line: validate, --json, --jsonl, --fail-on, check-config."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from claimwatch.collector.cli import build_parser, main
from tests.conftest import RFC_CONFIG

CLAIM_KEYS = {"category", "detector_id", "matched_text", "offset", "subject", "assertion", "negative", "confidence"}


def run(argv, stdin="", monkeypatch=None, capsys=None):
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_validate_json_has_the_documented_shape(monkeypatch, capsys):
    code, out, _ = run(
        [
            "validate",
            "--config",
            str(RFC_CONFIG),
            "--agent",
            "worker-1",
            "--trust",
            "10",
            "--json",
            "--text",
            "Node.js is not installed. Redis is not running.",
        ],
        monkeypatch=monkeypatch,
        capsys=capsys,
    )
    assert code == 0
    result = json.loads(out)
    assert set(result) == {"verdict", "skipped", "bailed_out", "truncated", "trust", "claims", "fact_checks", "violations", "evaluation_us"}
    assert result["verdict"] == "block"
    assert result["trust"] == {"score": 10.0, "tier": "untrusted"}
    assert all(set(c) == CLAIM_KEYS for c in result["claims"])
    assert set(result["fact_checks"][0]) == {"claim", "status", "fact_id", "expected", "claimed"}
    assert set(result["violations"][0]) == {
        "category",
        "detector_id",
        "subject",
        "assertion",
        "reason",
        "severity",
        "fact_id",
        "expected",
    }
    assert [f["status"] for f in result["fact_checks"]] == ["contradicted", "no_fact_found"]


def test_validate_reads_stdin_and_fail_on_sets_exit_code(monkeypatch, capsys):
    code, out, _ = run(
        ["validate", "--trust", "50", "--fail-on", "flag"],
        stdin="The pipeline is broken.\n",
        monkeypatch=monkeypatch,
        capsys=capsys,
    )
    assert code == 1
    assert out.startswith("verdict: flag")
    code, _, _ = run(
        ["validate", "--trust", "50", "--fail-on", "block"],
        stdin="The pipeline is broken.\n",
        monkeypatch=monkeypatch,
        capsys=capsys,
    )
    assert code == 0


def test_validate_jsonl_writes_one_object_per_input_line_in_order(monkeypatch, capsys):
    lines = "\n".join(
        [
            json.dumps({"text": "Node.js is not installed.", "agent": "a", "trust": 10}),
            "{not json",
            json.dumps({"text": "All good here, refactor done.", "agent": "b"}),
            json.dumps({"agent": "c"}),
        ]
    )
    code, out, err = run(
        ["validate", "--config", str(RFC_CONFIG), "--jsonl", "--fail-on", "block"],
        stdin=lines,
        monkeypatch=monkeypatch,
        capsys=capsys,
    )
    rows = [json.loads(line) for line in out.splitlines()]
    assert [r["verdict"] for r in rows] == ["block", "error_fallback", "pass", "error_fallback"]
    assert all(
        set(r) == {"verdict", "skipped", "bailed_out", "truncated", "trust", "claims", "fact_checks", "violations", "evaluation_us"} for r in rows
    )
    assert rows[1]["skipped"].startswith("bad input: line 2: not valid JSON")
    assert "line 2: not valid JSON" in err and 'line 4: expected an object with a string "text"' in err
    assert code == 1


def test_config_error_is_one_message_and_exit_2(monkeypatch, capsys, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("validation:\n  minTextLength: -3\n")
    code, _, err = run(["check-config", str(bad)], monkeypatch=monkeypatch, capsys=capsys)
    assert code == 2
    assert err == (
        f"claimwatch: invalid config {bad}:\n  validation.minTextLength: "
        "Input should be greater than or equal to 0 (got -3)\n"
    )


def test_check_config_lists_what_it_loaded(monkeypatch, capsys):
    code, out, _ = run(["check-config", str(RFC_CONFIG)], monkeypatch=monkeypatch, capsys=capsys)
    assert code == 0
    assert "registries: 3 with 6 facts" in out
    assert "team-names: owner-name, irina-name" in out
    assert "main: profile=lenient" in out


def test_trust_out_of_range_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as info:
        main(["validate", "--trust", "120", "--text", "x"])
    assert info.value.code == 2
    assert "trust must be from 0 to 100, got 120" in capsys.readouterr().err


def test_every_command_has_help_with_an_example():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    for name, command in sub.choices.items():
        assert "example" in (command.epilog or ""), name


def test_console_script_is_installed():
    script = Path(sys.executable).parent / "claimwatch"
    out = subprocess.run([str(script), "--help"], capture_output=True, text=True, check=True).stdout
    assert "validate" in out and "check-config" in out
