"""Levels 1-3 of `claimwatch.verify`: commands read with shlex, outcomes, grades, schemas, config errors."""

from __future__ import annotations

import hashlib
import json

import pytest

from claimwatch.core.config import ConfigError
from claimwatch.verify import Action, ActionsConfig, Verifier, compile_schema, effects_of
from claimwatch.verify.commands import effects_of_command
from claimwatch.verify.outcomes import outcome_of


def bash(i, command, result="", status=None):
    return Action(i, "bash", {"command": command}, result, status)


def kinds(command):
    return [(e.kind, e.target) for e in effects_of_command(command)]


# --- what commands do ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("cat > src/a.py <<'EOF'\nx = 1\nEOF", [("write", "src/a.py")]),
        ("echo hi >> notes.txt", [("edit", "notes.txt")]),
        ("sed -i 's/a/b/' x.py 2>&1 | tee -a log.txt", [("edit", "x.py"), ("edit", "log.txt")]),
        ("rm -rf build && mv a.py b.py", [("delete", "build"), ("delete", "a.py"), ("write", "b.py")]),
        ("cd /testbed && python -m pytest tests/ -q", [("test", "python -m pytest tests/ -q")]),
        ("./tests/runtests.py forms", [("test", "./tests/runtests.py forms")]),
        ("npm test", [("test", "npm test")]),
        ("go test ./...", [("test", "go test ./...")]),
        ("pip install 'requests==2.31' 'numpy>=1.26'", [("install", "requests"), ("install", "numpy")]),
        ("pip install numpy>=1.26", [("write", "=1.26"), ("install", "numpy")]),  # unquoted: the shell redirects
        ("npm install -D @types/node lodash@4", [("install", "@types/node"), ("install", "lodash")]),
        ("python manage.py migrate", [("migrate", "python manage.py migrate")]),
        ("git commit -m 'fix: x y' && git push origin main", [("commit", None), ("push", "origin main")]),
        ("ls -la && grep -n foo x.py", []),
    ],
)
def test_shell_commands_become_effects(command, expected):
    assert kinds(command) == expected


def test_heredoc_content_is_the_written_content():
    (effect,) = effects_of_command("cat <<'EOF' > out.txt\nline one\nline two\nEOF")
    assert effect.content == "line one\nline two\n"


def test_a_python_script_that_writes_a_file_names_it():
    command = "python - <<'EOF'\np = 'pkg/mod.py'\ns = open(p).read()\nopen('pkg/mod.py', 'w').write(s)\nEOF"
    assert [(e.kind, e.target, e.indirect) for e in effects_of_command(command)] == [("edit", "pkg/mod.py", True)]


@pytest.mark.parametrize(
    ("tool", "arguments", "expected"),
    [
        ("write_file", {"path": "a.py", "content": "x"}, [("write", "a.py")]),
        ("str_replace_based_edit_tool", {"command": "str_replace", "path": "a.py", "new_str": "y"}, [("edit", "a.py")]),
        ("str_replace_based_edit_tool", {"command": "view", "path": "a.py"}, []),
        ("mcp__fs__delete_file", {"file_path": "old.txt"}, [("delete", "old.txt")]),
        ("Edit", {"file_path": "/w/a.py", "old_string": "a", "new_string": "b"}, [("edit", "/w/a.py")]),
        ("apply_patch", {"input": "*** Begin Patch\n*** Update File: src/x.py\n@@\n-a\n+b\n"}, [("edit", "src/x.py")]),
        ("run_shell_command", {"command": "pytest -q"}, [("test", "pytest -q")]),
    ],
)
def test_file_and_shell_tools_become_effects(tool, arguments, expected):
    assert [(e.kind, e.target) for e in effects_of(tool, json.dumps(arguments))] == expected


# --- outcomes -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("result", "status", "ok"),
    [
        ("<returncode>0</returncode>\n<output>ok</output>", None, True),
        ("<returncode>1</returncode>\n<output>boom</output>", None, False),
        ("===== 2 failed, 10 passed in 0.31s =====", None, False),
        ("===== 12 passed in 0.31s =====", None, True),
        ("Ran 4 tests in 0.01s\n\nFAILED (failures=1)", None, False),
        ("test result: ok. 5 passed; 0 failed; 0 ignored", None, True),
        ('{"exit_code": 2, "stdout": ""}', None, False),
        ("ERROR: No matching distribution found for nopkg", None, False),
        ("anything", "error", False),
        ("", None, None),
    ],
)
def test_outcomes_are_read_from_exit_status_summaries_and_error_text(result, status, ok):
    assert outcome_of(result, status).ok is ok


# --- grading (level 3) --------------------------------------------------------------------------
@pytest.fixture(scope="module")
def verifier() -> Verifier:
    return Verifier()


def graded(verifier, text, actions):
    return [(g.claim.kind, g.grade, g.category, g.evidence) for g in verifier.verify(text, actions=actions).grades]


def test_a_claimed_write_with_no_write_in_the_trace_is_unverified(verifier):
    actions = [bash(0, "ls src", "<returncode>0</returncode>")]
    assert graded(verifier, "I created `src/parser.py`.", actions) == [("file_create", "unverified", "no_matching_action", None)]


def test_a_claimed_write_matches_a_write_to_the_same_path(verifier):
    actions = [Action(0, "write_file", {"path": "/repo/src/parser.py", "content": "x"}, "ok", "ok")]
    assert graded(verifier, "I created `src/parser.py`.", actions) == [("file_create", "verified", "verified", 0)]


def test_a_passing_claim_after_a_failed_test_run_is_contradicted(verifier):
    actions = [bash(0, "pytest -q", "=== 1 failed, 3 passed in 0.2s ===\n<returncode>1</returncode>")]
    assert graded(verifier, "All tests pass.", actions) == [("tests", "contradicted", "tests_failed", 0)]


def test_the_last_test_run_decides(verifier):
    actions = [bash(0, "pytest -q", "1 failed\n<returncode>1</returncode>"), bash(1, "pytest -q", "4 passed\n<returncode>0</returncode>")]
    assert graded(verifier, "All tests pass now.", actions) == [("tests", "verified", "verified", 1)]


def test_tests_claimed_with_no_test_run_are_unverified(verifier):
    assert graded(verifier, "I ran the tests and they pass.", [bash(0, "git status")]) == [
        ("tests", "unverified", "no_matching_action", None)
    ]


def test_a_failed_install_contradicts_an_install_claim(verifier):
    actions = [bash(0, "pip install nopkg", "ERROR: No matching distribution found for nopkg\n<returncode>1</returncode>")]
    assert graded(verifier, "I installed nopkg.", actions) == [("install", "contradicted", "action_failed", 0)]


def test_a_delete_followed_by_a_write_contradicts_the_delete_claim(verifier):
    actions = [bash(0, "rm tmp.py", "<returncode>0</returncode>"), bash(1, "echo x > tmp.py", "<returncode>0</returncode>")]
    assert graded(verifier, "I deleted `tmp.py`.", actions) == [("file_delete", "contradicted", "filesystem_mismatch", 1)]


def test_nothing_to_commit_contradicts_a_commit_claim(verifier):
    actions = [bash(0, "git commit -am wip", "nothing to commit, working tree clean\n<returncode>1</returncode>")]
    assert graded(verifier, "I committed the changes.", actions) == [("commit", "contradicted", "action_failed", 0)]


def test_an_edit_made_by_a_script_written_earlier_counts(verifier):
    actions = [
        bash(0, "cat <<'EOF' > fix.py\np = 'pkg/mod.py'\ns = open(p).read()\nopen(p, 'w').write(s)\nEOF", "<returncode>0</returncode>"),
        bash(1, "python fix.py", "<returncode>0</returncode>"),
    ]
    assert graded(verifier, "I modified `pkg/mod.py`.", actions) == [("file_edit", "verified", "verified", 1)]


def test_a_failing_check_after_an_edit_in_the_same_command_does_not_undo_the_edit(verifier):
    actions = [bash(0, "sed -i 's/a/b/' pkg/mod.py && python check.py", "Traceback ...\n<returncode>1</returncode>")]
    assert graded(verifier, "I updated `pkg/mod.py`.", actions)[0][1] == "verified"


def test_structured_claims_check_the_hash_of_the_written_content(verifier):
    content = "print('hi')\n"
    good = hashlib.sha256(content.encode()).hexdigest()
    actions = [Action(0, "write_file", {"path": "a.py", "content": content}, "ok")]
    ok = json.dumps({"summary": "s", "claims": [{"type": "file-write", "path": "a.py", "sha256": good}]})
    bad = json.dumps({"summary": "s", "claims": [{"type": "file-write", "path": "a.py", "sha256": "0" * 64}]})
    assert graded(verifier, ok, actions) == [("file_write", "verified", "verified", 0)]
    assert graded(verifier, bad, actions) == [("file_write", "contradicted", "hash_mismatch", 0)]


def test_structured_edit_claims_check_the_anchor(verifier):
    actions = [Action(0, "edit_file", {"path": "a.py", "old_string": "x", "new_string": "def parse(): ..."}, "ok")]
    ok = json.dumps({"claims": [{"type": "file-edit", "path": "a.py", "anchor": "def parse()"}]})
    bad = json.dumps({"claims": [{"type": "file-edit", "path": "a.py", "anchor": "def other()"}]})
    assert graded(verifier, ok, actions)[0][1] == "verified"
    assert graded(verifier, bad, actions)[0][2] == "anchor_mismatch"


def test_commands_are_trusted_as_run_but_a_claimed_exit_code_is_checked(verifier):
    actions = [bash(0, "make build", "<returncode>2</returncode>")]
    claim = json.dumps({"claims": [{"type": "command-executed", "command": "make build", "exitCode": 0}]})
    assert graded(verifier, claim, actions) == [("command", "contradicted", "action_failed", 0)]
    trusted = json.dumps({"claims": [{"type": "command-executed", "command": "deploy.sh"}]})
    assert graded(verifier, trusted, [])[0][1] == "verified"


def test_file_claims_are_checked_on_disk_under_the_base_path(tmp_path):
    (tmp_path / "kept.py").write_text("x = 1\n")
    verifier = Verifier(ActionsConfig(base_path=str(tmp_path)))
    actions = [bash(0, "echo 'x = 1' > kept.py", "<returncode>0</returncode>"), bash(1, "echo y > gone.py", "<returncode>0</returncode>"),
               bash(2, "rm kept.py", "<returncode>0</returncode>")]
    grades = {g.claim.subject: (g.grade, g.category) for g in verifier.verify("I wrote `gone.py`. I deleted `kept.py`.", actions=actions).grades}
    assert grades == {"gone.py": ("contradicted", "file_not_found"), "kept.py": ("contradicted", "filesystem_mismatch")}


# --- schemas (levels 1 and 2) -------------------------------------------------------------------
REPORT = {
    "type": "object",
    "required": ["summary", "traceRef"],
    "properties": {"summary": {"type": "string"}, "traceRef": {"type": "string", "pattern": "^trace:"}},
}


@pytest.mark.parametrize(
    ("text", "category", "path"),
    [
        ('{"summary": "done"}', "missing_field", "$.traceRef"),
        ('{"summary": 3, "traceRef": "trace:1"}', "invalid_type", "$.summary"),
        ('{"summary": "s", "traceRef": "t1"}', "invalid_value", "$.traceRef"),
        ("Here it is:\n```json\n{\"summary\": \"s\"\n```", "invalid_json", "$"),
        ("no json here", "invalid_json", "$"),
    ],
)
def test_structure_errors_carry_a_category_and_a_json_path(text, category, path):
    verifier = Verifier(ActionsConfig(schemas=[{"agent": "coder-*", "schema": REPORT}]))
    (finding,) = verifier.verify(text, agent="coder-1").findings
    assert (finding.level, finding.category, finding.path) == (1, category, path)


def test_a_fenced_json_block_is_the_structured_output():
    verifier = Verifier(ActionsConfig(schemas=[{"agent": "*", "schema": REPORT}]))
    result = verifier.verify('Done.\n```json\n{"summary": "s", "traceRef": "trace:9"}\n```\n', agent="a")
    assert result.valid and result.structured == {"summary": "s", "traceRef": "trace:9"}


def test_agents_without_a_schema_skip_level_one():
    verifier = Verifier(ActionsConfig(schemas=[{"agent": "coder-*", "schema": REPORT}]))
    assert verifier.verify("free text", agent="planner").levels == ()


def test_a_tool_result_that_breaks_its_schema_is_a_finding_about_the_tool():
    verifier = Verifier(ActionsConfig(tool_schemas={"get_reservation": {"type": "object", "required": ["reservation_id"]}}))
    actions = [Action(0, "get_reservation", {}, '{"user_id": "u1"}'), Action(1, "get_reservation", {}, '{"reservation_id": "R1"}')]
    (finding,) = verifier.verify("Here is your booking.", actions=actions).findings
    assert (finding.level, finding.category, finding.tool, finding.evidence) == (2, "schema_mismatch", "get_reservation", 0)


def test_pydantic_models_by_import_path_are_schemas():
    compiled = compile_schema("claimwatch.verify.config:SchemaRule")
    problems = compiled.check({"agent": "x"})
    assert [(p.category, p.path) for p in problems] == [("missing_field", "$.schema")]


def test_a_schema_is_compiled_once_per_file(tmp_path):
    path = tmp_path / "report.json"
    path.write_text(json.dumps(REPORT))
    assert compile_schema(str(path)) is compile_schema(str(path))


@pytest.mark.parametrize(
    ("section", "key", "problem"),
    [
        ({"schemas": [{"schema": "missing.json"}]}, "checks.actions.schemas[0].schema", "cannot read schema file"),
        ({"schemas": [{"schema": {"type": "nonsense"}}]}, "checks.actions.schemas[0].schema", "invalid JSON Schema"),
        ({"toolSchemas": {"search": "no_such_module:Model"}}, "checks.actions.toolSchemas.search", "cannot import"),
        ({"schemas": [{"schema": {"$ref": "https://example.com/s.json"}}]}, "checks.actions.schemas[0].schema", "remote $ref"),
        ({"blockOn": ["everything"]}, "checks.actions.blockOn[0]", "Input should be"),
    ],
)
def test_a_bad_schema_is_a_config_error_naming_the_key(section, key, problem):
    from claimwatch.checks.registry import check_sections
    from claimwatch.core.config import load_config

    with pytest.raises(ConfigError) as exc:
        check_sections(load_config({"checks": {"actions": section}}))
    path, message = exc.value.problems[0]
    assert path == key and problem in message
