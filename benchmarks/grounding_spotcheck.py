"""Spot-check companion to `bench_grounding.py --replay N`: everything needed to judge each sampled FABRICATED grade.

    python benchmarks/grounding_spotcheck.py [--sample 50] [--only K] [--window 300] [--tools 2]

Runs the bench's own `replay` (same trajectories, same seed, same sample; its
summary is printed first), recording every report the bench's Grounder
produced, then prints for each sampled FABRICATED claim: the claim, its reason
and confidence, the full assistant reply, each cited evidence passage with
`--window` characters either side, and — when the grade cites nothing — the
last `--tools` tool results the agent had seen. It also says where each
specific of the claim occurs in ANY earlier message, the agent's own messages
included (commands it ran, files it wrote), since the grader's evidence is
only tool and user messages. Nothing here grades: the grades are the bench's.
Trajectories: tau-bench (MIT, Sierra) and mini-swe-agent (MIT), see the data README.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_grounding  # the bench is a script next to this one, imported so its replay and sample are reused

# Reply text -> (report, passages) for every reply the bench graded during one replay.
REPORTS: dict[str, tuple[object, list]] = {}


class _RecordingGrounder(bench_grounding.Grounder):
    """The bench's Grounder, remembering each report by the reply text it graded."""

    def ground(self, text, passages, query=None):
        """Grade as the bench does, and keep the report for printing."""
        report = super().ground(text, passages, query)
        REPORTS[text] = (report, list(passages))
        return report


def sampled(sample: int) -> tuple[str, list[dict]]:
    """Run the bench's replay with a recording Grounder; its printed summary and its sampled grades."""
    bench_grounding.Grounder = _RecordingGrounder
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        bench_grounding.replay(bench_grounding.TRAJECTORIES, sample)
    lines = out.getvalue().splitlines()
    summary = [line for line in lines if not line.startswith("{")]
    return "\n".join(summary), [json.loads(line) for line in lines if line.startswith("{")]


def _where(needle: str, messages: list[dict]) -> list[str]:
    """Earlier messages (role[index]) whose text or tool-call arguments contain `needle`, case-insensitive."""
    found, low = [], needle.strip("`'\" $").lower()
    for j, m in enumerate(messages):
        text = (m.get("content") or "") + " ".join(c.get("arguments", "") for c in m.get("tool_calls") or [])
        if low in text.lower():
            found.append(f"{m['role']}[{j}]")
    return found


def show(k: int, pick: dict, rows: dict[str, dict], window: int, tools: int) -> None:
    """Print one sampled grade with its reply, cited passages and where its specifics occur earlier."""
    messages = rows[pick["id"]]["messages"]
    reply = messages[pick["message"]]["content"]
    report, passages = REPORTS[reply]
    graded = [
        c for c in report.fabricated if c.claim.text[:200] == pick["claim"] and c.grade.reason[:200] == pick["reason"]
    ]
    print(f"\n{'=' * 100}\n#{k + 1} {pick['id']} message {pick['message']} confidence {pick['confidence']}")
    if not graded:
        print("  (claim not found again in the recorded report)")
        return
    c = graded[0]
    print(f"CLAIM ({c.claim.kind}, issue {c.grade.issue}): {c.claim.text}")
    print(f"REASON: {c.grade.reason}")
    earlier = messages[: pick["message"]]
    for s in c.claim.specifics:
        print(f"  specific {s.kind} {s.text!r} occurs earlier in: {', '.join(_where(s.text, earlier)) or '-'}")
    print(f"REPLY ({len(reply)} chars):\n{reply}")
    for h in c.grade.evidence:
        p = report.passages[h.passage]
        print(f"CITED {p.cite} [{h.start}:{h.end}] truncated={p.truncated}:")
        before, cited, after = p.text[max(0, h.start - window) : h.start], p.text[h.start : h.end], p.text[h.end :]
        print(f"  ...{before}[[{cited}]]{after[:window]}...")
    if not c.grade.evidence:
        for p in [p for p in passages if p.source == "tool_message"][-tools:]:
            print(f"TOOL RESULT {p.cite} ({len(p.text)} chars, truncated={p.truncated}):\n{p.text}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=50, help="as the bench's --replay N")
    parser.add_argument("--only", type=int, help="print only the K-th sampled grade (1-based)")
    parser.add_argument("--window", type=int, default=300, help="characters shown either side of a citation")
    parser.add_argument("--tools", type=int, default=2, help="tool results shown when a grade cites nothing")
    args = parser.parse_args()
    summary, picks = sampled(args.sample)
    print(summary)
    rows = {}
    for line in bench_grounding.TRAJECTORIES.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        rows[row["id"]] = row
    for k, pick in enumerate(picks):
        if args.only is None or args.only == k + 1:
            show(k, pick, rows, args.window, args.tools)


if __name__ == "__main__":
    main()
