"""Draw the blind set of real web-agent messages from the raw source files (run once; kept for the record).

    python benchmarks/data/web_real_blind/build_sample.py RAW_DIR

RAW_DIR holds the files named in README.md ("Sources"), taken unchanged from the
public repositories at the commits given there (`git show <commit>:<path>`); no
network is used. Nothing drawn here is in the first set: every text of
../web_real/messages.jsonl is excluded, and so are the first set's WebVoyager
trajectories, its Agent-E tasks and the WebCanvas tasks of its file. Draws, with
one fixed seed:

- WebVoyager: every assistant message of the 4 example trajectories the first
  set did not use.
- Agent-E: 70 final answers ("last_statement") of the GPT-4o text run, among
  the tasks the first set did not draw.
- WebCanvas: 70 step thoughts of the group-1 run (DOM without CSR), at most 2
  per task, among the tasks whose name is not in the first set's file
  (group_sample), no text twice.

Texts longer than 2,000 characters are cut with the marker the development
corpus uses ("... [N more characters]").
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
FIRST_SET = HERE.parent / "web_real" / "messages.jsonl"
SEED = 20261130
LIMIT = 2000
AGENT_E_COUNT = 70
WEBCANVAS_COUNT = 70
WEBVOYAGER = "MinorJerry/WebVoyager"
AGENT_E = "EmergenceAI/Agent-E"
WEBCANVAS = "iMeanAI/WebCanvas"


def cut(text: str) -> str:
    """Cut a long text at LIMIT characters, saying how much was left out."""
    if len(text) <= LIMIT:
        return text
    return f"{text[:LIMIT]}... [{len(text) - LIMIT} more characters]"


def first_set() -> tuple[set[str], set[str]]:
    """The texts and the trajectory ids of the first set, to keep out of this one."""
    texts, trajectories = set(), set()
    for line in FIRST_SET.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        texts.add(row["text"])
        trajectories.add(row["trajectory"])
    return texts, trajectories


def webvoyager(raw: Path, used: set[str]) -> list[tuple[str, str, str]]:
    rows = []
    for path in sorted((raw / "webvoyager").glob("*.json")):
        if path.stem in used:
            continue
        for message in json.loads(path.read_text(encoding="utf-8")):
            text = message.get("content")
            if message["role"] == "assistant" and isinstance(text, str) and text.strip():
                rows.append((WEBVOYAGER, path.stem, text))
    return rows


def agent_e(raw: Path, rng: random.Random, used: set[str]) -> list[tuple[str, str, str]]:
    results = json.loads((raw / "agente_text_main_chat_eval_gpt4o.json").read_text(encoding="utf-8"))
    answered = [
        r for r in results if (r.get("last_statement") or "").strip() and f"gpt4o-task-{r['task_index']}" not in used
    ]
    drawn = sorted(rng.sample(answered, AGENT_E_COUNT), key=lambda r: int(r["task_index"]))
    return [(AGENT_E, f"gpt4o-task-{r['task_index']}", r["last_statement"]) for r in drawn]


def webcanvas(raw: Path, rng: random.Random) -> list[tuple[str, str, str]]:
    first_tasks = {
        t["task_name"] for t in json.loads((raw / "webcanvas_group_sample_out.json").read_text(encoding="utf-8"))
    }
    tasks = json.loads((raw / "webcanvas_group1_domwocsr_out.json").read_text(encoding="utf-8"))
    steps = []
    for task in tasks:
        if task["task_name"] in first_tasks:
            continue
        for step in task["step_list"]:
            thought = (step.get("trace_description") or {}).get("thought") or ""
            if thought.strip():
                steps.append((int(task["task_id"]), step["step_index"], thought))
    rng.shuffle(steps)
    rows, per_task, seen = [], {}, set()
    for task_id, step_index, thought in steps:
        if len(rows) == WEBCANVAS_COUNT:
            break
        if per_task.get(task_id, 0) >= 2 or thought in seen:
            continue
        per_task[task_id] = per_task.get(task_id, 0) + 1
        seen.add(thought)
        rows.append((task_id, step_index, thought))
    return [(WEBCANVAS, f"group1-task-{t}-step-{s}", text) for t, s, text in sorted(rows)]


def main(raw_dir: str) -> None:
    raw = Path(raw_dir)
    rng = random.Random(SEED)
    texts, trajectories = first_set()
    drawn = webvoyager(raw, trajectories) + agent_e(raw, rng, trajectories) + webcanvas(raw, rng)
    drawn = [row for row in drawn if cut(row[2]) not in texts]
    with open(HERE / "messages.jsonl", "w", encoding="utf-8") as out:
        for n, (source, trajectory, text) in enumerate(drawn, start=1):
            row = {"id": f"blind-{n}", "source": source, "trajectory": trajectory, "part": "check", "text": cut(text)}
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"{len(drawn)} messages")


if __name__ == "__main__":
    main(sys.argv[1])
