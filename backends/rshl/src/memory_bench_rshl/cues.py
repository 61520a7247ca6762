"""Cue association: which stored words the questions' own words have led to, learned online.

A lexical memory cannot answer "Where did Mara Olsen go to university?" from "Mara
Olsen graduated from Quenhurst Conservatory": they share the name and nothing else,
so among a person's facts the score is a coin toss that every new fact about her
makes worse (interference). What the lattice can learn without a model is which
words questions and the cells they retrieve use together. This is Hebbian binding
of the cue to the recalled pattern: each query that reinforces its top hit also
counts, for every relation word of the question (``claims.claim``: content stems
outside names and numbers), the relation words of that hit. Over many questions the
counts of the right words rise above those of the wrong ones: a question word's top
hit is the right fact more often than any one wrong relation, even when it is
wrong most of the time.

At query time the question's relation words bring their ``words`` most frequent
companions (share of the word's retrievals, minus the companion's share of all
cells: a word every cell holds tells nothing). Those form a second, separately
normalised accumulator added to the question's at ``weight`` (calibrated, see
the README): the name still decides *whose* cells, the learned cue decides
*which* of them. Only a question that names a stored subject is expanded: without
a name to anchor it, an expansion learned from wrong hits drifts the query away (on
the natural scenario, whose subjects are common nouns, it cost half of recall@1;
a dialogue's speaker, named in its questions, is no stored subject either).

Deterministic: counts are sums in question order over sorted stems, and the
candidates are sorted by (value, stem). Saved with the lattice (``to_dict``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = ["CueMemory"]


class CueMemory:
    """Counts of question word -> relation words of the cells it retrieved."""

    def __init__(self) -> None:
        self.n: dict[str, float] = {}  # question stem -> retrievals counted
        self.pairs: dict[str, dict[str, float]] = {}  # question stem -> {cell stem: count}

    def learn(self, question: Iterable[str], cell: Iterable[str], weight: float = 1.0) -> None:
        """One retrieval: the question's relation stems were answered by a cell with these."""
        words = sorted(set(cell))
        for q in sorted(set(question)):
            self.n[q] = self.n.get(q, 0.0) + weight
            row = self.pairs.setdefault(q, {})
            for w in words:
                if w != q:
                    row[w] = row.get(w, 0.0) + weight

    def expansion(self, question: Iterable[str], share: Any, words: int,
                  min_count: float = 2.0) -> dict[str, float]:
        """{stem: weight} the question's stems lead to; ``share(stem)`` is the stem's share
        of all cells (its baseline). A question stem seen fewer than ``min_count`` times
        brings nothing."""
        qs = sorted(set(question))
        out: dict[str, float] = {}
        for q in qs:
            n = self.n.get(q, 0.0)
            if n < min_count:
                continue
            found = []
            for w, c in self.pairs[q].items():
                if w in qs:
                    continue
                v = c / n - share(w)
                if v > 0:
                    found.append((-v, w))
            found.sort()
            for v, w in found[:words]:
                out[w] = out.get(w, 0.0) - v / len(qs)
        return out

    def __len__(self) -> int:
        return len(self.n)

    def to_dict(self) -> dict[str, Any]:
        return {"n": self.n, "pairs": self.pairs}

    @classmethod
    def from_dict(cls, d: dict[str, Any] | None) -> CueMemory:
        cues = cls()
        if d:
            cues.n = {k: float(v) for k, v in d["n"].items()}
            cues.pairs = {k: {w: float(c) for w, c in row.items()}
                          for k, row in d["pairs"].items()}
        return cues
