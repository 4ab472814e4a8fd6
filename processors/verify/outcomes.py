"""How an action turned out, read from its status and its result text.

Exit status (`<returncode>N</returncode>`, `exit code N`, JSON `exit_code` /
`returncode`), test-runner summaries (pytest, unittest/Django, go, cargo,
jest, mocha, rspec), and error text that no success can carry
(`Traceback`, `fatal:`, `npm ERR!`, `E: Unable to locate package`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache


@dataclass(frozen=True, slots=True)
class Outcome:
    """`ok` is None when nothing in the action says how it went."""

    ok: bool | None
    reason: str = ""
    exit_code: int | None = None
    failed: int | None = None
    passed: int | None = None


UNKNOWN = Outcome(None)
_TAIL = 6000  # summaries sit at the end of long outputs; errors near it too

_EXIT = re.compile(
    r"<returncode>\s*(-?\d+)\s*</returncode>|\b(?:exit(?:ed)?(?: with)?(?: code| status)|return ?code|returncode)\s*[:=]?\s*(-?\d+)",
    re.I,
)
_COUNTS = re.compile(r"\b(\d+) (failed|passed|errors?|failing|passing|failures?)\b", re.I)
_UNITTEST_FAILED = re.compile(r"^FAILED \((?:failures|errors)=(\d+)", re.M)
_UNITTEST_RAN = re.compile(r"^Ran (\d+) tests? in", re.M)
_UNITTEST_OK = re.compile(r"^Ran \d+ tests? in [\d.]+s\s+OK\b", re.M)
_CARGO = re.compile(r"test result: (ok|FAILED)\. (\d+) passed; (\d+) failed")
_GO_FAIL = re.compile(r"^(?:FAIL|--- FAIL)\b", re.M)
_RSPEC = re.compile(r"\b\d+ examples?, (\d+) failures?")
_NO_TESTS = re.compile(r"\bno tests ran\b|\bcollected 0 items\b|\bRan 0 tests\b|No tests found", re.I)
_ERRORS = re.compile(
    r"Traceback \(most recent call last\)|^fatal: |^error: |npm ERR!|^E: Unable to locate package|"
    r"ERROR: (?:Could not|No matching distribution)|command not found|No such file or directory|"
    r"Permission denied|! \[rejected\]|nothing to commit|SyntaxError: |ModuleNotFoundError: ",
    re.M,
)


def outcome_of(result: str | None, status: str | None = None) -> Outcome:
    """The outcome of one action from its result text and recorded status."""
    return _outcome_cached(result if isinstance(result, str) else _text(result), status)


def _text(result) -> str | None:
    if result is None:
        return None
    try:
        return json.dumps(result, default=str)
    except (TypeError, ValueError):
        return str(result)


@lru_cache(maxsize=8192)
def _outcome_cached(result: str | None, status: str | None) -> Outcome:
    failed_status = status is not None and status.lower() in ("error", "failed", "failure", "status_code_error")
    if not result:
        return Outcome(False, f"status {status}") if failed_status else UNKNOWN
    tail = result[-_TAIL:]
    code = _exit_code(result)
    failed, passed = _test_counts(tail)
    if failed:
        return Outcome(False, f"{failed} failed in the test output", code, failed, passed)
    if code not in (None, 0):
        return Outcome(False, f"exit status {code}", code, failed, passed)
    if failed_status:
        return Outcome(False, f"status {status}", code, failed, passed)
    error = _ERRORS.search(tail)
    if error is not None and code is None:
        return Outcome(False, f"error text: {error.group(0).strip()!r}", code, failed, passed)
    if code == 0 or passed or (status is not None and status.lower() in ("ok", "success", "unset")):
        return Outcome(True, "exit status 0" if code == 0 else "succeeded", code, failed, passed)
    return Outcome(None, "", code, failed, passed)


def _exit_code(result: str) -> int | None:
    match = _EXIT.search(result)
    if match is not None:
        return int(match.group(1) or match.group(2))
    if result.startswith("{") and ("exit_code" in result or "returncode" in result):
        try:
            data = json.loads(result)
        except ValueError:
            return None
        value = data.get("exit_code", data.get("returncode")) if isinstance(data, dict) else None
        return value if isinstance(value, int) and not isinstance(value, bool) else None
    return None


def _test_counts(text: str) -> tuple[int | None, int | None]:
    """(failed, passed) from the last summary a known runner prints; None when there is none."""
    cargo = _CARGO.findall(text)
    if cargo:
        _, passed, failed = cargo[-1]
        return int(failed), int(passed)
    failed = passed = None
    summary = _last_line_with(_COUNTS, text)
    for count, word in _COUNTS.findall(summary):
        word = word.lower()
        if word.startswith(("fail", "error")):
            failed = (failed or 0) + int(count)
        else:
            passed = (passed or 0) + int(count)
    unit = _UNITTEST_FAILED.findall(text)
    if unit:
        failed = max(failed or 0, int(unit[-1]))
        ran = _UNITTEST_RAN.findall(text)
        if ran and passed is None:
            passed = max(0, int(ran[-1]) - failed)
    rspec = _RSPEC.findall(text)
    if rspec:
        failed = max(failed or 0, int(rspec[-1]))
    if failed is None and _GO_FAIL.search(text):
        failed = 1
    if passed is None and _UNITTEST_OK.search(text):
        passed = 1
    return failed, passed


def _last_line_with(pattern: re.Pattern, text: str) -> str:
    """The last line of `text` that `pattern` matches (runners print their summary last)."""
    for line in reversed(text.splitlines()):
        if pattern.search(line):
            return line
    return ""


def ran_no_tests(result: str | None) -> bool:
    """The runner found nothing to run: a pass claim on it is not backed."""
    return bool(result) and _NO_TESTS.search(result[-_TAIL:]) is not None
