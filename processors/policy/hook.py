"""`claimwatch policy hook`: a pre-tool hook for agent hosts, one process per tool call.

Protocols (chosen with --protocol, or detected from the input):

- `claude` (Claude Code `PreToolUse`): stdin `{session_id, tool_name, tool_input,
  tool_use_id, cwd, hook_event_name}`. A block for an enforcing agent answers
  `hookSpecificOutput.permissionDecision: "deny"` with the reason on stdout and
  exit 0 (or, with --respond exit-code, the reason on stderr and exit 2). Any
  other decision prints nothing and exits 0, so the host's own permission
  rules still apply.
- `json` (any host): stdin `{"tool", "arguments", "agent", "session", "cwd"}`;
  stdout one decision object; exit 2 when the call must not run, else 0.

Session state must outlive the process: with --server (or $CLAIMWATCH_SERVER)
the running collector decides and keeps the counts (`POST /api/policy/decide`,
with `$CLAIMWATCH_API_TOKEN` as bearer token when set);
without one, or when it does not answer, a local state file under an exclusive
lock does. Imports stay light (no pydantic unless --config, no DuckDB, no
OpenTelemetry); a hook that fails lets the call through and says why on stderr.
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

EXIT_OK, EXIT_BLOCK = 0, 2
_DEFAULT_TIMEOUT_S = 2.0


def read_call(raw: str, protocol: str = "auto") -> tuple[str, dict[str, Any]]:
    """(protocol, call) from the hook's stdin; the call has tool, arguments, session, cwd, agent."""
    data = json.loads(raw) if raw.strip() else {}
    if not isinstance(data, dict):
        raise ValueError(f"hook input must be a JSON object, got {type(data).__name__}")
    if protocol == "auto":
        protocol = "claude" if "tool_name" in data or "hook_event_name" in data else "json"
    if protocol == "claude":
        call = {"tool": data.get("tool_name"), "arguments": data.get("tool_input"), "session": data.get("session_id"),
                "cwd": data.get("cwd"), "tool_use_id": data.get("tool_use_id"),
                "event": data.get("hook_event_name", "PreToolUse")}
    else:
        call = {k: data.get(k) for k in ("tool", "arguments", "agent", "session", "cwd", "trust", "mode", "tool_call_id")}
    if not isinstance(call.get("tool"), str) or not call["tool"]:
        raise ValueError("hook input names no tool (tool_name / tool)")
    return protocol, call


def respond(protocol: str, decision: dict[str, Any], style: str = "json") -> tuple[int, str, str]:
    """(exit code, stdout, stderr) in the host's protocol."""
    stop = decision.get("enforced") or (decision.get("decision") == "dry_run" and decision.get("mode") == "enforce")
    reason = f"claimwatch policy: {decision.get('reason')} [{decision.get('step')}" + (
        f", {decision['rule']}]" if decision.get("rule") else "]")
    if protocol == "claude":
        if not stop:
            return EXIT_OK, "", ""
        if style == "exit-code":
            return EXIT_BLOCK, "", reason
        answer = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                         "permissionDecisionReason": reason}}
        return EXIT_OK, json.dumps(answer), ""
    return (EXIT_BLOCK if stop else EXIT_OK), json.dumps(decision), (reason if stop else "")


def decide(call: dict[str, Any], *, server: str | None = None, config: str | None = None,
           state: str | None = None, agent: str | None = None, mode: str | None = None,
           timeout_s: float = _DEFAULT_TIMEOUT_S, notes: list[str] | None = None) -> dict[str, Any]:
    """The decision for one call: from the collector when `server` answers, else locally (`notes` says so)."""
    body = {"tool": call["tool"], "arguments": call.get("arguments"), "agent": call.get("agent") or agent,
            "session": call.get("session"), "cwd": call.get("cwd"), "trust": call.get("trust"),
            "mode": call.get("mode") or mode, "tool_call_id": call.get("tool_use_id") or call.get("tool_call_id")}
    if server:
        try:
            return post_json(server.rstrip("/") + "/api/policy/decide", body, timeout_s)
        except (OSError, ValueError) as exc:
            if notes is not None:
                notes.append(f"claimwatch policy hook: collector at {server} did not answer ({exc}); deciding locally")
    return _local(body, config, state)


def _local(body: dict[str, Any], config: str | None, state: str | None) -> dict[str, Any]:
    from .engine import PolicyEngine, default_settings
    from .http import decide_http
    from .state import FileStore, default_state_path

    if config:
        from .config import load_settings

        settings = load_settings(config)
    else:
        settings = default_settings()
    path = state or os.environ.get("CLAIMWATCH_POLICY_STATE") or settings.state_path or default_state_path()
    engine = PolicyEngine(settings, FileStore(path, settings.escalation_ttl_s), one_shot=True)
    status, answer = decide_http({k: v for k, v in body.items() if v is not None}, engine)
    if status != 200:
        raise ValueError(answer["error"])
    return answer


def post_json(url: str, body: dict[str, Any], timeout_s: float) -> dict[str, Any]:
    """POST JSON and read the JSON answer. Plain http goes over a bare socket: `http.client` and
    `urllib` cost ~40 ms to import, more than the whole decision; https uses urllib."""
    payload = json.dumps(body).encode()
    headers = {"Content-Type": "application/json"}
    token = os.environ.get("CLAIMWATCH_API_TOKEN")
    if token:  # a collector with service.api.token set asks for it
        headers["Authorization"] = f"Bearer {token}"
    if not url.startswith("http://"):
        import urllib.request

        request = urllib.request.Request(url, payload, headers)
        with urllib.request.urlopen(request, timeout=timeout_s) as response:
            return json.loads(response.read())
    import socket

    rest = url[len("http://"):]
    hostport, _, path = rest.partition("/")
    host, _, port = hostport.rpartition(":") if ":" in hostport else (hostport, "", "80")
    with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout_s) as sock:
        fields = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
        head = (f"POST /{path} HTTP/1.1\r\nHost: {hostport}\r\n{fields}"
                f"Content-Length: {len(payload)}\r\nConnection: close\r\n\r\n").encode()
        sock.sendall(head + payload)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    raw = b"".join(chunks)
    header, _, content = raw.partition(b"\r\n\r\n")
    status_line = header.split(b"\r\n", 1)[0].decode("latin-1")
    status = int(status_line.split()[1]) if len(status_line.split()) > 1 else 0
    if b"transfer-encoding: chunked" in header.lower():
        content = _unchunk(content)
    if status != 200:
        raise ValueError(f"HTTP {status}: {content[:200].decode('utf-8', 'replace')}")
    return json.loads(content)


def _unchunk(data: bytes) -> bytes:
    out, rest = [], data
    while rest:
        size_line, _, rest = rest.partition(b"\r\n")
        size = int(size_line.split(b";")[0] or b"0", 16)
        if size == 0:
            break
        out.append(rest[:size])
        rest = rest[size + 2 :]
    return b"".join(out)


def run(raw: str, *, protocol: str = "auto", respond_style: str = "json", **options: Any) -> tuple[int, str, str]:
    """One hook invocation: (exit code, stdout, stderr). Fails open: a broken hook must not brick the agent."""
    try:
        protocol, call = read_call(raw, protocol)
        if protocol == "claude" and call.get("event") not in (None, "PreToolUse"):
            return EXIT_OK, "", ""
        log = options.pop("log", None)
        notes: list[str] = []
        started = time.perf_counter()
        decision = decide(call, notes=notes, **options)
        decision.setdefault("hook_ms", round((time.perf_counter() - started) * 1000, 2))
        _log(log, call, decision)
        code, out, err = respond(protocol, decision, respond_style)
        return code, out, "\n".join([*notes, err] if err else notes)
    except Exception as exc:
        return EXIT_OK, "", f"claimwatch policy hook: {type(exc).__name__}: {exc} (call allowed)"


def _log(path: str | None, call: dict[str, Any], decision: dict[str, Any]) -> None:
    if not path:
        return
    line = {"time": time.time(), "tool": call["tool"], "session": call.get("session"), **decision}
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(line) + "\n")


def main(argv: list[str] | None = None) -> int:
    """`python -m claimwatch.policy.hook [options]`: the same as `claimwatch policy hook`."""
    import argparse

    parser = argparse.ArgumentParser(prog="claimwatch policy hook")
    add_arguments(parser)
    args = parser.parse_args(argv)
    return run_args(args)


def add_arguments(parser) -> None:
    """The hook's options, shared by `claimwatch policy hook` and `python -m claimwatch.policy.hook`."""
    parser.add_argument("--protocol", choices=("auto", "claude", "json"), default="auto",
                        help="the host's hook protocol (default: detected from the input)")
    parser.add_argument("--respond", choices=("json", "exit-code"), default="json",
                        help="claude protocol: deny with hookSpecificOutput JSON (default) or exit 2 + stderr")
    parser.add_argument("--server", metavar="URL", help="ask this collector (default: $CLAIMWATCH_SERVER; none: decide locally)")
    parser.add_argument("--config", metavar="FILE", help="claimwatch config with checks.tool_policy (local decisions)")
    parser.add_argument("--state", metavar="FILE", help="local escalation state file (default: $CLAIMWATCH_POLICY_STATE "
                        "or ~/.local/state/claimwatch/policy-state.json)")
    parser.add_argument("--agent", metavar="ID", default=os.environ.get("CLAIMWATCH_AGENT"), help="agent id (default: $CLAIMWATCH_AGENT)")
    parser.add_argument("--mode", choices=("audit", "enforce"), default=os.environ.get("CLAIMWATCH_MODE") or None,
                        help="audit (record only) or enforce (deny blocked calls); default: the config's agents rules")
    parser.add_argument("--log", metavar="FILE", help="append each decision as a JSON line")
    parser.add_argument("--timeout", type=float, default=_DEFAULT_TIMEOUT_S, help="seconds to wait for the collector")


def run_args(args) -> int:
    """Run the hook on stdin with parsed options; the exit code to return."""
    code, out, err = run(
        sys.stdin.read(), protocol=args.protocol, respond_style=args.respond,
        server=args.server or os.environ.get("CLAIMWATCH_SERVER") or None, config=args.config, state=args.state,
        agent=args.agent, mode=args.mode, timeout_s=args.timeout, log=args.log,
    )
    if out:
        sys.stdout.write(out + "\n")
    if err:
        sys.stderr.write(err + "\n")
    return code


if __name__ == "__main__":
    sys.exit(main())
