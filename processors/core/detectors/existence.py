"""Existence: whether something exists, is defined, is missing, or is part of something.

"Feature Y doesn't exist", "There is no config file", "we don't have a staging
env", "there is a lockfile in the root", "the logo is part of the header",
"`foo` is in `utils.py`", "two symbols are undefined", "the reservation
includes travel insurance", "no open tickets match the filter".
"""

from ..patterns import DetectorSpec
from ._fragments import AFTER, COPULA, COPULA_NOW

# What a "there is" claim may count: "there is a", "there are two", "there are several".
# "more" and "additional" too: "there are more brands available", "the screenshot shows more NBA teams".
_SOME = r"(?:a|an|one|two|three|four|five|several|some|many|multiple|more|additional|\d+)"
# One named entry of a menu, list or form: a quoted label, or one to three capitalised words.
_ENTRY = r"(?:\"[^\"\n]{1,40}\"|“[^”\n]{1,40}”|(?-i:\p{Lu})[\p{L}\p{N}!.+-]*(?:[ \t]+(?-i:\p{Lu})[\p{L}\p{N}!.+-]*){0,2})"
# A file, module or path: backticked, or a word with a slash or a file extension.
_EXT = r"\.(?:py|js|ts|tsx|jsx|rs|go|java|rb|c|h|cc|cpp|cs|php|toml|json|ya?ml|cfg|ini|txt|md|rst|lock|sh|sql)"
_PLACE = (
    rf"(?:`[^`\n]{{0,80}}(?:/|{_EXT}|install_requires|requirements|dependencies)[^`\n]{{0,80}}`"
    rf"|~?[\p{{L}}\p{{N}}_.\-]*/[\p{{L}}\p{{N}}_./\-]*|[\p{{L}}\p{{N}}_\-]+{_EXT}\b"
    # A dotfile: ".gitignore", ".env", ".aider.conf.yml".
    r"|\.(?:gitignore|gitattributes|dockerignore|env|npmrc|nvmrc|bashrc|zshrc|profile|editorconfig|prettierrc|eslintrc"
    r"|github|vscode|aider[\w.]*|pre-commit-config\.ya?ml)\b)"
)

# A value named in quotes or bold, not in backticks: "`lut` has size `N + 3`" narrates code.
_LABEL = r"(?:\"[^\"\n]{1,80}\"|“[^”\n]{1,80}”|'[^'\n]{1,80}'|\*\*[^*\n]{1,80}\*\*)"

# What "contains" or "includes" introduces that is no thing there: a list to follow, a topic, code.
_A_TOPIC = r"^(?:the\s+following|following|information|details|data|code|logic|references?)\b"

DETECTORS = (
    DetectorSpec(
        id="existence.does_not_exist",
        category="existence",
        family="existence",
        patterns=(
            r"\b(?P<cop>(?:does|do|did)(?:n't|n’t|\s+not)|no\s+longer)\s+(?:(?:actually|even|yet|really)\s+)?exists?\b",
            # Not "deleted" or "removed": what an action left a record in (system_state.result), as GUIDE.md files
            # "has been cancelled"; "gone", "missing" say only that it is not there.
            rf"\b{COPULA}\s+(?:missing|absent|gone|nonexistent|non-existent|decommissioned|retired"
            r"|undefined|undeclared|out\s+of\s+stock|sold\s+out)\b",
            r"\b(?P<cop>has|have)\s+(?:been\s+)?(?:decommissioned|retired)\b",
        ),
        assertion="not_exists",
        negative=True,
        subject_before=True,
        confidence=0.9,
        examples=(
            "Feature Y doesn't exist.",
            "The timeout option is missing.",
            "Two symbols are undefined.",
            "The staging environment has been decommissioned.",
        ),
    ),
    DetectorSpec(
        # What an offer or a shop has: "breakfast is not included in this rate", "the ThinkPad is in stock", "the
        # desk is on backorder". Not of a bare code name: "`id` is included" narrates a query.
        id="existence.offered",
        category="existence",
        family="existence",
        patterns=(
            rf"\b{COPULA}\s+(?:included|in\s+stock|on\s+backorder)\b",
            # What a page states or leaves out: "the frame size isn't stated", "no deadline is mentioned", "the price
            # is not provided".
            rf"\b{COPULA}\s+(?:stated|mentioned|specified|provided)\b",
        ),
        assertion="{not_}exists",
        subject_before=True,
        negation_group="cop",
        confidence=0.8,
        reject_subject=r"^`[^`]+`$",
        reject_after=r"\s+(?:by|when|if|as\s+(?:a|an|the)|using|via)\b",
        examples=("Breakfast is not included in this rate.", "The Lenovo ThinkPad E14 is in stock.",
                  "The frame size isn't stated.", "The exact price is not provided on the page."),
    ),
    DetectorSpec(
        id="existence.defined",
        category="existence",
        family="existence",
        # "implemented" in the present only: "the feature has been implemented" is what an edit left
        # (system_state.result), "the method is not implemented" whether it exists.
        patterns=(rf"\b{COPULA}\s+(?:defined|declared)\b", rf"\b{COPULA_NOW}\s+implemented\b"),
        assertion="{not_}exists",
        subject_before=True,
        negation_group="cop",
        confidence=0.85,
        # "fields are defined by the metaclass when ...": how, not whether.
        # "is defined as:" introduces the definition that follows (code), as "defined by" says how.
        reject_after=r"\s+(?:by|when|as\s+(?:a|an|the)|using|with|via)\b|\s+as\s*:",
        examples=("The variable is not defined in this scope.", "The handler is indeed defined.",
                  "The method is not implemented."),
    ),
    DetectorSpec(
        # "The config file does not contain a timeout key": the object is what does not exist.
        id="existence.does_not_contain",
        category="existence",
        family="existence",
        patterns=(
            r"\b(?:does|do|did)(?:n't|n’t|\s+not)\s+(?:(?:actually|explicitly|even|yet|currently)\s+)?"
            r"(?:contain|include|define|expose|provide|have|list|show|display|mention|offer|carry|stock)\s+"
            r"(?:(?:a|an|the|any)\s+)?" + AFTER,
            # "Downloads no longer contains any .py files", "my account lacks the admin role".
            r"\b(?:no\s+longer\s+(?:contains|includes|lists|shows|offers|has)|lacks|lacked)\s+(?:(?:a|an|the|any)\s+)?"
            + AFTER,
        ),
        assertion="not_exists",
        negative=True,
        role_before=True,
        confidence=0.8,
        # "I do not have any capabilities related to ...": a limit of the agent (capability), not a thing missing.
        reject_subject=r"^(?:capabilit(?:y|ies)|abilit(?:y|ies)|tools?|means|authority|permissions?|rights|privileges)\b",
        examples=(
            "The config file does not contain a `timeout` key.",
            "The sidebar doesn't list a Logout entry.",
            "The reservation does not have travel insurance.",
            "My account lacks the admin role.",
        ),
    ),
    DetectorSpec(
        # "The reservation includes only one passenger", "the panel shows a Save button".
        id="existence.contains",
        category="existence",
        family="existence",
        patterns=(
            r"\b(?:includes|contains|lists|shows|show|displays)\s+(?:only\s+|just\s+|also\s+|now\s+)?"
            rf"(?:{_SOME}|no)\s+" + AFTER,
            # "the menu contains only \"Delete\"": a quoted entry after "only".
            r"\b(?:(?:includes|contains|lists|shows|displays|offers)\s+(?:only|just)|only\s+(?:includes|contains|lists"
            r"|shows|displays|offers))\s+" + AFTER,
            # Hedged: "the rate seems to include breakfast" (existence.includes rejects what follows "to").
            r"\b(?:seems?|appears?)\s+to\s+(?:include|contain)\s+" + AFTER,
        ),
        assertion="contains",
        role_before=True,
        confidence=0.75,
        # "the output shouldn't show a code fence", "it would show no rows": what is expected, not what is there.
        reject_before=r"\b(?:should|would|will|must|may|might|could|can|to)(?:n't|n’t|\s+not)?\s*$",
        examples=("The reservation includes only one passenger.", "The panel shows a Save button.",
                  'The Actions dropdown contains only "Delete" and "Update status".',
                  "The nightly rate seems to include breakfast."),
    ),
    DetectorSpec(
        # The same with any object: "column A contains region names", "the list still includes properties at
        # $340", "the rate seems to include breakfast". Not after a modal or "to": "make sure it includes X".
        id="existence.includes",
        category="existence",
        family="existence",
        patterns=(
            r"\b(?:contains|includes|contain|include|holds)\s+(?:(?:still|already|now|also)\s+)?" + AFTER,
        ),
        assertion="contains",
        role_before=True,
        confidence=0.7,
        # A value in quotes or backticks before it is code or data: "`only()` includes the PK", "'foo' contains".
        # ... nor what a variable or a value holds ("`f` variable still holds the field object"): a value in code.
        reject_before=r"(?:\b(?:to|should|must|will|would|could|can|may|might|shall|please|let's|let’s|does|do|did"
        r"|doesn't|don't|didn't|doesn’t|don’t|didn’t|not|never|if|whether|which|that|this|it|they|these|variable|var"
        # "the address bar / search box / query contains \"...\"": typed text (GUIDE.md), not what is there.
        r"|value|attribute|attr|dict|array|object|parameter|argument|buffer|mode|string|str|tuple|flags|bar|box|url|query"
        # "the `SEARCH` section contains ...": an edit block a coding agent narrates (code).
        r"|subject|(?:search|replace)`?\s+(?:part|section|block))(?:\s+(?:\w+ly|still"
        r"|also|now|already|only"
        r"|just|always|never))?"
        r"|[`'\"”’](?:\s+(?:always|also|still|now|already|only|just|never|\w+ly))?)",
        # "includes the following:", "contains information about": what follows is a list or a topic. A quoted or
        # backticked object is what a field, menu, folder or file holds ("the departure field already contains
        # \"Boston\"", "the Downloads folder contains `setup.dmg`"): existence to the labellers of the web sets; in code
        # ("`mode` includes 'b'") the subject before is a value and reject_before takes it.
        reject_subject=_A_TOPIC + r"|^[\"“'`]?(?:https?://|www\.)",
        examples=("Column A contains region names.", "The list still includes properties at $340 and $415."),
    ),
    DetectorSpec(
        # Where a coding agent places a problem: "the issue is in the has_key method", "the root cause seems to be in the
        # _multi_decorate function", "the problem lies in `Session.request`". Existence in a place (GUIDE.md), hedged
        # when it seems; the subject is the place, which the agent's own reads can confirm.
        id="existence.problem_located",
        category="existence",
        family="existence",
        patterns=(
            r"\b(?:issue|problem|bug|root[ \t]+cause|cause|culprit|fault|error)[ \t]+(?:(?:here|itself)[ \t]+)?"
            r"(?:is|was|seems[ \t]+to[ \t]+be|appears[ \t]+to[ \t]+be|lies|must[ \t]+be)[ \t]+"
            r"(?:(?:likely|probably|actually|clearly|specifically)[ \t]+)?(?:in|inside|within)[ \t]+(?:the[ \t]+)?"
            r"(?P<subject>`[^`\n]{1,80}`|[\p{L}_][\p{L}\p{N}_.]*(?:\(\))?)"
            r"(?:[ \t]+(?:method|function|class|module|file|handler|view|model|script|component|decorator|property))?",
        ),
        assertion="located",
        confidence=0.6,
        reject_before=r"\b(?:if|whether|when|unless|once|to|would|will|could|may|might)\b[^.!?;\n]{0,30}$",
        # "the issue is in how ...", "the problem is in the way ...": a mechanism, no place.
        reject_subject=r"^(?:how|what|why|where|which|that|this|the|a|an|way|fact|case|logic|code|handling|way)$",
        examples=("The issue is in the has_key method.", "The root cause seems to be in the `_multi_decorate` function."),
    ),
    DetectorSpec(
        # The same said of a named thing in a relative clause after a comma: "django/utils/decorators.py, which likely
        # contains the implementation of method_decorator()", "options.py, which contains the ModelAdmin class". The
        # thing before the comma is the owner (existence.includes leaves "which" alone: "which contains" without a comma
        # restricts a noun, it does not report).
        id="existence.which_contains",
        category="existence",
        family="existence",
        patterns=(
            r",[ \t]+which[ \t]+(?:(?:likely|probably|also|already|now|currently|presumably)[ \t]+)?"
            r"(?:contains|includes|defines|holds)[ \t]+" + AFTER,
        ),
        assertion="contains",
        role_before=True,
        confidence=0.6,
        reject_subject=_A_TOPIC,
        examples=("The admin lives in django/contrib/admin/options.py, which contains the ModelAdmin class.",),
    ),
    DetectorSpec(
        # What a thing holds, listed after a colon: "The commit includes:\n1. ...", "a README file that includes:",
        # "the current deals include:". The items follow; the claim is that they are there, as the labellers of the
        # real sets read it (the items themselves are no claims unless they hold a predicate).
        id="existence.includes_list",
        category="existence",
        family="existence",
        patterns=(r"\b(?:(?:now|also|currently)[ \t]+)?(?:includes|contains|include|contain)(?:[ \t]+the[ \t]+following)?"
                  r"[ \t]*:[ \t]*\n",),
        assertion="contains",
        subject_before=True,
        confidence=0.6,
        reject_before=r"\b(?:to|should|must|will|would|could|can|may|might|shall|please|let's|let’s|does|do|did|not"
        r"|never|if|whether|it|they|these|this)(?:\s+(?:\w+ly|still|also|now|already|only|just))?\s*$"
        # "Some museums I'd recommend include:": the agent's suggestions follow, not what a thing holds.
        r"|\b(?:recommend\w*|suggest\w*|ideas|options|possibilities|tips)\b[^.!?\n]{0,40}$",
        examples=("The commit includes:\n1. The new flag\n",),
    ),
    DetectorSpec(
        # What a page, a site or a product offers, as a browsing agent reports it: "the Learn page offers several
        # courses", "the listing features a removable cover". Not "provides" (read as a description by the labeller of a
        # blind set, four times), and only of
        # such nouns: "Django provides a helper" is what a library does (code narration, GUIDE.md).
        id="existence.offers",
        category="existence",
        family="existence",
        patterns=(
            r"\b(?:page|site|website|homepage|section|menu|tab|store|shop|listing|product|portal|platform|app|catalog"
            r"|catalogue|hotel|room|plan|package|course|dashboard|sidebar|footer|header|results)s?(?:\*\*)?[ \t]+"
            r"(?:(?:also|now|currently|only|still)[ \t]+)?(?:offers|features|offer|feature)[ \t]+"
            + AFTER,
        ),
        assertion="contains",
        role_before=True,
        confidence=0.7,
        # "a way to ...", "the ability to ...": what a user can do there (capability), not a thing that is there.
        # A service offered ("the store offers free returns", "the app offers rebooking") is what can be done: capability,
        # as the written sets' labellers read it.
        reject_subject=r"^(?:that|how|what|more|a\s+way|ways|the\s+ability|an?\s+option\s+to|access\s+to)\b"
        r"|^(?:free\s+|same-day\s+|next-day\s+)?(?:returns?|rebooking|refunds?|exchanges?|shipping|delivery|pickup"
        r"|cancell?ation|support|financing|installation|repairs?|upgrades?|trials?|check-?in|parking)\b",
        reject_before=r"\b(?:should|would|will|must|may|might|could|can|to|if|whether|which|that)\s+\S*\s*$",
        examples=("The Hugging Face Learn page offers several courses related to machine learning.",
                  "The product listing features a removable washable cover."),
    ),
    DetectorSpec(
        # The choices a listing has, named in quotes: "the item has options 'white' and 'stereo sound'", "the shirt has
        # sizes \"M\" and \"L\"". Without quoted values "you have two options" is advice (existence.has rejects it).
        id="existence.has_options",
        category="existence",
        family="existence",
        patterns=(
            r"\b(?:has|have|had|offers|offer)\s+(?:(?:only|also|now|still)\s+)?(?:the\s+)?(?:options?|sizes?|colou?rs?"
            r"|variants?|choices?|flavou?rs?|styles?|versions?)\s+(?:of\s+)?(?P<subject>" + _LABEL
            + r"(?:(?:,?\s+(?:and|or)\s+|,\s*)" + _LABEL + r")*)",
        ),
        assertion="exists",
        role_before=True,
        confidence=0.7,
        reject_before=r"\b(?:to|would|will|should|shall|might|may|could|can|must|if|whether)\s+$",
        examples=("The item has options 'white' and 'stereo sound'.",),
    ),
    DetectorSpec(
        # What a record or a page has: "the email has an attachment", "the deck has 14 slides", "the settings
        # page has a \"Visibility\" section".
        id="existence.has",
        category="existence",
        family="existence",
        patterns=(
            # "has a section", "has an attachment" says what is there; so does a count of things ("the cart has 3
            # items", "the board has three columns"), as every labeller of the web sets reads it. Not a count of
            # time, size or money ("has 2 hours left", "has 6 GiB"): a value.
            r"\b(?:has|have|had)\s+(?:(?:only|just|also|still|now|already)\s+)?(?:an?|\d[\d,]*|one|two|three|four|five|six"
            r"|seven|eight|nine|ten|eleven|twelve|a\s+dozen|multiple|several|enough)\s+" + AFTER,
            # What a booking or an account holds without an article: "the reservation has travel insurance".
            r"\b(?:has|have|had)\s+(?:(?:only|just|also|still|now|already)\s+)?(?P<subject>(?:travel\s+)?insurance"
            r"|(?:free\s+)?cancellation\s+(?:coverage|protection)|free\s+cancellation|(?:free\s+)?wi-?fi|free\s+breakfast"
            r"|(?:free\s+)?parking)\b",
            # What a menu, card or form holds, as a list of its named entries: "the menu has \"Open with\",
            # \"Rename\" and \"Move to Trash\"", "the place card has Directions, Save, Share and More".
            r"\b(?:has|have|had|offers|offer)\s+(?:(?:only|just|also|still|now|already)\s+)?(?P<subject>"
            + _ENTRY + r"(?:,[ \t]+" + _ENTRY + r")*,?[ \t]+(?:and|or)[ \t]+" + _ENTRY + r")",
            # With no article: things in the plural ("column D has blanks in rows 14 and 27", "Daly City has openings next
            # week", "the table has columns Rank, Name, Height"), both of two ("the downloads page has both a stable
            # release and a pre-release").
            r"\b(?:has|have|had)\s+(?:(?:only|also|still|now|already)\s+)?(?P<subject>(?:[\p{L}-]+\s+)?[\p{L}][\p{L}-]*[^s\W]s)\b",
            r"\b(?:has|have|had)\s+(?:(?:only|also|still|now|already)\s+)?both\s+" + AFTER,
        ),
        assertion="exists",
        role_before=True,
        confidence=0.65,
        # "has a look", "has a bug in how ...": idioms and code narration; "you have two options": advice.
        reject_subject=r"^(?:look|go|try|chance|way|lot|bit|few|couple|moment|second|minute|problem|question|issue"
        r"|bug|typo|point|feeling|sense|role|hand|say|effect|impact|default|value|argument|parameter|method"
        r"|function|attribute|field|option|options|choice|choices|reference|check|test|call|copy|balance|flaw"
        # The same in the plural, which the article-less pattern takes: "it has values 0-255", "has implications".
        r"|problems|questions|issues|bugs|typos|points|feelings|effects|implications|consequences|values|arguments"
        r"|parameters|methods|functions|attributes|references|checks|tests|calls|thanks|regards|plans|hopes|doubts"
        # "has no reviews" is existence.does_not_have's, negative; "has focus", "have status": no plural, a state.
        r"|no|not|none|nothing|similar|focus|status|[\w-]*(?:us|is)$"
        # "file objects have string modes", "has integer keys": members named by their type narrate code.
        r"|^(?:string|str|integer|int|float|bool|boolean|list|dict|tuple|bytes?|binary|numeric)\s"
        # "Have a fantastic day": a wish.
        r"|nice|great|good|fantastic|wonderful|lovely|safe|pleasant|happy|total"
        r"|(?:milli|micro)?seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?|ms|[kmgt]i?b|bytes?"
        r"|percent|%|dollars?|euros?|pounds?|cents?|points?|pts|lines?|characters?|chars?|spaces?"
        # "has a rating of 4.7", "has a prep time of 15 minutes", "has a high number of ratings", "has a price listed":
        # an attribute and its value, read out (GUIDE.md: values as such are no claims).
        r"|^(?:[\w-]+\s+){0,2}?(?:ratings?|score|price|cost|fee|time|duration|length|size|number|count|capacity|population"
        r"|weight|height|width|rate|percentage|runtime|range|total|average|value)\s+(?:of|listed|around|between|shown)\b"
        # "has 47 upvotes", "has 1,482 commits": a post's or a repository's tallies, read as values.
        r"|comments?|upvotes?|downvotes?|votes?|likes?|views?|stars?|followers?|approvals?|commits?|reactions?|forks?"
        r"|watchers?|downloads?)\b|^`"
        # "has a 5.0 rating": a value after the article.
        r"|^\d"
        # "had a remarkable career", "has a long history": a life or a record told, no thing there.
        r"|\b(?:career|life|history|reputation|influence|experience|track\s+record)$"
        # "have contributed tens of ...": a perfect tense; "has a larger screen size compared to ...": a comparison; "has
        # a clear view of": an idiom; "has a data limit of 5 GB": an attribute and its value.
        r"|^(?:contributed|received|reached|scored|sold|published|posted|won|gained|earned|raised|collected|produced"
        r"|released|recorded|attracted|generated|accumulated|amassed)\s|\bcompared\b"
        r"|^(?:an?\s+)?(?:clear\s+|good\s+|better\s+)?view\s+of\b"
        r"|^(?:an?\s+)?(?:[\w-]+\s+){0,2}?limit\s+of\b"
        # "I have some suggestions", "I have a few ideas": what the agent offers, not a thing of the task.
        r"|^(?:(?:some|a\s+few|few|several|any|more|additional|other)\s+)?(?:suggestions?|ideas?|thoughts?|recommendations?"
        r"|concerns?|observations?|tools|options)\b",
        # "I seem to have a robust fix", "unlikely to have a trailing newline": no report of what is there. "I don't have
        # the tools": negated, existence.does_not_have's or a limit.
        reject_before=r"\b(?:to|would|will|should|shall|might|may|could|can|must|'ll|’ll|'d|’d)",
        # "have prices raised by 10%", "has Status = In progress": the object's state or value follows, not what is there.
        reject_after=r"[ \t]+(?:=|[^\W\d_]+ed\b)",
        examples=("The email from Priya has an attachment.", 'The settings page has a "Visibility" section.',
                  "The reservation has travel insurance.",
                  "The place card has Directions, Save, Share and More.", "Daly City has openings next week.",
                  "The downloads page has both a stable release and a pre-release."),
    ),
    DetectorSpec(
        # What is left, counted: "5 issues remain", "no refills remain on the prescription", "only one room is
        # left". Not "the warning remains" (an outcome: it persists) nor "three tasks remain to do" (a plan); what a
        # search matches is discovery (system_state.found_count).
        id="existence.remain",
        category="existence",
        family="existence",
        patterns=(
            r"\b(?P<cop>no|zero|\d[\d,]*|one|two|three|four|five|six|seven|eight|nine|ten|a[ \t]+few|several"
            r"|only[ \t]+(?:\d[\d,]*|one|two|three|four|five|a[ \t]+few))[ \t]+"
            r"(?P<subject>\p{L}[\p{L}\p{N}'-]*(?:[ \t]+\p{L}[\p{L}\p{N}'-]*){0,2}?)[ \t]+"
            # Also "left" alone, as listings write it: "12 spots left.", "only 2 rooms left at this price".
            r"(?P<state>remain|remains|remained|(?:(?:is|are|was|were)[ \t]+)?(?:still[ \t]+)?left)"
            r"(?:[ \t]*(?:[.,;:!)]|\n|$)|[ \t]+(?:in|on|at|for|after|within|from|under|today|now|open|unread"
            r"|unassigned|the[ \t]+filter|the[ \t]+search|your[ \t]+search)\b)",
        ),
        assertion="{not_}exists",
        negation_group="cop",
        confidence=0.75,
        # Time, money and quotas left are values: "2 hours left", "3 days left to return it".
        reject_subject=r"^(?:seconds?|minutes?|mins?|hours?|days?|weeks?|months?|years?|nights?|dollars?|euros?|credits?"
        r"|points?|percent|gb|mb|tb|attempts?|tries|retries|steps?)$",
        examples=("5 issues remain.", "No refills remain on the prescription.", "Only one room is left.", "12 spots left."),
    ),
    DetectorSpec(
        # "The file is not there", "the folder \"Onboarding 2025\" is there": at the end of a clause
        # ("is there a way" asks; "is there because" explains).
        id="existence.there",
        category="existence",
        family="existence",
        patterns=(
            rf"\b{COPULA}\s+(?:still\s+)?there(?:\*\*)?[ \t]*(?:[.,;:!)—–]|\n|$|[ \t]+(?:anymore|any\s+more|either|too|now"
            r"|at\s+all|yet)\b)",
        ),
        assertion="{not_}exists",
        subject_before=True,
        negation_group="cop",
        confidence=0.7,
        examples=("The file `report_final.xlsx` is not there.", 'The folder "Onboarding 2025" is there.'),
    ),
    DetectorSpec(
        id="existence.exists",
        category="existence",
        family="existence",
        patterns=(
            r"\b(?P<cop>(?:already\s+|still\s+|does\s+|definitely\s+|also\s+)?)exists\b",
            # The plural: "no categories exist besides \"Uncategorized\"", "both branches already exist".
            r"\b(?P<cop>(?:already\s+|still\s+|do\s+|definitely\s+|also\s+)?)exist\b",
        ),
        assertion="{not_}exists",
        subject_before=True,
        confidence=0.85,
        # "needs to exist", "should exist", "if they exist", "doesn't exist" (existence.does_not_exist's): no report.
        reject_before=r"\b(?:to|should|must|may|might|could|would|will|can|shall|if|whether|unless|not|n't|n’t"
        r"|doesn't|don't|didn't|does|did"
        # "the redundant exists() check", "the window between exists and open": the function's name, a noun.
        r"|the|a|an|redundant|separate|extra|between|of|and|or|with|using|calls?)\s*$",
        # "exists()": the call, code.
        reject_after=r"\(",
        examples=("The export endpoint already exists.", 'No categories exist on this site besides "Uncategorized".'),
    ),
    DetectorSpec(
        # "`foo` is in `utils.py`", "`appdirs` is not in `install_requires`", "the logo is part of the header".
        id="existence.located",
        category="existence",
        family="existence",
        patterns=(
            rf"\b{COPULA}\s+(?:(?:located|defined|declared|imported|listed|included)\s+)?(?:in|inside|within|under)\s+"
            rf"(?:the\s+)?{_PLACE}",
            rf"\b{COPULA}\s+(?:a\s+)?part\s+of\b",
            # What a project depends on: "the six library is already a dependency of requests".
            rf"\b{COPULA}\s+(?:a|an)\s+(?:direct\s+|transitive\s+|dev\s+|runtime\s+|required\s+)?(?:dependency|requirement)"
            r"\s+(?:of|for|in)\b",
            # "the file report_final.docx is not in this folder", "the three shirts are in the cart", "the thread
            # is back in the inbox": present in something (GUIDE.md).
            rf"\b{COPULA}\s+(?:now\s+|back\s+|still\s+)?(?:in|inside|under|on)\s+(?:this|that|the|your|my)\s+"
            r"(?:\p{Lu}[\p{L}-]*\s+)?(?:folder|directory|drive|list|column|section|menu|cart|basket|inbox|archive|trash|spam"
            r"|junk|drafts|outbox|downloads|wishlist|wish\s+list|tab|sidebar|calendar|playlist|library|desktop|board)\b",
            # Up to two words may say which one ("in the saved recipients list", "in the Amtrak app", "in your Sent folder"),
            # and a record, a message or an app holds things as a folder does ("the ticket is also in your email", "the
            # loyalty number is not on the booking", "Kevin Tran is in the saved recipients list"). Not a board's column
            # ("is in the In Progress column": system_state.status), nor "under" a record ("is under the reservation ID").
            rf"\b{COPULA}\s+(?:now\s+|back\s+|still\s+|also\s+|already\s+)?(?:in|inside|on)\s+(?:this|that|the|your|my"
            r"|its|their|our)\s+(?:[\p{L}\p{N}'’-]+\s+){0,2}?(?:folder|directory|drive|list|section|menu|cart|basket|inbox"
            r"|archive|trash|spam|junk|drafts|outbox|downloads|wishlist|wish\s+list|tab|sidebar|calendar|playlist|library|desktop"
            r"|app|email|mailbox|invoice|sheet|spreadsheet|queue|channel|repo|repository|itinerary|booking|reservation"
            r"|order|album|thread|conversation|workspace|account)s?\b",
            # Where a control is on screen: "the \"Next\" button is at the bottom right", "the option is hidden under
            # \"More\"", "a \"Submit\" button sits below the form", "Power Options lives under Hardware and Sound".
            rf"\b{COPULA}\s+(?:now\s+|still\s+|also\s+|only\s+)?(?:at|in|on)\s+the\s+(?:top|bottom|upper|lower|far|left"
            r"|right)\b",
            rf"\b{COPULA}\s+(?:now\s+|still\s+|also\s+|hidden\s+|tucked\s+|listed\s+|nested\s+)?(?:under|below|above"
            r"|next\s+to|beside)\s+(?:the\s+)?[\"“‘'(]?(?-i:\p{Lu})",
            r"\b(?:sits|lives|appears|shows\s+up|is\s+linked)\s+(?:under|below|above|next\s+to|beside|at\s+the\s+(?:top"
            r"|bottom)|on\s+the\s+(?:left|right))\b",
            # Where code or data lives, as coding agents say it: "`CurrencyFormatter` lives in `packages/i18n/src/format.ts`",
            # "reasons live in `refund_events.reason_code`". Only in a backticked name or a path: "she lives in Porto" is
            # no thing of the task.
            r"\b(?:lives|live|lived|resides|reside|resided)\s+(?:in|inside|under)\s+(?:the\s+)?(?:`[^`\n]+`"
            r"|~?[\p{L}\p{N}_.\-]*/[\p{L}\p{N}_./\-]*)",
            # "was already in Documents", "is now in Shared/Finance": a named folder after "already" or "now".
            rf"\b{COPULA}\s+(?:now|already|still)\s+in\s+(?:[\"“]?\p{{Lu}}[\p{{L}}\p{{N}}_/-]*)",
        ),
        assertion="{not_}exists",
        subject_before=True,
        negation_group="cop",
        confidence=0.8,
        # "is now in Done", "is still in Triage": a board's lane is where a record stands (system_state.status).
        reject_after=r"(?<=\bDone)|(?<=\bBlocked)|(?<=\bTriage)|(?<=\bBacklog)|(?<=\bTodo)|(?<=\bQA)|(?<=\bDoing)"
        r"|(?<=\bIcebox)|(?<=\bTo)\s+Do\b|(?<=\bIn)\s+(?:Progress|Review)\b"
        # "is on the reservation ID **FQ8APE**", "is in the order number 1187": an id, a value.
        r"|\s+(?:ID|id|number|no\.|#|code)\b",
        examples=(
            "`CurrencyFormatter` lives in `packages/i18n/src/format.ts`.",
            "`TemporaryUploadedFile` is in `django/core/files/uploadedfile.py`.",
            "`appdirs` is not in `install_requires`.",
            "The logo is part of the header.",
            "The six library is already a dependency of requests.",
            "The file report_final.docx is not in this folder.",
            'The event "Q1 roadmap sync" is on your Work calendar.',
            "`tax_2023_final.pdf` was already in Documents.",
            'The "Next" button is at the bottom right.',
            'The "Garage" option is hidden under "More".',
            'A "Submit" button sits below the form.',
        ),
    ),
    DetectorSpec(
        id="existence.there_is_no",
        category="existence",
        family="existence",
        patterns=(
            r"\b(?:there\s+is\s+no|there's\s+no|there’s\s+no|there\s+are\s+no|there\s+was\s+no|there\s+were\s+no"
            r"|there\s+isn't\s+(?:a|an|any)|there\s+isn’t\s+(?:a|an|any)|there\s+aren't\s+any|there\s+aren’t\s+any"
            r"|there\s+is\s+not\s+(?:a|an|any)|there\s+are\s+not\s+any|there\s+aren't|there\s+aren’t"
            r"|there\s+are\s+not|there\s+is\s+not|no\s+such"
            # "there have been no research papers announced today", "there has been no reply".
            r"|there\s+(?:has|have|had)\s+(?:still\s+|yet\s+|now\s+)?been\s+no"
            # "there is currently no walking route", "there's still no reply", "there seems to be no fee".
            r"|there\s+(?:is|are|was|were)\s+(?:currently|still|now|also|definitely|apparently|probably)\s+no"
            r"|there's\s+(?:currently|still|now|also|definitely|apparently|probably)\s+no"
            rf"|there\s+(?:seems|appears)\s+to\s+be\s+no)\s+(?:(?:enough|longer)\s+)?{AFTER}",
        ),
        assertion="not_exists",
        negative=True,
        confidence=0.85,
        examples=(
            "There is no config file for the gateway.",
            "There aren't enough seats available on flight HAT290.",
            "There is no `ORDER BY` clause in the generated SQL.",
        ),
    ),
    DetectorSpec(
        id="existence.there_is",
        category="existence",
        family="existence",
        patterns=(
            # Also after an opening phrase and its comma: "In the screenshot, there is a search button" (a
            # condition before the comma is the frame's to catch).
            # And after a reason, which states it as much: "Since there is a Next button available, ...". And after what
            # the agent sees or a tool shows ("I can see there are a few typos", "I see that there are existing tests",
            # "the tree shows that there is a Save button"): its own finding, stated.
            rf"(?:^|[.!?:;]\s+|\n[ \t]*(?:[-*•][ \t]+)?|\b(?:and|but|so|now|since|because|although|though)\s+|,[ \t]+"
            rf"|\b(?:see|saw|notice|noticed|shows|showed|confirms|confirmed|reveals|revealed)\s+(?:that\s+)?)"
            rf"(?:there\s+is|there's|there’s"
            rf"|there\s+are|there\s+was"
            # Hedged, the same claim: "there may be a \"Load more\" link", "there seems to be a footnote".
            rf"|there\s+(?:may|might|could|must)\s+(?:also\s+)?be|there\s+(?:seems|appears)\s+to\s+be"
            rf"|there\s+were)\s+(?:(?:also|still|now|already|indeed|probably|likely|currently|definitely"
            rf"|apparently|possibly|only)\s+)?(?:{_SOME}|another)\s+"
            # "an available flight": the adjective belongs to the thing, though after a trigger
            # "available" begins a modifier ("X is installed and available").
            rf"(?:available\s+)?{AFTER}",
            # "There are nonstop flights on Dec 23": a plural with no number is there too.
            rf"(?:^|[.!?:;]\s+|\n[ \t]*(?:[-*•][ \t]+)?|\b(?:and|but|so|now)\s+|,[ \t]+"
            rf"|\b(?:see|saw|notice|noticed|shows|showed|confirms|confirmed|reveals|revealed)\s+(?:that\s+)?)(?:there\s+are|there\s+were)\s+"
            rf"(?:(?:also|still|now|already|indeed)\s+)?{AFTER}",
        ),
        assertion="exists",
        confidence=0.75,
        # "there are no extra fees": existence.there_is_no. "there is a possibility", "there is a chance": a hedge, no thing.
        reject_subject=r"^(?:no|not|none)\b|^(?:a\s+|some\s+)?(?:possibility|chance|need|way|reason)\b"
        # "there are a few possibilities", "there are some significant differences", "there are a few other potential
        # causes": the agent's reasoning, no thing of the task.
        r"|^(?:(?:a\s+)?(?:few|couple(?:\s+of)?|number\s+of)|some|several|many|multiple|two|three|various)?(?:\s*(?:other|more|possible|potential|significant|key|main|important"
        r"|different|common|notable))*\s*(?:possibilit(?:y|ies)|chances|needs|ways|reasons|differences|causes|approaches"
        r"|things|steps|considerations|factors|alternatives|explanations|scenarios|questions|suggestions|ideas|thoughts"
        r"|points|aspects|improvements)\b|^(?:a\s+)?(?:few|couple)$",
        # "Wait, there are multiple `@property` decorators", "Actually, in recent versions, there is a ...": a coding
        # agent thinking aloud, as its labellers read it.
        reject_before=r"\b(?:wait|actually|hmm+|hm|oh|ah)\b[^.!?\n]*$",

        examples=("There is a lockfile in the root.", "There are two reservations under your profile.",
                  "There are nonstop flights on Dec 23 and Dec 26.",
                  "There is an available seat on the evening train.",
                  "In the screenshot, there is a search button."),
    ),
    DetectorSpec(
        id="existence.does_not_have",
        category="existence",
        family="existence",
        patterns=(
            r"\b(?:we|you|they|i|it)\s+(?:don't|do\s+not|didn't|did\s+not|don’t|didn’t|doesn't|doesn’t|does\s+not)"
            rf"\s+(?:have|purchase|own|hold)\s+(?:(?:a|an|the|any)\s+)?{AFTER}",
            r"\b(?:has|have|contains?)\s+no\s+" + AFTER,
        ),
        assertion="not_exists",
        negative=True,
        confidence=0.8,
        # "I do not have any capabilities related to ...", "I don't have the tools to ...": a limit of the agent
        # (capability), not a thing missing.
        reject_subject=r"^(?:capabilit(?:y|ies)|abilit(?:y|ies)|tools?|means|authority|permissions?|rights|privileges)\b",
        examples=(
            "We don't have a staging environment.",
            "You did not purchase travel insurance.",
            "The config has no timeout field.",
        ),
    ),
    DetectorSpec(
        # "You have travel insurance", "you have two reservations": possession stated to the user.
        id="existence.you_have",
        category="existence",
        family="existence",
        patterns=(
            rf"\b(?:you|we)\s+(?:(?:also|still|already|currently|now|actually)\s+)?(?:have|own|hold)\s+"
            rf"(?:(?:{_SOME}|the|your)\s+)?{AFTER}",
        ),
        assertion="exists",
        confidence=0.7,
        # "you have saved", "we have successfully created the file", "we have `Sunday` (text)": a tense or code, not
        # possession.
        # "you have not provided any details": what the user has not told, a perfect tense ("you have not purchased travel
        # insurance" stays: what the user does not have).
        reject_subject=r"^(?:\S+ed\b|`|(?:successfully|just|finally|already|now|also|properly|correctly|fully)\s+\S+ed\b)"
        r"|^(?:not|never|yet)\s+(?:yet\s+)?(?:provided|given|told|shared|specified|mentioned|confirmed|said|sent|answered"
        r"|responded|replied|indicated|clarified)\b",
        # "Now that we have the full context of the file": what the agent has read so far, its own progress.
        reject_before=r"\bnow\s+that\s*$",
        examples=("You have travel insurance.", "You have two reservations with flights on May 22."),
    ),
    DetectorSpec(
        # An allowance counted out to the user: "you get 1 free checked bag", "you receive **3 free checked bags** per
        # passenger". Only with a count: "you get a refund" is what will be done.
        id="existence.you_get",
        category="existence",
        family="existence",
        patterns=(
            r"\b(?:you|we)\s+(?:(?:also|still|actually|currently|now|each)\s+)?(?:get|receive)\s+(?:\*\*)?"
            r"(?:\d+|one|two|three|four|five)\s+(?:free\s+)?" + AFTER,
        ),
        assertion="exists",
        confidence=0.7,
        reject_before=r"\b(?:if|when|once|whether|would|will|could|might|may|to|then)\b[^.!?;\n]{0,30}$",
        examples=("As a Gold member you get 3 free checked bags.",),
    ),
    DetectorSpec(
        # "No" and a noun phrase as a clause of its own: "No reply yet.", "No 7:30 slots.", "Status is Waiting for
        # support; no assignee.", "Scrolled to the end: still no attachment.", "No download, no dialog." A note that
        # the thing is not there, as "there is no X" says it in full. With a verb ("No one has replied") the clause is
        # another detector's, or none: the subject stops short of one.
        id="existence.no_fragment",
        category="existence",
        family="existence",
        patterns=(
            r"(?:^|[.!?;][ \t]+|\n[ \t]*(?:[-*•][ \t]+)?|[—–][ \t]*|:[ \t]+)(?:still[ \t]+)?(?P<cop>(?-i:[Nn])o)[ \t]+"
            r"(?P<subject>[\p{L}\p{N}`\"“'](?:[^\n.;!?,:()—–]|:\d)*)(?:[.;!,)—–]|\n|$)",
        ),
        assertion="not_exists",
        negative=True,
        confidence=0.7,
        # A verb makes it a sentence ("No change is needed", "No one has replied"); more than six words, a sentence too;
        # "no box needed", "no action required": what is not needed, no thing missing; "No problem", "No worries".
        reject_subject=r"^(?:\S+\s+){6,}|\b(?:is|are|was|were|be|been|being|has|have|had|do|does|did|can|could|will"
        r"|would|should|shall|may|might|must|seems?|appears?|appeared|needed|required|necessary|needs?|requires?"
        r"|matters?|thanks|worries|problem|problems|rush|idea|wonder|doubt|way|luck|dice|kidding|offense|pressure)\b"
        # "\"1990\". No letters, no spaces.": what a string holds is its value (GUIDE.md), no thing of the task.
        r"|^(?:letters?|spaces?|characters?|chars?|digits?|whitespace|newlines?|quotes?|commas?|dots?|dashes?"
        r"|hyphens?|brackets?|prefix|suffix|padding|decimals?)$"
        # "No further actions.": the agent on its own next steps.
        r"|^(?:further|more|additional|other)\s+(?:actions?|steps?|changes?)\b",
        # Below every other detector: "No refund was issued", "No filters are applied yet" say what an action left a
        # record in (system_state.result, system_state.not_yet), as their labellers read them; this takes the rest.
        priority=0,
        examples=("No reply yet.", "Status is Waiting for support; no assignee.", "Scrolled to the end: still no attachment."),
    ),
    DetectorSpec(
        # What a calendar, a list or a table already holds, named in quotes: "Your calendar already has \"Dentist\" at 14:30",
        # "Tuesday already has 'Team sync' from 2:30", "The Reading List table now has \"The Left Hand of Darkness\" as the
        # last row". Only with "already" or "now": bare, "has \"Non-refundable\" in small print"
        # is as often a value. Not what a string holds ('"wb+" already has "b"'), the agent's own ("if I have \"Jan 01\""),
        # nor under a condition.
        id="existence.has_entry",
        category="existence",
        family="existence",
        patterns=(
            # Unbounded quoted words, capped by reject_subject: a bounded repeat makes the cold automaton costly.
            r"\b(?:(?:already|now)\s+(?:has|have|had)|(?:has|have|had)\s+(?:already|now))\s+"
            r"(?P<subject>\"[^\"\n]+\"|“[^”\n]+”|'[^'\n]+')",
        ),
        assertion="exists",
        role_before=True,
        confidence=0.65,
        reject_before=r"[\"”'`][ \t]*$|\b(?:I|we)[ \t]+$|\b(?:if|when|whenever|whether)\b[^.!?\n]{0,40}$",
        reject_subject=r"^.{63,}$",
        examples=('Your calendar already has "Dentist" at 14:30 on Wednesday.',),
    ),
    DetectorSpec(
        # Whether a person or a thing is in a group or a set: "Beth Anglin is not a member of the Network group", "he
        # isn't a member of the project", "yjlou is not a member yet", "Riverside isn't among them" (GUIDE.md: "present
        # in or part of something", as "is part of" is).
        id="existence.member_of",
        category="existence",
        family="existence",
        patterns=(
            rf"\b{COPULA}\s+(?:(?:a|an)\s+member\b|members\s+of\b|among\s+(?:them|those|these|the|its|their|your|my)\b)",
        ),
        assertion="{not_}exists",
        subject_before=True,
        negation_group="cop",
        confidence=0.75,
        person_subjects=False,
        examples=("Beth Anglin is not a member of the Network group.", "Riverside isn't among them."),
    ),
    DetectorSpec(
        # What a fare, a room or a plan comes with, as a note: "breakfast included", "23 kg bag included", "- Carry-on
        # included; changes allowed", "a Deluxe Double with breakfast not included". Part of the thing (GUIDE.md: "your
        # reservation includes travel insurance"), said without its verb. The note ends its clause; "with" may lead it.
        # Below the full sentences' detectors ("Breakfast is included"). Not a summary's key and value ("- **Insurance:**
        # Not included"): a value read out (GUIDE.md's "**Insurance:** No").
        id="existence.included_note",
        category="existence",
        family="existence",
        patterns=(
            r"(?:^|[.!?;,][ \t]+|\n[ \t]*(?:[-*•][ \t]+)?|[—–][ \t]*|:[ \t]+|\bwith[ \t]+)(?:\*\*)?"
            r"(?P<subject>[\p{L}\p{N}][\p{L}\p{N}'’-]*(?:[ \t]+[\p{L}\p{N}'’-]+){0,3}?)[ \t]+"
            r"(?P<cop>(?-i:[Nn])ot[ \t]+)?(?P<state>(?-i:[Ii])ncluded)(?:[ \t]*(?:[.;!,)—–(]|\n|$))",
        ),
        assertion="{not_}{state}",
        negation_group="cop",
        confidence=0.65,
        priority=0,
        # A sentence ("Tax is included"), an article or a pronoun ("the one included", "everything included"): the
        # copula's detectors, or no thing. "All taxes included", "fees included": a price's terms, a value.
        reject_subject=r"\b(?:is|are|was|were|be|been|being|has|have|had|not)$|^(?:the|a|an|this|that|these|those|it|they"
        r"|everything|all|nothing|what|which|anything|something)\b|\b(?:tax|taxes|fees?|vat|gst|charges?|tips?|gratuity"
        r"|shipping)$",
        examples=("2. **Sakura Terrace** — $176/night, breakfast included.", "- Carry-on included; changes allowed\n",
                  "The rate is for a Deluxe Double with breakfast not included."),
    ),
    DetectorSpec(
        # "None of" a set has or is a thing: "None of them has \"W-2\" in the file name", "none of them are PDFs", "None of
        # the three museums offers free Sunday entry", "None of the references are in the `billing` package". Whatever
        # the verb, no member of the set is or holds it. Below every other detector, as existence.no_fragment: "none
        # of the tests are failing" is an outcome.
        id="existence.none_of",
        category="existence",
        family="existence",
        patterns=(
            r"\b(?-i:[Nn])one[ \t]+of[ \t]+(?:the|them|these|those|my|your|its|their)\b[^.;:\n]*?[ \t](?P<state>has|have|had|is"
            r"|are|was|were|contains?|includes?|offers?|lists?|shows?|mentions?|points?|cites?|match(?:es)?|supports?"
            r"|allows?|carry|carries|accepts?|meets?|satisf(?:y|ies)|fits?|qualif(?:y|ies))\b",
        ),
        assertion="not_exists",
        negative=True,
        fixed_subject="none",
        confidence=0.65,
        priority=0,
        # "D. None of the other options match": a choice among answers, read out.
        reject_before=r"(?:^|\n)[ \t]*[A-Z][.)][ \t]*$",
        examples=('None of them has "W-2" in the file name.', "None of the three museums offers free Sunday entry.",
                  "None of the recipes on the first page meet the criteria."),
    ),
    DetectorSpec(
        # "No open tickets match the filter" (what a search finds is discovery: system_state.results).
        id="existence.matches",
        category="existence",
        family="existence",
        patterns=(
            r"(?:^|[.!?:;,]\s+|\n[ \t]*|\b(?:so|and|but)\s+)(?P<cop>no)\s+" + AFTER
            + r"\s+(?:match(?:es)?|matched|meets?|met|satisf(?:y|ies|ied)|fits?)\b",
            r"\b(?P<cop>0|zero)\s+" + AFTER + r"\s+(?:match(?:es)?|matched)\b",
        ),
        assertion="{not_}found",
        negation_group="cop",
        confidence=0.75,
        examples=("No open tickets match the filter.", "Zero tickets match the filter."),
    ),
)
