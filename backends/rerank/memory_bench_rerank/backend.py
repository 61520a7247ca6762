"""``rerank``: a first stage's top ``depth``, reordered by a cross-encoder.

The first stage is the faiss-rag retriever (``first=dense``) or the hybrid one
(``first=hybrid``), each the very backend of its own row. A query takes its
``depth`` best (at least k), scores every (question, text) pair with the
cross-encoder and returns the k best by that score; ties keep the first
stage's order. The cross-encoder's time is inside the query call, so it is in
the latency columns: it is this system's own work.

The first stage keeps the items and their provenance; this class keeps each
text once more, to hand the cross-encoder the passage a hit names.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from memory_bench import Hit, Item, NotSupportedError, WriteResult
from memory_bench_rerank.crossencoder import CrossEncoder

__all__ = ["FirstStage", "Rerank"]


class FirstStage(Protocol):
    def write(self, items: Sequence[Item]) -> list[WriteResult]: ...
    def query(self, text: str, k: int) -> list[Hit]: ...
    def remove(self, prefix: str) -> int: ...
    def forget(self, ids: Sequence[str] = (), source: str | None = None,
               prefix: str = "") -> int: ...
    def count(self, prefix: str) -> int: ...
    def close(self) -> None: ...


class Rerank:
    """First-stage retrieval, then a cross-encoder over its top ``depth``."""

    def __init__(self, first: FirstStage, encoder: CrossEncoder, *, depth: int = 50) -> None:
        self.first, self.encoder, self.depth = first, encoder, depth
        self._texts: dict[str, str] = {}

    def write(self, items: Sequence[Item]) -> list[WriteResult]:
        results = self.first.write(items)
        texts = {item.id: item.text for item in items}  # a later copy of an id wins
        for r in results:
            if r.accepted:
                self._texts[r.id] = texts[r.id]
        return results

    def query(self, text: str, k: int) -> list[Hit]:
        if k <= 0:
            return []
        hits = self.first.query(text, max(self.depth, k))
        if not hits:
            return []
        scores = self.encoder.score(text, [self._texts[h.id] for h in hits])
        order = np.argsort(-scores, kind="stable")[:k]  # ties: first-stage order
        return [Hit(id=hits[j].id, score=float(scores[j]), source=hits[j].source,
                    timestamp=hits[j].timestamp) for j in order]

    def remove(self, prefix: str) -> int:
        for i in [i for i in self._texts if i.startswith(prefix)]:
            del self._texts[i]
        return self.first.remove(prefix)

    def forget(self, ids: Sequence[str] = (), source: str | None = None,
               prefix: str = "") -> int:
        """Forget in the first stage; its forgotten texts are never asked for again (a
        hit names only what the first stage still holds), so they are dropped here too."""
        forgotten = self.first.forget(ids, source, prefix)
        wanted = set(ids)
        for i in [i for i in self._texts if i in wanted or (
                source is not None and i.startswith(prefix) and self.first.count(i) == 0)]:
            del self._texts[i]
        return forgotten

    def count(self, prefix: str) -> int:
        return self.first.count(prefix)

    def strength(self, ids: Sequence[str]) -> list[float | None]:
        raise NotSupportedError("a retrieval index keeps no strength")

    def consolidate(self) -> dict[str, Any]:
        raise NotSupportedError("a retrieval index has no consolidation step")

    def close(self) -> None:
        self.first.close()
        self._texts.clear()
