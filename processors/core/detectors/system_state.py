"""System state: installed, running, configured, found; process and UI state; what an action left behind.

"Node.js is not installed", "I couldn't find docker", "I found the handler in
`routes.py`", "the export job is still in progress", "the editor pane is
focused", "the dashboard has loaded", "no retry button is visible", "we
haven't seen a confirmation banner", "with Redis running, ...", "your
reservation has been cancelled", "the placeholder was not replaced".
"""

from ..patterns import DetectorSpec
from ._fragments import AFTER, COPULA, QUOTED, WORD

STATES = (
    r"installed|running|configured|available|enabled|active|loaded|present|set\s+up|setup|deployed|mounted"
    r"|started|initiali[sz]ed|registered|connected|reachable|accessible|authenticated|found|detected"
    r"|listening|up\s+to\s+date|in\s+place|on\s+(?:the\s+)?path"
)
# Process and UI state.
UI_STATES = (
    r"in\s+progress|pending|queued|complete|completed|finished|open|opened|closed|focused|selected"
    r"|visible|invisible|hidden|shown|displayed|highlighted|expanded|collapsed|disabled|unavailable"
    r"|ready|idle|stale|out\s+of\s+date|empty|blank|greyed\s+out|grayed\s+out"
)
# What an action leaves an object in, said of the object ("has been cancelled", "was not replaced").
RESULTS = (
    r"cancell?ed|booked|updated|added|applied|processed|charged|refunded|issued|confirmed|upgraded|downgraded"
    r"|modified|changed|replaced|reset|saved|restored|reverted|merged|committed|pushed|published|submitted"
    r"|cleared|waived|purchased|created|generated|written|overwritten|patched|renamed|moved|copied|imported"
    r"|rebuilt|recompiled|reinstalled|uninstalled|upgraded|migrated|refreshed|reloaded|restarted|stopped|killed"
    r"|sent|delivered|received|accepted|rejected|approved|scheduled|rescheduled|completed|verified|covered"
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
        code_narration=r"initiali[sz]ed|registered|loaded|connected|started|mounted",
        examples=("Node.js is not installed.", "Docker is probably not running.", "The key is also present."),
    ),
    DetectorSpec(
        id="system_state.ui",
        category="system_state",
        family="systemState",
        patterns=(rf"\b{COPULA}\s+(?P<state>{UI_STATES})\b",),
        assertion="{not_}{state}",
        subject_before=True,
        negation_group="cop",
        confidence=0.8,
        code_narration=r".*",
        # "`xa` could be empty", "`mask` was not empty": a code identifier alone as the subject of a
        # process or UI state describes a value in the code, in any tense, not the state of a thing.
        reject_subject=r"^`[^`]+`$",
        # "when the list is empty": a condition; rejected here, before the costlier frame check.
        reject_before=r"\b(?:when|whenever|if|unless|whether|until|once)\b[^.!?;\n]{0,40}",
        # "is open to", "is empty when", "is complete enough": not the object's state.
        reject_after=r"\s+(?:to|for|when|if|enough|unless)\b",
        examples=(
            "The export job is still in progress.",
            "The editor pane is focused.",
            "No retry button is visible.",
            "The cache is unavailable.",
        ),
    ),
    DetectorSpec(
        # "The dashboard has loaded", "the worker has started".
        id="system_state.has_done",
        category="system_state",
        family="systemState",
        patterns=(
            r"\b(?P<cop>has|have|had)(?:n't|n’t|\s+not)?\s+(?:(?:now|already|just|finally|fully|successfully|yet)\s+)?"
            r"(?P<state>loaded|started|finished|completed|stopped|launched|opened|closed|rendered|appeared|exited)\b",
        ),
        assertion="{state}",
        subject_before=True,
        confidence=0.8,
        reject_after=r"\s+(?:to|the|a|an|my|our|your|its|their|with)\b",
        examples=("The dashboard has loaded.", "The worker has started."),
    ),
    DetectorSpec(
        # "Your reservation has been cancelled", "the placeholder was not replaced", "the counter is not being reset".
        id="system_state.result",
        category="system_state",
        family="systemState",
        patterns=(
            r"\b(?P<cop>(?:has|have|had)(?:n't|n’t|\s+not|\s+never)?\s+been|(?:is|are|was|were)(?:n't|n’t)?(?:\s+not)?"
            r"(?:\s+being)?|(?:is|are)\s+now|got)"
            r"\s+(?:(?:successfully|already|now|also|correctly|properly|fully|automatically|just|since|indeed|still"
            r"|finally|actually)\s+)?(?P<state>" + RESULTS + r")\b",
        ),
        assertion="{not_}{state}",
        subject_before=True,
        negation_group="cop",
        confidence=0.75,
        code_narration=r".*",
        # "was created on 2024-05-02", "is updated by the loop when": how or when, not what state.
        reject_after=r"\s+(?:on\s+\d|by\s+(?:the|a|an|calling|running|using)\b|(?:when|whenever|if|every|each|via)\b"
        r"|as\s+follows)",
        examples=(
            "Your reservation has been successfully cancelled.",
            "The placeholder was not replaced.",
            "The counter is not being reset between runs.",
            "No additional fees were applied.",
        ),
    ),
    DetectorSpec(
        id="system_state.not_found",
        category="system_state",
        family="systemState",
        patterns=(
            r"\b(?:couldn't|could\s+not|couldn’t|can't|can’t|cannot|can\s+not|unable\s+to|failed\s+to|did\s+not"
            rf"|didn't|didn’t)\s+(?:find|locate|detect)\s+(?:(?:the|a|an|any)\s+)?{AFTER}",
            r"\b(?:haven't|haven’t|have\s+not|hasn't|hasn’t|has\s+not|didn't|didn’t|did\s+not|don't|don’t|do\s+not)"
            rf"\s+(?:yet\s+)?(?:seen|see|spot|spotted|notice|noticed|found)\s+(?:(?:the|a|an|any)\s+)?{AFTER}",
        ),
        assertion="not_found",
        negative=True,
        confidence=0.85,
        examples=("I couldn't find docker.", "We haven't seen a confirmation banner."),
    ),
    DetectorSpec(
        # "I don't have `lmfit` installed", "the subqueries do not have `values_select` set": the state of
        # the object, not whether the owner holds it (more specific than existence.does_not_contain).
        id="system_state.not_have_state",
        category="system_state",
        family="systemState",
        patterns=(
            r"\b(?P<cop>(?:does|do|did)(?:n't|n’t|\s+not))\s+have\s+(?:(?:a|an|the|any)\s+)?"
            rf"(?P<subject>{QUOTED}|{WORD})\s+(?P<state>installed|set|set\s+up|enabled|configured|loaded|running)\b",
        ),
        assertion="not_{state}",
        negative=True,
        role_before=True,
        confidence=0.8,
        priority=2,
        examples=("I don't have `lmfit` installed.", "The staging config does not have `DEBUG` set."),
    ),
    DetectorSpec(
        # First-person discovery: "I found the handler in `routes.py`", "I've located your reservation".
        id="system_state.found",
        category="system_state",
        family="systemState",
        patterns=(
            r"\b(?:I|we)(?:\s+have|'ve|’ve)?\s+(?:(?:also|previously|now|just|finally|already)\s+)?"
            r"(?:found|located|identified|spotted)\s+" + AFTER,
        ),
        assertion="found",
        confidence=0.8,
        # Not a thing found: "I found out", "we found earlier that ...", "I found that the handler
        # swallows errors" (a clause: what was learnt, not a discovery of the object).
        reject_subject=(
            r"^(?:out|earlier|later|again|previously|recently|before|afterwards|so|too|also)\b"
            r"|^that\s+(?:the|a|an|it|its|there|this|these|those|we|i|you|they|he|she|my|our|your|no|all"
            r"|some|each|every|when|if|both|nothing|none)\b"
        ),
        examples=("I found the handler in `routes.py`.", "I have located your most recent reservation."),
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
        examples=("- Redis: not running\n", "* **Node.js**: installed\n"),
    ),
    DetectorSpec(
        # An absolute clause: "With Redis running, we start the worker."
        id="system_state.with_clause",
        category="system_state",
        family="systemState",
        patterns=(
            r"(?:^|[.!?]\s+|\n)(?:with|now\s+that)\s+(?P<subject>(?:the\s+)?[\p{L}\p{N}_.`\-]+(?:[ \t]+[\p{L}\p{N}_.`\-]+)?)"
            r"[ \t]+(?:is\s+|are\s+)?(?P<state>running|installed|enabled|disabled|stopped|configured|started|loaded"
            r"|deployed|down|up)\s*,",
        ),
        assertion="{state}",
        confidence=0.75,
        examples=("With Redis running, we start the worker.",),
    ),
)
