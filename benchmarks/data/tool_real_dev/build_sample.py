"""Draw the real tool-use agent messages from the raw source files (run once; kept for the record).

    python benchmarks/data/tool_real_dev/build_sample.py RAW_DIR

RAW_DIR holds the files named in README.md ("Sources"), taken unchanged from the
public repositories at the commits given there (`git show <commit>:<path>`); no
network is used. Every file is a tau2-bench simulation result (`simulations[i].messages`).
From each file, with one fixed seed, the script draws assistant messages with text:
all of the file's messages are shuffled, then taken in that order, at most the file's
per-task cap from each task, no text twice in the whole set, until the file's quota is met.

Left out by construction: tool-call-only turns (no text) and the greeting tau2-bench's
orchestrator writes itself ("Hi! How can I help you today?"), which no model wrote.
Texts longer than 2,000 characters are cut with the marker the development corpus uses
("... [N more characters]").
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SEED = 20261129
LIMIT = 2000
GREETING = "Hi! How can I help you today?"

# (source repository, raw file under RAW_DIR, trajectory prefix, messages drawn, cap per task)
PLAN = [
    ("sierra-research/tau2-bench", "tau2/claude-sonnet-4-5_airline.json", "claude-sonnet-4-5-airline", 30, 2),
    ("sierra-research/tau2-bench", "tau2/gpt-oss-120b_airline.json", "gpt-oss-120b-airline", 27, 2),
    ("sierra-research/tau2-bench", "tau2/opus46_medical_triage.json", "claude-opus-4-6-medical_triage", 27, 2),
    ("blakeelias/tau2-bench", "blakeelias/grok-3_telecom-workflow.json", "grok-3-telecom-workflow", 30, 2),
    ("blakeelias/tau2-bench", "blakeelias/grok-3_telecom.json", "grok-3-telecom", 14, 3),
    ("blakeelias/tau2-bench", "blakeelias/grok-4_airline.json", "grok-4-airline", 12, 4),
    ("oscaralvaro/tau2-bench", "oscaralvaro/gemma-3-27b_retail_farfan.json", "gemma-3-27b-retail_farfan", 40, 2),
]


def cut(text: str) -> str:
    """Cut a long text at LIMIT characters, saying how much was left out."""
    if len(text) <= LIMIT:
        return text
    return f"{text[:LIMIT]}... [{len(text) - LIMIT} more characters]"


def candidates(path: Path) -> list[tuple[str, int, int, str]]:
    """Every assistant message with text: (task id, simulation index, message index, text)."""
    rows = []
    simulations = json.loads(path.read_text(encoding="utf-8"))["simulations"]
    for s, simulation in enumerate(simulations):
        for m, message in enumerate(simulation["messages"]):
            text = message.get("content")
            if message["role"] != "assistant" or not isinstance(text, str):
                continue
            if text.strip() and text.strip() != GREETING:
                rows.append((str(simulation["task_id"]), s, m, text))
    return rows


def draw(path: Path, quota: int, cap: int, rng: random.Random, seen: set[str]) -> list[tuple[str, int, int, str]]:
    rows = candidates(path)
    rng.shuffle(rows)
    drawn, per_task = [], {}
    for task_id, s, m, text in rows:
        if len(drawn) == quota:
            break
        if per_task.get(task_id, 0) >= cap or text in seen:
            continue
        per_task[task_id] = per_task.get(task_id, 0) + 1
        seen.add(text)
        drawn.append((task_id, s, m, text))
    return sorted(drawn, key=lambda row: (row[1], row[2]))


def main(raw_dir: str) -> None:
    raw = Path(raw_dir)
    rng = random.Random(SEED)
    seen: set[str] = set()
    n = 0
    with open(HERE / "messages.jsonl", "w", encoding="utf-8") as out:
        for source, name, prefix, quota, cap in PLAN:
            for task_id, s, m, text in draw(raw / name, quota, cap, rng, seen):
                n += 1
                trajectory = f"{prefix}/sim-{s}/task-{task_id}#{m}"
                row = {"id": f"td-{n}", "source": source, "trajectory": trajectory, "part": "tune", "text": cut(text)}
                out.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"{n} messages")


if __name__ == "__main__":
    main(sys.argv[1])
