"""Action-claim detection (level 3): what counts as a claim of done work, and what does not."""

from __future__ import annotations

import pytest

from claimwatch.verify import CLAIM_PATTERNS, ClaimDetector
from claimwatch.verify.claims import KINDS, VERB_KINDS


@pytest.fixture(scope="module")
def detector() -> ClaimDetector:
    return ClaimDetector()


def found(detector, text):
    return [(c.kind, c.subject, c.outcome) for c in detector.detect(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I created `src/parser.py`.", [("file_create", "src/parser.py", None)]),
        ("I've written the config to `deploy/app.yaml`.", [("file_write", "deploy/app.yaml", None)]),
        ("I updated src/api/routes.ts to add the endpoint.", [("file_edit", "src/api/routes.ts", None)]),
        ("We deleted `tmp/cache.json`.", [("file_delete", "tmp/cache.json", None)]),
        ("`setup.cfg` has been updated.", [("file_edit", "setup.cfg", None)]),
        ("- Modified `BaseModelFormSet` in `django/forms/models.py`:", [("file_edit", "django/forms/models.py", None)]),
        ("I created `a.py`, `b.py` and `c/d.py`.", [("file_create", "a.py", None), ("file_create", "b.py", None), ("file_create", "c/d.py", None)]),
        ("I removed a blank line in `pkg/mod.py`.", [("file_edit", "pkg/mod.py", None)]),
        ("Since I created the directory `reproduce_app`, it imports.", [("file_create", "reproduce_app", None)]),
        ("Ah, I deleted `reproduce_app` directory.", [("file_delete", "reproduce_app", None)]),
        ("I added a regression test to `tests/test_api.py`.", [("file_edit", "tests/test_api.py", None)]),
        ("All tests passed.", [("tests", "All tests", "pass")]),
        ("I ran the tests and they pass.", [("tests", "the tests", "pass")]),
        ("`test_domain_py.py` passed.", [("tests", "test_domain_py.py", "pass")]),
        ("The tests don't pass yet.", [("tests", "The tests", "fail")]),
        ("I've run the unit tests.", [("tests_run", "the unit tests", None)]),
        ("I installed requests and numpy.", [("install", "requests", None), ("install", "numpy", None)]),
        ("`httpx` was installed.", [("install", "httpx", None)]),
        ("I installed the dependencies.", [("install", None, None)]),
        ("The migration was applied.", [("migration", None, None)]),
        ("I applied the pending migrations.", [("migration", None, None)]),
        ("I committed and pushed the changes.", [("commit", None, None), ("push", None, None)]),
        ("The changes have been committed.", [("commit", None, None)]),
    ],
)
def test_a_report_of_done_work_is_a_claim_with_its_kind_and_subject(detector, text, expected):
    assert found(detector, text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "I will create `src/parser.py`.",
        "I'll run the tests and then commit.",
        "Next, I'm going to update `app/models.py`.",
        "Did I create `src/a.py`?",
        "Have the tests passed?",
        "If the tests pass, I will commit.",
        "Make sure all tests pass before merging.",
        "I expect it to fail if the tests fail",
        "Let me check whether the migration was applied.",
        "Please reply \"I created the file src/x.py for you\" to the user.",
        "> I created `notes.md` and all tests pass",
        "```\nI created a.py\nAll tests passed.\n```",
        "I'll remove the temporary files I created.",
        "I modified `_print_Mod` in `PythonCodePrinter`.",  # symbols, no file
        "I added `os.getcwd()` which is `/testbed`.",
        "Ah, I modified the file with `apply_fix.py` earlier.",  # the instrument, not the file changed
        "I haven't created `x.py` yet.",
        "You should install numpy first.",
        "Now I run the reproduction script `reproduce.py`.",
    ],
)
def test_plans_questions_conditionals_quotes_and_code_are_not_claims(detector, text):
    assert found(detector, text) == []


def test_offsets_point_into_the_original_text_when_code_is_masked(detector):
    text = "```bash\necho hi\n```\nI created `x/y.py`."
    (claim,) = detector.detect(text)
    assert text[claim.offset : claim.offset + len(claim.text)] == claim.text


def test_the_claim_table_is_data_with_known_kinds():
    kinds = {p.kind for p in CLAIM_PATTERNS} - {"verb"}
    assert kinds <= set(KINDS)
    assert set(VERB_KINDS.values()) <= set(KINDS)
    assert len({p.id for p in CLAIM_PATTERNS}) == len(CLAIM_PATTERNS)


def test_claims_are_capped_per_output(detector):
    text = " ".join(f"I created `f{i}.py`." for i in range(30))
    assert len(detector.detect(text, max_claims=5)) == 5


def test_nothing_was_installed_is_no_install_claim():
    from claimwatch.verify.claims import ClaimDetector

    assert ClaimDetector().detect("The installer could not reach its host, so nothing was installed.") == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I installed requests and I committed the changes.", [("install", "requests", None), ("commit", None, None)]),
        ("I installed requests and then restarted the worker.", [("install", "requests", None)]),
        ("I created `a.py` and we ran the linter.", [("file_create", "a.py", None)]),
    ],
)
def test_a_listed_subject_stops_where_the_next_clause_starts_when_and_opens_a_new_sentence(detector, text, expected):
    # "and I committed": "I" is the next clause's subject, not a second package installed.
    assert found(detector, text) == expected
