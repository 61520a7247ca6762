"""A reference backend for the dataset tests, registered as a plugin would be.

``fake-recency`` answers every question with the k items written last, newest
first: the trivial rule whose score the dataset generators state in their
``recency_baseline`` data statistics. It keeps provenance.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memory_bench import (
    Capability,
    Hit,
    Item,
    NotSupportedError,
    WriteResult,
    hookimpl,
)


class RecencyMemory:
    def __init__(self) -> None:
        self.items: list[Item] = []

    def write(self, items: Sequence[Item]) -> list[WriteResult]:
        self.items += items
        return [WriteResult(i.id, True) for i in items]

    def query(self, text: str, k: int) -> list[Hit]:
        return [Hit(i.id, 1.0, source=i.source, timestamp=i.timestamp)
                for i in self.items[::-1][:k]]

    def strength(self, ids: Sequence[str]) -> list[float | None]:
        raise NotSupportedError("no strength")

    def consolidate(self) -> dict[str, Any]:
        raise NotSupportedError("no sleep")

    def remove(self, prefix: str) -> int:
        before = len(self.items)
        self.items = [i for i in self.items if not i.id.startswith(prefix)]
        return before - len(self.items)

    def count(self, prefix: str) -> int:
        return sum(i.id.startswith(prefix) for i in self.items)

    def close(self) -> None:
        self.items = []


@hookimpl
def memory_bench_register_backends(registry) -> None:
    registry.add("fake-recency", factory=lambda options, ctx: RecencyMemory(),
                 description="the k items written last (a reference rule)", version="0",
                 capabilities=[Capability.PROVENANCE])
