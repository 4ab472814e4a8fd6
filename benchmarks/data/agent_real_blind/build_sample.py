"""Draw the real coding-agent messages from the raw source files (run once; kept for the record).

    python benchmarks/data/agent_real_blind/build_sample.py RAW_DIR

RAW_DIR holds the files named in README.md ("Sources"), taken unchanged from the
public repositories at the commits given there; no network is used. Draws, with
one fixed seed:

- Aider: 60 assistant replies from aider's own chat history (aider working on
  its own code, mostly Claude 3.5 Sonnet, Claude 3 Haiku and GPT-4o mini), and
  15 from the example transcripts of its website (GPT-4, 2023).
- SWE-agent: every model response of the three GPT-4 trajectories kept as test
  data, and every thought of the GPT-4 run logged in the docs.
- OpenHands: every response of the integration-test mocks in RAW_DIR (CodeAct,
  CodeAct-SWE and browsing agents), near-duplicates dropped.
- Claude Code: 40 text blocks of three Claude Code sessions that claude-transcript
  committed as markdown (the model's text between tool calls).

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
SEED = 20261129
LIMIT = 2000
AIDER = "Aider-AI/aider"
SWE_AGENT = "SWE-agent/SWE-agent"
OPENHANDS = "All-Hands-AI/OpenHands"
CLAUDE_CODE = "kiliman/claude-transcript"
CLAUDE_CODE_DRAW = 40
AIDER_HISTORY_DRAW = 60
AIDER_EXAMPLES_DRAW = 15
# Lines aider writes itself: user turns, tool output, session headers.
_NOT_ASSISTANT = re.compile(r"^(####|> |>$|# aider chat started|-\*- mode)")
_MODEL_LINE = re.compile(r"^> (?:Main model|Models?): ([\w./-]+)")
# claude-transcript's markdown: a tool call's header line, and what else is not the model's text
# (view-file links, elided diff lines, todo items, the user's blockquotes, the page header).
_CC_TOOL = re.compile(r"^\S+ \*\*(Bash|Edit|Read|TodoWrite|Write|Grep|MultiEdit|LS|Glob|WebSearch|WebFetch|Task)\b")
_CC_NOT_TEXT = re.compile(
    r"^(\(\[view file\]|\.\.\. \+\d+ lines|- \[[ x]\] |>|# \S+ Claude Code Transcript|## 🗂|🕒|Session ID:)"
)
# Replies that are pasted program output rather than the model's prose.
_PASTED = re.compile(
    r"^(Aider v|Main model|Environment Variables|Cost:|Tokens:|Commit |Applied edit|Ran \d|Traceback|FAILED)"
)
_SENTENCE_START = re.compile(r"^(?:[A-Z][a-z']+|I|A)[ ,!.:]")


Row = tuple[str, str, str]


def cut(text: str) -> str:
    """Cut a long text at LIMIT characters, saying how much was left out."""
    if len(text) <= LIMIT:
        return text
    return f"{text[:LIMIT]}... [{len(text) - LIMIT} more characters]"


def opens_with_prose(text: str) -> bool:
    """True when the reply opens with a sentence in Latin script, not code or pasted output."""
    first = text.strip().split("\n", 1)[0]
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


def aider(raw: Path, rng: random.Random) -> list[Row]:
    history = (raw / "aider" / "chat-history.md").read_text(encoding="utf-8").split("\n")
    replies, seen = [], set()
    for index, (model, text) in enumerate(aider_replies(history)):
        if opens_with_prose(text) and text not in seen:
            seen.add(text)
            replies.append((f"chat-history#{index}:{model}", text))
    rows = [(AIDER, name, text) for name, text in sorted(rng.sample(replies, AIDER_HISTORY_DRAW))]
    examples = []
    for path in sorted((raw / "aider").glob("examples__*.md")):
        body = path.read_text(encoding="utf-8")
        for chunk in re.findall(r'<div class="chat-transcript" markdown="1">(.*?)</div>', body, re.S):
            for _, text in aider_replies(chunk.split("\n")):
                if opens_with_prose(text):
                    examples.append((path.stem.removeprefix("examples__"), text))
    rows += [(AIDER, name, text) for name, text in rng.sample(examples, AIDER_EXAMPLES_DRAW)]
    return rows


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


def claude_code(raw: Path, rng: random.Random) -> list[Row]:
    replies = []
    for path in sorted((raw / "claudecode").glob("*.md")):
        session = path.stem.rsplit("_", 1)[-1]
        replies += [(session, text) for text in claude_code_replies(path.read_text(encoding="utf-8").split("\n"))]
    return [(CLAUDE_CODE, session, text) for session, text in rng.sample(replies, CLAUDE_CODE_DRAW)]


def swe_agent(raw: Path) -> list[Row]:
    rows = []
    for path in sorted((raw / "sweagent").glob("tests__test_data__*.traj")):
        run = path.stem.rsplit("__", 1)[-1]
        for step in json.loads(path.read_text(encoding="utf-8"))["trajectory"]:
            rows.append((SWE_AGENT, run, step["response"]))
    log = (raw / "sweagent" / "docs__usage__coding_challenge_output.log").read_text(encoding="utf-8")
    for thought in re.findall(r"INFO 💭 THOUGHT \(primary\)\n(.*?)\n\n\S+ \S+ INFO 🎬", log, re.S):
        rows.append((SWE_AGENT, "coding_challenge_output", thought.strip()))
    return rows


def openhands(raw: Path) -> list[Row]:
    rows, seen = [], set()
    items = json.loads((raw / "openhands" / "responses.json").read_text(encoding="utf-8"))
    for item in sorted(items, key=lambda item: item["path"]):
        prose = item["text"].split("\n")[0]
        if prose in seen:
            continue
        seen.add(prose)
        test = "/".join(item["path"].split("/")[3:5])
        rows.append((OPENHANDS, test, item["text"].strip()))
    return rows


def main(raw: Path) -> None:
    rng = random.Random(SEED)
    # Drawn in this order so that adding the Claude Code draw left the first 153 ids unchanged.
    rows = aider(raw, rng)
    claude = claude_code(raw, rng)
    rows += swe_agent(raw) + openhands(raw) + claude
    with (HERE / "messages.jsonl").open("w", encoding="utf-8") as out:
        for number, (source, trajectory, text) in enumerate(rows, 1):
            record = {
                "id": f"ab-{number}",
                "source": source,
                "trajectory": trajectory,
                "part": "check",
                "text": cut(text),
            }
            out.write(json.dumps(record, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
