"""``hybrid``: the bm25 row and the faiss-rag row, queried side by side and fused.

Each side is the very backend of its own row (``memory_bench_bm25``'s BM25 over
bm25s with Snowball stemming; ``memory_bench_faiss_rag``'s exact cosine over the
shared MiniLM embedder and its cache), so the hybrid row differs from those two
rows by its fusion alone. A query takes the ``depth`` best of each side
(at least k), fuses them (``fusion.py``) and, with a recency weight, adds
faiss-rag-recency's bonus ``weight * 0.5 ** (age / half_life)`` to the fused
score (on a [0, 1] scale) of those candidates: recency reorders the fused
candidate set, it does not search past it.

Writes, removal, forgetting and counting go to both sides, which each keep their own
docstore (text, source, timestamp), so every hit reports its provenance.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memory_bench_bm25.backend import BM25Backend
from memory_bench_faiss_rag.backend import FaissRag
from memory_bench_faiss_rag.recency import RecencyScorer

from memory_bench import Hit, Item, NotSupportedError, WriteResult
from memory_bench_hybrid.fusion import fuse

__all__ = ["Hybrid"]


class Hybrid:
    """Lexical + dense retrieval, fused by reciprocal rank or by normalised scores."""

    def __init__(self, dense: FaissRag, lexical: BM25Backend, *, fusion: str = "rrf",
                 k: int = 60, weight: float = 0.5, depth: int = 50,
                 recency: RecencyScorer | None = None) -> None:
        self.dense, self.lexical = dense, lexical
        self.fusion, self.k, self.weight, self.depth = fusion, k, weight, depth
        self.recency = recency

    def write(self, items: Sequence[Item]) -> list[WriteResult]:
        results = self.dense.write(items)
        self.lexical.write(items)
        return results

    def candidates(self, text: str, n: int) -> list[Hit]:
        """The fused ranking of both sides' ``n`` best, best first (the first stage a
        reranker reads): every hit carries its provenance and fused score."""
        dense = self.dense.query(text, n)
        lexical = self.lexical.query(text, n)
        by_id = {h.id: h for h in (*lexical, *dense)}
        fused = fuse([(h.id, h.score) for h in dense], [(h.id, h.score) for h in lexical],
                     method=self.fusion, k=self.k, weight=self.weight)
        if self.recency is not None and fused:
            now = self.dense.docs.latest
            assert now is not None  # something was written, or no side found a candidate
            bonus = self.recency.bonus([by_id[i].timestamp for i, _ in fused], now)
            scored = [(i, s + float(b)) for (i, s), b in zip(fused, bonus, strict=True)]
            # Stable: ties keep the fused order (dense rank, then lexical rank).
            fused = sorted(scored, key=lambda p: -p[1])
        out = []
        for i, score in fused:
            h = by_id[i]
            out.append(Hit(id=i, score=score, source=h.source, timestamp=h.timestamp))
        return out

    def query(self, text: str, k: int) -> list[Hit]:
        if k <= 0:
            return []
        return self.candidates(text, max(self.depth, k))[:k]

    def remove(self, prefix: str) -> int:
        removed = self.dense.remove(prefix)
        if self.lexical.remove(prefix) != removed:  # one store each; they never disagree
            raise RuntimeError(f"hybrid: the two sides held different items under {prefix!r}")
        return removed

    def forget(self, ids: Sequence[str] = (), source: str | None = None,
               prefix: str = "") -> int:
        """Forget by id and by source on both sides, as each of them forgets."""
        forgotten = self.dense.forget(ids, source, prefix)
        if self.lexical.forget(ids, source, prefix) != forgotten:
            raise RuntimeError("hybrid: the two sides forgot different items")
        return forgotten

    def count(self, prefix: str) -> int:
        return self.dense.count(prefix)

    def strength(self, ids: Sequence[str]) -> list[float | None]:
        raise NotSupportedError("a retrieval index keeps no strength")

    def consolidate(self) -> dict[str, Any]:
        raise NotSupportedError("a retrieval index has no consolidation step")

    def close(self) -> None:
        self.dense.close()
        self.lexical.close()
