"""Draw the labelled development sample from ../shared/data/agent-text-dev (run once; kept for the record).

    python benchmarks/data/agent_text_dev/build_sample.py PATH/TO/trajectories.jsonl

Whole trajectories are drawn with a fixed seed: 45 airline conversations (all
their assistant messages) and 12 SWE-bench runs (their first 25 assistant
messages each). One trajectory in five goes to the `check` part, the rest to
`tune`; detectors are tuned on `tune` only, so `check` shows overfitting.
Messages are written to messages.jsonl with their source and position.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
PLAN = {"tau-bench/gpt-4o-airline": (45, None), "mini-swe-agent/gemini-3-pro": (12, 25)}


def main(path: str) -> None:
    by_source: dict[str, list[dict]] = {}
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        trajectory = json.loads(line)
        by_source.setdefault(trajectory["source"], []).append(trajectory)
    rng = random.Random(20261123)
    rows = []
    for source, (count, per_trajectory) in PLAN.items():
        chosen = rng.sample(sorted(by_source[source], key=lambda t: t["id"]), count)
        for n, trajectory in enumerate(chosen):
            part = "check" if n % 5 == 4 else "tune"
            kept = 0
            for index, message in enumerate(trajectory["messages"]):
                text = message.get("content") or ""
                if message["role"] != "assistant" or not text.strip():
                    continue
                if per_trajectory is not None and kept >= per_trajectory:
                    break
                kept += 1
                rows.append(
                    {
                        "id": f"{trajectory['id']}#{index}",
                        "source": source,
                        "trajectory": trajectory["id"],
                        "part": part,
                        "text": text,
                    }
                )
    with open(HERE / "messages.jsonl", "w", encoding="utf-8") as out:
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"{len(rows)} messages")


if __name__ == "__main__":
    main(sys.argv[1])
