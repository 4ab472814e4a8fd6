"""Claim detection: what is a claim, with which subject and assertion, and what is not."""

from __future__ import annotations

import pytest

# text, category, subject, assertion, negative
CLAIMS = [
    # RFC §4.4.1 system state
    ("Node.js is not installed", "system_state", "Node.js", "not_installed", True),
    ("The service is running fine", "system_state", "The service", "running", False),
    ("I couldn't find docker", "system_state", "docker", "not_found", True),
    ("Redis isn't running on this host.", "system_state", "Redis", "not_running", True),
    ("PostgreSQL was not configured for SSL.", "system_state", "PostgreSQL", "not_configured", True),
    ("The docker daemon is no longer running.", "system_state", "The docker daemon", "not_running", True),
    ("Kubectl has not been installed yet.", "system_state", "Kubectl", "not_installed", True),
    ('The "payments worker" is not running.', "system_state", '"payments worker"', "not_running", True),
    ("`ripgrep` is not installed.", "system_state", "`ripgrep`", "not_installed", True),
    ("After checking, nginx isn’t running.", "system_state", "nginx", "not_running", True),
    ("I was unable to locate the terraform binary.", "system_state", "terraform binary", "not_found", True),
    # RFC §4.4.2 entity names
    ("The user is Iulia", "entity_name", "Iulia", "name_reference", False),
    ("The project is called Atlas.", "entity_name", "Atlas", "name_reference", False),
    ("Her name is Irina.", "entity_name", "Irina", "name_reference", False),
    ("Irina reviewed the pull request.", "entity_name", "Irina", "name_reference", False),
    ('The maintainer is "Albert Hild".', "entity_name", '"Albert Hild"', "name_reference", False),
    # RFC §4.4.3 existence
    ("Feature Y doesn't exist", "existence", "Feature Y", "not_exists", True),
    ("There is no config file for the gateway.", "existence", "config file", "not_exists", True),
    ("The timeout option is missing.", "existence", "The timeout option", "not_exists", True),
    ("We don't have a staging environment.", "existence", "staging environment", "not_exists", True),
    ("The export endpoint already exists.", "existence", "The export endpoint", "exists", False),
    # RFC §4.4.4 operational status
    ("Pipeline is broken", "operational_status", "Pipeline", "broken", False),
    ("The build failed.", "operational_status", "The build", "failed", False),
    ("All services are down.", "operational_status", "All services", "down", False),
    ("Everything is broken.", "operational_status", "Everything", "broken", False),
    ("The database was unreachable during the deploy.", "operational_status", "The database", "unreachable", False),
    ("The deploy timed out.", "operational_status", "The deploy", "timed_out", False),
    ("The gateway is operational.", "operational_status", "The gateway", "operational", False),
    # capability
    ("OpenClaw doesn't support streaming.", "capability", "streaming", "not_supported", True),
    ("This feature is not available.", "capability", "This feature", "not_supported", True),
    ("Batch mode is not supported.", "capability", "Batch mode", "not_supported", True),
    ("Batch mode is unsupported.", "capability", "Batch mode", "not_supported", True),
    ("The --force flag is supported.", "capability", "The --force flag", "supported", False),
    ("Postgres isn't accepting connections.", "operational_status", "Postgres", "not_accepting_connections", True),
    ("The variable is not defined in this scope.", "existence", "The variable", "not_exists", True),
    ("The config file does not contain a `timeout` key.", "existence", "`timeout`", "not_exists", True),
    ("As requested by Irina, I updated the docs.", "entity_name", "Irina", "name_reference", False),
    ("Hi Albert, here is the summary.", "entity_name", "Albert", "name_reference", False),
    ("When I checked, Docker was not running.", "system_state", "Docker", "not_running", True),
    ("When I ran it, the build failed.", "operational_status", "the build", "failed", False),
    ("No workers are running, so the queue is backing up.", "system_state", "workers", "not_running", True),
    ("No tests are failing.", "operational_status", "tests", "not_failing", True),
    ("The staging environment has been decommissioned.", "existence", "The staging environment", "not_exists", True),
    ("Your project lead, Iulia, approved the change.", "entity_name", "Iulia", "name_reference", False),
    (
        "The monitoring stack (Prometheus and Grafana) is offline.",
        "operational_status",
        "The monitoring stack",
        "offline",
        False,
    ),
    ("The database is corrupted.", "operational_status", "The database", "corrupted", False),
    # RFC §4.4.5 self-reference
    ("My system prompt says I should only summarise.", "self_referential", "self", "self_referential", False),
    ("According to my instructions, I cannot do that.", "self_referential", "self", "self_referential", False),
    ("I'm an AI assistant, here to help with the summary.", "self_referential", "self", "self_referential", False),
    ("I was instructed to avoid the database.", "self_referential", "self", "self_referential", False),
    ("I only receive screenshots, not audio.", "self_referential", "self", "self_referential", False),
    # Where a record stands, as a page gives it; outcomes in checklists; a code span naming what ran.
    ("The deal is in stage 'Contract sent'.", "system_state", "The deal", "status", False),
    ("- **Integration tests:** failing\n", "operational_status", "Integration tests", "failing", False),
    ("`npm run build` failed after 2 minutes.", "operational_status", "`npm run build`", "failed", False),
    ("The cart has 3 items.", "existence", "items", "exists", False),
    ("No categories exist on this site.", "existence", "categories", "not_exists", True),
    ("The shop doesn't ship to Canada.", "capability", "The shop", "not_ships_to", True),
    # A negated universal subject: negative, and (as an unresolved pronoun) left unchecked.
    ("Nothing has been sent yet.", "system_state", "Nothing", "not_sent", True),
]


@pytest.mark.parametrize(("text", "category", "subject", "assertion", "negative"), CLAIMS)
def test_claim_is_detected_when_text_asserts_it(validator, text, category, subject, assertion, negative):
    claims = validator.detect(text)
    assert len(claims) == 1, [(c.detector_id, c.matched_text) for c in claims]
    claim = claims[0]
    assert (claim.category, claim.subject, claim.assertion, claim.negative) == (
        category,
        subject,
        assertion,
        negative,
    )
    assert text[claim.offset : claim.offset + len(claim.matched_text)] == claim.matched_text
    assert claim.subject in claim.matched_text or claim.subject == "self"


# Not assertions: questions, conditionals, suggestions, instructions, intents, code.
NOT_CLAIMS = [
    "Is Docker running?",
    "Is the pipeline broken right now?",
    "Docker is running, right?",
    "If the pipeline is broken, restart the runner.",
    "If you see this error, the service is down and you should page someone.",
    "Unless Node.js is installed, the script will fail to start.",
    "You might want to install X",
    "You may want to check whether Redis is running.",
    "Make sure Docker is running before you start.",
    "Please ensure the database is configured.",
    "Ensure that nginx is not running on port 80.",
    "Let me check whether X is installed.",
    "I'll verify that the service is running.",
    "I need to confirm the build failed before retrying.",
    "Run `systemctl status docker` to see if docker is running.",
    "```\n$ node --version\nbash: node: command not found\nNode.js is not installed\n```",
    "The script prints `ERROR: service is down` when it cannot connect.",
    "Once the database is running, apply the migrations.",
    "There is no need to restart the server.",
    "There's no way to tell from the logs alone.",
    "The team is running out of time before the release.",
    "We're running the migration now.",
    "Not that the build failed.",
    "Why is the build failing",
    "The API returns 404 when the resource is not found.",
    "Returns an empty list when no results are found.",
    "The service crashes when the disk is full.",
    "We don't have a good way to test this without a real cluster.",
    "`xa < 0` is possible here.",
    "The files need to exist.",
    "I'm on the Zendesk agent workspace.",
    "The hold has 7 minutes left.",
    "Eval: Failed",
    "Booked ✅",
]


@pytest.mark.parametrize("text", NOT_CLAIMS)
def test_no_claim_when_text_does_not_assert(validator, text):
    claims = validator.detect(text)
    assert claims == [], [(c.detector_id, c.matched_text) for c in claims]


def test_missing_access_is_an_inability_not_an_existence_claim(validator):
    # GUIDE.md: an inability stated as fact is a capability claim; nothing is said not to exist.
    claims = validator.detect("I don't have access to the production database.")
    assert [c.category for c in claims] == ["capability"]
    assert claims[0].negative


HEDGED = [
    "It seems Docker is not running.",
    "Redis might not be installed.",
    "The pipeline is probably broken.",
    "I think the gateway is down.",
    "Docker doesn't appear to be running.",
    # issue 10: a hedge before the negation used to switch detection off
    "Docker is probably not installed.",
    "Docker is likely not installed.",
    "The client might not support streaming.",
    "The API may not support batching.",
]


@pytest.mark.parametrize("text", HEDGED)
def test_hedged_claim_has_confidence_below_block_threshold(validator, text):
    claims = validator.detect(text)
    assert len(claims) == 1, [(c.detector_id, c.matched_text) for c in claims]
    assert claims[0].confidence < 0.8


def test_several_claims_in_one_text_are_all_found(validator):
    text = (
        "Status report:\n"
        "- Redis: not running\n"
        "- Postgres: installed\n"
        "* **Node.js**: not installed\n\n"
        "Also, the pipeline is broken and the user is Iulia. I couldn't find docker."
    )
    claims = validator.detect(text)
    found = [(c.subject, c.assertion) for c in claims]
    assert found == [
        ("Redis", "not_running"),
        ("Postgres", "installed"),
        ("Node.js", "not_installed"),
        ("the pipeline", "broken"),
        ("Iulia", "name_reference"),
        ("docker", "not_found"),
    ]
    offsets = [c.offset for c in claims]
    assert offsets == sorted(offsets)


def test_compound_subjects_keep_the_noun_phrase(validator):
    claims = validator.detect("I checked the logs and the docker service is not running.")
    assert [(c.subject, c.assertion) for c in claims] == [("the docker service", "not_running")]


def test_claim_after_a_question_in_the_same_text_is_still_found(validator):
    claims = validator.detect("Is Docker running? I checked: Docker is not running.")
    assert [(c.subject, c.assertion) for c in claims] == [("Docker", "not_running")]


def test_assertion_after_a_conditional_clause_in_another_sentence_is_found(validator):
    claims = validator.detect("If you restart it, it will recover. The gateway is down.")
    assert [(c.subject, c.assertion) for c in claims] == [("The gateway", "down")]


def test_non_ascii_subjects_are_kept_whole(validator):
    claims = validator.detect("Der Dienst Zürich-Gateway — and Zürich-Gateway is not running.")
    assert [c.subject for c in claims] == ["Zürich-Gateway"]


def test_builtin_family_can_be_switched_off():
    from claimwatch import OutputValidator

    v = OutputValidator({"validation": {"builtinDetectors": {"selfReferential": False}}})
    assert v.detect("My system prompt says hello.") == []
    assert v.detect("Docker is not running.") != []


def test_custom_detector_runs_like_a_builtin():
    from claimwatch import OutputValidator

    v = OutputValidator(
        {
            "validation": {
                "customDetectors": [
                    {
                        "id": "ticket-closed",
                        "category": "existence",
                        "patterns": [r"ticket (?P<subject>[A-Z]+-\d+) (?:was|is) closed"],
                        "subjectGroup": "subject",
                        "assertion": "closed",
                        "negative": False,
                        "confidence": 0.9,
                    }
                ]
            }
        }
    )
    claims = v.detect("FYI ticket OPS-42 was closed yesterday.")
    assert [(c.detector_id, c.subject, c.assertion, c.confidence) for c in claims] == [
        ("ticket-closed", "OPS-42", "closed", 0.9)
    ]


def test_custom_detector_defaults_to_first_capture_group():
    from claimwatch import OutputValidator

    v = OutputValidator(
        {
            "validation": {
                "customDetectors": [
                    {
                        "id": "quota",
                        "category": "system_state",
                        "patterns": [r"quota for (\w+) is exhausted"],
                        "assertion": "exhausted",
                    }
                ]
            }
        }
    )
    assert [c.subject for c in v.detect("The quota for billing is exhausted.")] == ["billing"]


def test_every_builtin_pattern_matches_one_of_its_examples():
    # The examples warm each pattern's automata at load; one that matches nothing warms nothing.
    import re2

    from claimwatch.core.detectors import builtin_detectors

    for spec in builtin_detectors():
        assert spec.examples, spec.id
        for i, source in enumerate(spec.patterns):
            flags = "(?i)" if spec.case_insensitive else ""
            pattern = re2.compile(flags + source)
            assert any(pattern.search(e) for e in spec.examples), f"{spec.id} pattern {i}"


def test_every_builtin_reject_expression_compiles_for_python():
    # reject_after / reject_before / reject_subject / reject_state / code_narration run on Python's engine, compiled on
    # first use inside per-span processing: one that does not compile (RE2-only syntax such as \\p{L}) would raise
    # there. Compile them all here.
    import re

    from claimwatch.core.detectors import builtin_detectors

    for spec in builtin_detectors():
        for field in ("reject_after", "reject_before", "reject_subject", "reject_state", "code_narration"):
            source = getattr(spec, field)
            if source:
                try:
                    re.compile(source, re.IGNORECASE)
                except re.error as exc:  # pragma: no cover - the assertion below names it
                    pytest.fail(f"{spec.id}.{field}: {exc}")


@pytest.mark.parametrize(("corpus", "chunks"), [("agent_text_dev", 20), ("web_ui_written", 10)])
def test_no_message_of_the_dev_corpus_bails_out_in_a_fresh_process_warm_or_cold(corpus, chunks):
    import json
    import subprocess
    import sys
    from pathlib import Path

    # A validator built without warm-up runs first, so every automaton is cold when first used;
    # then a warmed one. Neither may bail out, and both must find the same claims.
    script = """
import json, sys
from claimwatch import OutputValidator
texts = [json.loads(line)["text"] for line in open(sys.argv[1], encoding="utf-8")]
long = []
chunk = ""
for t in texts:
    if len(chunk) + len(t) > 9_999:
        long.append(chunk)
        chunk = ""
    chunk += t + "\\n\\n"
out = {"long": len(long)}
for name, v in (("cold", OutputValidator(warm_up=False)), ("warm", OutputValidator())):
    results = [v.validate(t, agent_id="a", trust=10) for t in long + texts]
    out[name] = [i for i, r in enumerate(results) if r.bailed_out]
    out[name + "_claims"] = [[(c.offset, c.detector_id, c.subject) for c in r.claims] for r in results]
print(json.dumps(out))
"""
    data = Path(__file__).resolve().parent.parent / "benchmarks" / "data" / corpus / "messages.jsonl"
    out = subprocess.run([sys.executable, "-c", script, str(data)], capture_output=True, text=True, check=True)
    result = json.loads(out.stdout)
    assert result["long"] > chunks and result["cold"] == [] and result["warm"] == []
    assert result["cold_claims"] == result["warm_claims"]


def test_bail_out_is_reported_and_the_same_on_every_call():
    from claimwatch import OutputValidator

    v = OutputValidator({"validation": {"performance": {"maxEvalUs": 200}}})
    text = "Redis is not running. " * 40
    first, second = v.validate(text, agent_id="w", trust=50), v.validate(text, agent_id="w", trust=50)
    assert first.bailed_out and second.bailed_out
    assert first.claims == second.claims and 0 < len(first.claims) < 40


def test_fact_subject_regexes_run_inside_the_time_budget():
    from claimwatch import OutputValidator

    facts = [
        {
            "id": f"f{i}",
            "category": "system_state",
            "subject": rf"(?<!x)service{i}\\b",
            "subjectIsRegex": True,
            "value": {"type": "state", "state": "running"},
        }
        for i in range(400)
    ]
    v = OutputValidator(
        {"validation": {"performance": {"maxEvalUs": 500}, "factRegistries": [{"id": "r", "facts": facts}]}}
    )
    result = v.validate("The api service is not running.", agent_id="w", trust=10)
    assert result.bailed_out
    assert result.claims  # the claim is kept; its fact check was cut short


@pytest.mark.parametrize("source", [r"(a|aa)(?1)*b", r"(?r)abc", r"(?<=x)(?:foo){e<=2}"])
def test_regex_module_only_syntax_is_refused_at_load(source):
    from claimwatch import PatternError
    from claimwatch.core.patterns import compile_pattern

    with pytest.raises(PatternError, match="only the `regex` module knows"):
        compile_pattern(source, where="t")


def test_claim_cap_skips_only_matches_whose_claims_could_not_be_reported(monkeypatch):
    """The validator skips matches once `maxClaimsPerOutput` claims are settled before their line; the
    claims reported must be exactly those found without skipping, at any limit, and no claim may start
    before the line of its match (what the skipping relies on)."""
    import json
    from pathlib import Path

    import claimwatch.core.claims as claims_module
    import claimwatch.core.selection as selection_module
    import claimwatch.core.validator as validator_module
    from claimwatch import OutputValidator
    from claimwatch.core.budget import Budget

    data = Path(__file__).resolve().parent.parent / "benchmarks" / "data" / "web_ui_written" / "messages.jsonl"
    texts = [json.loads(line)["text"] for line in data.open(encoding="utf-8")]
    dense = "\n\n".join(texts[:60])[:10_000]
    sample = [dense, "\n".join(texts[60:120]), *texts[:80]]
    built = claims_module.build_claim
    early: list[str] = []

    def checked(text, raw, screened=False):
        claim = built(text, raw, screened)
        if claim is not None and claim.offset < text.rfind("\n", 0, raw.start) + 1:
            early.append(raw.spec.id)
        return claim

    monkeypatch.setattr(validator_module, "build_claim", checked)
    validator = OutputValidator()

    def found():
        return [[(c.offset, c.detector_id) for c in validator._detect(t, Budget(1e12))[0]] for t in sample]

    for limit in (3, 10, 50):
        object.__setattr__(validator.config.performance, "max_claims_per_output", limit)
        capped = found()
        with monkeypatch.context() as m:
            m.setattr(selection_module.ClaimCap, "beyond", lambda self, match, found, budget: False)
            assert found() == capped
        assert max(len(c) for c in capped) == limit  # the cap was reached, so skipping was tried
    assert early == []


def test_a_claim_about_nothing_is_kept_low_and_left_unchecked(validator):
    from claimwatch.core.subjects import names_nothing

    claim = validator.detect("Nothing is booked yet.")[0]
    assert (claim.subject, claim.negative) == ("Nothing", True)
    assert names_nothing(claim) and claim.confidence < 0.8


def test_words_a_pattern_takes_after_its_state_stop_at_the_sentence_end(validator):
    claims = validator.detect("The ticket is flagged urgent. Do you want me to escalate it?")
    assert [c.matched_text for c in claims] == ["The ticket is flagged urgent"]


def test_none_of_or_neither_of_before_a_subject_negates_its_claim():
    from claimwatch.core.validator import OutputValidator

    validator = OutputValidator()
    for text in ("None of the tests are failing.", "None of the tests failed.", "Neither of the pods is running."):
        (claim,) = validator.detect(text)
        assert claim.negative or claim.assertion.startswith("not_"), (text, claim)
    (plain,) = validator.detect("The tests are failing.")
    assert not plain.negative and not plain.assertion.startswith("not_")
    (quantified,) = validator.detect('None of them has "W-2" in the file name.')
    assert quantified.negative or quantified.assertion.startswith("not_")  # negated once, not twice
