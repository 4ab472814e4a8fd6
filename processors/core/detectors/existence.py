"""Existence: "Feature Y doesn't exist", "There is no config file", "we don't have a staging env"."""

from ..patterns import DetectorSpec
from ._fragments import AFTER, COPULA

DETECTORS = (
    DetectorSpec(
        id="existence.does_not_exist",
        category="existence",
        family="existence",
        patterns=(
            r"\b(?P<cop>(?:does|do|did)(?:n't|n’t|\s+not)|no\s+longer)\s+exists?\b",
            rf"\b{COPULA}\s+(?:missing|absent|gone|nonexistent|non-existent|deleted|removed|decommissioned|retired)\b",
            r"\b(?P<cop>has|have)\s+(?:been\s+)?(?:deleted|removed|decommissioned|retired)\b",
        ),
        assertion="not_exists",
        negative=True,
        subject_before=True,
        confidence=0.9,
    ),
    DetectorSpec(
        id="existence.defined",
        category="existence",
        family="existence",
        patterns=(rf"\b{COPULA}\s+(?:defined|declared|implemented)\b",),
        assertion="{not_}exists",
        subject_before=True,
        negation_group="cop",
        confidence=0.85,
    ),
    DetectorSpec(
        # "The config file does not contain a timeout key": the object is what does not exist.
        id="existence.does_not_contain",
        category="existence",
        family="existence",
        patterns=(
            r"\b(?:does|do|did)(?:n't|n’t|\s+not)\s+(?:contain|include|define|expose|provide|have)\s+"
            r"(?:(?:a|an|the|any)\s+)?" + AFTER,
        ),
        assertion="not_exists",
        negative=True,
        role_before=True,
        confidence=0.8,
    ),
    DetectorSpec(
        id="existence.exists",
        category="existence",
        family="existence",
        patterns=(r"\b(?P<cop>(?:already\s+|still\s+|does\s+|definitely\s+)?)exists\b",),
        assertion="exists",
        subject_before=True,
        confidence=0.85,
    ),
    DetectorSpec(
        id="existence.there_is_no",
        category="existence",
        family="existence",
        patterns=(
            r"\b(?:there\s+is\s+no|there's\s+no|there’s\s+no|there\s+are\s+no|there\s+isn't\s+(?:a|an|any)"
            r"|there\s+isn’t\s+(?:a|an|any)|there\s+aren't\s+any|there\s+aren’t\s+any|there\s+is\s+not\s+(?:a|an|any)"
            rf"|there\s+are\s+not\s+any|no\s+such)\s+{AFTER}",
        ),
        assertion="not_exists",
        negative=True,
        confidence=0.85,
    ),
    DetectorSpec(
        id="existence.does_not_have",
        category="existence",
        family="existence",
        patterns=(
            r"\b(?:we|you|they|i|it)\s+(?:don't|do\s+not|didn't|did\s+not|don’t|didn’t|doesn't|doesn’t|does\s+not)"
            rf"\s+have\s+(?:a|an|the|any)\s+{AFTER}",
            r"\b(?:has|have|contains?)\s+no\s+" + AFTER,
        ),
        assertion="not_exists",
        negative=True,
        confidence=0.8,
    ),
)
