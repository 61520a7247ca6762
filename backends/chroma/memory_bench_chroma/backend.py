"""``chroma``: a chromadb collection (cosine HNSW) fed by the shared frozen embedder.

Each item is upserted with its vector, its text as the document and its
source and timestamp as metadata, so hits report provenance. Nothing is
refused: a vector store has no gate.

Removal and count by id prefix: chroma filters on metadata and documents, not
on id prefixes, so both page through the collection's ids (no vectors or
documents fetched) and filter client-side. That is O(collection) per call;
fine for the protocol's cleanup, noted for large live stores.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import datetime
from typing import Any

from memory_bench_embed import Embedder

from memory_bench import Hit, Item, NotSupportedError, WriteResult

__all__ = ["ChromaMemory"]

_PAGE = 1000


class ChromaMemory:
    """A RAG memory on chromadb: upsert with metadata, query by cosine distance."""

    def __init__(self, embedder: Embedder, client: Any, collection: Any, *,
                 drop_on_close: bool = False) -> None:
        self.embedder = embedder
        self.client = client
        self.collection = collection
        self._drop = drop_on_close  # an in-memory collection: nothing else will read it
        self._max_batch = int(client.get_max_batch_size())

    def write(self, items: Sequence[Item]) -> list[WriteResult]:
        if not items:
            return []
        last = {item.id: i for i, item in enumerate(items)}  # a later copy of an id wins
        keep = [items[i] for i in sorted(last.values())]
        vectors = self.embedder.encode([item.text for item in keep])
        for start in range(0, len(keep), self._max_batch):
            chunk = keep[start : start + self._max_batch]
            self.collection.upsert(
                ids=[it.id for it in chunk],
                embeddings=vectors[start : start + len(chunk)],
                documents=[it.text for it in chunk],
                metadatas=[
                    {"source": it.source, "timestamp": it.timestamp.isoformat(),
                     "region": it.region}
                    for it in chunk
                ],
            )
        return [WriteResult(item.id, accepted=True) for item in items]

    def query(self, text: str, k: int) -> list[Hit]:
        if k <= 0:
            return []
        qvec = self.embedder.encode_query(text)
        res = self.collection.query(
            query_embeddings=qvec.reshape(1, -1),
            n_results=k,
            include=["metadatas", "distances"],
        )
        hits = []
        for iid, dist, meta in zip(
            res["ids"][0], res["distances"][0], res["metadatas"][0], strict=True
        ):
            meta = meta or {}
            ts = meta.get("timestamp")
            hits.append(
                Hit(
                    id=iid,
                    score=1.0 - float(dist),  # cosine distance -> cosine similarity
                    source=meta.get("source"),
                    timestamp=datetime.fromisoformat(ts) if isinstance(ts, str) else None,
                )
            )
        return hits

    def _ids(self) -> Iterator[str]:
        offset = 0
        while True:
            page = self.collection.get(include=[], limit=_PAGE, offset=offset)["ids"]
            yield from page
            if len(page) < _PAGE:
                return
            offset += len(page)

    def remove(self, prefix: str) -> int:
        doomed = [iid for iid in self._ids() if iid.startswith(prefix)]
        for start in range(0, len(doomed), self._max_batch):
            self.collection.delete(ids=doomed[start : start + self._max_batch])
        return len(doomed)

    def count(self, prefix: str) -> int:
        return sum(1 for iid in self._ids() if iid.startswith(prefix))

    def forget(self, ids: Sequence[str] = (), source: str | None = None,
               prefix: str = "") -> int:
        """Delete these ids (those stored) and the items of ``source`` (a metadata
        filter) under ``prefix``; how many went."""
        doomed: set[str] = set()
        wanted = list(dict.fromkeys(ids))
        for start in range(0, len(wanted), self._max_batch):
            chunk = wanted[start : start + self._max_batch]
            doomed.update(self.collection.get(ids=chunk, include=[])["ids"])
        if source is not None:
            found = self.collection.get(where={"source": source}, include=[])["ids"]
            doomed.update(i for i in found if i.startswith(prefix))
        gone = sorted(doomed)
        for start in range(0, len(gone), self._max_batch):
            self.collection.delete(ids=gone[start : start + self._max_batch])
        return len(gone)

    def strength(self, ids: Sequence[str]) -> list[float | None]:
        raise NotSupportedError("a vector store keeps no strength")

    def consolidate(self) -> dict[str, Any]:
        raise NotSupportedError("a vector store has no consolidation step")

    def stats(self) -> dict[str, Any]:
        return {**self.embedder.stats, "collection": self.collection.name}

    def close(self) -> None:
        try:
            if self._drop:
                self.client.delete_collection(self.collection.name)
            close = getattr(self.client, "close", None)
            if close is not None:
                close()
        finally:
            self.embedder.close()
