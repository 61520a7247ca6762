"""``qdrant``: a Qdrant collection (cosine) fed by the shared frozen embedder.

Qdrant point ids must be unsigned integers or UUIDs, so each item's point id
is ``uuid5(item id)`` (writing an id again replaces its point: upsert) and the
item id itself lives in the payload, with the text, source and timestamp.

Prefix removal and count go through a payload filter: each point carries
every prefix of its item id in a keyword field (``id_prefixes``), so
``count("bench-<run>-")`` is an exact ``MatchValue`` on an indexed field,
answered by Qdrant itself, with no scan of the ids on the client.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from memory_bench_embed import Embedder

from memory_bench import Hit, Item, NotSupportedError, WriteResult

__all__ = ["PREFIXES", "QdrantMemory", "point_id"]

PREFIXES = "id_prefixes"  # payload field: every prefix of the item id
_NAMESPACE = uuid.UUID("6f1c8a52-3d0e-4b7a-9c55-0b8f3a2d7e41")  # memory-bench's, fixed
_BATCH = 256


def point_id(item_id: str) -> str:
    """The Qdrant point id of an item id: a UUID, the same on every machine."""
    return str(uuid.uuid5(_NAMESPACE, item_id))


def _prefixes(item_id: str) -> list[str]:
    return [item_id[:n] for n in range(1, len(item_id) + 1)]


class QdrantMemory:
    """A RAG memory on Qdrant: upsert with payload, query by cosine similarity."""

    def __init__(self, embedder: Embedder, client: Any, collection: str,
                 search_params: Any = None) -> None:
        from qdrant_client import models

        self.embedder = embedder
        self.client = client
        self.collection = collection
        self.search_params = search_params
        self._models = models

    def write(self, items: Sequence[Item]) -> list[WriteResult]:
        if not items:
            return []
        m = self._models
        last = {item.id: i for i, item in enumerate(items)}  # a later copy of an id wins
        keep = [items[i] for i in sorted(last.values())]
        vectors = self.embedder.encode([item.text for item in keep])
        points = [
            m.PointStruct(
                id=point_id(it.id),
                vector=vec.tolist(),
                payload={"item_id": it.id, "text": it.text, "source": it.source,
                         "timestamp": it.timestamp.isoformat(), "region": it.region,
                         PREFIXES: _prefixes(it.id)},
            )
            for it, vec in zip(keep, vectors, strict=True)
        ]
        for start in range(0, len(points), _BATCH):
            self.client.upsert(self.collection, points=points[start : start + _BATCH], wait=True)
        return [WriteResult(item.id, accepted=True) for item in items]

    def query(self, text: str, k: int) -> list[Hit]:
        if k <= 0:
            return []
        qvec = self.embedder.encode_query(text)
        res = self.client.query_points(
            self.collection, query=qvec.tolist(), limit=k, with_payload=True,
            search_params=self.search_params,
        )
        hits = []
        for p in res.points:
            payload = p.payload or {}
            ts = payload.get("timestamp")
            hits.append(Hit(
                id=str(payload.get("item_id", p.id)),
                score=float(p.score),  # cosine similarity
                source=payload.get("source"),
                timestamp=datetime.fromisoformat(ts) if isinstance(ts, str) else None,
            ))
        return hits

    def _filter(self, prefix: str) -> Any:
        if not prefix:
            return None  # every id starts with ""
        m = self._models
        return m.Filter(must=[m.FieldCondition(key=PREFIXES, match=m.MatchValue(value=prefix))])

    def count(self, prefix: str) -> int:
        return int(self.client.count(self.collection, count_filter=self._filter(prefix),
                                     exact=True).count)

    def remove(self, prefix: str) -> int:
        n = self.count(prefix)
        if n:
            selector = self._models.FilterSelector(filter=self._filter(prefix)) if prefix else (
                self._models.FilterSelector(filter=self._models.Filter()))
            self.client.delete(self.collection, points_selector=selector, wait=True)
        return n

    def forget(self, ids: Sequence[str] = (), source: str | None = None,
               prefix: str = "") -> int:
        """Delete the points of these ids (those that exist) and, by a payload filter,
        those of ``source`` under ``prefix``; how many points went."""
        m = self._models
        doomed: set[str] = set()
        wanted = [point_id(i) for i in dict.fromkeys(ids)]
        for start in range(0, len(wanted), _BATCH):
            found = self.client.retrieve(self.collection, ids=wanted[start : start + _BATCH],
                                         with_payload=False, with_vectors=False)
            doomed.update(str(p.id) for p in found)
        if source is not None:
            must = [m.FieldCondition(key="source", match=m.MatchValue(value=source))]
            if prefix:
                must.append(m.FieldCondition(key=PREFIXES, match=m.MatchValue(value=prefix)))
            offset = None
            while True:
                page, offset = self.client.scroll(
                    self.collection, scroll_filter=m.Filter(must=must), limit=_BATCH,
                    offset=offset, with_payload=False, with_vectors=False)
                doomed.update(str(p.id) for p in page)
                if offset is None:
                    break
        if doomed:
            self.client.delete(self.collection, points_selector=m.PointIdsList(
                points=sorted(doomed)), wait=True)
        return len(doomed)

    def strength(self, ids: Sequence[str]) -> list[float | None]:
        raise NotSupportedError("a vector store keeps no strength")

    def consolidate(self) -> dict[str, Any]:
        raise NotSupportedError("a vector store has no consolidation step")

    def stats(self) -> dict[str, Any]:
        return {**self.embedder.stats, "collection": self.collection}

    def close(self) -> None:
        try:
            self.client.close()
        finally:
            self.embedder.close()
