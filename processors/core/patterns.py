"""Detector specs and the pattern engine that runs them safely and fast.

Detectors are data: a `DetectorSpec` names a category, a few regexes and how
to turn a match into a claim. Builtin families and user-defined detectors
share this one type.

Patterns run on RE2 (linear time, so no catastrophic backtracking) whenever
RE2 can compile them. A picker tells which patterns match at all (`re2.Set`s
over the patterns that combine well in one, RE2's FilteredRE2 over the rest);
only those are run for their groups.
A user pattern RE2 cannot compile (lookaround, backreferences) runs on the
`regex` module with a per-run timeout, and is rejected at load time if its
structure can backtrack catastrophically.
"""

from __future__ import annotations

import logging
import re
import threading
from bisect import bisect_right
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import NamedTuple

import re2
import regex

from .budget import US_PER_BYTE_SCANNED, Budget

logger = logging.getLogger(__name__)

MAX_PATTERN_LENGTH = 500
_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.log_errors = False  # RE2 would print parse errors to stderr; we report them ourselves
# Builtin patterns get more room for their automata. A few (`\p{L}` classes under (?i) make
# programs of 30,000+ instructions) leave RE2's DFA too little of the 8 MiB default: it runs
# out of memory mid-search and RE2 falls back to its NFA, five to eight times slower on the
# same text. The budget is a cap, filled only by states a search visits; results are the same
# either way. User patterns keep the default, so which engine compiles them does not change.
_RE2_TRUSTED_OPTIONS = re2.Options()
_RE2_TRUSTED_OPTIONS.log_errors = False
_RE2_TRUSTED_OPTIONS.max_mem = 64 << 20


def set_matches(rset, text: str | bytes) -> list[int]:
    """Indices of the patterns of an `re2.Set`, `re2.Filter` or `_SplitPicker` that match (in no set order)."""
    if type(rset) is _SplitPicker:
        return rset.match(text if type(text) is bytes else text.encode("utf-8", "surrogatepass"))
    if type(rset) is re2.Filter:
        # Exact: the patterns whose literal atoms occur in the text, each then run by RE2 itself.
        return rset._filter.Match(text if type(text) is bytes else text.encode("utf-8", "surrogatepass"), False) or []
    if type(text) is bytes:
        inner = getattr(rset, "_set", None)  # the wrapper's own Match only re-checks the type
        if inner is not None:
            return inner.Match(text) or []
    return rset.Match(text) or []


class PatternError(ValueError):
    """A pattern was rejected at load time; the message names where it came from."""


@dataclass(frozen=True, slots=True)
class DetectorSpec:
    """One claim detector: the same shape for builtin and custom detectors.

    `assertion` is a template: `{not_}` expands to ``not_`` for a negative
    claim and any `{group}` to the lowercased text of that named group.
    The claim is negative when `negative` is true, or when the text of
    `negation_group` holds a negation ("isn't", "not", "no longer").

    Where the subject comes from, in order: `fixed_subject`; the noun phrase
    just before the match (`subject_before`, builtins); `name_group` for
    entity names; else `subject_group` (a named group, or the first capture
    group when the pattern has no group called ``subject``).
    """

    id: str
    category: str
    patterns: tuple[str, ...]
    assertion: str
    subject_group: str | None = "subject"
    subject_before: bool = False
    # Also take the phrase before `subject_includes_match_group` as part of the subject.
    subject_includes_match_group: str | None = None
    # The phrase before the match is a role/owner ("X doesn't support Y").
    role_before: bool = False
    negative: bool = False
    negation_group: str | None = None
    confidence: float = 0.8
    name_group: str | None = None
    family: str | None = None  # builtinDetectors.<family> switch; None for custom detectors
    case_insensitive: bool = True
    fixed_subject: str | None = None
    # When two claims overlap, the higher priority (more specific) detector wins.
    priority: int = 1
    builtin: bool = True
    # "I", "we" and "you" may be the subject ("you are eligible for a refund", "we cannot use
    # Docker here"): they name the agent or the user, not an unknown referent.
    person_subjects: bool = False
    # A match followed by this (Python regex, matched at the end of the match) is not a
    # claim: "the test fails to ..." describes behaviour, "the test fails." an outcome.
    reject_after: str | None = None
    # Not a claim either when the text just before the match ends with this (Python regex):
    # "would previously fail" is hypothetical.
    reject_before: str | None = None
    # Nor when the subject matches this (Python regex): "you have saved ...".
    reject_subject: str | None = None
    # Nor when the text of the `state` group matches this whole (Python regex): for detectors whose
    # state is any word ("the banner is orange"), the words that are no state ("is a", "is about").
    reject_state: str | None = None
    # States that, said in the present tense of a `backticked` code subject, narrate what code
    # does ("`xa` is created", "`f` is opened") rather than report a state: regex or None.
    code_narration: str | None = None
    # The subject is what the agent says it cannot do ("access the billing records"): verbs
    # and their objects, so the noun idioms of "there is no X" ("no access", "no information")
    # do not apply; only idiomatic verbs ("I can't stress enough", "I can't imagine") do.
    action_subject: bool = False
    # Sentences each pattern matches: the engine runs every pattern on them at load, so
    # RE2 builds its automata then and not on the first real use (a test checks they match).
    examples: tuple[str, ...] = ()


class Group(NamedTuple):
    """One named group of a match. A tuple: built for every group of every match, and a
    tuple is several times cheaper to make than a frozen dataclass."""

    start: int
    end: int
    text: str


class RawMatch(NamedTuple):
    """One regex match, engine-neutral."""

    spec: DetectorSpec
    start: int
    end: int
    text: str
    groups: dict[str, Group]


@dataclass(slots=True)
class _Compiled:
    spec: DetectorSpec
    source: str
    engine: str  # "re2" | "regex"
    pattern: object
    names: dict[str, int] = field(default_factory=dict)
    # (group name, index) pairs read from every match, "subject" defaulting to group 1.
    group_slots: tuple[tuple[str, int], ...] = ()
    # A builtin pattern that ends with the words-after-a-trigger window (`AFTER`: up to five
    # words or quotes) runs as its head, which stops after the first word, and `extend` adds the
    # next up to four, one anchored search each (see `_split_after`). The source the set runs.
    extend: object | None = None
    extend_group: int = 0
    set_source: str = ""
    # The binding's RE2 objects of `pattern` and `extend`, called directly (see `_run_re2`).
    regexp: object | None = None
    step: object | None = None
    # A builtin pattern with its Unicode classes widened (`widened`), groups and all: a smaller
    # program, read first; a match of it that is all ASCII is the pattern's own (see `_run_re2`).
    wide: object | None = None


_SET_OPTIONS = re2.Options()
_SET_OPTIONS.log_errors = False
_SET_OPTIONS.max_mem = 64 << 20  # the builtin set needs more than RE2's 8 MiB default


def _compile_filter(sources: list[str]) -> re2.Filter | None:
    """One `re2.Filter` (RE2's FilteredRE2) over `sources`, or None when RE2 cannot build one.

    It answers what a set answers, which patterns match somewhere, but it first looks for the
    literal words each pattern needs (a small automaton over plain strings) and runs only the
    patterns whose words occur, each with an automaton of its own. A set over all builtin patterns
    is one automaton whose states are combinations of them: on text it has not seen it keeps building
    states and overflows its memory, and on real agent messages it cost ~2.4 ms a message where the
    filter takes ~0.14 ms (measured 2026-11-29, 1,500 messages of five corpora, same answers).
    """
    built = re2.Filter()
    try:
        for source in sources:
            built.Add(source, _SET_OPTIONS)
        built.Compile()
    except re2.error:
        return None
    return built


class _SplitPicker:
    r"""Sets over some patterns and the filter over the rest: the same answers as one set over all.

    The filter runs each candidate with its own automaton. Each run is cheap alone (4-8 us on
    2,000 characters), but a text goes through ~80-100 of them in turn and finds none in the
    CPU's caches: 15-50 us a pattern. One set over all builtin patterns reads a text in one pass,
    but on new text its automaton, whose states are combinations of patterns, keeps building
    states. Between the two, sets over the patterns that combine well:

    - those the filter cannot filter (no literal word of three characters: the copula patterns
      start at "is" or "'s"): it would run them on every text anyway;
    - those that start at a word boundary (`\b`): their threads begin at a word and most die
      within a few characters, unless the word is one of their triggers, so few combine. The
      patterns that start at any sentence, quote or backtick and then read any word keep threads
      alive word after word; they stay with the filter.

    The second kind go in sets of at most `_SET_SIZE`, in the engine's order (a detector's patterns
    side by side). Measured 2026-11-29 (bench_validate --against the filter alone): see `docs/architecture.md`.
    """

    __slots__ = ("_filter", "_from_filter", "_sets")

    def __init__(self, sets: list[tuple[list[int], object]], rfilter, from_filter: list[int]) -> None:
        self._sets = [(ids, rset._set) for ids, rset in sets]
        self._filter = rfilter._filter if rfilter is not None else None
        self._from_filter = from_filter

    def match(self, data: bytes) -> list[int]:
        hits: list[int] = []
        for ids, rset in self._sets:
            found = rset.Match(data)
            if found:
                hits.extend(ids[i] for i in found)
        if self._filter is not None:
            found = self._filter.Match(data, False)
            if found:
                from_filter = self._from_filter
                hits.extend(from_filter[i] for i in found)
        return hits


# Patterns a set of `_SplitPicker` holds at most: fewer sets read faster when their automata are
# built, smaller ones build fewer states on new text. Validating 2,000-character real windows read
# first, against the filter alone: sets of ~45 0.92 median, 1.02-1.07 p99; of ~30 0.91-0.93 median,
# 0.89-0.97 p99 (generated text: 0.55-0.59 with ~45, 0.60-0.61 with ~30).
_SET_SIZE = 32
_LEADING_FLAGS = re.compile(r"(?:\(\?[a-zA-Z]+\))*")


def _starts_at_word_boundary(source: str) -> bool:
    return source.startswith(r"\b", _LEADING_FLAGS.match(source).end())


def _compile_picker(sources: list[str]) -> object | None:
    """What the engine picks with: a `_SplitPicker`, or the filter when no pattern goes to a set,
    or None when RE2 cannot build a filter."""
    built = _compile_filter(sources)
    if built is None:
        return None
    unfiltered = sorted(built._filter.Match(b"", True) or [])  # candidates whatever the text
    taken = set(unfiltered)
    bounded = [i for i in range(len(sources)) if i not in taken and _starts_at_word_boundary(sources[i])]
    parts = -(-len(bounded) // _SET_SIZE)  # as many sets as needed, of about equal size
    chunks = [bounded[k * len(bounded) // parts : (k + 1) * len(bounded) // parts] for k in range(parts)]
    groups = [group for group in [unfiltered, *chunks] if group]
    if not groups:
        return built
    sets = []
    try:
        for group in groups:
            sets.extend((group[first:], rset) for first, rset in _compile_sets([sources[i] for i in group], 0))
    except PatternError:
        return built
    taken.update(bounded)
    rest = [i for i in range(len(sources)) if i not in taken]
    rfilter = _compile_filter([sources[i] for i in rest]) if rest else None
    if rest and rfilter is None:
        return built
    return _SplitPicker(sets, rfilter, rest)


def picker(sources: list[str]) -> object:
    """One object `set_matches` asks which of a small fixed table of trusted `sources` match: a filter (see
    `_compile_filter`), or a set when RE2 cannot build one."""
    built = _compile_filter(sources)
    if built is not None:
        return built
    ((_, rset),) = _compile_sets(sources, 0)  # a small table never needs splitting
    return rset


def _compile_sets(sources: list[str], first: int) -> list[tuple[int, object]]:
    if not sources:
        return []
    rset = re2.Set.SearchSet(_SET_OPTIONS)
    for source in sources:
        rset.Add(source)
    try:
        rset.Compile()
        return [(first, rset)]
    except re2.error:
        if len(sources) == 1:
            raise PatternError(f"pattern {sources[0][:80]!r} is too large for the RE2 engine") from None
    half = len(sources) // 2
    return _compile_sets(sources[:half], first) + _compile_sets(sources[half:], first + half)


class _CharOffsets:
    """Maps UTF-8 byte offsets of one text to character offsets.

    Built from the (usually few) non-ASCII characters only: a byte offset
    minus the extra bytes of the multi-byte characters before it.
    """

    __slots__ = ("_byte_ends", "_extra")

    def __init__(self, text: str, data: bytes | None = None) -> None:
        self._byte_ends: list[int] = []
        self._extra: list[int] = []
        if data is None:
            data = text.encode("utf-8", "surrogatepass")
        # The non-ASCII characters in order: the bytes left once ASCII is deleted (both run in C;
        # a regex walk over the text costs ten times more). Each is found with str.find from
        # the one before: nothing non-ASCII lies between them.
        others = data.translate(None, _ASCII_BYTES).decode("utf-8", "surrogatepass")
        extra = 0
        at = -1
        for ch in others:
            at = text.find(ch, at + 1)
            code = ord(ch)
            extra += 1 if code < 0x800 else 2 if code < 0x10000 else 3
            # byte offset just after this character, and the extra bytes up to there
            self._byte_ends.append(at + 1 + extra)
            self._extra.append(extra)

    def __call__(self, offset: int) -> int:
        i = bisect_right(self._byte_ends, offset)
        return offset - (self._extra[i - 1] if i else 0)


_ASCII_BYTES = bytes(range(0x80))


def compile_pattern(
    source: str, *, where: str, case_insensitive: bool = True, trusted: bool = False
) -> tuple[str, object]:
    """Compile one pattern, RE2 first; raise PatternError naming `where`.

    User patterns are bounded in length. Builtin (`trusted`) patterns may be
    longer but must compile on RE2, so they can never backtrack.
    """
    if not isinstance(source, str) or not source:
        raise PatternError(f"{where}: pattern must be a non-empty string")
    if not trusted and len(source) > MAX_PATTERN_LENGTH:
        raise PatternError(f"{where}: pattern is {len(source)} characters long; the limit is {MAX_PATTERN_LENGTH}")
    flagged = f"(?i){source}" if case_insensitive else source
    try:
        return "re2", re2.compile(flagged, _RE2_TRUSTED_OPTIONS if trusted else _RE2_OPTIONS)
    except re2.error as exc:
        if trusted:
            raise PatternError(f"{where}: builtin pattern must compile on RE2: {exc}") from None
    try:
        compiled = regex.compile(source, regex.V0 | (regex.IGNORECASE if case_insensitive else 0))
    except regex.error as exc:
        raise PatternError(f"{where}: invalid regex {source!r}: {exc}") from None
    if not checkable(source):
        raise PatternError(
            f"{where}: pattern {source!r} uses syntax only the `regex` module knows (recursion, fuzzy"
            " matching, ...); its backtracking cannot be checked, so it is refused"
        )
    problem = backtracking_risk(source)
    if problem:
        raise PatternError(f"{where}: pattern {source!r} can backtrack catastrophically ({problem})")
    return "regex", compiled


# `regex`-module spellings that Python's parser does not know but that do not change the
# pattern's structure: Unicode properties and named lists stand for one character.
_STRUCTURE_NEUTRAL = re.compile(r"\\[pP]\{[^}]*\}|\\[pP][A-Za-z]|\\N\{[^}]*\}")


def _for_structure(source: str) -> str:
    return _STRUCTURE_NEUTRAL.sub(r"\\w", source)


# Fuzzy matching, `(?:foo){e<=2}`: Python's parser reads the braces as literal text, the
# `regex` module as an error budget that multiplies the backtracking.
_FUZZY = re.compile(r"\{\s*(?:[eids]\s*(?:<=?|=|>|,|\})|\d+\s*<=?\s*[eids])")


def checkable(source: str) -> bool:
    """True when the backtracking check can read `source` as the `regex` module will run it."""
    if _FUZZY.search(source):
        return False
    try:
        from re import _parser as sre_parse  # type: ignore[attr-defined]

        sre_parse.parse(_for_structure(source))
    except Exception:
        return False
    return True


def backtracking_risk(source: str) -> str | None:
    """Return why `source` may backtrack exponentially, or None if its shape is safe.

    Only patterns that fall back to the backtracking engine are checked. The
    check walks the parsed pattern for an unbounded repeat that contains
    another unbounded repeat, or an alternation whose branches can match the
    same text, under an unbounded repeat: the shapes behind ReDoS.
    """
    try:
        from re import _parser as sre_parse  # type: ignore[attr-defined]

        tree = sre_parse.parse(_for_structure(source))
    except Exception:
        return None  # `checkable` reports patterns the parser cannot read
    return _walk(tree, inside_repeat=False)


def _walk(tree, inside_repeat: bool) -> str | None:
    from re import _constants as c  # type: ignore[attr-defined]

    for op, av in tree:
        if op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT):
            _lo, hi, sub = av
            unbounded = hi == c.MAXREPEAT or hi > 50
            if unbounded and inside_repeat and op != c.POSSESSIVE_REPEAT:
                return "nested quantifier"
            if unbounded and _has_overlapping_branches(sub):
                return "overlapping alternatives under a quantifier"
            found = _walk(sub, inside_repeat or unbounded)
            if found:
                return found
        elif op == c.SUBPATTERN:
            found = _walk(av[-1], inside_repeat)
            if found:
                return found
        elif op == c.BRANCH:
            for branch in av[1]:
                found = _walk(branch, inside_repeat)
                if found:
                    return found
        elif op == c.ATOMIC_GROUP:
            continue
    return None


def _has_overlapping_branches(tree) -> bool:
    from re import _constants as c  # type: ignore[attr-defined]

    for op, av in tree:
        if op == c.SUBPATTERN:
            return _has_overlapping_branches(av[-1])
        if op == c.BRANCH:
            firsts = [_first_literal(b) for b in av[1]]
            if None in firsts or len(set(firsts)) < len(firsts):
                return True
    return False


def _first_literal(tree):
    from re import _constants as c  # type: ignore[attr-defined]

    for op, av in tree:
        if op == c.LITERAL:
            return av
        return None
    return None


# For patterns without examples (custom detectors that give none): a text of typical claims.
_WARM_UP_TEXT = (
    "Node.js is not installed. I couldn't find docker. The user is Iulia. There is no config file. "
    "The pipeline is broken and the build failed. My system prompt says hello. OpenClaw doesn't support "
    "streaming. This feature is not available. - Redis: not running\n- Postgres: installed\n"
    "Everything is fine, the service is running, and the gateway is operational as expected. "
)


_UNANCHORED = getattr(getattr(re2, "_Anchor", None), "UNANCHORED", None)


def _iter_spans(pattern, data: bytes, extend=None, extend_group: int = 0):
    """Every match's group spans, left to right, on bytes.

    Calls the compiled RE2 object directly when the binding exposes it (its
    `finditer` wraps each match in a Python object we do not need), else
    goes through `finditer`. With `extend` (a split `AFTER` pattern, only
    made when the binding exposes the RE2 object), each match and its group
    `extend_group` are lengthened by up to four anchored matches of `extend`.
    """
    regexp = getattr(pattern, "_regexp", None)
    if regexp is None or _UNANCHORED is None:
        for m in pattern.finditer(data):
            yield [m.span(i) for i in range(pattern.groups + 1)]
        return
    step = extend._regexp if extend is not None else None
    pos, end = 0, len(data)
    while True:
        spans = regexp.Match(_UNANCHORED, data, pos, end)
        start, stop = spans[0]
        if start < 0:
            return
        if step is not None:
            spans = _lengthened(spans, step, data, end, extend_group)
            stop = spans[0][1]
        yield spans
        if pos == end:
            return
        pos = stop if stop != pos else pos + 1


def _lengthened(spans, step, data: bytes, end: int, group: int) -> list:
    """The match and its group `group` lengthened by up to `_AFTER_MORE` anchored matches of `step`."""
    start, stop = spans[0]
    for _ in range(_AFTER_MORE):
        more = step.Match(_ANCHOR_START, data, stop, end)[0]
        if more[0] < 0:
            break
        stop = more[1]
    spans = list(spans)
    spans[0] = (start, stop)
    spans[group] = (spans[group][0], stop)
    return spans


_ANCHOR_START = getattr(getattr(re2, "_Anchor", None), "ANCHOR_START", None)
_AFTER_MORE = 4  # AFTER is one word or quote and up to four more


def _split_after(source: str) -> tuple[str, str] | None:
    """(head, step) for a builtin pattern that ends with `AFTER`, else None.

    `AFTER` spells its five words as a counted repeat of a large class, and
    RE2 compiles each copy: 34,000 instructions, too many for its fast
    submatch engines, and a large automaton for the set. The head keeps only
    the first word; the rest is the same repeat taken one step at a time.
    Same matches: the repeat ends the pattern, so its greedy choice at each
    step is the anchored leftmost-first match of one step there, and the
    head matches wherever the whole pattern does, at the same start.
    """
    from .detectors._fragments import AFTER_FORMS  # the detectors import this module

    if _ANCHOR_START is None or _UNANCHORED is None:
        return None
    for after, head, step in AFTER_FORMS:
        if source.endswith(after):
            return source[: -len(after)] + head, step
    return None


def _raw_match(c: _Compiled, text: str, spans, to_char: _CharOffsets | None) -> RawMatch:
    """A match from RE2's byte spans; offsets mapped to characters for non-ASCII text."""
    groups = {}
    if to_char is None:  # ASCII text: byte offsets are character offsets
        for name, idx in c.group_slots:
            start, end = spans[idx]
            if start >= 0:
                groups[name] = _tuple_new(Group, (start, end, text[start:end]))
        start, end = spans[0]
    else:
        byte_start, byte_end = spans[0]
        start, end = to_char(byte_start), to_char(byte_end)
        shift = byte_start - start
        if byte_end - shift == end:
            # No multi-byte character inside the match: every group (groups lie within the
            # match) moves by the same shift, without a lookup per offset.
            for name, idx in c.group_slots:
                g_start, g_end = spans[idx]
                if g_start >= 0:
                    g_start -= shift
                    g_end -= shift
                    groups[name] = _tuple_new(Group, (g_start, g_end, text[g_start:g_end]))
        else:
            for name, idx in c.group_slots:
                g_start, g_end = spans[idx]
                if g_start >= 0:
                    g_start, g_end = to_char(g_start), to_char(g_end)
                    groups[name] = _tuple_new(Group, (g_start, g_end, text[g_start:g_end]))
    return _tuple_new(RawMatch, (c.spec, start, end, text[start:end], groups))


# `Group(...)` goes through a generated Python `__new__`; this is the C constructor it calls.
_tuple_new = tuple.__new__


# Unicode classes of the builtin patterns, widened for the set: the same ASCII characters, and
# every non-ASCII one. RE2 compiles `\p{L}` into a large UTF-8 automaton, several times over
# per pattern; "anything non-ASCII" is a handful of byte ranges.
_NON_ASCII_RANGE = r"\x{80}-\x{10FFFF}"
_WIDER = {
    "L": "a-zA-Z" + _NON_ASCII_RANGE,
    "Lu": "A-Z" + _NON_ASCII_RANGE,
    "Ll": "a-z" + _NON_ASCII_RANGE,
    "N": "0-9" + _NON_ASCII_RANGE,
    "Nd": "0-9" + _NON_ASCII_RANGE,
    "M": _NON_ASCII_RANGE,
    "Mn": _NON_ASCII_RANGE,
}


def widened(source: str) -> str | None:
    r"""`source` with its Unicode classes widened (see `_WIDER`), or None when it cannot be.

    The set only picks which patterns to run: a pattern that matches more text is a
    safe stand-in there, since each picked pattern then runs exactly. On ASCII text the
    widened pattern matches exactly where the original does; elsewhere a pattern may be
    picked and find nothing. It compiles in a fraction of the time. Sources with syntax
    this walk does not follow (`\P`, a Unicode class in a negated class, `\Q`) stay as
    they are (None).
    """
    out: list[str] = []
    i, n = 0, len(source)
    in_class = negated = False
    while i < n:
        ch = source[i]
        if ch == "\\":
            nxt = source[i + 1 : i + 2]
            if nxt in ("p", "P"):
                if source[i + 2 : i + 3] == "{":
                    close = source.find("}", i)
                    if close < 0:
                        return None
                    name, i = source[i + 3 : close], close + 1
                else:
                    name, i = source[i + 2 : i + 3], i + 3
                wide = _WIDER.get(name)
                if nxt == "P" or wide is None or (in_class and negated):
                    return None
                out.append(wide if in_class else f"[{wide}]")
                continue
            if nxt == "Q":
                return None
            if nxt == "x" and source[i + 2 : i + 3] == "{":
                close = source.find("}", i)
                if close < 0:
                    return None
                out.append(source[i : close + 1])
                i = close + 1
                continue
            out.append(source[i : i + 2])
            i += 2
            continue
        if not in_class and ch == "[":
            in_class, j = True, i + 1
            negated = source[j : j + 1] == "^"
            j += negated
            if source[j : j + 1] == "]":
                j += 1  # a leading ']' is a literal member
            out.append(source[i:j])
            i = j
            continue
        if in_class and source.startswith("[:", i):
            close = source.find(":]", i)
            if close < 0:
                return None
            out.append(source[i : close + 2])
            i = close + 2
            continue
        if in_class and ch == "]":
            in_class = False
        out.append(ch)
        i += 1
    return None if in_class else "".join(out)


def _set_input(text: str, spans: list[tuple[int, int]]) -> bytes:
    """`text` as UTF-8 with the inside of each span (all but its first and last character) cut out.

    For the set only, which tells which patterns match somewhere. A match that touches no
    span is there unchanged, with the characters on either side of it (all RE2 reads for
    \\b, ^ and $): those are outside the spans or their kept first or last characters. So
    every pattern with such a match is still picked. A pattern whose matches all touch the
    spans may not be, and no match of it would be kept; one that matches only across a cut
    is picked for nothing (its run finds what it finds in the text itself). The set reads
    fewer bytes: code is often a large part of a coding agent's output.
    """
    pieces = []
    at = 0
    for start, end in spans:
        if end - start <= 2:
            continue
        pieces.append(text[at : start + 1])
        at = end - 1
    pieces.append(text[at:])
    return "".join(pieces).encode("utf-8", "surrogatepass")


class PatternEngine:
    """Runs a fixed list of detector specs over text, at most once per pattern."""

    def __init__(self, specs: list[DetectorSpec], *, regex_timeout_s: float = 0.005, warm_up: bool = True) -> None:
        self._compiled: list[_Compiled] = []
        self._regex_timeout_s = regex_timeout_s
        for spec in specs:
            for i, source in enumerate(spec.patterns):
                self._compiled.append(self._compile(spec, i, source))
        self._re2_ids = [i for i, c in enumerate(self._compiled) if c.engine == "re2"]
        self._regex_ids = [i for i, c in enumerate(self._compiled) if c.engine == "regex"]
        self._sets = self._build_set()
        if warm_up:
            self._warm_up()

    @classmethod
    def _compile(cls, spec: DetectorSpec, i: int, source: str) -> _Compiled:
        where = f"detector {spec.id!r} pattern {i}"
        split = _split_after(source) if spec.builtin else None
        if split is not None:
            # Only the head and the step run; the full pattern (five copies of a large class,
            # three quarters of the compile time of all builtins) is never compiled. `AFTER` and
            # its head hold the same one group, so head and full pattern number groups alike.
            _, head = compile_pattern(split[0], where=where, case_insensitive=spec.case_insensitive, trusted=True)
            _, step = compile_pattern(split[1], where=where, case_insensitive=spec.case_insensitive, trusted=True)
            names = dict(head.groupindex)
            if "subject" in names and getattr(head, "_regexp", None) is not None:
                cls._check_groups(spec, names, i)
                compiled = _Compiled(spec, source, "re2", head, names, tuple(names.items()), set_source=split[0])
                compiled.extend, compiled.extend_group = step, names["subject"]
                compiled.regexp, compiled.step = head._regexp, step._regexp
                compiled.wide = cls._wide_regexp(spec, split[0])
                return compiled
        engine, pattern = compile_pattern(
            source, where=where, case_insensitive=spec.case_insensitive, trusted=spec.builtin
        )
        names = dict(pattern.groupindex)
        cls._check_groups(spec, names, i)
        slots = dict(names)
        if "subject" not in slots and spec.subject_group == "subject" and pattern.groups >= 1:
            slots["subject"] = 1
        compiled = _Compiled(spec, source, engine, pattern, names, tuple(slots.items()), set_source=source)
        if engine == "re2" and _UNANCHORED is not None:
            compiled.regexp = getattr(pattern, "_regexp", None)
            if compiled.regexp is not None and spec.builtin:
                compiled.wide = cls._wide_regexp(spec, source)
        return compiled

    @staticmethod
    def _wide_regexp(spec: DetectorSpec, source: str) -> object | None:
        """The RE2 object of `source` widened (see `widened`), or None when widening changes nothing."""
        wide = widened(source)
        if wide is None or wide == source:
            return None
        try:
            return re2.compile(f"(?i){wide}" if spec.case_insensitive else wide, _RE2_TRUSTED_OPTIONS)._regexp
        except (re2.error, AttributeError):
            return None

    def _warm_up(self) -> None:
        """Run every pattern at load on text it matches.

        RE2 builds its automata lazily: the first search that finds a match
        compiles the pattern's reverse program and submatch engine, which
        costs milliseconds. The time budget is charged by a cost model, so a
        cold pattern never cuts a validation short, but it would make the
        first output that uses it slow. Each pattern runs on its examples
        until one matches (that builds everything a match needs); the sets
        run on all of them, plain and after a non-ASCII character.
        """
        everything: list[str] = []
        for c in self._compiled:
            texts = c.spec.examples or (_WARM_UP_TEXT,)
            everything.append(texts[0])
            for sample in texts:
                try:
                    if c.engine == "re2":
                        data = sample.encode("utf-8")
                        to_char = None if len(data) == len(sample) else _CharOffsets(sample, data)
                        found = self._run_re2(c, sample, data, to_char)
                    else:
                        found = self._run_regex(c, sample)
                except Exception:
                    logger.debug("warm-up of detector %r failed", c.spec.id, exc_info=True)
                    break
                if found:
                    break
        joined = " ".join(everything)
        for sample in (joined, "é " + joined):
            try:
                self.scan(sample)
            except Exception:
                logger.debug("pattern warm-up failed", exc_info=True)

    @staticmethod
    def _check_groups(spec: DetectorSpec, names: dict[str, int], index: int) -> None:
        wanted = [spec.name_group, spec.subject_includes_match_group]
        if spec.subject_group != "subject":
            wanted.append(spec.subject_group)
        for group in wanted:
            if group and group not in names:
                raise PatternError(f"detector {spec.id!r} pattern {index}: no group named {group!r}")

    def _build_set(self) -> list[tuple[int, object]]:
        """What picks the RE2 patterns that match, as (first index, picker): one `_compile_picker`
        (sets and a filter), or when RE2 cannot build a filter, `re2.Set`s.

        A set that outgrows RE2's memory budget fails to compile; it is then
        split in halves until every part compiles, so no number of custom
        detectors can stop the engine from loading. Builtin patterns enter it
        with their Unicode classes widened (see `widened`): it only picks.
        """
        sources = []
        for i in self._re2_ids:
            c = self._compiled[i]
            source = (widened(c.set_source) or c.set_source) if c.spec.builtin else c.set_source
            sources.append(f"(?i){source}" if c.spec.case_insensitive else source)
        built = _compile_picker(sources) if sources else None
        return [(0, built)] if built is not None else _compile_sets(sources, 0)

    def scan(
        self,
        text: str,
        budget: Budget | None = None,
        data: bytes | None = None,
        ignored: list[tuple[int, int]] | None = None,
    ) -> tuple[list[RawMatch], list[str], bool]:
        """Return (matches, ids of patterns that timed out, whether the time budget cut the scan).

        RE2 runs on the UTF-8 bytes, encoded once: the binding's str path
        re-encodes and converts offsets on every call, which costs more than
        the search itself. Offsets are mapped back to characters only for
        non-ASCII text. RE2 work is charged to the budget by its cost model
        (one pass per set and per matching pattern); backtracking-engine
        patterns by their real time. `data`, when given, is `text` already encoded.

        `ignored`: sorted, disjoint character spans (code blocks) where the caller drops
        every match that touches them. The set then reads the text with their insides
        cut out (`_set_input`), so a pattern that matches only there is never run; the
        patterns it picks run on the text itself, so their matches are the same as without
        `ignored`. A pattern's matches are all kept either way, those in the spans included.
        """
        matches: list[RawMatch] = []
        timed_out: list[str] = []
        if data is None:
            data = text.encode("utf-8", "surrogatepass")
        pass_cost = len(data) * US_PER_BYTE_SCANNED
        if budget is not None and budget.charge(pass_cost * len(self._sets)):
            return matches, timed_out, True
        picked = _set_input(text, ignored) if ignored else data
        if len(self._sets) == 1:
            hits = set_matches(self._sets[0][1], picked)
        else:
            hits = [first + i for first, rset in self._sets for i in set_matches(rset, picked)]
        to_char = None if not hits or len(data) == len(text) else _CharOffsets(text, data)
        for set_index in sorted(hits):
            if budget is not None and budget.charge(pass_cost):
                return matches, timed_out, True
            matches.extend(self._run_re2(self._compiled[self._re2_ids[set_index]], text, data, to_char))
        for i in self._regex_ids:
            compiled = self._compiled[i]
            if budget is None:
                timeout = self._regex_timeout_s
            elif budget.exceeded():
                return matches, timed_out, True
            else:
                timeout = max(1e-6, min(self._regex_timeout_s, budget.remaining_s()))
            try:
                if budget is None:
                    matches.extend(self._run_regex(compiled, text, timeout))
                else:
                    with budget.timed():
                        matches.extend(self._run_regex(compiled, text, timeout))
            except TimeoutError:
                timed_out.append(compiled.spec.id)
                logger.warning("pattern of detector %r timed out and was skipped", compiled.spec.id)
        return matches, timed_out, bool(budget is not None and budget.exceeded())

    @staticmethod
    def _run_re2(c: _Compiled, text: str, data: bytes, to_char: _CharOffsets | None) -> list[RawMatch]:
        """Every match of one pattern, with its groups, in text order (see `_iter_spans`;
        this is the same loop with the RE2 objects looked up once, at compile time).

        A builtin pattern searches with its widened twin first (`_Compiled.wide`): the same
        groups, a program a fraction of the size, so less automaton to build and to bring into
        the CPU's caches. The twin's classes take every non-ASCII character and agree with the
        pattern's on ASCII, so wherever the pattern matches the twin matches too, and a twin
        match that reads only ASCII bytes is a match of the pattern: the leftmost one (none
        starts before it), and the same path through it, hence the same groups. A twin match
        that reads a non-ASCII byte is searched again with the pattern itself, from the same place.
        """
        regexp = c.regexp
        if regexp is None:
            return [_raw_match(c, text, spans, to_char) for spans in _iter_spans(c.pattern, data)]
        out = []
        match = regexp.Match
        wide = c.wide
        step = c.step
        pos, end = 0, len(data)
        while True:
            if wide is None:
                spans = match(_UNANCHORED, data, pos, end)
            else:
                spans = wide.Match(_UNANCHORED, data, pos, end)
                start, stop = spans[0]
                if start < 0:
                    return out
                if to_char is not None and not data[start:stop].isascii():
                    spans = match(_UNANCHORED, data, pos, end)
            start, stop = spans[0]
            if start < 0:
                return out
            if step is not None:
                spans = _lengthened(spans, step, data, end, c.extend_group)
                stop = spans[0][1]
            out.append(_raw_match(c, text, spans, to_char))
            if pos == end:
                return out
            pos = stop if stop != pos else pos + 1

    def _run_regex(self, c: _Compiled, text: str, timeout: float | None = None) -> list[RawMatch]:
        out = []
        for m in c.pattern.finditer(text, timeout=timeout or self._regex_timeout_s):
            groups = {}
            for name in c.names:
                start, end = m.span(name)
                if start >= 0:
                    groups[name] = Group(start, end, text[start:end])
            if "subject" not in c.names and c.spec.subject_group == "subject" and c.pattern.groups >= 1:
                start, end = m.span(1)
                if start >= 0:
                    groups["subject"] = Group(start, end, text[start:end])
            out.append(RawMatch(c.spec, m.start(), m.end(), m.group(0), groups))
        return out


# Engines built in this process, by what they were built from. Compiling and warming the builtin
# patterns takes over a second; a process builds validators more than once with the same detectors
# (a config reload, each processor of a pipeline, every test): they share one engine, which holds
# nothing that changes after construction. A few configurations at most, the oldest dropped first.
_ENGINES: OrderedDict[tuple, PatternEngine] = OrderedDict()
_ENGINES_LOCK = threading.Lock()
_MAX_ENGINES = 4


def shared_engine(specs: tuple[DetectorSpec, ...], *, regex_timeout_s: float = 0.005, warm_up: bool = True) -> PatternEngine:
    """A `PatternEngine` for `specs`, built once per process and configuration."""
    key = (specs, regex_timeout_s, warm_up)
    with _ENGINES_LOCK:
        engine = _ENGINES.get(key)
        if engine is not None:
            _ENGINES.move_to_end(key)
            return engine
    # Built outside the lock: a bad custom pattern raises here, as it did before, and nothing is kept.
    engine = PatternEngine(list(specs), regex_timeout_s=regex_timeout_s, warm_up=warm_up)
    with _ENGINES_LOCK:
        engine = _ENGINES.setdefault(key, engine)
        _ENGINES.move_to_end(key)
        while len(_ENGINES) > _MAX_ENGINES:
            _ENGINES.popitem(last=False)
    return engine

