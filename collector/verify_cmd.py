"""`claimwatch verify --jsonl`: check agent outputs and the actions behind them, one JSON line each."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from pydantic import ValidationError

from claimwatch.core.config import ConfigError, _describe, read_config_data
from claimwatch.verify import ActionsConfig, SchemaError, Verifier, action_from_dict
from claimwatch.verify.verifier import Verification, claim_dict

EPILOG = """\
Each input line is one output and the actions that came before it, in order:
  {"text": "I created `src/parser.py` and all tests pass.", "agent": "coder-1",
   "actions": [{"tool": "bash", "arguments": {"command": "pytest -q"},
                "result": "1 failed, 3 passed", "status": "error"}],
   "schema": {"type": "object", "required": ["summary"]}}
"schema" is optional: an inline JSON Schema, a schema file or module:Model; without it the
config's schema for the agent applies (checks.actions.schemas). Each output line says whether
the output is valid, its findings (level, category, claim, grade, evidence = index into
"actions", reason) and every graded claim.

examples:
  claimwatch verify --jsonl < outputs.jsonl
  claimwatch verify --jsonl --config claimwatch.yaml --fail-on contradicted < outputs.jsonl

exit codes: 0 ok, 1 a line met --fail-on, 2 usage or config error.
"""
_FAIL_ON = {
    "contradicted": lambda r: any(g.grade == "contradicted" for g in r.grades),
    "unverified": lambda r: any(g.grade in ("contradicted", "unverified") for g in r.grades),
    "invalid": lambda r: not r.valid,
}


def add_parser(sub) -> None:
    p = sub.add_parser(
        "verify",
        help="did the agent do what it says? check outputs and action claims against their actions",
        description="Validate structured outputs and tool results, and grade action claims against the actions.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--jsonl", action="store_true", required=True, help="JSON lines in, one result per line out")
    p.add_argument("--config", metavar="FILE", help="config file whose checks.actions section applies")
    p.add_argument("--fail-on", choices=tuple(_FAIL_ON), help="exit 1 when a line has this (or, for invalid, any finding)")
    p.set_defaults(handler=run)


def load_section(path: str | None) -> ActionsConfig:
    """The `checks.actions` section of a config file (defaults without one); errors name the key."""
    if path is None:
        return ActionsConfig()
    data = read_config_data(path)
    checks = data.get("checks") or {}
    section = checks.get("actions") if isinstance(checks, dict) else None
    try:
        return ActionsConfig.model_validate(section or {})
    except ValidationError as exc:
        problems = [_describe(e, section) for e in exc.errors()]
        raise ConfigError(path, [(f"checks.actions.{k}".rstrip("."), m) for k, m in problems]) from None


def run(args: argparse.Namespace) -> int:
    verifier = Verifier(load_section(args.config))
    failed = False
    for number, line in enumerate(sys.stdin, start=1):
        if not line.strip():
            continue
        out, result = verify_line(verifier, line, number)
        if args.fail_on and result is not None and _FAIL_ON[args.fail_on](result):
            failed = True
        print(json.dumps(out, ensure_ascii=False))
    return 1 if failed else 0


def verify_line(verifier: Verifier, line: str, number: int) -> tuple[dict[str, Any], Verification | None]:
    """The answer for one input line; a malformed line is answered with `error` (and noted on stderr)."""
    try:
        item = json.loads(line)
    except json.JSONDecodeError as exc:
        return _bad(number, f"not valid JSON: {exc.msg}")
    if not isinstance(item, dict) or not isinstance(item.get("text"), str):
        return _bad(number, 'expected an object with a string "text"')
    raw_actions = item.get("actions") or []
    if not isinstance(raw_actions, list) or not all(isinstance(a, dict) for a in raw_actions):
        return _bad(number, '"actions" must be a list of objects')
    schema = None
    if item.get("schema") is not None:
        try:
            schema = verifier.registry.named(item["schema"])
        except SchemaError as exc:
            return _bad(number, f"schema: {exc}")
    actions = [action_from_dict(i, a) for i, a in enumerate(raw_actions)]
    agent = item.get("agent") if isinstance(item.get("agent"), str) else None
    r = verifier.verify(item["text"], agent=agent, actions=actions, schema=schema)
    return {
        "valid": r.valid,
        "findings": [f.to_dict() for f in r.findings],
        "claims": [{**claim_dict(g.claim), "grade": g.grade, "evidence": g.evidence, "reason": g.reason} for g in r.grades],
        "levels": [lvl.level for lvl in r.levels],
        "evaluation_us": round(r.evaluation_us, 1),
    }, r


def _bad(number: int, problem: str) -> tuple[dict[str, Any], None]:
    print(f"claimwatch: line {number}: {problem}", file=sys.stderr)
    return {"valid": False, "error": f"line {number}: {problem}", "findings": [], "claims": [], "levels": []}, None
