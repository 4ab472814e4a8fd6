"""Draw the second development set of real tool-use agent messages from raw files (run once; kept for the record).

    python benchmarks/data/tool_real_dev2/build_sample.py RAW_DIR

RAW_DIR holds the files named in README.md ("Raw files"), taken unchanged with
`git show <commit>:<path>` from the public repositories at the commits given there;
no network is used. Two kinds of file:

- LangGraph's customer-support tutorial notebook (`langgraph/*.ipynb`): the agent's turns
  are printed in the cells' outputs under "=== Ai Message ===" headers (with terminal
  colour codes). A turn's text is what precedes "Tool Calls:"; Claude turns that carry a
  tool call are printed as a Python list of content blocks (`[{'text': ..., 'type':
  'text'}, {... 'tool_use' ...}]`), whose text blocks are joined.
- ToolBench / StableToolBench answer files (`toolbench/*.json`, `stabletoolbench/*.json`):
  a DFS (or CoT) search tree of one query. The model's texts are the "Thought" nodes
  (`description`) and the `final_answer` of its `Finish` calls (the reply to the user).

From each group of files, with one fixed seed, every text is listed, the list is shuffled,
and texts are taken in that order, at most a cap per task (one cell of the notebook, one
query of ToolBench), no text twice in the whole set and no text of any
other set under benchmarks/data/ (compared by exact text, through SHA-256 digests, so
the blind sets' texts are never printed or read), until the group's quota is met.
Texts longer than 2,000 characters are cut with the marker of the development corpus
("... [N more characters]").
"""

from __future__ import annotations

import ast
import hashlib
import json
import random
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SEED = 20261201
LIMIT = 2000
ANSI = re.compile(r"\x1b\[[0-9;]*m")
PRINTED_STATE = re.compile(r"\nCurrently in: [^\n]*$")  # printed by the notebook's code, not the model
HEADER = re.compile(r"^=+ (Ai|Human|Tool|System) Message =+\n(?:Name: [^\n]*\n)?", re.M)

# (source repository, glob under RAW_DIR, trajectory prefix, messages drawn, cap per task)
PLAN = [
    (
        "langchain-ai/langgraph",
        "langgraph/customer-support_2025-10-02.ipynb",
        "claude-3-sonnet-customer-support-2025",
        42,
        12,
    ),
    (
        "langchain-ai/langgraph",
        "langgraph/customer-support_2024-05-07.ipynb",
        "claude-3-sonnet-customer-support-2024",
        34,
        12,
    ),
    ("OpenBMB/ToolBench", "toolbench/*.json", "chatgpt-dfs-toolbench", 65, 6),
    ("THUNLP-MT/StableToolBench", "stabletoolbench/*.json", "chatgpt-virtual-stabletoolbench", 12, 6),
]


def cut(text: str) -> str:
    if len(text) <= LIMIT:
        return text
    return f"{text[:LIMIT]}... [{len(text) - LIMIT} more characters]"


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


FIRST_TEXT = re.compile(r"""\[\{'text': ('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")""")


def block_text(printed: str) -> str:
    """The text blocks of a printed list of content blocks; only the first one when the print was truncated."""
    try:
        blocks = ast.literal_eval(printed)
    except SyntaxError:
        match = FIRST_TEXT.match(printed)
        return ast.literal_eval(match.group(1)) if match else ""
    return "\n".join(b["text"] for b in blocks if isinstance(b, dict) and b.get("type") == "text")


def notebook_candidates(path: Path) -> list[tuple[str, str, str]]:
    """(task, place, text) for every agent turn with text in the notebook's outputs."""
    rows = []
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    for c, cell in enumerate(cells):
        for o, output in enumerate(cell.get("outputs", [])):
            if "text" not in output:
                continue
            printed = ANSI.sub("", "".join(output["text"]))
            marks = list(HEADER.finditer(printed))
            for k, mark in enumerate(marks):
                if mark.group(1) != "Ai":
                    continue
                end = marks[k + 1].start() if k + 1 < len(marks) else len(printed)
                body = printed[mark.end() : end]
                body = "" if body.startswith("Tool Calls:") else body.split("\nTool Calls:")[0]
                body = body.strip("\n")
                if body.startswith("[{"):
                    body = block_text(body.strip())
                body = PRINTED_STATE.sub("", body.strip())
                if body.strip():
                    rows.append((f"cell-{c}", f"cell-{c}/out-{o}#{k}", body.strip()))
    return rows


def tree_candidates(path: Path) -> list[tuple[str, str, str]]:
    """(task, place, text) for every Thought node and every Finish final answer of a search tree (DFS) or chain (CoT)."""
    rows = []
    task = path.stem

    def walk(node: object, place: str) -> None:
        if isinstance(node, list):
            for i, child in enumerate(node):
                walk(child, f"{place}.{i}")
            return
        if not isinstance(node, dict):
            return
        kind, text = node.get("node_type"), node.get("description")
        if kind == "Thought" and isinstance(text, str) and text.strip():
            rows.append((task, f"{task}/{place}", text.strip()))
        if kind == "Action Input" and isinstance(text, str) and "final_answer" in text:
            try:
                answer = json.loads(text).get("final_answer", "")
            except json.JSONDecodeError:
                answer = ""
            if isinstance(answer, str) and answer.strip():
                rows.append((task, f"{task}/{place}:final", answer.strip()))
        for key in ("children", "chain"):
            if key in node:
                walk(node[key], place)

    data = json.loads(path.read_text(encoding="utf-8"))
    if "tree" in data:
        walk(data["tree"]["tree"], "tree")
    else:
        walk(data["trys"], "trys")
    return rows


def main(raw_dir: str) -> None:
    raw = Path(raw_dir)
    rng = random.Random(SEED)
    seen: set[str] = set()
    for other in sorted(HERE.parent.glob("*/messages.jsonl")):
        if other.parent != HERE:
            seen |= {digest(json.loads(line)["text"]) for line in other.read_text(encoding="utf-8").splitlines()}
    n = 0
    with open(HERE / "messages.jsonl", "w", encoding="utf-8") as out:
        for source, pattern, prefix, quota, cap in PLAN:
            rows = []
            for path in sorted(raw.glob(pattern)):
                rows += notebook_candidates(path) if path.suffix == ".ipynb" else tree_candidates(path)
            rng.shuffle(rows)
            drawn, per_task = [], {}
            for task, place, text in rows:
                if len(drawn) == quota:
                    break
                key = digest(text)
                if per_task.get(task, 0) >= cap or key in seen or digest(cut(text)) in seen:
                    continue
                per_task[task] = per_task.get(task, 0) + 1
                seen.add(key)
                drawn.append((place, text))
            if len(drawn) < quota:
                print(f"{prefix}: only {len(drawn)} of {quota}")
            for place, text in sorted(
                drawn, key=lambda row: [int(x) if x.isdigit() else x for x in re.split(r"(\d+)", row[0])]
            ):
                n += 1
                row = {
                    "id": f"td2-{n}",
                    "source": source,
                    "trajectory": f"{prefix}/{place}",
                    "part": "tune",
                    "text": cut(text),
                }
                out.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"{n} messages")


if __name__ == "__main__":
    main(sys.argv[1])
