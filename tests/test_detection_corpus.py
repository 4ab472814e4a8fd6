"""Detection of the claim shapes real agents write (issue 10), and the labelled dev corpus itself.

The sentences below are the project's own, written in the shapes of the miss
classes measured on third-party agent text; the web/UI ones stand in for
browsing agents, which the dev corpus (airline and SWE agents) does not
cover. Precision and recall on the real corpus are measured by
`benchmarks/bench_detection.py`, not asserted here.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# text, expected category (any claim of it in the text will do)
SHAPES = [
    # process and UI state
    ("The import task is still in progress.", "system_state"),
    ("The search field is focused.", "system_state"),
    ("The settings page has loaded.", "system_state"),
    ("The checkout button is greyed out.", "system_state"),
    ("The modal is hidden behind the banner.", "system_state"),
    ("With Postgres running, the migration can start.", "system_state"),
    # observation and visibility
    ("No Submit button is visible on the form.", "system_state"),
    ("The menu doesn't list an Export entry.", "existence"),
    ("I haven't seen a success toast yet.", "system_state"),
    ("The toolbar shows two Delete buttons.", "existence"),
    # other predicates
    ("The metrics endpoint is unavailable.", "system_state"),
    ("Three imports are undefined.", "existence"),
    ("The linter does not recognize the `--strict` option.", "capability"),
    ("We cannot use sudo on this runner.", "capability"),
    ("Node 20 is required for the frontend build.", "capability"),
    ("No pending invoices match the query.", "existence"),
    # what an action left behind
    ("The cache key was not invalidated.", None),
    ("The template variable was not replaced.", "system_state"),
    ("Your booking has been cancelled.", "system_state"),
    # positive existence and containment
    ("There is a Dockerfile in the repository root.", "existence"),
    ("There is an available slot with the night nurse on Friday.", "existence"),
    ("The new parser works for the nested case.", "operational_status"),
    ("I'm unable to access the shared drive from this session.", "capability"),
    ("We are unable to provide information about other passengers.", "capability"),
    ("The footer is part of the base layout.", "existence"),
    ("`parse_args` is in `cli/main.py`.", "existence"),
    # first-person discovery
    ("I found the retry logic in `worker.py`.", "system_state"),
    ("The grep returned two matches for `load_config`.", "system_state"),  # discovery, GUIDE.md
    # run outcomes
    ("The flaky test still fails.", "operational_status"),
    ("The deprecation warning persists.", "operational_status"),
    ("The segfault is reproduced.", "operational_status"),
    ("The type check failed.", "operational_status"),
    ("There was an error with the deployment.", "operational_status"),
    ("The patched script runs without errors.", "operational_status"),
    ("My change fixes the bug.", "operational_status"),
    # subject kept
    ("SQLite doesn't support the `RETURNING` clause here.", "capability"),
    ("There is no sign of a retry header.", "existence"),
    # adverbs after the copula, hedges
    ("The token is also present.", "system_state"),
    ("The fixture is indeed defined.", "existence"),
    ("kubectl is probably not installed.", "system_state"),
    ("The proxy might not support websockets.", "capability"),
    # rules applied to the case, inability
    ("Basic economy tickets cannot be changed.", "capability"),
    ("I am unable to refund this order.", "capability"),
    ("You are eligible for a travel credit.", "capability"),
    # discovery and outcomes next to the shapes above that are not claims
    ("I found that file in the vendor folder.", "system_state"),
    ("The smoke test did not pass.", "operational_status"),
    # the same predicates next to the code-narration shapes below that are not claims
    ("The upload form is empty.", "system_state"),
    ("The lint job passed.", "operational_status"),
    ("`test_retry_backoff` passes.", "operational_status"),
    ("The worker is passing health checks.", "operational_status"),
    ("The migration is always enabled.", "system_state"),
    ("The tests that cover the parser fail.", "operational_status"),
    # a state said of what an owner does not have: the state, not possession
    ("We don't have `helm` installed on this runner.", "system_state"),
    ("The nightly profile does not have `TRACE` enabled.", "system_state"),
    ("The nightly profile does not have a `TRACE` section.", "existence"),
    # outcomes next to the expectation shapes below that are not claims
    ("As expected, the pid file is missing.", "existence"),
    ("So the signal handler is registered now.", "system_state"),
    ("This fare won't be refundable.", "capability"),
    ("Our staging cluster is called Orion.", "entity_name"),
    ("The canary build is passing.", "operational_status"),
    # quotes that close before the claim leave it asserted
    ('The "Gold" tier is not active.', "system_state"),
    ('The log prints "done" but the worker is still down.', "operational_status"),
    ("The sync job fails each time.", "operational_status"),
    ('I could not find "settings.toml" in the repo.', "system_state"),
    ('There is no "Archive" button on the page.', "existence"),
    ("In this case the token is missing.", "existence"),
    # who did it is the claim: a name, also as a user name without u/ or @
    ("The merge request !42 was opened by Roshan Patel.", "entity_name"),
    ('The post "Best sci-fi of 2022" was submitted by bookworm_77.', "entity_name"),
    # an ordering names a column, not a person: the state stays
    ("The file list is sorted by Date Modified.", "system_state"),
    ("The store is open.", "system_state"),
    # telegraphic notes, without an article
    ("Memory: Email sent. Next goal: open the calendar.", "system_state"),
    ("Username field focused.", "system_state"),
    # positive containment, a named place, an inability, an action without effect
    ("Column A contains region names.", "existence"),
    ('The event "Q1 roadmap sync" is on your Work calendar.', "existence"),
    ("I couldn't assign the issue to Roshan Jossy.", "capability"),
    ("The dropdown didn't open on the first click.", "system_state"),
    # what any thing on screen shows or lists
    ('The owner column still shows "me".', "system_state"),
    ('The Add-ons Manager lists "Send Later" as enabled.', "system_state"),
    # where a control is, a checked box, a bold key with its state, the agent on its instructions
    ('The "Next" button is at the bottom right.', "existence"),
    ('The "Garage" option is hidden under "More".', "existence"),
    ('"Maintain aspect ratio" is checked.', "system_state"),
    ("- **Bedtime mode:** not available on this device", "system_state"),
    ("My instructions don't include any VPN credentials.", "self_referential"),
    ("That's something I'm instructed to leave to a human.", "self_referential"),
    # counts that match or are left, what changed by itself, a live post
    ("143 properties match the free cancellation filter.", "system_state"),
    ("The setting saved automatically.", "system_state"),
    ("The post is live at /f/books/1287.", "system_state"),
    # a rejection or a time-out is an outcome
    ("The push was rejected.", "operational_status"),
    ("The Playwright call timed out.", "operational_status"),
    # a JSON narration value is the agent's own voice (UFO, Browser-Use), escaped quotes and all
    ('{\n  "Observation": "Notepad is open. The text area is focused.",\n  "Thought": "Type it."\n}', "system_state"),
    ('{"evaluation_previous_goal": "Success - the button says \\"Saved\\" and the filter is applied."}',
     "system_state"),
    # a screen saying something is what it displays, not reported speech; a noun before a state is no verb of saying
    ("The form now says the message was delivered.", "system_state"),
    ("The Reports menu has expanded.", "system_state"),
    # real web agents (benchmarks/data/web_real): an opening phrase before "there is", what a form holds once
    # typed into, where the agent or the user is, a search that found nothing, a page that leaves a thing out
    ("In the screenshot, there is a search button indicated with label [2].", "existence"),
    ('The departure city "Dublin" has been entered into the departure input box.', "system_state"),
    ("The flight search criteria have been set correctly.", "system_state"),
    ("You are currently on the Google Flights search page.", "system_state"),
    ("The current page is indeed the Google Flights search page.", "system_state"),
    ("The previous strategy did not yield the desired outcome.", "operational_status"),
    ("None of the recipes listed in the first ten results meet the criteria.", "existence"),
    ("The exact price is not provided on the page.", "existence"),
    ("The screenshot does not show the preparation time for the recipes.", "existence"),
    ("The new screenshot reveals additional baked salmon recipes.", "system_state"),
    # an option on offer is state; a feature said unavailable stays a capability
    ("The 24GB memory option is available.", "system_state"),
    ("The export feature isn't currently available.", "capability"),
    # real coding and customer-service agents (benchmarks/data/agent_real_dev, tool_real_dev)
    ("I wasn't able to find a patient record matching that name.", "system_state"),
    ("I need to inform you that this reservation is not eligible for cancellation.", "capability"),
    ("I'm unable to help with that request.", "capability"),
    ("These requests are outside of my authority.", "capability"),
    ("It seems there was an error processing your request.", "operational_status"),
    ("Thank you for running the speed test, John.", "entity_name"),
    ("- **JG7FMM** - Downgraded to economy\n", "system_state"),
    ("Your reservation is all set!", "system_state"),
    ("The script now runs correctly without syntax errors.", "operational_status"),
    ("We are not authorized to issue a full cash refund.", "capability"),
    ("The policy does not allow us to issue a higher-value voucher.", "capability"),
    ("✅ **JG7FMM** - Downgraded to economy, $6,274 refunded\n", "system_state"),
    # real web agents (benchmarks/data/web_real)
    ("I'm unable to complete the task of finding the cheapest flights under $1000.", "capability"),
    ("The task of adding items to the Amazon cart is currently unachievable.", "capability"),
    ("The goal of this task has been achieved.", "system_state"),
    ("The screenshot shows more NBA teams.", "existence"),
    # new real sets of the eleventh session (benchmarks/data/*_dev2): a discovery of a problem, what an edit left,
    # what a page offers, what an action brought up, an allowance, the agent's own attempt, a listing's options,
    # a button named after an idiom word, a reason clause
    ("I found the issue!", "system_state"),
    ("The file now reads correctly.", "system_state"),
    ("The Hugging Face Learn page offers several courses related to machine learning.", "existence"),
    ("This action has triggered a dropdown list of airport options.", "system_state"),
    ("As a gold member, you get 3 free checked bags.", "existence"),
    ("In this attempt, I was unsuccessful.", "operational_status"),
    ("I was unable to click the 3 foot option.", "capability"),
    ("The item has options 'white' and 'stereo sound'.", "existence"),
    ("In the accessibility tree, there is a button labeled Done.", "existence"),
    ("Since there is a Next button available, clicking it moves on.", "existence"),
    ("Calling the function with that reference number resulted in a bad request error.", "operational_status"),
    ("I do not have any capabilities related to booking tours.", "capability"),
    ("The authors of this paper are Diego Alves and Geivison Ribeiro.", "entity_name"),
    ("There have been no research papers announced in the last day.", "existence"),
    ("The MacBook Air models also support up to two external displays.", "capability"),
    ("I'm truly sorry to hear that you're still experiencing no connection, John.", "entity_name"),
    ("The following reservations remain active.", "system_state"),
    ("The changes have been committed. The commit includes:\n1. The new flag\n2. Its tests\n", "existence"),
    ("The issue is in the has_key method.", "existence"),
    ("The admin lives in django/contrib/admin/options.py, which contains the ModelAdmin class.", "existence"),
    ("The `to_native_string` function is already imported in the `models.py` file.", "existence"),
    ("The six library is already a dependency of requests.", "existence"),
    ("Good! test-output is already in .gitignore on line 5.", "existence"),
    ("The TVMaze API did not yield any results.", "system_state"),
    ("The search did not yield the desired results.", "operational_status"),
    ("I am still on the correct domain.", "system_state"),
    ("I don't have any information about availability of excursions in Basel.", "system_state"),
    ("The test run didn't provide output.", "system_state"),
    ("My search isn't returning any recommendations for tours in Basel.", "system_state"),
    ("I'm still not getting any hits on museum tours for your dates.", "system_state"),
    ("That broader search didn't return any additional museum options.", "system_state"),
    ("The search has also not produced any results.", "system_state"),
    ("As an airline booking assistant, my role is limited to searching and reserving flights.", "self_referential"),
    ("The changes we've made so far have addressed the issue of handling Unicode method names.", "operational_status"),
    ("I have fixed the issue.", "operational_status"),
    ("The tracking service is currently not functioning properly.", "operational_status"),
    ("It did not yield the required information about parking.", "operational_status"),
    ("There has been an issue with navigating to the United Airlines website.", "operational_status"),
    ("The previous edit introduced a lint error.", "operational_status"),
    ("We haven't been able to resolve your connection issue.", "operational_status"),
    ("The SEARCH block didn't match exactly.", "operational_status"),
    ("Running the tests, I got a `TypeError` in utils.py.", "operational_status"),
    ("The previous actions seem to have not yielded the desired information.", "operational_status"),
    ("I can see there are a few typos that need to be fixed.", "existence"),
    ("I see that there are existing tests for has_key in BaseCacheTests.", "existence"),
    ("I will first need to search Google, since there is no direct link to Rotten Tomatoes in the tree.", "existence"),
    ("It seems the error is occurring because we concatenate a Style object with a string.", "operational_status"),
    ("The crash still happens after the patch.", "operational_status"),
    ("The warning no longer occurs.", "operational_status"),
    ('- "Where from?" set to "CCJ"', "system_state"),
    ("Ticket set to **Solved**.", "system_state"),
    ('"Duplex printing" is set to "Off".', "system_state"),
]


@pytest.mark.parametrize(("text", "category"), [s for s in SHAPES if s[1]])
def test_claim_shape_is_detected_with_its_category(validator, text, category):
    claims = validator.detect(text)
    assert category in [c.category for c in claims], [(c.detector_id, c.matched_text) for c in claims]


@pytest.mark.parametrize(
    "text",
    [
        "Is the import task still in progress?",
        "Is there an available room on the third floor?",
        "The support team works on the billing queue.",
        "I can't stress enough how much the docs helped.",
        "There is no information about the refund yet.",
        "If the settings page has loaded, click Save.",
        "Make sure the search field is focused.",
        "You might want to check whether the toolbar shows two Delete buttons.",
        "Let me see whether the flaky test still fails.",
        "I'll check if the segfault is reproduced.",
        "I need to locate where the handlers are defined.",
        "```\n$ make lint\nThe type check failed.\n```",
        "fill('#reply', 'Hi Dana, your booking has been cancelled.')",
        # typed text in WebArena's action syntax, a JSON action, and a draft under the line announcing it
        "type [164] [Hi Jordan, the venue is confirmed and catering is booked.] [0]",
        '{"action": "fill", "selector": "#comment", "value": "The login page is broken on Safari 17."}',
        '{"Function": "set_edit_text", "Args": {"text": "The login page is broken on Safari 17."}}',
        "I'll draft the reply now:\n\n> Hi Ruth, the invoice has been updated.",
        "I'll type the following into the message box:\n\n\"Hi Lena, the disk alert fired again.\"",
        # a contracted first person is no checkable subject; "look up" and "online portal" are no status;
        # doubt is no limit; a hedge on a clause is no capability; opening hours are no UI state
        "I've opened LibreOffice Calc with the report.",
        "I'll look up the opening hours of the museum.",
        "I've logged into your bank's online portal.",
        "I can't be sure which date you meant.",
        "I clicked the icon. It's possible Firefox saved the file silently.",
        "Here is what I found about the pull request:",
        "The Rijksmuseum is open daily from 9:00 to 17:00.",
        "The museum says it was signed in 1648 in Osnabrück.",
        # a participle after an article is as often a reduced relative clause; a value contained; a modal
        "The email sent to Maria had a typo in the greeting.",
        "Files uploaded to the shared drive get scanned overnight.",
        'The address bar contains "https://docs.example.com".',
        "Make sure the config includes the key.",
        "I couldn't complete the task in time.",
        # evidence a coding agent reads, a value read out, code output
        "The traceback shows the call comes from the parser.",
        "The quantity field shows 120.",
        "The helper displays `[True]` for that input.",
        # a price, not a state; a number, not a place
        "The Logitech mouse is listed at $12.99.",
        "The value is under 50.",
        '<function=browser.type>{"text": "Hi Dana, the cache is unavailable"}</function>',
        "There is no immediate action needed.",
        "User confirmed the order.",
        "Refunds usually go back to the original payment method once a booking is cancelled.",
        "After the booking is complete, we email the receipt.",
        # what was learnt, not a thing found; a verb with an object, not a run outcome
        "I found out that the parser strips the header.",
        "We found earlier that the cache keys by tenant.",
        "I found that the handler swallows the error.",
        "The wrapper does not pass `timeout` to the client.",
        # a code identifier with a value, in any tense: the code's data, not a thing's state
        "One corner case: `rows` could be empty here.",
        "`buffer` was not empty after the loop.",
        # a verb with a code object, or a participle after what is handed to a call
        "The factory passes `retries` through `**options`.",
        "The loader seems to be passing `encoding=None` to the reader.",
        "I expected it to keep the flag value passed.",
        "It ignores the keyword arguments passed.",
        # a general statement: "usually" after the copula, as before the subject
        "A vendored copy is usually allowed for small helpers.",
        # an embedded question: nothing is asserted about the things it names
        "The patch only changes which rows are selected in the join.",
        "The counter records how many workers are running.",
        "The summary lists which services are down.",
        "That decides what handlers are registered at startup.",
        # what a test or a change should bring about: an expectation, not a claim
        "The new case expects that the pid file is missing after shutdown.",
        "It should also assert the scratch schema does not exist.",
        "The wrapper ensures the output folder exists before the copy.",
        "I moved the call so that the signal handler is registered first.",
        "The aim is that every shard passes on its own.",
        "The expected behaviour is that the column is not required.",
        # a prediction, a call, a participle or an object: not a claim of the category
        "Then the cleanup hook won't be invoked at all.",
        "The hook is called FIRST in the chain.",
        "The worker is passing their own token to the API.",
        "The `env` passed here is a copy of the parent's.",
        "My recollection failed me on that one.",
        # quoted text is reported, not asserted by the agent
        'The bug report says: "the upload endpoint is not reachable from the VPN."',
        "> The retry queue is missing from the dashboard.",
        'The ticket reads: "there is no retry header in the response".',
        'It says "the driver does not support savepoints on this backend."',
        # reported speech, unquoted: someone's words (or the agent's earlier ones), not the agent's assertion
        "The customer says the export has been stuck since Monday.",
        "A maintainer replied that a fix is merged for the next release.",
        "Earlier I told you the coupon had been applied, but that was wrong.",
        # a predicate inside quotation marks opened after its subject: the quoted words, reported
        'The SMTP error reads "Authentication failed while connecting to server".',
        'I searched for the claim "90% of startups fail" in the original study.',
        # a log line's key before the agent's own action; a verb with a date or a count for object; the task
        'Zendesk Support: opened view "Unassigned tickets".',
        "Oldest: #5812, opened Oct 29.",
        "The goal requires sending a message to Alex.",
        "I can see the following products in the accessibility tree:",
        # a date is no person; a drafted greeting, quoted, is typed text
        "The oldest order is from Nov 24.",
        "I found it hard to read the chart.",
        "The usage data I found is from 2023.",
        "The page I found suggests a later date.",
        "I replied to her:\n\n> Hi Marta, sorry about that.",
        # conditions said just before the subject
        "The alarm goes off as soon as the replica is down.",
        "Each time the sync job fails, it leaves a temp file.",
        "This path covers the case where the token is missing.",
        # the agent on its own task and next steps; an attribute and its value; a noun that looks like a verb
        "No further action is required.",
        "Further scrolling is required to see the rest of the list.",
        "The task requires the recipe to have over 100 reviews.",
        "The recipe has a rating of 4.7.",
        "The link could include comedy TV shows from 2010.",
        "There is a possibility that the page moved.",
        "Wait, there are multiple `@property` decorators.",
        "If the page is slow, there is a retry button.",
        # a policy read out is a general statement; what a tool call or an edit block holds is no assertion
        "According to our policy, passengers cannot be removed from an existing reservation.",
        "analytics.md\n<<<<<<< SEARCH\nNo personal information is collected.\n=======\nNo personal data is processed.\n"
        ">>>>>>> REPLACE\n",
        '<execute_bash>\ngit init && echo "Hello, Git!" > sample.txt\n</execute_bash>',
        "I can't help feeling this is slow.",
        # the agent's reasoning and its own offers; a perfect tense; what output should show
        "There are a few possibilities for the cause.",
        "I have some suggestions for the docs.",
        "We have successfully created the file.",
        "The output shouldn't show a bash code fence.",
        "Successfully committed the changes.",
        # "let's" is no copula; a dotted name's attribute is no verb; code narrated; an allowance on a condition
        "Let's clean up the temporary files.",
        "We use os.path.exists to check it.",
        "`lut` has size `N + 3`.",
        "The method's functionality remains the same.",
        "The function now returns None.",
        "If you upgrade, you get 2 free bags.",
        "The issue requires implementing a `__len__` method.",
        # a list of conditions is no list of facts; "shows" as a noun; a failed attempt named, not reported
        "You can change your flight online as long as these conditions are met:\n\n- Your ticket was not paid by voucher\n"
        "- Your booking does not contain waitlisted flights\n",
        "I will search for comedy shows using the tvmaze tool.",
        "Given the previous failed attempt, I will try another function.",
        "Here are the latest features and improvements of the release.",
        "The selected color is green.",
        "I can see from the accessibility tree that I should scroll.",
        # a perfect tense negated; a career told; a rating's value; a repository's tallies
        "Since you have not provided any details, let me know the dates.",
        "Messi had a remarkable career.",
        "The recipe has a 5.0 rating.",
        "The repository has 87 forks.",
        "If the problem is in utils, fix it.",
        "Let me see if the flag is set.",
        "The Allstars have contributed tens of millions to charity.",
        "The iPhone 15 Pro Max has a larger screen size compared to the 15 Pro.",
        "Your plan has a data limit of 5 GB.",
        "It removes the redundant exists() check.",
        "The average pass rate across runs is 80%.",
        # a noun after another kind of event; a participle before its noun; what someone concentrated on; a condition
        # with no subject; an amount ticked in a sum; a field's name; an edit block; what the agent has read so far
        "I may find movies or shows featuring the actor.",
        "To avoid repeating the same failed action, I will try another tool.",
        "The previous actions were focused on clicking the button.",
        "2. Once registered, call me back.",
        "It gives a better picture of the data across multiple runs.",
        "So 3 bags will cost: $0 ✓",
        "**Allows Returns**: True",
        "The `SEARCH` section contains the exact code of the method.",
        "Now that we have the full context of the file, we can add the import.",
        # what code gives back; a run's outcome said by its errors; the user's own situation told back
        "The function didn't return any value.",
        "The API call did not return any errors.",
        "It sounds like you're not getting any cellular service.",
        # a fix hoped for or to come
        "The changes should have fixed the issue.",
        "Once we have fixed the issue, we can deploy.",
        "This could introduce an error.",
        "If we can't fix the issue, call support.",
        "This avoids a KeyError.",
        "It raises a ValueError if the list is empty.",
        "You might get a TimeoutError.",
        "I compared both lists, which doesn't match.",
        "Let me see if there are any tests.",
        "Make sure that there is a backup.",
        # a part of a page or an app by its name, not who
        'The content seems to be for a game called "Word Scramble," which is not the target.',
        'Look for a section called "Network & Internet" in Settings.',
        # where a problem sits in the code (bug analysis), how code behaves, a condition
        "The error occurs in the generate_renamed_models method.",
        "The error occurs when the list is empty.",
        "If the error occurs again, restart.",
        'You can set to "Off" later.',
        '"t" is marked as used.',
    ],
)
def test_no_claim_when_the_shape_is_not_asserted(validator, text):
    claims = validator.detect(text)
    assert claims == [], [(c.detector_id, c.matched_text) for c in claims]

def test_items_of_a_list_of_findings_stay_claims(validator):
    text = "I checked the host. Here is what I found:\n- Redis is not running\n- The cache directory is empty\n"
    assert [c.category for c in validator.detect(text)] == ["system_state", "system_state"]


def test_positive_claims_confirm_facts():
    from claimwatch import OutputValidator

    v = OutputValidator(
        {
            "validation": {
                "factRegistries": [
                    {
                        "id": "r",
                        "facts": [
                            {
                                "id": "redis",
                                "category": "system_state",
                                "subject": "redis",
                                "value": {"type": "state", "state": "running"},
                            }
                        ],
                    }
                ]
            }
        }
    )
    result = v.validate("With Redis running, the worker can start.", agent_id="w", trust=10)
    assert [f.status for f in result.fact_checks] == ["confirmed"]
    assert result.verdict == "pass"


def test_pronoun_is_resolved_to_the_noun_phrase_before_it_and_never_blocks(validator):
    claims = validator.detect("Since the reservation is in basic economy, it cannot be modified.")
    assert [(c.category, c.subject) for c in claims] == [("capability", "the reservation")]
    assert claims[0].confidence < 0.8  # below the block threshold: the referent is a guess


@pytest.mark.parametrize(
    ("text", "negative"),
    [("Both are signed in on this browser.", False), ("Everything else is ready in the cart.", False),
     ("Nothing else is pending.", True), ("None of them is marked Urgent.", True)],
)
def test_quantifier_subject_is_a_claim_left_unchecked(validator, text, negative):
    from claimwatch.core.subjects import names_nothing

    claims = validator.detect(text)
    assert [c.category for c in claims] == ["system_state"], claims
    assert claims[0].negative is negative and names_nothing(claims[0])


def test_pronoun_without_referent_is_a_claim_no_fact_checks_and_no_policy_blocks(validator):
    claims = validator.detect("It is not installed.")
    assert [(c.category, c.subject) for c in claims] == [("system_state", "It")]
    assert claims[0].confidence < 0.8  # below the block threshold
    result = validator.validate("It is not installed.", agent_id="a", trust=10)
    assert result.fact_checks == () and result.violations == () and result.verdict == "pass"


# --- the labelled corpus ------------------------------------------------------------------------

DATA = ROOT / "benchmarks" / "data" / "agent_text_dev"


def _bench():
    if "bench_detection" in sys.modules:
        return sys.modules["bench_detection"]
    spec = importlib.util.spec_from_file_location("bench_detection", ROOT / "benchmarks" / "bench_detection.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_detection"] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


def test_dev_corpus_labels_every_message_and_every_span_is_in_its_message():
    bench = _bench()
    messages, labels = bench.load("all")
    labelled = set(re.findall(r"^@(\S+)", (DATA / "labels.txt").read_text(encoding="utf-8"), re.M))
    assert labelled == set(messages)
    assert len(messages) >= 600
    assert {m["source"] for m in messages.values()} == {"tau-bench/gpt-4o-airline", "mini-swe-agent/gemini-3-pro"}
    for label in labels:
        assert messages[label.message]["text"][label.start : label.end] == label.text


def test_written_web_corpus_loads_with_every_span_in_its_message(monkeypatch):
    bench = _bench()
    web = ROOT / "benchmarks" / "data" / "web_ui_written"
    monkeypatch.setattr(bench, "DATA", web)
    messages, labels = bench.load("all")
    labelled = set(re.findall(r"^@(\S+)", (web / "labels.txt").read_text(encoding="utf-8"), re.M))
    assert labelled == set(messages) and len(messages) == 3420
    assert {m["part"] for m in messages.values()} <= {"tune", "check"}
    checked, _ = bench.load("check")
    # no detector was tuned on them: blind set 23 (set 22 was opened in round 21)
    assert {m["source"] for m in checked.values()} == {"written/mixed-23"} and len(checked) == 150
    for label in labels:
        assert messages[label.message]["text"][label.start : label.end] == label.text


@pytest.mark.parametrize(
    ("corpus", "count", "prefix", "sources", "part"),
    [
        ("web_real", 168, "real-", 3, "check"),
        ("web_real_blind", 162, "blind-", 3, "check"),
        ("agent_real_blind", 193, "ab-", 4, "check"),
        ("agent_real_dev", 181, "ad-", 5, "tune"),
        ("tool_real_dev", 180, "td-", 3, "tune"),
        ("tool_real_blind", 150, "tb-", 3, "check"),
        ("agent_real_dev2", 161, "ad2-", 5, "tune"),
        ("web_real_dev2", 200, "wd2-", 4, "tune"),
        ("tool_real_dev2", 153, "td2-", 3, "tune"),
        ("mixed_real_blind", 165, "mb-", 3, "check"),
    ],
)
def test_real_agent_corpora_load_with_every_span_in_its_message(monkeypatch, corpus, count, prefix, sources, part):
    bench = _bench()
    folder = ROOT / "benchmarks" / "data" / corpus
    monkeypatch.setattr(bench, "DATA", folder)
    messages, labels = bench.load("all")
    labelled = set(re.findall(r"^@(\S+)", (folder / "labels.txt").read_text(encoding="utf-8"), re.M))
    assert labelled == set(messages) and len(messages) == count
    assert all(m.startswith(prefix) for m in messages) and {m["part"] for m in messages.values()} == {part}
    # public repositories, none more than half of the set
    of = [m["source"] for m in messages.values()]
    assert len(set(of)) == sources and max(of.count(s) for s in set(of)) <= count / 2
    assert len(labels) > 100
    for label in labels:
        assert messages[label.message]["text"][label.start : label.end] == label.text


def test_dev_corpus_parts_split_by_trajectory():
    bench = _bench()
    tune, _ = bench.load("tune")
    check, _ = bench.load("check")
    assert {m["trajectory"] for m in tune.values()}.isdisjoint({m["trajectory"] for m in check.values()})
    assert 0.1 < len(check) / (len(tune) + len(check)) < 0.3


def test_scoring_is_one_to_one_and_category_aware(validator):
    bench = _bench()
    text = "Docker is not installed. Redis is down."
    labels = [
        bench.Label("m", "system_state", True, False, False, 0, 23, text[0:23]),
        bench.Label("m", "system_state", False, False, False, 25, 38, text[25:38]),  # wrong category
    ]
    claims = validator.detect(text) + validator.detect(text)  # the same claims twice
    pairs, missed, extra = bench.match(labels, claims)
    assert len(pairs) == 1 and len(missed) == 1 and len(extra) == 3


def test_not_found_counts_as_system_state_or_existence(validator):
    bench = _bench()
    text = "The config file was not found."
    label = bench.Label("m", "existence", True, False, False, 0, len(text) - 1, text[:-1])
    pairs, _, _ = bench.match([label], validator.detect(text))
    assert len(pairs) == 1


@pytest.mark.parametrize(
    "text",
    ["The merge request !42 was opened by Roshan Patel.", 'The post "Best sci-fi" was submitted by bookworm_77.'],
)
def test_who_did_it_is_a_name_claim_not_also_a_state(validator, text):
    # One claim, the name: "was opened" is not counted again as the state of the request.
    assert [c.category for c in validator.detect(text)] == ["entity_name"]


# text, the categories of every claim detected in it, in order: where two categories could take a shape, the one
# GUIDE.md gives it (and only that one).
CATEGORY_OF_SHAPE = [
    # a page that renders or loads is a UI state ("the dashboard has loaded"); how well it renders is an outcome
    ("The preview page renders now.", ["system_state"]),
    ("The Traffic page loads, but the Sessions chart is empty.", ["system_state", "system_state"]),
    ("The homepage loads fine.", ["operational_status"]),
    ("The fonts render correctly now.", ["operational_status"]),
    # what an action left a record in is its state ("has been cancelled"); "gone" says only that it is not there
    ("The feature branch was deleted after the merge.", ["system_state"]),
    ("Column C was probably deleted and re-added.", ["system_state"]),
    ("The old listing is gone.", ["existence"]),
    # a board's lane is where a record stands; a folder is where a file is
    ("PLAT-913 is now in Done.", ["system_state"]),
    ("The card is still in Blocked.", ["system_state"]),
    ("The lease PDF is now in Documents.", ["existence"]),
    # a page that is up is on screen; a service that is up is healthy; "'s online" before a noun is an adjective
    ("The Chase login page is up.", ["system_state"]),
    ("Redis is up.", ["operational_status"]),
    ("State Farm's online flow stops after the ZIP code.", []),
    # what a portal takes, in the present, is what it allows; a code that was accepted is what the action left
    ("Only PDF and DOCX files are accepted by this portal.", ["capability"]),
    ("The discount code SPRING10 was accepted.", ["system_state"]),
    # telegraphic discovery, the user's session, a switch back on, a state said in brackets
    ("Found it: the invoice from 3 Nov, with a PDF attachment.", ["system_state"]),
    ("You're logged in now.", ["system_state"]),
    ("Wi-Fi is back on.", ["system_state"]),
    ("Wi-Fi is turned off (Airplane mode is on).", ["system_state", "system_state"]),
    # what the toast says is one claim; a state inside its quoted words is not another
    ('A toast says "Transition blocked: required field \'Fix Version\' is empty".', ["system_state"]),
    # a state in emphasis after its copula; what a change of state left the thing in
    ("The production deployment is **Ready**.", ["system_state"]),
    ("The refund is *pending*.", ["system_state"]),
    ("The release job is **failing** again.", ["operational_status"]),
    ('The status changed to "Under Review".', ["system_state"]),
    ("The field reverted to **Lead**.", ["system_state"]),
    ("- **Return Flights Changed to:**", []),
    # who may see the thing is its state; "open to" is still no state
    ("The shared calendar isn't visible to other users.", ["system_state"]),
    ("The maintainer is open to a smaller patch.", []),
    # a mode or view a thing is in, a process held at a prompt, a state as the page quotes it, counts found
    ("The site is in maintenance mode.", ["system_state"]),
    ("The file handle is in binary mode.", []),
    ('The terminal is waiting at the "[sudo] password" prompt.', ["system_state"]),
    ('The other three are "Approved".', ["system_state"]),
    ('9 orders have status "Refunded".', ["system_state"]),
    ("843 properties found.", ["system_state"]),
    # hedged existence after "there"; a count of one; what a click brought about
    ("There might be a modal dialog hidden behind the banner.", ["existence"]),
    ("There is currently no walking route displayed.", ["existence"]),
    ("The listing has only one blurry photo.", ["existence"]),
    ('Clicking "File a claim" opened a modal.', ["system_state"]),
    ('If clicking "Save" opened a dialog, close it.', []),
    # what a thing needs is what it takes; where the agent is, by an app's or a section's name
    ("The hotel's lookup form needs a last name.", ["capability"]),
    ("The parser needs to be fixed.", []),
    ("I'm in Marketing > All Reviews.", ["system_state"]),
    ("I'm in charge of the rollout.", []),
    # a check mark after a name inside a line is that thing's outcome; after what a step did or left, it is not
    ("Stages: Checkout ✓, Instrumented tests ✗.", ["operational_status", "operational_status"]),
    # (what the line says of its key is a state: "reminder sent", as the labeller of set 13 read it)
    ("- **#1047 Harbor Dental:** reminder sent ✅", ["system_state"]),
    # a thing on screen named by its quoted label shows its state; a backticked command's output does not
    ('The light "Bedside Left" shows "Unreachable".', ["system_state"]),
    ("`ls` shows analyze.py and fetch.py.", []),
    # what a field, menu or folder holds, quoted, is there; what a value in code holds is not
    ('The departure field already contains "Boston".', ["existence"]),
    ("The Downloads folder contains `Zoom.pkg`.", ["existence"]),
    ("The file is read where mode includes 'b'.", []),
    # an outcome a page gives a thing is the thing's outcome, not the page's state
    ("The CI badge shows the build as passing.", ["operational_status"]),
    ("The flight shows as **on time** right now.", ["operational_status"]),
    # what a search found, said of the search; where it went back to is none
    ("The search returned one account.", ["system_state"]),
    ("The search returned to the home page.", []),
    # an HTTP status an endpoint gave is its outcome; what code returns under a condition is behaviour
    ("The health check at `/healthz` returns 200.", ["operational_status"]),
    ("The backend health endpoint responds with 200.", ["operational_status"]),
    ("The view returns 404 when the object is missing.", []),
    # a telegraphic note ends at a comma, a colon or a dash before the next one; a key is no note
    ("Printer added, status Idle.", ["system_state"]),
    ('Invite sent: "Q1 roadmap sync", Tue Dec 2.', ["system_state"]),
    ("Last checked: today at 9:10.", []),
    # a copula sentence is no note: the copula's detector, with its confidence, takes it
    ("Redis is not installed.", ["system_state"]),
    ("Redis is missing.", ["existence"]),
    # an outcome said with when it happened, or what failed to happen; not what a check fails to see
    ("The upload failed the first time.", ["operational_status"]),
    ("nginx fails to start.", ["operational_status"]),
    ("The test fails to see the override.", []),
    # a resource named in backticks, in a state only a platform gives it; a code name with a value's state is no claim
    ("`main` is protected.", ["system_state"]),
    ("`xa` could be empty.", []),
    # what the user may not do is a capability; an instruction under a condition is none
    ("The thread is archived, so you can't reply to it.", ["system_state", "capability"]),
    ("If you can't log in, reset the password.", []),
    # round 19 (set 20: coding, ops and support agents with tools)
    # a value that moved is no status; a tally's next count is the same clause's claim
    ("Root usage on `db-replica-2` is down to 38%.", []),
    ("Errors are down by half since the fix.", []),
    ("The API is down.", ["operational_status"]),
    ("`pytest`: 17 passed, 0 failed.", ["operational_status"]),
    # a bare 'finished' is a process state, how well it finished an outcome
    ("The export finished.", ["system_state"]),
    ("The script finished without warnings.", ["operational_status"]),
    ("`npm install` completed with 2 peer-dependency warnings.", ["operational_status"]),
    ("I finished the task.", []),
    # the agent's own rules and tools are self-reference; what the rules say is that one claim
    ("My instructions for this workspace say I can't push directly to `main`.", ["self_referential"]),
    ("The policy I follow requires a fraud specialist to review it.", ["self_referential"]),
    ("That's outside what my tools allow.", ["self_referential"]),
    ("My guidelines only let me share what admins can see.", ["self_referential"]),
    ("I have a shell and file-editing tools in this repo.", ["self_referential"]),
    ("I don't have a browser here.", ["self_referential"]),
    ("I don't have access to your phone.", ["capability"]),
    # what the user reported, taken up with sympathy, is not the agent's claim
    ("I'm sorry to hear your card isn't working.", []),
    ("Glad to hear the app works again.", []),
    # a permission an account lacks is a capability; access alone stays where it was
    ("`etl_writer` has no privileges on `analytics`.", ["capability"]),
    ("My agent role doesn't have the refund permission.", ["capability"]),
    # behaviour, adjectives, tallies and headings are no UI state or event
    ("The pay button is rendered only after the Stripe iframe loads.", []),
    ("Not done: a cleanup job for expired rows.", []),
    ("`terraform apply` succeeded with 0 added, 2 changed, 0 destroyed.", ["operational_status"]),
    ("**Files changed**\n- `auth/session.py`", []),
    ("For Japan, the **Asia Travel Pass** covers both.", []),
    ("`Optional[str]` passed where `str` expected.", []),
    # an adverb between 'has' and 'been' hides neither the copula nor the result
    ("That migration has already been applied to the dev DB.", ["system_state"]),
    ("Docker has never been installed.", ["system_state"]),
    # a check's result in a summary is an outcome; of anything else 'clean' stays a state
    ("`ruff check .` is clean.", ["operational_status"]),
    ("Typecheck clean.", ["operational_status"]),
    ("black + isort OK.", ["operational_status"]),
    ("mypy: 3 errors, all in `reports/export.py`.", ["operational_status"]),
    ("`mypy auth/`: no errors.", ["operational_status"]),
    ("`go test ./api/...` has one failure.", ["operational_status"]),
    ("The working tree is clean.", ["system_state"]),
    ("The screen is black.", ["system_state"]),
    # states as ops tools print them; a class in backticks is no status
    ("The third pod is `Running`.", ["system_state"]),
    ("The three `payments-api` pods are in `CrashLoopBackOff`.", ["system_state"]),
    ("The function is in `MyClass`.", []),
    ("`new_checkout_flow` is currently **off** for everyone except staff.", ["system_state"]),
    ("Two different `URLResolver` instances are created.", []),
    # what a deployment serves; where code lives
    ("Revision `invoice-api-00014-xod` is serving 100% of traffic.", ["system_state"]),
    ("The ingress now serves the Let's Encrypt cert.", ["system_state"]),
    ("The cache is serving as a buffer.", []),
    ("`CurrencyFormatter` lives in `packages/i18n/src/format.ts`.", ["existence"]),
    ("She lives in Porto.", []),
    # run outcomes said with how they ended
    ("`docker compose up` exits immediately for the `worker` service.", ["operational_status"]),
    ("`git rebase origin/main` stopped with conflicts in two files.", ["operational_status"]),
    ("I stopped with the first two files.", []),
    ("`/v2/search` is returning 503s.", ["operational_status"]),
    ("The blocked card no longer works for Apple Pay.", ["operational_status"]),
    ("Both migrations apply cleanly on the prod snapshot.", ["operational_status"]),
    # account and resource states of support and ops agents
    ("You're currently on the **Flex 20GB** plan.", ["system_state"]),
    ("Replication slot is inactive.", ["system_state"]),
    ("The DB connection pool is saturated.", ["system_state"]),
    ("The alert has auto-resolved.", ["system_state"]),
    ("No hits for `requests_per_minute`.", ["system_state"]),
    ("Hi Jordan — I searched our billing system.", ["entity_name"]),
    # a value in bold after 'switched to'; what an ops action left a branch or a resource in
    ("Your line has been switched to **Unlimited Plus**.", ["system_state"]),
    ("The branch is rebased cleanly on `origin/main`.", ["system_state"]),
    ("WAL was recycled at the next checkpoint.", ["system_state"]),
    ("The container is being OOMKilled shortly after startup.", ["operational_status"]),
    ("A replacement is on its way.", ["system_state"]),
    # but a bold value a screen shows is read out, as a backticked one is
    ("The discount line shows **-$0.00**.", []),
    # round 20: what has not happened to a thing yet is the state it waits in, whatever the verb
    ("Ines hasn't responded yet.", ["system_state"]),
    ("The fix is probably not released yet.", ["system_state"]),
    ("Shipping label not purchased yet.", ["system_state"]),
    ("I haven't reserved yet.", []),
    # a status list's key is its subject whole, prepositions and all; a mark or an adverb may stand around the state
    ("- Mute participants on entry: off\n", ["system_state"]),
    ("- ❌ **Waiting room:** still on.\n", ["system_state"]),
    ("- **SSL certificate:** still pending\n", ["system_state"]),
    ("**Thought:** On the Members page, scrolling down.", []),
    # "No" and a noun phrase as a clause of its own says the thing is not there; below every other detector
    ("No reply yet.", ["existence"]),
    ("Status is Waiting for support; no assignee.", ["system_state", "existence"]),
    ("No refund was issued.", ["system_state"]),
    ("No worries! I can help.", []),
    ("No action needed right now.", []),
    ('The year alone is "1990". No letters, no spaces.', []),
    # the agent's own tools and memory are self-reference, as its shell and browser are
    ("I don't have a booking tool connected here.", ["self_referential"]),
    ("My toolset here is read-only.", ["self_referential"]),
    ("The repo doesn't have a lint tool configured.", ["existence"]),
    # what a thing has, in the plural and with no article, is there; a state or a value after it is not this claim
    ('Column D ("Region") has blanks in rows 14, 27 and 63.', ["existence"]),
    ("Daly City has openings next week.", ["existence"]),
    ("The store page has no reviews.", ["existence"]),
    ("It has values 0-255.", []),
    ("Standard file objects have string modes.", []),
    # a thing on screen over another is a UI state; of a policy, what it pays for
    ("A cookie consent dialog covers most of the page.", ["system_state"]),
    ("The keyboard is covering the Ingredients field.", ["system_state"]),
    ("The warranty covers the repair.", []),
    # "none of" a set has or is a thing, whatever the verb; a person out of office is a state a calendar gives
    ('None of them has "W-2" in the file name.', ["existence"]),
    ("None of the three museums offers free Sunday entry.", ["existence"]),
    ("D. None of the other options match the correct element", []),
    ("Tom is out of office until Dec 6.", ["system_state"]),
    # a second predicate after "and" / "but" shares the clause's subject; each predicate keeps its own claim
    ("The product has been saved and is now enabled on the storefront.", ["system_state", "system_state"]),
    ('The Outlook rule "Move newsletters" exists but is turned off.', ["existence", "system_state"]),
    ("I checked the logs and is running.", []),
    ('#90417 errored: "Ticket is closed and cannot be updated".', ["operational_status"]),
    # a progress note that only says what is still so
    ("Still spinning after the reload.", ["system_state"]),
    ("I still think so.", []),
    # a status as a note gives it, key and value; not a path through a menu
    ("Added her laptop to the group. Status → In progress.", ["system_state"]),
    ("Checked Status → Targets in the Prometheus UI.", []),
    # a telegraphic note: more states, where or to whom after it, bold, a point in its number; not an instruction,
    # how far the agent's own work got, or a record's id and its value
    ("Order placed. Trash emptied.", ["system_state", "system_state"]),
    ("Sorted by type. Inbox open.", ["system_state"]),
    ("Registered. Ticket emailed to alex.w@fastmail.com; see you there.", ["system_state"]),
    ("Summary: Dentist appointment added on Oct 17 at 3 PM.", ["system_state"]),
    ("**Payment scheduled** ✅", ["system_state"]),
    ("Notes:\n- Clause 4.2 updated (tracked change)\n", ["system_state"]),
    ("Keep the tab open.", []),
    ("Report partially done.", []),
    ("Statuses: 000000299 Pending, 000000187 Complete.", []),
    # a failure that comes back each time, of any subject; not under a condition
    ("`api` and `redis` are up, but `db` keeps restarting.", ["operational_status", "operational_status"]),
    ("The upload widget keeps spinning after I attach the PDF.", ["operational_status"]),
    ("If it keeps crashing, I may not be able to finish.", []),
    # when a thing came to be is its history, a value; what an action left it in stays a claim
    ("The customer account was created 40 minutes before the order.", []),
    ("Per the Federal Register, the rule was published on August 12, 2024.", []),
    ("The repository was archived last week.", ["system_state"]),
    # present in a list, a message or a record, with the words that say which one; not a board's column, not an id
    ("Kevin Tran is in the saved recipients list.", ["existence"]),
    ("The PNR is K7DQ2M; the ticket is also in your email.", ["existence"]),
    ("The loyalty number is not on the booking.", ["existence"]),
    ('ATLAS-212 "Export fails" is in the In Progress column.', ["system_state"]),
    ("The trip to Chicago (ORD) is under the reservation ID **FQ8APE**.", []),
    # what a fare or a room comes with, as a note; not a price's terms, not a summary's key and value
    ("2. **Sakura Terrace** — $176/night, 8.9, breakfast included.", ["existence"]),
    ("The $214 rate is for a Deluxe Double with breakfast not included.", ["existence"]),
    ("Total €149 per night, taxes included.", []),
    ("Summary:\n- **Insurance:** Not included\n", []),
    # a status in italics
    ("Order **#W7730214** has status *delivered*.", ["system_state"]),
    # a run's outcome as a telegraphic note; not a direction, the agent at work, an instruction
    ("PR checks passing.", ["operational_status"]),
    ("Checked the webhook log: export failing since Nov 23.", ["operational_status"]),
    ("Tests passing. Link broken.", ["operational_status", "operational_status"]),
    ("Scrolled down. Still working on it.", []),
    ("Keep tests green.", []),
    # bare "run" is a noun; "re-ran" the agent's own action
    ("I'm relying on the fix agent's run.", []),
    ("## QA run: signup flow on staging\n", []),
    ("Renamed the column and re-ran.", []),
    ("The product pages still work.", ["operational_status"]),
    # a hedge's adverb between the modal and "be"
    ("The screen is black. The VM may still be booting.", ["system_state", "system_state"]),
    ("There is no 1099-B in this folder; it might still be in your email.", ["existence", "existence"]),
    ("You may still be able to contact the seller.", []),
    # with what a thing is paired or linked is its state; "open to" is still no state
    ("The headphones might still be paired to the phone.", ["system_state"]),
    ("Your Hertz Gold membership is linked to your profile.", ["system_state"]),
    # discovery with the first person left out, as notes say it
    ("Sorted by type. Found ubuntu-24.04-desktop-amd64.iso in ~/Videos/old.", ["system_state"]),
    ("Found it: the invoice from 3 Nov.", ["system_state"]),
    ("Found that the handler swallows errors.", []),
    # in a group or a set: present in it
    ("It seems Beth Anglin is not a member of the Network group.", ["existence"]),
    ("The dropdown lists 6 offices and Riverside isn't among them.", ["existence", "existence"]),
    # what a calendar or a table already holds, named in quotes; not what a string holds, nor under a condition
    ("Your calendar already has \"Dentist\" at 14:30 on Wednesday.", ["existence"]),
    ("The mode was changed: \"wb+\" already has \"b\".", ["system_state"]),
    ("If I already have \"Jan 01\", it works.", []),
    # a counted idiom noun is a thing counted; uncounted it stays an idiom
    ("The filter is applied and 5 issues remain.", ["system_state", "existence"]),
    ("No worries, there's no issue.", []),
    # what is left, counted, with "left" alone as listings write it; time left is a value
    ("Free. 12 spots left. Registering now.", ["existence"]),
    ("Checkout is open: 2 minutes left.", ["system_state"]),
    # what an edit left, said of the edited thing, is its state; "fixed" said of a problem is an outcome; "not
    # implemented" in the present says the thing does not exist (real coding agents' labels, agent_real_dev)
    ("The typos in `bad.txt` have been corrected.", ["system_state"]),
    ("The typos in the file have been fixed.", ["system_state"]),
    ("The feature has been implemented.", ["system_state"]),
    ("The issue is fixed.", ["operational_status"]),
    ("The method is not implemented.", ["existence"]),
    # the task's state is a claim; where the agent's shell is, too
    ("The task is now complete.", ["system_state"]),
    ("It seems we are not in a git repository.", ["system_state"]),
    # what a finished action brought back, in the past, is a result; what a thing holds, in the present, existence
    ("The pack_send API did not provide the tracking details.", ["system_state"]),
    ("The accessibility tree does not provide the ratings of the deals.", ["existence"]),
]


def test_a_coordinated_predicate_takes_the_clause_subject_as_a_guess(validator):
    claims = validator.detect("The timesheet for the week of Nov 16 was submitted and is now locked.")
    locked = [c for c in claims if c.matched_text == "is now locked"]
    assert len(locked) == 1 and locked[0].subject == "The timesheet"
    # resolved like a pronoun: a guess, at a lower confidence than the same claim with its subject written out
    (plain,) = [c for c in validator.detect("The timesheet is now locked.") if c.detector_id == locked[0].detector_id]
    assert locked[0].confidence < plain.confidence
    # when an action happened is a value, as its date is
    text = "The reservation is in Basic Economy and was created more than 24 hours ago."
    assert not [c for c in validator.detect(text) if c.detector_id == "system_state.result"]


@pytest.mark.parametrize(("text", "categories"), CATEGORY_OF_SHAPE)
def test_shape_gets_the_category_the_guide_gives_it(validator, text, categories):
    claims = validator.detect(text)
    assert [c.category for c in claims] == categories, [(c.detector_id, c.matched_text) for c in claims]
