"""The `claimwatch` command line.

The library raises typed errors; this module turns them into one-line
messages and exit codes (0 ok, 1 `--fail-on` met, 2 usage or config error).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from collections.abc import Sequence

from claimwatch import ConfigError, OutputValidator, load_config
from claimwatch.checks.registry import check_sections
from claimwatch.core import settings
from claimwatch.core.config import ClaimwatchConfig

# Each subcommand module in collector/ exposes add_parser(subparsers); order is the --help order.
_COMMANDS = (
    "query_cmd",
    "serve_cmd",
    "demo",
    "report",
    "verify_cmd",
    "ground_cmd",
    "policy_cmd",
    "replay_cmd",
    "consume_cmd",
    "export_cmd",
)

EXIT_OK, EXIT_FAIL_ON, EXIT_USAGE = 0, 1, 2

_DESCRIPTION = """\
claimwatch checks what LLM agents say: it finds claims in agent output
("X is not installed", "the pipeline is broken", "the user is Iulia"),
checks them against curated fact registries and gives a verdict
(pass / flag / block) scaled by the agent's trust.
"""

_VALIDATE_EPILOG = """\
examples:
  claimwatch validate --config claimwatch.yaml --agent worker-1 --trust 10 \\
      --text "Node.js is not installed."
  echo "The pipeline is broken." | claimwatch validate --json --fail-on block
  claimwatch validate --config claimwatch.yaml --jsonl < outputs.jsonl > verdicts.jsonl

--jsonl reads one JSON object per line: {"text": ..., "agent": ..., "trust": ...}
(agent and trust optional) and writes one result object per input line, in order;
a malformed line gives verdict error_fallback with "skipped" saying why; "bailed_out"
says the time budget ran out, "truncated" that only the first maxTextLength characters
were checked.
exit codes: 0 ok, 1 a verdict met --fail-on, 2 usage or config error.
"""

_CHECK_EPILOG = """\
examples:
  claimwatch check-config claimwatch.yaml
  claimwatch check-config --explain          # every setting, its variable, flag and default
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="claimwatch", description=_DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    validate = sub.add_parser(
        "validate",
        help="validate agent output text and print the verdict",
        description="Validate agent output text against the config's detectors and facts.",
        epilog=_VALIDATE_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    validate.add_argument("--config", metavar="FILE", help="YAML or JSON config (default: builtin defaults)")
    validate.add_argument("--agent", metavar="ID", default=None, help="agent id the text came from")
    validate.add_argument("--trust", metavar="N", type=_trust, default=None, help="agent trust score 0-100")
    source = validate.add_mutually_exclusive_group()
    source.add_argument("--text", help="the text to validate (default: read stdin)")
    source.add_argument("--jsonl", action="store_true", help="batch: JSON lines in, one result per line out")
    validate.add_argument("--json", action="store_true", help="print one JSON object instead of a summary")
    validate.add_argument("--fail-on", choices=("block", "flag"), help="exit 1 when a verdict is this or worse")
    validate.set_defaults(handler=_cmd_validate)

    check = sub.add_parser(
        "check-config",
        help="validate a config file and show what it loads",
        description="Load a config file, report every error with its key path, or summarise what it holds.",
        epilog=_CHECK_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    check.add_argument("file", metavar="FILE", nargs="?")
    check.add_argument("--json", action="store_true", help="print the summary as JSON")
    check.add_argument(
        "--explain", action="store_true", help="print every setting: key, environment variable, flag, default"
    )
    check.set_defaults(handler=_cmd_check_config)
    for name in _COMMANDS:
        importlib.import_module(f"claimwatch.collector.{name}").add_parser(sub)
    return parser


def _trust(value: str) -> float:
    try:
        score = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"trust must be a number from 0 to 100, got {value!r}") from None
    if not 0 <= score <= 100:
        raise argparse.ArgumentTypeError(f"trust must be from 0 to 100, got {value}")
    return score


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.handler(args)
    except ConfigError as exc:
        print(f"claimwatch: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # `claimwatch query ... | head`: the reader left; stop quietly, as Unix tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


_RANK = {"pass": 0, "error_fallback": 0, "flag": 1, "block": 2}


def _cmd_validate(args: argparse.Namespace) -> int:
    # A one-shot process: warming every pattern would cost more than it saves (no bail-outs
    # either way: the time budget counts work, not clock time).
    validator = OutputValidator(load_config(args.config), warm_up=False)
    worst = "pass"
    if args.jsonl:
        # One output object per input line, in order, so results line up with what was read.
        for number, line in enumerate(sys.stdin, start=1):
            if not line.strip():
                continue
            item, problem = _parse_jsonl(line, number)
            if problem is not None:
                print(json.dumps(_bad_line(problem)))
                continue
            result = validator.validate(item["text"], agent_id=item.get("agent"), trust=item.get("trust"))
            print(json.dumps(result.to_dict(), ensure_ascii=False))
            worst = max(worst, result.verdict, key=_RANK.__getitem__)
    else:
        text = args.text if args.text is not None else sys.stdin.read()
        result = validator.validate(text, agent_id=args.agent, trust=args.trust)
        print(json.dumps(result.to_dict(), ensure_ascii=False) if args.json else _summary(result))
        worst = result.verdict
    if args.fail_on and _RANK[worst] >= _RANK[args.fail_on]:
        return EXIT_FAIL_ON
    return EXIT_OK


def _parse_jsonl(line: str, number: int) -> tuple[dict | None, str | None]:
    """One input line, or the problem with it (also reported on stderr); never fatal."""
    try:
        item = json.loads(line)
    except json.JSONDecodeError as exc:
        problem = f"not valid JSON: {exc.msg}"
    else:
        trust = item.get("trust") if isinstance(item, dict) else None
        if not isinstance(item, dict) or not isinstance(item.get("text"), str):
            problem = 'expected an object with a string "text"'
        elif trust is not None and (isinstance(trust, bool) or not isinstance(trust, (int, float))):
            problem = f"trust must be a number, got {trust!r}"
        else:
            return item, None
    print(f"claimwatch: line {number}: {problem}", file=sys.stderr)
    return None, f"line {number}: {problem}"


def _bad_line(problem: str) -> dict:
    return {
        "verdict": "error_fallback",
        "skipped": f"bad input: {problem}",
        "bailed_out": False,
        "truncated": False,
        "trust": None,
        "claims": [],
        "fact_checks": [],
        "violations": [],
        "evaluation_us": 0.0,
    }


def _summary(result) -> str:
    lines = [f"verdict: {result.verdict}" + (f" (skipped: {result.skipped})" if result.skipped else "")]
    lines.append(f"trust: {result.trust.score:g} ({result.trust.tier})   time: {result.evaluation_us:.0f} us")
    for check in result.fact_checks:
        c = check.claim
        fact = f" [{check.fact_id}]" if check.fact_id else ""
        lines.append(f"  claim @{c.offset} {c.category}: {c.subject!r} {c.assertion} -> {check.status}{fact}")
    for claim in result.claims:
        if claim.category == "self_referential":
            lines.append(f"  claim @{claim.offset} self_referential: {claim.matched_text!r}")
    for v in result.violations:
        lines.append(f"  {v.policy.upper()} ({v.severity}): {v.reason}")
    if result.error:
        lines.append(f"  error: {result.error}")
    return "\n".join(lines)


def _cmd_check_config(args: argparse.Namespace) -> int:
    if args.explain:
        print(settings.explain(ClaimwatchConfig))
        return EXIT_OK
    if not args.file:
        print("claimwatch: check-config needs a FILE (or --explain)", file=sys.stderr)
        return EXIT_USAGE
    config = load_config(args.file)
    checks = check_sections(config)  # every check's own section, validated with its key path
    validator = OutputValidator(config, warm_up=False)  # only compiled, never run at length
    v = config.validation
    summary = {
        "file": args.file,
        "config_hash": config.config_hash,
        "enabled": v.enabled,
        "detectors": {
            "builtin": [d.id for d in validator.detectors if d.builtin],
            "custom": [d.id for d in validator.detectors if not d.builtin],
        },
        "registries": [
            {"id": r.id, "name": r.name, "enabled": r.enabled, "facts": [f.id for f in r.facts]}
            for r in v.fact_registries
        ],
        "overrides": [o.model_dump(by_alias=True, exclude_defaults=True) for o in v.agent_overrides],
        "exempt": list(v.exempt),
        "checks": {name: section.model_dump(by_alias=True) for name, section in checks.items()},
    }
    if args.json:
        print(json.dumps(summary, indent=2))
        return EXIT_OK
    print(f"{args.file}: OK (config hash {summary['config_hash']})")
    print(f"  validation: {'enabled' if v.enabled else 'disabled'}")
    print(
        f"  detectors: {len(summary['detectors']['builtin'])} builtin, {len(summary['detectors']['custom'])} custom"
        + (f" ({', '.join(summary['detectors']['custom'])})" if summary["detectors"]["custom"] else "")
    )
    fact_count = sum(len(r["facts"]) for r in summary["registries"])
    print(f"  registries: {len(summary['registries'])} with {fact_count} facts")
    for r in summary["registries"]:
        state = "" if r["enabled"] else " (disabled)"
        print(f"    {r['id']}{state}: {', '.join(r['facts']) or 'no facts'}")
    print(f"  agent overrides: {len(summary['overrides'])}")
    for o in summary["overrides"]:
        rest = ", ".join(f"{k}={val}" for k, val in o.items() if k != "agent")
        print(f"    {o['agent']}: {rest}")
    if v.exempt:
        print(f"  exempt agents: {', '.join(v.exempt)}")
    protocols = config.receivers.otlp.protocols
    print(
        f"  collector: OTLP/HTTP {protocols.http.endpoint if protocols.http.enabled else 'off'}, "
        f"OTLP/gRPC {protocols.grpc.endpoint if protocols.grpc.enabled else 'off'}, "
        f"API {config.service.api.endpoint}, database {config.storage.path}"
    )
    exporter = config.exporters.otlp
    print(f"  forwarding: {f'{exporter.protocol} -> {exporter.endpoint}' if exporter else 'off'}")
    enabled = [name for name, section in checks.items() if getattr(section, "enabled", True)]
    print(f"  checks: {', '.join(enabled) or 'none'}")
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
