"""Dynamic facts (RFC-003 Appendix B): tool results as short-lived facts for the output check's claims.

`which node` exiting 0 with a path says node is installed; a test run that
printed "2 failed" says the tests are failing; `systemctl is-active nginx`
says whether nginx runs; a flight-status tool says the flight is delayed.
Each becomes a `claimwatch.core.config.Fact` with the TTL from config and the
tool span's end time as `updated_at`, so it expires like any registry fact;
`DynamicFact.passage` keeps the evidence it came from for the citation.
Rules are data: a regex over the command (or tool name) and one over the
result, each naming the fact it makes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache

from ..core.config import Fact
from .evidence import Passage

_RETURNCODE = re.compile(
    r"<returncode>\s*(-?\d+)\s*</returncode>|\b(?:exit(?:ed)?(?: with)?(?: code| status)?|returncode|exit_code)\W{0,3}(-?\d+)",
    re.I,
)
_PATH_LINE = re.compile(r"(?m)^\s*(?:<output>\s*)?(/[\w.+-]+)+/?\s*$")
_VERSION = re.compile(r"\bv?\d+\.\d+(?:\.\d+)?\b")
_NOT_FOUND = re.compile(r"not found|no such file|command not found|is not recognized|no \w+ in \(", re.I)
_COMMAND_TOOLS = re.compile(r"bash|shell|terminal|exec|run|command|cmd|sh\b", re.I)
_PRESENCE = re.compile(r"(?:^|[;&|]\s*)(?:which|command\s+-v|type|whereis)\s+([\w.+-]+)")
_VERSION_CMD = re.compile(r"(?:^|[;&|]\s*)([\w.+-]+)\s+(?:--version|-v|-V|version)\b")
_TEST_CMD = re.compile(
    r"\b(?:pytest|py\.test|unittest|tox|nox|runtests(?:\.py)?|npm (?:run )?test|yarn test|pnpm test|go test|cargo test|mvn test|gradle test|make test|rspec|jest|vitest|phpunit)\b"
)
_FAILED = re.compile(r"\b([1-9]\d*) (?:failed|failures?|errors?)\b|\bFAILED\b|\bFAIL:|Tests? failed|failures=[1-9]")
_PASSED = re.compile(r"\b\d+ passed\b|\bOK\b(?: \(|$)|All tests passed|Tests? passed|\b0 failed\b", re.M)
_SERVICE_CMD = re.compile(r"systemctl\s+is-active\s+([\w@.-]+)")
_STATUS_TOOL = re.compile(r"status", re.I)
_FLIGHT_STATUS = re.compile(
    r"^\s*\"?(delayed|cancelled|canceled|on time|landed|departed|diverted|scheduled|available|flying)\"?\s*$", re.I
)


@dataclass(frozen=True, slots=True)
class DynamicFact:
    """A fact a tool result established, and the passage (tool span) that says so."""

    fact: Fact
    passage: int  # index into the passages it was derived from
    rule: str


def command_of(arguments: str | None) -> str:
    """The shell command in a tool call's arguments (JSON `command`/`cmd`/`script`, or the raw string)."""
    if not arguments:
        return ""
    try:
        data = json.loads(arguments)
    except ValueError:
        return arguments
    if isinstance(data, dict):
        for key in ("command", "cmd", "script", "code", "input"):
            value = data.get(key)
            if isinstance(value, str):
                return value
            if isinstance(value, list):
                return " ".join(map(str, value))
    return arguments if isinstance(data, str) else ""


def exit_code(result: str) -> int | None:
    m = _RETURNCODE.search(result)
    if not m:
        return None
    return int(m.group(1) or m.group(2))


def derive_facts(passages: Sequence[Passage], ttl_seconds: float, prefix: str = "trace") -> list[DynamicFact]:
    """Short-lived facts from the tool results among `passages` (the newest result about a subject wins)."""
    found: dict[tuple[str, str], DynamicFact] = {}
    for index, passage in enumerate(passages):
        if passage.source not in ("tool_result", "tool_message"):
            continue
        for rule, category, subject, value in _facts_of(passage):
            key = (category, subject.lower())
            fact_id = f"{prefix}.{(passage.span_id or 'input')[:8]}.{len(found)}"
            fact = Fact(
                id=fact_id,
                category=category,
                subject=subject,
                value=value,
                description=f"from {passage.cite}",
                ttl_seconds=ttl_seconds,
                updated_at=_when(passage.end_ns),
            )
            found[key] = DynamicFact(fact, index, rule)
    return list(found.values())


def _when(end_ns: int) -> datetime | None:
    return datetime.fromtimestamp(end_ns / 1e9, tz=UTC) if end_ns else None


@lru_cache(maxsize=1024)
def _facts_of(passage: Passage) -> tuple[tuple[str, str, str, dict], ...]:
    """What one tool result establishes, remembered: every later LLM call of a trace sees it again."""
    return tuple(_derive(passage))


def _derive(passage: Passage) -> Iterable[tuple[str, str, str, dict]]:
    result = passage.text
    command = command_of(passage.arguments)
    code = exit_code(result)
    tool = passage.tool_name or ""
    if command or _COMMAND_TOOLS.search(tool):
        yield from _command_facts(command, result, code)
    if _STATUS_TOOL.search(tool):
        yield from _status_facts(passage, result)


def _command_facts(command: str, result: str, code: int | None) -> Iterable[tuple[str, str, str, dict]]:
    for m in _PRESENCE.finditer(command):
        program = m.group(1)
        present = (code in (0, None)) and _PATH_LINE.search(result) is not None and not _NOT_FOUND.search(result)
        absent = (code not in (0, None)) or _NOT_FOUND.search(result) is not None or not result.strip()
        if present:
            yield "presence", "system_state", program, {"type": "state", "state": "installed"}
        elif absent:
            yield "presence", "system_state", program, {"type": "state", "state": "not_installed"}
    for m in _VERSION_CMD.finditer(command):
        program = m.group(1)
        if code in (0, None) and _VERSION.search(result) and not _NOT_FOUND.search(result):
            yield "version", "system_state", program, {"type": "state", "state": "installed"}
        elif _NOT_FOUND.search(result):
            yield "version", "system_state", program, {"type": "state", "state": "not_installed"}
    if _TEST_CMD.search(command):
        if _FAILED.search(result) or (code not in (0, None) and not _PASSED.search(result)):
            yield "tests", "operational_status", "tests", {"type": "status", "status": "down"}
        elif _PASSED.search(result) and code in (0, None):
            yield "tests", "operational_status", "tests", {"type": "status", "status": "operational"}
    for m in _SERVICE_CMD.finditer(command):
        state = result.strip().splitlines()[-1].strip().lower() if result.strip() else ""
        if state in ("active", "inactive", "failed"):
            value = "running" if state == "active" else "stopped"
            yield "service", "system_state", m.group(1), {"type": "state", "state": value}


def _status_facts(passage: Passage, result: str) -> Iterable[tuple[str, str, str, dict]]:
    m = _FLIGHT_STATUS.match(result)
    status = m.group(1).lower() if m else None
    if status is None:
        try:
            data = json.loads(result)
        except ValueError:
            data = None
        if isinstance(data, dict) and isinstance(data.get("status"), str):
            status = data["status"].lower()
    if not status:
        return
    subject = _subject_from(passage.arguments) or (passage.tool_name or "status")
    yield "status_tool", "system_state", subject, {"type": "state", "state": status.replace(" ", "_")}


def _subject_from(arguments: str | None) -> str | None:
    if not arguments:
        return None
    try:
        data = json.loads(arguments)
    except ValueError:
        return None
    if isinstance(data, dict):
        for key, value in data.items():
            if isinstance(value, str) and re.search(r"(?:number|_id|^id$|name)$", key):
                return value
    return None
