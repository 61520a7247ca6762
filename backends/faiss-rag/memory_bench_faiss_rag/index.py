"""The vector index: exact inner product (faiss IndexFlatIP) or HNSW.

Vectors are L2-normalised, so inner product is cosine similarity. Flat search
is exact and supports removal (``remove_ids``). faiss's HNSW has no removal:
removed labels become tombstones that search skips inside the graph walk
(faiss ``IDSelector``), so a removed item is never returned and k live
results still come back; once tombstones outnumber live vectors the graph is
rebuilt from the live ones. HNSW construction uses ``seed`` for its level
draws and runs single-threaded, so the same data gives the same graph.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from collections.abc import Set as AbstractSet
from contextlib import contextmanager

import faiss
import numpy as np

__all__ = ["VectorIndex"]


@contextmanager
def _one_thread() -> Iterator[None]:
    """Run faiss single-threaded, then restore its thread count.

    A one-query search gains nothing from OpenMP, and under load on a shared
    2-core machine its threads cost 7 ms a search instead of 0.03 ms (measured).
    A multi-threaded HNSW build is not reproducible either.
    """
    threads = faiss.omp_get_max_threads()
    faiss.omp_set_num_threads(1)
    try:
        yield
    finally:
        faiss.omp_set_num_threads(threads)


class VectorIndex:
    """faiss over labelled vectors: ``add``, ``remove``, ``search``."""

    def __init__(
        self,
        dim: int,
        *,
        kind: str = "flat",
        hnsw_m: int = 32,
        ef_construction: int = 200,
        ef_search: int = 128,
        seed: int = 0,
    ) -> None:
        if kind not in ("flat", "hnsw"):
            raise ValueError(f"index kind {kind!r} is not flat or hnsw")
        self.dim, self.kind = dim, kind
        self.hnsw_m, self.ef_construction, self.ef_search = hnsw_m, ef_construction, ef_search
        self.seed = seed
        self.tombstones: set[int] = set()
        self.rebuilds = 0
        self._index = self._empty()

    def _empty(self) -> faiss.Index:
        if self.kind == "flat":
            return faiss.IndexIDMap2(faiss.IndexFlatIP(self.dim))
        inner = faiss.IndexHNSWFlat(self.dim, self.hnsw_m, faiss.METRIC_INNER_PRODUCT)
        inner.hnsw.efConstruction = self.ef_construction
        inner.hnsw.efSearch = self.ef_search
        inner.hnsw.rng = faiss.RandomGenerator(self.seed)
        return faiss.IndexIDMap2(inner)

    @property
    def live(self) -> int:
        return int(self._index.ntotal) - len(self.tombstones)

    def add(self, labels: Iterable[int], vectors: np.ndarray) -> None:
        ids = np.fromiter(labels, dtype=np.int64)
        if len(ids) == 0:
            return
        x = np.ascontiguousarray(vectors, dtype=np.float32)
        if self.kind == "flat":
            self._index.add_with_ids(x, ids)
            return
        with _one_thread():  # a multi-threaded HNSW build is not reproducible
            self._index.add_with_ids(x, ids)

    def remove(self, labels: list[int], live_vectors: dict[int, np.ndarray]) -> None:
        """Forget ``labels``; ``live_vectors`` (after removal) feeds an HNSW rebuild."""
        if not labels:
            return
        if self.kind == "flat":
            self._index.remove_ids(faiss.IDSelectorBatch(np.asarray(labels, dtype=np.int64)))
            return
        self.tombstones.update(labels)
        if len(self.tombstones) >= max(self.live, 1):
            self._rebuild(live_vectors)

    def _rebuild(self, live_vectors: dict[int, np.ndarray]) -> None:
        self._index = self._empty()
        self.tombstones.clear()
        self.rebuilds += 1
        if live_vectors:
            labels = sorted(live_vectors)
            self.add(labels, np.stack([live_vectors[lab] for lab in labels]))

    def search(
        self, query: np.ndarray, n: int, exclude: AbstractSet[int] = frozenset()
    ) -> tuple[np.ndarray, np.ndarray]:
        """Up to ``n`` (scores, labels) best first, never a removed or excluded label.

        ``exclude`` holds live labels to skip (superseded versions); the walk
        filters them inside faiss, so ``n`` results still come back when there are.
        """
        skip = self.tombstones | exclude if exclude else self.tombstones
        n = min(n, int(self._index.ntotal) - len(skip))
        if n <= 0:
            return np.zeros(0, dtype=np.float32), np.zeros(0, dtype=np.int64)
        q = np.ascontiguousarray(query, dtype=np.float32).reshape(1, self.dim)
        with _one_thread():
            if self.kind == "flat":
                params = faiss.SearchParameters()
            else:
                params = faiss.SearchParametersHNSW()
                params.efSearch = max(self.ef_search, n)
            if skip:
                batch = faiss.IDSelectorBatch(np.fromiter(skip, dtype=np.int64))
                params.sel = faiss.IDSelectorNot(batch)
            scores, labels = self._index.search(q, n, params=params)
        keep = labels[0] >= 0
        return scores[0][keep], labels[0][keep]
