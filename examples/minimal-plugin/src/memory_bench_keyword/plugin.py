"""A complete memory-bench backend plugin in one file: a keyword-overlap memory."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from memory_bench import (
    BackendContext,
    Capability,
    Hit,
    Item,
    NotSupportedError,
    Option,
    WriteResult,
    hookimpl,
)

__version__ = "0.1.0"
STOP = {"the", "a", "an", "of", "is", "in", "who", "what", "which", "where", "does", "was"}


def words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in STOP}


class KeywordMemory:
    """Scores each stored item by the share of the question's words it contains."""

    def __init__(self, min_overlap: float) -> None:
        self.items: dict[str, Item] = {}
        self.min_overlap = min_overlap

    def write(self, items: Sequence[Item]) -> list[WriteResult]:
        for item in items:
            self.items[item.id] = item
        return [WriteResult(item.id, accepted=True) for item in items]

    def query(self, text: str, k: int) -> list[Hit]:
        q = words(text)
        scored = []
        for item in self.items.values():
            score = len(q & words(item.text)) / max(len(q), 1)
            if score >= self.min_overlap:
                # Ties go to the newest item: a later fact should win.
                scored.append((score, item.timestamp, item))
        scored.sort(key=lambda t: (t[0], t[1]), reverse=True)
        return [
            Hit(id=i.id, score=s, source=i.source, timestamp=i.timestamp)
            for s, _, i in scored[:k]
        ]

    def strength(self, ids: Sequence[str]) -> list[float | None]:
        raise NotSupportedError("no strength")

    def consolidate(self) -> dict[str, Any]:
        raise NotSupportedError("no sleep")

    def remove(self, prefix: str) -> int:
        gone = [i for i in self.items if i.startswith(prefix)]
        for i in gone:
            del self.items[i]
        return len(gone)

    def count(self, prefix: str) -> int:
        return sum(i.startswith(prefix) for i in self.items)

    def close(self) -> None:
        self.items.clear()


def create(options: dict[str, Any], ctx: BackendContext) -> KeywordMemory:
    # Heavy imports (torch, faiss, ...) would go here, never at module level.
    return KeywordMemory(min_overlap=options["min_overlap"])


@hookimpl
def memory_bench_register_backends(registry) -> None:
    registry.add(
        "keyword",
        factory=create,
        description="Keyword overlap over stored texts (example plugin)",
        version=__version__,
        capabilities=[Capability.PROVENANCE],
        options=[Option("min_overlap", float, 0.0, "drop hits below this overlap", minimum=0.0)],
        notes=["A teaching example, not a baseline."],
    )
