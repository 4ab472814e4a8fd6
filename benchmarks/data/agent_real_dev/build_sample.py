"""Draw the development set of real coding-agent messages from raw files (run once; kept for the record).

    python benchmarks/data/agent_real_dev/build_sample.py RAW_DIR

RAW_DIR holds the files named in README.md ("Sources"), taken unchanged from the
public repositories at the commits given there; no network is used. Any message
whose text, or whose first line, is also a message of ../agent_real_blind is left
out (the blind set stays blind: only texts are compared). Draws, with one fixed seed:

- Aider: 45 assistant replies from aider's own chat history, other than the blind set's.
- Monochromatic (Aquaticat): every assistant reply of its committed aider chat
  history that opens with prose (Gemini 2.5 Pro, Qwen3; a source not in the blind set).
- OpenHands: 50 responses of the integration-test mocks, drawn from every version
  of every mock response file in the repository's history (other runs than the
  blind set's), near-duplicates (same first line) dropped, pure action JSON skipped.
- Claude Code: 40 text blocks of the three claude-transcript sessions, other than
  the blind set's.
- mini-swe-agent: every assistant message of its test trajectory.

Texts longer than 2,000 characters are cut with the marker the development
corpus uses ("... [N more characters]").
"""

from __future__ import annotations

import json
import random
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
BLIND = HERE.parent / "agent_real_blind" / "messages.jsonl"
SEED = 20261130
LIMIT = 2000
AIDER = "Aider-AI/aider"
MONOCHROMATIC = "Aquaticat/Monochromatic"
OPENHANDS = "All-Hands-AI/OpenHands"
CLAUDE_CODE = "kiliman/claude-transcript"
MINI_SWE_AGENT = "SWE-agent/mini-swe-agent"
AIDER_DRAW = 45
OPENHANDS_DRAW = 50
CLAUDE_CODE_DRAW = 40
# Lines aider writes itself: user turns, tool output, session headers.
_NOT_ASSISTANT = re.compile(r"^(####|> |>$|# aider chat started|-\*- mode)")
_MODEL_LINE = re.compile(r"^> (?:Main model|Models?): ([\w./@:-]+)")
# Newer aider versions log the model's thinking between these tags; only the reply is kept.
_THINKING = re.compile(r"<thinking-content-[0-9a-f]+>.*?</thinking-content-[0-9a-f]+>", re.S)
# claude-transcript's markdown: a tool call's header line, and what else is not the model's text.
_CC_TOOL = re.compile(r"^\S+ \*\*(Bash|Edit|Read|TodoWrite|Write|Grep|MultiEdit|LS|Glob|WebSearch|WebFetch|Task)\b")
_CC_NOT_TEXT = re.compile(
    r"^(\(\[view file\]|\.\.\. \+\d+ lines|- \[[ x]\] |>|# \S+ Claude Code Transcript|## 🗂|🕒|Session ID:)"
)
# Replies that are pasted program output or aider's own messages rather than the model's prose.
_PASTED = re.compile(
    r"^(Aider v|Main model|Environment Variables|Cost:|Tokens:|Commit |Applied edit|Ran \d|Traceback|FAILED|## Search)"
)
_SENTENCE_START = re.compile(r"^(?:[A-Z][a-z']+|I|A)[ ,!.:]")

Row = tuple[str, str, str]


def cut(text: str) -> str:
    """Cut a long text at LIMIT characters, saying how much was left out."""
    if len(text) <= LIMIT:
        return text
    return f"{text[:LIMIT]}... [{len(text) - LIMIT} more characters]"


def first_line(text: str) -> str:
    return text.strip().split("\n", 1)[0].strip()


class Blind:
    """The blind set's texts and first lines, to leave out (compared, never shown)."""

    def __init__(self, path: Path) -> None:
        texts = [json.loads(line)["text"] for line in path.read_text(encoding="utf-8").splitlines() if line]
        self.texts = {text.strip() for text in texts}
        self.firsts = {first_line(text) for text in texts if len(first_line(text)) >= 30}

    def has(self, text: str) -> bool:
        return text.strip() in self.texts or cut(text.strip()) in self.texts or first_line(text) in self.firsts


def opens_with_prose(text: str) -> bool:
    """True when the reply opens with a sentence in Latin script, not code or pasted output."""
    first = first_line(text)
    if _PASTED.match(first) or first.startswith(("```", "<<<<<<<", "    ")):
        return False
    if len(first.split()) < 4 or not _SENTENCE_START.match(first):
        return False
    letters = [c for c in text if c.isalpha()]
    return sum(c.isascii() for c in letters) >= 0.95 * len(letters)


def aider_replies(lines: list[str]) -> list[tuple[str, str]]:
    """Split an aider chat log into (model, assistant reply) pairs."""
    replies, block, model = [], [], "unknown"

    def flush() -> None:
        text = "\n".join(block).strip()
        if text:
            replies.append((model, text))
        block.clear()

    for line in lines:
        found = _MODEL_LINE.match(line)
        if found:
            model = found.group(1)
        if _NOT_ASSISTANT.match(line):
            flush()
        else:
            block.append(line)
    flush()
    return replies


def prose_replies(path: Path, blind: Blind, name: str) -> list[tuple[str, str]]:
    text = _THINKING.sub("", path.read_text(encoding="utf-8"))
    replies, seen = [], set()
    for index, (model, reply) in enumerate(aider_replies(text.split("\n"))):
        if opens_with_prose(reply) and reply not in seen and not blind.has(reply):
            seen.add(reply)
            replies.append((f"{name}#{index}:{model}", reply))
    return replies


def aider(raw: Path, rng: random.Random, blind: Blind) -> list[Row]:
    replies = prose_replies(raw / "aider" / "chat-history.md", blind, "chat-history")
    return [(AIDER, name, text) for name, text in sorted(rng.sample(replies, AIDER_DRAW))]


def monochromatic(raw: Path, blind: Blind) -> list[Row]:
    replies = prose_replies(raw / "monochromatic" / "aider-chat-history.md", blind, "aider-chat-history")
    return [(MONOCHROMATIC, name, text) for name, text in replies]


def openhands(raw: Path, rng: random.Random, blind: Blind) -> list[Row]:
    items = json.loads((raw / "openhands" / "responses.json").read_text(encoding="utf-8"))
    candidates, seen = [], set()
    for item in sorted(items, key=lambda item: (item["path"], item["commit"])):
        text = item["text"].strip()
        first = first_line(text)
        # Pure action JSON (MonologueAgent, PlannerAgent, ...) has no prose to label.
        if not text or text.startswith(("{", '"')) or first in seen or blind.has(text):
            continue
        seen.add(first)
        test = "/".join(item["path"].split("/")[3:6]).rsplit(".", 1)[0]
        candidates.append((f"{test}@{item['commit'][:8]}", text))
    return [(OPENHANDS, name, text) for name, text in sorted(rng.sample(candidates, OPENHANDS_DRAW))]


def claude_code_replies(lines: list[str]) -> list[str]:
    """The model's text blocks of a claude-transcript page, split at every tool call and user turn.

    A fence right after a tool header is the tool's input or output; a fence inside the
    model's text stays with the text.
    """
    replies, block = [], []
    in_fence, fence_is_text, last_was_tool = False, False, True

    def flush() -> None:
        text = "\n".join(block).strip()
        if text:
            replies.append(text)
        block.clear()

    for line in lines:
        if in_fence:
            if fence_is_text:
                block.append(line)
            in_fence = not line.startswith("```")
        elif line.startswith("```"):
            in_fence, fence_is_text = True, not last_was_tool
            if fence_is_text:
                block.append(line)
        elif _CC_TOOL.match(line) or _CC_NOT_TEXT.match(line):
            flush()
            last_was_tool = True
        else:
            block.append(line)
            last_was_tool = last_was_tool and not line.strip()
    flush()
    return replies


def claude_code(raw: Path, rng: random.Random, blind: Blind) -> list[Row]:
    replies = []
    for path in sorted((raw / "claudecode").glob("*.md")):
        session = path.stem.rsplit("_", 1)[-1]
        for text in claude_code_replies(path.read_text(encoding="utf-8").split("\n")):
            if not blind.has(text):
                replies.append((session, text))
    return [(CLAUDE_CODE, session, text) for session, text in rng.sample(replies, CLAUDE_CODE_DRAW)]


def mini_swe_agent(raw: Path, blind: Blind) -> list[Row]:
    messages = json.loads((raw / "minisweagent" / "github_issue.traj.json").read_text(encoding="utf-8"))
    return [
        (MINI_SWE_AGENT, "github_issue", message["content"].strip())
        for message in messages
        if message["role"] == "assistant" and not blind.has(message["content"])
    ]


def main(raw: Path) -> None:
    rng = random.Random(SEED)
    blind = Blind(BLIND)
    rows = aider(raw, rng, blind) + monochromatic(raw, blind)
    rows += openhands(raw, rng, blind) + claude_code(raw, rng, blind) + mini_swe_agent(raw, blind)
    with (HERE / "messages.jsonl").open("w", encoding="utf-8") as out:
        for number, (source, trajectory, text) in enumerate(rows, 1):
            record = {
                "id": f"ad-{number}",
                "source": source,
                "trajectory": trajectory,
                "part": "tune",
                "text": cut(text),
            }
            out.write(json.dumps(record, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
