"""Grounding precision (issue 12 spot-check): shapes of text that were graded FABRICATED though the trace
supports them or they assert nothing. All texts here are invented."""

from __future__ import annotations

import json

from claimwatch.grounding import FABRICATED, ground
from claimwatch.grounding.evidence import Passage


def test_a_date_is_found_in_an_iso_timestamp_when_the_time_follows_it():
    booking = json.dumps({"booking_id": "QX77PL", "opened_at": "2023-11-14T17:45:09"})
    report = ground("The booking was opened on 2023-11-14.", [booking])
    (claim,) = report.claims
    assert claim.grade.grade != FABRICATED
    assert claim.grade.evidence


def _transcript_grades(messages: list[dict], reply: str) -> dict[str, object]:
    from claimwatch.grounding import Grounder
    from claimwatch.grounding.trace import passages_from_messages

    passages, query = passages_from_messages(messages)
    report = Grounder().ground(reply, passages, query)
    return {c.claim.text: c.grade for c in report.claims}


def test_a_detail_from_the_agents_own_command_is_inferred_citing_the_action_when_no_tool_states_it():
    messages = [
        {"role": "user", "content": "Make the importer skip blank rows."},
        {"role": "assistant", "content": "THOUGHT: patch it.\n```bash\nsed -i '212,219d' ingest/rowreader.py\n```"},
        {"role": "user", "content": "<returncode>0</returncode>"},
    ]
    (grade,) = _transcript_grades(messages, "My edit removed the old loop in `ingest/rowreader.py`.").values()
    assert grade.grade == "INFERRED"
    assert "own action" in grade.reason


def test_tool_call_arguments_are_evidence_of_what_the_agent_did_but_its_prose_and_scratchpad_are_not():
    messages = [
        {"role": "user", "content": "Please move my trip."},
        {"role": "assistant", "content": "The new code is `KXQ88T`.",
         "tool_calls": [{"id": "c1", "name": "think", "arguments": '{"thought": "use voucher VCH-5521"}'},
                        {"id": "c2", "name": "rebook", "arguments": '{"trip_id": "TRP4410"}'}]},
        {"role": "tool", "content": '{"ok": true}'},
    ]  # fmt: skip
    grades = _transcript_grades(
        messages, "Trip TRP4410 was rebooked.\nThe voucher VCH-5521 was applied.\nIts code is `KXQ88T`."
    )
    assert grades["Trip TRP4410 was rebooked."].grade == "INFERRED"
    assert grades["The voucher VCH-5521 was applied."].grade == FABRICATED
    assert grades["Its code is `KXQ88T`."].grade == FABRICATED


def test_a_reasoning_claim_is_labelled_not_graded_when_the_evidence_lacks_its_figure():
    report = ground("Since the parcel left 36 hours ago, the return window has closed.", ['{"parcel": "shipped"}'])
    (claim,) = report.claims
    assert claim.claim.kind == "REASONING"
    assert claim.grade.grade is None
    assert report.decision.decision != "FAIL" and not report.fabricated


def test_hand_traces_equations_and_code_only_lines_are_reasoning_not_factual_claims():
    from claimwatch.grounding import FACTUAL, split_claims

    text = (
        "`tmp_node` = `Gt(7, 1)`\n`parse_args(9 > 8)`\n1990 - 1875 = 115 > 100.\n`07` -> 2007\nThe cache holds 12 rows."
    )
    kinds = {c.text: c.kind for c in split_claims(text)}
    assert kinds.pop("The cache holds 12 rows.") == FACTUAL
    assert set(kinds.values()) == {"REASONING"} and len(kinds) == 4


def test_a_heading_ending_in_a_colon_is_not_a_claim_but_a_price_sum_still_is():
    from claimwatch.grounding import FACTUAL, split_claims

    claims = split_claims("In `server/routes/api.py`:\nFare: $210 + $95 = $305")
    assert [(c.text, c.kind) for c in claims] == [("Fare: $210 + $95 = $305", FACTUAL)]


def test_a_reported_total_amount_stays_a_graded_fact_unless_it_opens_with_a_conclusion_word():
    from claimwatch.grounding import FACTUAL, split_claims

    kinds = {c.text: c.kind for c in split_claims("You were refunded a total of $412. So the total is $412.")}
    assert kinds == {"You were refunded a total of $412.": FACTUAL, "So the total is $412.": "REASONING"}


def test_a_sum_of_two_prices_from_another_passage_is_inferred_when_the_claim_names_its_operands():
    seats = list(range(300, 350))  # more numbers next to the booking than the nearest 40 a derivation tries
    booking = json.dumps({"booking_id": "QX77PL", "seat_map": seats, "legs": [{"leg": "A"}, {"leg": "B"}]})
    fares = json.dumps({"fares": [{"leg": "A", "price": 188}, {"leg": "B", "price": 244}]})
    (claim,) = ground("Fare for booking QX77PL: $188 + $244 = $432", [fares, booking]).claims
    assert claim.grade.grade == "INFERRED"
    assert "188 + 244" in claim.grade.reason


def test_a_money_key_inside_a_count_identifier_gives_no_contrast_for_an_amount():
    booking = json.dumps({"booking_id": "QX77PL", "total_items": 3})
    (claim,) = ground("Booking QX77PL: the total is $515.", [booking]).claims
    assert claim.grade.grade == FABRICATED
    assert "says 3" not in claim.grade.reason and "no evidence states it" in claim.grade.reason


def test_every_clause_of_a_plan_is_an_opinion_when_the_splitter_cuts_it_from_its_i_will():
    from claimwatch.grounding import FACTUAL, OPINION_KIND, split_claims

    claims = split_claims("I'll register the `ledger_sync` hook, and then wire `flush_queue` into the worker.")
    assert len(claims) == 2 and {c.kind for c in claims} == {OPINION_KIND}
    facts = split_claims("The worker registers the `ledger_sync` hook, and the queue holds 40 items.")
    assert [c.kind for c in facts] == [FACTUAL, FACTUAL]


def test_a_question_that_trails_off_is_not_a_claim():
    from claimwatch.grounding import split_claims

    assert split_claims("Maybe the `SHIM_TABLE` entry is there to catch `legacy_io` imports?...") == []


def test_a_likely_hedge_is_a_guess_not_a_fact():
    from claimwatch.grounding import OPINION_KIND, split_claims

    (claim,) = split_claims("`Ratio.simplify()` on a `Fraction` likely calls `gcd_terms`.")
    assert claim.kind == OPINION_KIND


def test_welcome_as_a_greeting_is_courtesy_but_a_welcome_party_is_a_fact_to_check():
    evidence = ["Maria: we should make a welcome party for Branwell. Ann: yes, in the garden!"]
    assert [c.claim.kind for c in ground("Welcome aboard, Anna.", evidence).claims] == ["OPINION"]
    (claim,) = ground("Friends plan a welcome party for Gandalf.", evidence).claims
    assert claim.claim.kind == "FACTUAL"
    assert claim.grade.grade == FABRICATED and "gandalf" in claim.grade.reason


def test_a_statement_no_document_word_supports_is_unsupported_but_tool_output_keeps_it_inferred():
    from claimwatch.grounding import Grounder
    from claimwatch.grounding.evidence import Passage

    doc = "Joe: we plan a small trip to Ukraine in January. Luke: it's February."
    reply = "Joe invites Luke on a trip to Ukraine. They express jealousy over his accommodations."
    graded = {c.claim.text: c.grade for c in ground(reply, [doc]).claims}
    unsupported = graded["They express jealousy over his accommodations."]
    assert unsupported.grade == FABRICATED and unsupported.confidence < 0.8
    assert unsupported.reason.startswith("unsupported: no evidence uses any of")
    assert graded["Joe invites Luke on a trip to Ukraine."].grade != FABRICATED
    tool = Passage(doc, source="tool_result")
    (_, same) = Grounder().ground(reply, [tool]).claims
    assert same.grade.grade == "INFERRED"


def test_a_line_number_from_grep_or_a_compiler_is_found_but_a_clock_time_is_not_a_number():
    grep = "<returncode>0</returncode>\n<output>\n241:def load_rows(path):\nimporter/rows.py:318: warning\n</output>"
    report = ground("`load_rows` starts at line 241 and the warning is on line 318.", [grep])
    assert [c.grade.grade for c in report.claims] == ["GROUNDED", "GROUNDED"]
    clock = ground("The job ran 30 times.", ["It last ran at 10:30 and again at 11:30."])
    (claim,) = clock.claims
    assert claim.grade.grade == FABRICATED and "30" in claim.grade.reason


def test_a_numeric_id_is_found_inside_a_tools_snake_case_name_but_not_as_the_tail_of_a_longer_number():
    wallet = json.dumps({"payment_methods": {"certificate_7504069": {"amount": 250}, "gift_card_90551784": {}}})
    report = ground("Certificate 7504069 holds $250.\nGift card 1784 is empty.", [wallet])
    grades = {c.claim.text: c.grade for c in report.claims}
    assert grades["Certificate 7504069 holds $250."].grade == "GROUNDED"
    assert grades["Gift card 1784 is empty."].grade == FABRICATED


def test_a_qualified_name_or_path_put_together_from_parts_the_agent_read_is_inferred_not_fabricated():
    listing = "<output>\nsrc/\n_inventory/\nledger.py\n</output>"
    source = "class StockLedger:\n    def reconcile(self, day):\n        return self.rows"
    grades = {
        c.claim.text: c.grade
        for c in ground(
            "`StockLedger.reconcile` returns the rows.\nThe code is in `src/_inventory/ledger.py`.\n"
            "`StockLedger.rebuild` clears them.\nSettings live in `conf.py`.",
            [listing, source],
        ).claims
    }
    assert grades["`StockLedger.reconcile` returns the rows."].grade == "INFERRED"
    assert "each in the evidence" in grades["`StockLedger.reconcile` returns the rows."].reason
    assert grades["The code is in `src/_inventory/ledger.py`."].grade == "INFERRED"
    assert grades["`StockLedger.rebuild` clears them."].grade == FABRICATED  # one part was never seen
    assert grades["Settings live in `conf.py`."].grade == FABRICATED  # a file name is listed whole or not


def test_a_prediction_with_i_expect_is_not_graded_but_as_expected_reports_an_outcome():
    report = ground("I expect the retry to fail with `QuotaError`.\nAs expected, the retry failed.", ["retry: failed"])
    kinds = {c.claim.text: c.claim.kind for c in report.claims}
    assert kinds["I expect the retry to fail with `QuotaError`."] == "OPINION"
    assert kinds["As expected, the retry failed."] == "FACTUAL"


def test_an_abbreviations_plural_is_not_a_name():
    report = ground("Here are the reservation IDs you have:", ['{"reservations": ["QX77PL", "LM20ZT"]}'])
    (claim,) = report.claims
    assert not [s for s in claim.claim.specifics if s.kind == "name"]
    assert claim.grade.grade != FABRICATED


def test_a_list_items_number_and_a_bulleted_verb_are_not_specifics():
    from claimwatch.grounding.text import specifics

    assert [s.kind for s in specifics("1. **Flight 2:** ATL to ORD on HAT227")] == ["id"]
    assert [s.kind for s in specifics("Reservation 3**: use the other certificate.")] == []
    assert "name" not in [s.kind for s in specifics("- Passed `edit_only` to the factory.")]
    assert [s.kind for s in specifics("You have 2 bags.")] == ["number"]  # a quantity stays one
    assert [s.value for s in specifics("- Sarah Lee approved it.") if s.kind == "name"] == [("sarah", "lee")]


def test_a_cards_last_digits_and_a_said_absence_are_inferred_but_an_unseen_card_or_name_is_not():
    wallet = json.dumps({"payment_methods": {"gift_card_1591784": {"balance": 40}}})
    report = ground(
        "The refund goes to the gift card ending in 1784.\nThe card ending in 4444 is charged.\n"
        "I don't see `RetryPolicy` in the module. `Backoff.jitter` picks the delay.",
        [wallet, "class Backoff:\n    def sleep(self): ..."],
    )
    grades = {c.claim.text: c.grade for c in report.claims}
    assert grades["The refund goes to the gift card ending in 1784."].grade == "INFERRED"
    assert grades["The card ending in 4444 is charged."].grade == FABRICATED
    assert grades["I don't see `RetryPolicy` in the module."].grade == "INFERRED"  # said absent: no problem
    code = grades["`Backoff.jitter` picks the delay."]  # a sentence of its own: it opens with inline code
    assert code.grade == FABRICATED and "`Backoff.jitter`" in code.reason
    (alone,) = ground("I don't see `RetryPolicy` in the module.", ["class Backoff: pass"]).claims
    assert alone.grade.grade == "INFERRED" and "absent from the evidence, as the claim says" in alone.grade.reason


def test_plans_with_an_adverb_alternatives_and_suspicions_are_not_graded():
    for text in (
        "I also need to add the current directory to `sys.path`.",
        "Or just catch the exception and print `qs.query`.",
        "Otherwise, use `XDG_DATA_HOME/pylint`.",
        "I suspect it is in `sphinx/domains/python.py`.",
        "The locale is not UTF-8, or something similar.",
    ):
        (claim,) = ground(text, ["nothing relevant"]).claims
        assert claim.claim.kind == "OPINION", text
    (claim,) = ground("The job printed `qs.query` twice.", ["nothing relevant"]).claims
    assert claim.claim.kind == "FACTUAL"


def test_a_question_before_inline_code_and_steps_opening_with_now_or_let_are_not_graded():
    grades = {
        c.claim.text: c.grade.grade
        for c in ground(
            "What if the separator is a tab? `\\t`.\nIs this right? `Order.objects.filter(id__in=ids)`\n"
            "Now run the v2 migration script.\nLet `width` be `W`.\n"
            "A simpler way is to use `SchemaEditor` to create the table.",
            ["def split(s): return s.split(',')"],
        ).claims
    }
    assert FABRICATED not in grades.values(), grades  # questions, a code fragment, steps, a suggestion
    assert not any(t.startswith(("What if", "Is this")) for t in grades)  # the questions are no claims


def test_a_short_range_in_the_evidence_states_both_its_ends():
    (claim,) = ground(
        "You asked for flights within 3-4 hours of the original departure.",
        ["User: anything within 3-4 hours of my original departure time works", "[]"],
    ).claims
    assert claim.grade.grade == "GROUNDED"
    (far,) = ground("The order is 7 days late.", ["order 3-4 days late; call 555-1234"]).claims
    assert far.grade.grade == FABRICATED  # neither end of the range, nor a phone number's parts


def test_a_claim_about_one_record_aligns_to_that_record_not_to_the_first_records_sharing_its_words():
    import json as _json

    listing = _json.dumps([{"flight": f"HAT{n:03d}", "status": "available", "seats": 9} for n in range(100, 112)])
    error = "Error: flight HAT030 not available on date 2024-05-13"
    (claim,) = ground("The flight HAT030 is not available on May 13, 2024.", [listing, error]).claims
    assert claim.grade.grade == "GROUNDED", claim.grade.reason
    assert any(hit.passage == 1 for hit in claim.grade.evidence)


def test_a_prefix_word_is_no_negation_of_a_three_letter_word():
    (claim,) = ground("The results were put into a table.", ["The input was stored in a results table."]).claims
    assert claim.grade.grade != FABRICATED, claim.grade.reason


def test_a_negated_key_or_a_bound_is_not_the_evidences_value_for_a_claimed_figure():
    booking = json.dumps({"reservation_id": "JQ81MG", "total_baggages": 1, "nonfree_baggages": 0})
    (bags,) = ground("You are entitled to 3 free checked bags.", [booking]).claims
    assert "says 0" not in bags.grade.reason  # nonfree_baggages counts the bags that are not free
    (hours,) = ground("The flight takes approximately 5 hours.", ["Cancel my flights longer than 3 hours."]).claims
    assert "says 3" not in hours.grade.reason  # a threshold the user set, not a flight's duration
    (late,) = ground("The parcel is 5 days late.", ["parcel status: 2 days late"]).claims
    assert late.grade.grade == FABRICATED and "says 2" in late.grade.reason  # a plain value still contrasts


def test_an_indented_bullets_verb_is_no_name_and_an_id_may_be_a_part_of_a_snake_case_name():
    grades = {
        c.claim.text: c.grade
        for c in ground(
            "Changes:\n*   Updated the formset.\n    *   Passed `edit_only` to the factory.\n"
            "`isinstance(data, bytes)` works in Py3.",
            ["def formset_factory(form, edit_only=False): ...\nif is_py3:\n    basestring = (str, bytes)"],
        ).claims
    }
    assert grades["Passed `edit_only` to the factory."].grade != FABRICATED  # 'Passed' opens the item
    assert grades["`isinstance(data, bytes)` works in Py3."].grade != FABRICATED  # py3 as in `is_py3`
    (other,) = ground("It works in Py4.", ["if is_py3: pass"]).claims
    assert other.grade.grade == FABRICATED


def test_hedges_worked_example_leads_and_code_constants_are_not_graded_as_facts():
    grades = {
        c.claim.text: c.grade.grade
        for c in ground(
            "This seems to set `skip_checks` on the parser.\n`CodePrinter` usually handles `Mul`.\n"
            "I assume `write_string` looks like `write`.\nInput `05`.\nMy logic: `1905`.\nCase 2: the year is 1976.",
            ["def call_command(name): pass"],
        ).claims
    }
    assert FABRICATED not in grades.values(), grades
    (constant,) = ground("The check returns False for `data`.", ["def check(data): return False"]).claims
    assert constant.grade.grade != FABRICATED, constant.grade.reason  # 'False' is no name
    reports = {c.claim.text: c.grade.grade for c in ground(
        "Case 81 is closed.\nOutput: 3 tests passed.", ['{"case": 81, "status": "open"}', "3 passed in 0.2s"]
    ).claims}  # fmt: skip
    assert reports == {"Case 81 is closed.": FABRICATED, "Output: 3 tests passed.": "GROUNDED"}


def test_a_version_is_one_specific_found_or_missing_as_a_whole():
    (same,) = ground("Version 2.8.1 is installed.", ["numpy 2.8.1"]).claims
    assert same.grade.grade == "GROUNDED"
    (other,) = ground("Version 2.8.1 is installed.", ["numpy 2.8.0"]).claims
    assert other.grade.grade == FABRICATED and "2.8.1" in other.grade.reason  # not "claimed number 2.8"


def test_a_three_character_token_with_a_digit_is_no_id_but_a_longer_one_is():
    (short,) = ground("`isinstance(data, bytes)` works in Py3 for `data`.", ["def f(data): return data"]).claims
    assert "Py3" not in short.grade.reason and "py3" not in str([s.value for s in short.claim.specifics])
    (long,) = ground("Order W81245 shipped.", ["order W77777 shipped"]).claims
    assert long.grade.grade == FABRICATED and "w81245" in long.grade.reason.lower()


def test_a_names_generic_head_noun_is_not_made_up_when_the_evidence_has_its_other_words():
    booking = json.dumps({"reservation_id": "QX77PL", "cabin": "economy", "flight": "HAT212"})
    (cabin,) = ground("I booked HAT212 in Economy Class.", [booking]).claims
    assert cabin.grade.grade != FABRICATED, cabin.grade.reason
    (other,) = ground("I booked HAT212 in Platinum Class.", [booking]).claims
    assert other.grade.grade == FABRICATED and "platinum" in other.grade.reason  # the telling word is missing


def test_the_list_items_after_a_plans_lead_in_are_steps_of_the_plan():
    grades = {c.claim.text: c.grade.grade for c in ground(
        "I'll create a script that:\n1. Checks `sys.stdout.mode`.\n2. Opens `out.bin` for writing.\n\n"
        "Results:\n- `capture.py` holds `EncodedFile`.\n- `sys.stdout.mode` is `rb+`.",
        ["class EncodedFile: pass  # capture.py"],
    ).claims}  # fmt: skip
    assert grades["Checks `sys.stdout.mode`."] is None and grades["Opens `out.bin` for writing."] is None
    assert grades["`sys.stdout.mode` is `rb+`."] == FABRICATED  # a list after a label, not a plan: still graded


def test_a_code_name_may_be_a_whole_part_of_a_longer_snake_case_name_when_it_is_not_short():
    (part,) = ground("`urlconf` is read from the settings.", ["urlconf = settings.ROOT_URLCONF"]).claims
    assert part.grade.grade != FABRICATED
    (short,) = ground("`save` writes the row.", ["def _save_parents(self): ..."]).claims
    assert short.grade.grade == FABRICATED  # a short name inside another is no evidence of it


def test_half_remembered_names_comparative_options_and_narrated_steps_are_not_graded():
    grades = {c.claim.text: (c.claim.kind, c.grade.grade) for c in ground(
        "`models.Index` uses the `_idx` suffix by default (I think). Easier way: use `SchemaEditor` here.\n"
        "THOUGHT: Now I modify `save_new_objects` to check `self.can_create`.\n"
        "The parser calls `parse_cli_option` or similar.\nI recall seeing `construct_instance` in the file.",
        ["def construct_instance(form, instance): ..."],
    ).claims}  # fmt: skip
    kinds = [kind for text, (kind, grade) in grades.items() if "construct_instance" not in text]
    assert kinds == ["OPINION"] * 4, grades
    assert grades["I recall seeing `construct_instance` in the file."] == ("FACTUAL", "GROUNDED")  # a report


def test_a_sed_address_range_states_both_its_ends_and_a_tracebacks_header_is_no_antonym():
    messages = [
        {"role": "user", "content": "Fix the loop."},
        {"role": "assistant", "content": "THOUGHT: look.\n```bash\nsed -n '100,120p' app/loop.py\n```"},
        {"role": "user", "content": "<output>    for row in rows:\n        total += row</output>"},
    ]
    (grade,) = _transcript_grades(messages, "Lines 100-120 of `app/loop.py` hold the loop.").values()
    assert grade.grade != FABRICATED, grade.reason
    trace = "Traceback (most recent call last):\n  File \"run.py\", line 3\n    print(qs)\nKeyError: 'qs'"
    (first,) = ground("The first `print(qs)` raises the `KeyError`.", [trace]).claims
    assert "'last'" not in first.grade.reason and first.grade.grade != FABRICATED


def test_a_scaled_or_rounded_figure_is_the_evidences_figure_at_the_claimed_precision():
    report = json.dumps({"revenue": 471236.18, "q3": 1221907.5, "weekend_dau": [148210, 150977]})
    grades = {c.claim.text: c.grade for c in ground(
        "Revenue was about $471K. Q3 came to $1.22 million. Weekend actives were 148-151K. Revenue was $480K.",
        [report],
    ).claims}  # fmt: skip
    assert grades["Revenue was about $471K."].grade == "INFERRED"
    assert grades["Q3 came to $1.22 million."].grade == "INFERRED"
    assert grades["Weekend actives were 148-151K."].grade == "INFERRED"
    assert grades["Revenue was $480K."].grade == FABRICATED  # 8,764 off: more than half of the claimed 1K step
    (same,) = ground("They may lose $5 million.", ["we may lose 5 mln bucks; budget 120k"]).claims
    assert same.grade.grade == "GROUNDED", same.grade.reason  # the same scale word in the evidence
    (k,) = ground("The budget is 120k.", ["Budget: Q2 total 120k; print 41k"]).claims
    assert k.grade.grade == "GROUNDED", k.grade.reason


def test_a_percent_or_a_rate_worked_out_from_the_figures_is_inferred_and_a_wrong_one_is_not():
    funnel = json.dumps({"visitors": 48210, "started": 9642, "verified": 7233, "seats": 35, "mrr": 1925})
    grades = {c.claim.text: c.grade for c in ground(
        "9,642 started signing up, a 20% start rate. About 75% of those verified their email. "
        "About 62% verified their phone. That is $55 per seat. That is $58 per seat.",
        [funnel],
    ).claims}  # fmt: skip
    assert grades["9,642 started signing up, a 20% start rate."].grade == "INFERRED"
    assert grades["About 75% of those verified their email."].grade == "INFERRED"
    assert grades["That is $55 per seat."].grade == "INFERRED" and "1925 / 35" in grades["That is $55 per seat."].reason
    assert grades["About 62% verified their phone."].grade == FABRICATED
    assert grades["That is $58 per seat."].grade == FABRICATED
    (change,) = ground("Revenue was $471K, up 16% from $405K.", [json.dumps({"oct": 471236, "sep": 405112})]).claims
    assert change.grade.grade == "INFERRED" and "change from" in change.grade.reason


def test_times_and_years_inside_iso_timestamps_are_found_and_a_network_prefix_is_no_figure():
    ticket = json.dumps({"id": "T-66102", "due_at": "2026-03-04T11:15:00Z", "opted_in_at": "2024-02-11T09:00:00Z"})
    grades = {c.claim.text: c.grade.grade for c in ground(
        "T-66102 is due at 11:15 UTC. She opted in in February 2024. She opted in in February 2023.", [ticket]
    ).claims}  # fmt: skip
    assert grades == {"T-66102 is due at 11:15 UTC.": "GROUNDED", "She opted in in February 2024.": "GROUNDED",
                      "She opted in in February 2023.": FABRICATED}  # fmt: skip
    (cidr,) = ground("The rule admits 10.20.0.0/16 on port 5432.", ["ingress: 10.20.0.0/16 tcp 5432"]).claims
    assert cidr.grade.grade == "GROUNDED", cidr.grade.reason
    (size,) = ground("143 images take 151.2GB.", ["Images 143 151.2GB"]).claims
    assert "151" not in size.grade.reason or size.grade.grade != FABRICATED


def test_a_negation_is_read_against_a_passage_only_when_the_passage_names_what_it_negates():
    order = json.dumps({"items": [{"sku": "SHELF-OAK", "status": "delivered"}, {"sku": "LAMP-2", "status": "damaged"}]})
    (fine,) = ground("The oak shelf from the same order was delivered and isn't affected.", [order]).claims
    assert fine.grade.grade != FABRICATED, fine.grade.reason
    (flipped,) = ground("Maria will not bring Branwell from the station.",
                        ["Maria: I will bring Branwell from the station tomorrow."]).claims  # fmt: skip
    assert flipped.grade.grade == FABRICATED and "negated" in flipped.grade.reason


def test_a_place_named_where_the_evidence_has_its_airport_code_is_found_and_another_place_is_not():
    flight = json.dumps({"flight": "BA117", "origin": "LHR", "destination": "JFK", "via": "DUB", "dep": "08:25"})
    grades = {c.claim.text: c.grade.grade for c in ground(
        "BA117 leaves Heathrow at 08:25 and stops in Dublin. BA117 leaves Gatwick at 08:25.", [flight]
    ).claims}  # fmt: skip
    assert grades == {"BA117 leaves Heathrow at 08:25 and stops in Dublin.": "GROUNDED",
                      "BA117 leaves Gatwick at 08:25.": FABRICATED}  # fmt: skip
    (word,) = ground("BA117 stops in Dublin.", ['{"flight": "BA117", "note": "dub the audio"}']).claims
    assert word.grade.grade == FABRICATED  # a lowercase word is no airport code


def test_day_ranges_units_attached_to_figures_and_parts_of_a_year_are_read_as_the_evidence_writes_them():
    stay = json.dumps({"check_in": "2026-01-09", "check_out": "2026-01-13", "bag": "1 x 23kg", "fix_ends": "2028-06-30"})
    grades = {c.claim.text: c.grade.grade for c in ground(
        "You are booked from 9 to 13 January. A 23 kg bag is included. The fix ends in mid-2028. "
        "Between 10 and 13 January the pool is shut.",
        [stay],
    ).claims}  # fmt: skip
    assert grades["You are booked from 9 to 13 January."] == "GROUNDED"
    assert grades["A 23 kg bag is included."] == "GROUNDED"
    assert grades["The fix ends in mid-2028."] == "GROUNDED"
    assert grades["Between 10 and 13 January the pool is shut."] == FABRICATED  # one claim: 10 January is not there


def test_a_figure_converted_at_a_rate_the_evidence_gives_is_inferred_within_its_about():
    quote = json.dumps({"car": "Dacia Duster", "price_isk": 71500, "eur_per_isk": 0.00664})
    (near,) = ground("The Dacia Duster is 71,500 ISK, about €475.", [quote]).claims
    assert near.grade.grade == "INFERRED" and "0.00664" in near.grade.reason
    (far,) = ground("The Dacia Duster is 71,500 ISK, about €520.", [quote]).claims
    assert far.grade.grade == FABRICATED


def test_a_count_in_words_is_found_as_a_figure_and_contradicted_only_by_another_count_of_the_same_thing():
    report = "The battery lasts 5 hours. NZ won by 4 wickets. Reservations: M05KNL, UHDAHF"
    grades = {c.claim.text: c.grade for c in ground(
        "The battery lasts about five hours. NZ won by six wickets. I found two reservations: M05KNL and UHDAHF.",
        [report],
    ).claims}  # fmt: skip
    assert grades["The battery lasts about five hours."].grade == "GROUNDED"
    assert grades["NZ won by six wickets."].grade == FABRICATED
    assert "4 wickets" in grades["NZ won by six wickets."].reason
    assert grades["I found two reservations: M05KNL and UHDAHF."].grade == "GROUNDED"  # the agent's own count
    listed = ground("Two friends, Steve and Carly, meet at Kings.", ["Steve: Kings at 8? Carly: sure"]).claims
    assert listed and all(c.grade.grade != FABRICATED for c in listed)


def test_a_negated_claim_agrees_with_a_passage_that_negates_the_same_word_in_its_own_way():
    for claim, passage in (
        ("The results have not yet been published.", "The early results look good. But nothing is published yet."),
        ("The letter says it points to asthma, not COPD.", "The test fits with asthma rather than COPD, the letter says."),
        ("INC-3391 is being monitored and is not resolved.", '{"incident": "INC-3391", "resolved": null, "status": "monitoring"}'),
    ):  # fmt: skip
        graded = ground(claim, [passage]).claims
        assert all("negated" not in c.grade.reason for c in graded), (claim, [c.grade.reason for c in graded])


def test_a_percent_change_is_worked_out_from_the_claims_own_figures_only_and_in_its_direction():
    figures = json.dumps({"tickets": 1840, "answered": 412, "satisfied": 358})
    (csat,) = ground("358 were satisfied, a CSAT of about 78%.", [figures]).claims
    assert csat.grade.grade == FABRICATED, csat.grade.reason  # 358 of 412 is 87%; 412 is 78% below 1840
    (fell,) = ground("Revenue fell 14% to $405K from $471K.", [json.dumps({"oct": 405112, "sep": 471236})]).claims
    assert fell.grade.grade == "INFERRED", fell.grade.reason


def test_a_month_or_quarter_said_without_a_day_is_found_as_the_evidence_writes_it_or_not_at_all():
    evidence = ['{"period": "2026-11", "solved": 1840, "q": "Q3 2026"} Met 2026-03-04. Reopens in June; Q3 sales up.']
    grades = {c.claim.text: c.grade.grade for c in ground(
        "In March the council met. In April the board met. Solved 1,840 tickets in November. "
        "Q3 sales rose. Q4 sales rose. It reopens in June. You may go in May.",
        evidence,
    ).claims}  # fmt: skip
    assert grades["In March the council met."] == "GROUNDED"  # a date in March
    assert grades["Solved 1,840 tickets in November."] != FABRICATED  # "2026-11"
    assert grades["Q3 sales rose."] == "GROUNDED" and grades["It reopens in June."] == "GROUNDED"
    assert grades["In April the board met."] == FABRICATED and grades["Q4 sales rose."] == FABRICATED
    assert grades["You may go in May."] == FABRICATED  # the month; "may" before "go" is the verb
    (verb,) = ground("Users may go to the June release.", evidence).claims
    assert verb.grade.grade != FABRICATED, verb.grade.reason


def test_swapped_directions_outcomes_and_frequencies_are_read_against_the_passage():
    doc = ("The company narrowed its full-year outlook. Billing is quarterly, by email. "
           "The team won after a losing run of four games; the new hotel wing is quiet at night.")  # fmt: skip
    for claim in ("The company widened its full-year outlook.", "Billing is annually, by email.",
                  "The hotel wing is noisy at night."):  # fmt: skip
        (graded,) = ground(claim, [doc]).claims
        assert graded.grade.grade == FABRICATED, (claim, graded.grade.reason)
    (same,) = ground("Billing is quarterly, by email.", [doc]).claims
    assert same.grade.grade != FABRICATED


def test_the_airport_table_is_read_when_a_grounding_check_starts_and_a_broken_table_is_no_error(monkeypatch):
    from claimwatch.checks.grounding import GroundingCheck, GroundingConfig
    from claimwatch.grounding import places

    places._codes_by_word.cache_clear()
    GroundingCheck(GroundingConfig())
    assert places._codes_by_word.cache_info().currsize == 1  # read at start-up, not in the first span
    places._codes_by_word.cache_clear()

    def broken():
        raise OSError("airports.csv unreadable")

    monkeypatch.setattr(places, "_codes_by_word", broken)
    places.warm_places()
    (claim,) = ground("BA117 leaves Heathrow.", ['{"flight": "BA117", "origin": "LHR"}']).claims
    assert claim.grade.grade == FABRICATED and "heathrow" in claim.grade.reason  # judged without the table


def test_a_code_holding_no_and_pythons_none_as_a_value_are_no_negation():
    record = '{"reservation_id": "NO6SVK", "status": "active"}'
    (code,) = ground("Reservation NO6SVK is active.", [record]).claims
    assert code.grade.grade == "GROUNDED" and not code.claim.negated
    (value,) = ground("`extra_select_mask` is None.", ["self.extra_select_mask = None"]).claims
    assert not value.claim.negated
    (negated,) = ground("Reservation NO6SVK is not active.", [record]).claims
    assert negated.claim.negated


def test_a_schedules_verb_and_a_numbered_steps_verb_are_no_names():
    flights = json.dumps([{"flight": "HAT286", "dep": "22:00", "arr": "01:00", "business": 399}])
    (row,) = ground("- **Flight HAT286:** Departs at 22:00, Arrives at 01:00, Business Class Price: $399", [flights]).claims
    assert row.grade.grade != FABRICATED and "arrives" not in row.grade.reason, row.grade.reason
    claims = ground("Recap:\n1. Insert lines at 1829.\n2. Ann and Bo signed.", ["Ann: signed. Bo: signed. line 1829"]).claims
    names = [s.value for c in claims for s in c.claim.specifics if s.kind == "name"]
    assert ("insert",) not in names and any("ann" in n for n in names)


def test_conditions_on_the_agents_own_acts_comparisons_of_code_and_predicted_output_are_not_graded():
    grades = {c.claim.text: c.claim.kind for c in ground(
        "`ModelA.f` and `ModelB.f` (if inherited or copied). `10.9` vs `10.9.5`.\n"
        "So `start_line` will be the LAST occurrence unless I break.\nThe script will print:\n- `typing` (from `typing.List`)\n\n"
        "The reservation cannot be cancelled unless the airline cancels the flight.",
        ["def f(): pass"],
    ).claims}  # fmt: skip
    assert grades["`ModelA.f` and `ModelB.f` (if inherited or copied)."] == "OPINION"
    assert grades["`10.9` vs `10.9.5`."] == "REASONING"
    assert grades["`typing` (from `typing.List`)"] == "OPINION"
    assert grades["The reservation cannot be cancelled unless the airline cancels the flight."] == "FACTUAL"  # a rule


def test_a_total_is_inferred_from_two_fares_one_search_result_lists_wherever_the_claim_aligns():
    search = json.dumps([{"flight": "HAT084", "prices": {"economy": 112}}, {"flight": "HAT266", "prices": {"economy": 130}}])
    booking = json.dumps({"reservation_id": "ZX12AB", "cabin": "economy", "total_price": 0, "status": "draft"})
    (total,) = ground("**Total Price:** $242 for reservation ZX12AB in economy.", [search, booking]).claims
    assert total.grade.grade == "INFERRED", total.grade.reason
    (wrong,) = ground("**Total Price:** $250 for reservation ZX12AB in economy.", [search, booking]).claims
    assert wrong.grade.grade == FABRICATED


def _grades(text: str, evidence: list[str]) -> dict[str, object]:
    return {c.claim.text: c.grade for c in ground(text, evidence).claims}


def test_a_figure_the_evidence_has_but_says_of_something_else_is_contradicted_by_its_count_of_that_thing():
    notice = "Skylane will fly two flights each weekday from June 3, with three crew bases in the region."
    wrong = _grades("Skylane will fly three flights each weekday.", [notice])
    (grade,) = wrong.values()
    assert grade.grade == FABRICATED and "two flights" in grade.reason, grade.reason
    (right,) = _grades("Skylane will fly two flights each weekday.", [notice]).values()
    assert right.grade != FABRICATED, right.reason
    # Several counts of one noun (a list of records), or their sum, are no contradiction; nor is a figure
    # written alone, as a table's cell.
    stock = "Reno has 16 units on hand and 4 desks. Allentown has 25 units on hand."
    for claim in ("There are 41 units on hand in total.", "Allentown has 25 units on hand."):
        assert all(g.grade != FABRICATED for g in _grades(claim, [stock]).values()), claim
    table = "month   | orders | revenue\n2025-10 |  5630  | 212,400\n2025-09 |  4120  | 170,800\n1 order was refunded."
    (cell,) = _grades("October had 5630 orders.", [table]).values()
    assert cell.grade != FABRICATED, cell.reason


def test_a_figure_worked_out_from_others_yields_to_the_evidences_count_of_the_same_unit():
    label = json.dumps({"drug": "Atorvastatin 20 mg tablet", "sig": "take 1 at bedtime", "quantity": 90})
    (dose,) = _grades("Your atorvastatin is 40 mg.", [label]).values()
    assert dose.grade == FABRICATED and "20 mg" in dose.reason, dose.reason
    (range_end,) = _grades("Guidance is 86,000 boe per day.", ["Guidance stays at 82,000 to 86,000 boe per day."]).values()
    assert range_end.grade != FABRICATED, range_end.reason


def test_a_passage_negation_of_something_else_does_not_contradict_the_claim():
    report = ("One firefighter was treated for heat exhaustion at the scene and did not need hospital care. "
              "The drug did not reduce falls in the trial.")  # fmt: skip
    (treated,) = _grades("One firefighter was treated on site for heat exhaustion.", [report]).values()
    assert treated.grade != FABRICATED, treated.reason
    (falls,) = _grades("The drug reduced falls in the trial.", [report]).values()
    assert falls.grade == FABRICATED and "negated" in falls.reason, falls.reason


def test_a_negated_claim_is_read_against_what_its_negator_negates_and_the_passages_own_ways_of_saying_no():
    cases = (
        ("The suite isn't green: 2 tests failed, 99 passed.", "FAILED tests/test_a.py::t1\nFAILED tests/test_b.py::t2\n2 failed, 99 passed in 3.1s"),
        ("I wasn't able to cancel order ORD-1 because it has already been handed to DHL.",
         '{"error": "cannot_cancel", "message": "Order has already been handed to the carrier.", "carrier": "DHL", "order": "ORD-1"}'),
        ("Your prescription RX-77 has no refills left.", '{"rx": "RX-77", "drug": "atorvastatin", "refills_remaining": 0}'),
        ("Your Tdap booster isn't due until March 2027.", '{"due": [{"vaccine": "tdap booster", "date": "2027-03-03"}]}'),
        ("The attempt at 77 Station St failed because nobody was home.",
         '{"address": "77 Station St", "status": "failed", "reason": "customer not home"}'),
    )  # fmt: skip
    for claim, passage in cases:
        graded = ground(claim, [passage]).claims
        assert all("negated" not in c.grade.reason for c in graded), (claim, [c.grade.reason for c in graded])


def test_a_figure_written_where_no_number_is_read_is_found_as_written_but_not_in_a_date_or_a_time():
    readings = '{"readings": [{"date": "2026-11-26", "bp": "131/84"}], "k": "5.6 mmol/L (3.5-5.1)"}'
    grades = _grades("Your last reading was 131/84, and potassium was 5.6 against a range of 3.5-5.1.", [readings])
    assert all(g.grade != FABRICATED for g in grades.values()), [g.reason for g in grades.values()]
    (day,) = _grades("It came to 26 units.", ['{"date": "2026-11-26", "bp": "131/84"}']).values()
    assert day.grade == FABRICATED, day.reason  # the 26 of a date is no figure of units


def test_a_ratio_is_no_figure():
    (meeting,) = ground("Your 1:1 with Marco is at 11:00.", ['{"title": "1:1 with Marco", "start": "11:00"}']).claims
    assert [s.kind for s in meeting.claim.specifics if s.kind == "number"] == []
    assert meeting.grade.grade != FABRICATED, meeting.grade.reason


def test_a_swapped_word_the_evidence_says_elsewhere_is_read_against_the_claims_own_sentence():
    report = ("Storage in the northern zone stood at 71.3%, 6.8 points below the median for the week. "
              "In the southern zone storage was 84.0%, above the median of 80.5%.")  # fmt: skip
    (wrong,) = _grades("The southern zone, at 84.0%, was below its median.", [report]).values()
    assert wrong.grade == FABRICATED and "'above'" in wrong.reason, wrong.reason
    (right,) = _grades("The southern zone, at 84.0%, was above its median.", [report]).values()
    assert right.grade != FABRICATED, right.reason


def test_a_day_range_an_id_spaced_otherwise_and_another_quantity_of_a_noun_are_read_as_the_evidence_writes_them():
    notice = "Deferred exams will be held from 11 to 15 January 2027. Weekly report, week 47 of 2026."
    grades = _grades("Deferred exams run from 11 to 15 January 2027, as the week-47 report says.", [notice])
    assert all(g.grade != FABRICATED for g in grades.values()), [g.reason for g in grades.values()]
    record = "Term GPA 3.39 (15 graded credits). Credits earned this term: 16."
    (credits,) = _grades("You earned 16 credits this term.", [record]).values()
    assert credits.grade != FABRICATED, credits.reason  # "15 graded credits" counts another quantity


def test_a_total_over_records_is_inferred_from_one_column_of_all_of_them_or_of_those_the_claim_names():
    statement = (
        "date        description              amount      balance\n"
        "2026-11-21  TESCO STORES 2231        -64.18     2,354.59\n"
        "2026-11-22  TFL TRAVEL CH             -8.50     2,346.09\n"
        "2026-11-27  TESCO STORES 2231        -41.06     2,305.03\n"
    )
    (tesco,) = _grades("You spent £105.24 at Tesco.", [statement]).values()
    assert tesco.grade == "INFERRED" and "total of 2" in tesco.reason, tesco.reason
    pending = json.dumps([{"id": "a", "amount": -89.99}, {"id": "b", "amount": -62.30}, {"id": "c", "amount": -62.30}])
    (total,) = _grades("Your pending payments come to €214.59.", [pending]).values()
    assert total.grade == "INFERRED", total.reason
    (wrong,) = _grades("Your pending payments come to €224.59.", [pending]).values()
    assert wrong.grade == FABRICATED, wrong.reason


def test_a_duration_is_inferred_from_the_claims_own_times_a_records_start_and_end_or_a_clock_it_is_written_as():
    (outage,) = _grades("The outage lasted 6 hours 35 minutes, from 03:10 to 09:45 UTC.", ["mast RS-114 down 03:10, up 09:45"]).values()
    assert outage.grade != FABRICATED, outage.reason
    events = json.dumps([{"summary": "Standup", "start": "2026-11-30T09:15", "end": "2026-11-30T09:30"}])
    (standup,) = _grades("The standup lasts 15 minutes.", [events]).values()
    assert standup.grade == "INFERRED" and "15 minutes" in standup.reason, standup.reason
    (longer,) = _grades("The standup lasts 25 minutes.", [events]).values()
    assert longer.grade == FABRICATED, longer.reason
    sla = "TICKET   SLA_REMAINING\nBL-9931  -00:42 (BREACHED)"
    (breached,) = _grades("BL-9931 has breached its SLA by 42 minutes.", [sla]).values()
    assert breached.grade != FABRICATED, breached.reason


def test_a_place_is_found_by_its_code_its_peoples_adjective_its_own_name_or_its_time_zone():
    for claim, evidence in (
        ("A Danish trial enrolled 2,256 adults.", "We assigned 2,256 adults in Denmark to vitamin D or placebo."),
        ("The Netherlands had the highest order value.", "country | orders | aov\nNL      |   4310 | 84.15"),
        ("The cheapest route changes in Geneva.", '{"change_at": "Genève", "fare_eur": 74.40}'),
        ("The slot is 14:00 to 15:30 Eastern.", '{"free": ["14:00-15:30"], "tz": "America/New_York"}'),
    ):
        graded = ground(claim, [evidence]).claims
        assert all("names" not in c.grade.reason for c in graded), (claim, [c.grade.reason for c in graded])
    # A country code is a code only in capitals: the "it" of a sentence is no Italy.
    (italy,) = ground("The order shipped from Italy.", ["It shipped on Monday from the warehouse."]).claims
    assert italy.grade.grade == FABRICATED and "italy" in italy.grade.reason, italy.grade.reason


def test_shares_as_fractions_column_totals_of_a_tables_rows_about_durations_and_a_quarter_of_dated_months():
    table = (
        "SELECT country, orders, share_of_revenue FROM eu_sales ORDER BY 3 DESC LIMIT 4;\n"
        " country | orders | share_of_revenue\n DE | 12480 | 0.341\n FR | 9105 | 0.241\n NL | 4310 | 0.140\n IT | 4922 | 0.108\n"
    )
    grades = _grades("Germany took 34% of revenue. Together the four made up about 83% of revenue.", [table])
    assert all(g.grade != FABRICATED for g in grades.values()), [g.reason for g in grades.values()]
    (churn,) = _grades("Across all four countries, 30,817 orders were placed.", [table]).values()
    assert churn.grade != FABRICATED, churn.reason  # the orders column, not the query line's 3 and 4
    (median,) = _grades("Bug reports took about 4 days at the median.", ["category | median_hours\nbug | 96.5"]).values()
    assert median.grade == "INFERRED" and "96.5 hours" in median.reason, median.reason
    dated = "WHERE paid_at >= '2025-07-01' AND paid_at <= '2025-09-30'"
    (quarter,) = _grades("Revenue for the third quarter was up.", [dated]).values()
    assert "quarter" not in quarter.reason, quarter.reason


def test_a_negating_prefix_matches_the_evidences_negated_word():
    contract = "Either party may terminate for material breach if the breach is not cured within thirty (30) days."
    (uncured,) = _grades("Either side can terminate for an uncured material breach after 30 days.", [contract]).values()
    assert "'uncured'" not in uncured.reason, uncured.reason


def test_spot_check_f_shapes_a_spelled_count_a_linked_line_and_an_imperative():
    (bag,) = _grades("Additional Checked Bag: 1 checked bag", ["please add one checked bag to my booking"]).values()
    assert bag.grade != FABRICATED, bag.reason
    link = "see https://github.com/x/y/blob/main/django/db/models/manager.py#L84 and lines 87 and 88"
    (line,) = _grades("The issue description points to line 84.", [link]).values()
    assert line.grade != FABRICATED, line.reason
    (step,) = ground("Repeat this for each reservation HAT123.", ["reservations: HAT124"]).claims
    assert step.grade.grade != FABRICATED, step.grade.reason


def test_code_the_claim_negates_need_not_be_in_the_evidence_and_a_trackers_last_modified_is_no_antonym():
    (params,) = _grades("This tests `params`, not `data`.", ['Request(method="POST", url=u, params=b"test=foo")']).values()
    assert params.grade != FABRICATED, params.reason
    issue = "Union queryset ordering breaks (last modified by Sergei Maertens). combined_queries = (self.query,) + rest"
    (first,) = _grades("`self.query` is the query of the first queryset in the union.", [issue]).values()
    assert "'last'" not in first.reason, first.reason


def test_a_figure_of_another_record_than_the_one_the_claim_names_is_fabricated():
    offers = json.dumps({"results": [
        {"flight": "BA117", "carrier": "British Airways", "fare": {"amount": 412.00}, "seats_left": 3},
        {"flight": "VS3", "carrier": "Virgin Atlantic", "fare": {"amount": 438.00}, "seats_left": 14},
    ]})  # fmt: skip
    (wrong,) = _grades("The cheapest nonstop is British Airways BA117 at £438.", [offers]).values()
    assert wrong.grade == FABRICATED and "another record" in wrong.reason, wrong.reason
    assert wrong.confidence < 0.8  # read from layout: below the flag threshold
    (right,) = _grades("The cheapest nonstop is British Airways BA117 at £412.", [offers]).values()
    assert right.grade != FABRICATED, right.reason
    # A claim naming two records compares them: no record to hold its figures to.
    (both,) = _grades("BA117 at £412 beats VS3 at £438.", [offers]).values()
    assert both.grade != FABRICATED, both.reason
    # Prose is no records.
    prose = "The BA117 fare is 412 pounds today.\nVirgin's VS3 costs 438 pounds.\nBoth leave Heathrow."
    (told,) = _grades("BA117 costs £438.", [prose]).values()
    assert "another record" not in told.reason, told.reason


def test_against_prose_a_figure_is_the_documents_not_one_worked_out_of_two_of_its_figures():
    article = "The chain plans to open six smaller-format stores next year and close 8 older ones; it has 2 outlets abroad."
    (stores,) = _grades("The chain plans to open 16 smaller-format stores next year.", [article]).values()
    assert stores.grade == FABRICATED, stores.reason  # not 2 x 8
    (minutes,) = _grades("The meeting ran for 90 minutes.", ["The meeting ran for 1.5 hours."]).values()
    assert minutes.grade != FABRICATED, minutes.reason  # a unit change is still the document's figure
    records = json.dumps({"outlets_abroad": 2, "closing": 8, "opening": 6})
    (worked,) = _grades("That is 16 store changes in all.", [records]).values()
    assert worked.grade != FABRICATED, worked.reason  # tool output: agents work figures out


def test_against_documents_a_modal_or_habitual_report_is_graded_but_the_writers_own_hedge_is_not():
    bill = "AB 2290 would extend the 12-week unpaid family leave requirement to employers with 20 or more workers."
    (wrong,) = ground("AB 2290 would extend the leave requirement to employers with 25 or more workers.", [bill]).claims
    assert wrong.claim.kind == "FACTUAL" and wrong.grade.grade == FABRICATED, wrong.grade.reason
    (hedge,) = ground("I think it would apply to employers with 25 or more workers.", [bill]).claims
    assert hedge.claim.kind == "OPINION"
    tool = json.dumps({"bill": "AB 2290", "threshold": 20})  # tool output is no document: a modal stays a guess
    (guess,) = ground("AB 2290 would apply to employers with 25 workers.", [Passage(tool, source="tool_result")]).claims
    assert guess.claim.kind == "OPINION"


def test_a_result_worked_out_of_the_claims_own_figures_in_the_operation_it_names_is_inferred():
    plan = json.dumps({"plan": "Family Share", "shared_data_gb": 60, "lines": [{"used_gb": 18.4}, {"used_gb": 34.1}]})
    (left,) = _grades("You have used 52.5 GB of the 60 GB allowance, which leaves 7.5 GB.", [plan]).values()
    assert left.grade != FABRICATED, left.reason
    (wrong,) = _grades("You have used 52.5 GB of the 60 GB allowance, which leaves 8.5 GB.", [plan]).values()
    assert wrong.grade == FABRICATED, wrong.reason
    tariff = json.dumps({"import_kwh": 206.6, "export_kwh": 51.7, "tariff": 0.28})
    (net,) = _grades("That's €57.85 of imports less €4.14 of export credit, €61.99 net.", [tariff]).values()
    assert net.grade == FABRICATED, net.reason  # 57.85 + 4.14, but the claim says "less"
