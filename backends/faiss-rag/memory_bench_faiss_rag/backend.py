"""``faiss-rag`` and ``faiss-rag-recency``: frozen embedder + faiss + docstore.

Every item is embedded once (cached on disk when the run has a cache), added
to the index and kept in the docstore with its text, source and timestamp, so
every hit reports its provenance. Writing an id that is already stored
replaces it (upsert). Nothing is refused, unless the store was given the
trivial rule gate (``gate=rules``, ``gate.py``): a reference row, not a feature.

With a :class:`RecencyScorer` the top-k is exact under the combined score,
not a rerank of a fixed shortlist: the bonus is at most ``weight``, so once
the n-th best similarity plus ``weight`` cannot beat the k-th combined score,
nothing further down can enter the top k; until then n grows.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from memory_bench_embed import Embedder

from memory_bench import Hit, Item, NotSupportedError, WriteResult
from memory_bench_faiss_rag.docstore import Doc, Docstore
from memory_bench_faiss_rag.gate import RuleGate
from memory_bench_faiss_rag.index import VectorIndex
from memory_bench_faiss_rag.recency import RecencyScorer
from memory_bench_faiss_rag.versions import Versions

__all__ = ["FaissRag"]

_FIRST_FETCH = 32  # candidates fetched before the recency bound is checked


class FaissRag:
    """A RAG memory: embed, index, keep metadata; query by (time-aware) similarity."""

    def __init__(
        self,
        embedder: Embedder,
        index: VectorIndex,
        recency: RecencyScorer | None = None,
        *,
        supersede: bool = False,
        gate: RuleGate | None = None,
    ) -> None:
        self.embedder = embedder
        self.index = index
        self.recency = recency
        self.gate = gate
        self.docs = Docstore()
        self.versions = Versions() if supersede else None
        self.fetched = 0  # candidates pulled from the index by recency queries

    def write(self, items: Sequence[Item]) -> list[WriteResult]:
        if not items:
            return []
        refused: dict[int, str] = {}
        if self.gate is not None:  # in order, so a duplicate within the batch is caught
            for i, item in enumerate(items):
                reason = self.gate.refusal(item.text)
                if reason is None:
                    self.gate.admit(item.text)
                else:
                    refused[i] = reason
        # A later copy of an id within one batch wins, as it would written one by one.
        last = {item.id: i for i, item in enumerate(items) if i not in refused}
        keep = [items[i] for i in sorted(last.values())]
        if not keep:
            return [WriteResult(item.id, False, refused[i]) for i, item in enumerate(items)]
        vectors = self.embedder.encode([item.text for item in keep])
        stale = [lab for it in keep if (lab := self.docs.label_of(it.id)) is not None]
        if stale:
            self._forget(stale)
        labels = [self.docs.add(item, vec) for item, vec in zip(keep, vectors, strict=True)]
        self.index.add(labels, vectors)
        superseded: dict[str, str] = {}
        if self.versions is not None:
            for item, label in zip(keep, labels, strict=True):
                old = self.versions.add(label, item)
                if old is not None:
                    superseded[item.id] = self._doc(old).item.id
        return [
            WriteResult(item.id, False, refused[i]) if i in refused
            else WriteResult(item.id, accepted=True, supersedes=superseded.get(item.id))
            for i, item in enumerate(items)
        ]

    @property
    def _hidden(self) -> set[int]:
        return self.versions.hidden if self.versions is not None else set()

    def _search(self, qvec: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
        return self.index.search(qvec, n, exclude=self._hidden)

    def query(self, text: str, k: int) -> list[Hit]:
        if k <= 0 or self._searchable() == 0:
            return []
        qvec = self.embedder.encode_query(text)
        if self.recency is None:
            scores, labels = self._search(qvec, k)
            return [self._hit(int(lab), float(s)) for s, lab in zip(scores, labels, strict=True)]
        return self._recency_query(qvec, k)

    def _recency_query(self, qvec: np.ndarray, k: int) -> list[Hit]:
        assert self.recency is not None and self.docs.latest is not None
        now, weight = self.docs.latest, self.recency.weight
        n = max(_FIRST_FETCH, 4 * k)
        while True:
            sims, labels = self._search(qvec, n)
            stamps = [self._doc(int(lab)).item.timestamp for lab in labels]
            bonus = self.recency.bonus(stamps, now)
            combined = sims + bonus
            order = np.argsort(-combined, kind="stable")[:k]
            exhausted = len(labels) < n or n >= self._searchable()
            if exhausted or sims[-1] + weight <= combined[order[-1]]:
                break
            n *= 4
        self.fetched += len(labels)
        return [self._hit(int(labels[i]), float(combined[i])) for i in order]

    def _searchable(self) -> int:
        return self.index.live - len(self._hidden)

    def _doc(self, label: int) -> Doc:
        doc = self.docs.get(label)
        if doc is None:  # the index and the docstore disagree: a bug, never a silent miss
            raise RuntimeError(f"faiss returned label {label}, unknown to the docstore")
        return doc

    def _hit(self, label: int, score: float) -> Hit:
        it = self._doc(label).item
        return Hit(id=it.id, score=score, source=it.source, timestamp=it.timestamp)

    def _forget(self, labels: list[int]) -> None:
        if self.versions is not None:
            self.versions.discard(labels)
        if self.gate is not None:
            for lab in labels:
                if (doc := self.docs.get(lab)) is not None:
                    self.gate.forget(doc.item.text)
        self.docs.discard(labels)
        live = {d.label: d.vector for d in self.docs.docs()} if self.index.kind == "hnsw" else {}
        self.index.remove(labels, live)

    def strength(self, ids: Sequence[str]) -> list[float | None]:
        raise NotSupportedError("a vector store keeps no strength")

    def consolidate(self) -> dict[str, Any]:
        raise NotSupportedError("a vector store has no consolidation step")

    def remove(self, prefix: str) -> int:
        labels = self.docs.labels_with_prefix(prefix)
        self._forget(labels)
        return len(labels)

    def count(self, prefix: str) -> int:
        return len(self.docs.labels_with_prefix(prefix))

    def forget(self, ids: Sequence[str] = (), source: str | None = None,
               prefix: str = "") -> int:
        """Forget by id and by source as remove does by prefix: out of the docstore, the
        index (a flat one removes the vectors, HNSW tombstones them) and the gate."""
        labels = self.docs.labels_of(ids, source, prefix)
        self._forget(labels)
        return len(labels)

    def stats(self) -> dict[str, Any]:
        """Where the time went, for a report: encodes, cache hits, index state."""
        return {
            **self.embedder.stats,
            "items": len(self.docs),
            "index": self.index.kind,
            "tombstones": len(self.index.tombstones),
            "superseded_hidden": len(self._hidden),
            "rebuilds": self.index.rebuilds,
            "recency_candidates_fetched": self.fetched,
        }

    def close(self) -> None:
        self.embedder.close()
