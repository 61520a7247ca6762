"""``gate=rules``: the trivial write gate, as a reference row for every real one.

Refuses an empty text, a text under three words and an exact duplicate of a
stored text (whitespace-normalised): the three rules the first gate test was
made of. A report that shows what these rules score beside a backend's own
gate tells a reader how much of that gate's score a rule of three lines earns.
"""

from __future__ import annotations

from collections import Counter

__all__ = ["MIN_WORDS", "RuleGate"]

MIN_WORDS = 3


class RuleGate:
    """Counts the normalised texts it let through (and are still stored); says why it
    refuses one."""

    def __init__(self) -> None:
        self.seen: Counter[str] = Counter()

    def refusal(self, text: str) -> str | None:
        norm = " ".join(text.split())
        if not norm:
            return "empty"
        if len(norm.split()) < MIN_WORDS:
            return "too_short"
        if self.seen[norm] > 0:
            return "duplicate"
        return None

    def admit(self, text: str) -> None:
        self.seen[" ".join(text.split())] += 1

    def forget(self, text: str) -> None:
        norm = " ".join(text.split())
        self.seen[norm] -= 1
        if self.seen[norm] <= 0:
            del self.seen[norm]
