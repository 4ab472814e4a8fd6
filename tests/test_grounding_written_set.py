"""The written new-domain grounding set (benchmarks/data/grounding_written) is well formed and graded whole."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from claimwatch.grounding import Grounder

DATA = Path(__file__).resolve().parents[1] / "benchmarks" / "data" / "grounding_written" / "pairs.jsonl"


def _rows() -> list[dict]:
    return [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_every_pair_is_well_formed_ids_are_unique_and_each_domain_has_both_labels():
    rows = _rows()
    assert len(rows) == 920 and len({r["id"] for r in rows}) == len(rows)
    labels = Counter((r["domain"], r["label"]) for r in rows)
    domains = {r["domain"] for r in rows}
    assert len(domains) == 32
    for domain in domains:
        assert labels[(domain, "consistent")] >= 8 and labels[(domain, "inconsistent")] >= 17, domain
    for r in rows:
        assert isinstance(r["text"], str) and r["text"].strip()
        assert r["evidence"] and all(isinstance(e, str) and e.strip() for e in r["evidence"])
        assert (r["label"] == "consistent") == (not r["edit_types"]), r["id"]


def test_every_pair_is_graded_and_every_fabricated_grade_says_why():
    grounder = Grounder()
    fabricated = 0
    for r in _rows():
        report = grounder.ground(r["text"], r["evidence"])
        assert report.claims, r["id"]
        for c in report.claims:
            if c.grade.grade == "FABRICATED":
                fabricated += 1
                assert c.grade.reason and (c.grade.evidence or "no evidence" in c.grade.reason), (r["id"], c.grade)
    assert fabricated > 0
