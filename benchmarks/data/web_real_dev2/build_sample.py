"""Draw the second development set of real web-agent messages from raw files (run once; kept for the record).

    python benchmarks/data/web_real_dev2/build_sample.py RAW_DIR

RAW_DIR holds the files named in README.md ("Sources"), taken unchanged from the
public repositories at the commits given there (`git show <commit>:<path>`); no
network is used. Every text already in a set of benchmarks/data/*/messages.jsonl
is excluded (compared by code only), and so are the Agent-E tasks the web sets
already drew from. Draws, with fixed seeds
(ReAct, added last, has its own generator and comes after the others):

- Reflexion (new source): 60 self-reflections written by the agent after a
  failed WebShop episode (the first reflection of each failed environment of the
  two Reflexion runs), at most one per environment and run, no text twice.
- ReAct (new source): 40 thoughts ("think[...]" steps) of the ReAct agent's
  500 WebShop episodes printed in WebShop.ipynb, at most one per episode, only
  complete thoughts (closed by "]"), none that is also in the notebook's prompts,
  no text twice.
- Agent-E: 50 final answers ("last_statement") of its WebVoyager run, among the
  tasks the web sets did not draw.
- WebCanvas: 50 step thoughts of three result files no set has used, at most 2
  per task name, no text twice.

Texts longer than 2,000 characters are cut with the marker the development
corpus uses ("... [N more characters]").
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE.parent
SEED = 20261131
REACT_SEED = 20261132
LIMIT = 2000
REFLEXION_COUNT = 60
REACT_COUNT = 40
AGENT_E_COUNT = 50
WEBCANVAS_COUNT = 50
REFLEXION = "noahshinn/reflexion"
REACT = "ysymyth/ReAct"
AGENT_E = "EmergenceAI/Agent-E"
WEBCANVAS = "iMeanAI/WebCanvas"
REFLEXION_FILES = {
    "run1": "reflexion/reflexion_run_logs_1_trial_3.json",
    "run2": "reflexion/reflexion_run_logs_2_trial_3.json",
}
WEBCANVAS_FILES = {
    "test": "webcanvas/Dom-based_test_out.json",
    "g1-0206": "webcanvas/group1-20240206_DOM-Based-20240206_out.json",
    "g1-old": "webcanvas/group1_Dom-based_old_group1_out.json",
}


def cut(text: str) -> str:
    """Cut a long text at LIMIT characters, saying how much was left out."""
    if len(text) <= LIMIT:
        return text
    return f"{text[:LIMIT]}... [{len(text) - LIMIT} more characters]"


def existing() -> tuple[set[str], set[str]]:
    """Texts and trajectory ids of every labelled set, to keep out of this one (never printed)."""
    texts, trajectories = set(), set()
    for path in sorted(DATA.glob("*/messages.jsonl")):
        if path.parent == HERE:
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            texts.add(row["text"])
            if row.get("source") == AGENT_E:
                trajectories.add(row["trajectory"])
    return texts, trajectories


def reflexion(raw: Path, rng: random.Random, used: set[str]) -> list[tuple[str, str, str]]:
    pool, seen = [], set()
    for run, name in REFLEXION_FILES.items():
        for env in json.loads((raw / name).read_text(encoding="utf-8")):
            memory = [m for m in env["memory"] if m.strip()]
            if not memory:
                continue
            text = memory[0].strip()
            if text in seen or cut(text) in used:
                continue
            seen.add(text)
            pool.append((run, int(env["name"].split("_")[1]), text))
    drawn = sorted(rng.sample(pool, REFLEXION_COUNT))
    return [(REFLEXION, f"webshop-{run}-env_{env}", text) for run, env, text in drawn]


def react(raw: Path, rng: random.Random, used: set[str]) -> list[tuple[str, str, str]]:
    notebook = json.loads((raw / "react/WebShop.ipynb").read_text(encoding="utf-8"))
    prompts = "".join("".join(cell["source"]) for cell in notebook["cells"] if cell["cell_type"] == "code")
    episodes = "".join("".join(out.get("text", "")) for out in notebook["cells"][7]["outputs"])
    pool, seen = [], set()
    for block in episodes.split("-----------------\n")[1:]:
        number, _, log = block.partition("\n")
        thoughts = []
        for line in log.splitlines():
            if line.startswith("Action: think[") and line.endswith("]"):
                text = line[len("Action: think[") : -1].strip()
                if text and text not in seen and text not in prompts and cut(text) not in used:
                    thoughts.append(text)
        if thoughts:
            text = rng.choice(thoughts)
            seen.add(text)
            pool.append((int(number), text))
    drawn = sorted(rng.sample(pool, REACT_COUNT))
    return [(REACT, f"webshop-episode-{n}", text) for n, text in drawn]


def agent_e(raw: Path, rng: random.Random, used: set[str], used_tasks: set[str]) -> list[tuple[str, str, str]]:
    results = json.loads((raw / "agente/text_main_chat_eval_gpt4o.json").read_text(encoding="utf-8"))
    answered = [
        r
        for r in results
        if (r.get("last_statement") or "").strip()
        and f"gpt4o-task-{r['task_index']}" not in used_tasks
        and cut(r["last_statement"]) not in used
    ]
    drawn = sorted(rng.sample(answered, AGENT_E_COUNT), key=lambda r: int(r["task_index"]))
    return [(AGENT_E, f"gpt4o-task-{r['task_index']}", r["last_statement"]) for r in drawn]


def webcanvas(raw: Path, rng: random.Random, used: set[str]) -> list[tuple[str, str, str]]:
    steps = []
    for key, name in WEBCANVAS_FILES.items():
        for task in json.loads((raw / name).read_text(encoding="utf-8")):
            for step in task["step_list"]:
                thought = (step.get("trace_description") or {}).get("thought") or ""
                if thought.strip() and cut(thought) not in used:
                    steps.append((key, int(task["task_id"]), task["task_name"], step["step_index"], thought))
    rng.shuffle(steps)
    rows, per_task, seen = [], {}, set()
    for key, task_id, task_name, step_index, thought in steps:
        if len(rows) == WEBCANVAS_COUNT:
            break
        if per_task.get(task_name, 0) >= 2 or thought in seen:
            continue
        per_task[task_name] = per_task.get(task_name, 0) + 1
        seen.add(thought)
        rows.append((key, task_id, step_index, thought))
    return [(WEBCANVAS, f"{k}-task-{t}-step-{s}", text) for k, t, s, text in sorted(rows)]


def main(raw_dir: str) -> None:
    raw = Path(raw_dir)
    rng = random.Random(SEED)
    texts, agent_e_tasks = existing()
    drawn = reflexion(raw, rng, texts) + agent_e(raw, rng, texts, agent_e_tasks) + webcanvas(raw, rng, texts)
    # ReAct was added after the first 160 were labelled: its own generator, its messages last.
    drawn += react(raw, random.Random(REACT_SEED), texts)
    assert not any(cut(row[2]) in texts for row in drawn)
    with open(HERE / "messages.jsonl", "w", encoding="utf-8") as out:
        for n, (source, trajectory, text) in enumerate(drawn, start=1):
            row = {"id": f"wd2-{n}", "source": source, "trajectory": trajectory, "part": "tune", "text": cut(text)}
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"{len(drawn)} messages")


if __name__ == "__main__":
    main(sys.argv[1])
