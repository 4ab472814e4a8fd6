"""Regex fragments shared by the builtin detector families (RE2 syntax).

Builtin patterns match the predicate and, where the subject follows a
trigger, a bounded window after it. `\\p{L}` is used instead of `\\w`
because RE2's `\\w` is ASCII-only.
"""

# Adverbs that may stand around a copula's negation without changing what is claimed:
# "is probably not installed", "is also present", "is indeed defined". Not "usually": "a new test
# file is usually allowed" is a general statement, like "usually" before the subject.
ADVERB = (
    r"(?:currently|actually|really|even|yet|properly|correctly|still|fully|successfully|already|now|definitely"
    r"|clearly|apparently|probably|likely|completely|totally|also|indeed|in\s+fact|certainly|possibly|perhaps"
    r"|maybe|always|mostly|partially|partly|only|just|simply|entirely|presumably|obviously|again"
    r"|correctly|automatically|officially|technically|fundamentally|genuinely|temporarily|permanently)"
)

# What stands between "has" and "been": "has already been applied", "have all been cancelled".
PERFECT_ADVERB = (
    r"(?:already|now|just|also|all|both|since|finally|recently|ever|actually|probably|likely|apparently|indeed"
    r"|successfully|each|still|definitely|clearly|correctly|properly|automatically)"
)

# A copula, optionally modal or hedged, optionally negated: "is", "isn't",
# "has not been", "might not be", "doesn't seem to be", "is no longer".
_BE = r"(?:is|are|was|were|'s|’s|'re|’re)(?:n't|n’t)?"
# "has already been", "have all been", "has since been": an adverb between the auxiliary and "been".
_PERFECT = rf"(?:has|have|had)(?:n't|n’t|\s+not|\s+never)?(?:\s+{PERFECT_ADVERB})?\s+been"
_HEDGED_BE = (
    # "might still be loading", "may already be installed", "may now be inside the menu": a hedge's adverb before "be".
    r"(?:might|may|could|must|can't|can’t|cannot)(?:\s+not)?(?:\s+(?:still|already|also|now|well|actually))?\s+be"
    r"|(?:seems?|appears?|looks?|looked)(?:\s+to\s+be)?"
    r"|(?:does|do|did)(?:n't|n’t|\s+not)\s+(?:seem|appear)\s+to\s+be"
)
_COPULA_TAIL = (
    rf"(?:\s+{ADVERB})?"  # "is probably not", "is also"
    r"(?:\s+(?:not|no\s+longer|never|still\s+not))?"
    rf"(?:\s+{ADVERB})?)"
)
COPULA = rf"(?P<cop>(?:{_BE}|{_PERFECT}|{_HEDGED_BE}){_COPULA_TAIL}"
# The same without the perfect ("has been"): for a participle that says what an action left when perfect.
COPULA_NOW = rf"(?P<cop>(?:{_BE}|{_HEDGED_BE}){_COPULA_TAIL}"

# Emphasis a state may be written in after its copula: "is **Ready**", "is *Authorized*", "is now **on**".
EMPH = r"(?:\*\*?|_)?"

# A word of a name or path: letters, digits and the punctuation names use.
WORD = r"[\p{L}\p{N}_][\p{L}\p{N}_.@/+#:\-]*"
# Also a value in bold, as assistants write what a thing was set or switched to: "switched to **Unlimited Plus**".
QUOTED = r"(?:\"[^\"\n]{1,80}\"|“[^”\n]{1,80}”|`[^`\n]{1,80}`|'[^'\n]{1,80}'|\*\*[^*\n]{1,80}\*\*)"
# Up to five words or quoted phrases after a trigger; trimmed in Python.
AFTER = rf"(?P<subject>(?:{QUOTED}|{WORD})(?:[ \t]+(?:{QUOTED}|{WORD})){{0,4}})"
# How the pattern engine runs a pattern that ends with AFTER: the head takes the first word,
# then up to four steps, one anchored search each (the same matches; see patterns._split_after).
AFTER_HEAD = rf"(?P<subject>(?:{QUOTED}|{WORD}))"
AFTER_STEP = rf"[ \t]+(?:{QUOTED}|{WORD})"
# The same without bold: for what a screen shows, where a bold value is read out as a value ("shows **-$0.00**").
_QUOTED_PLAIN = r"(?:\"[^\"\n]{1,80}\"|“[^”\n]{1,80}”|`[^`\n]{1,80}`|'[^'\n]{1,80}')"
AFTER_PLAIN = rf"(?P<subject>(?:{_QUOTED_PLAIN}|{WORD})(?:[ \t]+(?:{_QUOTED_PLAIN}|{WORD})){{0,4}})"
# Each words-after window with the head and step the engine runs it as.
AFTER_FORMS = (
    (AFTER, AFTER_HEAD, AFTER_STEP),
    (AFTER_PLAIN, rf"(?P<subject>(?:{_QUOTED_PLAIN}|{WORD}))", rf"[ \t]+(?:{_QUOTED_PLAIN}|{WORD})"),
)
# A person's or project's name: capitalised words, or quoted. Case-sensitive.
NAME = (
    r"(?P<name>\"[^\"\n]{1,60}\"|“[^”\n]{1,60}”|'[^'\n]{1,60}'"
    # A title or an initial before the name: "Dr. Okafor", "Mr. Hoffmann", "R. Gomez".
    r"|(?:(?:Dr|Mr|Mrs|Ms|Mx|Prof)\.?[ \t]+|\p{Lu}\.[ \t]+)?\p{Lu}[\p{L}\p{M}'’\-]*(?:[ \t]+\p{Lu}[\p{L}\p{M}'’\-]*){0,2})"
)
NEGATION = r"\b(?:not|never|no longer|cannot)\b|n't|n’t"

# A negated auxiliary before what a search or an attempt brought: "did not yield", "has not returned", "doesn't seem to
# produce". The objects decide which detector it is (no results found: system_state.no_results; not the desired
# results: operational_status.no_yield).
NOT_YIELDED = (
    r"\b(?P<cop>(?:did|does|do|has|have|had)(?:n't|n’t|\s+not)|(?:seems?|appears?)\s+to\s+have\s+not)\s+"
    r"(?:(?:seem|appear)\s+to\s+)?"
)
