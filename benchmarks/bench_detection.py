"""Detection quality on the labelled development corpus: precision and recall per category.

    python benchmarks/bench_detection.py [--part tune|check|all] [--show misses|false|both]
                                         [--corpus NAME]   (one of CORPORA below; agent_text_dev unless told)

Scoring follows issue 10: one detection to one labelled claim, the category
must agree, and "X was not found / is present / is missing / is available"
counts as system state or existence alike (when the label's span or the
detection's own words say so; not for every existence detection). A detection matches a label when
their spans overlap; each label and each detection is used at most once
(largest overlap first). Figures are printed for the `tune` part (detectors
were tuned on it), the `check` part (other trajectories, only measured) and
both, per category and per source, plus recall without pronoun-subject
claims ("it fails"), which detection reports unchecked, at low confidence.

The corpus and its labelling guide are in benchmarks/data/agent_text_dev/.
`--corpus web_ui_written` scores the written web and computer-use agent messages of
benchmarks/data/web_ui_written/ instead (same guide, same scoring; its README says how
each set was written and what it measured when it was first seen). `--corpus web_real` scores
real messages of web agents from public repositories (benchmarks/data/web_real/: all `check`);
`--corpus web_real_blind` a second such set, kept for blind measures (benchmarks/data/web_real_blind/);
`--corpus agent_real_blind` real coding-agent messages of other agents than the development corpus's
(aider, SWE-agent, OpenHands, Claude Code), also kept blind (benchmarks/data/agent_real_blind/);
`--corpus agent_real_dev` other messages of those agents and two more, to tune on (all `tune`;
benchmarks/data/agent_real_dev/); `--corpus tool_real_dev` tool-using customer-service agents of
tau2-bench runs (other models and domains than the development corpus's airline), also to tune on;
`--corpus tool_real_blind` other messages of such agents (tau2-bench and tau-bench), kept blind.
Three more sets to tune on, each first measured as never-seen text (their READMEs): `agent_real_dev2`
(coding agents: Moatless Tools and tree search, aider, OpenHands, Claude Code), `web_real_dev2` (web agents:
Reflexion and ReAct on WebShop, Agent-E, WebCanvas) and `tool_real_dev2` (tool-using agents outside
tau-bench: a LangGraph customer-support agent, ToolBench and StableToolBench answer trees).
`--corpus mixed_real_blind`: web, coding and tool-using agents of three sources no other set uses (LaVague,
AutoGen, CAMEL), labelled after the eleventh session's rounds and kept blind.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from claimwatch.core.model import CLAIM_CATEGORIES
from claimwatch.core.validator import OutputValidator

CORPORA = (
    "agent_text_dev", "web_ui_written", "web_real", "web_real_blind", "agent_real_blind", "agent_real_dev", "tool_real_dev",
    "tool_real_blind", "agent_real_dev2", "web_real_dev2", "tool_real_dev2", "mixed_real_blind",
)
DATA = Path(__file__).resolve().parent / "data" / CORPORA[0]
# Predicates that may be read as system state or existence alike.
# Also what is shown, listed or empty: "the panel shows a Save button" and "the cart is empty" say what
# is there as much as what state the page is in (GUIDE.md names "a Save button is shown" system state
# and "present in" existence).
_EITHER = re.compile(
    r"\b(?:found|find|locat\w*|present|missing|absent|available|exists?|defined|installed"
    r"|visible|shown|show|shows|showing|lists?|listed|displays?|displayed|appears?|empty|blank)\b",
    re.I,
)
_STATE_OR_EXISTENCE = {"system_state", "existence"}


@dataclass(frozen=True)
class Label:
    message: str
    category: str
    negative: bool
    hedged: bool
    pronoun: bool
    start: int
    end: int
    text: str


def load(part: str) -> tuple[dict[str, dict], list[Label]]:
    """Messages of `part` by id, and their labels (offsets found from the span text)."""
    messages = {}
    for line in (DATA / "messages.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if part == "all" or row["part"] == part:
            messages[row["id"]] = row
    labels: list[Label] = []
    current = None
    used: Counter = Counter()
    for number, line in enumerate((DATA / "labels.txt").read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        if line.startswith("@"):
            current = line[1:].strip()
            continue
        head, span = line.split(" | ", 1)
        words = head.split()
        if words[0] not in CLAIM_CATEGORIES:
            raise SystemExit(f"labels.txt:{number}: unknown category {words[0]!r}")
        if current not in messages:
            continue
        text = messages[current]["text"]
        # The n-th label with the same span text in a message points at its n-th occurrence.
        start = -1
        for _ in range(used[(current, span)] + 1):
            start = text.find(span, start + 1)
        if start < 0:
            raise SystemExit(f"labels.txt:{number}: span {span!r} not in message {current}")
        used[(current, span)] += 1
        labels.append(
            Label(
                current, words[0], words[1] == "-", "h" in words[2:], "p" in words[2:], start, start + len(span), span
            )
        )
    return messages, labels


def agrees(label: Label, claim) -> bool:
    if label.category == claim.category:
        return True
    both = {label.category, claim.category} <= _STATE_OR_EXISTENCE
    return both and bool(_EITHER.search(label.text) or _EITHER.search(claim.matched_text))


def match(labels: list[Label], claims: list) -> tuple[list[tuple[Label, object]], list[Label], list]:
    """One-to-one matching by largest overlap: (pairs, missed labels, unmatched claims)."""
    candidates = []
    for i, label in enumerate(labels):
        for j, claim in enumerate(claims):
            c_start, c_end = claim.offset, claim.offset + len(claim.matched_text)
            overlap = min(label.end, c_end) - max(label.start, c_start)
            if overlap > 0 and agrees(label, claim):
                candidates.append((overlap, i, j))
    candidates.sort(reverse=True)
    used_l, used_c, pairs = set(), set(), []
    for _, i, j in candidates:
        if i not in used_l and j not in used_c:
            used_l.add(i)
            used_c.add(j)
            pairs.append((labels[i], claims[j]))
    missed = [label for i, label in enumerate(labels) if i not in used_l]
    extra = [claim for j, claim in enumerate(claims) if j not in used_c]
    return pairs, missed, extra


def score(validator: OutputValidator, messages: dict, labels: list[Label]):
    by_message: dict[str, list[Label]] = {}
    for label in labels:
        by_message.setdefault(label.message, []).append(label)
    results = []
    for mid, row in messages.items():
        claims = validator.detect(row["text"])
        pairs, missed, extra = match(by_message.get(mid, []), claims)
        results.append((row, pairs, missed, extra))
    return results


def _ratio(a: int, b: int) -> str:
    return f"{a / b:.2f}" if b else "  - "


def report(title: str, results) -> None:
    tp, fn, fp = Counter(), Counter(), Counter()
    fn_named = Counter()
    polarity_ok = 0
    for _row, pairs, missed, extra in results:
        for label, claim in pairs:
            tp[label.category] += 1
            fp[claim.category] += 0
            polarity_ok += label.negative == claim.negative
        for label in missed:
            fn[label.category] += 1
            if not label.pronoun:
                fn_named[label.category] += 1
        for claim in extra:
            fp[claim.category] += 1
    # Precision is counted by detected category, recall by labelled category.
    detected = Counter()
    for _row, pairs, _missed, extra in results:
        for _label, claim in pairs:
            detected[claim.category] += 1
        for claim in extra:
            detected[claim.category] += 1
    correct_by_detected = Counter(claim.category for _r, pairs, _m, _e in results for _l, claim in pairs)
    print(f"\n{title}")
    print(f"  {'category':<20} {'labels':>6} {'found':>6} {'recall':>7} {'detections':>10} {'precision':>9}")
    for category in CLAIM_CATEGORIES:
        labelled = tp[category] + fn[category]
        print(
            f"  {category:<20} {labelled:>6} {tp[category]:>6} {_ratio(tp[category], labelled):>7}"
            f" {detected[category]:>10} {_ratio(correct_by_detected[category], detected[category]):>9}"
        )
    total_l = sum(tp.values()) + sum(fn.values())
    total_tp = sum(tp.values())
    total_d = sum(detected.values())
    named = total_l - sum(1 for _r, _p, missed, _e in results for m in missed if m.pronoun)
    named -= sum(1 for _r, pairs, _m, _e in results for label, _c in pairs if label.pronoun)
    named_tp = total_tp - sum(1 for _r, pairs, _m, _e in results for label, _c in pairs if label.pronoun)
    print(
        f"  {'all':<20} {total_l:>6} {total_tp:>6} {_ratio(total_tp, total_l):>7} {total_d:>10}"
        f" {_ratio(total_tp, total_d):>9}"
    )
    print(
        f"  recall without pronoun-subject claims: {_ratio(named_tp, named)} ({named_tp}/{named});"
        f" polarity agrees on {polarity_ok}/{total_tp} matches"
    )


def show(results, what: str) -> None:
    for row, _pairs, missed, extra in results:
        if what in ("misses", "both"):
            for label in missed:
                print(f"MISS {row['id']} [{label.category}{' p' if label.pronoun else ''}] {label.text!r}")
        if what in ("false", "both"):
            for claim in extra:
                print(f"FP   {row['id']} [{claim.category} {claim.detector_id}] {claim.matched_text!r}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--part", choices=("tune", "check", "all"), help="only this part (default: each)")
    parser.add_argument("--show", choices=("misses", "false", "both"), help="list misses and/or false detections")
    parser.add_argument("--corpus", choices=CORPORA, default=CORPORA[0], help="which labelled corpus (default: %(default)s)")
    args = parser.parse_args()
    global DATA
    DATA = DATA.parent / args.corpus
    started = time.perf_counter()
    validator = OutputValidator()
    parts = [args.part] if args.part else ["tune", "check", "all"]
    for part in parts:
        messages, labels = load(part)
        if not messages:
            # The web corpus has no check part between a blind set being opened and the next one landing.
            print(f"\npart {part}: no messages")
            continue
        results = score(validator, messages, labels)
        report(f"part {part}: {len(messages)} messages, {len(labels)} labelled claims", results)
        if part == "all" and not args.part:
            for source in sorted({r["source"] for r in messages.values()}):
                report(f"  source {source}", [r for r in results if r[0]["source"] == source])
        if args.show:
            show(results, args.show)
    print(f"\n({time.perf_counter() - started:.1f} s)")


if __name__ == "__main__":
    main()
