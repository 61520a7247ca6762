"""Supersession by key, as a RAG store with versioned records does it.

With ``supersede=tags`` an item carrying ``subject:`` and ``relation:`` tags is
a version of the value for that (subject, relation) key. Only the newest
version (latest timestamp; the later write on a tie) is current; older ones
stay in the docstore, with their provenance, but are hidden from search, as
a metadata filter ``current == true`` would hide them. Removing the current
version makes the newest remaining one current again.

This uses the scenario generator's tags: the same information ``rshl``'s
``supersede=auto`` uses, so the comparison can give both sides the same keys.
"""

from __future__ import annotations

from datetime import datetime

from memory_bench import Item

__all__ = ["Versions"]

Key = tuple[str, str]


class Versions:
    """Key -> labels holding a value for it; every label but the newest is hidden."""

    def __init__(self) -> None:
        self._versions: dict[Key, list[tuple[datetime, int]]] = {}
        self._key_of: dict[int, Key] = {}
        self.hidden: set[int] = set()

    @staticmethod
    def key(item: Item) -> Key | None:
        subject, relation = item.tag("subject"), item.tag("relation")
        if not subject or not relation:
            return None
        return subject.strip().lower(), relation.strip().lower()

    def current(self, key: Key) -> int | None:
        versions = self._versions.get(key)
        return max(versions)[1] if versions else None

    def add(self, label: int, item: Item) -> int | None:
        """Record ``label``; return the label it superseded, if it became current."""
        key = self.key(item)
        if key is None:
            return None
        before = self.current(key)
        self._versions.setdefault(key, []).append((item.timestamp, label))
        self._key_of[label] = key
        self._refresh(key)
        now = self.current(key)
        return before if now == label and before is not None else None

    def discard(self, labels: list[int]) -> None:
        touched: set[Key] = set()
        for label in labels:
            key = self._key_of.pop(label, None)
            if key is None:
                continue
            self._versions[key] = [v for v in self._versions[key] if v[1] != label]
            self.hidden.discard(label)
            touched.add(key)
        for key in touched:
            if not self._versions[key]:
                del self._versions[key]
            else:
                self._refresh(key)

    def _refresh(self, key: Key) -> None:
        versions = self._versions[key]
        newest = max(versions)[1]
        for _, label in versions:
            if label == newest:
                self.hidden.discard(label)
            else:
                self.hidden.add(label)
