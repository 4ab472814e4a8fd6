"""The time budget of one validation (`performance.maxEvalUs`), charged by a cost model.

The budget exists to stop pathological outputs (thousands of matches, a
user pattern that backtracks) from holding an agent up. It used to be read
off the clock, and the clock made validation non-deterministic: the same
text was cut on one call and not on the next, whenever a garbage collection,
a page fault, another thread holding the GIL or a cold RE2 automaton landed
inside the call. Claims must not depend on that.

So the work of the builtin engine is charged by a fixed cost model instead:
so many microseconds per byte scanned by a pattern, per match turned into a
claim, per fact lookup. The constants are measured costs, rounded up, and the
same text always costs the same, so a bail-out is a property of the text,
reported with the result, never a matter of luck.

Only work whose cost cannot be modelled is timed for real: patterns that run
on the backtracking `regex` engine (custom detectors, fact subjects). Their
timeouts are bounded by what is left of the budget.
"""

from __future__ import annotations

import time

# Estimated microseconds, measured on the shared 2-core development machine and rounded up. Measured
# 2026-11-27 on 10,000-character chunks of dense web-agent text (50 claims, 130 matches, 53 of the 98
# builtin patterns matching): one pattern pass ~42 us (0.0042 us a byte), one match ~32 us (the match
# and its groups, subject, sentence frame, code check); 7.6 ms in all. Before, a pass was charged
# 0.01 us a byte, more than twice its cost, and a match 25 us, less than its cost: a dense 10,000-
# character text was cut at 8 ms of modelled work while it took 7.6 ms.
US_PER_BYTE_SCANNED = 0.005  # one RE2 pass (the set, or one pattern's finditer) over one byte
US_PER_MATCH = 35.0  # one match turned into a claim: subject, sentence frame, code check
# A match its detector's reject_after / reject_before / reject_state rule out ("is open to", "when the list is
# empty") stops after a short regex match: measured 2026-11-28 over the 5,257 matches of both corpora, best of
# five, 1.4 us median and 5.8 us p99 for the 524 such matches. Charging them a full match cut the densest
# web chunks (10,000 characters, 160 matches, 50 claims) for work they did not do.
US_PER_REJECTED_MATCH = 5.0
# Per claim, each time the validator recounts the claims its cap has settled (selection.ClaimCap): measured
# 2026-11-28 on the 38 web chunks, 1.45 us a claim median.
US_PER_CAP_RECOUNT = 2.0
US_PER_FACT_CHECK = 10.0  # one claim compared with the fact index (exact and RE2 lookups)


class Budget:
    """Work charged against `budget_us`; `spent` once the charges exceed it."""

    __slots__ = ("limit_us", "spent", "used_us")

    def __init__(self, budget_us: float) -> None:
        self.limit_us = float(budget_us)
        self.used_us = 0.0
        self.spent = False

    def charge(self, us: float) -> bool:
        """Add `us` of work; True when the budget is now spent."""
        self.used_us += us
        if self.used_us > self.limit_us:
            self.spent = True
        return self.spent

    def exceeded(self) -> bool:
        return self.spent

    def remaining_s(self) -> float:
        """Seconds left: the bound for a real timeout (backtracking engine)."""
        return max(0.0, self.limit_us - self.used_us) / 1e6

    def timed(self) -> _Timed:
        """Context manager that charges the real time of its block (for unmodelled work)."""
        return _Timed(self)


class _Timed:
    __slots__ = ("_budget", "_started")

    def __init__(self, budget: Budget) -> None:
        self._budget = budget
        self._started = 0.0

    def __enter__(self) -> _Timed:
        self._started = time.perf_counter()
        return self

    def __exit__(self, *exc) -> None:
        self._budget.charge((time.perf_counter() - self._started) * 1e6)
