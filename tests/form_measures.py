"""Form measures for the generator tests: what a rule reading only an item's surface sees.

``tense_markers`` is the generic count of issue 34 (was/were/had/used to/former/
previous/before and words in -ed); ``auc`` the chance that a random item of one kind
scores above a random item of the other (ties count half), i.e. how well the score
alone separates the two kinds (0.5: not at all, 1.0: perfectly).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_MARKERS = re.compile(r"\b(was|were|had|used to|former|formerly|previous|previously|before"
                      r"|[a-z]{2,}ed)\b", re.IGNORECASE)


def tense_markers(text: str) -> int:
    """How many tense markers ``text`` holds."""
    return len(_MARKERS.findall(text))


def auc(pos: Sequence[float], neg: Sequence[float]) -> float:
    """P(score of a ``pos`` item > score of a ``neg`` item), ties half (Mann-Whitney)."""
    ranked = sorted([(v, 1) for v in pos] + [(v, 0) for v in neg])
    rank_sum, i = 0.0, 0
    while i < len(ranked):
        j = i
        while j < len(ranked) and ranked[j][0] == ranked[i][0]:
            j += 1
        mid = (i + j + 1) / 2  # 1-based mean rank of the tie block
        rank_sum += mid * sum(flag for _, flag in ranked[i:j])
        i = j
    n1, n0 = len(pos), len(neg)
    return (rank_sum - n1 * (n1 + 1) / 2) / (n1 * n0)
