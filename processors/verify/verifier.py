"""The three levels together: structure, tool results, action claims.

`Verifier.verify(text, agent=..., actions=...)` checks one output:
1. structure: when a schema applies (per agent glob, or given), the output is
   parsed (whole text or a fenced JSON block) and validated;
2. tool results: each action whose tool has a result schema is validated;
   findings name the tool, not the agent;
3. action claims: claims in the text (and the `claims` list of a structured
   output, as in the seed: file-write with sha256, file-edit with an anchor,
   file-delete, command-executed) are graded against the actions.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from . import claims as K
from .actions import Action
from .claims import ActionClaim, ClaimDetector
from .config import ActionsConfig, SchemaRegistry
from .grade import CONTRADICTED, UNVERIFIED, Grade, grade_claims
from .schemas import CompiledSchema, SchemaProblem, parse_structured, parse_value
from .timeline import Timeline

STRUCTURE, TOOL_RESULT, CLAIMS = 1, 2, 3
_STRUCTURED_KINDS = {
    "file-write": K.FILE_WRITE, "file_write": K.FILE_WRITE, "file-create": K.FILE_CREATE,
    "file-edit": K.FILE_EDIT, "file_edit": K.FILE_EDIT, "code-inserted": K.FILE_EDIT,
    "file-delete": K.FILE_DELETE, "file_delete": K.FILE_DELETE,
    "command-executed": K.COMMAND, "command_executed": K.COMMAND,
}


@dataclass(frozen=True, slots=True)
class VerifyFinding:
    """One problem at one level. Level 3 findings carry the claim, its grade and the evidence action."""

    level: int
    category: str
    reason: str
    path: str | None = None  # JSON path (levels 1 and 2)
    tool: str | None = None  # level 2: the tool whose result is wrong
    claim: ActionClaim | None = None
    grade: str | None = None
    evidence: int | None = None
    evidence_span_id: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"level": self.level, "category": self.category, "reason": self.reason}
        if self.path is not None:
            out["path"] = self.path
        if self.tool is not None:
            out["tool"] = self.tool
        if self.claim is not None:
            out["claim"] = claim_dict(self.claim)
            out["grade"] = self.grade
            out["evidence"] = self.evidence
        return out


def claim_dict(claim: ActionClaim) -> dict[str, Any]:
    out = {"kind": claim.kind, "subject": claim.subject, "text": claim.text, "offset": claim.offset}
    if claim.outcome is not None:
        out["outcome"] = claim.outcome
    return out


@dataclass(frozen=True, slots=True)
class LevelResult:
    level: int
    passed: bool
    problems: int
    evaluation_us: float


@dataclass(frozen=True, slots=True)
class Verification:
    """What one output's verification found: levels that ran, findings, and every graded claim."""

    levels: tuple[LevelResult, ...]
    findings: tuple[VerifyFinding, ...]
    grades: tuple[Grade, ...] = ()
    structured: Any = None
    evaluation_us: float = 0.0
    truncated: bool = False
    notes: tuple[str, ...] = field(default=())

    @property
    def valid(self) -> bool:
        return not self.findings


class Verifier:
    """Built once from config (schemas compiled, claim table compiled); `verify` never raises on bad input."""

    def __init__(self, config: ActionsConfig | None = None) -> None:
        self.config = config or ActionsConfig()
        self.registry = SchemaRegistry(self.config)
        self.detector = ClaimDetector()

    def verify(
        self,
        text: str,
        *,
        agent: str | None = None,
        actions: Sequence[Action] | Timeline | Callable[[], Sequence[Action] | Timeline] = (),
        schema: CompiledSchema | None = None,
        tool_results: Sequence[Action] | None = None,
    ) -> Verification:
        """Verify one output. `actions` happened before it (or a callable that lists them, called only
        when they are needed); `tool_results` (default: `actions`) get level 2."""
        start = time.perf_counter()
        cfg = self.config
        truncated = len(text) > cfg.max_text_length
        text = text[: cfg.max_text_length]
        listed: list[Sequence[Action]] = []

        def all_actions() -> Sequence[Action] | Timeline:
            if not listed:
                found = actions() if callable(actions) else actions
                if not isinstance(found, Timeline) and len(found) > cfg.max_actions:
                    found = found[-cfg.max_actions :]
                listed.append(found)
            return listed[0]
        levels: list[LevelResult] = []
        findings: list[VerifyFinding] = []
        structured = None
        schema = schema or (self.registry.for_agent(agent) if cfg.structure else None)
        if schema is not None:
            structured, problems = self._structure(text, schema)
            levels.append(_level(STRUCTURE, problems, start))
            findings.extend(VerifyFinding(STRUCTURE, p.category, p.message, p.path) for p in problems)
        if cfg.tool_results and self.registry.has_tools:
            t = time.perf_counter()
            given = all_actions() if tool_results is None else tool_results
            problems2 = self._tool_results(given.actions if isinstance(given, Timeline) else given)
            if problems2 is not None:
                levels.append(_level(TOOL_RESULT, problems2, t))
                findings.extend(problems2)
        grades: list[Grade] = []
        if cfg.claims:
            t = time.perf_counter()
            claims = self.detector.detect(text, cfg.max_claims)
            if structured is None and text.lstrip()[:1] == "{":
                structured, _ = parse_structured(text)
            claims.extend(structured_claims(structured))
            if claims:
                grades = grade_claims(claims, all_actions(), cfg.base_path)
                bad = [g for g in grades if g.grade in (UNVERIFIED, CONTRADICTED)]
                findings.extend(
                    VerifyFinding(CLAIMS, g.category, g.reason, claim=g.claim, grade=g.grade, evidence=g.evidence,
                                  evidence_span_id=g.evidence_span_id)
                    for g in bad
                )
                levels.append(LevelResult(CLAIMS, not bad, len(bad), (time.perf_counter() - t) * 1e6))
        return Verification(tuple(levels), tuple(findings), tuple(grades), structured,
                            (time.perf_counter() - start) * 1e6, truncated)

    def _structure(self, text: str, schema: CompiledSchema) -> tuple[Any, list[SchemaProblem]]:
        value, problem = parse_structured(text)
        if problem is not None:
            return None, [problem]
        return value, schema.check(value)

    def _tool_results(self, actions: Sequence[Action]) -> list[VerifyFinding] | None:
        """Level 2 findings, or None when no action had a result schema (the level did not run)."""
        ran = False
        out: list[VerifyFinding] = []
        for action in actions:
            schema = self.registry.for_tool(action.tool)
            if schema is None or action.result is None:
                continue
            ran = True
            if action.status == "error":
                continue  # an error result is not the tool's normal output shape
            value, problem = parse_value(action.result)
            problems = [problem] if problem is not None else schema.check(value)
            out.extend(
                VerifyFinding(TOOL_RESULT, "schema_mismatch", f"{action.tool} result: {p.category}: {p.message}",
                              p.path, tool=action.tool, evidence=action.index, evidence_span_id=action.span_id)
                for p in problems
            )
        return out if ran else None


def _level(level: int, problems: Sequence, start: float) -> LevelResult:
    return LevelResult(level, not problems, len(problems), (time.perf_counter() - start) * 1e6)


def structured_claims(value: Any) -> list[ActionClaim]:
    """The seed's claim objects in a structured output's `claims` list."""
    if not isinstance(value, Mapping) or not isinstance(value.get("claims"), list):
        return []
    out = []
    for i, item in enumerate(value["claims"]):
        if not isinstance(item, Mapping):
            continue
        kind = _STRUCTURED_KINDS.get(str(item.get("type", "")).lower())
        if kind is None:
            continue
        subject = item.get("command") if kind == K.COMMAND else item.get("path", item.get("file"))
        anchor = item.get("anchor", item.get("after", item.get("newText")))
        exit_code = item.get("exitCode", item.get("exit_code"))
        out.append(ActionClaim(
            kind, str(subject) if subject is not None else None, -1, f"claims[{i}]", "structured",
            sha256=_str(item.get("sha256", item.get("hash"))), anchor=_str(anchor),
            exit_code=exit_code if isinstance(exit_code, int) and not isinstance(exit_code, bool) else None,
        ))
    return out


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
