"""Draw the held-out real tool-use agent messages from the raw source files (run once; kept for the record).

    python benchmarks/data/tool_real_blind/build_sample.py RAW_DIR

RAW_DIR holds the files named in README.md ("Sources"), taken unchanged from the
public repositories at the commits given there (`git show <commit>:<path>`); no
network is used. Most files are tau2-bench simulation results (`simulations[i].messages`);
one is tau-bench's retail few-shot file (one JSON object a line, `messages_display`,
the conversation as "user: ...", "assistant: ...", "tool: ..." lines).
From each file, with one fixed seed, the script draws assistant messages with text:
all of the file's messages are shuffled, then taken in that order, at most the file's
per-task cap from each task, no text twice in the whole set and no text of the
development set (../tool_real_dev/messages.jsonl), until the file's quota is met.

Left out by construction: tool-call-only turns (no text, "None" in the few-shot file),
the greeting tau2-bench's orchestrator writes itself ("Hi! How can I help you today?"),
and turns that are a JSON object (`{"message": ...}`), which are not prose.
Texts longer than 2,000 characters are cut with the marker the development corpus uses
("... [N more characters]").
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEV = HERE.parent / "tool_real_dev" / "messages.jsonl"
SEED = 20261130
LIMIT = 2000
GREETING = "Hi! How can I help you today?"
ROLES = ("user: ", "assistant: ", "tool: ")

# (source repository, raw file under RAW_DIR, trajectory prefix, messages drawn, cap per task)
PLAN = [
    ("sierra-research/tau2-bench", "tau2/gpt-4o_telecom.json", "gpt-4o-telecom", 18, 2),
    ("sierra-research/tau2-bench", "tau2/button_opus46_airline.json", "claude-opus-4-6-button-airline", 14, 1),
    ("sierra-research/tau2-bench", "tau2/ironshell_ironforge_o3_wave2.json", "o3-ironforge-airline", 12, 2),
    ("sierra-research/tau2-bench", "tau2/ironshell_ironforge_v3_deepseek.json", "deepseek-chat-ironforge-airline", 10, 3),
    ("sierra-research/tau2-bench", "tau2/ironshell_ironforge_v2_sonnet46.json", "claude-sonnet-4-6-ironforge-airline", 10, 2),
    ("blakeelias/tau2-bench", "blakeelias/grok-4-fast-reasoning_airline.json", "grok-4-fast-reasoning-airline", 14, 1),
    ("blakeelias/tau2-bench", "blakeelias/grok-3-mini_airline.json", "grok-3-mini-airline", 12, 3),
    ("blakeelias/tau2-bench", "blakeelias/grok-4_airline_tighter_policy.json", "grok-4-airline_tighter_policy", 6, 6),
    ("blakeelias/tau2-bench", "blakeelias/grok-3_airline.json", "grok-3-airline", 12, 1),
    ("sierra-research/tau-bench", "tau-bench/MockRetailDomainEnv-few_shot.jsonl", "tau-bench-fewshot-retail", 48, 1),
]


def cut(text: str) -> str:
    """Cut a long text at LIMIT characters, saying how much was left out."""
    if len(text) <= LIMIT:
        return text
    return f"{text[:LIMIT]}... [{len(text) - LIMIT} more characters]"


def wanted(text: str) -> bool:
    stripped = text.strip()
    return bool(stripped) and stripped != GREETING and stripped != "None" and not stripped.startswith("{")


def tau2_candidates(path: Path) -> list[tuple[str, int, int, str]]:
    """Every assistant message with text in a tau2-bench file: (task id, simulation, message index, text)."""
    rows = []
    simulations = json.loads(path.read_text(encoding="utf-8"))["simulations"]
    for s, simulation in enumerate(simulations):
        for m, message in enumerate(simulation["messages"]):
            text = message.get("content")
            if message["role"] == "assistant" and isinstance(text, str) and wanted(text):
                rows.append((str(simulation["task_id"]), s, m, text))
    return rows


def turns(display: str) -> list[tuple[str, str]]:
    """Split a few-shot display into (role, text) turns; a line without a role prefix continues the turn."""
    out: list[tuple[str, str]] = []
    for line in display.split("\n"):
        role = next((r for r in ROLES if line.startswith(r)), None)
        if role is None and out:
            out[-1] = (out[-1][0], out[-1][1] + "\n" + line)
        elif role is not None:
            out.append((role[:-2], line[len(role):]))
    return out


def fewshot_candidates(path: Path) -> list[tuple[str, int, int, str]]:
    """Every assistant turn with text in the few-shot file: (line, line, turn index, text)."""
    rows = []
    for s, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
        for m, (role, text) in enumerate(turns(json.loads(line)["messages_display"])):
            text = text.strip("\n")
            if role == "assistant" and wanted(text):
                rows.append((str(s), s, m, text))
    return rows


def draw(path: Path, quota: int, cap: int, rng: random.Random, seen: set[str]) -> list[tuple[str, int, int, str]]:
    rows = fewshot_candidates(path) if path.suffix == ".jsonl" else tau2_candidates(path)
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
    seen = {json.loads(line)["text"] for line in DEV.read_text(encoding="utf-8").splitlines()}
    n = 0
    with open(HERE / "messages.jsonl", "w", encoding="utf-8") as out:
        for source, name, prefix, quota, cap in PLAN:
            for task_id, s, m, text in draw(raw / name, quota, cap, rng, seen):
                n += 1
                where = f"line-{s}" if name.endswith(".jsonl") else f"sim-{s}/task-{task_id}"
                row = {"id": f"tb-{n}", "source": source, "trajectory": f"{prefix}/{where}#{m}", "part": "check", "text": cut(text)}
                out.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"{n} messages")


if __name__ == "__main__":
    main(sys.argv[1])
