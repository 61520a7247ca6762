"""BM25 keyword search for mem0's FAISS store, which has none, so mem0's hybrid scoring runs.

mem0 delegates the BM25 half of its search to the vector store
(``keyword_search(query_lemmatized, top_k, filters)``, raw scores that mem0 then
normalises by its own sigmoid). Its stores that implement it need a server
(Elasticsearch, OpenSearch, pgvector...) or, for local Qdrant, fastembed's
``Qdrant/bm25`` files from a model hub; its FAISS store has none. This subclass
adds one, as mem0's Elasticsearch store does it: Lucene BM25 (k1 = 1.2, b = 0.75,
Elasticsearch's defaults, via bm25s) over each memory's ``text_lemmatized``
payload, the lemmas mem0 itself writes, tokenised on whitespace (mem0 already
dropped stop words and punctuation). The index is rebuilt from the docstore on
the first keyword search after a change.
"""

from __future__ import annotations

from typing import Any

import bm25s
import numpy as np
from mem0.vector_stores.faiss import FAISS, OutputData

from memory_bench_mem0 import BM25_B, BM25_K1

__all__ = ["KeywordFAISS"]


class KeywordFAISS(FAISS):
    """mem0's FAISS store plus ``keyword_search``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._version = 0
        self._built: tuple[int, bm25s.BM25 | None, list[str]] | None = None
        super().__init__(*args, **kwargs)

    def _changed(self) -> None:
        self._version = getattr(self, "_version", 0) + 1

    def insert(self, *args: Any, **kwargs: Any) -> Any:
        self._changed()
        return super().insert(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> Any:
        self._changed()
        return super().delete(*args, **kwargs)

    def update(self, *args: Any, **kwargs: Any) -> Any:
        self._changed()
        return super().update(*args, **kwargs)

    def delete_col(self, *args: Any, **kwargs: Any) -> Any:
        self._changed()
        return super().delete_col(*args, **kwargs)

    def _index(self) -> tuple[bm25s.BM25 | None, list[str]]:
        if self._built is None or self._built[0] != self._version:
            ids = list(self.docstore)
            docs = [str(self.docstore[i].get("text_lemmatized") or self.docstore[i].get("data")
                        or "").split() for i in ids]
            index = None
            if any(docs):
                index = bm25s.BM25(k1=BM25_K1, b=BM25_B, method="lucene")
                index.index(docs, show_progress=False)
            self._built = (self._version, index, ids)
        return self._built[1], self._built[2]

    def keyword_search(self, query: str, top_k: int = 5, filters: dict | None = None
                       ) -> list[OutputData]:
        index, ids = self._index()
        terms = [t for t in query.split() if index is not None and t in index.vocab_dict]
        if not terms:
            return []
        scores = np.asarray(index.get_scores(terms), dtype=np.float64)
        out: list[OutputData] = []
        for i in np.argsort(-scores, kind="stable"):
            if scores[i] <= 0 or len(out) >= top_k:
                break
            payload = self.docstore.get(ids[i])
            if payload is None or (filters and not self._apply_filters(payload, filters)):
                continue
            out.append(OutputData(id=ids[i], score=float(scores[i]), payload=payload.copy()))
        return out
