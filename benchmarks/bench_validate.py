"""Benchmark: whole `validate()` vs a naive per-pattern `re.finditer` baseline, in one run.

    python benchmarks/bench_validate.py [--count 200] [--rounds 5] [--against CHECKOUT] [--core CHECKOUT] [--real]

Prints medians and p99 in microseconds per output and the ratio to the
baseline. Figures are for orientation: these machines are shared and noisy,
so compare ratios measured in the same run, not absolute times across runs.

`--against` also loads the validation core of another checkout (for example a
`git worktree` of an older commit) and times it in the same run, each output
validated by both in turn, so a before/after comparison sees the same load:
it prints both, the ratio, validator construction times, and how many outputs
get different claims or verdicts (with `--real`, also each one's first read of
the texts, interleaved in the same way).

`--core` times another checkout's core (instead of this one's) against the naive
baseline: the before figures of a change, measured the same way as the after ones.

`--real` measures on real agent messages (the labelled corpora of benchmarks/data,
cut into windows of 2,000 and 10,000 characters) instead of the generated outputs,
and reports the first pass on its own: the generated outputs repeat a small
vocabulary, so RE2's lazily built automata are all built after a few outputs, while
every real output is text the process has not seen (the first pass is what an agent
in production meets; later rounds read the same text again).
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import re
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.corpus import corpus, hundred_facts
from claimwatch import OutputValidator
from claimwatch.core.detectors import builtin_detectors

# RE2/Unicode classes spelled for Python's `re`, close enough for a cost baseline.
_TO_RE = [
    (r"[\p{L}\p{N}_]", r"\w"),
    (r"\p{L}\p{N}_", r"\w"),
    (r"\p{L}\p{M}", r"\w"),
    (r"\p{N}", r"\d"),
    (r"\p{Lu}", "A-ZÀ-Ý"),
    (r"\p{Ll}", "a-zß-ÿ"),
    (r"\p{L}", r"\w"),
]


_REAL = ("agent_text_dev", "web_ui_written", "web_real", "agent_real_dev", "tool_real_dev")


def real_corpus(size: int, count: int) -> list[str]:
    """`count` windows of about `size` characters of real agent messages, each message used once, in a fixed
    shuffled order (so a window mixes agents and the 2,000- and 10,000-character windows share no text)."""
    import json
    import random

    data = Path(__file__).resolve().parent / "data"
    messages = [json.loads(line)["text"] for name in _REAL for line in (data / name / "messages.jsonl").open(encoding="utf-8")]
    random.Random(size).shuffle(messages)
    texts, window = [], ""
    for message in messages:
        window = f"{window}\n\n{message}" if window else message
        if len(window) >= size:
            texts.append(window[:size])
            window = ""
            if len(texts) == count:
                break
    return texts


def naive_patterns() -> list[re.Pattern]:
    """Every builtin pattern compiled for `re`, to be run one after another."""
    compiled = []
    for spec in builtin_detectors():
        for source in spec.patterns:
            for old, new in _TO_RE:
                source = source.replace(old, new)
            source = source.replace("A-ZÀ-Ý[", "[A-ZÀ-Ý").replace("a-zß-ÿ]", "[a-zß-ÿ]]")
            source = re.sub(r"(?<!\[)A-ZÀ-Ý(?![^\[]*\])", "[A-ZÀ-Ý]", source)
            source = re.sub(r"(?<!\[)a-zß-ÿ(?![^\[]*\])", "[a-zß-ÿ]", source)
            compiled.append(re.compile(source, 0 if not spec.case_insensitive else re.IGNORECASE))
    return compiled


def naive(patterns: list[re.Pattern], text: str) -> int:
    return sum(1 for p in patterns for _ in p.finditer(text))


def measure(fn, texts: list[str], rounds: int) -> list[float]:
    samples = []
    for _ in range(rounds):
        for text in texts:
            start = time.perf_counter_ns()
            fn(text)
            samples.append((time.perf_counter_ns() - start) / 1000)
    return samples


def summary(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[int(len(ordered) * 0.99) - 1]


def other_validator_class(checkout: Path):
    """`OutputValidator` of another checkout's core, imported under its own package name."""
    root = checkout / "processors"
    if not (root / "core" / "validator.py").is_file():
        raise SystemExit(f"--against: no processors/core/validator.py under {checkout}")
    name = "claimwatch_against"
    spec = importlib.util.spec_from_file_location(name, root / "__init__.py", submodule_search_locations=[str(root)])
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return importlib.import_module(f"{name}.core.validator").OutputValidator


def _claims_key(result) -> tuple:
    claims = tuple(
        (c.detector_id, c.offset, c.matched_text, c.subject, c.assertion, c.confidence) for c in result.claims
    )
    return result.verdict, result.bailed_out, claims


def _fastest_per_output(samples: list[float], count: int) -> float:
    """Median over outputs of each output's fastest round (samples are round after round)."""
    return statistics.median(min(samples[i::count]) for i in range(count))


def compare(other_cls, count: int, rounds: int, make=corpus, first: bool = False) -> None:
    """Both validators on the same outputs, interleaved: medians, p99, ratio, construction.

    Which of the two runs first alternates from output to output and round to round: the
    second to read a text finds it in the CPU's caches (an A/A run of one checkout against
    itself showed the second ~10 % faster when the order was fixed). Construction is timed
    twice each, in the order A B B A.
    """
    built: dict[str, list[float]] = {"other": [], "ours": []}
    validators = {}
    for name in ("other", "ours", "ours", "other"):
        started = time.perf_counter()
        validators[name] = (other_cls if name == "other" else OutputValidator)(hundred_facts())
        built[name].append(time.perf_counter() - started)
    other, ours = validators["other"], validators["ours"]
    print(
        "validator construction, s (built in the order --against, this, this, --against; a first build also pays"
        f" one-time imports): --against {built['other'][0]:.2f} / {built['other'][1]:.2f},"
        f" this checkout {built['ours'][0]:.2f} / {built['ours'][1]:.2f}"
    )
    print(f"{'size':>6} {'what':<26} {'median us':>10} {'p99 us':>10} {'ratio':>7}")
    for size in (2000, 10000):
        texts = make(size, count)
        # The first pass compares claims, timed: with --real it is each checkout's first read of the texts.
        first_a, first_b = [], []
        differ = 0
        gc.disable()  # a collection would land in one side's sample only
        try:
            for i, text in enumerate(texts):
                pair = ((other, first_a), (ours, first_b)) if i % 2 == 0 else ((ours, first_b), (other, first_a))
                keys = {}
                for validator, samples in pair:
                    start = time.perf_counter_ns()
                    result = validator.validate(text, agent_id="bench", trust=30)
                    samples.append((time.perf_counter_ns() - start) / 1000)
                    keys[id(validator)] = _claims_key(result)
                differ += keys[id(other)] != keys[id(ours)]
        finally:
            gc.enable()
        a, b = [], []
        gc.disable()
        try:
            for round_ in range(rounds):
                for i, text in enumerate(texts):
                    pair = ((other, a), (ours, b)) if (i + round_) % 2 == 0 else ((ours, b), (other, a))
                    for validator, samples in pair:
                        start = time.perf_counter_ns()
                        validator.validate(text, agent_id="bench", trust=30)
                        samples.append((time.perf_counter_ns() - start) / 1000)
        finally:
            gc.enable()
        if first:
            before, after = summary(first_a), summary(first_b)
            print(f"{size:>6} {'--against first read':<26} {before[0]:>10.1f} {before[1]:>10.1f} {1.0:>7.2f}")
            print(
                f"{size:>6} {'this checkout first read':<26} {after[0]:>10.1f} {after[1]:>10.1f}"
                f" {after[0] / before[0]:>7.3f}"
            )
        before, after = summary(a), summary(b)
        print(f"{size:>6} {'--against validate()':<26} {before[0]:>10.1f} {before[1]:>10.1f} {1.0:>7.2f}")
        print(
            f"{size:>6} {'this checkout validate()':<26} {after[0]:>10.1f} {after[1]:>10.1f} {after[0] / before[0]:>7.3f}"
        )
        # Each output's fastest round, then the median over outputs: what a quiet machine would show,
        # far less moved by other processes than the median of all samples.
        low_a, low_b = _fastest_per_output(a, len(texts)), _fastest_per_output(b, len(texts))
        print(
            f"{'':>6} (p99 ratio {after[1] / before[1]:.3f}; fastest round per output, median: {low_a:.1f} vs"
            f" {low_b:.1f} us, ratio {low_b / low_a:.3f}; {differ} of {len(texts)} outputs differ in claims or verdict)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=200, help="outputs per size")
    parser.add_argument("--rounds", type=int, default=5, help="passes over the outputs")
    parser.add_argument("--against", type=Path, metavar="CHECKOUT", help="also time this checkout's core, interleaved")
    parser.add_argument("--core", type=Path, metavar="CHECKOUT", help="time this checkout's core instead of this one's")
    parser.add_argument("--real", action="store_true", help="real agent messages instead of generated outputs")
    args = parser.parse_args()
    make = real_corpus if args.real else corpus
    if args.against:
        # With --real, the first pass (it also compares claims) is reported apart: each checkout's first read.
        compare(other_validator_class(args.against.resolve()), args.count, args.rounds, make, first=args.real)
        return

    validator_cls = other_validator_class(args.core.resolve()) if args.core else OutputValidator
    started = time.perf_counter()
    validator = validator_cls(hundred_facts())
    print(f"validator construction: {time.perf_counter() - started:.2f} s (a first build also pays one-time imports)")
    patterns = naive_patterns()
    print(f"builtin patterns: {len(patterns)}, facts: 102, outputs per size: {args.count}, rounds: {args.rounds}")
    print(f"{'size':>6} {'what':<26} {'median us':>10} {'p99 us':>10} {'ratio':>7}")
    for size in (2000, 10000):
        texts = make(size, args.count)
        if args.real:
            # The first read of each text, before anything else reads it: what production meets.
            first = summary(measure(lambda t: validator.validate(t, agent_id="bench", trust=30), texts, 1))
        with_claims = sum(1 for t in texts if validator.validate(t, agent_id="bench", trust=30).claims)
        base = summary(measure(lambda t: naive(patterns, t), texts, args.rounds))
        ours = summary(measure(lambda t: validator.validate(t, agent_id="bench", trust=30), texts, args.rounds))
        print(f"{size:>6} {'naive re.finditer':<26} {base[0]:>10.1f} {base[1]:>10.1f} {1.0:>7.2f}")
        if args.real:
            print(f"{size:>6} {'validate(), first read':<26} {first[0]:>10.1f} {first[1]:>10.1f} {first[0] / base[0]:>7.3f}")
        print(f"{size:>6} {'claimwatch validate()':<26} {ours[0]:>10.1f} {ours[1]:>10.1f} {ours[0] / base[0]:>7.3f}")
        print(f"{'':>6} ({with_claims} of {len(texts)} outputs have claims, {len(texts)} outputs)")


if __name__ == "__main__":
    main()
