"""Small deterministic backends for the core's tests, registered as a plugin would be.

- ``fake-perfect``: finds items by the subject tag named in the question, newest
  first; gate, strength, provenance, forget. Scores 1 on recall, provenance and gate.
- ``fake-forgetful``: the same retrieval, but keeps only the last ``capacity``
  items, so interference evicts the seeded facts.
- ``fake-noprov``: perfect retrieval, reports no source or timestamp, no gate,
  no strength.
- ``fake-broken-query``: raises on the first query (a failing backend).
"""

from __future__ import annotations

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

ETA = 0.1
START = 0.5


class SubjectMemory:
    def __init__(self, *, capacity: int = 0, provenance: bool = True, gate: bool = False) -> None:
        self.items: list[Item] = []
        self.capacity = capacity
        self.provenance = provenance
        self.gate = gate
        self.strengths: dict[str, float] = {}
        self.closed = 0

    def _refusal(self, item: Item) -> str | None:
        if not item.text.strip():
            return "empty"
        if len(item.text.split()) < 3:
            return "too_short"
        if any(i.text == item.text for i in self.items):
            return "duplicate"
        return None

    def write(self, items: Sequence[Item]) -> list[WriteResult]:
        out = []
        for item in items:
            reason = self._refusal(item) if self.gate else None
            if reason:
                out.append(WriteResult(item.id, False, reason))
                continue
            self.items.append(item)
            self.strengths[item.id] = START
            if self.capacity and len(self.items) > self.capacity:
                self.items.pop(0)
            out.append(WriteResult(item.id, True))
        return out

    def query(self, text: str, k: int) -> list[Hit]:
        subjects = {i.tag("subject") for i in self.items if i.tag("subject")}
        named = [s for s in subjects if s and s in text]
        if not named:
            return []
        subject = max(named, key=len)
        found = [i for i in self.items if i.tag("subject") == subject][::-1][:k]
        if found:
            top = found[0].id
            self.strengths[top] += ETA * (1 - self.strengths[top])
        return [
            Hit(
                id=i.id,
                score=1.0 / (n + 1),
                source=i.source if self.provenance else None,
                timestamp=i.timestamp if self.provenance else None,
                strength=self.strengths[i.id] if self.provenance else None,
            )
            for n, i in enumerate(found)
        ]

    def strength(self, ids: Sequence[str]) -> list[float | None]:
        return [self.strengths.get(i) for i in ids]

    def consolidate(self) -> dict[str, Any]:
        raise NotSupportedError

    def remove(self, prefix: str) -> int:
        before = len(self.items)
        self.items = [i for i in self.items if not i.id.startswith(prefix)]
        return before - len(self.items)

    def count(self, prefix: str) -> int:
        return sum(i.id.startswith(prefix) for i in self.items)

    def forget(self, ids: Sequence[str] = (), source: str | None = None,
               prefix: str = "") -> int:
        before = len(self.items)
        self.items = [i for i in self.items if not (i.id in ids or (
            source is not None and i.source == source and i.id.startswith(prefix)))]
        return before - len(self.items)

    def close(self) -> None:
        self.closed += 1


class BrokenQuery(SubjectMemory):
    def query(self, text: str, k: int) -> list[Hit]:
        raise RuntimeError("index corrupted")


def _perfect(options: dict[str, Any], ctx: BackendContext) -> SubjectMemory:
    return SubjectMemory(gate=True)


def _forgetful(options: dict[str, Any], ctx: BackendContext) -> SubjectMemory:
    return SubjectMemory(capacity=options["capacity"], gate=False)


def _noprov(options: dict[str, Any], ctx: BackendContext) -> SubjectMemory:
    return SubjectMemory(provenance=False)


def _broken(options: dict[str, Any], ctx: BackendContext) -> SubjectMemory:
    return BrokenQuery()


@hookimpl
def memory_bench_register_backends(registry) -> None:
    registry.add(
        "fake-perfect",
        factory=_perfect,
        description="test: perfect recall by subject tag",
        version="0.0.1",
        reads=["tags"],
        capabilities=[Capability.PROVENANCE, Capability.STRENGTH, Capability.GATE,
                      Capability.FORGET],
        notes=["uses subject tags (test backend)"],
    )
    registry.add(
        "fake-forgetful",
        factory=_forgetful,
        description="test: keeps only the last `capacity` items",
        version="0.0.1",
        reads=["tags"],
        capabilities=[Capability.PROVENANCE],
        options=[Option("capacity", int, 24, "items kept", minimum=1)],
    )
    registry.add(
        "fake-noprov",
        factory=_noprov,
        description="test: perfect recall, no provenance",
        version="0.0.1",
        reads=["tags"],
    )
    registry.add(
        "fake-broken-query",
        factory=_broken,
        description="test: raises on query",
        version="0.0.1",
        reads=["tags"],
    )
