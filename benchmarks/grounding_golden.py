"""Grounding results, dumped whole, so a speed change can be shown to change no result (issue 12).

    python benchmarks/grounding_golden.py --write /tmp/grounding-golden.jsonl   # from the code as it is
    python benchmarks/grounding_golden.py --check /tmp/grounding-golden.jsonl   # after a change: same lines?

One JSON line per graded output, with everything a user or the check sees of it: every claim (text,
place, kind, specifics, negation), its grade, evidence citations, reason, confidence and issue, the
score, the decision (confidence, checks, issues, hints, goals) and the evidence counts. Outputs:
(a) every pair of grounding-dev (SummEdits, Apache-2.0, Salesforce), graded by one Grounder as the
accuracy bench does; (b) every assistant reply of agent-text-dev against the tool and user messages
before it, as `bench_grounding.py --replay` does (tau-bench, MIT, Sierra; mini-swe-agent, MIT);
(c) the speed bench's answers (the first answer and other answers against the same evidence, and
the answer against renumbered evidence). `--check` prints the first differing lines and exits 1.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.bench_grounding import DEFAULT_DATA, TRAJECTORIES, other_answers, speed_case
from claimwatch.grounding import Grounder, Report


def dump(report: Report) -> dict:
    """Every result of one report, evaluation time aside."""
    d = report.decision
    return {
        "score": report.grounding_score,
        "passages": report.evidence_passages,
        "chars": report.evidence_chars,
        "truncated": report.truncated,
        "decision": [
            d.decision,
            d.confidence,
            d.checks,
            list(d.issues),
            d.revision_hints,
            d.suggested_fixes,
            [[g.text, g.score, g.status, list(g.missing)] for g in d.goals],
            d.partial,
        ],
        "claims": [
            [
                c.claim.text,
                c.claim.start,
                c.claim.end,
                c.claim.kind,
                c.claim.negated,
                list(c.claim.content),
                [[s.kind, s.text, repr(s.value), s.start, s.end, s.unit] for s in c.claim.specifics],
                c.grade.grade,
                [[h.passage, h.start, h.end] for h in c.grade.evidence],
                c.grade.reason,
                c.grade.confidence,
                c.grade.issue,
            ]
            for c in report.claims
        ],
    }


def outputs(rounds: int) -> Iterator[tuple[str, dict]]:
    """(label, dump) for every output graded: pairs, replayed replies, speed answers."""
    from claimwatch.grounding.trace import passages_from_messages

    rows = [json.loads(line) for line in DEFAULT_DATA.read_text(encoding="utf-8").splitlines() if line.strip()]
    grounder = Grounder()
    for row in rows:
        yield row["id"], dump(grounder.ground(row["text"], row["evidence"]))
    grounder = Grounder()
    for line in TRAJECTORIES.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        for i, message in enumerate(row["messages"]):
            if message["role"] != "assistant" or not (message.get("content") or "").strip():
                continue
            passages, query = passages_from_messages(row["messages"][:i])
            yield f"{row['id']}#{i}", dump(grounder.ground(message["content"], passages, query))
    answer, evidence = speed_case(rows)
    grounder = Grounder()
    yield "speed/seen", dump(grounder.ground(answer, evidence))
    for k, other in enumerate(other_answers(rows, evidence, rounds)):
        yield f"speed/other/{k}", dump(grounder.ground(other, evidence))
    yield "speed/cold", dump(Grounder().ground(answer, [f"{e} 7" for e in evidence]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--write", type=Path, help="write the results of the code as it is")
    what.add_argument("--check", type=Path, help="compare the results of the code as it is with a written file")
    parser.add_argument("--rounds", type=int, default=40, help="other answers of the speed case")
    args = parser.parse_args()
    lines = [json.dumps({"id": label, **result}, sort_keys=True) for label, result in outputs(args.rounds)]
    digest = hashlib.sha256("\n".join(lines).encode()).hexdigest()[:16]
    if args.write:
        args.write.write_text("\n".join(lines) + "\n", encoding="utf-8")
        print(f"{len(lines)} outputs written to {args.write} (sha256 {digest})")
        return
    kept = args.check.read_text(encoding="utf-8").splitlines()
    differ = [(a, b) for a, b in zip(kept, lines, strict=False) if a != b]
    if len(kept) != len(lines):
        print(f"{len(lines)} outputs, {len(kept)} in {args.check}")
    for a, b in differ[:5]:
        print(f"- {a[:400]}\n+ {b[:400]}")
    print(f"{len(lines)} outputs, {len(differ)} differ (sha256 {digest})")
    sys.exit(1 if differ or len(kept) != len(lines) else 0)


if __name__ == "__main__":
    main()
