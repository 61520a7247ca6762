"""The docstore beside the vector index: what a RAG store keeps about each item.

A RAG stack keeps each chunk's text and metadata next to its vector, so it can
report where an answer came from. This docstore keeps the item's text, source,
timestamp and vector under an integer label that the faiss index uses, and is
the single place that maps item ids to labels.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime

import numpy as np

from memory_bench import Item

__all__ = ["Doc", "Docstore"]


@dataclass(frozen=True, slots=True)
class Doc:
    label: int
    item: Item
    vector: np.ndarray  # kept so an index without removal can be rebuilt


class Docstore:
    """Label <-> item id, with metadata; labels are never reused."""

    def __init__(self) -> None:
        self._by_label: dict[int, Doc] = {}
        self._label_of: dict[str, int] = {}
        self._next = 0
        self.latest: datetime | None = None  # newest timestamp ever written

    def __len__(self) -> int:
        return len(self._by_label)

    def add(self, item: Item, vector: np.ndarray) -> int:
        """Store ``item``; the caller removes an older copy of the same id first."""
        label = self._next
        self._next += 1
        self._by_label[label] = Doc(label, item, vector)
        self._label_of[item.id] = label
        if self.latest is None or item.timestamp > self.latest:
            self.latest = item.timestamp
        return label

    def label_of(self, item_id: str) -> int | None:
        return self._label_of.get(item_id)

    def get(self, label: int) -> Doc | None:
        return self._by_label.get(label)

    def labels_with_prefix(self, prefix: str) -> list[int]:
        return [lab for iid, lab in self._label_of.items() if iid.startswith(prefix)]

    def labels_of(self, ids: Iterable[str] = (), source: str | None = None,
                  prefix: str = "") -> list[int]:
        """Labels of the items with these ids, and of those of ``source`` under ``prefix``."""
        wanted = set(ids)
        return [d.label for d in self._by_label.values() if d.item.id in wanted
                or (source is not None and d.item.source == source
                    and d.item.id.startswith(prefix))]

    def discard(self, labels: list[int]) -> None:
        for label in labels:
            doc = self._by_label.pop(label, None)
            if doc is not None:
                del self._label_of[doc.item.id]

    def docs(self) -> Iterator[Doc]:
        return iter(self._by_label.values())
