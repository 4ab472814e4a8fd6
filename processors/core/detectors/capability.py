"""Capability: "X doesn't support Y", "this feature is not available", "Y is not supported"."""

from ..patterns import DetectorSpec
from ._fragments import AFTER, COPULA

FEATURE_NOUNS = (
    r"feature|features|function|functionality|option|capability|command|flag|endpoint|method|api|integration"
    r"|setting|mode|parameter|operation|action|format|syntax|support"
)

DETECTORS = (
    DetectorSpec(
        id="capability.does_not_support",
        category="capability",
        family="capability",
        patterns=(
            r"\b(?P<cop>(?:does|do|did)(?:n't|n’t|\s+not)|can't|can’t|cannot|won't|won’t)\s+support\s+" + AFTER,
            r"\b(?P<cop>(?:has|have)\s+no|lacks?)\s+support\s+for\s+" + AFTER,
        ),
        assertion="not_supported",
        negative=True,
        role_before=True,
        confidence=0.85,
        priority=2,
    ),
    DetectorSpec(
        id="capability.supports",
        category="capability",
        family="capability",
        patterns=(r"\b(?P<cop>(?:already\s+|fully\s+|now\s+|also\s+)?)supports\s+" + AFTER,),
        assertion="supported",
        role_before=True,
        confidence=0.8,
    ),
    DetectorSpec(
        id="capability.not_supported",
        category="capability",
        family="capability",
        patterns=(rf"\b{COPULA}\s+(?P<state>supported|possible)\b",),
        assertion="{not_}supported",
        subject_before=True,
        negation_group="cop",
        confidence=0.85,
        priority=2,
    ),
    DetectorSpec(
        id="capability.unsupported",
        category="capability",
        family="capability",
        patterns=(rf"\b{COPULA}\s+(?:unsupported|impossible|not\s+possible)\b",),
        assertion="not_supported",
        negative=True,
        subject_before=True,
        confidence=0.85,
        priority=2,
    ),
    DetectorSpec(
        # "This feature is not available" is a capability claim, not system state.
        id="capability.feature_unavailable",
        category="capability",
        family="capability",
        patterns=(rf"\b(?P<head>{FEATURE_NOUNS})\s+{COPULA}\s+(?P<state>available|enabled)\b",),
        assertion="{not_}supported",
        subject_before=True,
        subject_includes_match_group="head",
        negation_group="cop",
        confidence=0.85,
        priority=3,
    ),
)
