"""Draw the real web-agent messages from the raw source files (run once; kept for the record).

    python benchmarks/data/web_real/build_sample.py RAW_DIR

RAW_DIR holds the files named in README.md ("Sources"), taken unchanged from the
public repositories at the commits given there (`git show <commit>:<path>`); no
network is used. Draws, with one fixed seed:

- WebVoyager: 11 of the 15 example trajectories, every assistant message.
- Agent-E: the browser-navigation agent's 13 replies in the nested chat logs
  (the planner's instructions carry text the framework appended, so they are
  left out), and 37 final answers ("last_statement") of the GPT-4o text run.
- WebCanvas: 50 step thoughts, at most 2 per task, no repeated text.

Texts longer than 2,000 characters are cut with the marker the development
corpus uses ("... [N more characters]").
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SEED = 20261129
LIMIT = 2000
WEBVOYAGER = "MinorJerry/WebVoyager"
AGENT_E = "EmergenceAI/Agent-E"
WEBCANVAS = "iMeanAI/WebCanvas"


def cut(text: str) -> str:
    """Cut a long text at LIMIT characters, saying how much was left out."""
    if len(text) <= LIMIT:
        return text
    return f"{text[:LIMIT]}... [{len(text) - LIMIT} more characters]"


def webvoyager(raw: Path, rng: random.Random) -> list[tuple[str, str, str]]:
    files = sorted((raw / "webvoyager").glob("*.json"))
    rows = []
    for path in sorted(rng.sample(files, 11)):
        messages = json.loads(path.read_text(encoding="utf-8"))
        for message in messages:
            text = message.get("content")
            if message["role"] == "assistant" and isinstance(text, str) and text.strip():
                rows.append((WEBVOYAGER, path.stem, text))
    return rows


def agent_e(raw: Path, rng: random.Random) -> list[tuple[str, str, str]]:
    rows = []
    for path in sorted(raw.glob("agente_nested_chat_log_*.json")):
        log = path.stem.removeprefix("agente_")
        for message in json.loads(path.read_text(encoding="utf-8")):
            text = message.get("content")
            # In these autogen logs the browser agent's reply to the planner has role "user".
            if message["role"] == "user" and isinstance(text, str) and text.strip():
                rows.append((AGENT_E, log, text))
    results = json.loads((raw / "agente_text_main_chat_eval_gpt4o.json").read_text(encoding="utf-8"))
    answered = [r for r in results if (r.get("last_statement") or "").strip()]
    for result in sorted(rng.sample(answered, 37), key=lambda r: r["task_index"]):
        rows.append((AGENT_E, f"gpt4o-task-{result['task_index']}", result["last_statement"]))
    return rows


def webcanvas(raw: Path, rng: random.Random) -> list[tuple[str, str, str]]:
    tasks = json.loads((raw / "webcanvas_group_sample_out.json").read_text(encoding="utf-8"))
    steps = []
    for task in tasks:
        for step in task["step_list"]:
            thought = (step.get("trace_description") or {}).get("thought") or ""
            if thought.strip():
                steps.append((task["task_id"], step["step_index"], thought))
    rng.shuffle(steps)
    rows, per_task, seen = [], {}, set()
    for task_id, step_index, thought in steps:
        if len(rows) == 50:
            break
        if per_task.get(task_id, 0) >= 2 or thought in seen:
            continue
        per_task[task_id] = per_task.get(task_id, 0) + 1
        seen.add(thought)
        rows.append((task_id, step_index, thought))
    return [(WEBCANVAS, f"group_sample-task-{t}", text) for t, _, text in sorted(rows)]


def main(raw_dir: str) -> None:
    raw = Path(raw_dir)
    rng = random.Random(SEED)
    drawn = webvoyager(raw, rng) + agent_e(raw, rng) + webcanvas(raw, rng)
    with open(HERE / "messages.jsonl", "w", encoding="utf-8") as out:
        for n, (source, trajectory, text) in enumerate(drawn, start=1):
            row = {"id": f"real-{n}", "source": source, "trajectory": trajectory, "part": "check", "text": cut(text)}
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"{len(drawn)} messages")


if __name__ == "__main__":
    main(sys.argv[1])
