"""Replayed agent trajectories (../shared/data/agent-text-dev, MIT; see its README for attribution):
40 mini-swe-agent runs (Gemini 3 Pro with a shell on SWE-bench) and 200 tau-bench airline conversations.

Every claim found in the coding runs is graded; fabrications injected into them (an edit the agent never
made, a test run that failed) are caught with precision >= 0.90; booking replies carry no false action
claims; booking tool results are validated against a reservation schema (level 2).
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from claimwatch.verify import ActionsConfig, Verifier
from claimwatch.verify.grade import same_path
from claimwatch.verify.replay import replay

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "agent-text-dev" / "trajectories.jsonl"
pytestmark = pytest.mark.skipif(not DATA.exists(), reason="shared agent-text-dev data not present")
FAILED_RUN = "<returncode>1</returncode>\n<output>\n============ 2 failed, 7 passed in 0.52s ============\n</output>"
WRITES = ("write", "edit", "create")


@pytest.fixture(scope="module")
def trajectories():
    rows = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines()]
    return {
        "coding": [r for r in rows if r["source"].startswith("mini-swe-agent")],
        "booking": [r for r in rows if r["source"].startswith("tau-bench")],
    }


@pytest.fixture(scope="module")
def verifier():
    return Verifier()


def turns(rows):
    for row in rows:
        yield from replay(row["messages"])


def test_every_claim_in_the_coding_runs_is_graded_with_a_reason(trajectories, verifier):
    graded = 0
    for turn in turns(trajectories["coding"]):
        claims = verifier.detector.detect(turn.text)
        result = verifier.verify(turn.text, actions=turn.actions)
        assert [g.claim for g in result.grades] == claims
        for g in result.grades:
            assert g.grade in ("verified", "unverified", "contradicted") and g.reason
            assert g.evidence is None or 0 <= g.evidence < len(turn.actions)
        graded += len(claims)
    assert graded >= 100  # file edits and test outcomes, mostly


def test_booking_replies_carry_no_action_claims_of_these_kinds(trajectories, verifier):
    assert sum(len(verifier.detector.detect(t.text)) for t in turns(trajectories["booking"])) == 0


def _fabricate(verifier, turn, grade):
    """The turn's actions with the claim's backing taken away: every write of the file, or the last test run failed."""
    claim = grade.claim
    actions = list(turn.actions)
    if claim.kind == "tests" and claim.outcome == "pass":
        actions[grade.evidence] = dataclasses.replace(actions[grade.evidence], result=FAILED_RUN, status=None)
        return actions, "contradicted"
    if claim.kind in ("file_edit", "file_create", "file_write"):
        for _ in range(20):  # drop the evidence until nothing backs the claim (scripts, diffs, direct writes)
            again = verifier.verify(turn.text, actions=actions).grades
            backing = next((g for g in again if g.claim == claim and g.grade == "verified"), None)
            if backing is None or backing.evidence is None:
                break
            actions = [dataclasses.replace(a, index=i) for i, a in enumerate(a for a in actions if a.index != backing.evidence)]
        return actions, "unverified"
    return None, None


def fabrication_study(verifier, rows):
    """(injected, caught, flagged, rightly flagged): each verified claim's backing removed in turn, then re-graded.

    `caught` counts injected claims graded as expected (`unverified` for a removed edit, `contradicted` for
    a failed run); `flagged` counts every claim that stopped being verified, and `rightly flagged` those
    resting on what was removed (the same file, or the same test run claimed twice).
    """
    injected = caught = flagged = right = 0
    for turn in turns(rows):
        before = verifier.verify(turn.text, actions=turn.actions).grades
        for grade in before:
            if grade.grade != "verified" or grade.evidence is None:
                continue
            actions, expected = _fabricate(verifier, turn, grade)
            if actions is None:
                continue
            injected += 1
            for after, was in zip(verifier.verify(turn.text, actions=actions).grades, before, strict=True):
                if after.claim == grade.claim and after.grade == expected:
                    caught += 1
                if after.grade == "verified" or was.grade != "verified":
                    continue
                flagged += 1
                right += _rests_on(after.claim, grade.claim)
    return injected, caught, flagged, right


def _rests_on(claim, removed) -> bool:
    if removed.kind == "tests":
        return claim.kind == "tests"
    return claim.kind in ("file_edit", "file_create", "file_write") and same_path(claim.subject or "", removed.subject or "")


def test_injected_fabrications_are_caught_with_precision_of_at_least_090(trajectories, verifier):
    injected, caught, flagged, right = fabrication_study(verifier, trajectories["coding"])
    assert injected >= 80
    assert right / flagged >= 0.90, (injected, caught, flagged, right)
    assert caught / injected >= 0.80, (injected, caught, flagged, right)


RESERVATION = {
    "type": "object",
    "required": ["reservation_id", "user_id", "origin", "destination", "flight_type", "cabin", "flights"],
    "properties": {
        "reservation_id": {"type": "string"},
        "flight_type": {"enum": ["one_way", "round_trip"]},
        "cabin": {"enum": ["basic_economy", "economy", "business"]},
        "flights": {"type": "array", "items": {"type": "object", "required": ["flight_number", "date", "price"],
                                                "properties": {"price": {"type": "number"}}}},
    },
}


def test_booking_tool_results_match_their_schema_and_error_strings_do_not(trajectories):
    tools = ("get_reservation_details", "cancel_reservation", "update_reservation_flights", "book_reservation")
    verifier = Verifier(ActionsConfig(tool_schemas=dict.fromkeys(tools, RESERVATION)))
    checked = mismatched = 0
    for row in trajectories["booking"]:
        actions = [t.actions for t in replay(row["messages"])]
        final = max(actions, key=len, default=())
        for action in final:
            if action.tool not in tools or not isinstance(action.result, str) or "more characters]" in action.result:
                continue  # the data set cut long results at 2,000 characters
            (findings := verifier.verify("", actions=[action]).findings)
            checked += 1
            if findings:
                mismatched += 1
                (f,) = findings
                assert (f.level, f.category, f.tool) == (2, "schema_mismatch", action.tool)
                assert not action.result.lstrip().startswith("{"), f.reason  # only non-JSON results (errors) fail
            else:
                assert action.result.lstrip().startswith("{")
    assert checked >= 300 and 0 < mismatched < checked
