"""Capability: what something can or cannot do, or allows.

"X doesn't support Y", "this feature is not available", "basic economy flights
cannot be modified", "I am unable to cancel this reservation", "you are
eligible for a refund", "the parser does not recognize `--fast`", "Java 17 is
required".
"""

from ..patterns import DetectorSpec
from ._fragments import ADVERB, AFTER, COPULA

FEATURE_NOUNS = (
    r"feature|features|function|functionality|option|capability|command|flag|endpoint|method|api|integration"
    r"|setting|mode|parameter|operation|action|format|syntax|support"
)
# Negated "can": the ways agents say that something cannot be done.
_CANNOT = r"cannot|can't|can’t|can\s+not|could\s+not|couldn't|couldn’t|must\s+not"

# A policy's rule, read out: "According to our policy, passengers cannot be removed", "per airline policy, basic economy
# reservations cannot be modified". A general statement (GUIDE.md), not said of this booking; "your reservation cannot
# be modified" and "they cannot be cancelled per policy" stay claims.
_PER_POLICY = (
    r"\b(?:according\s+to|per|under|as\s+per|based\s+on)\s+(?:our|the|its|their|airline|company|[\w-]+'s)\s+"
    r"(?:[\w-]+\s+)?polic(?:y|ies)\b[^.!?;\n]{0,80}"
)

DETECTORS = (
    DetectorSpec(
        id="capability.does_not_support",
        category="capability",
        family="capability",
        patterns=(
            r"\b(?P<cop>(?:does|do|did)(?:n't|n’t|\s+not)|can't|can’t|cannot|won't|won’t"
            r"|(?:might|may|could|would)(?:n't|n’t|\s+not))\s+(?:yet\s+|fully\s+|even\s+|really\s+)?"
            r"(?:support|recogni[sz]e)\s+" + AFTER,
            r"\b(?P<cop>(?:has|have)\s+no|lacks?)\s+support\s+for\s+" + AFTER,
        ),
        assertion="not_supported",
        negative=True,
        role_before=True,
        confidence=0.85,
        priority=2,
        examples=(
            "OpenClaw doesn't support streaming.",
            "Postgres does not recognize the `--fast` flag.",
            "The old client may not support HTTP/2.",
            "The runtime lacks support for threads.",
        ),
    ),
    DetectorSpec(
        id="capability.supports",
        category="capability",
        family="capability",
        patterns=(
            r"\b(?P<cop>(?:already\s+|fully\s+|now\s+|also\s+)?)(?:supports|recogni[sz]es|does\s+support)\s+"
            r"(?:up\s+to\s+)?" + AFTER,
            # The plural after an adverb, which tells the verb from the noun: "the MacBook Air models also support up to
            # two external displays", "both clients now support HTTP/2".
            r"\b(?P<cop>(?:already|fully|now|also|only|both|all)\s+)support\s+(?:up\s+to\s+)?" + AFTER,
        ),
        assertion="supported",
        role_before=True,
        confidence=0.8,
        examples=("The gateway supports streaming.", "The CLI now recognizes the `--fast` flag.",
                  "SQLite does support ORDER BY in compound statements.",
                  "The MacBook Air models also support up to two external displays."),
    ),
    DetectorSpec(
        id="capability.not_supported",
        category="capability",
        family="capability",
        patterns=(
            rf"\b{COPULA}\s+(?P<state>supported|possible|allowed|permitted|eligible|entitled|required|mandatory|clickable"
            r"|selectable)\b",
            # What a booking, an item or a role allows as its property: "the tickets are non-refundable", "the
            # item is returnable", "that role is read-only".
            rf"\b{COPULA}\s+(?:\*\*)?(?P<state>non-?refundable|refundable|non-?transferable|transferable|non-?returnable"
            r"|returnable|non-?cancell?able|cancell?able|exchangeable|non-?exchangeable|read-only|editable|compatible"
            # What a slot, a pull request or an item lets the user do: "the other two are bookable", "the PR is
            # mergeable", "it won't be purchasable until stock is added".
            r"|incompatible|bookable|reservable|mergeable|purchasable|redeemable|shippable|downloadable|changeable"
            r"|upgradable|upgradeable|deletable|renewable|non-?renewable)\b",
            # What a portal or a form takes, in the present: "only PDF and DOCX are accepted", "cards aren't accepted
            # here". The past ("the code was accepted") is what an action left (system_state.result).
            r"\b(?P<cop>(?:is|are)(?:n't|n’t|\s+not)?)\s+(?:only\s+)?(?P<state>accepted)\b",
        ),
        assertion="{not_}{state}",
        subject_before=True,
        negation_group="cop",
        person_subjects=True,
        confidence=0.85,
        priority=2,
        # "is only possible under specific conditions" states a rule's condition, not a fact.
        # "it's possible that ...": a hedge on what follows, not a capability.
        # "It's possible Firefox saved the file": the same hedge without "that", a clause follows.
        # "No further action is required", "further scrolling is required": the agent on what its own task needs
        # next, no thing's capability.
        reject_subject=r"^(?:no\s+)?(?:further|more|additional|any\s+more|other|next)\s+(?:actions?|steps?|scrolling|navigation"
        r"|input|interactions?|clicks?|clicking|searching|exploration|investigation|changes?)$",
        reject_after=r"\s+(?:only\s+)?(?:if|when|unless|under\s+(?:specific|certain)|provided|that)\b"
        r"|(?<=possible)\s+(?:the|this|these|those|it|they|we|you|i|he|she|there|someone|something"
        r"|(?-i:[A-Z])[\w-]*\s+(?:\w+ed|is|was|has|had|did|does|might|may|could|will|would|just|already)\b)",
        examples=(
            "Batch mode is not supported.",
            "Upgrading to economy is possible.",
            "Changes to flight dates are not permitted.",
            "You are eligible for a full refund.",
            "Java 17 is required for this build.",
            "The tickets are non-refundable after 24 hours.",
            "Only PDF and DOCX files are accepted.",
        ),
    ),
    DetectorSpec(
        id="capability.unsupported",
        category="capability",
        family="capability",
        # "the task of adding items to the cart is currently unachievable", "not feasible": what cannot be done.
        patterns=(
            rf"\b{COPULA}\s+(?:unsupported|impossible|not\s+possible|ineligible|not\s+eligible|unachievable|infeasible"
            r"|not\s+(?:achievable|feasible))\b",
        ),
        assertion="not_supported",
        negative=True,
        subject_before=True,
        person_subjects=True,
        confidence=0.85,
        priority=2,
        examples=("Batch mode is unsupported.", "This fare is ineligible for refunds.",
                  "The task of adding items to the cart is currently unachievable."),
    ),
    DetectorSpec(
        # "This feature is not available" is a capability claim, not system state. Only negated: "the 24GB option
        # is available", "a paperless billing option is available" say what is on offer or on screen, which the
        # labellers of every corpus read as state (system_state.copula takes them).
        id="capability.feature_unavailable",
        category="capability",
        family="capability",
        patterns=(
            rf"\b(?P<head>{FEATURE_NOUNS})\s+(?P<cop>(?:is|are|was|were)(?:(?:n't|n’t)(?:\s+{ADVERB})?"
            rf"|(?:\s+{ADVERB})?\s+(?:not|no\s+longer)(?:\s+{ADVERB})?))\s+(?P<state>available|enabled)\b",
        ),
        assertion="{not_}supported",
        subject_before=True,
        subject_includes_match_group="head",
        negation_group="cop",
        confidence=0.85,
        priority=3,
        examples=("This feature is not available.",),
    ),
    DetectorSpec(
        # What a named thing or group cannot do, or may only do: "buyers can't see it", "this workspace can't
        # export directly", "the store locator can't search by ZIP code", "authors can only edit their own
        # posts", "the form won't accept it". A pronoun gives no subject; "can't be" is capability.cannot_be.
        id="capability.cannot_do",
        category="capability",
        family="capability",
        patterns=(
            r"\b(?P<cop>can't|can’t|cannot|can\s+not|won't|won’t|can\s+only|(?:is|are)(?:n't|\s+not)?\s+(?:un)?able\s+to)"
            r"\s+(?:(?:directly|currently|actually|really|yet|even|easily|still|also)\s+)?(?P<state>[a-z]{3,})\b",
        ),
        assertion="{not_}able",
        subject_before=True,
        negation_group="cop",
        confidence=0.7,
        # "be" is capability.cannot_be's; finding is discovery (system_state.not_found); "won't be", "can't
        # wait", "can't help": predictions and idioms.
        reject_state=r"be|find|locate|wait|help|imagine|say|tell|stress|believe|guarantee|thank|recall|remember"
        r"|have|get|seem",
        # "`int8` cannot hold 300": a value's type in code, not a thing's capability.
        reject_subject=r"^`[^`]+`$",
        # "if the sync can't reach it", "so that users can't": a condition or a purpose, not a report ("..., so
        # buyers can't see it" is one).
        reject_before=r"\b(?:if|when|whether|unless|so\s+that|which|who|until|once|because|in\s+case)"
        r"(?:\s+\S+){0,5}\s*$",
        examples=("Buyers can't see the draft listing.", "Authors can only edit their own posts.",
                  "The store locator can't search by ZIP code outside the US."),
    ),
    DetectorSpec(
        # What the user may not do: "the thread is archived, so you can't reply to it" (GUIDE.md: "you don't have edit
        # rights" is a capability). Not "won't": an intent; not the agent's own "I can't", which
        # capability.unable reads.
        id="capability.person_cannot",
        category="capability",
        family="capability",
        patterns=(
            r"\b(?P<subject>you)\s+(?P<cop>can't|can’t|cannot|can\s+not)\s+(?:(?:currently|actually|really|yet"
            r"|even|still|also)\s+)?(?P<state>[a-z]{3,})\b",
        ),
        assertion="{not_}able",
        negation_group="cop",
        person_subjects=True,
        confidence=0.6,
        reject_state=r"be|find|locate|wait|help|imagine|say|tell|stress|believe|guarantee|thank|recall|remember"
        r"|have|get|seem|go|miss|use|just|really",
        reject_before=r"\b(?:if|when|whether|unless|so\s+that|which|who|until|once|because|in\s+case)(?:\s+\S+){0,3}\s*$",
        examples=("You can't delete it.", "The thread is archived, so you can't reply to it."),
    ),
    DetectorSpec(
        # "Basic economy flights cannot be modified", "travel insurance can't be added afterwards".
        id="capability.cannot_be",
        category="capability",
        family="capability",
        patterns=(
            rf"\b(?P<cop>{_CANNOT})\s+(?:(?:always|ever|really|easily|currently|also|still)\s+)?"
            r"be\s+(?P<state>[\p{L}]{3,})\b",
            # "won't be saved", "won't be called": a prediction of what will happen, not what can be;
            # only "won't be able / possible / allowed" says what cannot be done.
            r"\b(?P<cop>won't|won’t|will\s+not)\s+(?:(?:ever|really|easily|currently|also|still)\s+)?"
            r"be\s+(?P<state>able|possible|allowed|permitted|eligible|refundable|supported)\b",
        ),
        assertion="cannot_be_{state}",
        negative=True,
        subject_before=True,
        confidence=0.8,
        priority=2,
        reject_before=_PER_POLICY,
        examples=(
            "Basic economy flights cannot be modified.",
            "Travel insurance can't be added after the initial booking.",
            "This fare won't be refundable.",
        ),
    ),
    DetectorSpec(
        # The same, granted: "your reservation can be cancelled for a full refund", "- **LU15PA** - Can be canceled".
        # Only what a booking, order or record allows: "the line can be removed" is a coding agent's suggestion.
        # Not "can only / always be": a policy's rule for a class of bookings (GUIDE.md), not this one.
        id="capability.can_be",
        category="capability",
        family="capability",
        patterns=(
            r"\b(?P<cop>can)\s+(?:(?:still|also|easily|now)\s+)?be\s+(?P<state>cancell?ed|modified|changed"
            r"|refunded|upgraded|downgraded|transferred|returned|exchanged|rebooked|rescheduled|redeemed|extended|renewed"
            r"|booked|reserved|purchased|edited|reopened|undone|paused|resumed|unsubscribed)\b",
        ),
        assertion="can_be_{state}",
        subject_before=True,
        confidence=0.75,
        priority=2,
        reject_before=r"\b(?:if|when|whether|unless|once|only\s+if)\b[^.!?;\n]{0,40}|" + _PER_POLICY,
        examples=("Your business class reservation can be cancelled for a full refund.",),
    ),
    DetectorSpec(
        # What an account, a role or a user is not permitted: "`etl_writer` has no privileges on `analytics`", "my
        # agent role doesn't have the refund permission". A permission (GUIDE.md: "not allowed or permitted"), not a
        # thing held (existence.does_not_have); not "access" alone, which labellers read either way ("the VM has no
        # internet access" is existence to them).
        id="capability.no_permission",
        category="capability",
        family="capability",
        patterns=(
            r"\b(?P<cop>(?:has|have|had)\s+no|(?:does|do|did)(?:n't|n’t|\s+not)\s+have|(?:has|have|had)(?:n't|n’t|\s+not))"
            r"\s+(?:(?:the|any)\s+)?(?:[\p{L}-]+\s+)?(?P<state>permissions?|privileges|grants)\b",
        ),
        assertion="not_permitted",
        negative=True,
        subject_before=True,
        confidence=0.75,
        priority=3,  # over existence.does_not_have and existence.does_not_contain
        examples=("`etl_writer` has no privileges on `analytics`.", "My agent role doesn't have the refund permission."),
    ),
    DetectorSpec(
        # "I am unable to cancel this reservation", "we cannot use Docker here", "I can't remove a passenger".
        id="capability.unable",
        category="capability",
        family="capability",
        patterns=(
            r"\b(?P<who>I|we)(?:'m|’m|\s+am|'re|’re|\s+are)?\s+(?:(?:still|currently|also|simply|unfortunately)\s+)?"
            r"(?P<cop>unable\s+to|not\s+able\s+to|cannot|can't|can’t|can\s+not|wasn't\s+able\s+to|wasn’t\s+able\s+to"
            r"|not\s+permitted\s+to|not\s+allowed\s+to|couldn't|couldn’t|could\s+not"
            r"|was\s+not\s+able\s+to|weren't\s+able\s+to|were\s+not\s+able\s+to|not\s+authori[sz]ed\s+to"
            r"|was\s+unable\s+to|were\s+unable\s+to)\s+"
            r"(?:(?:directly|currently|actually|really)\s+)?" + AFTER,
            r"\b(?P<who>I|we)\s+(?:do\s+not|don't|don’t)\s+have\s+(?:the\s+|any\s+)?"
            r"(?P<cop>ability|capability|capabilities|authority|means|option|tools|way)\s+(?:to|for|related\s+to)\s+"
            + AFTER,
            # "I don't have access to your password manager", "you don't have edit rights on it".
            r"\b(?P<who>I|we|you)\s+(?:do\s+not|don't|don’t|no\s+longer)\s+have\s+(?:the\s+)?(?:[\p{L}-]+\s+)?"
            r"(?P<cop>access|rights|permissions?|privileges)\s+(?:to|on|for)\s+" + AFTER,
        ),
        assertion="unable",
        negative=True,
        confidence=0.8,
        priority=3,
        action_subject=True,
        # "my instructions for this workspace say I can't push to `main`": what the agent's rules say, one
        # self-referential claim (self_referential.instructions), not a limit it found.
        # (The window is the 72 characters before the match: the rules' owner may fall outside it.)
        reject_before=r"\b(?:instructions|guidelines|rules|policies|prompt)\b[^.!?;\n]{0,30}?"
        r"\b(?:say|says|said|state|states|tell\s+me|told\s+me)(?:\s+that)?\s+$",
        # "I cannot do that", "I can't say": a refusal or a manner of speaking, not a stated limit.
        reject_subject=r"^(?:do|say|tell|answer|comment|speak|agree|promise|be\s+sure)\b(?:\s+(?:that|this|it|so))?\s*$"
        r"|^be\b"  # "I can't be sure", "we cannot be certain": doubt, not a limit
        # "I can't help but notice", "I can't help thinking": a manner of speaking; "I'm unable to help with that
        # request" is a limit the agent states.
        r"|^help\s+(?:but|feeling|thinking|noticing|wondering)\b"
        # "I couldn't find / confirm X": discovery, system_state.not_found.
        r"|^(?:find|locate|detect|spot|confirm)\b"
        # "I couldn't complete the task": the agent on its own work, checked against its actions. Not "I'm unable to
        # complete the task of finding the cheapest flights": a limit it states about a named job, as real web agents'
        # labellers read it (web_real).
        r"|^(?:complete|finish|do|accomplish)\s+(?:the|this|your|my)\s+(?:task|request|job)\b(?!\s+of\b)",
        examples=(
            "I am unable to cancel this reservation.",
            "We cannot use Docker here.",
            "I’m unable to remove a passenger from an existing reservation.",
            "I don't have the ability to make exceptions.",
            "I'm unable to access the billing records.",
            "I don't have access to your password manager.",
            "You don't have edit rights on the folder.",
            "I couldn't assign the issue to Roshan Jossy.",
        ),
    ),
    DetectorSpec(
        # What the agent may not do, as its remit: "these requests are outside of my authority", "that falls outside my
        # scope as a triage agent" (GUIDE.md: "not allowed or permitted"). Not "my instructions": that is
        # self_referential.
        id="capability.out_of_scope",
        category="capability",
        family="capability",
        patterns=(
            rf"\b(?:{COPULA}|falls?|fell)\s+(?:well\s+|completely\s+|entirely\s+|clearly\s+)?(?:outside|beyond)\s+(?:of\s+)?"
            r"(?:my|our|the\s+agent's)\s+(?:[\p{L}-]+\s+)?(?P<state>scope|authority|remit|capabilit(?:y|ies)|abilities"
            r"|permissions|purview|jurisdiction|role)\b",
        ),
        assertion="not_permitted",
        negative=True,
        subject_before=True,
        confidence=0.75,
        priority=2,
        examples=("These requests are outside of my authority.", "That falls outside my scope as a triage agent."),
    ),
    DetectorSpec(
        # "The policy does not permit changing the destination", "the system does not allow me to add ...".
        id="capability.does_not_allow",
        category="capability",
        family="capability",
        patterns=(
            r"\b(?P<cop>(?:does|do|did)(?:n't|n’t|\s+not)|won't|won’t)\s+(?:allow|permit|let)\s+"
            r"(?:(?:me|you|us|them|users?|agents?)\s+(?:to\s+)?)?" + AFTER,
        ),
        assertion="not_allowed",
        negative=True,
        role_before=True,
        confidence=0.8,
        priority=2,
        # What is not allowed is an act: "does not allow us to issue a voucher" ("issue" a verb, no idiom noun).
        action_subject=True,
        examples=(
            "The policy does not permit changing the destination.",
            "The system does not allow me to add travel insurance.",
        ),
    ),
    DetectorSpec(
        id="capability.does_not_qualify",
        category="capability",
        family="capability",
        patterns=(
            r"\b(?P<cop>(?:does|do|did)(?:n't|n’t|\s+not))\s+(?:qualify|meet\s+the\s+(?:conditions|criteria|requirements))",
        ),
        assertion="not_eligible",
        negative=True,
        subject_before=True,
        confidence=0.8,
        priority=2,
        examples=("The booking doesn't qualify for a refund.", "The reservation does not meet the conditions."),
    ),
    DetectorSpec(
        # A seller's or a service's reach: "the shop doesn't ship to Canada", "they don't deliver to PO boxes".
        id="capability.does_not_ship",
        category="capability",
        family="capability",
        patterns=(
            r"\b(?P<cop>(?:does|do|did)(?:n't|n’t|\s+not))\s+(?:ship|deliver)\s+(?:to\s+(?:the\s+)?[\p{L}\p{N}.-]+"
            r"|outside\s+(?:the\s+)?[\p{L}\p{N}.-]+|internationally|abroad)",
        ),
        assertion="not_ships_to",
        negative=True,
        subject_before=True,
        confidence=0.8,
        priority=2,
        examples=("The shop doesn't ship to Canada.", "They do not deliver outside Germany."),
    ),
    DetectorSpec(
        id="capability.allows",
        category="capability",
        family="capability",
        patterns=(r"\b(?P<cop>allows|permits|lets)\s+(?:me|you|us|them)\s+(?:to\s+)?" + AFTER,),
        assertion="allowed",
        role_before=True,
        confidence=0.75,
        examples=("The compensation policy allows me to offer a certificate.",),
    ),
    DetectorSpec(
        # What a place, a policy or a setting allows or requires: "listing A allows pets", "the restaurant
        # allows cancellations up to 2 hours before", "branch protection requires all checks to pass", "the
        # subreddit requires accounts to be 30 days old". Not after "this", "which" or "it" in a coding
        # agent's sense ("this allows the parser to ...": what code does), nor a plan or a purpose.
        id="capability.rule",
        category="capability",
        family="capability",
        # "doesn't allow" is capability.does_not_allow's, "accepts only" capability.only's.
        patterns=(
            r"\b(?P<cop>allows|permits|requires)\s+" + AFTER,
            # "the lookup form needs a last name", "the widget needs a role I don't have": what it takes, said of a
            # thing with an article after (not "needs to", "needs fixing": what is to be done).
            r"\b(?P<cop>needs)\s+(?:a|an|your|the)\s+" + AFTER,
        ),
        assertion="{cop}",
        role_before=True,
        confidence=0.7,
        # "The goal requires sending a message": the agent's task, not a rule of a thing.
        reject_before=r"(?:\b(?:this|that|which|it|what|also|to|will|would|should|could|may|might|must|can|and|or|but"
        r"|function|method|class|code|test|patch|fix|change|script|module|api|decorator|parameter|argument|goal|task"
        r"|objective|request|instructions?|issue|bug|ticket|fixing|solution|approach)|[`'\"])\s*$",
        reject_subject=r"^(?:me|you|us|them|him|her|it|the\s+following|following|changing|adding|updating|modifying"
        r"|a\s+(?:restart|change|rebuild))\b",
        # "**Allows Returns:** True": a field's name in a record, its value after the colon.
        reject_after=r"(?:\*\*)?[ \t]*:",
        examples=("Listing A allows pets.", "Branch protection requires all checks to pass.",
                  "The hotel's lookup form needs a last name."),
    ),
    DetectorSpec(
        # "The search box accepts only exact SKUs", "exporting is restricted to admin accounts".
        id="capability.only",
        category="capability",
        family="capability",
        patterns=(
            r"\b(?:only\s+(?:accepts|allows|supports|permits|takes)|(?:accepts|allows|supports|permits|takes)\s+only)\s+"
            + AFTER,
            rf"\b{COPULA}\s+(?:only\s+)?(?P<state>restricted|limited|reserved)\s+to\s+" + AFTER,
        ),
        assertion="restricted",
        role_before=True,
        confidence=0.75,
        examples=("The search box accepts only exact SKUs.", "Exporting is probably restricted to admin accounts."),
    ),
    DetectorSpec(
        # A settings line whose value says what is allowed: "- Force pushes: not allowed", "* Cloud recording:
        # not available on your plan" (GUIDE.md: a key/value line with a category predicate is a claim). A
        # bulleted line only, as system_state.list_item: a line start without a bullet makes every line of
        # every output a candidate, which costs the whole RE2 set about a tenth of its speed.
        id="capability.list_item",
        category="capability",
        family="capability",
        patterns=(
            r"(?m)^[ \t]*(?:[-*•+]|\d+[.)])[ \t]+(?:\*\*)?(?P<subject>[^\n:*|]+?)(?:\*\*)?[ \t]*:[ \t]*(?:\*\*)?"
            r"(?P<cop>(?:not|NOT|Not)[ \t]+)?(?P<state>allowed|permitted|supported|possible|required|available\s+on\s+your"
            r"\s+plan)\b",
        ),
        assertion="{not_}{state}",
        negation_group="cop",
        confidence=0.75,
        priority=2,
        reject_subject=r"^.{61,}$",  # a key is short (see system_state.list_item)
        examples=("- Force pushes: not allowed\n", "* Cloud recording: not available on your plan"),
    ),
    DetectorSpec(
        # "The CMS doesn't seem to accept WEBP", "the restaurant doesn't require a deposit", "the site requires
        # a one-time code sent to your phone".
        id="capability.accepts",
        category="capability",
        family="capability",
        patterns=(
            r"\b(?P<cop>(?:does|do|did)(?:n't|n’t|\s+not))\s+(?:(?:seem|appear)\s+to\s+)?(?:accept|require)\s+"
            r"(?:(?:a|an|the|any)\s+)?" + AFTER,
            r"\b(?P<cop>requires|required)\s+(?:a|an|the|your|you\s+to)\s+" + AFTER,
        ),
        assertion="{not_}required",
        role_before=True,
        negation_group="cop",
        confidence=0.7,
        # "the function requires two arguments", "requires the `x` parameter": what code takes, in general.
        reject_subject=r"^(?:arguments?|args?|parameters?|params?|kwargs?|`)",
        # "The task requires the recipe to have 4 stars", "the goal doesn't require any further actions": what the agent
        # was asked for, no thing's requirement.
        reject_before=r"\b(?:task|tasks|goal|objective|request|query|question|instructions?|criteria|prompt|assignment)[ \t]+$",
        examples=("The CMS doesn't seem to accept WEBP.", "The site requires a one-time code sent to your phone."),
    ),
)
