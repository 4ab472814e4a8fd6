"""Evidence grounding (issue 12): atomic claims, grades with citations, score, phase-6 decision, dynamic facts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from claimwatch.grounding import (
    APPROVE,
    FABRICATED,
    FACTUAL,
    GROUNDED,
    INFERRED,
    OPINION_KIND,
    REASONING_KIND,
    RETRY,
    REVISE,
    Grounder,
    Passage,
    Settings,
    format_issues,
    ground,
    split_claims,
)
from claimwatch.grounding.decision import split_goals
from claimwatch.grounding.dynamic import derive_facts
from claimwatch.grounding.trace import evidence_for, input_passages, span_passages
from claimwatch.otel.records import SpanRecord

CASES = Path(__file__).parent / "fixtures" / "grounding" / "cases.jsonl"
RESERVATION = json.dumps(
    {"reservation_id": "ZFA04Y", "flights": [{"flight_number": "HAT069", "date": "2024-05-20", "price": 121}],
     "total_baggages": 1, "nonfree_baggages": 0, "status": "confirmed"}
)  # fmt: skip


def grades(report) -> dict[str, str | None]:
    return {c.claim.text: c.grade.grade for c in report.claims}


# --- atomic claims -------------------------------------------------------------------------


def test_a_sentence_with_two_facts_is_split_into_two_claims_when_joined_by_and():
    claims = split_claims("Your flight is booked for May 20 and costs $320.")
    assert [c.text for c in claims] == ["Your flight is booked for May 20", "costs $320."]
    assert [s.kind for s in claims[1].specifics] == ["money"]


def test_plans_instructions_and_guesses_are_opinions_not_facts():
    text = "Modify `__hash__` to use `_hash_cache`. Inside `app`, I'll create `apps.py`. This should fix the bug."
    assert {c.kind for c in split_claims(text)} == {OPINION_KIND}
    assert [c.kind for c in split_claims("Update: flight HAT069 is delayed.")] == [FACTUAL]


def test_questions_greetings_and_code_blocks_are_not_claims():
    text = "Hello!\nWould you like to book it?\n```bash\nls -la /etc\n```\nThe file has 3 lines."
    assert [c.text for c in split_claims(text)] == ["The file has 3 lines."]


def test_claims_are_classed_factual_reasoning_or_opinion():
    kinds = {c.text: c.kind for c in split_claims(
        "The flight departs at 6:00 AM. So the total is $242. I recommend the morning flight. I'll book it now."
    )}  # fmt: skip
    assert kinds == {
        "The flight departs at 6:00 AM.": FACTUAL,
        "So the total is $242.": REASONING_KIND,
        "I recommend the morning flight.": OPINION_KIND,
        "I'll book it now.": OPINION_KIND,
    }


# --- grades --------------------------------------------------------------------------------


def test_an_amount_the_evidence_contradicts_is_fabricated_citing_the_evidence_value():
    report = ground("Your reservation ZFA04Y has 2 checked bags.", [RESERVATION])
    (claim,) = report.claims
    assert claim.grade.grade == FABRICATED
    assert "claimed 2" in claim.grade.reason and "says 1" in claim.grade.reason
    (hit,) = claim.grade.evidence
    assert RESERVATION[hit.start : hit.end] == "1"
    assert RESERVATION[: hit.start].endswith('"total_baggages": ')


def test_a_specific_no_evidence_states_is_fabricated_and_says_it_is_missing():
    report = ground("Your confirmation code is QX7781Z.", [RESERVATION])
    (claim,) = report.claims
    assert claim.grade.grade == FABRICATED
    assert claim.grade.reason == "claimed id QX7781Z: no evidence states it"


def test_specifics_the_evidence_states_are_grounded_and_cited():
    report = ground("Flight HAT069 on 2024-05-20 costs $121.", [RESERVATION])
    (claim,) = report.claims
    assert claim.grade.grade == GROUNDED
    cited = {RESERVATION[h.start : h.end] for h in claim.grade.evidence}
    assert {"hat069", "2024-05-20", "121"} <= {c.lower() for c in cited}


def test_a_sum_of_evidence_numbers_is_inferred_with_the_arithmetic_as_reason():
    report = ground("The two tickets cost $350 together.", ['{"prices": [{"economy": 121}, {"economy": 229}]}'])
    (claim,) = report.claims
    assert claim.grade.grade == INFERRED
    assert claim.grade.reason == "$350 = 121 + 229"


def test_a_time_in_another_notation_is_grounded():
    report = ground(
        "It departs at 6:00 AM and arrives at 12:00 PM.", ['{"departure": "06:00:00", "arrival": "12:00:00"}']
    )
    assert set(grades(report).values()) == {GROUNDED}


def test_a_status_word_the_evidence_contradicts_is_fabricated():
    report = ground("Flight HAT069 is delayed.", ['{"flight_number": "HAT069", "status": "on time"}'])
    (claim,) = report.claims
    assert claim.grade.grade == FABRICATED
    assert claim.grade.reason.endswith("says on time")


def test_all_tests_pass_after_a_run_that_printed_failures_is_fabricated():
    run = "<returncode>1</returncode><output>===== 2 failed, 10 passed in 3.1s =====</output>"
    report = ground("All tests pass now.", [Passage(run, "tool_result", "3f2a" * 4, "gen_ai.tool.call.result", "bash")])
    (claim,) = report.claims
    assert claim.grade.grade == FABRICATED
    assert claim.grade.confidence >= 0.8
    assert "says 2 failed" in claim.grade.reason and "span 3f2a3f2a" in claim.grade.reason


def test_a_name_no_evidence_mentions_is_fabricated_but_a_code_gloss_is_not():
    evidence = ['{"origin": "MIA", "destination": "IAH", "passengers": [{"first_name": "Ethan"}]}']
    report = ground("Your trip from Miami (MIA) is booked for Ethan and Johnny.", evidence)
    (claim,) = report.claims
    assert claim.grade.grade == FABRICATED
    assert claim.grade.reason == "names 'johnny', which no evidence mentions"


def test_an_antonym_of_what_the_passage_says_is_fabricated():
    evidence = ["The proposed method is efficient and converges faster than the baseline on all benchmarks."]
    report = ground("The proposed method is inefficient and converges faster than the baseline.", evidence)
    claim = report.claims[0]
    assert claim.grade.grade == FABRICATED
    assert claim.grade.reason.startswith("claimed 'inefficient'")


def test_the_same_stem_behind_the_opposite_prefix_is_a_swapped_word():
    evidence = ["We discount pre-stimulus baseline activity, which improves decoding on data with strong baselines."]
    for claimed, opposite in (("post-stimulus", "pre-stimulus"), ("encoding", "decoding")):
        text = evidence[0].replace(opposite, claimed)
        claim = ground(text, evidence).claims[0]
        assert claim.grade.grade == FABRICATED, claimed
        assert claim.grade.reason.startswith(f"claimed '{claimed}'"), claim.grade.reason


def test_with_no_evidence_nothing_is_grounded_and_the_reason_says_no_evidence():
    report = ground("Your flight HAT069 costs $121 and departs at 6:00 AM.", [])
    assert report.no_evidence and report.grounding_score is None
    assert {c.grade.grade for c in report.claims} == {None}
    assert {c.grade.reason for c in report.claims} == {"no evidence"}
    assert report.to_dict()["evidence"] == "none"


def test_cut_evidence_lowers_the_confidence_of_a_missing_specific_below_the_flag_threshold():
    cut = '{"flights": [{"flight_number": "HAT069", "price": 121}, {"flight_nu... [710 more characters]'
    report = ground("Flight HAT070 is also available.", [cut])
    (claim,) = report.claims
    assert claim.grade.grade == FABRICATED
    assert claim.grade.confidence < 0.8
    assert "cut short" in claim.grade.reason


def test_every_fabricated_grade_cites_evidence_or_states_what_is_missing():
    rows = [json.loads(line) for line in CASES.read_text().splitlines()]
    for row in rows:
        for c in ground(row["text"], row["evidence"], row["query"]).claims:
            if c.grade.grade == FABRICATED:
                assert c.grade.evidence or "no evidence" in c.grade.reason, (row["id"], c.grade.reason)


@pytest.mark.parametrize("case", [json.loads(line) for line in CASES.read_text().splitlines()], ids=lambda c: c["id"])
def test_labelled_airline_replies_are_graded_as_labelled(case):
    report = ground(case["text"], case["evidence"], case["query"])
    fabricated = [c for c in report.claims if c.grade.grade == FABRICATED]
    reasons = " | ".join(c.grade.reason for c in fabricated)
    for value in case["expect"]["fabricated"]:
        assert value in reasons, (value, reasons)
    flagged = " | ".join(c.grade.reason for c in fabricated if c.grade.confidence >= 0.8)
    for value in case["expect"]["flagged"]:
        assert value in flagged, (value, flagged)
    for c in fabricated:
        assert any(v in c.grade.reason for v in case["expect"]["fabricated"]), c.grade.reason
        if c.grade.confidence >= 0.8:
            assert any(v in c.grade.reason for v in case["expect"]["flagged"]), c.grade.reason


# --- score and decision ----------------------------------------------------------------------


def test_the_score_weighs_inferred_claims_by_the_configured_weight():
    evidence = ['{"prices": [{"economy": 121}, {"economy": 229}]}']
    text = "One ticket costs $121. The two tickets cost $350 together."
    assert ground(text, evidence).grounding_score == pytest.approx(0.75)
    assert Grounder(Settings(inferred_weight=0.8)).ground(text, evidence).grounding_score == pytest.approx(0.9)


def test_a_grounded_answer_to_the_question_is_approved():
    report = ground("Flight HAT069 costs $121.", [RESERVATION], query="How much is flight HAT069?")
    assert report.decision.decision == APPROVE
    assert all(report.decision.checks.values())
    assert report.decision.issues == ()


def test_a_fabricated_claim_is_never_approved_and_the_hints_name_it():
    text = "Flight HAT069 costs $121. Your reservation has 2 checked bags."
    report = ground(text, [RESERVATION], query="What does my reservation include?")
    assert report.decision.decision != APPROVE
    assert report.decision.checks["no_hallucinations"] is False
    hints = report.decision.revision_hints or report.decision.suggested_fixes or ""
    if report.decision.decision == REVISE:
        assert "2 checked bags" in hints


def test_an_answer_that_misses_what_was_asked_fails_the_query_check():
    report = ground("Flight HAT069 departs on 2024-05-20.", [RESERVATION], query="How much does the flight cost?")
    assert report.decision.checks["query_addressed"] is False
    assert any("query goal not addressed" in i for i in report.decision.issues)


def test_a_query_with_two_goals_and_one_unanswered_is_revised_by_the_matrix():
    query = "How much is flight HAT069? Also, how many bags are on reservation ZFA04Y?"
    assert len(split_goals(query)) == 2
    report = ground("Flight HAT069 costs $121.", [RESERVATION], query=query)
    statuses = [g.status for g in report.decision.goals]
    assert statuses.count("FAIL") == 1
    assert report.decision.decision == REVISE


def test_factual_claims_with_no_evidence_send_the_agent_back_for_data():
    report = ground("Flight HAT069 costs $121. It departs at 6:00 AM.", [], query="What does HAT069 cost?")
    assert report.decision.checks["claims_supported"] is False
    assert report.decision.decision in (REVISE, RETRY)
    assert any(i.startswith("no evidence") for i in report.decision.issues)


def test_format_problems_are_named():
    issues = format_issues("See https://example.com/x for **details. The table:\n| a | b |\n| c |\nand then the")
    assert "raw URL instead of a markdown link" in issues
    assert "unbalanced bold markers (**)" in issues
    assert "table rows with different numbers of cells" in issues
    assert "ends mid-sentence (truncated?)" in issues
    assert format_issues("See [the docs](https://example.com/x). **Done.**") == []


# --- evidence from spans ----------------------------------------------------------------------

TRACE = "ab" * 16


def test_tool_results_documents_and_input_messages_become_cited_evidence():
    tool = SpanRecord(TRACE, "1" * 16, None, "execute_tool get_flight_status",
                      {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_flight_status",
                       "gen_ai.tool.call.arguments": '{"flight_number": "HAT039"}', "gen_ai.tool.call.result": "delayed"},
                      end_ns=10)  # fmt: skip
    retriever = SpanRecord(TRACE, "2" * 16, None, "retrieve",
                           {"openinference.span.kind": "RETRIEVER",
                            "retrieval.documents.0.document.content": "Bags over 23 kg cost $100."}, end_ns=20)  # fmt: skip
    messages = [
        {"role": "system", "parts": [{"type": "text", "content": "You are an airline agent."}]},
        {"role": "user", "parts": [{"type": "text", "content": "Is HAT039 on time?"}]},
        {"role": "tool", "parts": [{"type": "tool_call_response", "id": "c1", "response": {"status": "delayed"}}]},
    ]
    llm = SpanRecord(TRACE, "3" * 16, None, "chat", {"gen_ai.input.messages": json.dumps(messages)}, end_ns=30)
    passages, query = evidence_for(llm, [tool, retriever])
    assert query == "Is HAT039 on time?"
    assert [(p.source, p.span_id, p.key) for p in passages] == [
        ("tool_result", "1" * 16, "gen_ai.tool.call.result"),
        ("retrieval", "2" * 16, "retrieval.documents.0.document.content"),
        ("system_message", "3" * 16, "gen_ai.input.messages[0]"),
        ("user_message", "3" * 16, "gen_ai.input.messages[1]"),
        ("tool_message", "3" * 16, "gen_ai.input.messages[2]"),
        ("agent_action", "1" * 16, "gen_ai.tool.call.arguments"),  # what the agent did, after all else
    ]
    assert passages[0].tool_name == "get_flight_status" and passages[0].arguments == '{"flight_number": "HAT039"}'


def test_anthropic_sdk_tool_span_result_blocks_are_a_cited_tool_result():
    # The anthropic SDK's tool runner, recording content: the result's content blocks under its own key; the
    # next call's input (its own span) sends them back as a tool_call_response of blocks: the same evidence.
    blocks = json.dumps([{"type": "text", "text": "Reservation K7QX2: 1 checked bag, $120."}])
    tool = SpanRecord(TRACE, "6" * 16, None, "anthropic.custom_tool_use get_reservation",
                      {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_reservation",
                       "gen_ai.tool.call.id": "toolu_01", "gen_ai.tool.call.arguments": '{"code":"K7QX2"}',
                       "anthropic.tool_result.content": blocks}, end_ns=10)  # fmt: skip
    (p,) = span_passages(tool)
    assert (p.source, p.tool_name, p.key, p.text) == (
        "tool_result", "get_reservation", "anthropic.tool_result.content", "Reservation K7QX2: 1 checked bag, $120."
    )
    answer = [{"role": "user", "parts": [{"type": "tool_call_response", "id": "toolu_01", "response": json.loads(blocks)}]}]
    llm = SpanRecord(TRACE, "7" * 16, None, "chat", {"gen_ai.input.messages": json.dumps(answer)}, end_ns=20)
    passages, _ = evidence_for(llm, [tool])
    assert [(q.source, q.span_id) for q in passages if q.source != "agent_action"] == [("tool_result", "6" * 16)]


def test_tool_results_the_server_holds_are_read_from_the_earlier_calls_of_the_trace():
    # The anthropic SDK's tool runner on message threads: each call sends only the new turn.
    def call(n: int, *messages) -> SpanRecord:
        return SpanRecord(TRACE, f"{n:016x}", None, "chat", {"gen_ai.input.messages": json.dumps(messages)}, end_ns=n)

    def result(call_id: str, text: str) -> dict:
        return {"role": "user", "parts": [{"type": "tool_call_response", "id": call_id, "response": text}]}

    ask = call(1, {"role": "user", "parts": [{"type": "text", "content": "What does K7QX2 include?"}]})
    looked_up = call(2, result("toolu_01", "Reservation K7QX2: 1 checked bag, $120."))
    installed = call(3, result("toolu_02", "Successfully installed requests"))
    passages, query = evidence_for(installed, [ask, looked_up])
    assert query == "What does K7QX2 include?"
    assert [(p.source, p.span_id, p.text[:10]) for p in passages] == [
        ("user_message", ask.span_id, "What does "),
        ("tool_message", looked_up.span_id, "Reservatio"),
        ("tool_message", installed.span_id, "Successful"),
    ]
    # A client that sends the conversation back each time: its own input is the evidence, as before.
    history = call(4, {"role": "user", "parts": [{"type": "text", "content": "Install it."}]},
                   {"role": "assistant", "parts": [{"type": "tool_call", "id": "c1", "name": "bash", "arguments": {}}]},
                   result("c1", "Successfully installed requests"))  # fmt: skip
    passages, query = evidence_for(history, [ask, looked_up])
    assert query == "Install it." and {p.span_id for p in passages} == {history.span_id}


def test_openinference_tool_spans_and_indexed_input_messages_are_read():
    tool = SpanRecord(TRACE, "4" * 16, None, "tool", {"openinference.span.kind": "TOOL", "tool.name": "bash",
                                                      "input.value": '{"command": "which node"}',
                                                      "output.value": "/usr/bin/node"})  # fmt: skip
    (p,) = span_passages(tool)
    assert (p.source, p.tool_name, p.text) == ("tool_result", "bash", "/usr/bin/node")
    llm = SpanRecord(TRACE, "5" * 16, None, "llm", {
        "llm.input_messages.0.message.role": "user", "llm.input_messages.0.message.content": "Is node installed?",
        "llm.input_messages.1.message.role": "tool", "llm.input_messages.1.message.content": "/usr/bin/node",
    })  # fmt: skip
    own, query = input_passages(llm)
    assert query == "Is node installed?"
    assert [p.source for p in own] == ["user_message", "tool_message"]


# --- dynamic facts ---------------------------------------------------------------------------


def _tool(text, command=None, tool="bash", span="7" * 16, args=None):
    arguments = json.dumps({"command": command}) if command is not None else args
    return Passage(
        text, "tool_result", span, "gen_ai.tool.call.result", tool, False, 1_700_000_000_000_000_000, arguments
    )


def test_which_exiting_with_a_path_makes_an_installed_fact_with_the_configured_ttl():
    (fact,) = derive_facts([_tool("/usr/bin/node", "which node")], ttl_seconds=120)
    assert (fact.fact.category, fact.fact.subject, fact.fact.value.state) == ("system_state", "node", "installed")
    assert fact.fact.ttl_seconds == 120
    assert fact.fact.updated_at.timestamp() == pytest.approx(1_700_000_000)
    assert fact.passage == 0


def test_which_finding_nothing_makes_a_not_installed_fact():
    (fact,) = derive_facts([_tool("<returncode>1</returncode><output></output>", "which node")], ttl_seconds=60)
    assert fact.fact.value.state == "not_installed"


def test_a_test_run_with_failures_makes_a_down_status_fact_and_a_clean_run_an_operational_one():
    (failed,) = derive_facts([_tool("=== 2 failed, 3 passed ===", "python -m pytest -q")], ttl_seconds=60)
    (clean,) = derive_facts([_tool("=== 5 passed in 0.1s ===", "pytest")], ttl_seconds=60)
    assert (failed.fact.subject, failed.fact.value.status) == ("tests", "down")
    assert clean.fact.value.status == "operational"


def test_a_flight_status_tool_result_becomes_a_fact_about_that_flight():
    (fact,) = derive_facts([_tool("delayed", tool="get_flight_status", args='{"flight_number": "HAT039"}')], 60)
    assert (fact.fact.subject, fact.fact.value.state) == ("HAT039", "delayed")


def test_user_messages_make_no_facts():
    assert derive_facts([Passage("which node: /usr/bin/node", "user_message")], ttl_seconds=60) == []


# --- the optional scorer plug-in ----------------------------------------------------------------


class _Scorer:
    """A stand-in for a team's model: asked only about claims the rules could not settle."""

    def __init__(self, score):
        self.asked: list[tuple[str, str]] = []
        self._score = score

    def score(self, claim: str, passage: str) -> float | None:
        self.asked.append((claim, passage))
        return self._score


def test_a_plugged_scorer_is_asked_only_about_unsettled_claims_and_can_settle_them():
    evidence = ["Ann asked Mike to buy butter. Mike said he would."]
    text = "Mike agreed to pick up some dairy for the household. Flight HAT069 costs $121."
    scorer = _Scorer(0.9)
    report = Grounder(scorer=scorer).ground(text, [*evidence, RESERVATION])
    assert [claim for claim, _ in scorer.asked] == ["Mike agreed to pick up some dairy for the household."]
    assert report.claims[0].grade.grade == GROUNDED and report.claims[0].grade.reason.startswith("scorer:")
    assert report.claims[1].grade.grade == GROUNDED  # settled by the rules, never asked


def test_a_failing_scorer_leaves_the_rules_grade_and_says_so():
    class Broken:
        def score(self, claim, passage):
            raise RuntimeError("model down")

    report = Grounder(scorer=Broken()).ground("Mike agreed to pick up some dairy for the household.",
                                               ["Ann asked Mike to buy butter."])  # fmt: skip
    (claim,) = report.claims
    assert claim.grade.grade == INFERRED
    assert "scorer failed: RuntimeError" in claim.grade.reason
