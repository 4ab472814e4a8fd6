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
