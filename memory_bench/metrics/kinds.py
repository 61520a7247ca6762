"""Reusable metric computations over a :class:`RecordView`.

Each returns a function of the view, so a declaration reads as what it measures:
``recall_at(1, "probe")`` is the share of ``probe`` questions whose first hit
answers them.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from memory_bench.metrics.spec import RecordView, Value
from memory_bench.results.records import ProbeRecord

__all__ = [
    "ingest_rate",
    "latency_percentile",
    "ndcg_at",
    "outranks",
    "paired_recall_ratio",
    "provenance",
    "ratio",
    "recall_all_at",
    "recall_any_at",
    "recall_at",
    "reciprocal_rank",
    "refused",
    "still_ranked",
    "strength_delta",
]

Compute = Callable[[RecordView], Value]


def _share(flags: list[bool]) -> Value:
    return sum(flags) / len(flags) if flags else None


def recall_at(k: int, *tags: str) -> Compute:
    """Share of the probes whose best-ranked expected id is within the first ``k``."""
    def f(v: RecordView) -> Value:
        return _share([(p.best_rank(p.expected) or k + 1) <= k for p in v.probes(*tags)])
    return f


def ratio(numerator: Compute, denominator: Compute) -> Compute:
    """numerator / denominator; None when the denominator is 0 or either is None."""
    def f(v: RecordView) -> Value:
        top, bottom = numerator(v), denominator(v)
        if not bottom or top is None:
            return None
        return top / bottom
    return f


def outranks(*tags: str) -> Compute:
    """An expected id outranks every ``outrank`` id: old absent and new present wins,
    new absent loses."""
    def f(v: RecordView) -> Value:
        wins = []
        for p in v.probes(*tags):
            new, old = p.best_rank(p.expected), p.best_rank(p.outrank)
            wins.append(new is not None and (old is None or new < old))
        return _share(wins)
    return f


def still_ranked(*tags: str) -> Compute:
    """Share of the probes where an ``outrank`` id is still in the top-k (not erased)."""
    def f(v: RecordView) -> Value:
        return _share([p.best_rank(p.outrank) is not None for p in v.probes(*tags)])
    return f


def provenance(*tags: str) -> Compute:
    """The top hit reports the source and timestamp written for the item it names."""
    def f(v: RecordView) -> Value:
        return _share([
            bool(p.returned) and p.top_source is not None and p.top_timestamp is not None
            and p.top_source == p.written_source and p.top_timestamp == p.written_timestamp
            for p in v.probes(*tags)
        ])
    return f


def refused(tag: str, *, accept: tuple[str, ...], among_accept: bool) -> Compute:
    """Share of items refused: among those whose category is in ``accept`` (the clean
    ones) when ``among_accept``, among the others (the refusable ones) when not."""
    def f(v: RecordView) -> Value:
        return _share([not i.accepted for i in v.items(tag)
                       if (i.category in accept) == among_accept])
    return f


def strength_delta(tag: str, before: str = "before", after: str = "after") -> Compute:
    """Mean over ids of the ``after`` reading minus the ``before`` reading."""
    def f(v: RecordView) -> Value:
        readings = v.strengths(tag)
        late = {s.id: s.value for s in readings if s.label == after}
        deltas = [late[s.id] - s.value for s in readings
                  if s.label == before and s.value is not None and late.get(s.id) is not None]
        return float(np.mean(deltas)) if deltas else None
    return f


def latency_percentile(q: float, *tags: str) -> Compute:
    def f(v: RecordView) -> Value:
        lat = [p.latency_ms for p in v.probes(*tags)]
        return float(np.percentile(lat, q)) if lat else None
    return f


def ingest_rate(*tags: str) -> Compute:
    """Items written per second of write calls."""
    def f(v: RecordView) -> Value:
        writes = v.writes(*tags)
        seconds = sum(w.seconds for w in writes)
        return sum(w.items for w in writes) / seconds if seconds > 0 else None
    return f


# -- ranked retrieval (datasets): over the probes that name at least one expected id ------


def _scored(v: RecordView, tags: tuple[str, ...]) -> list[ProbeRecord]:
    """A probe with no expected id (nothing in the store answers it) has no rank to score."""
    return [p for p in v.probes(*tags) if p.expected]


def _mean(values: list[float]) -> Value:
    return sum(values) / len(values) if values else None


def recall_any_at(k: int, *tags: str) -> Compute:
    """Share of the probes with any expected id in the first ``k`` hits."""
    def f(v: RecordView) -> Value:
        return _share([(p.best_rank(p.expected) or k + 1) <= k for p in _scored(v, tags)])
    return f


def recall_all_at(k: int, *tags: str) -> Compute:
    """Share of the probes with every expected id in the first ``k`` hits."""
    def f(v: RecordView) -> Value:
        return _share([set(p.expected) <= set(p.returned[:k]) for p in _scored(v, tags)])
    return f


def ndcg_at(k: int, *tags: str) -> Compute:
    """Mean NDCG@k with binary relevance: DCG = sum over the first ``k`` hits of
    rel_i / log2(i + 1) (an expected id counts at its first occurrence only), over
    the DCG of a ranking with every expected id first."""
    def one(p: ProbeRecord) -> float:
        want, seen, dcg = set(p.expected), set(), 0.0
        for i, hit in enumerate(p.returned[:k], start=1):
            if hit in want and hit not in seen:
                seen.add(hit)
                dcg += 1.0 / math.log2(i + 1)
        ideal = sum(1.0 / math.log2(i + 1) for i in range(1, min(k, len(want)) + 1))
        return dcg / ideal

    def f(v: RecordView) -> Value:
        return _mean([one(p) for p in _scored(v, tags)])
    return f


def reciprocal_rank(*tags: str) -> Compute:
    """Mean over probes of 1 / the rank of the first expected hit (0 when none is returned)."""
    def f(v: RecordView) -> Value:
        return _mean([1.0 / r if (r := p.best_rank(p.expected)) else 0.0
                      for p in _scored(v, tags)])
    return f


def paired_recall_ratio(k: int, early: str, late: str) -> Compute:
    """recall_any@k of the ``late`` asks over that of the ``early`` asks, on the questions
    (probe keys) asked under both tags: the share still found later, on the same questions."""
    def f(v: RecordView) -> Value:
        first: dict[str, ProbeRecord] = {}
        for p in _scored(v, (early,)):
            if p.key is not None:
                first.setdefault(p.key, p)  # a question's first early ask
        last = {p.key: p for p in _scored(v, (late,)) if p.key in first}  # and its last ask
        if not last:
            return None

        def hit(p: ProbeRecord) -> bool:
            return (p.best_rank(p.expected) or k + 1) <= k

        before = sum(hit(first[key]) for key in last)
        return sum(hit(p) for p in last.values()) / before if before else None
    return f
