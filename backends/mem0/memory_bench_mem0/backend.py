"""``mem0``: Mem0's open-source ``Memory`` in store-only mode, through the Backend protocol.

Every item is one ``Memory.add(text, user_id=..., metadata=..., infer=False)``:
mem0's ADD-only path, which embeds the text with mem0's embedder (the shared
one by default, or mem0's own ``huggingface``), lemmatises it and inserts it
into its vector store with no LLM. The item id and
source go in the metadata, the item's timestamp in ``created_at`` (mem0 keeps
a ``created_at`` it is given), so hits report the provenance mem0 returns.
Queries are ``Memory.search(question, filters={"user_id": ...}, top_k=k)``:
mem0's scoring and ranking, as they are (see the README for what they do).

mem0 names memories by UUIDs of its own; :class:`~memory_bench_mem0.ids.IdMap`
maps item ids to them, for replacement, removal and count by prefix.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from memory_bench_embed.model import mark_inference, torch_threads

from memory_bench import Hit, Item, NotSupportedError, WriteResult
from memory_bench_mem0.ids import IdMap

__all__ = ["Mem0Memory"]


class Mem0Memory:
    """A mem0 ``Memory`` scoped to one user id, fed and asked one item at a time."""

    def __init__(self, memory: Any, ids: IdMap, *, user_id: str, threshold: float,
                 threads: int | None, own_store: bool = False, embedder: Any = None) -> None:
        self.memory = memory
        self.embedder = embedder  # the shared embedder mem0 was given (None: mem0's own)
        self.ids = ids
        # The store is this backend's own (the pair's workdir), holding nothing but what
        # the table maps: removing everything may then be mem0's reset().
        self.own_store = own_store
        self.user_id = user_id
        self.threshold = threshold
        self.threads = threads

    def write(self, items: Sequence[Item]) -> list[WriteResult]:
        mapped: dict[str, str] = {}
        try:
            with torch_threads(self.threads):
                for item in items:
                    old = mapped.pop(item.id, None) or self.ids.get(item.id)
                    if old is not None:  # writing an id again replaces it, as in a vector store
                        self._delete(old)
                    if self.embedder is None:
                        mark_inference()  # mem0 runs torch here: forking this is unsafe
                    out = self.memory.add(
                        item.text, user_id=self.user_id, infer=False,
                        metadata={"item_id": item.id, "source": item.source,
                                  "created_at": item.timestamp.isoformat()},
                    )
                    added = [r for r in out.get("results", []) if r.get("event") == "ADD"]
                    if len(added) != 1:
                        raise RuntimeError(f"mem0 add of {item.id} returned {out!r}, "
                                           "not one ADD")
                    mapped[item.id] = str(added[0]["id"])
        finally:  # one commit per call; what mem0 stored before a failure stays removable
            self.ids.put(list(mapped.items()))
        return [WriteResult(item.id, accepted=True) for item in items]

    def query(self, text: str, k: int) -> list[Hit]:
        if k <= 0:
            return []
        if self.embedder is None:
            mark_inference()
        with torch_threads(self.threads):
            found = self.memory.search(text, filters={"user_id": self.user_id}, top_k=k,
                                       threshold=self.threshold)
        hits = []
        for r in found.get("results", []):
            meta = r.get("metadata") or {}
            created = r.get("created_at")
            hits.append(Hit(
                # A memory written outside the benchmark (a live store) has no item id.
                id=str(meta.get("item_id") or f"mem0:{r['id']}"),
                score=float(r["score"]),
                source=meta.get("source"),
                timestamp=datetime.fromisoformat(created) if isinstance(created, str) else None,
            ))
        return hits

    def _delete(self, memory_id: str) -> None:
        with contextlib.suppress(ValueError):  # "Memory with id ... not found": gone already
            self.memory.delete(memory_id)

    def remove(self, prefix: str) -> int:
        doomed = self.ids.under(prefix)
        if self.own_store and doomed and len(doomed) == self.ids.count(""):
            # Everything, in a store of our own: one reset instead of one delete per
            # memory (each rebuilds mem0's FAISS index and rewrites its docstore).
            self.memory.reset()
        else:
            for _, memory_id in doomed:
                self._delete(memory_id)
        self.ids.drop([item_id for item_id, _ in doomed])
        return len(doomed)

    def count(self, prefix: str) -> int:
        return self.ids.count(prefix)

    def strength(self, ids: Sequence[str]) -> list[float | None]:
        raise NotSupportedError("mem0 keeps no per-memory strength")

    def consolidate(self) -> dict[str, Any]:
        raise NotSupportedError("mem0's store-only mode has no consolidation step")

    def close(self) -> None:
        try:
            self.memory.close()  # the history database
            client = getattr(self.memory.vector_store, "client", None)
            if client is not None and hasattr(client, "close"):
                client.close()  # a local qdrant holds a lock on its directory
        finally:
            self.ids.close()
            if self.embedder is not None:
                self.embedder.close()
