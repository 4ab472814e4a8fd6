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

from bisect import bisect_right
from itertools import accumulate

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
    """The start offsets of every run of [a-z0-9] in a (lowercased) text, by run; and the distinct runs
    joined by newlines, for finding the runs a substring occurs in.

    Memory: one list entry per run of the text (a 20,000-character pool has ~3,500) and one copy of its
    distinct runs (~7,000 characters there): about the size of the text again, for a bounded pool."""

    __slots__ = ("_at", "_joined", "_names", "_starts")

    def __init__(self, text: str) -> None:
        pieces = text.encode("ascii", "replace").translate(_RUN_BYTES).decode("ascii").split(" ")
        at: dict[str, list[int]] = {}
        for run, start in zip(pieces, _offsets(pieces), strict=False):
            if run:
                where = at.get(run)
                if where is None:
                    at[run] = [start]
                else:
                    where.append(start)
        self._at = at
        self._names = list(at)
        self._joined = "\n".join(self._names)
        self._starts = _offsets(self._names)

    def word(self, needle: str) -> list[int]:
        """Where `needle` is a whole run, in text order (a word boundary test is still the caller's: a run
        may sit next to "_" or a non-ASCII letter)."""
        return self._at.get(needle, [])

    def substring(self, needle: str, limit: int) -> list[int]:
        """The first `limit` offsets of `needle` in the text, in text order (overlapping ones too, as a
        `find` loop resuming one character on gives)."""
        found: list[int] = []
        joined, starts, names = self._joined, self._starts, self._names
        at = joined.find(needle)
        while at != -1:
            j = bisect_right(starts, at) - 1
            run = names[j]
            where = self._at[run][:limit]  # the first `limit` of all are among the first `limit` of each run
            inside = at - starts[j]
            while inside != -1:
                found.extend([start + inside for start in where])
                inside = run.find(needle, inside + 1)
            at = joined.find(needle, starts[j] + len(run) + 1)
        found.sort()
        return found[:limit]


def _offsets(pieces: list[str]) -> list[int]:
    """Where each piece starts in `" ".join(pieces)` (or "\\n".join)."""
    return list(accumulate(map((1).__add__, map(len, pieces[:-1])), initial=0))
