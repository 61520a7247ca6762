"""Fusing two ranked lists into one: reciprocal rank fusion or weighted normalised scores.

- ``rrf`` (Cormack, Clarke and Buettcher, SIGIR 2009; what Qdrant, Elasticsearch,
  Weaviate's ``rankedFusion`` and Zep/Graphiti use): an item scores
  ``sum over lists of 1 / (k + rank)``, rank counted from 1, nothing from a list
  it is absent from. Only ranks count, so BM25's unbounded scores and cosine's
  [-1, 1] need no common scale.
- ``weighted`` (Weaviate's ``relativeScoreFusion``): each list's scores are
  min-max normalised over that list's candidates for this query, then
  ``weight * dense + (1 - weight) * lexical``; absent from a list counts 0 there.
  A list whose scores are all equal normalises to 1 (every candidate is its best).

The fused score is returned on a [0, 1] scale (RRF divided by its best possible
value, ``2 / (k + 1)``), so a recency bonus of a given weight means the same for
both methods and the same as in faiss-rag-recency (cosine + bonus).

Ties keep the order of the better dense rank, then the better lexical rank: a
run is deterministic, and an item both sides ranked beats one only one ranked.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["FUSIONS", "fuse"]

FUSIONS = ("rrf", "weighted")
Ranked = Sequence[tuple[str, float]]  # (id, score), best first


def _minmax(ranked: Ranked) -> dict[str, float]:
    if not ranked:
        return {}
    scores = [s for _, s in ranked]
    lo, hi = min(scores), max(scores)
    if hi - lo <= 0.0:
        return {i: 1.0 for i, _ in ranked}
    return {i: (s - lo) / (hi - lo) for i, s in ranked}


def fuse(dense: Ranked, lexical: Ranked, *, method: str = "rrf", k: int = 60,
         weight: float = 0.5) -> list[tuple[str, float]]:
    """Every candidate of either list with its fused score in [0, 1], best first."""
    if method not in FUSIONS:
        raise ValueError(f"fusion {method!r} is not one of {', '.join(FUSIONS)}")
    absent = len(dense) + len(lexical) + 1  # ranks past every list, for tie-breaking
    d_rank = {i: r for r, (i, _) in enumerate(dense, start=1)}
    l_rank = {i: r for r, (i, _) in enumerate(lexical, start=1)}
    ids = list(dict.fromkeys([*d_rank, *l_rank]))
    if method == "rrf":
        best = 2.0 / (k + 1)
        fused = {i: sum(1.0 / (k + r[i]) for r in (d_rank, l_rank) if i in r) / best
                 for i in ids}
    else:
        d_norm, l_norm = _minmax(dense), _minmax(lexical)
        fused = {i: weight * d_norm.get(i, 0.0) + (1.0 - weight) * l_norm.get(i, 0.0)
                 for i in ids}
    order = sorted(ids, key=lambda i: (-fused[i], d_rank.get(i, absent), l_rank.get(i, absent)))
    return [(i, fused[i]) for i in order]
