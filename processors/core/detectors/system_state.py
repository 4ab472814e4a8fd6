"""System state: installed, running, configured, found ("Node.js is not installed")."""

from ..patterns import DetectorSpec
from ._fragments import AFTER, COPULA

STATES = (
    r"installed|running|configured|available|enabled|active|loaded|present|set\s+up|setup|deployed|mounted"
    r"|started|initiali[sz]ed|registered|connected|reachable|accessible|authenticated|found|detected"
    r"|listening|up\s+to\s+date|in\s+place|on\s+(?:the\s+)?path"
)

DETECTORS = (
    DetectorSpec(
        id="system_state.copula",
        category="system_state",
        family="systemState",
        patterns=(rf"\b{COPULA}\s+(?P<state>{STATES})\b",),
        assertion="{not_}{state}",
        subject_before=True,
        negation_group="cop",
        confidence=0.9,
    ),
    DetectorSpec(
        id="system_state.not_found",
        category="system_state",
        family="systemState",
        patterns=(
            r"\b(?:couldn't|could\s+not|couldn’t|can't|can’t|cannot|can\s+not|unable\s+to|failed\s+to|did\s+not"
            rf"|didn't|didn’t)\s+(?:find|locate|detect)\s+(?:(?:the|a|an|any)\s+)?{AFTER}",
        ),
        assertion="not_found",
        negative=True,
        confidence=0.85,
    ),
    DetectorSpec(
        # Status lists: "- Redis: not running", "* Node.js — installed ✅"
        id="system_state.list_item",
        category="system_state",
        family="systemState",
        patterns=(
            r"(?m)^[ \t]*(?:[-*•+]|\d+[.)])[ \t]+(?:\*\*)?(?P<subject>[^\n:*|]{1,60}?)(?:\*\*)?[ \t]*(?::|[ \t][-–—][ \t])"
            rf"[ \t]*(?:\*\*)?(?P<cop>(?:not|NOT|Not)[ \t]+)?(?P<state>{STATES})\b",
        ),
        assertion="{not_}{state}",
        negation_group="cop",
        confidence=0.85,
        priority=2,
    ),
)
