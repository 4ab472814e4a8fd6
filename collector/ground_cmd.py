"""`claimwatch ground`: grade outputs against the evidence they were written from, one JSON answer per line."""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

EPILOG = """\
--jsonl reads one JSON object per line:
  {"text": "<the agent's answer>", "evidence": ["<tool result>", "<document>", ...], "query": "<optional>"}
and prints one JSON answer per input line, in order:
  {"decision": "APPROVE|REVISE|RETRY|FAIL", "grounding_score": 0.0-1.0 or null,
   "claims": [{"text", "kind", "grade", "evidence": [{"index", "start", "end"}], "reason"}, ...],
   "evaluation_us": ..., plus confidence, checks, issues, revision_hints, suggested_fixes}
`evidence[].index` is the position in the input's evidence list; start/end are character offsets in it.
A claim with no evidence at all is never GROUNDED: its grade is null and its reason "no evidence".
A malformed line answers {"error": "..."} in its place.

examples:
  claimwatch ground --jsonl < answers.jsonl > grades.jsonl
  echo '{"text": "Your flight costs $320.", "evidence": ["{\\"price\\": 230}"]}' | claimwatch ground --jsonl
  claimwatch ground --jsonl --fail-on fabricated < answers.jsonl

exit codes: 0 ok, 1 --fail-on met by some line, 2 usage error.
"""


def add_parser(sub) -> None:
    g = sub.add_parser(
        "ground",
        help="grade answers against the evidence they were written from (JSON lines)",
        description="Split each answer into atomic claims and grade each against its evidence: "
        "GROUNDED, INFERRED or FABRICATED, with citations; then decide APPROVE / REVISE / RETRY / FAIL.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    g.add_argument("--jsonl", action="store_true", help="read JSON lines from stdin (required)")
    g.add_argument("--inferred-weight", type=float, default=0.5, metavar="W", help="score of an INFERRED claim (0-1)")
    g.add_argument(
        "--fail-on",
        choices=("fabricated", "revise", "retry", "fail"),
        help="exit 1 when some answer has a FABRICATED claim, or a decision this bad or worse",
    )
    g.set_defaults(handler=run)


_RANK = {"APPROVE": 0, "REVISE": 1, "RETRY": 2, "FAIL": 3}


def run(args: argparse.Namespace) -> int:
    from claimwatch.grounding import Grounder, Settings

    if not args.jsonl:
        print("claimwatch: ground reads JSON lines: pass --jsonl (see --help)", file=sys.stderr)
        return 2
    if not 0.0 <= args.inferred_weight <= 1.0:
        print(f"claimwatch: --inferred-weight must be from 0 to 1, got {args.inferred_weight}", file=sys.stderr)
        return 2
    grounder = Grounder(Settings(inferred_weight=args.inferred_weight))
    failed = False
    for line in sys.stdin:
        if not line.strip():
            continue
        answer = answer_line(grounder, line)
        failed = failed or _meets(answer, args.fail_on)
        sys.stdout.write(json.dumps(answer, ensure_ascii=False) + "\n")
    sys.stdout.flush()
    return 1 if failed else 0


def answer_line(grounder, line: str) -> dict[str, Any]:
    """The JSON answer for one input line (an `error` object when the line is malformed)."""
    started = time.perf_counter()
    try:
        item = json.loads(line)
    except json.JSONDecodeError as exc:
        return _error(f"not valid JSON: {exc.msg} at column {exc.colno}", started)
    if not isinstance(item, dict):
        return _error(f"each line must be a JSON object, got {type(item).__name__}", started)
    text, evidence, query = item.get("text"), item.get("evidence", []), item.get("query")
    if not isinstance(text, str):
        return _error('"text" must be a string', started)
    if isinstance(evidence, str):
        evidence = [evidence]
    if not isinstance(evidence, list) or not all(isinstance(e, str) for e in evidence):
        return _error('"evidence" must be a list of strings', started)
    if query is not None and not isinstance(query, str):
        return _error('"query" must be a string when given', started)
    return grounder.ground(text, evidence, query).to_dict()


def _error(message: str, started: float) -> dict[str, Any]:
    return {"error": message, "decision": None, "grounding_score": None, "claims": [],
            "evaluation_us": round((time.perf_counter() - started) * 1e6, 1)}  # fmt: skip


def _meets(answer: dict[str, Any], fail_on: str | None) -> bool:
    if fail_on is None or answer.get("decision") is None:
        return False
    if fail_on == "fabricated":
        return any(c.get("grade") == "FABRICATED" for c in answer.get("claims", ()))
    return _RANK[answer["decision"]] >= _RANK[fail_on.upper()]
