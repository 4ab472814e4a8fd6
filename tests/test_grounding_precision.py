"""Grounding precision (issue 12 spot-check): shapes of text that were graded FABRICATED though the trace
supports them or they assert nothing. All texts here are invented."""

from __future__ import annotations

import json

from claimwatch.grounding import FABRICATED, ground


def test_a_date_is_found_in_an_iso_timestamp_when_the_time_follows_it():
    booking = json.dumps({"booking_id": "QX77PL", "opened_at": "2023-11-14T17:45:09"})
    report = ground("The booking was opened on 2023-11-14.", [booking])
    (claim,) = report.claims
    assert claim.grade.grade != FABRICATED
    assert claim.grade.evidence


def _transcript_grades(messages: list[dict], reply: str) -> dict[str, object]:
    from claimwatch.grounding import Grounder
    from claimwatch.grounding.trace import passages_from_messages

    passages, query = passages_from_messages(messages)
    report = Grounder().ground(reply, passages, query)
    return {c.claim.text: c.grade for c in report.claims}


def test_a_detail_from_the_agents_own_command_is_inferred_citing_the_action_when_no_tool_states_it():
    messages = [
        {"role": "user", "content": "Make the importer skip blank rows."},
        {"role": "assistant", "content": "THOUGHT: patch it.\n```bash\nsed -i '212,219d' ingest/rowreader.py\n```"},
        {"role": "user", "content": "<returncode>0</returncode>"},
    ]
    (grade,) = _transcript_grades(messages, "My edit removed the old loop in `ingest/rowreader.py`.").values()
    assert grade.grade == "INFERRED"
    assert "own action" in grade.reason


def test_tool_call_arguments_are_evidence_of_what_the_agent_did_but_its_prose_and_scratchpad_are_not():
    messages = [
        {"role": "user", "content": "Please move my trip."},
        {"role": "assistant", "content": "The new code is `KXQ88T`.",
         "tool_calls": [{"id": "c1", "name": "think", "arguments": '{"thought": "use voucher VCH-5521"}'},
                        {"id": "c2", "name": "rebook", "arguments": '{"trip_id": "TRP4410"}'}]},
        {"role": "tool", "content": '{"ok": true}'},
    ]  # fmt: skip
    grades = _transcript_grades(messages, "Trip TRP4410 was rebooked.\nThe voucher VCH-5521 was applied.\nIts code is `KXQ88T`.")
    assert grades["Trip TRP4410 was rebooked."].grade == "INFERRED"
    assert grades["The voucher VCH-5521 was applied."].grade == FABRICATED
    assert grades["Its code is `KXQ88T`."].grade == FABRICATED
