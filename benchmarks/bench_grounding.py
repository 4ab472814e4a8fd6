"""Benchmark: evidence grounding — balanced accuracy on grounding-dev per domain, and speed.

    python benchmarks/bench_grounding.py [--data ../shared/data/grounding-dev/pairs.jsonl] [--rounds 200]
                                         [--skip-accuracy] [--replay 50] [--per-pool 5]

Accuracy: a pair is predicted inconsistent when any claim of the summary is
graded FABRICATED; balanced accuracy = (recall on consistent + recall on
inconsistent) / 2 per domain, then averaged (the data set's README). Pairs
from SummEdits (Laban et al., 2023), Apache-2.0, Copyright Salesforce.

Speed: a 2,000-character answer against 20,000 characters of evidence (tool
results built from the same data), p50 and p99 per output, next to a naive
baseline measured in the same run (every answer word looked up in every
evidence sentence's word set). The cases, as the collector meets them:
- evidence seen before: the same output graded again against the same
  evidence (the Grounder keeps its recent evidence pools and their lookups,
  and the claims of its recent outputs);
- other outputs, same evidence: a different 2,000-character answer each round
  against the same evidence, as the LLM calls of one trace are;
- new evidence: every round a new Grounder and evidence no call has seen
  (each passage gets a round number), so nothing is cached: the cold figure;
- new answer, new evidence: as the row above, but every round also grades a
  different answer (the answers of "other outputs"), so nothing of the answer
  is met before either: the honest cold figure, which the row above, grading
  one answer every round, cannot give if anything of an answer is kept;
- N outputs, new evidence: every round new evidence and a new Grounder, then
  N different answers graded against it (--per-pool, 5 unless told), as the
  LLM calls of one trace meet its evidence: p50 and p99 per output, so the
  pool's first lookups and those it answers from what it kept are both in.
Then the check as the collector runs it, on a reply after 50 tool spans.
Compare ratios, not absolute times: these machines are shared and noisy.
`benchmarks/grounding_golden.py` shows that a speed change changes no result.

--replay N grades every assistant reply of agent-text-dev against the tool and
user messages before it and prints N seeded random FABRICATED grades to judge
by hand (tau-bench, MIT, Sierra; mini-swe-agent, MIT).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from claimwatch.grounding import FABRICATED, Grounder
from claimwatch.grounding.text import WORD

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "grounding-dev" / "pairs.jsonl"
TRAJECTORIES = Path(__file__).resolve().parents[2] / "shared" / "data" / "agent-text-dev" / "trajectories.jsonl"
# Pairs in sixteen domains outside grounding-dev, written for this project by people who never saw the grader.
WRITTEN = Path(__file__).resolve().parent / "data" / "grounding_written" / "pairs.jsonl"


def balanced_accuracy(grounder: Grounder, rows: list[dict]) -> dict[str, tuple[float, float, float, int]]:
    """Per domain: (balanced accuracy, recall consistent, recall inconsistent, pairs)."""
    outcome: dict[str, list[tuple[str, bool]]] = defaultdict(list)
    for row in rows:
        report = grounder.ground(row["text"], row["evidence"])
        predicted_bad = any(c.grade.grade == FABRICATED for c in report.claims)
        outcome[row["domain"]].append((row["label"], predicted_bad))
    result = {}
    for domain, pairs in sorted(outcome.items()):
        good = [bad for label, bad in pairs if label == "consistent"]
        bad = [bad for label, bad in pairs if label == "inconsistent"]
        r_good = 1 - sum(good) / len(good)
        r_bad = sum(bad) / len(bad)
        result[domain] = ((r_good + r_bad) / 2, r_good, r_bad, len(pairs))
    return result


def print_accuracy(scores: dict[str, tuple[float, float, float, int]]) -> None:
    print(f"{'domain':<10} {'pairs':>6} {'bal.acc':>8} {'rec.cons':>9} {'rec.incons':>11}")
    for domain, (ba, rg, rb, n) in scores.items():
        print(f"{domain:<10} {n:>6} {ba:>8.3f} {rg:>9.3f} {rb:>11.3f}")
    print(f"{'average':<10} {'':>6} {statistics.mean(s[0] for s in scores.values()):>8.3f}")


def replay(path: Path, sample: int, seed: int = 12) -> None:
    """Grade every assistant reply of the trajectories against the tool and user messages before it.

    Prints grade counts per source, checks that every FABRICATED grade cites evidence or says what is
    missing, and prints a seeded random sample of FABRICATED grades (and every flagged one) to judge
    by hand. Trajectories: tau-bench (MIT, Sierra) and mini-swe-agent (MIT), see the data README."""
    import random

    from claimwatch.grounding.trace import passages_from_messages

    grounder = Grounder()
    counts: dict[tuple[str, str | None], int] = defaultdict(int)
    fabricated, uncited, times = [], 0, []
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        source = row["source"].split("/")[0]
        for i, message in enumerate(row["messages"]):
            if message["role"] != "assistant" or not (message.get("content") or "").strip():
                continue
            passages, query = passages_from_messages(row["messages"][:i])
            start = time.perf_counter_ns()
            report = grounder.ground(message["content"], passages, query)
            times.append((time.perf_counter_ns() - start) / 1000)
            for c in report.claims:
                counts[(source, c.grade.grade)] += 1
                if c.grade.grade == FABRICATED:
                    cites = [
                        report.passages[h.passage].text[max(0, h.start - 50) : h.end + 50] for h in c.grade.evidence[:1]
                    ]
                    fabricated.append((row["id"], i, c.claim.text, c.grade.reason, round(c.grade.confidence, 2), cites))
                    if not c.grade.evidence and "no evidence" not in c.grade.reason:
                        uncited += 1
    for (source, grade), n in sorted(counts.items(), key=lambda kv: (kv[0][0], str(kv[0][1]))):
        print(f"{source:<16} {grade or 'not graded':<12} {n:>6}")
    flagged = [f for f in fabricated if f[4] >= 0.8]
    print(
        f"FABRICATED {len(fabricated)}, flagged (confidence >= 0.8) {len(flagged)}, "
        f"citing no evidence and not saying what is missing: {uncited}"
    )
    print(f"per reply: p50 {p(times, 0.5):.0f} us, p99 {p(times, 0.99):.0f} us")
    picked = random.Random(seed).sample(fabricated, min(sample, len(fabricated)))
    for tid, i, text, reason, confidence, cites in flagged + picked:
        print(
            json.dumps(
                {
                    "id": tid,
                    "message": i,
                    "confidence": confidence,
                    "claim": text[:200],
                    "reason": reason[:200],
                    "evidence": [c.replace("\n", " ") for c in cites],
                },
                ensure_ascii=False,
            )
        )


def check_speed(rounds: int) -> None:
    """The check as the collector runs it: a reply after 50 tool spans, and a reply that asserts nothing."""
    from claimwatch.checks import CheckContext, Identity
    from claimwatch.checks.grounding import GroundingConfig, _build
    from claimwatch.checks.trace import HeldTrace
    from claimwatch.core.config import ClaimwatchConfig
    from claimwatch.otel.extract import extract
    from claimwatch.otel.records import SpanRecord

    trace_id = "ab" * 16
    result = (
        '{"reservation_id": "RES%03d", "total_baggages": 1, "flights": [{"flight_number": "HAT069", "price": 121}]}'
    )
    tools = [
        SpanRecord(
            trace_id,
            f"{i:016x}",
            None,
            "execute_tool get_reservation_details",
            {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "get_reservation_details",
                "gen_ai.tool.call.arguments": f'{{"reservation_id": "RES{i:03d}"}}',
                "gen_ai.tool.call.result": result % i,
            },
            end_ns=i * 10,
        )
        for i in range(1, 51)
    ]
    check = _build(GroundingConfig(), ClaimwatchConfig())
    held = {s.span_id: s for s in tools}
    who = Identity("bench", None, None, None)
    print(f"{'check, 50 tool spans before':<34} {'p50 us':>9} {'p99 us':>9}")
    for label, text in (("3-claim reply", "Reservation RES010 has 1 checked bag. HAT069 costs $121. Node is installed."),
                        ("reply asserting nothing", "Sure, happy to help with that.")):  # fmt: skip
        messages = json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": text}]}])
        span = SpanRecord(trace_id, "f" * 16, None, "chat", {"gen_ai.output.messages": messages}, end_ns=10_000)
        trace = HeldTrace(held.get, tools)

        def once(span=span, trace=trace):
            check.run(CheckContext(span, trace, lambda _s: (who, None, "audit"), "info", extract))

        once()
        samples = timed(once, rounds)
        print(f"{label:<36} {p(samples, 0.5):>9.0f} {p(samples, 0.99):>9.0f}")


def speed_case(rows: list[dict]) -> tuple[str, list[str]]:
    """A 2,000-character answer and 20,000 characters of evidence in ten tool-result-sized passages."""
    docs = list(dict.fromkeys(r["evidence"][0] for r in rows))
    evidence: list[str] = []
    for doc in docs:
        if sum(map(len, evidence)) >= 20_000:
            break
        evidence.append(doc[:2_000])
    evidence[-1] = evidence[-1][: max(0, 20_000 - sum(map(len, evidence[:-1])))]
    answer = ""
    for row in rows:
        if row["evidence"][0] in evidence[:10] or row["evidence"][0][:2_000] in evidence:
            answer += row["text"] + "\n"
        if len(answer) >= 2_000:
            break
    return answer[:2_000], evidence


def other_answers(rows: list[dict], evidence: list[str], count: int) -> list[str]:
    """`count` different 2,000-character answers about the same evidence (summaries in seeded orders)."""
    import random

    about = [r["text"] for r in rows if r["evidence"][0][:2_000] in evidence]
    answers = []
    for k in range(count):
        picked = about[:]
        random.Random(k).shuffle(picked)
        answer = ""
        for text in picked:
            answer += text + "\n"
            if len(answer) >= 2_000:
                break
        answers.append(answer[:2_000])
    return answers


def per_pool_times(rows: list[dict], evidence: list[str], rounds: int, count: int) -> list[float]:
    """Per output: `count` different answers graded against each of `rounds` new pools (new evidence, a new
    Grounder), as a trace's LLM calls are. The answers are the same for every pool; the evidence is not."""
    answers = other_answers(rows, evidence, count)
    samples: list[float] = []
    for k in range(rounds + 1):
        grounder, fresh = Grounder(), [f"{e} pool {k}" for e in evidence]
        for answer in answers:
            start = time.perf_counter_ns()
            grounder.ground(answer, fresh)
            if k:  # the first pool warms the code, as the other rows do
                samples.append((time.perf_counter_ns() - start) / 1000)
    return samples


def naive(answer: str, evidence: list[str]) -> int:
    sentences = [set(WORD.findall(s.lower())) for e in evidence for s in e.split(". ")]
    return sum(1 for w in WORD.findall(answer.lower()) for s in sentences if w in s)


def timed(fn, rounds: int) -> list[float]:
    samples = []
    for _ in range(rounds):
        start = time.perf_counter_ns()
        fn()
        samples.append((time.perf_counter_ns() - start) / 1000)
    return samples


def p(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--skip-accuracy", action="store_true")
    parser.add_argument(
        "--replay",
        type=int,
        metavar="N",
        default=0,
        help="also replay agent-text-dev and print N random FABRICATED grades to judge by hand",
    )
    parser.add_argument(
        "--per-pool", type=int, default=5, metavar="N", help="outputs graded against each new pool (default 5)"
    )
    args = parser.parse_args()
    rows = [json.loads(line) for line in args.data.read_text(encoding="utf-8").splitlines() if line.strip()]
    grounder = Grounder()
    if not args.skip_accuracy:
        print_accuracy(balanced_accuracy(grounder, rows))
        if args.data == DEFAULT_DATA and WRITTEN.exists():
            print(f"\nnew domains ({WRITTEN.parent.name}: written blind, not tuned on before their first measure)")
            written = [json.loads(line) for line in WRITTEN.read_text(encoding="utf-8").splitlines() if line.strip()]
            print_accuracy(balanced_accuracy(Grounder(), written))
    if args.replay:
        print()
        replay(TRAJECTORIES, args.replay)
    answer, evidence = speed_case(rows)
    print(f"\nspeed: answer {len(answer)} chars, evidence {sum(map(len, evidence))} chars in {len(evidence)} passages")
    grounder = Grounder()
    grounder.ground(answer, evidence)  # warm caches once, as a running collector would be
    seen = timed(lambda: grounder.ground(answer, evidence), args.rounds)
    answers = iter(other_answers(rows, evidence, args.rounds + 1))
    grounder.ground(next(answers), evidence)
    others = timed(lambda: grounder.ground(next(answers), evidence), args.rounds)
    fresh = iter([[f"{e} {k}" for e in evidence] for k in range(args.rounds + 1)])
    Grounder().ground(answer, next(fresh))  # the code itself warm (regexes compiled, stems met)
    cold = timed(lambda: Grounder().ground(answer, next(fresh)), args.rounds)
    answers = iter(other_answers(rows, evidence, args.rounds + 1))
    fresh = iter([[f"{e} new {k}" for e in evidence] for k in range(args.rounds + 1)])
    Grounder().ground(next(answers), next(fresh))
    cold_new = timed(lambda: Grounder().ground(next(answers), next(fresh)), args.rounds)
    per_pool = per_pool_times(rows, evidence, args.rounds, args.per_pool)
    base = timed(lambda: naive(answer, evidence), args.rounds)
    print(f"{'what (full report)':<36} {'p50 us':>9} {'p99 us':>9} {'ratio p50':>10}")
    print(f"{'naive word lookup (baseline)':<36} {p(base, 0.5):>9.0f} {p(base, 0.99):>9.0f} {1.0:>10.2f}")
    for label, samples in (
        ("grounding, evidence seen before", seen),
        ("grounding, other outputs", others),
        ("grounding, new evidence", cold),
        ("grounding, new answer, new evidence", cold_new),
        (f"grounding, {args.per_pool} outputs, new evidence", per_pool),
    ):
        print(f"{label:<36} {p(samples, 0.5):>9.0f} {p(samples, 0.99):>9.0f} {p(samples, 0.5) / p(base, 0.5):>10.2f}")
    print()
    check_speed(args.rounds)


if __name__ == "__main__":
    main()
