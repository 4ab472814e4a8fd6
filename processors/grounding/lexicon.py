"""Word lists the grader reads: data, not logic.

General English knowledge only (function words, reporting verbs, antonym
pairs, closed word classes, status vocabularies); nothing here is tuned to
one agent, one tool or one data set.
"""

from __future__ import annotations

import re

STOPWORDS = frozenset(
    """
    a an the and or but if then so of to in on at by for with from as is are was were be been being am it its
    it's this that these those he she they we i you his her hers their theirs our ours your yours my mine me him
    them us do does did done doing have has had having will would can could should may might must shall there
    here what which who whom whose when where why how all any both each few more most other some such only own
    same than too very just also about into over after before while during up down out off again further once
    s t d ll m re ve don because until against between through above below under get gets got getting i'm
    you're we're they're he's she's that's there's let's i've you've we've i'll you'll we'll i'd you'd
    let us per via yet
    """.split()
)

NEGATORS = frozenset("not no never nothing none cannot neither nor without nobody nowhere n't".split())
NEGATION = re.compile(
    r"\b(?:not|no|never|nothing|none|cannot|neither|nor|without|nobody|nowhere)\b|n't\b|n’t\b", re.IGNORECASE
)

# Words a faithful summary or reply uses freely without the evidence saying them: reporting and
# dialogue verbs, discourse adverbs, generic nouns. Their absence from the evidence proves nothing.
LOOSE = frozenset(
    """
    ask asks asked asking tell tells told telling say says said saying suggest suggests suggested suggesting agree
    agrees agreed inform informs informed invite invites invited confirm confirms confirmed warn warns warned
    discuss discusses discussed discussing talk talks talked mention mentions mentioned explain explains explained
    express expresses expressed decide decides decided plan plans planned propose proposes proposed present presents
    presented introduce introduces introduced show shows showed shown demonstrate demonstrates demonstrated describe
    describes described report reports reported note notes noted state states stated reply replies replied respond
    responds responded answer answers answered share shares shared offer offers offered request requests requested
    want wants wanted need needs needed try tries tried seem seems seemed appear appears think thinks thought believe
    believes feel feels felt know knows knew find finds found make makes made use uses used using give gives gave
    go goes went going come comes came see sees saw look looks looked help helps helped reveal reveals revealed admit
    admits admitted remind reminds reminded recommend recommends recommended advise advises advised hope hopes hoped
    wonder wonders wondered check checks checked provide provides provided include includes included
    including conclude concludes concluded focus focuses focused
    eventually later finally initially meanwhile then also however instead currently recently already still soon
    either together rather quite really actually generally typically usually approximately around roughly overall
    respectively especially particularly please thanks thank sure okay ok
    way ways thing things people person someone something everyone everything anyone anything information details
    detail matter situation topic conversation chat discussion message messages time times part parts kind
    kinds type types lot lots number amount regarding concerning related based various several different new other
    following previous current main key here below above
    """.split()
)

_ANTONYM_PAIRS = """
high low; higher lower; highest lowest; increase decrease; increases decreases; increased decreased
increasing decreasing; rise fall; rises falls; rose fell; fast slow; faster slower; fastest slowest
before after; direct indirect; directly indirectly; structured unstructured; supervised unsupervised
success failure; successful unsuccessful; successfully unsuccessfully; succeed fail; succeeded failed
suitable unsuitable; efficient inefficient; efficiently inefficiently; effective ineffective; positive negative
large small; larger smaller; largest smallest; big small; bigger smaller; more less; many few; better worse
best worst; easy hard; easier harder; easy difficult; simple complex; cheap expensive; cheaper pricier
open closed; old new; young old; early late; earlier later; earliest latest; first last; start end; begin finish
accept reject; accepts rejects; accepted rejected; agree disagree; agrees disagrees; like dislike; love hate
happy sad; happy unhappy; win lose; won lost; wins loses; buy sell; bought sold; give take; push pull
remember forget; remembered forgot; include exclude; includes excludes; included excluded; enable disable
enabled disabled; enables disables; add remove; added removed; allow prevent; allowed prevented; allow forbid
appear disappear; inside outside; internal external; upper lower; above below; maximum minimum; max min
linear nonlinear; known unknown; possible impossible; likely unlikely; able unable; stable unstable; valid invalid
available unavailable; certain uncertain; certainty uncertainty; true false; correct incorrect; visible invisible
explicit implicit; explicitly implicitly; always never; everyone nobody; everything nothing; present absent
same different; similar dissimilar; improve worsen; improves worsens; improved worsened; gain loss; profit loss
rich poor; strong weak; stronger weaker; heavy light; hot cold; warm cold; wet dry; day night; morning evening
arrive leave; arrived left; arrive depart; arrival departure; come go; send receive; sent received; borrow lend
pass fail; passed failed; passes fails; passing failing; online offline; inbound outbound; import export
cheap costly; lowest highest; dense sparse; global local; static dynamic; discrete continuous
deterministic stochastic; generative discriminative; generator discriminator; encoder decoder; shallow deep
robust fragile; approve deny; approved denied; approve reject; approved rejected; active inactive
installed uninstalled; install uninstall; safe unsafe; safe dangerous; healthy sick; alive dead; male female
man woman; men women; husband wife; boy girl; brother sister; son daughter; mother father; north south
east west; left right; refund charge; refunded charged; paid unpaid; legal illegal; married single; full empty
sufficient insufficient; complete incomplete; completed pending; public private; online in-person; include omit
correctly incorrectly; necessary unnecessary; relevant irrelevant; consistent inconsistent; regular irregular
expected unexpected; significant insignificant; significantly insignificantly; pre post; on-policy off-policy
online offline; upload download; uploaded downloaded; encrypt decrypt; encrypted decrypted; lock unlock
locked unlocked; allowed denied; permitted forbidden; start stop; started stopped; running stopped; up down
cost savings; costs savings; build eliminate; lack presence; presence absence
improve degrade; improves degrades; strengthen weaken; strengthens weakens; expand shrink; expand contract
simplify complicate; simplifies complicates; accelerate decelerate; maximize minimize; maximise minimise
maximizes minimizes; maximizing minimizing; overestimate underestimate; overestimates underestimates
outperform underperform; outperforms underperforms; superior inferior; majority minority; long short
longer shorter; wide narrow; broad narrow; wider narrower; general specific; coarse fine; asleep awake
together apart; angry calm; polite rude; risky safe; boring exciting; boring interesting; optimistic pessimistic
pleased disappointed; satisfied dissatisfied; allow ban; permit prohibit; begin end; beginning end; reduce increase
reduces increases; reduced increased; reducing increasing; drops rises; dropped rose; gained lost; forward backward
upward downward; question answer; teacher student; parent child; ancient modern; past future; top bottom; front back
online in-person; remote local; cheap pricey; stronger weaker; strongest weakest; dark light; heavier lighter
sooner later; older newer; oldest newest; positive neutral; win draw; agreed refused; agree refuse; accepts declines
accept decline; accepted declined; present past; alone together; single multiple; multiple single; same opposite
encode decode; encoded decoded; encoding decoding; encoder decoder; encrypt decrypt; encrypted decrypted
compress decompress; compression decompression; supervised unsupervised; upstream downstream; maximum minimum
maximize minimize; maximizes minimizes; maximizing minimizing; improve worsen; improved worsened
outperforms underperforms; efficient inefficient; accurate inaccurate; explicit implicit; linear nonlinear
convex nonconvex; synchronous asynchronous; deterministic stochastic; discrete continuous; cooperation competition
cooperative competitive
widen narrow; widened narrowed; widening narrowing; winning losing; beat missed; beats misses; exceeded missed
noisy quiet; included optional; permanent temporary; permanent fixed-term; unanimous split; unanimously narrowly
raise lower; raised lowered; raise cut; raised cut; upgrade downgrade; upgraded downgraded; ahead behind
profitable unprofitable; surplus deficit; inflow outflow; credit debit; credited debited; overpaid underpaid
overdue current; delivered undelivered; shipped unshipped; resolved unresolved; assigned unassigned
billable nonbillable; taxable nonbillable; refundable nonrefundable; mandatory optional; required optional
""".strip()

ANTONYMS: dict[str, frozenset[str]] = {}


def _antonyms() -> None:
    pairs: dict[str, set[str]] = {}
    for item in _ANTONYM_PAIRS.replace("\n", ";").split(";"):
        words = item.split()
        if not words:
            continue
        if len(words) != 2:
            raise ValueError(f"antonym pair must be two words, got {item!r}")
        a, b = words
        pairs.setdefault(a, set()).add(b)
        pairs.setdefault(b, set()).add(a)
    ANTONYMS.update({k: frozenset(v) for k, v in pairs.items()})


_antonyms()

# Prefixes that turn a word into its opposite ("suitable" -> "unsuitable").
NEGATING_PREFIXES = ("un", "in", "im", "il", "ir", "non-", "non", "dis")
# Prefixes that stand for opposites in front of the same stem ("pre-training" / "post-training",
# "overestimates" / "underestimates"), written with or without a hyphen.
OPPOSED_PREFIXES = (("pre", "post"), ("over", "under"), ("inter", "intra"), ("multi", "single"), ("up", "down"),
                    ("max", "min"), ("super", "sub"))

# Closed classes: a member that the evidence does not say, where the evidence says another member of
# the same class, is a substitution ("Friday" where the evidence says "Monday").
_CLOSED = """
weekday: monday tuesday wednesday thursday friday saturday sunday
month: january february march april june july august september october november december
part_of_day: morning afternoon evening night noon midnight tonight
relative_day: today tomorrow yesterday tonight
color: red blue green yellow black white orange purple pink brown grey gray silver gold
direction: north south east west northeast northwest southeast southwest
season: spring summer autumn winter
meal: breakfast brunch lunch dinner supper
drink: beer wine coffee tea juice water cocktail cocktails vodka whisky whiskey champagne milk soda lemonade
place: home office school work gym park restaurant bar cafe cinema hospital airport station hotel library church university beach
vehicle: car bus train plane airplane aeroplane bike bicycle taxi motorcycle boat ship truck tram subway
device: phone laptop computer tablet tv television camera printer
sport: football soccer tennis basketball volleyball baseball hockey golf swimming running cycling
animal: dog cat horse bird fish rabbit hamster mouse parrot
weather: sunny rainy cloudy snowy windy foggy stormy
fruit: apple apples banana bananas orange oranges grape grapes strawberry strawberries lemon lemons
modality: image images text audio video speech visual auditory textual
profession: teacher doctor nurse lawyer engineer manager student driver chef waiter pilot dentist accountant designer developer programmer
food: pizza pasta burger burgers sushi salad cake cookies sandwich soup steak chicken rice noodles bread cheese butter chocolate
room: kitchen bedroom bathroom garage garden basement attic balcony
furniture: bed sofa couch table chair desk closet wardrobe shelf crib
event: party wedding birthday concert meeting conference interview exam test quiz lecture match game
document: report invoice contract presentation essay thesis paper letter email message
subject: math maths physics chemistry biology history geography literature economics
learning_task: classification regression segmentation detection generation translation summarization clustering
clothing: shirt dress jacket coat shoes jeans skirt sweater hat
frequency: daily weekly fortnightly monthly quarterly annually yearly biannually hourly
platform: android ios windows macos linux
relative: mother father mom dad sister brother son daughter wife husband aunt uncle grandma grandpa grandmother grandfather cousin niece nephew boyfriend girlfriend
"""
CLOSED_CLASS: dict[str, str] = {}
for _line in _CLOSED.strip().splitlines():
    _name, _words = _line.split(":", 1)
    for _w in _words.split():
        CLOSED_CLASS.setdefault(_w, _name)

# Status vocabularies: a claim's status word against the status the evidence reports for the same thing.
# Each group lists mutually exclusive states; words in one tuple mean the same state.
STATUS_GROUPS: tuple[tuple[tuple[str, ...], ...], ...] = (
    (
        ("pass", "passes", "passed", "passing", "succeed", "succeeds", "succeeded", "green"),
        ("fail", "fails", "failed", "failing", "errored", "red", "broken"),
    ),
    (
        ("delayed", "late"),
        ("on time", "on-time", "on schedule"),
        ("cancelled", "canceled"),
        ("landed", "arrived"),
        ("departed",),
        ("diverted",),
        ("scheduled", "available"),
    ),
    (
        ("confirmed", "booked", "reserved"),
        ("pending", "unconfirmed", "processing"),
        ("refunded",),
    ),
    (("installed", "present", "found"), ("not installed", "missing", "not found", "absent")),
    (("running", "active", "up"), ("stopped", "inactive", "down", "exited")),
    (("open", "opened"), ("closed", "resolved", "merged")),
    (("paid",), ("unpaid", "due", "overdue")),
)
STATUS_STATE: dict[str, tuple[int, int]] = {}
for _g, _group in enumerate(STATUS_GROUPS):
    for _s, _words in enumerate(_group):
        for _w in _words:
            STATUS_STATE.setdefault(_w, (_g, _s))
STATUS_PATTERN = re.compile(
    r"(?<![\w-])(" + "|".join(sorted((re.escape(w) for w in STATUS_STATE), key=len, reverse=True)) + r")(?![\w-])",
    re.IGNORECASE,
)

# Sentence openers and markers that make a clause reasoning or opinion rather than a fact.
_REASONING_LEADS = (
    r"^\s*(?:so|thus|therefore|hence|consequently|as a result|this means|which means|that means|because|since"
    r"|given that|this suggests|this implies|it follows)\b"
)
# A sentence that opens with a conclusion word: reasoning even when it states an amount ("So the total is $242").
REASONING_LEAD = re.compile(_REASONING_LEADS, re.IGNORECASE)
REASONING = re.compile(
    _REASONING_LEADS + r"|\b(?:therefore|which means|this means|so that|"
    r"implies that|as a result|because of this|in total|altogether|the total|totals?|sums? (?:up )?to|adds? up to)\b",
    re.IGNORECASE,
)
OPINION = re.compile(
    r"\b(?:i (?:think|believe|feel|recommend|suggest|would|'d|guess|hope|prefer)|i'd|in my (?:opinion|view)"
    r"|i would recommend|you (?:should|might|may want|could|can)|we (?:should|recommend|suggest)|let me|let's"
    r"|would you like|do you want|feel free|please|i'll|i will|i can|i'm going to|i am going to|happy to|glad to"
    r"|hope this|probably|perhaps|maybe|arguably|seems?|apparently|likely|it might|it may|it could"
    r"|best|great|excellent|nice|awesome|wonderful|beautiful|interesting|unfortunately|fortunately|sorry"
    r"|thank you|thanks|you'?re welcome|you are welcome|welcome(?= to| back| aboard|[!.,]|$))\b",
    re.IGNORECASE,
)
# Plans and intentions: what the agent will do is not a claim about what is.
INTENT = re.compile(
    r"^\s*(?:thought:\s*)?(?:now\s+|next,?\s+|first,?\s+|then,?\s+)?(?:i'll|i will|i'm going to|i am going to|let me|let's|"
    r"(?:i|we) (?:also |still |first |just )?(?:need|have|want) to|"
    r"i should|we should|we need to|i would|i'd like to|i can|i could|i might|i plan to|to (?:do|fix|verify|check|confirm|proceed)\b)"
    r"|^\s*(?:(?:wait|so|ok|okay|hmm|actually|now|but|and|or),?\s+)?(?:if|whether|unless|assuming)\b"
    r"|^\s*(?:please|kindly|could you|can you|would you|do you|feel free)\b"
    r"|^[^.;:]{0,60},\s*(?:i'll|i will|let me|let's|i need to|i should|we should|i can)\b"
    # An instruction or a step of a plan, not a report: "Modify `__hash__` to use ...", "Keep the cache".
    # A step may open with a sequencing word ("Now run the v2 script", "Then add a test"); "Let `x` be 3" sets
    # up a worked example.
    r"|^\s*(?:thought:\s*)?(?:(?:or|and|otherwise|alternatively|instead|now|next|then|first|finally),?\s+)?"
    r"(?:just\s+)?"
    r"(?:modify|add|remove|change|update|create|run|use|replace|fix|implement|set|keep|make|try|catch|print|wrap"
    r"|install|delete|move|rename|write|call|edit|open|look|search|find|verify|ensure|avoid|consider|let"
    r"|repeat|check|select|choose|enter|click|navigate|apply|review|compare|provide)\b(?![-:])"
    # A suggestion: "A simpler way is to use `X`", "The cleanest fix would be to ...".
    r"|^\s*(?:a|the|one|another)\s+(?:[a-z]+\s+){0,2}(?:way|option|approach|fix|solution|alternative|idea)"
    r"\s+(?:is|would be|could be|might be)\s+to\b"
    # "Easier way: use `X`", "Alternative approach: ...": a comparative lead-in offers an option. ("The fix:"
    # may report what was done, so only these.)
    r"|^\s*(?:(?:an?|the|one|another)\s+)?(?:easier|simpler|better|cleaner|quicker|safer|alternative|another)"
    r"\s+(?:way|option|approach|fix|solution|idea)\s*:"
    # A step narrated in the present: "Now I modify `save` to check `x`", "Next we run the tests".
    r"|^\s*(?:thought:\s*)?(?:now|next|then|first|finally),?\s+(?:i|we)\s+(?:just\s+)?"
    r"(?:modify|add|remove|change|update|create|run|use|replace|fix|implement|set|keep|make|try|write|call|edit"
    r"|open|look|search|find|check|verify|test|apply|install|move|rename|delete)\b",
    re.IGNORECASE,
)
# Modal and conditional wording: a prediction or a hypothesis, not a report of what happened.
HYPOTHETICAL = re.compile(
    r"\b(?:should|would|will|won't|might|may|could|must|if|unless|whether|expect(?:ed|s)?|to see|in order to|ensure|make sure)\b",
    re.IGNORECASE,
)
# A modal that makes the whole sentence a guess or a plan ("this should fix it", "it might be affected").
# A worked example or a hand trace, not a report: "`a` = `b`", "`00` -> 2000", "2080 - 2025 = 55 > 50".
WORKED = re.compile(r"\s(?:==?|->|=>|→)\s")
# "I expect to find it in `src/x.py`" is a prediction too; "as expected, it fails" reports what happened.
GUESS = re.compile(
    r"\b(?:should|might|would|probably|presumably|perhaps|maybe|likely|(?:i|we)(?:'d)? expect|i suspect|i guess"
    # Hedges and what one knows in general ("`X` usually handles `Y`"): no report of what the trace showed.
    # "It seems (that) there are no seats" stays a claim: agents hedge their reports of tool results so.
    r"|or something|(?:seem|seems) (?:to|like)|i assume|assuming|looks like|appears to|usually|typically"
    # What the agent half remembers or believes ("`x_y` or similar", "(I think)"); "I recall seeing `x`" reports.
    r"|i (?:think|believe)|iirc|if i (?:remember|recall)|or similar|as far as i know|afaik"
    # A condition on the whole claim: "`f` is copied (if inherited)", "it stays the last one unless I break"
    # ("it cannot be cancelled unless the airline cancels it" states a rule: still graded).
    r"|(?<=\()(?:if|when|unless|assuming)|unless (?:i|we))\b",
    re.IGNORECASE,
)
# Words that open a non-claim sentence: greetings and questions handled elsewhere.
COURTESY = re.compile(
    r"^\s*(?:(?:hi|hello|hey|dear|thanks|thank you|sure|of course|certainly|absolutely|okay|ok|great)\b[\s,!.]*"
    r"|(?:safe travels|have a (?:great|nice|good|wonderful) (?:day|trip|flight|one)|enjoy your (?:trip|flight|day))\b.*)$",
    re.I,
)


def _hints(pattern: re.Pattern, common: frozenset[str]) -> frozenset[str]:
    """The words any match of `pattern` must contain one of (a cheap set test before the regex)."""
    return frozenset(re.findall(r"[a-z]+", pattern.pattern)) - common


_COMMON = frozenset("i in my you we it to am do a an the of s d ll re m t that this is are".split())
REASONING_HINTS = _hints(REASONING, _COMMON)
OPINION_HINTS = _hints(OPINION, _COMMON)
GUESS_HINTS = _hints(GUESS, _COMMON)  # each inflection GUESS matches is written out in it ("seem|seems")
