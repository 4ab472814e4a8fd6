"""Entity names: "the user is Iulia", "a project called Atlas", "Irina reviewed the PR"."""

from ..patterns import DetectorSpec
from ._fragments import NAME

ROLES = (
    r"user|person|team\s+member|developer|dev|author|owner|maintainer|creator|manager|lead|partner|boss|reviewer"
    r"|assignee|founder|co-founder|ceo|cto|cfo|colleague|customer|client|wife|husband|girlfriend|boyfriend"
    r"|contact|admin|administrator|engineer|designer|architect|requester|reporter|sponsor|stakeholder"
    r"|friend|passenger|traveler|traveller|companion|son|daughter|mother|father|wife|husband|colleague|guest"
    # Who a record, listing or page names, as web and back-office agents report it.
    r"|approver|director|instructor|teacher|professor|seller|buyer|agent|organi[sz]er|host|moderator|landlord"
    r"|tenant|sender|recipient|winner|president|chair|coordinator|recruiter|editor|publisher|supervisor"
    r"|advisor|adviser|representative|rep|adjuster|signatory|account\s+holder|payee|vendor|merchant|speaker"
    r"|staff\s+member|new\s+hire|hire|original\s+poster|poster|doctor|physician|dermatologist|dentist|nurse"
    r"|therapist|pharmacist|technician|employee|coworker|co-worker|teammate|student|neighbou?r|roommate"
    # Who a page of sports, arts or research names: "the player with the highest salary is Jrue Holiday".
    r"|player|athlete|singer|actor|actress|coach|captain|composer|performer|researcher|scientist"
)
_ACTIONS = (
    r"said|says|wrote|created|built|developed|designed|reviewed|approved|merged|asked|mentioned|requested"
    r"|confirmed|suggested|committed|authored|implemented|reported|decided|owns|maintains"
    r"|replied|reacted|commented|responded|declined|accepted|closed|reopened|assigned|invited|shared|posted|edited"
)
# Handles as forums and code hosts write them: "u/quietkeys", "@mira-dev".
# And a bare user name with a digit or underscore in it ("bookworm_77", "quietfrog42"): no word is spelled so.
_HANDLE = (
    r"(?P<name>u/[\p{L}\p{N}_-]{2,40}|@[\p{L}][\p{L}\p{N}_-]{1,40}"
    r"|\p{Ll}[\p{L}\p{N}.-]{0,30}[_\p{N}][\p{L}\p{N}_.-]{0,30})"
)
# A role word between the verb and the name: "assigned to adjuster Helen Park", "by user \"trailmix_tom\"".
_ROLE_BEFORE_NAME = r"(?:(?i:the|a|an|its|their)[ \t]+)?(?:(?i:user|adjuster|organi[sz]ation|org|team|customer|agent|reviewer"
_ROLE_BEFORE_NAME += r"|author|owner|maintainer|contact|moderator|member|account)[ \t]+)?(?:\*\*)?"

DETECTORS = (
    DetectorSpec(
        id="entity_name.role",
        category="entity_name",
        family="entityName",
        patterns=(
            rf"\b(?P<subject>(?i:{ROLES}))(?:(?i:'s|’s)\s+(?i:full\s+|first\s+)?(?i:name))?\s+"
            rf"(?i:is|was|=|is\s+named|is\s+called|named|called)\s+{NAME}",
            # The role with what it is of: "the assignee of ticket JIRA-4821 is Tomás Herrera", "the approver
            # listed on it is Derek Owens", "the instructor for Spring is Tengyu Ma".
            # Also plural ("the authors of this paper are Diego Alves and Geivison Ribeiro": the first name is checked).
            rf"\b(?P<subject>(?i:{ROLES}))(?i:s)?[ \t]+(?i:of|for|on|listed|named|shown|assigned|with|in|at)\b"
            rf"[^.!?\n,;:]{{1,80}}?[ \t]+(?i:is|was|are|were)[ \t]+{NAME}",
            # Apposition: "your project lead, Iulia, approved the change"
            rf"\b(?P<subject>(?i:{ROLES})),[ \t]+{NAME},",
            # The name first: "Karl Kroening is the owner".
            rf"(?:^|[.!?:;]\s+|\n[ \t]*|,\s+|\b(?i:that)[ \t]+)(?:(?i:and|but|so)\s+)?{NAME}[ \t]+(?i:is|was)[ \t]+(?i:the|their|its|our"
            rf"|your|this)[ \t]+(?:(?i:new|current|only|original|main|project)[ \t]+)?(?P<subject>(?i:{ROLES}))\b",
        ),
        assertion="name_reference",
        name_group="name",
        case_insensitive=False,
        confidence=0.9,
        priority=2,
        examples=("The user is Iulia.", "Your project lead, Iulia, approved the change.", "Karl Kroening is the owner.",
                  "The assignee of ticket JIRA-4821 is Tomás Herrera."),
    ),
    DetectorSpec(
        # "your friend Ivan Smith", "the passenger Noah Muller": a role, then the name.
        id="entity_name.role_apposition",
        category="entity_name",
        family="entityName",
        # "your manager, Grace Oduya", "a staff member, Marco Bianchi": a comma may set the name off.
        patterns=(rf"\b(?i:your|the|my|our|his|her|their|a|an|another)[ \t]+(?P<subject>(?i:{ROLES}))(?:,[ \t]*|[ \t]+){NAME}\b",),
        assertion="name_reference",
        name_group="name",
        case_insensitive=False,
        confidence=0.8,
        priority=2,
        examples=("I can book a flight for your friend Ivan Smith.",),
    ),
    DetectorSpec(
        id="entity_name.called",
        category="entity_name",
        family="entityName",
        patterns=(rf"(?P<cop>\b(?i:(?:is|was|are)\s+)?(?i:named|called|known\s+as|(?:full\s+)?name\s+is))\s+{NAME}",),
        assertion="name_reference",
        name_group="name",
        role_before=True,
        case_insensitive=False,
        confidence=0.85,
        # "`setup()` is called BEFORE the app exists": a word in capitals is emphasis, and "called" a call.
        reject_subject=r"^(?-i:[A-Z][A-Z]+)$",
        # "a folder named \"old\"", "two events named \"Team sync\"": which thing on screen, not who or which project.
        reject_before=r"\b(?:folder|file|branch|event|spreadsheet|workbook|document|sheet|tab|page|playlist|channel|list"
        r"|board|label|tag|column|row|field|button|link|window|workspace|album|image|photo|template|table|view|layer"
        r"|option|item|entry|record|product|listing|form|report|dashboard|filter|rule|macro|note|card"
        # "a game called \"Word Scramble\"", "a section called \"Network & Internet\"": a part of a page or an app.
        r"|section|game|menu|setting|category|screen|dialog|panel)s?",
        examples=("The project is called Atlas.", "Her name is Irina."),
    ),
    DetectorSpec(
        # Names in address or attribution: "Hi Albert,", "requested by Irina", "checked with Iulia".
        id="entity_name.mention",
        category="entity_name",
        family="entityName",
        patterns=(
            r"\b(?i:hi|hello|hey|dear|thanks|thank\s+you|good\s+morning|good\s+afternoon|cc|you're\s+welcome"
            r"|you’re\s+welcome|you\s+are\s+welcome|goodbye|bye|good\s+news|great\s+news|sorry|I'm\s+sorry|I’m\s+sorry)"
            r"[ \t]*,?[ \t]+"
            + NAME
            # "Hi Jordan — I searched ...": a dash closes the greeting as a comma does.
            + r"(?:[ \t]*[,!:.\n]|[ \t]*[—–]|[ \t]+-[ \t]|$)",
            # The name closing a courtesy: "Thank you for running the speed test, John.", "I'm glad to hear that, Maria!".
            r"\b(?i:thank\s+you|thanks|I(?:'m|’m|\s+am)(?:\s+(?:so|truly|really|very|sincerely))?\s+(?:glad|sorry|happy"
            r"|thrilled|delighted|pleased)|I\s+apologi[sz]e|great|perfect|excellent|wonderful"
            r"|of\s+course|got\s+it|understood|no\s+problem|absolutely|certainly|you(?:'re|’re)\s+welcome)\b"
            r"[^.!?\n]{1,120}?,[ \t]+"
            + NAME
            + r"[ \t]*[.!?](?:\s|$)",
            r"\b(?i:(?:requested|reviewed|approved|written|created|built|reported|suggested|assigned|owned"
            r"|maintained|authored|designed|merged|submitted|posted|uploaded|opened|closed|edited|updated|modified"
            r"|published|signed(?:\s+for)?|sent|shared|hosted|organi[sz]ed|run|managed|led)\s+by|assigned\s+to"
            r"|belongs\s+to|under\s+the\s+name|addressed\s+to|issued\s+to"
            r"|(?:spoke|talked|checked|met|paired|synced"
            r"|confirmed)\s+with)"
            r"[ \t]+" + _ROLE_BEFORE_NAME + NAME,
            r"\b(?i:(?:written|posted|submitted|created|opened|closed|reported|authored|owned|uploaded|shared|sent"
            r"|edited|assigned)\s+(?:by|to)|by\s+user|is\s+by|poster\s+is)[ \t]+" + _HANDLE,
            # A title and its author: '"Machine Learning Specialization" by Andrew Ng', "taught by Andrew Ng".
            r"(?:[\"”]|\b(?i:taught|narrated|presented|directed|hosted|produced|illustrated|translated|edited))[ \t]+by[ \t]+"
            + NAME,
            # Where a message came from: "the invite is from Kenji Watanabe", "the newest one is from Priya Nair",
            # "the Q2 offsite email from Priya Natarajan", "the latest from Ben O." (who sent it: a name the agent
            # read off the screen, as the labellers of the web sets count it).
            r"\b(?i:email|e-mail|message|invite|invitation|reply|replies|text|note|request|letter|voicemail|dm|one|latest"
            r"|newest|oldest|comment|ticket)s?[ \t]+(?:(?i:is|was|came)[ \t]+)?(?i:from)[ \t]+" + NAME,
            # A name in a role: "lists the authors as Priya Raman".
            # Whose account the agent is in: "logged in as Marcus Bell", "signed into Postmill as MarvelsGrantMan136".
            r"\b(?i:logged|signed)[ \t]+(?i:in|into|on)(?:[ \t]+(?i:to)?[ \t]*[\p{L}\p{N}.-]+)?[ \t]+(?i:as)[ \t]+" + NAME,
            # A role a person holds: "Eric Bailey has the Owner role", "Sarah Lee has the Maintainer role".
            NAME + r"[ \t]+(?i:has|holds)[ \t]+(?i:the|an?)[ \t]+(?:[\p{L}\"“”*-]+[ \t]+){1,3}(?i:role|permissions?)\b",
            r"\b(?i:authors?|assignees?|owners?|organi[sz]ers?|hosts?|speakers?|instructors?|reviewers?)[ \t]+(?i:as)[ \t]+"
            + NAME,

        ),
        assertion="name_reference",
        name_group="name",
        subject_group=None,
        case_insensitive=False,
        confidence=0.75,
        examples=("Hi Albert, here is the summary.", "As requested by Irina, I updated the docs.",
                  "The issue is assigned to Priya Natarajan.", "You're welcome, Daniel!",
                  "The comment was posted by u/quietkeys.", 'The first is "Machine Learning" by Andrew Ng.',
                  "The invite is from Kenji Watanabe.",
                  "The abstract page lists the authors as Priya Raman and Ke Wu.",
                  "Logged in as Marcus Bell.", "Eric Bailey has the Owner role.",
                  "Thank you for running the speed test, John."),
    ),
    DetectorSpec(
        # A name in a role: "Linear shows Maya as the assignee", "Kenji Watanabe is listed as its owner". Above
        # system_state.marked, which would read "is listed as its owner" as a record's state.
        id="entity_name.as_role",
        category="entity_name",
        family="entityName",
        patterns=(
            NAME + r"[ \t]+(?:(?i:is|was|are)[ \t]+(?i:listed|shown|named|set|marked)[ \t]+)?(?i:as)[ \t]+(?i:the|its|their"
            r"|an?)[ \t]+(?i:" + ROLES + r")\b",
        ),
        assertion="name_reference",
        name_group="name",
        subject_group=None,
        case_insensitive=False,
        confidence=0.75,
        priority=2,
        examples=("Linear shows Maya as the assignee on all three.", "Kenji Watanabe is listed as its owner."),
    ),
    DetectorSpec(
        id="entity_name.actor",
        category="entity_name",
        family="entityName",
        patterns=(
            rf"(?:^|[.!?]\s+|\n[ \t]*(?:[-*•]\s+)?)(?P<name>\p{{Lu}}\p{{Ll}}+(?:[ \t]+\p{{Lu}}\p{{Ll}}+)?)[ \t]+"
            rf"(?:(?i:has|had|also|just|already)[ \t]+){{0,2}}(?i:{_ACTIONS})\b",
        ),
        assertion="name_reference",
        name_group="name",
        subject_group=None,
        case_insensitive=False,
        confidence=0.8,
        examples=("Irina reviewed the pull request.",),
    ),
)
