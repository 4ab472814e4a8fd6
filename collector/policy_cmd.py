"""`claimwatch policy`: decide tool calls from the command line, and the pre-tool hook for agent hosts."""

from __future__ import annotations

import argparse
import json
import sys

EPILOG = """\
--jsonl reads one tool call per line, {"tool", "arguments", "agent", "session"} (agent and
session optional), and prints one answer per line, in order: decision (allow / block /
dry_run), step (kill_switch, dry_run, deny_pattern, essential_t0, allowlist, escalation,
default), risk_tier, rule, param, reason, normalisation, blocked_count, evaluation_us.
Lines of one session share escalation state, in order. A malformed line answers
{"error": ...}.

`claimwatch policy hook` is a pre-tool hook: Claude Code's PreToolUse JSON (or a plain
{"tool", "arguments", ...} object) on stdin, the answer in the host's protocol. With
--server or $CLAIMWATCH_SERVER the running collector decides and keeps the session counts;
otherwise a local state file does. Blocks are applied only in enforce mode.

examples:
  claimwatch policy --jsonl < calls.jsonl > decisions.jsonl
  claimwatch policy --config claimwatch.yaml --tool exec --arguments '{"command": "curl x | sh"}'
  echo '{"tool_name": "Bash", "tool_input": {"command": "rm -rf ~"}, "session_id": "s1"}' \\
      | claimwatch policy hook --mode enforce
  # .claude/settings.json: {"hooks": {"PreToolUse": [{"matcher": "*", "hooks":
  #   [{"type": "command", "command": "claimwatch policy hook --mode enforce"}]}]}}

exit codes: 0 ok, 1 a decision met --fail-on, 2 usage or config error (hook: 2 = deny).
"""

_KEYS = ("decision", "step", "tool", "risk_tier", "rule", "param", "reason", "normalisation", "severity",
         "blocked_count", "profile", "mode", "evaluation_us")


def add_parser(sub) -> None:
    """`claimwatch policy` and `claimwatch policy hook`."""
    p = sub.add_parser(
        "policy",
        help="decide tool calls with the tool-call policy (batch, single call, or as a pre-tool hook)",
        description="Decide tool calls with the tool-call policy: the builtin pack, or your config's checks.tool_policy.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--config", metavar="FILE", help="claimwatch config (checks.tool_policy, agents); default: builtin pack")
    source = p.add_mutually_exclusive_group()
    source.add_argument("--jsonl", action="store_true", help="batch: JSON lines in, one decision per line out")
    source.add_argument("--tool", metavar="NAME", help="decide one call of this tool")
    p.add_argument("--arguments", metavar="JSON", default="{}", help="the call's arguments (with --tool)")
    p.add_argument("--agent", metavar="ID", help="agent id (default for lines without one)")
    p.add_argument("--session", metavar="ID", help="session id (with --tool)")
    p.add_argument("--mode", choices=("audit", "enforce"), help="override the config's mode")
    p.add_argument("--state", metavar="FILE", help="keep escalation counts in this file (default: in memory)")
    p.add_argument("--fail-on", choices=("block", "dry_run"), help="exit 1 when a decision is this")
    p.set_defaults(handler=run)
    hooks = p.add_subparsers(dest="policy_command", metavar="hook")
    hook = hooks.add_parser("hook", help="pre-tool hook: host's JSON on stdin, the answer in its protocol",
                            description="A pre-tool hook for agent hosts (Claude Code PreToolUse, or plain JSON).",
                            epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    from claimwatch.policy.hook import add_arguments

    add_arguments(hook)
    hook.set_defaults(handler=_run_hook)


def _run_hook(args: argparse.Namespace) -> int:
    from claimwatch.policy.hook import run_args

    return run_args(args)


def run(args: argparse.Namespace) -> int:
    """Decide one call (--tool) or a JSON-lines batch (--jsonl)."""
    from claimwatch import ConfigError
    from claimwatch.policy import PolicyConfigError, PolicyEngine
    from claimwatch.policy.config import load_settings
    from claimwatch.policy.state import FileStore

    if not (args.jsonl or args.tool):
        print("claimwatch: policy needs --jsonl, --tool NAME or the hook subcommand (see --help)", file=sys.stderr)
        return 2
    try:
        settings = load_settings(args.config)
        arguments = json.loads(args.arguments) if args.tool else None
    except (ConfigError, PolicyConfigError) as exc:
        print(f"claimwatch: {exc}", file=sys.stderr)
        return 2
    except ValueError as exc:
        print(f"claimwatch: --arguments is not JSON: {exc}", file=sys.stderr)
        return 2
    store = FileStore(args.state, settings.escalation_ttl_s) if args.state else None
    engine = PolicyEngine(settings, store)
    if args.tool:
        decision = engine.decide(args.tool, arguments, agent=args.agent, session=args.session, mode=args.mode)
        print(json.dumps(_answer(decision)))
        return 1 if args.fail_on == decision.decision else 0
    return _jsonl(engine, args)


def _jsonl(engine, args) -> int:
    met = False
    try:
        for number, line in enumerate(sys.stdin, start=1):
            if not line.strip():
                continue
            answer = _line(engine, line, number, args)
            met = met or (args.fail_on is not None and answer.get("decision") == args.fail_on)
            sys.stdout.write(json.dumps(answer, ensure_ascii=False) + "\n")
    except BrokenPipeError:
        return 0
    return 1 if met else 0


def _line(engine, line: str, number: int, args) -> dict:
    try:
        call = json.loads(line)
    except ValueError as exc:
        return {"error": f"line {number}: not JSON ({exc.msg})"}
    if not isinstance(call, dict) or not isinstance(call.get("tool"), str):
        return {"error": f"line {number}: needs an object with a string \"tool\""}
    decision = engine.decide(call["tool"], call.get("arguments"), agent=call.get("agent") or args.agent,
                             session=call.get("session"), mode=args.mode, cwd=call.get("cwd"))
    return _answer(decision)


def _answer(decision) -> dict:
    full = decision.to_dict()
    return {k: full.get(k) for k in _KEYS}
