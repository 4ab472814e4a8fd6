"""Tool-call policy: detection on the labelled dev calls, decision latency, and the hook as a whole process.

    python benchmarks/bench_policy.py [--calls ../shared/data/toolcall-dev/calls.jsonl] [--hook-runs 15]

1. Detection with the builtin pack and no config: recall on risky calls (all, plain, and each
   adversarial kind), false-positive rate on benign calls.
2. In-process `decide` latency per call (p50/p90/p99 over the calls; each call's best of 3), against a
   baseline measured in the same run: `shlex.split` of the same command, the least any shell-aware
   policy has to do.
3. The pre-tool hook end to end (`python -m claimwatch.policy.hook`, Claude Code input, local state
   file), median wall and CPU of whole processes, against `python -c pass` in the same run, runs
   interleaved. Whole-process figures include the interpreter and `import claimwatch`.

The dev calls come from RedCode-Exec and NL2Bash (MIT licences; see that folder's README).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from claimwatch.policy import PolicyEngine

DEFAULT_CALLS = Path(__file__).resolve().parents[2] / "shared" / "data" / "toolcall-dev" / "calls.jsonl"
HOOK_INPUT = {"session_id": "bench", "tool_name": "Bash", "tool_input": {"command": "git status --short"},
              "tool_use_id": "toolu_1", "cwd": "/tmp", "hook_event_name": "PreToolUse"}


def detection(calls: list[dict]) -> None:
    engine = PolicyEngine()
    hits, totals, fps, benign, rules = Counter(), Counter(), 0, 0, Counter()
    for call in calls:
        d = engine.decide(call["tool"], call["arguments"])
        blocked = d.decision == "block"
        if call["label"] == "block":
            for kind in ("all", call["kind"]):
                totals[kind] += 1
                hits[kind] += blocked
            rules[d.rule] += blocked
        else:
            benign += 1
            fps += blocked
    print("detection, builtin pack, no config")
    for kind in sorted(totals, key=lambda k: (k != "all", k)):
        print(f"  recall {kind:<10} {hits[kind]:>4}/{totals[kind]:<4} = {hits[kind] / totals[kind]:.3f}")
    print(f"  false positives    {fps:>4}/{benign:<4} = {100 * fps / max(benign, 1):.2f} %")
    print("  rules that caught risky calls: " + ", ".join(f"{r} {n}" for r, n in rules.most_common() if r))


def _command_text(arguments) -> str:
    command = arguments.get("command", "")
    return command if isinstance(command, str) else shlex.join(command)


def latency(calls: list[dict]) -> None:
    engine = PolicyEngine()
    for call in calls:  # warm: plans built, regexes compiled
        engine.decide(call["tool"], call["arguments"])
    ours, base = [], []
    for call in calls:
        ours.append(_best(lambda c=call: engine.decide(c["tool"], c["arguments"])))
        text = _command_text(call["arguments"])
        base.append(_best(lambda t=text: _split(t)))
    print("in-process decision, per call best of 3 (us)")
    for name, values in (("policy decide", ours), ("baseline shlex.split", base)):
        q = statistics.quantiles(values, n=100)
        print(f"  {name:<22} p50 {q[49]:8.1f}  p90 {q[89]:8.1f}  p99 {q[98]:8.1f}  max {max(values):8.1f}")
    print(f"  ratio p50 policy/baseline {statistics.median(ours) / statistics.median(base):.2f}")


def _split(text: str) -> None:
    try:
        shlex.split(text)
    except ValueError:
        pass


def _best(fn, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter_ns()
        fn()
        best = min(best, (time.perf_counter_ns() - start) / 1000)
    return best


def hook_process(runs: int) -> None:
    state = Path(tempfile.mkdtemp()) / "state.json"
    hook = [sys.executable, "-m", "claimwatch.policy.hook", "--mode", "enforce", "--state", str(state)]
    baseline = [sys.executable, "-c", "pass"]
    payload = json.dumps(HOOK_INPUT).encode()
    walls = {"hook": [], "baseline": []}
    cpus = {"hook": [], "baseline": []}
    for i in range(runs + 1):  # the first pair warms the file cache and is not counted
        for name, argv in (("hook", hook), ("baseline", baseline)):
            wall, cpu = _process(argv, payload)
            if i:
                walls[name].append(wall)
                cpus[name].append(cpu)
    print(f"hook process end to end, {runs} runs each, interleaved (ms, median)")
    for name in ("hook", "baseline"):
        print(f"  {name:<9} wall {statistics.median(walls[name]):7.1f}  cpu {statistics.median(cpus[name]):7.1f}")
    ratios = [a / b for a, b in zip(walls["hook"], walls["baseline"], strict=True)]
    print(f"  ratio hook/python -c pass: wall {statistics.median(ratios):.2f}, "
          f"cpu {statistics.median(cpus['hook']) / statistics.median(cpus['baseline']):.2f}")


def _process(argv: list[str], stdin: bytes) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, input=stdin, capture_output=True, check=False, env=os.environ.copy())
    wall = (time.perf_counter() - start) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = ((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)) * 1000
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=Path, default=DEFAULT_CALLS)
    parser.add_argument("--hook-runs", type=int, default=15)
    args = parser.parse_args()
    calls = [json.loads(line) for line in args.calls.read_text().splitlines() if line.strip()]
    detection(calls)
    latency(calls)
    if args.hook_runs:
        hook_process(args.hook_runs)


if __name__ == "__main__":
    main()
