"""Deterministic, realistic agent outputs for benchmarks (and a 100-fact config).

Texts are assembled from sentences of the kinds coding and ops agents write:
plans, summaries, markdown lists, code blocks, tool output excerpts. Most
outputs carry no claim; about a quarter carry one or several.
"""

from __future__ import annotations

import random

PROSE = [
    "I read through the repository layout and the main entry points before changing anything.",
    "The parser module is responsible for turning raw configuration into typed objects.",
    "I refactored the retry logic so that it backs off exponentially and gives up after five attempts.",
    "Next, I updated the unit tests to cover the empty-input case and the malformed-header case.",
    "The change is small: three functions moved into a helper module and one constant was renamed.",
    "Here is a summary of what I did and what is left for the next iteration of this task.",
    "The function now returns early when the list is empty, which avoids an unnecessary allocation.",
    "I kept the public API unchanged so that existing callers do not need to be updated.",
    "The migration script adds a nullable column and backfills it in batches of one thousand rows.",
    "Performance looks reasonable: the hot loop allocates less and the benchmark is about twenty percent faster.",
    "The documentation for the CLI flags was out of date, so I rewrote the usage section.",
    "I added type hints to the storage layer and fixed two places where None could leak through.",
    "To reproduce the issue, call the endpoint twice with the same idempotency key.",
    "The scheduler picks the oldest pending job first and marks it as claimed in the same transaction.",
    "Logging is now structured, with the request id attached to every line emitted by the handler.",
    "The cache is keyed by tenant and path, and entries expire after ten minutes.",
    "I was careful to keep the error messages identical, because the dashboard parses them.",
    "Running the full suite takes about four minutes on the CI runners, most of it in integration tests.",
    "The config loader accepts both YAML and JSON and reports the line of any syntax error.",
    "We discussed two options for the queue and picked the simpler one because the load is modest.",
    "The team agreed to review the API changes on Thursday before merging anything.",
    "I opened a draft pull request so the reviewers can see the direction early.",
    "The frontend build uses the same lint rules as the backend, which keeps the style consistent.",
    "Is the staging database still on the old schema? I will confirm before running the migration.",
    "If the deployment is blocked, the release notes should mention the workaround.",
    "You might want to install the pre-commit hooks so formatting is checked before each commit.",
    "Let me check whether the worker picks up the new environment variable after a restart.",
    "Make sure the service is running before you point the load generator at it.",
    "The available options are listed in the reference table below, with their defaults.",
    "Each job gets its own container, so a crash in one does not affect the others.",
    "The test suite now runs in parallel, which cut the wall time roughly in half.",
    "I noticed the timeout was set in two places, so I removed the duplicate.",
]
LIST_ITEMS = [
    "- Moved the HTTP client into `net/client.py`",
    "- Added retries with jitter to the uploader",
    "- Updated the README with the new flags",
    "- Fixed a typo in the error message for missing tokens",
    "1. Read the existing tests",
    "2. Write the failing test for the bug",
    "3. Fix the bug and run the suite",
    "* Renamed `fetch_all` to `fetch_pages` for clarity",
]
CODE = [
    "```python\ndef retry(fn, attempts=5):\n    for i in range(attempts):\n        try:\n            return fn()\n"
    "        except TimeoutError:\n            time.sleep(2 ** i)\n    raise RuntimeError('gave up')\n```",
    "```bash\n$ pytest -q\n........................................ [100%]\n40 passed in 3.21s\n```",
    "```\n$ systemctl status worker\n● worker.service - background worker\n   Active: active (running)\n```",
]
CLAIMS = [
    "Docker is not installed on the build host.",
    "The CI pipeline is broken, so I could not run the integration tests.",
    "Redis isn't running, which explains the cache misses.",
    "The user is Iulia, and she asked for the export feature.",
    "The export feature doesn't exist yet in this codebase.",
    "I couldn't find kubectl on the PATH.",
    "The payments service is down according to the last check.",
    "My instructions say I should not modify the database schema.",
    "There is no staging environment for this project.",
    "The gateway doesn't support websockets.",
    "- Postgres: not running\n- Nginx: installed",
    "It seems the build failed on the last commit.",
]


def agent_output(rng: random.Random, length: int, claims: int) -> str:
    """One output of about `length` characters with `claims` claim sentences placed at random."""
    parts: list[str] = []
    claim_slots = set(rng.sample(range(1, 40), claims)) if claims else set()
    i = 0
    while sum(len(p) + 1 for p in parts) < length:
        i += 1
        if i in claim_slots:
            parts.append(rng.choice(CLAIMS))
        roll = rng.random()
        if roll < 0.70:
            parts.append(rng.choice(PROSE))
        elif roll < 0.90:
            parts.append("\n" + "\n".join(rng.sample(LIST_ITEMS, 3)) + "\n")
        else:
            parts.append("\n" + rng.choice(CODE) + "\n")
    return " ".join(parts)[:length]


def corpus(length: int, count: int = 200, seed: int = 7) -> list[str]:
    """`count` outputs: 75 % with no claim, the rest with one to four claims."""
    rng = random.Random(seed)
    return [agent_output(rng, length, 0 if rng.random() < 0.75 else rng.randint(1, 4)) for _ in range(count)]


def hundred_facts() -> dict:
    """A validation config with 100 facts across the value types, half of them regex subjects."""
    facts = []
    kinds = [
        ("system_state", {"type": "state", "state": "running"}),
        ("existence", {"type": "exists", "exists": True}),
        ("operational_status", {"type": "status", "status": "operational"}),
        ("capability", {"type": "capability", "supported": True}),
        ("entity_name", {"type": "name", "correctName": "Irina", "aliases": ["irina"]}),
    ]
    for i in range(100):
        category, value = kinds[i % len(kinds)]
        regex = i % 2 == 0
        subject = f"(service-{i}|svc{i}|component {i})" if regex else f"service-{i}"
        facts.append(
            {"id": f"fact-{i}", "category": category, "subject": subject, "subjectIsRegex": regex, "value": value}
        )
    facts.append(
        {
            "id": "docker",
            "category": "system_state",
            "subject": "docker",
            "value": {"type": "state", "state": "running"},
        }
    )
    facts.append(
        {
            "id": "pipeline",
            "category": "operational_status",
            "subject": "(ci )?pipeline",
            "subjectIsRegex": True,
            "value": {"type": "status", "status": "operational"},
        }
    )
    return {"validation": {"factRegistries": [{"id": "bench", "facts": facts}]}}
