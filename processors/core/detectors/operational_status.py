"""Operational status and run outcomes: working or failing.

"the pipeline is broken", "build failed", "all services are down", "the lint
command failed", "the warning persists", "the crash is reproduced", "the fix
works", "the reproduction script confirms the issue", "there was a problem
with the upload", "your flight has been delayed".
"""

from ..patterns import DetectorSpec
from ._fragments import AFTER, COPULA, EMPH, NOT_YIELDED

# Not "stuck": a job or a dialog stuck on a step is a process state (system_state.ui), as GUIDE.md files it.
FAILING = (
    r"broken|down|failing|crashed|dead|offline|unreachable|unresponsive|unhealthy|degraded|erroring|hanging|corrupted|corrupt"
    r"|frozen|red|not\s+working|not\s+responding|out\s+of\s+service|in\s+a\s+crash\s*loop|crash-?looping|delayed"
    r"|rejected|declined|oom-?killed|oom\s+killed"
)
HEALTHY = (
    r"up|operational|working|healthy|green|passing|online|stable|up\s+and\s+running|working\s+fine"
    r"|responding|accepting\s+connections|functioning"
)
INFRA = (
    r"pipelines?|builds?|tests?|test\s+suite|deploy(?:ment)?s?|services?|servers?|databases?|db|queues?|clusters?"
    r"|jobs?|workflows?|ci|checks?|migrations?|releases?|workers?|nodes?|pods?|containers?|api|endpoints?"
    r"|gateway|website|site|app|runs?|cron"
)
# Outcomes of a run, said of whatever ran: "the reproduction script failed", "`test_foo` passed".
OUTCOMES = (
    r"failed|fails|passed|passes|pass|fail|succeeded|succeeds|crashed|errored|timed\s+out|broke"
    r"|hangs|hung|persists|persisted|went\s+away"
)

# After "down" or "up" (WORD), how far a value moved: "down to 38%", "up by 2x", "down 20%", "down from 61 GB", "up to 40".
_MOVED_VALUE = r"(?<=WORD)\s+(?:(?:to|from|by|about|around|roughly|nearly|almost|over|under)\s+)*[~$€£≈]?\d|(?<=WORD)\s+(?:by\s+)?(?:half|a\s+third|a\s+quarter|a\s+lot|sharply|slightly)\b"

# Linters and type checkers, and the test runners and build commands a coding agent names in backticks: what
# "clean", "OK", "green" or "no errors" is said of in a run's summary ("`ruff check .` is clean", "Typecheck clean",
# "black + isort OK", "`mypy auth/`: no errors").
_CHECKERS = (
    r"lint|linting|linter|typecheck|type[- ]?check(?:ing|er)?|types|mypy|pyright|ruff|eslint|flake8|black|isort"
    r"|pre-commit|tsc|clippy|prettier|pylint|rubocop|shellcheck|golangci-lint|go\s+vet|stylelint|biome"
)
_RUNNERS = (
    _CHECKERS + r"|pytest|jest|vitest|mocha|tox|nox|go\s+(?:test|build)|cargo\s+(?:test|check|clippy|build)"
    r"|(?:rails|bin/rails)\s+test|rspec|phpunit|(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?(?:test|lint|typecheck|build|check)"
    r"|make\s+(?:test|lint|check|build)|mvn\s+(?:test|verify)|gradle\w*\s+(?:test|check|build)|dotnet\s+(?:test|build)"
)
# The check as the subject: its name, "X + Y", or the command in backticks ("`pnpm --filter i18n test`").
_CHECK_SUBJECT = (
    r"(?P<subject>`(?:[\w./@=-]+[ \t]+)*?(?:" + _RUNNERS + r")\b[^`\n]*`|\b(?:" + _CHECKERS + r")"
    r"(?:[ \t]*(?:\+|and|&|/)[ \t]*(?:" + _CHECKERS + r"))*)"
)

# An outcome as a status list or checklist gives it.
_LISTED_OUTCOMES = (
    r"passing|failing|passed|failed|pass|fail|PASS|FAIL|PASSED|FAILED|green|red|broken|healthy|unhealthy"
    r"|degraded|down|up|operational|succeeded|success|flaky|timed\s+out|crashed|erroring|OK"
)

# What comes just before a predicate that makes it a prediction or a purpose, not a report: "would
# previously fail", "will pass", "to load"; and also a condition: "if it returns an error".
_HYPOTHETICAL = r"\b(?:would|will|should|shall|'ll|’ll|'d|’d|to)(?:\s+\w+ly|\s+still|\s+also|\s+now)?"
# What a fix removes, as the subject of operational_status.has_fixed and .not_fixed: "the issue", "both bugs".
_PROBLEMS = r"(?:issues?|problems?|bugs?|errors?|crash(?:es)?|regressions?|failures?)"
# A problem named as the subject of its own recurrence: "the error", "the same warning", "this race condition". The
# same nouns and a few a fix does not remove but a run can still meet.
_PROBLEM_SUBJECT = (
    r"\b(?P<subject>(?:the|this|that|same|an?)\s+(?:[\p{L}-]+\s+){0,2}?(?:" + _PROBLEMS
    + r"|exceptions?|warnings?|leaks?|timeouts?))\s+"
)
_HYPOTHETICAL_OR_CONDITION = (
    r"\b(?:would|will|should|shall|'ll|’ll|'d|’d|to|if|when|whenever|whether|might|may|could)"
    r"(?:\s+\w+ly|\s+still|\s+also|\s+now)?"
)

# Not an outcome after the verb: "fails to see", "passes the value", "remains to be seen" (behaviour or an idiom);
# "passes `extra` in `kwargs`" (a quoted or code object); "my memory failed me"; "`argv` passed here is the full
# list" (a participle, the verb comes after).
# But "fails to start", "failed to load" are outcomes of their own, and "passed this time", "failed the first time" say
# when, not what was passed.
_OUTCOME_NOT_AFTER = (
    r"\s+(?:to(?!\s+(?:start|load|launch|open|connect|boot|install|build|compile|render|save|upload|sync|respond)\b)"
    r"|the(?!\s+(?:first|second|third|last|next)\s+time\b)|this(?!\s+time\b)|that(?!\s+time\b)"
    r"|a|an|it|its|these|those|them|in\s+the\s+(?:list|dict|array)|unchanged"
    r"|(?:the\s+)?same|is|are|was|were|as\s+(?:a|an|the)|into|by|from|through|along|via)\b"
    r"|\s+[`'\"“‘]|\s+(?:me|us|you|him|her)\b"
    # "`Optional[str]` passed where `str` expected": a value handed to a call (a type checker's words).
    r"|(?<=passed)\s+where\b"
    r"|\s+(?:here|there|above|below|earlier|before|in)\s+(?:is|are|was|were|will|would|should|must|can)\b"
)
# "the mode string passed", "the arguments passed": a participle after what is given to a call. "Eval: Failed",
# "Evaluation of previous goal: Failed", "Status: passed": a label of the agent's own log format, not a thing.
_OUTCOME_NOT_SUBJECT = (
    r"\b(?:argument|arg|parameter|param|value|string|option|kwarg|keyword|mode)s?$"
    r"|^(?:eval|evaluation(?:\s+of\s+(?:the\s+)?previous\s+(?:goal|step|action))?|status|result|outcome|verdict|state)$"
)

# "renders", "loads now": no word of how well (see operational_status.works and system_state.loads).
_BARE_LOAD = r"(?:renders|rendered|loads|render|load)(?:[ \t]+(?:now|again|too|as\s+well|this\s+time))*"

# A run's outcome as a telegraphic note after its start: a short subject ("PR checks", "2 of 3 checks", "Link"), an outcome
# in the participle or a colour ("passing", "failing", "broken", "green"), and the clause's end, or since when ("export
# failing since Nov 23"). Not "down", "up", "working", "red": "Scrolled down.", "Still working on it.", "Text red." are
# no outcomes.
_OUTCOME_NOTE = (
    r"(?:\*\*)?(?P<subject>[\p{L}\p{N}`][\p{L}\p{N}_#`-]*(?:[ \t]+[\p{L}\p{N}_#`-]+){0,3}?)[ \t]+(?:(?:still|now|all|again)[ \t]+)?"
    r"(?P<cop>not[ \t]+)?(?P<state>passing|failing|broken|green|erroring|flaky|healthy|unhealthy|degraded|crashing"
    r"|timing\s+out)"
    r"(?:(?:\*\*)?[ \t]*(?:[.;!,:](?:\s|$)|\n|$|[—–(✅❌✔])|[ \t]+(?:since|on|in|for|after|again)[ \t]+[^\s.;!?,:]+"
    r"(?:[ \t]+[^\s.;!?,:]+){0,3}[ \t]*(?:[.;!,:(](?:\s|$)|\n|$))"
)

DETECTORS = (
    DetectorSpec(
        # A check's result in a coding agent's summary: "`ruff check .` is clean", "Typecheck clean", "black + isort
        # OK", "pre-commit all green". Only of a checker or a test command: "the working tree is clean" is a state.
        id="operational_status.check_clean",
        category="operational_status",
        family="operationalStatus",
        patterns=(
            _CHECK_SUBJECT + r"[ \t]*(?::|→|->|—|–)?[ \t]*(?:(?:is|are|was|were|came\s+back|comes\s+back|stays?|stayed"
            r"|now|still|also|all|again|fully)[ \t]+)*(?P<state>clean|ok|okay|green|happy)\b",
        ),
        assertion="passing",
        confidence=0.75,
        priority=2,  # over system_state.ui's "clean"
        # "black screen", "lint OK to merge?": only at a clause's end or before its next part.
        reject_after=r"[ \t]+(?:to|for|with|if|when|but\s+for)\b",
        examples=("`ruff check .` is clean.", "Typecheck clean.", "black + isort OK.", "pre-commit all green."),
    ),
    DetectorSpec(
        # The errors or failures a check reported: "mypy: 3 errors", "`mypy auth/`: no errors", "`go test ./api/...`
        # has one failure", "`bin/rails test test/models/user_test.rb`: 24 runs, no failures".
        id="operational_status.check_errors",
        category="operational_status",
        family="operationalStatus",
        patterns=(
            _CHECK_SUBJECT + r"[ \t]*(?:(?::|→|->|—|–)[ \t]*(?:[\d,]+[ \t]+(?:runs?|tests?|examples?|files?|checks?"
            r"|assertions?)[ \t]*,?[ \t]+)?|[ \t]+(?:has|had|have|reports?|reported|found|finds|shows?|showed|gave|gives"
            r"|returned|returns)[ \t]+)(?P<cop>no|zero|0|[1-9][\d,]*|one|two|three|four|five|a\s+few|several)[ \t]+"
            r"(?:new[ \t]+)?(?:type[ \t]+)?(?P<state>errors?|failures?|issues?|problems?|offen[cs]es|violations?)\b",
        ),
        assertion="{not_}errors",
        negation_group="cop",
        confidence=0.75,
        priority=2,
        examples=("mypy: 3 errors.", "`mypy auth/`: no errors.", "`go test ./api/...` has one failure.",
                  "`bin/rails test test/models/user_test.rb`: 24 runs, no failures."),
    ),
    DetectorSpec(
        # A run that ended badly, said with how: "`docker compose up` exits immediately for the `worker` service",
        # "the container exited with code 137", "`git rebase origin/main` stopped with conflicts in two files", "the
        # job aborted with an error". Bare "exits" or "stopped" narrate code or say an action ("I stopped the job").
        id="operational_status.exits",
        category="operational_status",
        family="operationalStatus",
        patterns=(
            r"\b(?P<state>exits|exited|exit|quits|quit|dies|died|aborts|aborted|stops|stopped|halts|halted|terminates"
            r"|terminated)[ \t]+(?:immediately|right\s+away|instantly|on\s+start(?:up)?|at\s+start(?:up)?"
            r"|with\s+(?:(?:a|an|exit|status|return)\s+)?(?:code|status|non-?zero|error|errors|conflicts?|a\s+conflict"
            r"|merge\s+conflicts?|an?\s+(?:error|exception|panic|segfault|traceback))|(?:with\s+)?(?:code|status)\s+[1-9])",
        ),
        assertion="exited",
        subject_before=True,
        confidence=0.75,
        reject_before=_HYPOTHETICAL_OR_CONDITION + r"|\b(?:I|we|you)(?:\s+\w+ly)?\s+$|(?:n't|n’t|\bnot|\bnever)\s+$",
        examples=("`docker compose up` exits immediately for the `worker` service.", "The container exited with code 137.",
                  "`git rebase origin/main` stopped with conflicts in two files."),
    ),
    DetectorSpec(
        id="operational_status.failing",
        category="operational_status",
        family="operationalStatus",
        # "is being OOMKilled": what keeps happening to it.
        patterns=(rf"\b{COPULA}\s+(?:being\s+)?{EMPH}(?P<state>{FAILING})\b",),
        assertion="{not_}{state}",
        subject_before=True,
        negation_group="cop",
        confidence=0.85,
        # "root usage is down to 38%", "errors are down by half", "latency is down 20%": a value that fell, no status.
        reject_after=_MOVED_VALUE.replace("WORD", "down"),
        examples=("The pipeline is broken.", "Your flight has been delayed."),
    ),
    DetectorSpec(
        id="operational_status.healthy",
        category="operational_status",
        family="operationalStatus",
        patterns=(rf"\b{COPULA}\s+{EMPH}(?P<state>{HEALTHY})\b",),
        assertion="{not_}{state}",
        subject_before=True,
        negation_group="cop",
        confidence=0.85,
        # "the fix seems to be passing `dtype` to ...", "the user is passing their own `argv`":
        # "passing" takes an object, no status.
        # "I'll look up the hours": a verb, not "looks up"; "your bank's online portal": an adjective.
        # "is up 12% on last week", "up to 40 requests": a value that rose, no status (see operational_status.failing).
        reject_after=_MOVED_VALUE.replace("WORD", "up") + r"|\s+[`'\"“‘]|(?<=passing)\s+(?:the|a|an|their|its|his|her|our|my|your|this|that|these|those|it|them)\b"
        r"|(?<=look up)|(?<=looks up)|(?<=looked up)"
        r"|(?<=online)\s+(?:portal|banking|store|shop|account|form|version|services?|help|chat|checkout|booking"
        r"|payment|order|application|course|catalog(?:ue)?|menu|profile|dashboard|system|platform|tools?)\b"
        # "State Farm's online flow", "the State Department's Online Passport Renewal page": a possessive's "'s"
        # before an adjective, no copula.
        r"|(?<='s online)\s+\w|(?<=’s online)\s+\w",
        # "the color is green", "the background is red": what a thing looks like, not its health.
        reject_subject=r"\b(?:colou?rs?|background|shade|hue|font|text|logo|icon|theme|light|paint|dress|shirt|car)$",
        examples=("The gateway is operational.", "Postgres isn't accepting connections."),
    ),
    DetectorSpec(
        id="operational_status.event",
        category="operational_status",
        family="operationalStatus",
        patterns=(
            r"\b(?P<head>" + INFRA + r")[ \t]+(?P<cop>(?:has|have|had)[ \t]+)?"
            r"(?:also[ \t]+|just[ \t]+)?(?P<state>failed|crashed|timed\s+out|errored(?:\s+out)?|went\s+down|passed"
            r"|succeeded|keeps?\s+failing|keeps?\s+crashing)\b",
        ),
        assertion="{state}",
        subject_before=True,
        subject_includes_match_group="head",
        confidence=0.85,
        priority=2,
        examples=("The build failed.", "The deploy timed out."),
    ),
    DetectorSpec(
        # Any subject: "The reproduction script failed as expected", "Both checks pass", "the error persists".
        id="operational_status.outcome",
        category="operational_status",
        family="operationalStatus",
        patterns=(
            r"\b(?P<cop>(?:has|have|had|still|also|now|again|then|finally|indeed)[ \t]+)?"
            r"(?P<state>" + OUTCOMES + r")\b",
        ),
        assertion="{state}",
        subject_before=True,
        confidence=0.8,
        reject_after=_OUTCOME_NOT_AFTER,
        reject_subject=_OUTCOME_NOT_SUBJECT,
        # "would previously fail", "will pass": hypothetical. "Boarding pass", "the accessibility pass": a noun.
        reject_before=_HYPOTHETICAL + r"|\b(?:boarding|accessibility|season|day|bus|ski|guest|press|backstage"
        r"|visitor|parking|weekly|monthly|annual|hall|mountain|travel|data|roaming|transit|rail|metro|festival"
        r"|vip)\s+$"
        # "the previous failed attempt", "a failed login", "several failed calls": the participle before its noun, an
        # adjective (not "the one that failed").
        r"|\b(?:the|a|an|previous|prior|last|earlier|several|multiple|many|any|my|our|its|their|average|first|second"
        r"|third|final|single|full|another|same)\s+$"
        # The next count of a tally ("59 passed, 2 failed", "17 passed, 0 failed"): one clause, one claim (GUIDE.md),
        # taken with the tally's first count.
        r"|\b\d[\d,/]*\s+(?:tests?\s+)?(?:passed|failed|passing|failing|succeeded|skipped|errors?|errored)\s*,\s*\d[\d,/]*\s+$",
        examples=(
            "The reproduction script failed as expected.",
            "`test_pylint_home` failed.",
            "Both checks pass.",
            "The warning persists.",
        ),
    ),
    DetectorSpec(
        # An HTTP status a page or an endpoint gave: "the health check at `/healthz` returns 200", "the URL returns a
        # 404 page", "the backend health endpoint responds with 200", "the probe gets a 404". Whether it works
        # (GUIDE.md: "returns 404 or 502" is an outcome), in the past or the present; "returns 404 when ..."
        # describes behaviour and the frame drops it.
        id="operational_status.http_status",
        category="operational_status",
        family="operationalStatus",
        patterns=(
            r"\b(?:returns|returned|is\s+returning|keeps\s+returning|responds\s+with|responded\s+with|gives|gave|gets|got"
            r"|answers\s+with|comes\s+back\s+with|came\s+back\s+with)\s+(?:a\s+|an\s+|the\s+same\s+|HTTP\s+|status\s+)?"
            # "is returning 503s": the plural of a status, many responses.
            r"(?:\*\*|`)?(?P<state>[1-5]\d\d)(?:s|’s|'s)?\b",
        ),
        assertion="http_{state}",
        subject_before=True,
        confidence=0.7,
        reject_before=_HYPOTHETICAL,
        # "`get_status()` returns 200": what a function gives, code narration (GUIDE.md). A path in backticks is an
        # endpoint, as is a URL.
        reject_subject=r"^`[^`/]*\(\)`$|^(?:the\s+)?(?:function|method|handler|view|code|server\s+code|it|this|which|that)$",
        # "returns 404 when the object is missing": behaviour under a condition, not what happened.
        reject_after=r"[^.\n]{0,30}?\b(?:when|whenever|if|unless|for\s+(?:any|every|all|missing|unknown|invalid))\b",
        examples=("The health check at `/healthz` returns 200.", "The URL returns a 404 page."),
    ),
    DetectorSpec(
        # Where a problem stands: "the crash is reproduced", "the issue is resolved for `reproduce_issue.py`",
        # "the bug is not fixed yet". An outcome of the work on it, as the SWE labels read it.
        id="operational_status.issue_state",
        category="operational_status",
        family="operationalStatus",
        patterns=(
            rf"\b{COPULA}\s+(?:now\s+|still\s+|successfully\s+|fully\s+)?(?P<state>reproduced|resolved|fixed|reproducible)\b",
        ),
        assertion="{not_}{state}",
        subject_before=True,
        negation_group="cop",
        confidence=0.75,
        # "the certificate amount is fixed": a constant, not a repaired problem.
        reject_subject=r"^`[^`]+`$|\b(?:amount|price|rate|fee|value|size|cost|fare|date|time|number|width|height|total"
        r"|length|position|layout|header|column|row)s?$",
        reject_before=_HYPOTHETICAL_OR_CONDITION,
        # "is fixed by adding ...", "is resolved when": how, not where it stands.
        reject_after=r"\s+(?:by|when|if|once|after|in\s+(?:the|this|a)\s+(?:next|upcoming|later))\b",
        examples=("The crash is reproduced.", "The issue is resolved for `reproduce_issue.py`."),
    ),
    DetectorSpec(
        # A form or a server turning down what it was given: "the login form rejected the credentials", "the
        # checkout refused my card". An outcome of the attempt, like a failure.
        id="operational_status.rejected",
        category="operational_status",
        family="operationalStatus",
        patterns=(
            r"\b(?P<state>rejected|refused|declined)\s+(?:the|my|your|our|this|that|these|those|a|an|both|all)\s+" + AFTER,
        ),
        assertion="rejected",
        role_before=True,
        confidence=0.75,
        # "I declined the upsell": the agent's (or the user's) own choice, not an outcome.
        reject_before=r"\b(?:if|when|whether|unless|may|might|could|would|will|should|can)(?:\s+\w+)?\s*$"
        r"|\b(?:I|[Ww]e|[Yy]ou)(?:\s+\w+ly)?\s+$",
        examples=("The login form rejected the credentials.", "The checkout form rejected the postcode."),
    ),
    DetectorSpec(
        # "The script runs now", "the fix works", "it worked", "finished without warnings".
        id="operational_status.works",
        category="operational_status",
        family="operationalStatus",
        patterns=(
            # Base forms after a plural subject ("fonts render correctly", "both links work now"): a pronoun or an
            # imperative gives no subject, and a condition or plan ("if they work") no assertion.
            r"\b(?P<state>(?:works|worked|runs|ran|executes|executed|compiles|compiled|builds|built"
            # Not bare "run": a noun far more often than a plural's verb ("the fix agent's run", "the checkout run",
            # "last night's dbt run", "## QA run: signup flow").
            r"|renders|rendered|loads|work|render|load|compile|plays|played|computes|computed|registered"
            r"|went\s+through)"
            r"(?:[ \t]+(?:now|again|fine|correctly|properly|successfully|cleanly|as\s+expected|perfectly|too|as\s+well"
            r"|well|this\s+time|on\s+the\s+(?:second|third|next)\s+(?:try|attempt)"
            # "runs correctly without syntax errors"
            r"|without\s+(?:any\s+)?(?:[\p{L}-]+\s+)?(?:errors?|warnings?|issues?|problems?|failures?)))*)[ \t]*(?:[.,;:!)]|\n|$"
            # "the reload worked and the Visit page is displayed": one clause ends, another begins.
            r"|[ \t]+(?:and|but|so)[ \t]+(?:the|a|an|it|its|I|we|my|your|now)\b)",
            # "the fix works for the reported case": for whom or what it works ("works on" is left
            # out: "the team works on the backend" is an activity).
            r"\b(?P<state>works|worked)(?:[ \t]+(?:now|again|fine|well|correctly|properly|as\s+expected))?[ \t]+for[ \t]+"
            r"(?:the|this|that|these|those|both|all|each|every|my|your|our|me|us|them)\b",
            # A run that finished well: "the build now completes without errors", "`npm install` completed with 2
            # warnings", "finished successfully". Said bare ("the export finished") it is a process state:
            # system_state.finished.
            r"\b(?P<state>finished|completed|completes|finishes|applies|apply|applied|installs|installed|deploys|deployed"
            r"|migrates|migrated|starts|started|boots|booted|merges|merged)(?:[ \t]+(?:now|again|this\s+time))*[ \t]+"
            r"(?:fine|correctly|properly|successfully|cleanly|as\s+expected|perfectly|without\s+(?:any\s+)?(?:errors?"
            r"|warnings?|issues?|problems?|failures?)|with\s+(?:no|zero|only|just|\d+|one|two|three|a\s+few|some)"
            r"\s+(?:[\p{L}-]+\s+)?(?:errors?|warnings?|failures?))\b",
        ),
        assertion="working",
        subject_before=True,
        confidence=0.75,
        # "don't work", "never loads": operational_status.did_not's, with the negation this one cannot carry.
        # "the last 4 runs", "Cloud Run", "a dry run": the word is a noun there.
        # "and re-ran": the agent's own action. "Once registered, call me back": a condition with no subject.
        reject_before=_HYPOTHETICAL + r"|(?:n't|n’t|\bnot|\bnever)\s+$|\bre-$"
        r"|\b(?:the|a|an|last|first|next|previous|few|several|many|multiple|\d+|cloud|dry|test|trial)\s+$"
        r"|(?:^|[.!?:(\n]\s*|\b\d+[.)]\s+|[-*•]\s+)(?:once|when|whenever|until|unless|if|after|before)\s+$",
        # A page that renders or loads, said bare ("the page renders", "the Traffic page loads"), is a UI state, as
        # GUIDE.md files "the dashboard has loaded": system_state.loads. How well it renders is this one's ("the
        # homepage loads fine", "fonts render correctly").
        reject_state=_BARE_LOAD,
        examples=("The fix works.", "The reproduction script runs now.", "The script finished without warnings.",
                  "The retry logic works for both endpoints.", "`npm run build` now completes without errors."),
    ),
    DetectorSpec(
        # "`Literal[1]` did NOT fail", "the job didn't crash".
        id="operational_status.did_not",
        category="operational_status",
        family="operationalStatus",
        patterns=(
            r"\b(?P<cop>(?:did|does|do|has|have)(?:n't|n’t|\s+not|\s+NOT|\s+never))\s+(?:(?:seem|appear)\s+to\s+)?"
            r"(?P<state>fail|failed|crash|crashed|pass|passed|work|worked|run|succeed|succeeded|break|error|go\s+through)\b",
            # "the blocked card no longer works for Apple Pay", "the build no longer compiles".
            r"\b(?P<cop>no\s+longer)\s+(?P<state>works|work|runs|run|loads|load|responds|starts|boots|builds|compiles"
            r"|passes|pass|connects|syncs)\b",
        ),
        assertion="not_{state}",
        negative=True,
        subject_before=True,
        confidence=0.8,
        # "does not pass the flag", "did not run `make`": the verb takes an object, no outcome.
        reject_after=r"\s+(?:to|the|a|an|it|its|this|that|well|with)\b|\s+[`'\"“‘]",
        examples=("`Literal[1]` did NOT fail.", "The job didn't crash.", "The code SPRING10 does not seem to work.",
                  "The blocked card no longer works for Apple Pay."),
    ),
    DetectorSpec(
        # An edit or a lookup that did not apply: "the SEARCH block didn't match exactly", "the passwords do not match".
        # Not "which doesn't match": a mismatch the sentence before describes, said of no thing.
        id="operational_status.no_match",
        category="operational_status",
        family="operationalStatus",
        patterns=(r"\b(?P<cop>(?:did|does|do)(?:n't|n’t|\s+not))\s+(?:(?:seem|appear)\s+to\s+)?(?P<state>match)\b",),
        assertion="not_matching",
        negative=True,
        subject_before=True,
        confidence=0.7,
        reject_after=r"\s+(?:to|the|a|an|it|its|this|that|any|with)\b|\s+[`'\"“‘]",
        reject_before=r"\b(?:which|that|this|it|what)\s*$",
        examples=("The SEARCH block didn't match exactly.", "The passwords do not match."),
    ),
    DetectorSpec(
        # A search or a strategy that found nothing useful: "the search did not yield the desired results", "direct
        # searching has not yielded any results", "the previous strategy did not yield the desired outcome".
        id="operational_status.no_yield",
        category="operational_status",
        family="operationalStatus",
        patterns=(
            NOT_YIELDED + r"(?:yield|yielded|produce|produced|return|returned|give|given|bring|brought)\s+(?:the\s+|any\s+)?(?:(?:desired|expected|intended"
            r"|relevant|useful|wanted|right|correct|satisfactory|meaningful|required|requested|needed|necessary)\s+"
            r"(?:results?|matches|information)"
            r"|(?:(?:desired|expected|intended|wanted|satisfactory|meaningful|any)\s+)?(?:outcomes?|progress))\b",
        ),
        assertion="not_yielding_results",
        negative=True,
        subject_before=True,
        confidence=0.75,
        examples=("The search did not yield the desired results.", "The previous strategy did not yield the desired outcome."),
    ),
    DetectorSpec(
        # A control or a command that does nothing: "the Post button does not respond to clicks", "the play
        # button does nothing", "typing a date has no effect", "nothing happens when I press Load more".
        id="operational_status.no_effect",
        category="operational_status",
        family="operationalStatus",
        patterns=(
            r"\b(?P<cop>(?:does|do|did)(?:n't|n’t|\s+not))\s+(?:(?:seem|appear)\s+to\s+)?(?:respond|react"
            r"|do\s+anything|change\s+anything)\b",
            r"\b(?P<state>did\s+nothing|does\s+nothing|do\s+nothing|(?:has|had|have)\s+no\s+(?:visible\s+)?effect"
            r"|made\s+no\s+difference|makes\s+no\s+difference|is\s+unresponsive|was\s+unresponsive)\b",
        ),
        assertion="unresponsive",
        subject_before=True,
        confidence=0.75,
        priority=2,
        # "`migrate` does nothing if there are no migrations": what code does, in general.
        reject_after=r"[^.;:!?\n]{0,40}?\b(?:when|whenever|if|unless)\b",
        reject_before=_HYPOTHETICAL_OR_CONDITION,
        examples=(
            "The Post button does not respond to clicks.",
            "The play button does nothing.",
            "Typing a date into the field has no effect.",
        ),
    ),
    DetectorSpec(
        # What a page, a form or a transfer did, as a browsing agent reports it: "the login page failed to load",
        # "the intranet site won't load", "the form went through", "the photo uploaded successfully".
        # Past "failed to": "fails to" describes what code does, in general.
        id="operational_status.ui_outcome",
        category="operational_status",
        family="operationalStatus",
        patterns=(
            r"\b(?P<state>failed\s+to\s+(?:go\s+through|[a-z]+)"
            r"|(?:won't|won’t|will\s+not|wouldn't|wouldn’t)\s+(?:load|open|start|connect|boot|render|launch|respond"
            r"|save|submit|play|sync)"
            r"|(?:did\s+not|didn't|didn’t)\s+(?:go\s+through|carry\s+over|stick|take\s+effect)"
            r"|went\s+through|(?:uploaded|downloaded|saved|submitted|sent|installed|deployed|published|loaded|synced)"
            r"\s+successfully)\b",
        ),
        assertion="{state}",
        subject_before=True,
        confidence=0.75,
        reject_before=_HYPOTHETICAL_OR_CONDITION,
        # Past "failed to" with any verb of what the thing should have done ("the lookup failed to decode the
        # VIN"), but not the idioms of noticing or achieving ("failed to mention", "failed to be ...").
        reject_state=r"failed\s+to\s+(?:be|have|do|make|get|take|give|mention|notice|realize|realise|consider"
        r"|account|see|find|understand|address|meet|match|appear|show|include|reflect|recognize|recognise|catch"
        r"|handle|properly|correctly|fully|actually|even|ever|never|always)",
        examples=(
            "The Microsoft login page failed to load.",
            "The intranet site won't load.",
            "The reservation went through on the second attempt.",
            "The photo uploaded successfully.",
        ),
    ),
    DetectorSpec(
        id="operational_status.nothing_happens",
        category="operational_status",
        family="operationalStatus",
        patterns=(r"(?:^|[.!?:;]\s+|\n[ \t]*|,\s+(?:but|and)\s+)(?P<subject>nothing)\s+(?:happens|happened|changed|changes)\b",),
        assertion="no_effect",
        fixed_subject="the action",
        confidence=0.7,
        examples=("Nothing happens when I press the Load more button.",),
    ),
    DetectorSpec(
        # An error a page, a request or a command gave back: "the page returned a 404 error", "the formula
        # returns #REF!", "the checkout step shows an error under the ZIP field", "returning 500".
        id="operational_status.error",
        category="operational_status",
        family="operationalStatus",
        patterns=(
            r"\b(?:(?:is|are|was|were|keeps|kept)\s+)?(?:returned|returns|returning|threw|throws|throwing|gave|gives"
            r"|giving|shows|showed|showing|displays"
            r"|displayed|raised|raises|hit|hits|resulted\s+in|results\s+in|ended\s+(?:up\s+)?(?:in|with)|failed\s+with)\s+"
            r"(?:an?\s+|the\s+|another\s+)?(?:(?:http\s+)?[45]\d\d\s+|internal\s+"
            r"|server\s+|validation\s+|permission\s+|network\s+|javascript\s+|js\s+|bad\s+request\s+|timeout\s+"
            r"|authentication\s+|authori[sz]ation\s+|rate[\s-]limit\s+)?(?:error|exception|status\s+[45]\d\d)\b",
            # What a change brought in: "it introduced a lint error", "the patch caused a regression".
            r"\b(?:introduced|caused|triggered)\s+(?:an?\s+|the\s+|another\s+|some\s+|new\s+|\d+\s+)?(?:new\s+)?"
            r"(?:(?:lint|syntax|type|import|runtime|build|test|compile|compilation|attribute|name|key|value)\s+)?"
            r"(?:errors?|regressions?|failures?|exceptions?)\b",
            # Several calls at once: "both functions returned errors with status 400" (not "prefers throwing errors").
            r"\b(?:returned|resulted\s+in|failed\s+with)\s+(?:(?:http\s+)?[45]\d\d\s+)?errors\b",
            r"\b(?:(?:is|are|was|were|keeps|kept)\s+)?(?:returned|returns|returning|responded\s+with|responds\s+with"
            r"|came\s+back\s+with)\s+(?:an?\s+|http\s+)?[\"“]?"
            r"[45]\d\d\b",
            r"\b(?:returned|returns|shows|showed|displays|displayed)\s+#(?:REF|VALUE|NAME|DIV/0|N/A|NUM|NULL)!?",
        ),
        assertion="error",
        subject_before=True,
        confidence=0.75,
        priority=2,
        # "raises an exception when the list is empty", "returns an error if ...": what code does, in general.
        reject_after=r"[^.;:!?\n]{0,40}?\b(?:when|whenever|if|unless|for\s+(?:any|every|each|all))\b",
        reject_before=_HYPOTHETICAL_OR_CONDITION,
        examples=(
            "The page returned a 404 error.",
            "The checkout step shows an error under the ZIP code field.",
            "The last edit introduced a lint error.",
            "The formula in D2 returns #REF!",
            "The request to /api/reviews is returning 500.",
            "Both functions returned errors with status 400.",
        ),
    ),
    DetectorSpec(
        # An exception a run met, by its class name: "we get a ZeroDivisionError", "running it I got a `TypeError`",
        # "the import raised ModuleNotFoundError". Who ran it may be the subject ("we", "I").
        id="operational_status.exception",
        category="operational_status",
        family="operationalStatus",
        patterns=(
            r"\b(?:get|gets|got|getting|see|saw|seeing|hit|hits|raised|threw|produced|encountered|encounter)\s+"
            r"(?:an?\s+|the\s+|another\s+|this\s+|same\s+|the\s+same\s+)?`?"
            r"(?P<state>(?-i:[A-Z][A-Za-z0-9]*(?:Error|Exception)))\b",
        ),
        assertion="error",
        subject_before=True,
        person_subjects=True,
        confidence=0.75,
        priority=2,
        reject_after=r"[^.;:!?\n]{0,40}?\b(?:when|whenever|if|unless|for\s+(?:any|every|each|all))\b",
        reject_before=_HYPOTHETICAL_OR_CONDITION + r"|\b(?:might|may|could|would|to|avoid|prevent|expect|expected)\s*$",
        examples=("When we run it, we get a ZeroDivisionError.", "Running the tests, I got a `TypeError` in utils.py."),
    ),
    DetectorSpec(
        # A run's outcome as a telegraphic note, as system_state.note reads a state: "PR checks passing.", "Link broken.",
        # "export failing since Nov 23", "- instance status check failing", "all 7 steps green". The second pattern
        # finds a note right after another (the first one's match takes the stop the next one starts at).
        id="operational_status.note",
        category="operational_status",
        family="operationalStatus",
        patterns=(
            r"(?:^|[.!?;:]\s+|\n[ \t]*(?:[-*•][ \t]+)?|[—–][ \t]*)" + _OUTCOME_NOTE,
            r"[.!?;:]\s+" + _OUTCOME_NOTE,
        ),
        assertion="{not_}{state}",
        negation_group="cop",
        confidence=0.65,
        priority=2,
        # Articles, pronouns and the agent ("the tests passing" is a phrase, no note; "I'm failing to see"), an instruction
        # ("Keep tests green"), a full clause (a verb or a copula in the subject: the other outcome detectors read it).
        reject_subject=r"^(?:the|a|an|this|that|these|those|my|your|our|his|her|their|its|i|we|you|he|she|they|it|there"
        r"|here|what|which|who|if|when|once|after|before|then|and|but|so|or|also|just|keep|leave|make|get|let|still|now"
        r"|with|without|while|until|unless|whether|not|no|nothing|everything)\b"
        r"|\b(?:is|are|was|were|be|been|being|has|have|had|do|does|did|will|would|should|can|could|may|might|must|get|gets"
        r"|got|keep|keeps|kept|stay|stays|remain|remains|seems?|looks?|am|'m|’m)$",
        examples=("PR checks passing.", "Tests passing. Link broken.", "Export failing since Nov 23.",
                  "- instance status check failing\n"),
    ),
    DetectorSpec(
        # A failure that comes back each time: "`db` keeps restarting", "the portal keeps returning \"Error 503\"", "the
        # upload widget keeps spinning after I attach the PDF", "the form kept throwing \"Something went wrong\"". Any
        # subject (the INFRA nouns' "keeps failing" is operational_status.event's). Not under a condition: "if it keeps
        # happening" is no outcome.
        id="operational_status.keeps",
        category="operational_status",
        family="operationalStatus",
        patterns=(
            r"\b(?:keeps|kept|keep)\s+(?:on\s+)?(?P<state>failing|crashing|restarting|rebooting|returning|throwing|erroring"
            r"|timing\s+out|freezing|hanging|spinning|disconnecting|dropping|rejecting|bouncing|redirecting|looping"
            r"|logging\s+(?:me|us|you|him|her|them)\s+out|reverting|resetting|failing\s+over)\b",
        ),
        assertion="keeps {state}",
        subject_before=True,
        confidence=0.75,
        reject_before=_HYPOTHETICAL_OR_CONDITION,
        examples=("`db` keeps restarting.", "The receipt upload widget keeps spinning after I attach the PDF."),
    ),
    DetectorSpec(
        # "The reproduction script confirms the issue", "my change fixes the issue".
        id="operational_status.confirms",
        category="operational_status",
        family="operationalStatus",
        patterns=(
            r"\b(?P<state>fixes|fixed|resolves|resolved|solves|solved|confirms|confirmed|reproduces|reproduced|broke"
            r"|breaks)\s+(?:the|this|that|a)\s+(?:original\s+|reported\s+|same\s+)?"
            r"(?:issue|bug|problem|error|crash|regression|failure|test|tests|build)\b",
        ),
        assertion="{state}",
        subject_before=True,
        confidence=0.75,
        examples=("The reproduction script confirms the issue.", "My change fixes the issue."),
    ),
    DetectorSpec(
        # "The issue is reproduced", "the fix is verified", "the reproduction was successful".
        id="operational_status.verified",
        category="operational_status",
        family="operationalStatus",
        patterns=(
            rf"\b{COPULA}\s+(?P<state>reproduced|reproducible|verified|successful|unsuccessful"
            r"|solved|confirmed\s+fixed)\b",
        ),
        assertion="{not_}{state}",
        subject_before=True,
        negation_group="cop",
        confidence=0.8,
        priority=2,
        reject_after=r"\s+(?:at|to|by|in|on|for|with)\b",
        examples=("The issue is reproduced.", "The fix is verified.", "The reproduction was successful."),
    ),
    DetectorSpec(
        # The agent's own attempt, judged by the agent: "In this attempt, I was unsuccessful.", "we were successful in
        # locating the order". An outcome its actions can confirm, as the reflections of real web agents state it.
        id="operational_status.attempt",
        category="operational_status",
        family="operationalStatus",
        patterns=(
            r"\b(?P<subject>I|we)\s+(?:was|were)\s+(?:(?:ultimately|again|finally|still|not)\s+)?"
            r"(?P<state>unsuccessful|successful)\b",
        ),
        assertion="{state}",
        person_subjects=True,
        confidence=0.7,
        reject_before=_HYPOTHETICAL_OR_CONDITION,
        examples=("In this attempt, I was unsuccessful.",),
    ),
    DetectorSpec(
        # "The issue is fixed", "the crash loop has been resolved": a problem's outcome. Said of a thing an edit
        # changed ("the typos in `bad.txt` have been fixed", "the file is fixed"), it is the state the edit left,
        # as real coding agents' labellers read it: system_state.result.
        id="operational_status.fixed",
        category="operational_status",
        family="operationalStatus",
        patterns=(rf"\b{COPULA}\s+(?P<state>resolved|fixed)\b",),
        assertion="{not_}{state}",
        subject_before=True,
        negation_group="cop",
        confidence=0.8,
        priority=2,
        reject_after=r"\s+(?:at|to|by|in|on|for|with)\b",
        reject_subject=r"\b(?:typos?|spelling|misspellings?|formatting|indentation|whitespace|files?|text|docstrings?"
        r"|comments?|imports?|lines?|syntax|grammar|wording|links?|paths?|names?|versions?|readme|docs|documentation"
        r"|headers?|titles?|strings?|spacing|punctuation)\b",
        examples=("The issue is fixed.", "The crash loop has been resolved."),
    ),
    DetectorSpec(
        # The same outcome said of what fixed it: "the changes we've made have addressed the issue", "the patch has
        # resolved both bugs". The problem is the subject; a hypothetical ("should have fixed the issue") is not.
        id="operational_status.has_fixed",
        category="operational_status",
        family="operationalStatus",
        patterns=(
            r"\b(?P<cop>has|have|had|'ve|’ve)\s+(?:now\s+|successfully\s+|already\s+|finally\s+|fully\s+)?"
            r"(?P<state>fixed|resolved|addressed|solved)\s+(?:the|this|that|these|those|both|all\s+(?:the\s+)?)\s*"
            r"(?P<subject>(?:[\p{L}-]+\s+){0,2}?" + _PROBLEMS + r")\b",
        ),
        assertion="fixed",
        confidence=0.75,
        priority=2,
        person_subjects=True,
        # Beyond the shared hypotheticals: "must have fixed", "should not have fixed", "once we have fixed".
        reject_before=_HYPOTHETICAL_OR_CONDITION + r"|\b(?:must(?:\s+not)?|(?:might|may|could|should|would)\s+not)\s*$"
        r"|\bonce\b[^.!?\n]{0,40}$",
        examples=("The changes we've made so far have addressed the issue.", "The patch has resolved both bugs."),
    ),
    DetectorSpec(
        # A problem still there or gone, said of the problem: "the error is still occurring", "the crash happens again",
        # "the warning no longer occurs", "the bug doesn't reappear". How code behaves in general ("the error occurs
        # when the list is empty") is not an outcome.
        id="operational_status.recurs",
        category="operational_status",
        family="operationalStatus",
        patterns=(
            # "the error is still occurring"
            _PROBLEM_SUBJECT + r"(?P<cop>(?:is|are|was|were)\s+(?:still\s+|now\s+|also\s+)?)(?P<state>occurring|happening"
            r"|recurring)\b",
            # "the crash still happens", "the warning no longer occurs": not a bare "the error occurs in `f`", which places
            # the problem in the code (bug analysis), no outcome
            _PROBLEM_SUBJECT + r"(?P<cop>still|again|no\s+longer)\s+(?P<state>occurs|occurred|happens|happened|recurs"
            r"|recurred|reappears|reappeared)\b",
            # "the error doesn't occur anymore"
            _PROBLEM_SUBJECT + r"(?P<cop>(?:does|do|did)(?:n't|n’t|\s+not)\s+(?:(?:seem|appear)\s+to\s+)?)"
            r"(?P<state>occur|happen|recur|reappear)\b",
        ),
        assertion="{not_}recurring",
        negation_group="cop",
        confidence=0.75,
        priority=2,
        reject_after=r"[^.;:!?\n]{0,40}?\b(?:when|whenever|if|unless)\b|\s+(?:to|in\s+(?:the\s+)?(?:case|event))\b",
        reject_before=_HYPOTHETICAL_OR_CONDITION + r"|\b(?:avoid|prevent|ensure|make\s+sure|so\s+that)\b[^.!?\n]{0,30}$",
        examples=("The error is still occurring.", "The crash still happens after the patch.",
                  "The warning no longer occurs.", "The error doesn't occur anymore."),
    ),
    DetectorSpec(
        # The same outcome, not reached: "we haven't been able to resolve your connection issue", "I couldn't fix the
        # problem". The problem is the subject.
        id="operational_status.not_fixed",
        category="operational_status",
        family="operationalStatus",
        patterns=(
            r"\b(?P<cop>(?:haven't|haven’t|hasn't|hasn’t|have\s+not|has\s+not|had\s+not|hadn't|hadn’t)\s+been\s+able\s+to"
            r"|(?:couldn't|couldn’t|could\s+not|was\s+unable\s+to|were\s+unable\s+to|wasn't\s+able\s+to"
            r"|wasn’t\s+able\s+to|weren't\s+able\s+to|weren’t\s+able\s+to))\s+(?:fully\s+)?"
            r"(?P<state>fix|resolve|solve)\s+(?:the|this|that|these|those|your|its|their|our|my)\s+"
            r"(?P<subject>(?:[\p{L}-]+\s+){0,2}?" + _PROBLEMS + r")\b",
        ),
        assertion="fixed",
        negative=True,
        confidence=0.75,
        priority=4,  # over capability.unable (3): what was not fixed is the outcome, not what the agent cannot do
        person_subjects=True,
        reject_before=_HYPOTHETICAL_OR_CONDITION + r"|\bif\b[^.!?\n]{0,40}$",
        examples=("We haven't been able to resolve your connection issue.", "I couldn't fix the problem."),
    ),
    DetectorSpec(
        # "There was a problem with the upload", "there is still an issue with the flight".
        id="operational_status.problem_with",
        category="operational_status",
        family="operationalStatus",
        patterns=(
            r"\b(?:there\s+(?:is|was|are|were|has\s+been|have\s+been)|there's|there’s|there\s+(?:seems|appears)\s+to\s+"
            r"(?:be|have\s+been))\s+(?:(?:still|also|now|again)\s+)?(?:an?\s+|some\s+)?"
            # "there was an error processing your request", "there seems to be an internal error while saving".
            r"(?:\p{L}+\s+)?(?:issue|problem|error|failure|bug)s?\s+(?:with|in|processing|while|when|during)\s+" + AFTER,
            # An error with nothing after it: "there seems to be an internal error.", "there was a server error". Not an
            # outage: "there is a known outage affecting ..." is there, as its labellers read it (existence).
            r"\b(?:there\s+(?:is|was)|there's|there’s|there\s+(?:seems|appears)\s+to\s+(?:be|have\s+been))\s+"
            r"(?:(?:still|also|now|again)\s+)?an?\s+(?P<subject>(?:\p{L}+\s+)?(?:error|failure|glitch))\b",
        ),
        assertion="problem",
        confidence=0.75,
        priority=2,
        examples=("There was a problem with the upload.", "There is still an issue with the flight HAT030.",
                  "There seems to be an internal error."),
    ),
    DetectorSpec(
        # "There are failures and errors": the run is the subject.
        id="operational_status.failures",
        category="operational_status",
        family="operationalStatus",
        patterns=(
            r"\b(?:there\s+(?:are|were))\s+(?:(?:still|also|now|some|several|two|multiple)\s+)?"
            r"(?P<subject>failures|errors|test\s+failures)\b",
        ),
        assertion="problem",
        confidence=0.7,
        priority=2,
        examples=("There are failures and errors.",),
    ),
    DetectorSpec(
        # "The system is still encountering an issue".
        id="operational_status.encountering",
        category="operational_status",
        family="operationalStatus",
        patterns=(
            r"\b(?P<cop>is|are|was|were|keeps?)\s+(?:still\s+)?(?:encountering|hitting|throwing|raising|reporting)\s+"
            r"(?:an?\s+|the\s+same\s+)?(?:issue|problem|error|exception)s?\b",
        ),
        assertion="problem",
        subject_before=True,
        confidence=0.75,
        priority=2,
        examples=("The system is still encountering an issue.",),
    ),
    DetectorSpec(
        # An outcome a page gives a thing: "the CI badge shows the build as passing", "the Integration Health object
        # shows the export job as **Failed**", "the flight shows as **on time**". What the thing does, read off a
        # screen: its outcome (GUIDE.md), not the screen's state; over system_state.shows, which matches first.
        id="operational_status.shown_as",
        category="operational_status",
        family="operationalStatus",
        patterns=(
            r"\b(?:shows|showed|lists|listed|displays|reports|marks|shows\s+up)\s+(?:[^.\n]*?\s)?as\s+(?:\*\*|\*|[\"“'`])?"
            r"(?P<state>" + _LISTED_OUTCOMES
            + r"|on\s+time|delayed|cancell?ed\s+by\s+the\s+airline|unhealthy|not\s+working)\b",
        ),
        assertion="{state}",
        subject_before=True,
        confidence=0.7,
        priority=2,
        examples=("The CI badge shows the build as passing.", "The flight shows as **on time** right now."),
    ),
    DetectorSpec(
        # A check mark after a name inside a line: "Stages: Checkout ✓, Gradle build ✓, Instrumented tests ✗",
        # "`extract` ✅, `load-warehouse` ❌", "- Date picker min date: ❌". The mark only at the end of its item
        # (a comma, a stop, a bracket or the line's end after it): "✅ ready" leads a state, another detector's.
        id="operational_status.check_mark",
        category="operational_status",
        family="operationalStatus",
        patterns=(r"(?::[ \t]*)?(?P<state>[✓✔✅✗✘❌])",),
        assertion="{state}",
        subject_before=True,
        confidence=0.7,
        reject_after=r"[ \t]*[^\W_]|[ \t]*[*`\"|]",
        # What the agent did or found, ticked off ("Booked ✅", "reminder sent ✅", "no console errors ✅"): its
        # own step or another claim's words; a name is short.
        # A step that says what it found or left ("returns 48 results ✅", "iframe renders ✅", "reminder sent ✅"), a
        # value ticked ("yes ✘", "(2014) ✔"), a key in bold before its value: what is ticked is another claim's.
        # An amount ticked in a sum ("3 bags will cost: $0 ✓") checks the agent's own arithmetic.
        reject_subject=r"^(?:no|not|eval|status|result|step|action)\b|\b(?:\w+ed|sent|renders|returns|errors?|yes|no)\W*$"
        r"|\(\d[^)]*\)\W*$|\*\*|^.{61,}$|^[$€£]\s?\d",
        examples=("Stages: Checkout ✓, Gradle build ✓, Instrumented tests ✗.",),
    ),
    DetectorSpec(
        # Status lists and checklists of CI and QA runs: "- **Integration tests:** failing", "- Signup happy path:
        # **PASS**", "- Unit tests ✓", "- `extract` ✅". A key/value line whose value is an outcome is a claim
        # (GUIDE.md); not the agent's own log keys ("Eval: Failed", "Status: Completed"): its step, not a thing.
        id="operational_status.list_item",
        category="operational_status",
        family="operationalStatus",
        patterns=(
            # A bulleted key: "- **Integration tests:** failing", "- Toggle persistence: PASS". Not without a bullet:
            # every line of every output would be a candidate, which costs the whole RE2 set its speed (see
            # capability.list_item).
            r"(?m)^[ \t]*(?:[-*•+]|\d+[.)])[ \t]+(?:\*\*)?(?P<subject>[^\n:*|]+?):?(?:\*\*)?[ \t]*(?::|[ \t][-–—|][ \t])"
            r"[ \t]*(?:\*\*)?[ \t]*(?P<cop>(?:not|NOT|Not)[ \t]+)?(?P<state>" + _LISTED_OUTCOMES + r")(?:\*\*)?[ \t]*"
            r"(?:$|[.,;(]|[ \t]+(?:after|in|on|at|with|again|this|too|now|\(|—|–|-)\b)",
            # A check mark ending the line after the name: "- Unit tests ✓", "`extract` ✅". Not after a step
            # that says what it found ("Search \"jacket\" returns 48 results ✅"): a name is unquoted.
            r"(?m)^[ \t]*(?:[-*•+]|\d+[.)])[ \t]+(?P<subject>[^\n:*|\"“✓✔✅✗✘❌]*?\p{L}[^\n:*|\"“✓✔✅✗✘❌]*?)"
            r"[ \t:]+(?P<state>[✓✔✅✗✘❌])[ \t]*$",
            # A test report's table row, its outcome in the cell after the name: "| Valid signup | Pass |".
            r"(?m)^[ \t]*\|[ \t]*(?:\*\*)?(?P<subject>[^\n:*|]+?)(?:\*\*)?[ \t]*\|[ \t]*(?:\*\*)?"
            r"(?P<cop>(?:not|NOT|Not)[ \t]+)?(?P<state>" + _LISTED_OUTCOMES + r"|[✓✔✅✗✘❌])(?:\*\*)?[ \t]*\|",
        ),
        assertion="{not_}{state}",
        negation_group="cop",
        confidence=0.8,
        priority=2,
        # "Booked ✅": the agent ticking off its own action, checked against its tool calls.
        reject_subject=r"^(?:eval|evaluation(?:\s+of\s+(?:the\s+)?previous\s+(?:goal|step))?|status|result|outcome|verdict"
        # A name is short (bounded here, not in the pattern: a bounded repeat makes the scan's automaton large).
        r"|state|step|action|next\s+goal|memory|thought|note)$|^\w+ed$|^(?:done|sent)$|^.{61,}$",
        examples=("- **Integration tests:** failing\n", "- Signup happy path: **PASS**\n", "- Unit tests ✓\n",
                  "- `extract` ✅\n", "| Valid signup | Pass |\n"),
    ),
)
