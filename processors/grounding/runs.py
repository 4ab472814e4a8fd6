"""Where each run of letters and digits is in an evidence pool: the pool's lookups as dict hits, not scans.

A pool is asked about the same evidence by every claim of every output graded against it (the LLM calls of
one trace). Each first lookup of a word or stem is a `str.find` over the whole pool text; this index answers
them from the positions of the pool's runs of ASCII letters and digits instead. An ASCII letters-and-digits
needle lies inside one run wherever it occurs, so its occurrences are those of the runs that contain it:
a whole-word lookup is one dict hit, a substring lookup (a stem) one search over the distinct runs, which
are about a third of the text, then a dict hit per run found.

It costs about as much as a few dozen scans to build, so the pool builds it only once it has made that many
(`SCANS_BEFORE_INDEX`): a pool graded once for a short answer never pays for it, and a pool that has paid
that much in scans is most likely asked again (the rent-or-buy rule: at worst twice the cost of either).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from itertools import accumulate, compress

# Scans a pool makes before it builds the index: the index costs about this many whole-pool scans (measured
# on the bench's 20,000-character pool: ~1.2 ms against ~20 us; both grow with the pool's size).
SCANS_BEFORE_INDEX = 48

# Every character but a-z and 0-9 becomes a space (a non-ASCII character is one "?" after encoding, so
# offsets are kept): the runs are then the pieces between single spaces.
_RUN_BYTES = bytes(c if 48 <= c <= 57 or 97 <= c <= 122 else 32 for c in range(256))


def indexable(needle: str) -> bool:
    """Whether the index answers for `needle` (lowercased): ASCII letters and digits only."""
    return needle.isascii() and needle.isalnum()


class RunIndex:
    """Where each run of [a-z0-9] of a (lowercased) text starts, by run, as chains of integers; and the
    distinct runs sorted (their prefixes by bisection) and joined without their first character (what is
    inside them).

    Memory: three integers per run of the text (a 20,000-character pool has ~3,500 runs) and two dicts and
    two copies of its distinct runs (~1,100 runs, ~7,000 characters there). It holds no container per run,
    so building it leaves the garbage collector nothing to track."""

    __slots__ = ("_first", "_inner", "_inner_starts", "_next", "_sorted", "_starts")

    def __init__(self, text: str) -> None:
        pieces = text.encode("ascii", "replace").translate(_RUN_BYTES).decode("ascii").split(" ")
        self._starts = list(compress(_offsets(pieces), pieces))  # the start of each run, in text order
        runs = list(filter(None, pieces))
        first: dict[str, int] = {}  # run -> its first occurrence
        last: dict[str, int] = {}
        chain = [-1] * len(runs)  # occurrence -> the next occurrence of the same run, or -1
        for k, run in enumerate(runs):
            j = last.get(run)
            if j is None:
                first[run] = k
            else:
                chain[j] = k
            last[run] = k
        self._first, self._next = first, chain
        self._sorted = sorted(first)
        inner = [run[1:] for run in self._sorted]
        self._inner = "\n".join(inner)
        self._inner_starts = _offsets(inner)

    def word(self, needle: str) -> Iterator[int]:
        """Where `needle` is a whole run, in text order (the caller still tests word boundaries, which count
        "_" and non-ASCII letters as word characters, and stops when it has enough)."""
        k = self._first.get(needle, -1)
        starts, chain = self._starts, self._next
        while k != -1:
            yield starts[k]
            k = chain[k]

    def substring(self, needle: str, limit: int) -> list[int]:
        """The first `limit` offsets of `needle` in the text, in text order (overlapping ones too, as a
        `find` loop resuming one character on gives): at the start of the runs it begins, by bisection,
        and inside the runs it is found in without their first character."""
        found: list[int] = []
        ordered = self._sorted
        for j in range(bisect_left(ordered, needle), bisect_left(ordered, needle + "{")):  # "{" follows "z"
            found.extend(self._at(ordered[j], limit))
        inner, starts = self._inner, self._inner_starts
        at = inner.find(needle)
        while at != -1:
            j = bisect_right(starts, at) - 1
            run = ordered[j]
            where = self._at(run, limit)  # the first `limit` of all are among the first `limit` of each run
            inside = at - starts[j] + 1
            while inside != -1:
                found.extend([start + inside for start in where])
                inside = run.find(needle, inside + 1)
            at = inner.find(needle, starts[j] + len(run))  # past this run's inside and its newline
        found.sort()
        return found[:limit]

    def _at(self, run: str, limit: int) -> list[int]:
        """The first `limit` starts of `run` (a whole run), in text order."""
        found: list[int] = []
        k = self._first.get(run, -1)
        starts, chain = self._starts, self._next
        while k != -1 and len(found) < limit:
            found.append(starts[k])
            k = chain[k]
        return found


def _offsets(pieces: list[str]) -> list[int]:
    """Where each piece starts in `" ".join(pieces)` (or "\\n".join)."""
    return list(accumulate(map((1).__add__, map(len, pieces[:-1])), initial=0))
