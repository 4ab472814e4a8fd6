"""Draw the mixed blind set from the raw source files (run once; kept for the record).

    python benchmarks/data/mixed_real_blind/build_sample.py RAW_DIR

RAW_DIR holds the files named in README.md ("Sources"), taken unchanged with `git show`
/ `git cat-file` from the public repositories; no network is used. Layout:

- RAW_DIR/lavague/*.ipynb and INDEX.tsv: every LaVague notebook version whose outputs hold a
  world-model "Thoughts:" block; RAW_DIR/lavague_prompts/*: every version of the files where
  LaVague keeps its prompt examples and docs (used only to drop thoughts copied from them).
- RAW_DIR/autogen/nb/*.ipynb: the notebooks of microsoft/autogen at the commit in README.md.
- RAW_DIR/camel/*.ipynb and INDEX.tsv: the CAMEL notebook versions whose outputs hold an
  "AI Assistant:" solution.

Draws, with one fixed seed, in this order: 55 LaVague thoughts (web agent; at most two per
objective), 50 AutoGen replies from notebooks where the agent writes and runs code (coding),
15 AutoGen replies from notebooks where it calls tools or retrieves (tool use), 45 CAMEL
role-play assistant solutions from notebooks with tools (tool use). AutoGen replies are kept
only from agents backed by a model (not a UserProxyAgent, not llm_config=False, not a proxy,
executor or admin by name), and in the coding notebooks only from agents that write or run code. No text of any set under
benchmarks/data/ is drawn (texts compared, and first lines of 30 characters or more).
Texts longer than 2,000 characters are cut with the marker the other sets use.
"""

from __future__ import annotations

import json
import random
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE.parent
SEED = 20261202
LIMIT = 2000
LAVAGUE = "lavague-ai/LaVague"
AUTOGEN = "microsoft/autogen"
CAMEL = "camel-ai/camel"
LAVAGUE_DRAW = 55
AUTOGEN_CODING_DRAW = 50
AUTOGEN_TOOL_DRAW = 15
CAMEL_DRAW = 45
PER_OBJECTIVE = 2
MIN_PROSE = 40

ANSI = re.compile(r"\x1b\[[0-9;]*m")
THOUGHTS = re.compile(r"Thoughts:\n(.*?)(?=\nNext engine:)", re.S)
OBJECTIVE = re.compile(r"objective (?:is|was) to ([^\n.]+)", re.I)
AUTOGEN_HEADER = re.compile(r"^(\S+) \(to ([^)]+)\):\n", re.M)
AUTOGEN_RULE = "\n" + "-" * 80
TOOL_MARKERS = ("***** Suggested", "***** Response from calling", ">>>>>>>> EXECUTING")
CAMEL_SPLIT = re.compile(r"\n?(AI User:|AI Assistant:|AI Assistant sys message:|AI User sys message:)")
CAMEL_END = re.compile(r"\n(?:Original Query|\U0001f587 AgentOps|Function Execution:|\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)")

# Notebooks of the AutoGen commit, by what the agent does in them.
AUTOGEN_CODING = {
    "notebook/agentchat_auto_feedback_from_code_execution.ipynb",
    "notebook/agentchat_function_call_code_writing.ipynb",
    "notebook/agentchat_groupchat.ipynb",
    "notebook/agentchat_groupchat_vis.ipynb",
    "notebook/agentchat_groupchat_research.ipynb",
    "notebook/agentchat_groupchat_customized.ipynb",
    "notebook/agentchat_groupchat_stateflow.ipynb",
    "notebook/agentchat_human_feedback.ipynb",
    "notebook/agentchat_oai_assistant_groupchat.ipynb",
    "notebook/agentchat_teaching.ipynb",
    "notebook/agentchat_transform_messages.ipynb",
    "notebook/agentchat_web_info.ipynb",
    "notebook/agentchat_multi_task_chats.ipynb",
    "notebook/agentchat_multi_task_async_chats.ipynb",
    "notebook/agentchats_sequential_chats.ipynb",
    "notebook/agentchat_nested_sequential_chats.ipynb",
    "notebook/agentchat_guidance.ipynb",
    "notebook/autobuild_agent_library.ipynb",
    "notebook/autobuild_basic.ipynb",
    "website/docs/topics/code-execution/cli-code-executor.ipynb",
    "website/docs/topics/code-execution/custom-executor.ipynb",
    "website/docs/topics/code-execution/jupyter-code-executor.ipynb",
    "website/docs/topics/code-execution/user-defined-functions.ipynb",
    "website/docs/tutorial/code-executors.ipynb",
    "website/docs/topics/non-openai-models/cloud-anthropic.ipynb",
    "website/docs/topics/non-openai-models/cloud-bedrock.ipynb",
    "website/docs/topics/non-openai-models/cloud-gemini_vertexai.ipynb",
    "website/docs/topics/groupchat/resuming_groupchat.ipynb",
    "website/docs/topics/groupchat/customized_speaker_selection.ipynb",
    "website/docs/topics/task_decomposition.ipynb",
}
AUTOGEN_TOOL = {
    "notebook/agentchat_function_call.ipynb",
    "notebook/agentchat_function_call_async.ipynb",
    "notebook/agentchat_function_call_currency_calculator.ipynb",
    "notebook/agentchat_function_call_with_composio.ipynb",
    "notebook/agentchat_inception_function.ipynb",
    "notebook/agentchat_langchain.ipynb",
    "notebook/agentchat_RetrieveChat.ipynb",
    "notebook/agentchat_RetrieveChat_mongodb.ipynb",
    "notebook/agentchat_RetrieveChat_pgvector.ipynb",
    "notebook/agentchat_RetrieveChat_qdrant.ipynb",
    "notebook/agentchat_groupchat_RAG.ipynb",
    "notebook/agentchat_azr_ai_search.ipynb",
    "notebook/agentchat_webscraping_with_apify.ipynb",
    "notebook/agentchat_teachable_oai_assistants.ipynb",
    "notebook/gpt_assistant_agent_function_call.ipynb",
    "notebook/agentchat_memory_using_mem0.ipynb",
    "notebook/agentchat_nested_chats_chess_altmodels.ipynb",
    "notebook/agentchat_sql_spider.ipynb",
    "notebook/agentchat_video_transcript_translate_with_whisper.ipynb",
    "website/docs/tutorial/tool-use.ipynb",
    "website/docs/topics/prompting-and-reasoning/react.ipynb",
    "website/docs/topics/non-openai-models/cloud-cerebras.ipynb",
    "website/docs/topics/non-openai-models/cloud-cohere.ipynb",
    "website/docs/topics/non-openai-models/local-ollama.ipynb",
}
# Speakers that are people, proxies or code executors, not the model.
AUTOGEN_NOT_MODEL = re.compile(r"user|proxy|admin|executor|interpreter|terminal|boss$|commander|^chat_manager$", re.I)
# In the coding notebooks, agents that debate, market, plan or write prose and run no code.
AUTOGEN_NOT_CODING = re.compile(
    r"^(judge|openai_agent|anthropic_agent|sonnet_agent|mistral_agent|chief_marketing_officer|digital_marketer"
    r"|product_manager|writer|seo_content_writer_tech_finance|editor_finance_blogposts|bioinformatics_expert"
    r"|guidance_labeler|image-explainer|mathematician|scientist|planner|meta-expert|reviewer)$",
    re.I,
)
# CAMEL notebooks whose assistant calls tools (search, retrieval, weather, ...).
CAMEL_TOOL_NOTEBOOKS = re.compile(
    r"agents_tracking|dynamic_travel_planner|agents_with_rag|rag_cookbook|agents_with_tools"
    r"|roleplaying_scraper|product_research"
)

Row = tuple[str, str, str, str]  # source, trajectory, kind, text


def cut(text: str) -> str:
    """Cut a long text at LIMIT characters, saying how much was left out."""
    if len(text) <= LIMIT:
        return text
    return f"{text[:LIMIT]}... [{len(text) - LIMIT} more characters]"


def outputs(path: Path) -> list[tuple[int, int, str]]:
    """(cell, output, text) of every stream or text/plain output of a notebook."""
    notebook = json.loads(path.read_bytes())
    found = []
    for c, cell in enumerate(notebook.get("cells", [])):
        for o, out in enumerate(cell.get("outputs", [])):
            text = "".join(out["text"]) if "text" in out else "".join(out.get("data", {}).get("text/plain", []))
            found.append((c, o, ANSI.sub("", text)))
    return found


def index(folder: Path) -> list[list[str]]:
    """Rows of INDEX.tsv: saved name, blob, a commit holding it, path in the repository."""
    return [line.split("\t") for line in (folder / "INDEX.tsv").read_text().splitlines() if line]


def prompt_text(folder: Path) -> str:
    """All of LaVague's prompt examples and docs, as one text to search."""
    return "\n".join(path.read_text(errors="replace") for path in sorted(folder.iterdir()))


def lavague(raw: Path) -> list[Row]:
    """Distinct world-model thoughts not copied from a prompt example, first place seen."""
    known = prompt_text(raw / "lavague_prompts")
    rows, seen = [], set()
    for name, _blob, commit, path in index(raw / "lavague"):
        for c, o, text in outputs(raw / "lavague" / name):
            for k, match in enumerate(THOUGHTS.finditer(text)):
                thought = match.group(1).strip()
                first = thought.split("\n", 1)[0].lstrip("- ").strip()
                if thought in seen or (len(first) >= 30 and first in known):
                    continue
                seen.add(thought)
                rows.append((LAVAGUE, f"{commit[:12]}:{path}/cell-{c}/out-{o}#{k}", "web", thought))
    return rows


def objective(text: str) -> str:
    """The objective a thought restates, or the thought itself when it names none."""
    match = OBJECTIVE.search(text)
    return match.group(1).strip().lower() if match else text


def prose_of(body: str) -> str:
    """The reply up to its first tool-call or tool-result block, without a bare TERMINATE."""
    for marker in TOOL_MARKERS:
        body = body.split(marker, 1)[0]
    body = body.strip()
    if body.endswith("TERMINATE"):
        body = body[: -len("TERMINATE")].rstrip()
    return body


def call_arguments(source: str, start: int) -> str:
    """The text between the parenthesis opened just before `start` and the one closing it."""
    depth, i = 1, start
    while i < len(source) and depth:
        depth += {"(": 1, ")": -1}.get(source[i], 0)
        i += 1
    return source[start : i - 1]


def notebook_source(path: Path) -> str:
    """The code cells of a notebook, as one text."""
    cells = json.loads(path.read_bytes()).get("cells", [])
    return "\n".join("".join(cell.get("source", [])) for cell in cells if cell.get("cell_type") == "code")


def agents_without_model(path: Path) -> set[str]:
    """Names of the agents a notebook builds as UserProxyAgent or with llm_config=False."""
    source = notebook_source(path)
    names = set()
    for call in re.finditer(r"\b(\w*Agent)\(", source):
        arguments = call_arguments(source, call.end())
        name = re.search(r"name\s*=\s*[\"']([^\"']+)[\"']", arguments) or re.match(r"\s*[\"']([^\"']+)[\"']", arguments)
        if name and (call.group(1) == "UserProxyAgent" or re.search(r"llm_config\s*=\s*False", arguments)):
            names.add(name.group(1))
    return names


def autogen(raw: Path) -> list[Row]:
    """Distinct model replies of the chosen notebooks, with their kind.

    A reply whose first line is in the notebook's code (a task or a relayed prompt template
    the notebook wrote) is not the model's text and is dropped.
    """
    rows, seen = [], set()
    for path in sorted((raw / "autogen" / "nb").iterdir()):
        repo_path = path.name.replace("__", "/")
        kind = "coding" if repo_path in AUTOGEN_CODING else "tool_use" if repo_path in AUTOGEN_TOOL else None
        if kind is None:
            continue
        people = agents_without_model(path)
        source = notebook_source(path)
        for c, o, text in outputs(path):
            heads = list(AUTOGEN_HEADER.finditer(text))
            for k, head in enumerate(heads):
                speaker = head.group(1)
                if speaker in people or AUTOGEN_NOT_MODEL.search(speaker):
                    continue
                if kind == "coding" and (
                    AUTOGEN_NOT_CODING.match(speaker) or (speaker == "Critic" and "groupchat_vis" not in repo_path)
                ):
                    continue
                end = heads[k + 1].start() if k + 1 < len(heads) else len(text)
                body = prose_of(text[head.end() : end].split(AUTOGEN_RULE, 1)[0])
                without_code = re.sub(r"```.*?```", "", body, flags=re.S).strip()
                first = body.strip().split("\n", 1)[0].strip()
                if len(without_code) < MIN_PROSE or body in seen or (len(first) >= 15 and first in source):
                    continue
                seen.add(body)
                rows.append((AUTOGEN, f"{repo_path}/cell-{c}/out-{o}#{k}:{speaker}", kind, body))
    return rows


def camel(raw: Path) -> list[Row]:
    """Distinct "Solution:" texts of the assistant in CAMEL role-plays with tools."""
    rows, seen = [], set()
    for name, _blob, commit, path in index(raw / "camel"):
        if not CAMEL_TOOL_NOTEBOOKS.search(path):
            continue
        for c, o, text in outputs(raw / "camel" / name):
            parts = CAMEL_SPLIT.split(text)
            for k in range(1, len(parts) - 1, 2):
                if parts[k] != "AI Assistant:":
                    continue
                start = parts[k + 1].find("Solution:")
                if start < 0:
                    continue
                solution = CAMEL_END.split(parts[k + 1][start:])[0].strip()
                if len(solution) < 60 or solution in seen:
                    continue
                seen.add(solution)
                rows.append((CAMEL, f"{commit[:12]}:{path}/cell-{c}/out-{o}#{k // 2}", "tool_use", solution))
    return rows


def existing() -> tuple[set[str], set[str]]:
    """Texts and long first lines of every other set under benchmarks/data/."""
    texts, firsts = set(), set()
    for path in DATA.glob("*/messages.jsonl"):
        if path.parent == HERE:
            continue
        for line in path.read_text().splitlines():
            text = json.loads(line)["text"]
            texts.add(text)
            first = text.strip().split("\n", 1)[0].strip()
            if len(first) >= 30:
                firsts.add(first)
    return texts, firsts


def fresh(rows: list[Row], texts: set[str], firsts: set[str]) -> list[Row]:
    """Rows whose text, and whose first line, no other set holds."""
    keep = []
    for row in rows:
        first = row[3].strip().split("\n", 1)[0].strip()
        if cut(row[3]) not in texts and row[3] not in texts and first not in firsts:
            keep.append(row)
    return keep


def draw_lavague(rng: random.Random, rows: list[Row]) -> list[Row]:
    """LAVAGUE_DRAW thoughts from a shuffled list, at most PER_OBJECTIVE per objective."""
    rng.shuffle(rows)
    taken, per = [], {}
    for row in rows:
        key = objective(row[3])
        if per.get(key, 0) >= PER_OBJECTIVE:
            continue
        per[key] = per.get(key, 0) + 1
        taken.append(row)
        if len(taken) == LAVAGUE_DRAW:
            break
    return taken


def main(raw: Path) -> None:
    texts, firsts = existing()
    rng = random.Random(SEED)
    web = draw_lavague(rng, fresh(lavague(raw), texts, firsts))
    replies = fresh(autogen(raw), texts, firsts)
    coding = rng.sample([r for r in replies if r[2] == "coding"], AUTOGEN_CODING_DRAW)
    tools = rng.sample([r for r in replies if r[2] == "tool_use"], AUTOGEN_TOOL_DRAW)
    solutions = rng.sample(fresh(camel(raw), texts, firsts), CAMEL_DRAW)
    with (HERE / "messages.jsonl").open("w") as out:
        for n, (source, trajectory, kind, text) in enumerate(web + coding + tools + solutions, start=1):
            row = {
                "id": f"mb-{n}",
                "source": source,
                "trajectory": trajectory,
                "kind": kind,
                "part": "check",
                "text": cut(text),
            }
            out.write(json.dumps(row, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
