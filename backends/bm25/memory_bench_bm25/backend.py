"""BM25 over the item texts, with a docstore that keeps every item as written.

bm25s builds a static index over a whole corpus; the harness writes
incrementally. So writes only append to the docstore (tokenised once, on
write), and the index is rebuilt from the stored token lists before the first
query after any write or removal. A rebuild costs O(total tokens); the protocol
queries in phases, so a run rebuilds about once per write phase.

Ranking: BM25 scores for every stored item, best first, ties broken by write
order (so a run is deterministic). An item with score 0 shares no term with the
question and is not a hit.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import bm25s
import numpy as np

from memory_bench import BackendContext, Hit, Item, NotSupportedError, WriteResult
from memory_bench_bm25.tokens import Tokenizer

__all__ = ["BM25Backend"]


class BM25Backend:
    """The ``bm25`` backend: accepts every item, reports its source and timestamp."""

    def __init__(self, options: dict[str, Any], ctx: BackendContext) -> None:
        self._opts = options
        self._tokenize = Tokenizer(options["stopwords"], options["stemmer"])
        self._docs: dict[str, Item] = {}  # insertion order = write order
        self._tokens: dict[str, list[str]] = {}
        self._index: bm25s.BM25 | None = None
        self._index_ids: list[str] = []
        self.rebuilds = 0

    # -- writing -----------------------------------------------------------------
    def write(self, items: Sequence[Item]) -> list[WriteResult]:
        """Store every item (no gate). A re-written id replaces the earlier text."""
        for item, toks in zip(items, self._tokenize([i.text for i in items]), strict=True):
            self._docs.pop(item.id, None)  # a re-write moves the id to the end
            self._docs[item.id] = item
            self._tokens[item.id] = toks
        if items:
            self._index = None
        return [WriteResult(item.id, True) for item in items]

    def remove(self, prefix: str) -> int:
        return self._drop([i for i in self._docs if i.startswith(prefix)])

    def _drop(self, gone: list[str]) -> int:
        for i in gone:
            del self._docs[i]
            del self._tokens[i]
        if gone:
            self._index = None
        return len(gone)

    def forget(self, ids: Sequence[str] = (), source: str | None = None,
               prefix: str = "") -> int:
        """Drop the items with these ids and those of ``source`` under ``prefix``: like
        remove, by id or by source instead of by prefix."""
        wanted = set(ids)
        return self._drop([i for i, item in self._docs.items() if i in wanted or (
            source is not None and item.source == source and i.startswith(prefix))])

    def count(self, prefix: str) -> int:
        return sum(1 for i in self._docs if i.startswith(prefix))

    # -- reading -----------------------------------------------------------------
    def _ensure_index(self) -> bm25s.BM25 | None:
        if self._index is None and self._docs:
            index = bm25s.BM25(k1=self._opts["k1"], b=self._opts["b"], method=self._opts["method"])
            self._index_ids = list(self._docs)
            index.index([self._tokens[i] for i in self._index_ids], show_progress=False)
            self._index = index
            self.rebuilds += 1
        return self._index

    def query(self, text: str, k: int) -> list[Hit]:
        index = self._ensure_index()
        if index is None or k <= 0:
            return []
        terms = [t for t in self._tokenize([text])[0] if t in index.vocab_dict]
        if not terms:
            return []
        scores = np.asarray(index.get_scores(terms), dtype=np.float64)
        # Stable sort on -score keeps write order among ties.
        order = np.argsort(-scores, kind="stable")[:k]
        hits = []
        for j in order:
            if scores[j] <= 0.0:
                break
            item = self._docs[self._index_ids[j]]
            hits.append(Hit(item.id, float(scores[j]), item.source, item.timestamp))
        return hits

    # -- not supported -----------------------------------------------------------
    def strength(self, ids: Sequence[str]) -> list[float | None]:
        raise NotSupportedError("bm25 keeps no strength")

    def consolidate(self) -> dict[str, Any]:
        raise NotSupportedError("bm25 has no consolidation")

    def close(self) -> None:
        self._docs.clear()
        self._tokens.clear()
        self._index = None
