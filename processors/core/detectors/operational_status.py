"""Operational status: "the pipeline is broken", "build failed", "all services are down"."""

from ..patterns import DetectorSpec
from ._fragments import COPULA

FAILING = (
    r"broken|down|failing|crashed|dead|offline|unreachable|unresponsive|unhealthy|degraded|erroring|hanging|corrupted|corrupt"
    r"|stuck|red|not\s+working|not\s+responding|out\s+of\s+service|in\s+a\s+crash\s*loop|crash-?looping"
)
HEALTHY = (
    r"up|operational|working|healthy|green|passing|online|stable|up\s+and\s+running|working\s+fine"
    r"|responding|accepting\s+connections|serving\s+(?:traffic|requests)"
)
INFRA = (
    r"pipelines?|builds?|tests?|test\s+suite|deploy(?:ment)?s?|services?|servers?|databases?|db|queues?|clusters?"
    r"|jobs?|workflows?|ci|checks?|migrations?|releases?|workers?|nodes?|pods?|containers?|api|endpoints?"
    r"|gateway|website|site|app|runs?|cron"
)

DETECTORS = (
    DetectorSpec(
        id="operational_status.failing",
        category="operational_status",
        family="operationalStatus",
        patterns=(rf"\b{COPULA}\s+(?P<state>{FAILING})\b",),
        assertion="{not_}{state}",
        subject_before=True,
        negation_group="cop",
        confidence=0.85,
    ),
    DetectorSpec(
        id="operational_status.healthy",
        category="operational_status",
        family="operationalStatus",
        patterns=(rf"\b{COPULA}\s+(?P<state>{HEALTHY})\b",),
        assertion="{not_}{state}",
        subject_before=True,
        negation_group="cop",
        confidence=0.85,
    ),
    DetectorSpec(
        id="operational_status.event",
        category="operational_status",
        family="operationalStatus",
        patterns=(
            r"\b(?P<head>" + INFRA + r")[ \t]+(?P<cop>(?:has|have|had)[ \t]+)?"
            r"(?:also[ \t]+|just[ \t]+)?(?P<state>failed|crashed|timed\s+out|errored(?:\s+out)?|went\s+down|passed"
            r"|succeeded|keeps?\s+failing|keeps?\s+crashing)\b",
        ),
        assertion="{state}",
        subject_before=True,
        subject_includes_match_group="head",
        confidence=0.85,
    ),
)
