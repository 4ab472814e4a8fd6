"""The evidence pool: what the agent could see before it spoke, indexed for lookup.

A passage is one piece of evidence (a tool result, a retrieved document, an
earlier user or tool message) with the span and attribute it came from, so a
grade can cite "span 3f2a…, tool result, characters 120-151". The pool keeps
one lowercased copy of each passage and a set of its words; specifics are
looked up with `str.find` on demand rather than by indexing every passage up
front, which keeps a 20,000-character pool cheap to build for a short answer.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from threading import Lock

from ..core.claims import positional
from .text import bounded, evidence_words, stem

TRUNCATION_MARK = re.compile(
    r"(?:\.\.\.|…|\[(?:truncated|cut)[^\]]*\]|<truncated>|\[\d[\d,]* more (?:characters|chars|bytes|lines)\])\s*$",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Passage:
    """One piece of evidence and where it came from."""

    text: str
    source: str = "evidence"  # tool_result | retrieval | tool_message | user_message | evidence
    span_id: str | None = None
    key: str | None = None  # attribute or message index inside the span
    tool_name: str | None = None
    truncated: bool = False
    end_ns: int = 0
    arguments: str | None = None  # the tool call's arguments, when the passage is a tool result

    @property
    def cite(self) -> str:
        """A short human citation: span id (shortened) and where in the span."""
        if not self.span_id:
            return f"{self.source}[{self.key}]" if self.key is not None else self.source
        what = f"{self.source} {self.tool_name}" if self.tool_name else self.source
        return f"span {self.span_id[:8]}… ({what})"


@dataclass(frozen=True, slots=True)
class Hit:
    """Where a piece of a claim was found: passage index and character range in that passage."""

    passage: int
    start: int
    end: int


# Lookups make a hit per occurrence and every grade cites some: set their slots directly (`positional`).
new_hit = positional(Hit, "passage start end")


class EvidencePool:
    """Passages indexed for word, stem and substring lookup.

    All passages are lowercased into one string (separated by a NUL line) so a
    lookup is one `str.find` loop over the whole pool, mapped back to the
    passage with a binary search.
    """

    def __init__(self, passages: Iterable[Passage], max_chars: int = 200_000) -> None:
        items = list(passages)
        texts: list[str] = []
        seen: set[str] = set()
        budget = max_chars
        # Indices stay those of the input (grades cite them); the newest evidence matters most, so when
        # the pool is over budget the oldest passages are the ones emptied, and a repeat is indexed once.
        for i in range(len(items) - 1, -1, -1):
            passage = items[i]
            text = passage.text if isinstance(passage.text, str) else ""
            if text in seen or budget <= 0:
                text = ""
            seen.add(text)
            if len(text) > budget:
                text = text[-budget:]
                items[i] = _replace(passage, text, truncated=True)
            budget -= len(text)
            texts.append(text.lower())
        texts.reverse()
        self.passages: tuple[Passage, ...] = tuple(items)
        self._texts = texts
        self._starts: list[int] = []
        offset = 0
        for text in texts:
            self._starts.append(offset)
            offset += len(text) + len(_SEPARATOR)
        self._blob = _SEPARATOR.join(texts)
        self._live = sum(1 for t in texts if t.strip())
        self._index: list[_Indexed | None] = [None] * len(texts)
        self._found: dict[tuple[str, bool, int], tuple[Hit, ...]] = {}
        self._has: dict[str, bool] = {}
        self._stemmed: dict[str, bool] = {}
        self.cache: dict = {}  # per-pool memo for the grader (acronyms, ...)

    def __len__(self) -> int:
        return len(self._texts)

    def __bool__(self) -> bool:
        """False when no passage has any text: there is no evidence."""
        return self._live > 0

    @property
    def live(self) -> int:
        """Passages with text (repeats and over-budget ones are empty)."""
        return self._live

    @cached_property
    def total_chars(self) -> int:
        return sum(len(t) for t in self._texts)

    @cached_property
    def any_truncated(self) -> bool:
        return any(p.truncated for p in self.passages)

    def _indexed(self, index: int) -> _Indexed:
        found = self._index[index]
        if found is None:
            found = self._index[index] = _indexed(self._texts[index])
        return found

    @cached_property
    def words(self) -> frozenset[str]:
        """Every word of every passage (lowercase), gathered into one set.

        A pool none of whose passages was met before (a one-off call, the first of a trace) splits its
        joined text once: no set per passage to build and then merge. A pool sharing passages with an
        earlier one (the later calls of a trace) merges the sets they keep, and its new passages keep
        one at once, since the next call will most likely see them again."""
        indexed = [self._indexed(i) for i, text in enumerate(self._texts) if text]
        if not any(x.met for x in indexed):
            # A one-off pool: its words are those of the joined text (the NUL-line separator is no word
            # and splits as a space does), split in one pass instead of one per passage and merged.
            for x in indexed:
                x.met = True
            return frozenset(evidence_words(self._blob))
        # Sets merge without hashing their words again; the lists of new passages are hashed once, here.
        return frozenset().union(*[x.kept_words() for x in indexed])

    @cached_property
    def stems(self) -> frozenset[str]:
        """The stems of every word that is not a number. The grader asks `has_stem` instead, which
        stems only the few words that may have the stem it asks about."""
        return frozenset(stem(w) for w in self.words if not w.isdigit())

    def lower(self, index: int) -> str:
        return self._texts[index]

    def memo(self, index: int) -> dict:
        """A memo for what the grader derives from one passage's text alone (its numbers, dates, ...).

        It belongs to the text, not to this pool: every pool holding the same passage shares it."""
        return self._indexed(index).memo

    def has_word(self, word: str) -> bool:
        known = self._has.get(word)
        if known is None:
            if len(self._has) >= _MAX_FOUND:  # a pool reused by many outputs: keep its memo bounded
                self._has.clear()
            w = word.lower()
            known = self._has[word] = w in self.words or self.has_stem(stem(w))
        return known

    def has_stem(self, word_stem: str) -> bool:
        """`word_stem in self.stems`, without stemming every word of the pool: a grade asks about a few
        stems, and the words that stem to one are few and known (`_stemmed_as`), so those are looked up."""
        known = self._stemmed.get(word_stem)
        if known is None:
            if len(self._stemmed) >= _MAX_FOUND:  # a pool reused by many outputs: keep its memo bounded
                self._stemmed.clear()
            if word_stem in self.words and stem(word_stem) == word_stem and not word_stem.isdigit():
                known = True  # a word of the pool is its own stem
            else:
                words = self.words.intersection(_stemmed_as(word_stem)) if word_stem else ()
                known = any(not w.isdigit() and stem(w) == word_stem for w in words)
            self._stemmed[word_stem] = known
        return known

    def find(self, needle: str, *, word: bool = True, limit: int = 8) -> list[Hit]:
        """Occurrences of `needle` (case-insensitive), at word boundaries unless `word` is False."""
        return list(self.lookup(needle, word, limit))

    def lookup(self, needle: str, word: bool = True, limit: int = 8) -> tuple[Hit, ...]:
        """`find`, as the remembered tuple itself (no copy): for callers that only read it."""
        memo = self._found.get((needle, word, limit))
        if memo is not None:
            return memo
        raw = needle
        needle = needle.lower()
        key = (needle, word, limit)
        memo = self._found.get(key)
        if memo is not None:
            return memo
        hits: list[Hit] = []
        if not needle:
            return ()
        if len(self._found) >= _MAX_FOUND:  # a pool reused by many outputs: keep its memo bounded
            self._found.clear()
        blob, starts = self._blob, self._starts
        if word:
            # A name is its claim's region anchor (every occurrence, up to 6) before it is cited (the first
            # whole word): its whole-word hits are among the occurrences already found, without a scan.
            every = self._found.get((needle, False, ANCHOR_LIMIT))
            if every is not None:
                hits = [h for h in every if bounded(blob, starts[h.passage] + h.start, starts[h.passage] + h.end)]
                if len(every) < ANCHOR_LIMIT or len(hits) >= limit:  # all of them, or enough
                    memo = self._found[key] = self._found[(raw, word, limit)] = tuple(hits[:limit])
                    return memo
                hits = []
        at = blob.find(needle) if limit > 0 else -1
        while at != -1:
            end = at + len(needle)
            if not word or bounded(blob, at, end):
                index = bisect_right(starts, at) - 1
                base = starts[index]
                if end - base <= len(self._texts[index]):
                    hits.append(new_hit(index, at - base, end - base))
                    if len(hits) == limit:
                        break  # enough: no search for an occurrence past the last one asked for
            at = blob.find(needle, at + 1)
        memo = self._found[key] = self._found[(raw, word, limit)] = tuple(hits)
        return memo

    def search(self, pattern: re.Pattern) -> bool:
        """Whether `pattern` occurs in some passage (lowercased). One search over all passages: the
        separator between them is a NUL line, which no word, space or boundary pattern matches across."""
        return pattern.search(self._blob) is not None

    def find_any(self, needles: Sequence[str], *, limit: int = 8) -> list[Hit]:
        hits: list[Hit] = []
        for needle in needles:
            hits.extend(self.find(needle, limit=limit))
            if hits:
                break
        return hits

    def window(self, hit: Hit, radius: int = 120) -> str:
        """The lowercased text around a hit, clipped to its passage."""
        text = self._texts[hit.passage]
        return text[max(0, hit.start - radius) : hit.end + radius]


_SEPARATOR = "\n\x00\n"


_MAX_FOUND = 8192
ANCHOR_LIMIT = 6  # the occurrences the grader asks for of a region's anchor (align._region)


class _Indexed:
    """What is known of one lowercased passage text: its words (once it keeps a set of them) and the
    grader's memo."""

    __slots__ = ("_lower", "memo", "met", "words")

    def __init__(self, lower: str) -> None:
        self._lower = lower
        self.memo: dict = {}
        self.met = False  # whether a pool has asked for its words
        self.words: frozenset[str] | None = None

    def kept_words(self) -> frozenset[str]:
        """The passage's words as a set, made once and kept: asked for by a pool that shares passages with
        an earlier one, so most likely asked again."""
        if self.words is None:
            self.met = True
            self.words = frozenset(evidence_words(self._lower))
        return self.words


@lru_cache(maxsize=16_384)
def _stemmed_as(word_stem: str) -> tuple[str, ...]:
    """Every word `text.stem` may turn into `word_stem` (and some it does not: the caller stems them to
    check), its steps undone from the last: a doubled last consonant, then an optional final e, then
    -ing / -ed / -ly, then -s, or -ies for a final y. Evidence words are lowercase letters and digits, so
    its apostrophe step never applies. Kept in step with `text.stem`: tests/test_grounding_pool_speed.py
    checks it on seeded random words."""
    bases = (word_stem, word_stem + word_stem[-1])
    found = [base + tail for base in bases for tail in _STEM_TAILS]
    found.extend(base[:-1] + "ies" for base in bases if base[-1] == "y")  # the y of the stem itself
    return tuple(found)  # remembered: the same few stems are asked of every pool (the words of answers recur)


# What `text.stem` strips after the stem: an optional e, then -ing, -ed or -ly, then -s, or -ies for the y
# of -ly. (-es after -ss, as in "classes", is the e's candidate with -s.)
_STEM_TAILS = (
    *(e + suffix + end for e in ("", "e") for suffix in ("", "ing", "ed", "ly") for end in ("", "s")),
    "lies",
    "elies",
)


_INDEX_CACHE: OrderedDict[str, _Indexed] = OrderedDict()
_INDEX_CACHE_SIZE = 512  # keys are passage texts: bounded in count, and long passages are not kept
_INDEX_LOCK = Lock()
_INDEX_CACHE_MAX_CHARS = 20_000


def _indexed(lower: str) -> _Indexed:
    """The index of one lowercased passage, memoised: a trace's tool results are the evidence of
    every later LLM call in it, so the collector sees the same passages again and again."""
    found = _INDEX_CACHE.get(lower)
    if found is not None:
        return found
    found = _Indexed(lower)
    if len(lower) > _INDEX_CACHE_MAX_CHARS:
        return found
    with _INDEX_LOCK:
        _INDEX_CACHE[lower] = found
        if len(_INDEX_CACHE) > _INDEX_CACHE_SIZE:
            _INDEX_CACHE.popitem(last=False)
    return found


def _replace(passage: Passage, text: str, truncated: bool) -> Passage:
    return Passage(
        text, passage.source, passage.span_id, passage.key, passage.tool_name, truncated, passage.end_ns,
        passage.arguments,
    )  # fmt: skip


def looks_truncated(text: str) -> bool:
    """A tool output cut by its producer (a trailing "...", "[truncated]")."""
    tail = text[-60:]
    # Every mark ends in one of these, then only whitespace (rstrip and the pattern's \s agree on what that
    # is): most texts end otherwise and need no search.
    if tail.rstrip()[-1:] not in _MARK_ENDS:
        return False
    return TRUNCATION_MARK.search(tail) is not None


_MARK_ENDS = frozenset(".…]>")


@dataclass(frozen=True, slots=True)
class PoolSummary:
    passages: int
    chars: int
    sources: tuple[str, ...] = field(default=())
