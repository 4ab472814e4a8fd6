"""Action claims in agent output: "I created `src/parser.py`", "all tests pass", "installed requests".

Detection is data: `CLAIM_PATTERNS` is a table of RE2 patterns, each naming
the claim kind and the slot that holds its subject (a path, a package, a
test target). Only first-person reports of finished work and plain
statements of a finished state count. Plans ("I will create"), questions,
conditionals ("if the tests pass"), hedged expectations ("to make sure the
tests pass"), quoted text, blockquotes and code blocks are not claims: code
and quotes are blanked out before matching (offsets stay those of the
original text), and the clause before a match is checked for markers of
intent or condition.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import re2

from ..core.patterns import _CharOffsets, compile_pattern, picker, set_matches

# Claim kinds.
FILE_CREATE, FILE_WRITE, FILE_EDIT, FILE_DELETE = "file_create", "file_write", "file_edit", "file_delete"
TESTS, TESTS_RUN, INSTALL, MIGRATION, COMMIT, PUSH = "tests", "tests_run", "install", "migration", "commit", "push"
COMMAND = "command"  # structured `command-executed` claims
FILE_CLAIMS = frozenset({FILE_CREATE, FILE_WRITE, FILE_EDIT, FILE_DELETE})
KINDS = (FILE_CREATE, FILE_WRITE, FILE_EDIT, FILE_DELETE, TESTS, TESTS_RUN, INSTALL, MIGRATION, COMMIT, PUSH, COMMAND)


@dataclass(frozen=True, slots=True)
class ActionClaim:
    """One claim that an action was done. `outcome` is "pass"/"fail" for test claims, else None."""

    kind: str
    subject: str | None
    offset: int
    text: str
    pattern_id: str
    outcome: str | None = None
    sha256: str | None = None  # structured file claims: hash of the written content
    anchor: str | None = None  # structured edit claims: text the edit put in place
    exit_code: int | None = None  # structured command claims


@dataclass(frozen=True, slots=True)
class ClaimPattern:
    """One row of the claim table: a pattern, the kind it claims and where its subject is.

    `kind` may be a verb lookup (`verb`): the named group `verb` picks the kind
    from `VERB_KINDS`. `slot` names the group holding the subject. Test claims
    take their outcome from the group `outcome` (negated by the group `neg`).
    """

    id: str
    kind: str
    pattern: str
    slot: str | None = None
    case_insensitive: bool = True
    outcome: str | None = None
    listed: bool = False  # the slot may continue as a list: "`a.py` and `b.py`"


VERB_KINDS = {
    **dict.fromkeys(("created", "generated", "scaffolded", "added", "made", "touched"), FILE_CREATE),
    **dict.fromkeys(("wrote", "written", "saved", "rewrote", "rewritten", "overwrote", "overwritten"), FILE_WRITE),
    **dict.fromkeys(
        ("updated", "modified", "edited", "changed", "patched", "fixed", "refactored", "adjusted", "amended",
         "tweaked", "corrected", "inserted", "implemented", "replaced", "extended", "renamed"),
        FILE_EDIT,
    ),
    **dict.fromkeys(("deleted", "removed", "erased", "cleaned up"), FILE_DELETE),
}
_VERBS = "|".join(sorted(VERB_KINDS, key=len, reverse=True))

# --- fragments (RE2 syntax) --------------------------------------------------------------------
_I = r"\b(?:I|we)(?:'ve|’ve|\s+have|\s+had)?(?:\s+(?:also|just|already|successfully|now|then|finally|first|manually|additionally))?"
# "I ran", "I've run", "we re-ran" (a bare "I run" is a plan or a narration of the next step).
_RAN = (
    r"(?:" + _I + r"\s+(?:ran|re-?ran|executed)|\b(?:I|we)(?:'ve|’ve|\s+have|\s+had)(?:\s+(?:also|just|now|already))?"
    r"\s+(?:run|re-?run))"
)
_EXT = (
    r"py|pyi|js|mjs|cjs|ts|tsx|jsx|json|yaml|yml|toml|md|rst|txt|cfg|ini|conf|sh|bash|go|rs|java|kt|rb|php|c|h|cc"
    r"|cpp|hpp|cs|swift|html|css|scss|sql|xml|lock|env|gradle|vue|svelte|ipynb|csv|proto|tf|mod|sum|lua|r|scala"
)
_BARE_NAMES = r"Makefile|Dockerfile|Containerfile|Procfile|Gemfile|Rakefile|Justfile|LICENSE|README"
_PATH = (
    r"(?P<path>`[^`\s]{0,200}/[^`\s]{0,200}`|`[^`\s]{1,200}\.(?:" + _EXT + r")`|`(?:" + _BARE_NAMES + r")`"
    r"|\"[^\"\s]{1,200}\.(?:" + _EXT + r")\"|(?:[\w.~\-]+/)*[\w\-][\w.\-]*\.(?:" + _EXT + r")\b"
    r"|(?:[\w.~\-]+/)+(?:" + _BARE_NAMES + r")\b|(?:[\w.~\-]+/)+[\w.\-]+/)"
)
# Up to eight words inside one clause between the verb and the path (a backticked symbol counts as a word).
_GAP = r"(?:(?:`[^`\n]{1,80}`|[^\s,;:!?`\"]*[^\s.,;:!?`\"])\s+){0,8}?"
_PKG = r"(?P<package>`[^`\n]{1,80}`|[A-Za-z0-9@][\w.\-\[\]/@=<>]{0,79})"
_TESTS_NOUN = r"(?:tests?|test suite|test cases?|specs?|unit tests?|test run)"
_TESTS_SUBJECT = (
    r"(?:(?:all|the|both|my|our|these|those|existing|relevant|remaining|new|updated|unit|integration|e2e|regression"
    r"|other|\d+)\s+){0,3}(?:[\w\-`]+\s+)?" + _TESTS_NOUN
)
_PASS_FAIL = (
    r"(?P<neg>(?:do|does|did)(?:n't|n’t|\s+not)\s+|(?:are|is)(?:n't|n’t|\s+not)\s+|still\s+)?"
    r"(?P<outcome>pass(?:ed|es)?|succeed(?:ed|s)?|(?:are|is|were)\s+(?:now\s+)?(?:passing|green|failing)"
    r"|ran\s+successfully|fail(?:ed|s)?|broke)\b"
)

CLAIM_PATTERNS: tuple[ClaimPattern, ...] = (
    ClaimPattern("file.first_person", "verb", _I + r"\s+(?P<verb>" + _VERBS + r")\s+" + _GAP + _PATH, "path", listed=True),
    ClaimPattern(  # a name that is not path-like, made one by its noun: "I created the directory `reproduce_app`"
        "file.named", "verb",
        _I + r"\s+(?P<verb>" + _VERBS + r")\s+(?:(?:the|a|an|new|temporary|test)\s+){0,3}"
        r"(?:directory|folder|dir|file|script|module|package)\s+(?P<path>`[^`\s]{1,200}`)",
        "path",
    ),
    ClaimPattern(  # "I deleted `reproduce_app` directory"
        "file.named_after", "verb",
        _I + r"\s+(?P<verb>" + _VERBS + r")\s+(?:the\s+)?(?P<path>`[^`\s]{1,200}`)\s+(?:directory|folder|dir)\b",
        "path",
    ),
    ClaimPattern(
        "file.passive", "verb",
        _PATH + r"\s+(?:was|were|has\s+been|have\s+been|is\s+now|got)\s+(?:also\s+|now\s+|successfully\s+)?"
        r"(?P<verb>" + _VERBS + r")\b",
        "path",
    ),
    ClaimPattern(  # report lists: "- Modified `BaseModelFormSet` in `django/forms/models.py`"
        "file.report_item", "verb",
        r"(?m)^[ \t]*(?:[-*•+][ \t]+|\d+[.)][ \t]+)?(?:\*\*)?(?P<verb>Created|Modified|Updated|Edited|Wrote|Deleted"
        r"|Removed|Added|Changed|Fixed|Patched|Rewrote|Refactored)(?:\*\*)?[ \t]+" + _GAP + _PATH,
        "path", case_insensitive=False, listed=True,
    ),
    ClaimPattern(
        "tests.ran_and_outcome", TESTS,
        _RAN + r"\s+(?P<target>" + _TESTS_SUBJECT + r")(?:\s+[\w`./\-:]+){0,4}?"
        r"\s*(?:,\s*)?(?:and|—|-)\s+(?:they|it|all|everything|all of them|both)\s+(?:(?:now|all)\s+)?" + _PASS_FAIL,
        "target",
    ),
    ClaimPattern(
        "tests.outcome", TESTS,
        r"(?P<target>\b" + _TESTS_SUBJECT + r")\s+(?:(?:now|all|also|both)\s+)?" + _PASS_FAIL, "target",
    ),
    ClaimPattern(  # "`test_domain_py.py` passed", "`tests/test_api.py::test_x` fails"
        "tests.named_outcome", TESTS,
        r"(?P<target>`[^`\n]{0,120}test[^`\n]{0,120}`)\s+(?:(?:now|all|also)\s+)?" + _PASS_FAIL, "target",
    ),
    ClaimPattern(
        "tests.ran", TESTS_RUN,
        _RAN + r"\s+(?P<target>(?:the|all(?:\s+the)?|my|our|both)\s+(?:[\w\-`]+\s+){0,2}"
        + _TESTS_NOUN + r")\b",
        "target",
    ),
    ClaimPattern("install.first_person", INSTALL, _I + r"\s+(?:re)?installed\s+(?:the\s+)?" + _PKG, "package", listed=True),
    ClaimPattern(
        "install.passive", INSTALL,
        _PKG + r"\s+(?:was|were|has\s+been|have\s+been|is\s+now|got)\s+(?:successfully\s+)?installed\b", "package",
    ),
    ClaimPattern(
        "migration.passive", MIGRATION,
        r"\b(?:the\s+)?(?:new\s+|pending\s+|database\s+|db\s+)*migrations?(?:\s+`[^`\n]{1,80}`)?\s+"
        r"(?:was|were|has\s+been|have\s+been|got|is\s+now|are\s+now)\s+(?:successfully\s+)?(?:applied|run)\b",
    ),
    ClaimPattern(
        "migration.first_person", MIGRATION,
        _I + r"\s+(?:applied|ran|run)\s+(?:the\s+|all\s+(?:the\s+)?)?(?:new\s+|pending\s+|database\s+|db\s+)*migrations?\b"
        r"|" + _I + r"\s+migrated\s+the\s+(?:database|db|schema)\b",
    ),
    ClaimPattern("git.commit_push", COMMIT, _I + r"\s+committed\s+and\s+pushed\b|\bcommitted\s+and\s+pushed\b"),
    ClaimPattern(
        "git.commit", COMMIT,
        _I + r"\s+committed\b|\b(?:the\s+|my\s+|all\s+)?changes\s+(?:were|have\s+been|are\s+now|are)\s+committed\b",
    ),
    ClaimPattern(
        "git.push", PUSH,
        _I + r"\s+pushed\b|\b(?:the\s+)?(?:changes|commits?|branch)\s+(?:were|have\s+been|has\s+been)\s+pushed\b",
    ),
)

# Words before a match, in the same clause, that make it a plan, a condition, a question or a hope.
_NOT_A_REPORT = re.compile(
    r"\b(?:will|shall|going\s+to|gonna|need\s+to|needs\s+to|have\s+to|has\s+to|should|would|could|might|may|must"
    r"|can|cannot|let\s+me|let's|plan\s+to|want\s+to|try\s+to|trying\s+to|tried\s+to|about\s+to|intend\s+to|if"
    r"|unless|whether|once|expect|expecting|hope|hopefully|ensure|make\s+sure|verify|check|confirm|to\s+see"
    r"|so\s+that|until|before|instead\s+of|rather\s+than|assume|assuming|suppose|unless|why|how|when\s+will"
    r"|please|do\s+not|don't|don’t|never|whenever|in\s+case|as\s+soon\s+as|after\s+you|you)\b|'ll\b|’ll\b",
    re.I,
)
_CLAUSE_START = re.compile(r"(?:[.!?;:](?=\s)|\n|\band\s+then\b|\bbut\b|,\s)")
_SENTENCE_END = re.compile(r"[.!?](?=\s|$)|\n")
_CONDITION_AFTER = re.compile(r"^\s*,?\s*(?:if|unless|once|provided|as\s+long\s+as)\b", re.I)
_FENCE = re.compile(r"^[ \t]*(```|~~~)[^\n]*\n.*?(?:^[ \t]*\1[ \t]*$|\Z)", re.M | re.S)
_BLOCKQUOTE = re.compile(r"^[ \t]*>[^\n]*", re.M)
_QUOTED = re.compile(r"[\"“][^\"”\s][^\"”\n]{0,400}?\s[^\"”\n]{0,400}?\s[^\"”\n]{0,400}?[\"”]")  # three or more words
_GAP_STOP = re.compile(r"\b(?:which|that|who|where|whose|because|since|so|but|while|is|are|was|were|if|when)\b", re.I)
_INSTRUMENT = re.compile(r"\b(?:with|using|via|through|by\s+running|by)\s*$", re.I)
_PREPOSITION = re.compile(r"\b(?:in|to|into|from|inside|within|of|at)\s*$|\b(?:in|to|into|from|inside|within)\s", re.I)
_LIST_NEXT = re.compile(r"\s*(?:,\s*(?:and\s+)?|\s+and\s+|\s*&\s*)")
_NOTHING = frozenset({"nothing", "none", "no", "neither", "nor", "never"})
# Words after "and" that start the next clause ("I installed requests and I committed"), not a listed subject.
_CLAUSE_OPENERS = frozenset({"i", "we", "you", "they", "he", "she", "it", "then", "also", "finally"})
_GENERIC_PACKAGES = frozenset(
    {"the", "a", "an", "all", "any", "it", "them", "dependencies", "deps", "requirements", "packages", "package",
     "everything", "this", "that", "these", "those", "missing", "required", "needed", "project"}
)


class ClaimDetector:
    """The claim table compiled once (RE2: linear time, no backtracking)."""

    def __init__(self, patterns: tuple[ClaimPattern, ...] = CLAIM_PATTERNS) -> None:
        self._compiled = []
        for spec in patterns:
            _, compiled = compile_pattern(
                spec.pattern, where=f"claim pattern {spec.id}", case_insensitive=spec.case_insensitive, trusted=True
            )
            self._compiled.append((spec, compiled))
        # One pass over the text says which rows match at all; only those are run for their groups. A filter, not
        # a set: on real agent messages a set's automaton kept building states (1.3 ms a 2,000-character message
        # against 0.28 ms, same answers; see core.patterns._compile_filter).
        self._set = picker([f"(?i){spec.pattern}" if spec.case_insensitive else spec.pattern for spec in patterns])
        self._path = re2.compile(_PATH)
        self._package = re2.compile(_PKG)

    def detect(self, text: str, max_claims: int = 50) -> list[ActionClaim]:
        """Every action claim in `text`, in text order; overlapping matches keep the earliest table row."""
        if not text:
            return []
        # RE2 runs on the UTF-8 bytes, encoded once (the binding's str path re-encodes on every call);
        # offsets go back to characters only when the text is not ASCII. Text no row matches is done
        # with before masking: a match that appears only once code is blanked straddles a code block.
        if not set_matches(self._set, text.encode("utf-8", "surrogatepass")):
            return []
        masked = mask_non_prose(text)
        data = masked.encode("utf-8", "surrogatepass")
        to_char = None if len(data) == len(masked) else _CharOffsets(masked)
        found: list[ActionClaim] = []
        taken: list[tuple[int, int]] = []
        for index in sorted(set_matches(self._set, data)):
            spec, compiled = self._compiled[index]
            for raw in compiled.finditer(data):
                match = _Match(raw, masked, to_char)
                start, end = match.start(), match.end()
                if any(start < e and s < end for s, e in taken) or not _is_report(masked, start, end):
                    continue
                claims = self._claims(spec, match, masked)
                if claims:
                    taken.append((start, end))
                    found.extend(claims)
            if len(found) >= max_claims:
                break
        found.sort(key=lambda c: c.offset)
        return found[:max_claims]

    def _claims(self, spec: ClaimPattern, match, masked: str) -> list[ActionClaim]:
        text = match.group(0)
        start = match.start()
        if spec.id == "git.commit_push":
            return [ActionClaim(COMMIT, None, start, text, spec.id), ActionClaim(PUSH, None, start, text, spec.id)]
        kind = VERB_KINDS[match.group("verb").lower()] if spec.kind == "verb" else spec.kind
        if spec.kind == "verb" and spec.id != "file.passive":
            gap = masked[match.end("verb") : match.start("path")]
            if _GAP_STOP.search(gap) or _INSTRUMENT.search(gap):
                # "I added `os.getcwd()` which is `/testbed`": the path belongs to another clause;
                # "I modified the file with `apply_fix.py`": the path is the tool, not the file changed.
                return []
            if kind in (FILE_CREATE, FILE_DELETE) and _PREPOSITION.search(gap):
                kind = FILE_EDIT  # "removed a blank line in `x.py`", "added a test to `y.py`": the file was edited
        outcome = _outcome(match) if kind == TESTS else None
        subject = _clean(match.group(spec.slot)) if spec.slot else None
        if spec.slot == "package" and subject and subject.lower() in _NOTHING:
            return []  # "nothing was installed" claims no action
        if spec.slot == "package" and subject and subject.lower() in _GENERIC_PACKAGES:
            subject = None
        claims = [ActionClaim(kind, subject, start, text, spec.id, outcome)]
        if spec.listed:
            claims.extend(ActionClaim(kind, s, start, text, spec.id) for s in self._more(spec, masked, match.end()))
        return claims

    def _more(self, spec: ClaimPattern, masked: str, position: int) -> list[str]:
        """Further subjects listed after the first: "`a.py`, `b.py` and `c.py`"."""
        slot = self._path if spec.slot == "path" else self._package
        out = []
        while len(out) < 10:
            joint = _LIST_NEXT.match(masked, position)
            if joint is None:
                break
            nxt = slot.match(masked, joint.end())
            if nxt is None or nxt.group(0).lower() in _CLAUSE_OPENERS:
                break
            out.append(_clean(nxt.group(0)))
            position = nxt.end()
        return out


class _Match:
    """A match found on the UTF-8 bytes, read in character offsets of the text."""

    __slots__ = ("_conv", "_raw", "_text")

    def __init__(self, raw, text: str, to_char) -> None:
        self._raw, self._text, self._conv = raw, text, to_char

    def _span(self, group: int | str = 0) -> tuple[int, int]:
        index = group if isinstance(group, int) else self._raw.re.groupindex[group]
        start, end = self._raw.span(index)
        if start < 0 or self._conv is None:
            return start, end
        return self._conv(start), self._conv(end)

    def start(self, group: int | str = 0) -> int:
        return self._span(group)[0]

    def end(self, group: int | str = 0) -> int:
        return self._span(group)[1]

    def group(self, group: int | str = 0) -> str | None:
        start, end = self._span(group)
        return None if start < 0 else self._text[start:end]


def _outcome(match) -> str:
    word = match.group("outcome").lower()
    failing = "fail" in word or word == "broke"
    if match.group("neg") and not match.group("neg").lower().startswith("still"):
        failing = not failing
    return "fail" if failing else "pass"


def _clean(value: str | None) -> str | None:
    if value is None:
        return None
    return value.strip().strip("`\"'“”").rstrip(".,;:") or None


def _is_report(masked: str, start: int, end: int) -> bool:
    """Not a plan, condition, question or hope: judged on the clause before and the sentence around it."""
    window_start = max(0, start - 200)
    before = masked[window_start:start]
    cut = 0
    for m in _CLAUSE_START.finditer(before):
        cut = m.end()
    if _NOT_A_REPORT.search(before[cut:]):
        return False
    after = _SENTENCE_END.search(masked, end)
    stop = after.start() if after else len(masked)
    if after is not None and masked[after.start()] == "?":
        return False
    return _CONDITION_AFTER.match(masked[end:stop]) is None


def mask_non_prose(text: str) -> str:
    """Code blocks, blockquotes and quoted passages blanked with spaces (same length, so offsets hold)."""
    def blank(m: re.Match) -> str:
        return "\n".join(" " * len(line) for line in m.group(0).split("\n"))

    if "```" in text or "~~~" in text:
        text = _FENCE.sub(blank, text)
    if ">" in text:
        text = _BLOCKQUOTE.sub(blank, text)
    if '"' in text or "“" in text:
        text = _QUOTED.sub(blank, text)
    return text
