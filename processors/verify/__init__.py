"""Did the agent do what it says it did? Structured output and action claims checked against the trace.

Three levels (issue 13): the output matches its schema; tool results match
theirs; and claims of done work ("I created `src/parser.py`", "all tests
pass", "installed requests") are graded `verified`, `unverified` or
`contradicted` against the tool calls that came before them.
"""

from .actions import Action, action_from_dict, actions_from_trace, effects_of, messages_tool_calls
from .claims import CLAIM_PATTERNS, ActionClaim, ClaimDetector, ClaimPattern
from .config import ActionsConfig, SchemaRegistry, SchemaRule
from .grade import CONTRADICTED, UNVERIFIED, VERIFIED, Grade, grade_claims
from .schemas import CompiledSchema, SchemaError, SchemaProblem, compile_schema
from .verifier import Verification, Verifier, VerifyFinding

__all__ = [
    "CLAIM_PATTERNS",
    "CONTRADICTED",
    "UNVERIFIED",
    "VERIFIED",
    "Action",
    "ActionClaim",
    "ActionsConfig",
    "ClaimDetector",
    "ClaimPattern",
    "CompiledSchema",
    "Grade",
    "SchemaError",
    "SchemaProblem",
    "SchemaRegistry",
    "SchemaRule",
    "Verification",
    "Verifier",
    "VerifyFinding",
    "action_from_dict",
    "actions_from_trace",
    "compile_schema",
    "effects_of",
    "grade_claims",
    "messages_tool_calls",
]
