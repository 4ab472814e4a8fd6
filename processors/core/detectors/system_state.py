"""System state: installed, running, configured, found; process and UI state; what an action left behind.

"Node.js is not installed", "I couldn't find docker", "I found the handler in
`routes.py`", "the export job is still in progress", "the editor pane is
focused", "the dashboard has loaded", "no retry button is visible", "we
haven't seen a confirmation banner", "with Redis running, ...", "your
reservation has been cancelled", "the placeholder was not replaced".
"""

from ..patterns import DetectorSpec
from ._fragments import AFTER, AFTER_PLAIN, COPULA, EMPH, NOT_YIELDED, PERFECT_ADVERB, QUOTED, WORD

# A subject that is a name in code, in backticks or quoted ("`x` is set to 5", "\"t\" is marked as used"); a quoted label
# of a page has a capital or a space ("\"Duplex printing\" is set to \"Off\"").
_CODE_NAME_SUBJECT = r"^(?:`[^`]+`|\"[a-z_][\w.]*\"|'[^']+')$"
# What a search brought back none of, its first word the `state` (for `reject_state`) and up to four more words.
_ANY_OBJECT = r"(?P<state>[\p{L}\p{N}_-]+)(?:[ \t]+[\p{L}\p{N}_-]+){0,4}"

STATES = (
    r"installed|running|configured|available|enabled|active|loaded|present|set\s+up|setup|deployed|mounted"
    r"|started|initiali[sz]ed|registered|connected|reachable|accessible|authenticated|found|detected"
    r"|listening|up\s+to\s+date|in\s+place|on\s+(?:the\s+)?path"
)
# Process and UI state.
UI_STATES = (
    r"in\s+progress|pending|queued|complete|completed|finished|open|opened|closed|focused|selected"
    r"|visible|invisible|hidden|shown|displayed|highlighted|expanded|collapsed|disabled|unavailable"
    r"|ready|idle|stale|out\s+of\s+date|empty|blank|greyed\s+out|grayed\s+out|all\s+set|concluded"
    # Controls, lists and pages as a browsing or computer-use agent reports them.
    r"|loading|switched\s+(?:on|off)|turned\s+(?:on|off)|toggled\s+(?:on|off)|sorted|filtered|filled(?:\s+in|\s+out)?"
    r"|unchecked|ticked|unticked|locked|unlocked|muted|paused|logged\s+(?:in|out)|signed\s+(?:in|out)"
    r"|pinned|archived|minimi[sz]ed|maximi[sz]ed|unchanged|read-only|editable"
    r"|disconnected|suspended|protected|unverified|deactivated|expired|unread|unmuted"
    r"|clean|dirty|pre-?filled|pre-?selected|paired|unpaired|booting|asleep|showing|displaying"
    # Not "checked" ("formatting is checked before each commit" describes a process: a check box is UI_NOUNS'
    # and a quoted label has its own pattern below). Not "listed": "listed under Available devices" is existence.located, and each "options are listed in the
    # table below" of a coding agent would be a match to build and reject (+20 us a 2,000-character output).
    r"|live|on\s+(?:the\s+)?screen|in\s+view|out\s+of\s+view|scanning|syncing|uploading|downloading|processing"
    # Records, listings and accounts as a web or back-office agent finds them: a slot is free, a repo private,
    # a listing suppressed, an order unpaid, a job skipped. Not stock ("out of stock", "sold out"): what is
    # there to buy is existence (existence.does_not_exist). Not "paid": "- **Payment:** Paid" restates a
    # record the user was shown. "shared" only with whom: "the field object is shared" narrates code.
    r"|free|busy|full|private|public|blocked|unblocked|banned|suppressed|flagged|unresolved"
    r"|solved|done|draft|published|unpublished|approved|declined|invited|shared\s+with|unshared|assigned|unassigned"
    r"|linked|unlinked|subscribed|unsubscribed|unpaid|overdue|shipped|delivered|refunded"
    r"|skipped|checked\s+out|playing|re-?running|rendering|stuck"
    # What a form holds once the agent has typed into it: "the departure city has been entered into the input box",
    # "the destination has been inputted successfully", "the field is populated".
    r"|entered|inputted|typed\s+in|populated"
    # What an ops agent reads off a resource: "the slot is inactive", "the pool is saturated", "the HPA is maxed at
    # 20 replicas", "the key seems to be unset", "that override file is gitignored".
    r"|inactive|saturated|maxed(?:\s+out)?|throttled|unset|gitignored|on\s+(?:its|their)\s+way"
    r"|on\s+(?:sale|hold)|in\s+(?:use|effect|review)|under\s+review"
    r"|awaiting\s+(?:\w+\s+)?(?:approval|review|payment|confirmation|moderation|response|pickup|shipment|signature)"
    # What a process or a page is held at: "the terminal is waiting at the sudo prompt", "the form is accepting
    # responses". Not "is asking for": as often what a form asks the user for, no state (measured: 4 of 11).
    r"|waiting\s+(?:for|at|on)|accepting\s+(?:new\s+)?(?:responses|submissions|patients|applications|orders|bookings)"
    # Whether a person is there to act, as a calendar or a directory gives it: "Tom is out of office until Dec 6", "she is
    # on sabbatical until January".
    r"|out\s+of\s+(?:the\s+)?office|on\s+(?:sabbatical|leave|vacation|holiday|PTO|parental\s+leave|sick\s+leave)"
)
# A status as a page gives it: quoted or in bold, a few words.
# Also in italics: 'has status *delivered*', 'is in stage *Contract Sent*'. Not in backticks: 'the run ended with status
# `failed`' is a run's outcome (operational_status), as its labeller read it.
_STATUS_VALUE = (
    r"[\"“][^\"”\n]{1,40}[\"”]|'[^'\n]{1,40}'|\*\*[^*\n]{1,40}\*\*|\*[^*\s][^*\n]{0,39}\*|_[^_\s][^_\n]{0,39}_"
)
# The usual lanes of an issue board or a workflow, capitalised as boards write them.
_LANE = r"(?-i:Done|Blocked|Triage|Backlog|To\s+Do|Todo|In\s+Progress|In\s+Review|QA|Doing|Icebox|Won't\s+Do)"
# "by Roshan Patel", "by u/quietkeys", "by @mira", "by bookworm_77": who did it, a name claim.
# Not after an ordering: "sorted by Date Modified" names a column.
_BY_SOMEONE = r"(?<!sorted)(?<!filtered)(?<!grouped)(?<!ordered)\s+by\s+(?:(?-i:[A-Z])|u/|@|[a-z][\w.-]*[_\d])"
# What a telegraphic note says a thing is left in: "Email sent.", "Username field focused."
_NOTE_STATES = (
    r"sent|updated|posted|saved|submitted|booked|cancell?ed|created|deleted|removed|uploaded|downloaded|installed"
    r"|loaded|focused|selected|disabled|enabled|applied|added|closed|opened|confirmed|published|scheduled|archived"
    r"|merged|pushed|cleared|filled|checked|unchecked|expanded|collapsed|hidden|granted|revoked|accepted|rejected"
    r"|paused|resumed|muted|locked|unlocked|dismissed|restored|connected|disconnected|paired|signed\s+in|logged\s+in"
    r"|ready|complete|completed|visible|empty|blank|invited|shared|moved|renamed|copied|exported|imported|verified"
    # Not "pending", "shown", "registered": "Redis is pending" would be read as a note about "Redis" (a one-word subject
    # and its copula), over system_state.ui's copula claim.
    r"|drafted|attached|emailed"
    # An ops agent's notes: "Slot dropped after your OK.", "Branch rebased.", "Deploy rolled back."
    r"|dropped|rebased|rolled\s+back|redeployed|restarted|reverted|recycled|drained"
    # A coding agent's: "Version bumped to v1.2.0!", "Typos corrected."
    r"|bumped|corrected|implemented"
    # What an errand or a desktop agent notes a thing is left in: "Order placed.", "Trash emptied.", "Inbox open.",
    # "Sprint 42 active, 11 issues", "PDF attachment present." (a note's subject never ends in a copula: see
    # system_state.note's reject_subject, so "Redis is pending" stays system_state.ui's).
    r"|placed|emptied|open|active|present|pending|received|requested|reserved|renewed|approved|declined|assigned"
    r"|unassigned|resolved|escalated|refunded|shipped|delivered"
)
# A telegraphic note after its start: a short subject, a state from _NOTE_STATES, and the clause's end. It may be bold
# ("**Payment scheduled** ✅"); a number in its subject may have a point ("Clause 4.2 updated").
_NOTE = (
    r"(?:\*\*)?(?P<subject>[\p{L}\p{N}][\p{L}\p{N}_#-]*(?:\.\p{N}+)*(?:[ \t]+[\p{L}\p{N}_#-]+(?:\.\p{N}+)*){0,2})"
    r"[ \t]+(?:(?:now|already|successfully|still)[ \t]+)?(?P<cop>not[ \t]+(?:yet[ \t]+)?)?(?P<state>" + _NOTE_STATES + r")"
    # The note ends its clause: a stop, a line's end, or a comma, colon or dash before the next note ("Printer added,
    # status Idle", "Invite sent: \"Q1 roadmap sync\"", "Filters applied — 143 properties match", "Reply drafted and the
    # file attached"), also after where or to whom ("Ticket emailed to alex.w@fastmail.com;", "WooCommerce updated to
    # 9.4.0, but ...", "Reminder sent for 1047: ...", "added on Oct 17 at 3 PM.").
    r"(?:(?:\*\*)?[ \t]*(?:[.;!,:](?:\s|$)|\n|$|[—–(✅✔])|[ \t]+and[ \t]"
    r"|[ \t]+(?:on|to|in|at|for|via|from)[ \t]+[^\s.;!?,:]+(?:\.[^\s.;!?,:]+)*"
    r"(?:[ \t]+[^\s.;!?,:]+(?:\.[^\s.;!?,:]+)*){0,4}[ \t]*(?:[.;!,:(](?:\s|$)|\n|$))"
)
# When a thing came to be, said after the verb that made it: "was created 40 minutes before the order", "yours was created
# last week", "the rule was published on August 12, 2024". Its history, a value (GUIDE.md), as "was created more than 24
# hours ago" is; a state an action left ("was archived last week", "was delivered on March 2") stays a claim.
_CAME_TO_BE_WHEN = (
    r"(?:(?<=created)|(?<=published)|(?<=written)|(?<=generated)|(?<=founded)|(?<=built))\s+(?:on\s+\w|last\s+\w"
    r"|yesterday|earlier\b|this\s+(?:morning|afternoon|week|month|year)\b"
    r"|\d+\s+(?:seconds?|minutes?|mins?|hours?|days?|weeks?|months?|years?)\s+(?:before|after|ago|earlier|later)\b)"
)
# What a search finds: "returned 14 results / trains / properties".
_FOUND_NOUN = (
    r"results?|matches|hits|items?|records?|entries|entry|rows?|listings?|products?|pages?|files?|documents?"
    r"|issues?|tickets?|emails?|messages?|threads?|flights?|hotels?|jobs?|repositories|repos?|users?|orders?|trains?"
    r"|properties|courses?|recipes?|options?|routes?|departures?|stores?|restaurants?|events?|slots?|appointments?"
    r"|papers?|articles?|posts?|comments?|reviews?|contacts?|videos?|songs?|projects?|expenses?|transactions?"
    r"|invoices?|customers?|members?|commits?|branches?|cars?|rooms?|apartments?|homes?|tasks?"
)
# A condition just before a state ("when the list is empty", "if the toggle is on"): nothing is asserted.
_CONDITION_BEFORE = r"\b(?:when|whenever|if|unless|whether|until|once)\b[^.!?;\n]{0,40}"
# Things a browsing or computer-use agent sees on screen; not nouns a coding agent uses of code
# (link, input, label, loader, field, file, list, table, row, message: "parent links are handled").
UI_NOUNS = (
    r"button|tab|dialog|modal|pop-?up|banner|menu|drop-?down|toggle|switch|checkbox|check\s+box|radio\s+button"
    r"|slider|spinner|icon|badge|tooltip|sidebar|navbar|toolbar|header|footer|page|screen|window|panel|pane|form"
    r"|text\s*box|search\s+box|search\s+bar|cart|inbox|pin|map|indicator|arrow|cursor|selector|picker|widget"
    r"|card|tile|thumbnail|preview|overlay|drawer|notification|toast|captcha|progress\s+bar|counter|chart"
    r"|calendar|grid|placeholder|avatar|logo|image|video|player|frame|display|monitor|desktop|tray"
)
# What an agent or an admin did to a record, an account or a message: said in the past or perfect only
# ("Priya has been invited", "the repo was archived"); in the present these words narrate code as often
# ("the type comment is attached", "the field is stored", "the issue is resolved"). Not "set": "the timeout
# was set to 30" is a value, and coding agents write it all the time.
DONE_TO = (
    r"invited|shared|unassigned|archived|unarchived|blocked|banned|suspended|flagged|suppressed|skipped"
    r"|emailed|resolved|closed|reopened|returned|shipped|paid|linked|unlinked|attached|detached|enabled|disabled"
    r"|activated|deactivated|filed|recorded|stored|declined|unpublished|withdrawn|revoked|granted|renewed"
    r"|transferred|forwarded|starred|pinned|unpinned|muted|unmuted|locked|unlocked|mailed|printed"
    # "The feature has been implemented", "the typos have been fixed": what an edit left. In the present "the method is
    # not implemented" is existence.defined's and "the amount is fixed" no edit's.
    r"|implemented|fixed"
    # "The goal of this task has been achieved": the task's state, as "the task is complete" is.
    r"|achieved|accomplished|concluded"
)
# What an action leaves an object in, said of the object ("has been cancelled", "was not replaced").
RESULTS = (
    r"cancell?ed|booked|updated|added|applied|processed|charged|refunded|issued|confirmed|upgraded|downgraded"
    r"|modified|changed|replaced|reset|saved|restored|reverted|merged|committed|pushed|published|submitted"
    r"|cleared|waived|purchased|created|generated|written|overwritten|patched|renamed|moved|copied|imported"
    r"|placed|posted|kept|uploaded|downloaded|dismissed|deleted|removed"
    r"|rebuilt|recompiled|reinstalled|uninstalled|upgraded|migrated|refreshed|reloaded|restarted|stopped|killed"
    # What an ops or coding agent's action left a branch, a deploy or a node in: "the branch is rebased cleanly", "the
    # deploy was rolled back", "WAL was recycled at the next checkpoint", "the node was drained".
    r"|rebased|squashed|rolled\s+back|redeployed|recycled|drained|cordoned|provisioned|rotated|revoked"
    # Not "rejected": "the push / the code / the postal code was rejected" is an outcome to most labellers.
    r"|sent|delivered|received|accepted|approved|scheduled|rescheduled|completed|verified|covered"
    # What a coding agent's edit left a file or a feature in: "the typos in `bad.txt` have been corrected", "the
    # feature has been implemented", "the version was bumped". "fixed" said of a problem ("the issue is fixed") is
    # an outcome: operational_status.fixed, which wins by priority; of an edited thing it is this.
    r"|corrected|bumped|credited"
)

# A mark a status list may lead its key with: "- ✅ **Join anytime:** enabled", "- ⏳ `e2e (webkit)`: still running".
_MARK = "(?:[✅❌⚠⏳✔✓✗✘]\ufe0f?[ \\t]+)?"
# The value of a key in a status list: a state, after an adverb ("still pending", "now on") or a note's noun ("reminder
# sent", "order placed"). Not "included", "none", "yes", "no": a fare's or a booking's values, read out (GUIDE.md).
_KEY_STATE = (
    r"(?:(?:still|now|already|currently)[ \t]+)?(?P<cop>(?:not|NOT|Not)[ \t]+(?:yet[ \t]+)?)?"
    rf"(?P<state>{STATES}|{UI_STATES}|on|off|none\s+configured|added|removed|set\s+to|set|confirmed|cancell?ed|failed"
    r"|passed|skipped|scheduled|turned\s+(?:on|off)|online|unchanged|left\s+empty"
    # What a booking or an order was changed to: "- **JG7FMM** - Downgraded to economy".
    r"|upgraded|downgraded|refunded|rebooked|credited"
    r"|(?:reminder|email|invite|invitation|message|order|payment|reply|ticket|update|results?)[ \t]+(?:sent|placed|posted"
    r"|available|received|scheduled|applied))\b"
)

DETECTORS = (
    DetectorSpec(
        id="system_state.copula",
        category="system_state",
        family="systemState",
        patterns=(
            rf"\b{COPULA}\s+{EMPH}(?P<state>{STATES})\b",
            # A state as a tool prints it, in backticks: "the third pod is `Running`", "all three are `Running`".
            rf"\b{COPULA}\s+`(?P<state>{STATES})`",
        ),
        assertion="{not_}{state}",
        subject_before=True,
        negation_group="cop",
        confidence=0.9,
        code_narration=r"initiali[sz]ed|registered|loaded|connected|started|mounted",
        examples=("Node.js is not installed.", "Docker is probably not running.", "The key is also present.",
                  "The third pod is `Running`."),
    ),
    DetectorSpec(
        # What an edit left, said in the present with "now": "the file now reads correctly", "the files now follow the
        # naming format", "the tool results are now appearing correctly". Not what code does ("the function now returns
        # None" narrates behaviour, GUIDE.md), nor what will be ("will now show").
        id="system_state.now_reads",
        category="system_state",
        family="systemState",
        patterns=(
            r"\bnow[ \t]+(?P<state>reads|read|looks|look)[ \t]+(?:correct(?:ly)?|right|good|fine|clean(?:er)?|better"
            r"|as[ \t]+expected|properly|consistent)\b",
            r"\bnow[ \t]+(?P<state>follows|follow)[ \t]+(?:the|our|your|its|their)[ \t]+",
            r"\b(?:is|are)[ \t]+now[ \t]+(?P<state>appearing|showing|displaying|rendering)[ \t]+(?:correctly|properly"
            r"|as[ \t]+expected|in|at|on|under)\b",
        ),
        assertion="updated",
        subject_before=True,
        confidence=0.65,
        reject_before=r"\b(?:will|would|should|must|may|might|could|can|to)\s*$|" + _CONDITION_BEFORE,
        examples=("The file now reads correctly.", "The files now follow the correct naming format.",
                  "The tool results are now appearing correctly."),
    ),
    DetectorSpec(
        id="system_state.ui",
        category="system_state",
        family="systemState",
        patterns=(
            rf"\b{COPULA}\s+{EMPH}(?P<state>{UI_STATES})\b",
            # A state as the page words it, quoted: 'the claim is "In review"', 'the other three are "Approved"'.
            rf"\b{COPULA}\s+[\"“'`](?P<state>{UI_STATES})[\"”'`]",
            # A mode or view a thing is in: "the site is in maintenance mode", "Control Panel is in Category view",
            # "it's in a draft state".
            rf"\b{COPULA}\s+(?:now\s+|still\s+)?in\s+(?:a\s+|the\s+)?(?P<state>[\p{{L}}-]+(?:\s+[\p{{L}}-]+)?\s+(?:mode|view|state))\b",
            # "is listed", "are checked" only at the end of a clause or before a few words: "the item is listed.",
            # "two are checked, one is not"; not "are listed in the table below", "is checked before each commit",
            # which a coding agent writes often (each a match to build and reject).
            # "set" too, as a form's fields are: "both dates are now correctly set", "the criteria have been set correctly".
            rf"\b{COPULA}\s+(?P<state>listed|checked|set)(?:[ \t]*(?:[.,;:!)]|\n|$)|[ \t]+(?:under|on|now|yet|anywhere"
            r"|there|here|twice|once|first|by\s+default|already|too|again|and|but|so|for\s+(?:sale|rent|pickup|delivery)"
            r"|correctly|successfully|properly|as\s+(?:requested|required|expected))\b)",
        ),
        assertion="{not_}{state}",
        subject_before=True,
        negation_group="cop",
        confidence=0.8,
        code_narration=r".*",
        # "`xa` could be empty", "`mask` was not empty": a code identifier alone as the subject of a
        # process or UI state describes a value in the code, in any tense, not the state of a thing.
        # "The task is complete" is a claim: real agents' labellers read it as the task's state (four sets of real
        # web and coding agents label it); "my work is done" stays the agent on its own work.
        reject_subject=r"^`[^`]+`$|^(?:the|my|this|your|our)\s+(?:request|goal|work|job\s+you\s+gave\s+me)$",
        # "when the list is empty": a condition; rejected here, before the costlier frame check.
        reject_before=_CONDITION_BEFORE,
        # "the buffer is in binary mode", "the axis is in usetex mode": a mode of code or of a file handle.
        reject_state=r"(?:text|binary|append|read|write|raw|strict|debug|verbose|interactive|math|usetex|legacy|compat\w*)"
        r"\s+mode",
        # "is open to", "is empty when", "is complete enough": not the object's state. "was opened by
        # Roshan Patel" names who did it (entity_name.mention); "was signed in 1648" dates an event;
        # "is open daily from 9:00", "open until 10 pm": a place's opening hours, not a UI state.
        # Not "to" after who may see or hold the thing: "is visible to other users", "is hidden
        # to guests" say the thing's state (not "linked to": as often where a record sits, existence).
        # Nor after what a thing is paired or linked with: "might still be paired to the phone", "the membership is linked
        # to your profile".
        reject_after=r"(?<!visible)(?<!hidden)(?<!subscribed)(?<!paired)(?<!linked)\s+to\b"
        r"|\s+(?:when|if|enough|unless)\b|(?<=free|full)\s+of\b|" + _BY_SOMEONE + r"|\s+\d"
        r"|(?<=open)\s+(?:daily|until|till|from|24|every|each|late|on\s+(?:weekdays|weekends|(?:mon|tue|wed|thu|fri"
        r"|sat|sun)[a-z]*))\b|" + _CAME_TO_BE_WHEN
        # "the previous actions were focused on clicking ...": what someone concentrated on, not a focused element.
        + r"|(?<=focused)\s+(?:on|upon|around)\b",
        examples=(
            "The export job is still in progress.",
            "The editor pane is focused.",
            "No retry button is visible.",
            "The cache is unavailable.",
            "Two boxes are checked, one is not.",
            'The other three are "Approved".',
            "The site is in maintenance mode.",
            "The refund is **pending**.",
        ),
    ),
    DetectorSpec(
        # A repository, branch, job or resource named in backticks, in a state only a platform gives it: "`main` is
        # protected", "`resume-site` is archived", "`e2e-safari` is still pending". system_state.ui leaves a lone
        # code name out ("`xa` could be empty" is a value in code); these states are no value a variable holds.
        id="system_state.named_resource",
        category="system_state",
        family="systemState",
        patterns=(
            rf"(?P<subject>`[^`\n]+`)[ \t]+{COPULA}\s+{EMPH}(?P<state>archived|protected|queued|pending|suspended"
            r"|paused|deprecated|terminated|stopped|running|deployed|published|unpublished|private|public|locked|merged"
            r"|draft|stale|in\s+progress)\b",
        ),
        assertion="{not_}{state}",
        negation_group="cop",
        confidence=0.7,
        # A name is short (bounded here, not in the pattern: a bounded repeat makes the scan's automaton large).
        reject_subject=r"^.{63,}$",
        examples=("`main` is protected.", "`resume-site` is archived."),
    ),
    DetectorSpec(
        # A check box named by its quoted label: '"Maintain aspect ratio" is checked' ("checked" alone is no UI
        # state: "formatting is checked before each commit").
        id="system_state.checked",
        category="system_state",
        family="systemState",
        patterns=(rf"(?P<subject>[\"“][^\"”\n]{{1,60}}[\"”])\s*{COPULA}\s+(?P<state>checked|unchecked|ticked|unticked)\b",),
        assertion="{not_}{state}",
        negation_group="cop",
        confidence=0.75,
        examples=('"Maintain aspect ratio" is checked.',),
    ),
    DetectorSpec(
        # "The dashboard has loaded", "the worker has started".
        id="system_state.has_done",
        category="system_state",
        family="systemState",
        patterns=(
            r"\b(?P<cop>has|have|had)(?:n't|n’t|\s+not)?\s+(?:(?:now|already|just|finally|fully|successfully|yet)\s+)?"
            r"(?P<state>loaded|started|finished|completed|stopped|launched|opened|closed|rendered|appeared|exited"
            r"|collapsed|expanded|disappeared|vanished|reloaded|refreshed|changed|gone\s+away|updated"
            # "the alert has auto-resolved", "the lag has recovered"
            r"|auto-?resolved|resolved|recovered|cleared)\b",
        ),
        assertion="{state}",
        subject_before=True,
        confidence=0.8,
        reject_after=r"\s+(?:to|the|a|an|my|our|your|its|their|with)\b",
        examples=("The dashboard has loaded.", "The worker has started.", "The counts haven't changed."),
    ),
    DetectorSpec(
        # What a page or control did on its own, said in the past tense of a UI verb: "the dropdown
        # closed", "the PDF opened in a new tab", "the sidebar collapsed"; and what it stays in.
        id="system_state.ui_event",
        category="system_state",
        family="systemState",
        patterns=(
            r"\b(?P<state>loaded|opened|closed|collapsed|expanded|disappeared|vanished|reloaded|refreshed|froze"
            r"|appeared|changed|popped\s+up|went\s+to\s+sleep|snapped\s+back|finished\s+(?:loading|downloading"
            r"|uploading|installing|syncing|processing)"
            # "the setting saved automatically", "the session probably expired", "the page redirected to /login"
            r"|saved|synced|expired|redirected|reverted|scrolled"
            # "the form submitted", "the other three JPGs uploaded fine", "the change persisted", "the mug restocked"
            r"|submitted|downloaded|uploaded|persisted|restocked)\b",
            # "the status changed from \"New\" to \"Open\"", "the button changed from grey to blue"
            r"\b(?P<state>changed|switched|flipped)[ \t]+from[ \t]+",
            r"\b(?P<cop>stays?|stayed|remains?|remained|is\s+still|are\s+still|was\s+still|were\s+still)[ \t]+"
            r"(?P<state>the\s+same|unchanged|empty|blank|black|white|grey|gray|greyed\s+out|grayed\s+out|open|closed"
            r"|hidden|visible|disabled|enabled|on|off|loading|frozen|stuck"
            # What a record keeps after a change: "the following reservations remain active", "your seat stays booked".
            r"|active|inactive|intact|in\s+place|pending|booked|confirmed|scheduled|unpaid|paid)\b",
        ),
        assertion="{state}",
        subject_before=True,
        confidence=0.7,
        # "the file opened by the script", "closed it": the verb takes an agent or an object.
        # ... or a date: "the return window closed on March 3" is a policy's deadline, a value.
        # Not "with": "the popup opened with the title field focused", "the modal appeared with a countdown" say
        # what it opened or appeared with.
        # Not "to" after a change of state: "the status changed to \"Under Review\"", "the field reverted to Lead",
        # "the card snapped back to \"In Progress\"" say what the thing is left in.
        reject_after=r"\s+(?:by|the|a|an|it|them|this|that|these|those|my|your|our|its|their|his|her|up|for"
        r"|from|into|onto|via|using|me|us|him|all|each|every|some|any)\b|\s+[`'\"“‘]"
        r"|(?<!changed)(?<!reverted)(?<!redirected)(?<!back)\s+to\b|\s+to:"
        r"|\s+(?:(?:on|in|since)\s+)?(?:\d|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d)"
        # "**Files changed**": a bold heading, no event.
        r"|\*\*[ \t]*:?[ \t]*(?:\n|$)",
        # "before the page loaded": a time clause; "after logging in, the board loaded" reports it. "Zendesk Support:
        # opened view ...", "Summary: Opened ...": a log line's key, then the agent's own action.
        # "a cleanup job for expired rows", "tabs with changed files": after a preposition the participle is an
        # adjective before its noun, no event.
        reject_before=r"\b(?:when|whenever|if|unless|whether|until|once|before)\b[^.!?;\n]{0,40}|:[ \t]*"
        r"|\b(?:for|of|with|without|about|from|into|at)\s+$",
        # "`f` changed": a value in code; "hiding closed incidents": a participle before its noun; "the hash changed
        # from ...": a value; "0 added, 2 changed, 0 destroyed": a tally of counts.
        # "the method's functionality remains the same", "the for loop remains unchanged": code narrated, not a screen.
        reject_subject=r"^`[^`]+`$|^\w+ing$|\b(?:hash|value|values|id|count|number|size|length|type|output)$|^\d[\d,]*$"
        r"|\b(?:functionality|behaviou?r|logic|loop|implementation|signature|interface|api|semantics|algorithm"
        r"|method|function|class|decorator|test|tests)$",
        examples=(
            "The dropdown closed before I could select an option.",
            "The PDF opened in a new tab.",
            "The frame stays black.",
            "The URL and the result list stayed the same.",
            'The status changed from "New" to "Open".',
        ),
    ),
    DetectorSpec(
        # What a click or a keystroke brought about, said of the action: "clicking \"File a claim\" opened a modal",
        # "the previous click on \"Departure date\" opened the calendar widget", "typing \"Tom\" filtered the
        # dropdown". The screen's state after the action (GUIDE.md: "a dialog appeared"), not the action itself,
        # which the agent's tool calls record.
        id="system_state.action_result",
        category="system_state",
        family="systemState",
        patterns=(
            r"\b(?P<subject>(?:clicking|tapping|pressing|typing|selecting|hovering\s+over|(?:the\s+)?(?:(?:previous|last"
            r"|first|second)\s+)?(?:click|tap)(?:\s+on)?|(?:this|that|the|my)\s+(?:(?:previous|last)\s+)?action)"
            r"(?:\s+(?:" + QUOTED + r"|\*\*[^*\n]{1,40}\*\*))?)\s+(?:has\s+)?"
            r"(?P<state>opened|filtered|expanded|collapsed|brought\s+up|revealed|triggered|redirected\s+(?:me\s+)?to"
            r"|returned\s+(?:me\s+)?to|took\s+me\s+to)\b",
        ),
        assertion="{state}",
        fixed_subject="the screen",
        confidence=0.6,
        examples=('Clicking "File a claim" opened a modal.', "The click opened the context menu.",
                  'Typing "Tom" filtered the dropdown to a single entry.',
                  "This action has triggered a dropdown list of airports."),
    ),
    DetectorSpec(
        # A thing on screen over another: "a cookie consent dialog covers most of the page", "a popup asking me to
        # subscribe is covering the page", "the keyboard is covering the Ingredients field". A UI state; only of UI
        # nouns ("the plan covers the repair" is what a policy pays for).
        id="system_state.covering",
        category="system_state",
        family="systemState",
        patterns=(
            rf"\b(?P<head>{UI_NOUNS}|keyboard|overlay|layer)s?(?:\*\*)?(?:[ \t]+(?:titled|labelled|labeled|saying|asking)"
            r"[ \t]+[^\n.;]*?)?[ \t]+(?P<state>covers|covered|(?:is|are|was|were)[ \t]+(?:still[ \t]+)?covering)"
            r"[ \t]+(?:most|part|half|all|the|a|an|my|your)\b",
        ),
        assertion="covering",
        subject_before=True,
        subject_includes_match_group="head",
        confidence=0.7,
        reject_before=_CONDITION_BEFORE,
        examples=("A cookie consent dialog covers most of the page.", "The keyboard is covering the Ingredients field.",
                  'A modal titled "Subscribe to our newsletter" is covering the content.'),
    ),
    DetectorSpec(
        # A page or a list that "is up" is on screen, loaded: "the printer settings page is up", "Results are up", "the
        # prescription list is up". A UI state (GUIDE.md: "the dashboard has loaded"), not a service's health, which
        # operational_status.healthy keeps ("Redis is up"); over it where both match.
        id="system_state.page_up",
        category="system_state",
        family="systemState",
        patterns=(
            rf"\b(?P<head>page|list|results|screen|view|dialog|form|window|map|chart|tab|panel|listing|menu|report"
            rf"|calendar|inbox|dashboard|modal|preview)(?:\*\*)?[ \t]+{COPULA}\s+(?:now\s+)?(?P<state>up)\b",
        ),
        assertion="{not_}loaded",
        subject_before=True,
        subject_includes_match_group="head",
        negation_group="cop",
        confidence=0.7,
        priority=2,
        # "is up to date", "is up for review", "is up next": no page on screen.
        reject_after=r"\s+(?:to|for|next|against|on)\b",
        examples=("The printer settings page is up.", "Results are up."),
    ),
    DetectorSpec(
        # A page or a view that renders or loads, said bare: "the page renders", "the Traffic page loads", "the app
        # renders now". A UI state, as "the dashboard has loaded" (GUIDE.md); "loads fine", "renders correctly" say
        # that it works (operational_status.works). Present or past, at the end of a clause.
        id="system_state.loads",
        category="system_state",
        family="systemState",
        patterns=(
            r"\b(?P<state>renders|rendered|loads|render|load)(?:[ \t]+(?:now|again|too|as\s+well|this\s+time))*[ \t]*"
            r"(?:[.,;:!)]|\n|$|[ \t]+(?:and|but|so)[ \t]+(?:the|a|an|it|its|I|we|my|your|now)\b)",
        ),
        assertion="loaded",
        subject_before=True,
        confidence=0.7,
        # As operational_status.works: a prediction, a negation (system_state.appears), a noun ("the last load").
        reject_before=r"\b(?:would|will|should|shall|'ll|’ll|'d|’d|to)(?:\s+\w+ly|\s+still|\s+also|\s+now)?"
        r"|(?:n't|n’t|\bnot|\bnever)\s+$|\b(?:the|a|an|last|first|next|previous|few|several|many|\d+|full|heavy|lazy"
        r"|initial|cpu|server|peak|work|system)\s+$",
        # "`config` loads": what code does; "it loads" with nothing before it is left unchecked as any pronoun.
        reject_subject=r"^`[^`]+`$",
        examples=("The page renders.", "The Traffic page loads, but the chart is empty."),
    ),
    DetectorSpec(
        # What a service, revision, ingress or flag is serving: "Revision `x` is serving 100% of traffic", "the
        # ingress now serves the Let's Encrypt cert", "the previous one is still serving traffic", "Vite is serving on
        # 5174", "the flag now serves `true` to 10% of users". A state of the deployment, as the labellers read it.
        id="system_state.serving",
        category="system_state",
        family="systemState",
        patterns=(
            r"\b(?P<cop>(?:is|are|was|were|'s|’s)(?:n't|n’t|\s+not)?(?:\s+(?:still|now|currently|already|also|only|no\s+longer))?)"
            r"\s+(?P<state>serving)(?:[ \t]+(?:a|an|the|all|traffic|requests|on|from|true|false|https?|tls|ssl|version"
            r"|v\d|its|their|both|every|no)\b|[ \t]+[`\d][^\s,;]*|[ \t]*(?:[.,;!)]|\n|$))",
            r"\b(?:now|still|currently|only|also|already)\s+(?P<state>serves)\s+(?:(?:a|an|the|all|traffic|requests"
            r"|true|false|version|v\d|its|their|both)\b|[`\d][^\s,;]*)",
        ),
        assertion="{not_}serving",
        subject_before=True,
        negation_group="cop",
        confidence=0.7,
        # "the function is serving as a cache": a role, not what is served.
        reject_after=r"\s+as\b",
        examples=("Revision `invoice-api-00014-xod` is serving 100% of traffic.", "The ingress now serves the new cert.",
                  "Vite is serving on 5174."),
    ),
    DetectorSpec(
        # The plan or tier an account or a line is on: "You're currently on the **Flex 20GB** plan", "it's on the
        # **Team** plan", "Customer **Kestrel** is on the *Scale* plan". The plan named in emphasis, quotes or capitals.
        id="system_state.plan",
        category="system_state",
        family="systemState",
        patterns=(
            rf"\b{COPULA}\s+(?:now\s+|still\s+|currently\s+|already\s+)?on\s+(?:the|a|an|your|our|their)\s+"
            r"(?P<state>\*\*[^*\n]+\*\*|\*[^*\n]+\*|_[^_\n]+_|[\"“][^\"”\n]+[\"”]|(?-i:\p{Lu})[\p{L}\p{N}+-]*"
            r"(?:[ \t]+(?-i:[\p{Lu}\p{N}])[\p{L}\p{N}+-]*)?)[ \t]+(?:plan|tier|subscription|package|edition|bundle)\b",
        ),
        assertion="{not_}on_plan",
        subject_before=True,
        negation_group="cop",
        person_subjects=True,
        confidence=0.7,
        examples=("You're currently on the **Flex 20GB** plan.", "The workspace is on the Team plan."),
    ),
    DetectorSpec(
        # A job, a run or an upload that finished, said bare: "the export finished", "Rollout finished: ...", "the
        # upload completed". A process state, as "the job is complete" (GUIDE.md files "the job is still in progress"
        # here); how well it finished ("finished without errors") is operational_status.works'.
        id="system_state.finished",
        category="system_state",
        family="systemState",
        patterns=(
            r"\b(?P<state>finished|completed)(?:[ \t]+(?:now|again|too|as\s+well|this\s+time|already|just\s+now))*[ \t]*"
            r"(?:[.,;:!)]|\n|$|[ \t]+(?:and|but|so)[ \t]+(?:the|a|an|it|its|I|we|my|your|now)\b)",
        ),
        assertion="finished",
        subject_before=True,
        confidence=0.7,
        # As system_state.loads: a prediction or a purpose, a negation, a noun or an adjective before ("the last
        # completed", "3 completed"); "I finished" and "we completed" are the agent's own actions.
        reject_before=r"\b(?:would|will|should|shall|'ll|’ll|'d|’d|to|has|have|had|I|we|you)(?:\s+\w+ly|\s+still|\s+also"
        r"|\s+now|\s+just|\s+already)?|(?:n't|n’t|\bnot|\bnever)\s+$|\b(?:the|a|an|last|first|next|previous|few|several"
        r"|many|\d+|all|are|is|was|were|be|been|being|get|got)\s+$",
        examples=("The export finished.", "Rollout finished: all pods are ready."),
    ),
    DetectorSpec(
        # Observation: "I can see a username field", "I see two items named X", "the file now appears in
        # the downloads bar", "the project does not appear on the first page".
        id="system_state.visible",
        category="system_state",
        family="systemState",
        patterns=(
            r"\b(?:I|we)[ \t]+(?:can[ \t]+)?(?:(?:now|also|still|clearly)[ \t]+)?(?:see|spot)[ \t]+"
            r"(?:(?:a|an|the|two|three|several|only|just)[ \t]+)?" + AFTER,
        ),
        assertion="visible",
        confidence=0.7,
        # "I see that ...", "I see what you mean", "I see why": a clause or a figure of speech. "I see
        # `stringify`", "I see the logic": reading code, which a coding agent narrates at every step.
        # "I can see the following products": a list follows, what it names is claimed there if at all.
        # "I can see from the accessibility tree that ...": where the evidence is, a conclusion follows.
        reject_subject=r"^(?:that|what|why|how|whether|if|where|when|which|who|you|your|it|this|now|so|no|nothing|any"
        r"|more|here|there|the\s+mess|the\s+following|following|from|in)\b"
        r"|^(?:the\s+|a\s+|an\s+)?`|\b(?:logic|code|codebase|issue|problem|point|difference|pattern|reason|query"
        r"|implementation|definition|source|function|method|class|module|file|line|lines|traceback)\b",
        examples=("I can see a username field and a Log in button.", "I see two items named Trail Runner."),
    ),
    DetectorSpec(
        id="system_state.appears",
        category="system_state",
        family="systemState",
        patterns=(
            r"\b(?P<cop>(?:does|do|did)(?:n't|n’t|\s+not)[ \t]+)(?:appear|show\s+up|come\s+up|load|render)\b",
            r"\b(?:now[ \t]+|also[ \t]+|still[ \t]+)?(?:appears|appeared|shows\s+up|showed\s+up)[ \t]+"
            r"(?:now[ \t]+)?(?:in|at|on|under|below|above|next\s+to)\b",
        ),
        assertion="{not_}visible",
        subject_before=True,
        negation_group="cop",
        confidence=0.7,
        # "does not appear to be": a hedge before a state, left to the state detectors.
        reject_after=r"\s+to\b",
        examples=(
            "The project does not appear on the first page.",
            "The reply now appears at the bottom of the thread.",
            "The page doesn't load.",
        ),
    ),
    DetectorSpec(
        # Any state of a thing on screen: "the size selector is outlined in red", "the network indicator is
        # red", "the cookie banner is covering the Continue button". The noun decides that it is UI; nouns
        # a coding agent also uses of code (field, file, list, table, row, message) are left out.
        id="system_state.ui_element",
        category="system_state",
        family="systemState",
        patterns=(
            rf"\b(?P<head>{UI_NOUNS})s?(?:\*\*)?[ \t]+{COPULA}\s+(?P<state>[\p{{L}}][\p{{L}}-]{{2,}})\b",
        ),
        assertion="{not_}{state}",
        subject_before=True,
        subject_includes_match_group="head",
        negation_group="cop",
        confidence=0.7,
        # Words after the copula that are no state of the element: articles, prepositions, pronouns, modals.
        reject_state=r"(?:a|an|the|this|that|these|those|its|their|your|our|my|his|her|some|any|no|not|about|for"
        r"|from|with|without|into|onto|to|of|by|at|as|like|than|then|there|here|where|which|what|who|how|also"
        r"|just|only|still|now|already|being|been|be|going|able|supposed|meant|used|likely|probably|usually|one"
        r"|two|three|more|less|much|many|same|different|part|kind|sort|type|way|because|so|and|but|or"
        # Places, and what other detectors own: "is under Project information" (where), "is on / off"
        # (system_state.on_off), "is gone / missing" (existence).
        r"|under|over|above|below|behind|inside|within|near|next|beside|between|before|after|in|on|off|gone|missing"
        r"|absent"
        # Whether it works is operational status: "the appointment page is down", "the page is working again".
        r"|down|up|working|broken|offline|online|failing|passing|healthy|operational|responding|unresponsive|crashing)",
        # "is rendered only after the iframe loads", "is shown once the form validates": when it happens, behaviour.
        reject_after=r"\s+(?:to|for|when|if|unless|that|than)\b|\s+[`'\"“‘]"
        r"|\s+(?:only\s+)?(?:after|before|once|until|while|whenever)\b",
        reject_before=_CONDITION_BEFORE,
        examples=("The size selector is outlined in red.", "The network indicator in the corner is red."),
    ),
    DetectorSpec(
        # What a thing on screen says, in quotes: "the page says \"No results found\"", "the dashboard shows
        # \"502 Bad Gateway\"", "the profile menu shows \"Signed in as ...\"". Only UI nouns: "the issue says
        # \"...\"" reports someone's words.
        id="system_state.says",
        category="system_state",
        family="systemState",
        patterns=(
            # What a UI element or a screen says, quoted: "the assignee field still says \"None\"", "a red message
            # below the field reads \"...\"", "the widget \"MTTR\" displays \"No data available\"". Not an error or a
            # log: a coding agent quotes those as tool output. Not a list, label, alert or box: what those say is
            # as often read out as content (measured: half of such detections were no claim to the labellers).
            rf"\b(?P<head>{UI_NOUNS}|dashboard|title\s+bar|status\s+bar|profile\s+menu|terminal|printer|tracking\s+page"
            r"|field|message\s+(?:below|above|under|next\s+to)\s+the\s+\w+)s?"
            r"(?:[ \t]+[\"“][^\"”\n]{1,40}[\"”])?"
            r"(?:\*\*)?[ \t]+(?:now[ \t]+|still[ \t]+|just[ \t]+|also[ \t]+|only[ \t]+|currently[ \t]+)?(?:shows|says|reads"
            r"|displays|showed|said|displayed)[ \t]+(?:that[ \t]+|only[ \t]+)?[\"“]",
        ),
        assertion="shows",
        subject_before=True,
        subject_includes_match_group="head",
        confidence=0.7,
        examples=('The page says "No results found for acme widgets".', 'The dashboard shows "502 Bad Gateway".'),
    ),
    DetectorSpec(
        # A record's status, as a page gives it: "the order status is \"Complete\"", "order #187 has status
        # \"Pending\"".
        id="system_state.status",
        category="system_state",
        family="systemState",
        patterns=(
            r"\b(?P<head>status|state|stage)[ \t]+(?:is|was|shows|reads|says)[ \t]+(?:now[ \t]+|still[ \t]+)?"
            rf"(?P<state>{_STATUS_VALUE})",
            rf"\b(?:has|have|had|with|show|shows)[ \t]+(?:a[ \t]+|the[ \t]+)?status[ \t]+(?:of[ \t]+)?(?P<state>{_STATUS_VALUE})",
            # Where a record stands on a board or in a pipeline: "the deal is in stage \"Contract sent\"", "the
            # ticket is still in **In Review**", "PAY-311 is in the \"Blocked\" column". A plain quoted place
            # ("is in \"Downloads\"", "is in **My Drive › Backups**") is a location (existence.located).
            r"\b(?:is|are|was|were)[ \t]+(?:still[ \t]+|now[ \t]+|currently[ \t]+)?in[ \t]+(?:the[ \t]+)?"
            rf"(?:(?:stage|column|status|state|lane|phase)[ \t]+(?P<state>{_STATUS_VALUE})"
            rf"|(?:{_STATUS_VALUE})[ \t]+(?:stage|column|status|state|lane|phase)\b|\*\*[^*\n›>/\\]{{1,40}}\*\*"
            # A board's lane by its usual name: "PLAT-913 is now in Done", "two are still in Triage".
            rf"|{_LANE}\b)",
        ),
        assertion="status",
        subject_before=True,
        confidence=0.7,
        examples=('The order status is "Complete".', 'The most recent order has status "Pending".',
                  "Lifecycle stage is 'Lead'.", 'The deal is in stage "Contract sent".',
                  "The ticket PAY-318 is still in **In Review**.", 'PAY-311 is in the "Blocked" column.'),
    ),
    DetectorSpec(
        # A status as a note gives it, key and value: "Status: **Stale**.", "Application status: **In Process**.",
        # "Status → In progress." The value ends its clause: "Status → Targets in the Prometheus UI" is a path.
        id="system_state.status_note",
        category="system_state",
        family="systemState",
        patterns=(
            r"(?:^|[.!?;][ \t]+|\n[ \t]*(?:[-*•][ \t]+)?)(?P<subject>(?:[\p{L}]+[ \t]+)?(?:status|state|stage))[ \t]*(?::|→)"
            r"[ \t]*(?P<state>\*\*[^*\n]{1,40}\*\*|\*[^*\n]{1,40}\*|[\"“][^\"”\n]{1,40}[\"”]|(?-i:\p{Lu})[\p{L}-]*"
            r"(?:[ \t]+(?-i:\p{Lu})?[\p{L}-]+)?)[ \t]*(?:[.;,]|\n|$)",
        ),
        assertion="status",
        confidence=0.7,
        # "Last status: ...", "Next state: ...": a key about another time or a plan.
        reject_subject=r"^(?:next|target|desired|expected|previous|last|old|new|initial)\b",
        examples=("Status: **Stale**.", "Application status: **In Process**.", "Status → In progress."),
    ),
    DetectorSpec(
        # Nothing changed after an action: "the URL did not change", "the list did not grow".
        id="system_state.did_not_change",
        category="system_state",
        family="systemState",
        patterns=(
            # Past only: "`alias_map` doesn't change" says what code does, in general.
            r"\b(?P<cop>did(?:n't|n’t|\s+not))\s+(?P<state>change|grow|update|move|refresh|reload|scroll|register"
            r"|re-?center|advance|expand|collapse|open|close|apply|appear|show\s+up|save|submit|start|persist|load"
            r"|stick)\b",
        ),
        assertion="not_{state}d",
        negative=True,
        subject_before=True,
        confidence=0.7,
        reject_before=r"\b(?:when|whenever|if|unless|whether)\b[^.!?;\n]{0,30}",
        reject_subject=r"^`[^`]+`$",
        reject_after=r"\s+[`'\"“‘]|\s+(?:the|a|an|its|their|any|it|them)\b",  # "did not change the value"
        examples=("The URL did not change.", "The list did not grow after scrolling.",
                  "The dropdown didn't open on the first click.", "The price filter didn't apply."),
    ),
    DetectorSpec(
        # What the screen shows: "the screenshot shows the macOS desktop", "the page now displays an order form".
        id="system_state.screen_shows",
        category="system_state",
        family="systemState",
        patterns=(
            r"\b(?:screenshot|screen|page|display|monitor|window|viewport|browser)\s+(?:now\s+|still\s+|currently\s+)?"
            r"(?:shows|displays|reveals|is\s+showing|is\s+displaying)\s+" + AFTER,
        ),
        assertion="visible",
        role_before=True,
        confidence=0.7,
        examples=("The screenshot shows the macOS desktop with Finder in the foreground.",),
    ),
    DetectorSpec(
        # What any thing on screen shows or lists: "the mini-cart counter still shows 0", "the Add-ons Manager lists
        # \"Send Later\" as enabled", "the owner column shows \"me\"", "the tab title no longer shows the dot".
        # Below the specific detectors (screen_shows, contains, says), which win where they match.
        id="system_state.shows",
        category="system_state",
        family="systemState",
        patterns=(
            r"\b(?P<cop>(?:now|still|currently|also|only|no\s+longer)\s+)?(?:shows|displays|lists)\s+" + AFTER_PLAIN,
            # "the screenshot does not show the preparation time", "the results don't display the number of reviews".
            r"\b(?P<cop>(?:does|do|did)(?:n't|n’t|\s+not))\s+(?:(?:yet|currently|clearly|explicitly|seem\s+to|appear\s+to)\s+)?"
            r"(?:show|display|list)\s+" + AFTER_PLAIN,
        ),
        assertion="{not_}visible",
        negation_group="cop",
        role_before=True,
        confidence=0.65,
        priority=0,
        # "shows that the test failed", "shows how ...": evidence for a conclusion, claimed by its own words.
        # A number is a value read out ("the quantity field shows 120", GUIDE.md: values as such are no claims).
        # A backticked object is code or output ("displays `[True]`").
        reject_subject=(
            r"^(?:that|how|what|why|where|which|whether|when|if|me|us|you|them|him|her|up|it)\b|^[$€£]?\d|^`"
        ),
        # "this shows", "which lists": a pronoun or a relative names no thing on screen; "`ls` shows": tool output
        # (a quoted name is a thing on screen: '"Bedside Left" shows "Unreachable"', 'the panel "p95" shows ...');
        # "the traceback shows", "the docs list": what a coding agent reads as evidence, not a screen's state.
        # "TV shows", "comedy TV shows from 2010": the noun, not the verb.
        reject_before=r"(?:\b(?:this|that|it|which|what|who|to|also|tv|traceback|output|logs?|stack\s*trace|diff|docs?"
        r"|documentation|description|code|test|tests|error|changelog|readme|spec|example|function|method"
        # "comedy shows", "the shows", "search for shows featuring ...": the noun after a determiner, a preposition or
        # a kind of show.
        r"|the|a|for|of|some|any|these|those|other|more|most|many|few|popular|recommended|comedy|drama|reality|talk"
        r"|game|cooking|funny|similar|favou?rite|upcoming|streaming|animated|television|documentary"
        r"|such|all|no|with|about"
        # "movies or shows featuring the actor", "concerts and shows": the noun after another kind of event.
        r"|(?:movies|films|series|concerts|events|podcasts|games|episodes|plays|exhibitions|performances)\s+(?:and|or))|`)",
        examples=("The mini-cart counter still shows 0.", 'The Add-ons Manager lists "Send Later" as enabled.',
                  "The screenshot does not show the preparation time."),
    ),
    DetectorSpec(
        # Where a browsing agent is: "I'm on the Amazon checkout page", "we are in the #deploys channel".
        id="system_state.on_page",
        category="system_state",
        family="systemState",
        patterns=(
            r"\b(?:I'm|I’m|I\s+am|we're|we’re|we\s+are|we\s+were|I\s+was|you're|you’re|you\s+are)\s+(?:now\s+|currently\s+|still\s+|already\s+"
            r"|back\s+|indeed\s+)*(?P<cop>not\s+|no\s+longer\s+)?(?:on|in|at|viewing|looking\s+at)\s+(?:the\s+)?(?P<subject>(?:[^\s.,;:!?]+\s+){0,5}?(?:page|screen|tab|view|channel|dashboard"
            r"|inbox|folder|window|dialog|panel|menu|step|form|site|homepage|app|settings|list|board|portal|account"
            r"|profile|cart|checkout|section|website|web\s+page|webpage|domain|url|listing|product\s+page|search\s+results"
            # Where a coding agent's shell is: "we are not in a git repository", "we are in an empty workspace".
            r"|repository|repo|directory|empty\s+workspace|worktree|container|virtualenv|venv|sandbox))\b",
            # The page as the subject: "the current page is indeed the Google Flights search page", "the current web
            # tab is a YouTube page", "the page you are currently on is the Models section".
            r"\b(?:the\s+)?(?:current(?:ly\s+open)?\s+(?:web\s+)?(?:page|tab|screen|view|window)|page\s+(?:you\s+are|you're|you’re"
            r"|we\s+are|we're|we’re|I\s+am|I'm|I’m)\s+(?:now\s+|currently\s+)?on)\s+is\s+(?:now\s+|indeed\s+|still\s+)*(?:the\s+|a\s+|an\s+)?"
            r"(?P<subject>(?:[^\s.,;:!?]+\s+){0,5}?(?:page|screen|tab|view|site|website|section|homepage|app|portal|dashboard"
            r"|form|list|results))\b",
            # A web address: "I'm on ssa.gov/myaccount".
            r"\b(?:I'm|I’m|I\s+am|we're|we’re|we\s+are)\s+(?:now\s+|currently\s+|still\s+|already\s+|back\s+)?(?:on|at)"
            r"\s+(?P<subject>[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:com|org|net|gov|edu|io|dev|app|co|uk|de|fr)(?:/[^\s,;]*)?)",
            # An app or a section by its name, or a folder: "I'm in Marketing > All Reviews", "I'm in Edge Settings",
            # "I'm in ~/Pictures/2024". Case-sensitive capital: "I'm in charge", "I'm in a script" say no place.
            r"\b(?:I'm|I’m|I\s+am|we're|we’re|we\s+are)\s+(?:now\s+|currently\s+|still\s+|already\s+|back\s+)?in\s+"
            r"(?P<subject>(?-i:\p{Lu})[\p{L}\p{N}_.-]*(?:[ \t]+(?-i:\p{Lu})[\p{L}\p{N}_.-]*){0,2}|~/[^\s,;]+)",
        ),
        assertion="{not_}on_page",
        negation_group="cop",
        confidence=0.7,
        examples=("I'm on the Amazon checkout page.", "We are now in the #deploys channel.",
                  "I'm on ssa.gov/myaccount.", "I'm in Marketing > All Reviews.",
                  "You are currently on the Google Flights search page.",
                  "The current page is indeed the Google Flights search page.", "It seems we are not in a git repository."),
    ),
    DetectorSpec(
        # The agent's session: "I'm logged in as viewer@acme.test", "we are signed in", "I'm not signed in".
        id="system_state.signed_in",
        category="system_state",
        family="systemState",
        patterns=(
            r"\b(?:I'm|I’m|I\s+am|we're|we’re|we\s+are|you're|you’re|you\s+are)\s+(?:now\s+|still\s+|already\s+)?"
            r"(?P<cop>not\s+|no\s+longer\s+)?(?P<subject>(?:logged|signed)(?:\s+in(?:\s+to)?|\s+into|\s+out)(?:\s+(?:the\s+)?[\p{Lu}\p{N}][\p{L}\p{N}.-]*"
            r"(?:\s+[\p{Lu}][\p{L}\p{N}.-]*)?)?)",
        ),
        assertion="{not_}signed_in",
        negation_group="cop",
        confidence=0.7,
        examples=("I'm logged in as viewer@acme.test.", "I'm not signed in."),
    ),
    DetectorSpec(
        # A switch said to be on or off: "Bluetooth is off", "the toggle for Maps is on". Only at the end of
        # a clause: "is on the page", "is off by one" say where or how much.
        id="system_state.on_off",
        category="system_state",
        family="systemState",
        patterns=(
            rf"\b{COPULA}\s+(?:back\s+)?{EMPH}(?P<state>on|off)(?:\*\*)?[ \t]*(?:[.,;!)]|\n|$|[ \t]+(?:and|but|so|now|too|already)\b"
            # For whom or where a flag is on: "is off for everyone except ...", "is on in production".
            r"|[ \t]+(?:for[ \t]+(?:everyone|everybody|all|every|each|\d)|in[ \t]+(?:production|prod|staging|dev|all)|everywhere"
            r"|globally)\b)",
        ),
        assertion="{not_}{state}",
        subject_before=True,
        negation_group="cop",
        confidence=0.7,
        examples=("Bluetooth is off.", "The toggle for Maps is already on, so nothing changes."),
    ),
    DetectorSpec(
        # What a page or a record says something is set to or marked as: "Weather is set to \"Never\"",
        # "the message is still marked as unread", "the flight is listed as cancelled", "the instance is in
        # the stopped state".
        id="system_state.marked",
        category="system_state",
        family="systemState",
        patterns=(
            rf"\b{COPULA}\s+(?P<state>set|marked|listed|flagged|labell?ed|tagged|shown|configured|switched)\s+"
            r"(?:as|to)\s+" + AFTER,
            rf"\b{COPULA}\s+in\s+(?:the\s+)?(?:\*\*)?(?P<state>[\p{{L}}-]+)(?:\*\*)?\s+(?:state|status)\b",
            # "is marked Complete", "PROJ-311 is in \"In Review\"", "is in the \"Done\" column".
            rf"\b{COPULA}\s+(?P<state>marked|flagged|labell?ed|tagged)\s+(?:as\s+)?" + AFTER,
            rf"\b{COPULA}\s+(?:now\s+)?in\s+(?:the\s+)?(?P<state>\"[^\"\n]{{1,40}}\"|“[^”\n]{{1,40}}”)",
            # A status as a platform prints it, in backticks: "two pods are in `CrashLoopBackOff`", "the stack is in
            # `UPDATE_ROLLBACK_FAILED`". Only status words: "is in `MyClass`" says where code is.
            rf"\b{COPULA}\s+(?:now\s+|still\s+)?in\s+`(?P<state>(?-i:[A-Z][A-Za-z_]*(?:BackOff|Creating|Pending|Error"
            r"|Failed|Running|Terminating|Completed|Unknown|Evicted|Ready|Progressing|Degraded|Available|_FAILED"
            r"|_COMPLETE|_IN_PROGRESS|_PENDING)))`",

        ),
        assertion="{not_}{state}",
        subject_before=True,
        negation_group="cop",
        confidence=0.7,
        reject_subject=_CODE_NAME_SUBJECT,
        code_narration=r".*",
        examples=(
            "The order from 11 Jan is marked Complete.",
            'PROJ-311 is in "In Review".',
            'Weather is set to "Never".',
            "The message is still marked as unread.",
            "The EC2 instance is in the stopped state.",
            "The pods are in `CrashLoopBackOff`.",
        ),
    ),
    DetectorSpec(
        # A field or a record set to a value, said in a note without its copula: "\"Where from?\" set to \"CCJ\"", "Forum
        # set to \"books\"", "ticket set to **Solved**", "both set to Draft". The value quoted, in bold or a capitalised
        # word, as a page shows it; "you set to", "can set to" are someone's action.
        id="system_state.set_to",
        category="system_state",
        family="systemState",
        patterns=(
            r"\bset\s+to\s+(?P<state>[\"“][^\"”\n]{1,60}[\"”]|\*\*[^*\n]{1,60}\*\*"
            r"|(?-i:[A-Z])[\p{L}\p{N}_./-]*(?:[ \t]+(?-i:[A-Z0-9])[\p{L}\p{N}_./-]*){0,3})",
        ),
        assertion="set",
        subject_before=True,
        confidence=0.65,
        priority=0,  # below system_state.marked, which reads the full "is set to"
        reject_before=r"(?:\b(?:I|we|you|they|he|she|it|to|can|could|will|would|should|must|may|might|and|then|please|just"
        r"|is|are|was|were|be|been|being|has|have|had|not|also|already|now|still)|`)\s*$",
        reject_subject=_CODE_NAME_SUBJECT,
        code_narration=r".*",
        examples=('- "Where from?" set to "CCJ"', 'Forum set to "books".', "Ticket set to **Solved**."),
    ),
    DetectorSpec(
        # What a search found, as GUIDE.md files discovery: "the search gave three matches for `init_db`".
        id="system_state.matches_for",
        category="system_state",
        family="systemState",
        patterns=(
            r"\b(?:gave|returned|found|shows|showed|yielded|returns)\s+(?P<cop>no|zero|one|two|three|several|\d+)\s+"
            r"(?:matches|results|hits|occurrences)\s+for\s+" + AFTER,
            # The same as a note: "No hits for `requests_per_minute`.", "3 matches for `init_db` in `src/`".
            r"(?:^|[.!?;:][ \t]+|\n[ \t]*(?:[-*•][ \t]+)?)(?P<cop>(?-i:No|Zero)|\d+)\s+(?:matches|results|hits|occurrences)"
            r"\s+for\s+" + AFTER,
        ),
        assertion="{not_}found",
        negation_group="cop",
        confidence=0.75,
        priority=2,  # over system_state.results: the matches of a named thing
        examples=("The search gave three matches for `init_db`.", "No hits for `requests_per_minute`."),
    ),
    DetectorSpec(
        # Search outcomes: "the search returned 14 results", "the query came back with no results".
        id="system_state.results",
        category="system_state",
        family="systemState",
        patterns=(
            # Not "shows / lists": "the grid shows 200 records" is a count on a page, a value (GUIDE.md).
            r"\b(?:returned|returns|gave|gives|yielded|yields|found|came\s+back\s+with"
            r"|comes\s+back\s+with)[ \t]+(?P<cop>no|zero|\d[\d,]*|one|two|three|four|five|six|seven|eight|nine|ten"
            r"|several|many|only\s+\d[\d,]*|only\s+one|only\s+two|a\s+single|just\s+one|exactly\s+one)[ \t]+"
            r"(?:\w+[ \t]+)?(?:" + _FOUND_NOUN + r")\b",
            r"\b(?P<cop>came\s+back\s+empty|returned\s+nothing|found\s+nothing|comes\s+back\s+empty)\b",
        ),
        assertion="{not_}found",
        subject_before=True,
        negation_group="cop",
        confidence=0.75,
        examples=('The search for "wireless mouse" returned 14 results.', "The query came back with no results.",
                  "The map search came back empty.", "The search returned a single project."),
    ),
    DetectorSpec(
        # The same as a note, and a count that matches or is left: "Found 4 matching issues.", "143 properties
        # match", "2 results appear", "4 expenses remain".
        id="system_state.found_count",
        category="system_state",
        family="systemState",
        patterns=(
            r"(?:^|[.!?;:][ \t]+|\n[ \t]*(?:[-*•][ \t]+)?)(?-i:Found)[ \t]+(?P<cop>no|\d[\d,]*|one|two|three|a|an"
            r"|a\s+single)[ \t]+(?P<subject>(?:[\p{L}-]+[ \t]+)?[\p{L}-]+)",
            # Not "no open tickets match": existence (GUIDE.md), existence.matches.
            r"\b(?P<cop>\d[\d,]*)[ \t]+(?:[\p{L}-]+[ \t]+)?(?P<subject>" + _FOUND_NOUN + r")[ \t]+(?:now[ \t]+"
            r"|still[ \t]+)?(?:match|appear|remain|are\s+left|are\s+listed|are\s+shown|found)\b",
        ),
        assertion="{not_}found",
        negation_group="cop",
        confidence=0.7,
        examples=("Found 4 matching issues.", "143 properties match the filter.", "4 expenses remain."),
    ),
    DetectorSpec(
        # "Your reservation has been cancelled", "the placeholder was not replaced", "the counter is not being reset".
        id="system_state.result",
        category="system_state",
        family="systemState",
        patterns=(
            r"\b(?P<cop>(?:has|have|had)(?:n't|n’t|\s+not|\s+never)?(?:\s+" + PERFECT_ADVERB + r")?\s+been"
            r"|(?:is|are|was|were)(?:n't|n’t)?(?:\s+not)?(?:\s+being)?|(?:is|are)\s+now|got)"
            r"\s+(?:(?:successfully|already|now|also|correctly|properly|fully|automatically|just|since|indeed|still"
            r"|finally|actually|probably|likely|apparently)\s+)?(?P<state>" + RESULTS + r")\b",
            r"\b(?P<cop>(?:has|have|had)(?:n't|n’t|\s+not|\s+never)?(?:\s+" + PERFECT_ADVERB + r")?\s+been"
            r"|(?:was|were)(?:n't|n’t)?(?:\s+not)?|got)"
            r"\s+(?:(?:successfully|already|now|also|just|since|finally|actually|yet)\s+)?(?P<state>" + DONE_TO + r")\b",
        ),
        assertion="{not_}{state}",
        subject_before=True,
        negation_group="cop",
        confidence=0.75,
        code_narration=r".*",
        # "was created on 2024-05-02", "is updated by the loop when": how or when, not what state.
        # "was created more than 24 hours ago": when, a value.
        reject_after=r"\s+(?:on\s+\d|in\s+\d|by\s+(?:the|a|an|calling|running|using)\b|(?:when|whenever|if|every|each|via)\b"
        r"|as\s+follows|[^.;\n]{0,30}\bago\b)|" + _BY_SOMEONE + "|" + _CAME_TO_BE_WHEN,
        examples=(
            "Your reservation has been successfully cancelled.",
            "The placeholder was not replaced.",
            "The counter is not being reset between runs.",
            "No additional fees were applied.",
            "Priya Natarajan has been invited.",
            "The repository was archived last week.",
        ),
    ),
    DetectorSpec(
        # What has not happened to a thing yet: "it hasn't shipped yet", "Ines hasn't responded yet", "the fix is
        # probably not released yet", "Shipping label not purchased yet", "not yet acknowledged". "Yet" makes any
        # participle a state the thing is still waiting in (pending), whatever the verb: no list of verbs to keep.
        id="system_state.not_yet",
        category="system_state",
        family="systemState",
        patterns=(
            r"\b(?P<cop>(?:has|have|had)(?:n't|n’t|\s+not)(?:\s+(?:yet\s+)?been)?"
            r"|(?:is|are|was|were)(?:n't|n’t|(?:\s+(?:probably|likely|still|also|apparently))?\s+not)"
            r"|(?:may|might|could)\s+not\s+(?:be|have\s+been)|not)\s+(?:\*\*)?"
            r"(?P<state>\p{L}+(?:ed|en)|set|run|sent|built|paid|done|begun|made|shown|seen|held|read|put|sold|taken"
            r"|given|written|gone|come)(?:\s+or\s+\p{L}+(?:ed|en))?(?:\*\*)?\s+yet\b",
            r"\b(?P<cop>not)\s+yet\s+(?P<state>\p{L}+(?:ed|en)|set|run|sent|built|paid|done|begun|made|shown|seen"
            r"|held|sold|taken|given|written)\b",
        ),
        assertion="not_{state}",
        negative=True,
        subject_before=True,
        confidence=0.7,
        examples=("It hasn't shipped yet.", "The refund has not been approved yet.", "Shipping label not purchased yet.",
                  "The incident is not yet acknowledged."),
    ),
    DetectorSpec(
        # What the agent's tools gave it nothing on: "I don't have any information about availability of excursions", "I
        # do not have information on any specific charges". Nothing found about a thing (system_state), as the labellers
        # of the tool-using sets read it; "I don't have access to ..." is a limit (capability.unable).
        id="system_state.no_information",
        category="system_state",
        family="systemState",
        patterns=(
            r"\b(?:I|we)\s+(?:do\s+not|don't|don’t|did\s+not|didn't|didn’t)\s+have\s+(?:any\s+)?(?:(?:specific|further"
            r"|more|additional|current|detailed)\s+)?(?:information|info|details|data|records?)\s+(?:about|on|regarding"
            r"|for)\s+" + AFTER,
        ),
        assertion="no_information",
        negative=True,
        confidence=0.6,
        examples=("I don't have any information about availability of excursions.",),
    ),
    DetectorSpec(
        # A search that found nothing, said of the search: "the TVMaze API did not yield any results", "searching the Disney
        # service has not returned any matches". Not found (system_state), as the labellers of the tool-using sets read
        # it; "did not yield the desired results" judges an attempt (operational_status.no_yield).
        id="system_state.no_results",
        category="system_state",
        family="systemState",
        patterns=(
            NOT_YIELDED + r"(?:yield|yielded|produce|produced|return|returned|bring|brought)\s+(?:any\s+)?"
            r"(?:results?|matches|hits)\b",
        ),
        assertion="not_found",
        negative=True,
        subject_before=True,
        confidence=0.7,
        examples=("The TVMaze API did not yield any results.",),
    ),
    DetectorSpec(
        # A search still bringing back nothing, or that brought back nothing of a kind: "my search isn't returning any
        # recommendations for tours", "I'm still not getting any hits on museum tours", "it doesn't seem to be returning
        # any trip recommendations", "that broader search didn't return any additional museum options". Not found, as
        # system_state.no_results; the progressive, or the past with "any": "the function does not return any value"
        # says what code does.
        id="system_state.none_returned",
        category="system_state",
        family="systemState",
        patterns=(
            r"\b(?P<cop>(?:is|are|was|were|am)(?:n't|n’t|\s+not)|(?:'m|’m|'re|’re)\s+(?:still\s+)?not|(?:is|are|am|was|were)\s+still\s+not"
            r"|(?:does|do|did)(?:n't|n’t|\s+not)\s+(?:seem|appear)\s+to\s+be)\s+(?:still\s+)?"
            r"(?:returning|yielding|producing|getting|pulling\s+up|bringing\s+up|turning\s+up|showing)\s+any\s+" + _ANY_OBJECT,
            r"\b(?P<cop>(?:did|has|have)(?:n't|n’t|\s+not)|(?:has|have)\s+(?:also|still)\s+not)\s+"
            r"(?:return(?:ed)?|produced?|pulled\s+up|pull\s+up|brought\s+up|bring\s+up|turned\s+up|turn\s+up)\s+any\s+" + _ANY_OBJECT,
        ),
        assertion="not_found",
        negative=True,
        subject_before=True,
        person_subjects=True,
        priority=2,
        confidence=0.7,
        # What code gives back ("the function didn't return any value"), and a run's outcome said by its errors ("the
        # call did not return any errors"), are other claims or none.
        reject_state=r"values?|output|errors?|exceptions?|warnings?|none|data|rows?|bytes|content|status|issues?"
        r"|problems?|failures?",
        # "you're not getting any cellular service": the user's own situation, told back to them.
        reject_subject=r"^you\b",
        reject_before=r"(?:\b(?:function|method|handler|code)|`)\s*$",
        examples=("My search isn't returning any recommendations for tours.",
                  "I'm still not getting any hits on museum tours for your dates.",
                  "That broader search didn't return any additional museum options."),
    ),
    DetectorSpec(
        # What a finished action brought back, in the past: "the pack_send API did not provide the tracking details",
        # "the test run didn't provide output". Read as a result (not found), as "did not yield any results" is; the
        # present ("the page does not provide a price") says what a thing holds (existence.does_not_contain).
        id="system_state.not_provided",
        category="system_state",
        family="systemState",
        patterns=(
            r"\b(?P<cop>did(?:n't|n’t|\s+not))\s+(?:(?:seem|appear)\s+to\s+)?provide\s+"
            r"(?:(?:a|an|the|any)\s+)?" + AFTER,
        ),
        assertion="not_found",
        negative=True,
        subject_before=True,
        priority=2,  # over existence.does_not_contain, which reads the same verb in any tense
        confidence=0.7,
        examples=("The pack_send API did not provide the tracking details.",),
    ),
    DetectorSpec(
        id="system_state.not_found",
        category="system_state",
        family="systemState",
        patterns=(
            r"\b(?:couldn't|could\s+not|couldn’t|can't|can’t|cannot|can\s+not|unable\s+to|failed\s+to|did\s+not"
            # "I wasn't able to find a patient record matching ...", "I'm not able to locate the order".
            r"|(?:wasn't|wasn’t|was\s+not|weren't|weren’t|were\s+not|am\s+not|'m\s+not|’m\s+not|are\s+not|'re\s+not"
            r"|’re\s+not)\s+able\s+to"
            rf"|didn't|didn’t)\s+(?:find|locate|detect|spot|confirm)\s+(?:(?:the|a|an|any)\s+)?{AFTER}",
            r"\b(?:haven't|haven’t|have\s+not|hasn't|hasn’t|has\s+not|didn't|didn’t|did\s+not|don't|don’t|do\s+not"
            r"|(?:I'm|I’m|I\s+am|we're|we’re|we\s+are)\s+not)"
            rf"\s+(?:yet\s+)?(?:seen|see|seeing|spot|spotted|notice|noticed|found)\s+(?:(?:the|a|an|any)\s+)?{AFTER}",
        ),
        assertion="not_found",
        negative=True,
        confidence=0.85,
        examples=("I couldn't find docker.", "We haven't seen a confirmation banner.",
                  "I wasn't able to find a patient record.", "I'm not seeing a reservation under that name."),
    ),
    DetectorSpec(
        # "I don't have `lmfit` installed", "the subqueries do not have `values_select` set": the state of
        # the object, not whether the owner holds it (more specific than existence.does_not_contain).
        id="system_state.not_have_state",
        category="system_state",
        family="systemState",
        patterns=(
            r"\b(?P<cop>(?:does|do|did)(?:n't|n’t|\s+not))\s+have\s+(?:(?:a|an|the|any)\s+)?"
            rf"(?P<subject>{QUOTED}|{WORD})\s+(?P<state>installed|set|set\s+up|enabled|configured|loaded|running)\b",
        ),
        assertion="not_{state}",
        negative=True,
        role_before=True,
        confidence=0.8,
        priority=2,
        examples=("I don't have `lmfit` installed.", "The staging config does not have `DEBUG` set."),
    ),
    DetectorSpec(
        # First-person discovery: "I found the handler in `routes.py`", "I've located your reservation".
        id="system_state.found",
        category="system_state",
        family="systemState",
        patterns=(
            r"\b(?:I|we)(?:\s+have|'ve|’ve)?\s+(?:(?:also|previously|now|just|finally|already)\s+)?"
            r"(?:found|located|identified|spotted)\s+" + AFTER,
            # The first person left out, as notes say it: "Found ubuntu-24.04.iso in ~/Videos/old.", "Search finished: found
            # 'contract_final.docx' in OneDrive", "Found 4 matching issues." ("Found it" is system_state.found_it's.)
            r"(?:^|[.!?;:][ \t]+|\n[ \t]*(?:[-*•][ \t]+)?|[—–][ \t]*)(?-i:[Ff])ound\s+" + AFTER,
        ),
        assertion="found",
        confidence=0.8,
        # Not a thing found: "I found out", "we found earlier that ...", "I found that the handler
        # swallows errors" (a clause: what was learnt, not a discovery of the object).
        # "here is what I found about the PR": an introduction to what follows.
        reject_before=r"\b(?:what|everything|all|anything|nothing)",
        reject_subject=(
            r"^(?:out|earlier|later|again|previously|recently|before|afterwards|so|too|also|about|it)\b"
            r"|^that\s+(?:the|a|an|it|its|there|this|these|those|we|i|you|they|he|she|my|our|your|no|all"
            r"|some|each|every|when|if|both|nothing|none)\b"
            # "the data I found shows ...": a relative clause, its verb follows.
            r"|^(?:shows?|is|are|was|were|has|have|says|suggests|indicates|lists|confirms|points)\b"
            # "I found it hard to read": a judgement, not a discovery.
            r"|^it\s+(?:hard|easy|difficult|odd|strange|useful|interesting|helpful|weird|confusing|necessary|impossible"
            r"|surprising|annoying|tricky|simpler|easier|harder)\b"
        ),
        examples=("I found the handler in `routes.py`.", "I have located your most recent reservation.",
                  "Found ubuntu-24.04-desktop-amd64.iso in ~/Videos/old."),
    ),
    DetectorSpec(
        # What a search found, said of the search: "the search found \"Livraria Lello\"", "Search found
        # \"Lease_2318.pdf\"", "the search returned one account". Discovery (GUIDE.md) with the search as its subject;
        # counts of results are system_state.results'.
        id="system_state.search_found",
        category="system_state",
        family="systemState",
        patterns=(
            r"\b(?:search|query|lookup|scan)\s+(?:also\s+|only\s+|now\s+)?(?:found|returned|turned\s+up)\s+"
            r"(?:(?:a|an|the|one|only)\s+)?" + AFTER,
        ),
        assertion="found",
        role_before=True,
        confidence=0.7,
        # "returned to the login page", "found that ...", "returned nothing / no results": elsewhere or no thing.
        reject_subject=r"^(?:to|that|it|nothing|no|none|zero|results?|matches|me|us|\d)\b",
        examples=('The search found "Livraria Lello, Rua das Carmelitas 144".', "The search returned one account."),
    ),
    DetectorSpec(
        # The discovery, telegraphic: "Found it: the invoice from 3 Nov", "Tried without LLC — found it". About the thing
        # searched for, which "it" names only through the text before: stored unchecked, as any bare pronoun.
        id="system_state.found_it",
        category="system_state",
        family="systemState",
        patterns=(r"(?:^|[.!?;:][ \t]+|\n[ \t]*(?:[-*•][ \t]+)?|[—–][ \t]*|,[ \t]+)(?P<subject>(?-i:[Ff])ound\s+it)\b",),
        assertion="found",
        fixed_subject="it",
        confidence=0.6,
        # "found it hard to", "found it useful": a judgement.
        reject_after=r"\s+(?:hard|easy|difficult|odd|strange|useful|interesting|helpful|weird|confusing|necessary"
        r"|impossible|surprising|annoying|tricky|simpler|easier|harder|to|that)\b",
        examples=("Found it: the invoice from 3 Nov.", "Tried again — found it."),
    ),
    DetectorSpec(
        # Status lists: "- Redis: not running", "* Node.js — installed ✅"
        id="system_state.list_item",
        category="system_state",
        family="systemState",
        patterns=(
            # The key is the subject whole ("Mute participants on entry: off", "Branch protection for `main`: enabled"),
            # prepositions and all; a mark may lead it ("- ✅ **Join anytime:** enabled"), an adverb the state ("still
            # pending", "now on"), and a note's noun the participle ("- **#1047 Harbor Dental:** reminder sent").
            # A bold id may carry a note in brackets: "- **8C8K4E** (BOS to DEN on May 24) - Cancelled".
            # A mark may lead the line without a bullet: "✅ **JG7FMM** - Downgraded to economy".
            r"(?m)^[ \t]*(?:(?:[-*•+]|\d+[.)])[ \t]+" + _MARK + "|[✅❌⚠⏳✔✓✗✘]\ufe0f?[ \\t]+)"
            r"(?:\*\*)?(?P<key>[^\n:*|]+?)(?:\*\*(?:[ \t]+\([^\n()]{1,60}\))?)?"
            r"[ \t]*(?::|[ \t][-–—][ \t])"
            rf"[ \t]*(?:\*\*)?[ \t]*(?:\*\*)?{_KEY_STATE}",
            # A bold key starts the line as a bullet does: "**Status:** confirmed", "**Assignee:** not set".
            r"(?m)^[ \t]*" + _MARK + r"\*\*(?P<key>[^\n:*|]+?):?\*\*:?[ \t]*" + _KEY_STATE,
        ),
        assertion="{not_}{state}",
        subject_before=True,
        subject_includes_match_group="key",
        negation_group="cop",
        confidence=0.85,
        priority=2,
        # A key is short: bounded here, not in the patterns (a bounded repeat under a line anchor makes the
        # scan's automaton large).
        reject_subject=r"^.{61,}$",
        # "**Thought:** On the Members page, ...": a preposition, no state.
        reject_after=r"(?<=[Oo]n)[ \t]+(?:the|a|an|this|that|my|your|its|their)\b",
        examples=("- Redis: not running\n", "* **Node.js**: installed\n", "**Status:** confirmed\n",
                  "- Mute participants on entry: off\n", "- ✅ **Join anytime:** enabled\n",
                  "- **SSL certificate:** still pending\n", "- **#1047 Harbor Dental:** reminder sent\n",
                  "- **8C8K4E** (BOS to DEN on May 24) - Cancelled\n", "- **JG7FMM** - Downgraded to economy\n"),
    ),
    DetectorSpec(
        # Telegraphic notes, as agents write progress and memory: "Email sent.", "Branch updated.", "Comment
        # posted on #6512.", "Username field focused." Without an article: with one ("the email sent to Maria
        # bounced") a participle is as often a reduced relative clause, and full sentences have their detectors.
        id="system_state.note",
        category="system_state",
        family="systemState",
        patterns=(
            r"(?:^|[.!?;:]\s+|\n[ \t]*(?:[-*•][ \t]+)?)" + _NOTE,
            # The same note after a stop only: the note before it ("Order placed. Trash emptied.") ends its match past
            # the stop, so the first pattern cannot start there; this one is scanned on its own.
            r"[.!?;:]\s+" + _NOTE,
        ),
        assertion="{not_}{state}",
        negation_group="cop",
        confidence=0.65,
        priority=2,
        reject_subject=r"^(?:the|a|an|this|that|these|those|my|your|our|his|her|their|its|i|we|you|he|she|they|it"
        r"|there|here|what|which|who|if|when|once|after|before|then|and|but|so|or|also|just|nothing|everything"
        # "Last checked: today", "First seen: ...": a key, its value after.
        r"|last|first|next"
        # "Keep the tab open.", "Leave it unchecked.", "All done.": an instruction, or the agent on its own work.
        r"|keep|leave|make|get|let|set|please|click|wait|while|until|unless|whether|with|without|all|leaving|keeping"
        # "partially done", "almost ready": how far the agent's own work got.
        r"|partially|partly|mostly|almost|nearly)\b"
        # "Statuses: 000000299 Pending, ...": a record's id and its value, read out.
        r"|^\d{4,}$"
        # "Request complete": the agent on its own work, checked against its actions (as system_state.ui). Not
        # "Task complete": the task's state, as "the task is complete" is.
        r"|^(?:request|job|goal|work)$"
        # "Redis is active", "the job has finished": a full clause, which the copula's and the verb's detectors read.
        r"|\b(?:is|are|was|were|be|been|being|has|have|had|do|does|did|will|would|should|can|could|may|might|must|get"
        r"|gets|got|keep|keeps|stay|stays|remain|remains|seems?|looks?)$",
        examples=("Email sent.", "Branch updated.", "Comment posted on #6512.", "Username field focused.\n",
                  "Order placed. Trash emptied.", "Ticket emailed to alex.w@fastmail.com; also added to your calendar.",
                  "**Payment scheduled** ✅", "- Clause 4.2 updated (tracked change)\n"),
    ),
    DetectorSpec(
        # A progress note that only says what is still so: "Still spinning after the reload.", "Still loading after
        # ~20s.", "Still in queue." About the thing the agent is waiting on, which the note does not name: stored
        # unchecked, as a bare pronoun is.
        id="system_state.still_note",
        category="system_state",
        family="systemState",
        patterns=(
            r"(?:^|[.!?;:][ \t]+|\n[ \t]*(?:[-*•][ \t]+)?|[—–][ \t]*)(?-i:Still)[ \t]+(?P<state>spinning|loading|stuck|blank"
            r"|empty|starting|running|pending|waiting|processing|queued|in[ \t]+(?:queue|progress|review)|uploading|syncing"
            r"|booting|frozen|hanging|locked|unassigned|disabled|greyed[ \t]+out|grayed[ \t]+out)\b",
        ),
        assertion="{state}",
        fixed_subject="it",
        confidence=0.6,
        examples=("Still spinning after the reload.", "Still in queue."),
    ),
    DetectorSpec(
        # An absolute clause: "With Redis running, we start the worker."
        id="system_state.with_clause",
        category="system_state",
        family="systemState",
        patterns=(
            r"(?:^|[.!?]\s+|\n)(?:with|now\s+that)\s+(?P<subject>(?:the\s+)?[\p{L}\p{N}_.`\-]+(?:[ \t]+[\p{L}\p{N}_.`\-]+)?)"
            r"[ \t]+(?:is\s+|are\s+)?(?P<state>running|installed|enabled|disabled|stopped|configured|started|loaded"
            r"|deployed|down|up)\s*,",
        ),
        assertion="{state}",
        confidence=0.75,
        examples=("With Redis running, we start the worker.",),
    ),
)
