"""`claimwatch ground --jsonl`: one JSON answer per input line, in order, with the documented keys."""

from __future__ import annotations

import json
import subprocess
import sys

EVIDENCE = '{"flight_number": "HAT069", "price": 230, "scheduled_departure_time_est": "06:00:00", "date": "2024-05-20"}'


def ground(lines: list[str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "claimwatch.collector.cli", "ground", *args],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_each_line_gets_a_decision_a_score_and_graded_claims_citing_evidence_offsets():
    line = json.dumps({"text": "Flight HAT069 costs $320. It departs at 6:00 AM on May 20.", "evidence": [EVIDENCE],
                       "query": "How much is HAT069?"})  # fmt: skip
    done = ground([line], "--jsonl")
    assert done.returncode == 0, done.stderr
    (answer,) = [json.loads(x) for x in done.stdout.splitlines()]
    assert {"decision", "grounding_score", "claims", "evaluation_us"} <= set(answer)
    assert answer["decision"] in ("REVISE", "RETRY", "FAIL")
    first, second = answer["claims"]
    assert set(first) == {"text", "kind", "grade", "evidence", "reason"}
    assert (first["grade"], second["grade"]) == ("FABRICATED", "GROUNDED")
    assert first["reason"] == "claimed $320; evidence[0] says 230"
    (cite,) = first["evidence"]
    assert cite["index"] == 0 and EVIDENCE[cite["start"] : cite["end"]] == "230"


def test_answers_come_in_input_order_and_a_malformed_line_answers_with_an_error():
    lines = [json.dumps({"text": "Flight HAT069 costs $230.", "evidence": [EVIDENCE]}), "{not json",
             json.dumps({"text": 5, "evidence": []}), json.dumps({"text": "The price is $230.", "evidence": []})]  # fmt: skip
    done = ground(lines, "--jsonl")
    answers = [json.loads(x) for x in done.stdout.splitlines()]
    assert len(answers) == 4
    assert answers[0]["decision"] == "APPROVE"
    assert answers[1]["error"].startswith("not valid JSON") and answers[2]["error"] == '"text" must be a string'
    assert answers[3]["claims"][0]["grade"] is None and answers[3]["claims"][0]["reason"] == "no evidence"


def test_fail_on_fabricated_exits_1_and_usage_errors_exit_2():
    lie = json.dumps({"text": "Flight HAT069 costs $320.", "evidence": [EVIDENCE]})
    assert ground([lie], "--jsonl", "--fail-on", "fabricated").returncode == 1
    assert ground([lie], "--jsonl").returncode == 0
    missing = ground([lie])
    assert missing.returncode == 2 and "--jsonl" in missing.stderr
