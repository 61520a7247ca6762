"""Backends that break one promise each, for the conformance kit and the runner's checks.

``kit-good`` keeps every promise with every capability (a word-overlap memory,
persisted as JSON in its workdir); every other backend is ``kit-good`` with
one defect, named by the backend and the docstring of its class.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

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

ALL = [Capability.PROVENANCE, Capability.STRENGTH, Capability.GATE, Capability.CONSOLIDATE,
       Capability.PERSISTENT, Capability.FORGET]


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


class Good:
    """Word overlap, best first; a gate for empty text; strength grows with retrieval."""

    def __init__(self, workdir: Path) -> None:
        self.file = workdir / "good.json"
        self.items: dict[str, Item] = {}
        self.strengths: dict[str, float] = {}
        if self.file.exists():
            for d in json.loads(self.file.read_text()):
                self.items[d["id"]] = Item.from_dict(d)
                self.strengths[d["id"]] = 0.3

    def _refusal(self, item: Item) -> str | None:
        return "empty" if not item.text.strip() else None

    def write(self, items: Sequence[Item]) -> list[WriteResult]:
        out = []
        for item in items:
            reason = self._refusal(item)
            if reason is None:
                self.items[item.id] = item
                self.strengths[item.id] = 0.3
            out.append(WriteResult(item.id, reason is None, reason))
        return out

    def _ranked(self, text: str) -> list[tuple[float, Item]]:
        q = _words(text)
        scored = [(len(q & _words(i.text)) / max(len(q), 1), i) for i in self.items.values()]
        scored = [(s, i) for s, i in scored if s > 0]
        scored.sort(key=lambda t: (-t[0], t[1].id))
        return scored

    def query(self, text: str, k: int) -> list[Hit]:
        ranked = self._ranked(text)[:k]
        if ranked:
            top = ranked[0][1].id
            self.strengths[top] += 0.1 * (1 - self.strengths[top])
        return [Hit(i.id, s, i.source, i.timestamp, self.strengths[i.id]) for s, i in ranked]

    def strength(self, ids: Sequence[str]) -> list[float | None]:
        return [self.strengths.get(i) for i in ids]

    def consolidate(self) -> dict[str, Any]:
        return {"pruned": 0}

    def remove(self, prefix: str) -> int:
        gone = [i for i in self.items if i.startswith(prefix)]
        for i in gone:
            del self.items[i]
        return len(gone)

    def count(self, prefix: str) -> int:
        return sum(i.startswith(prefix) for i in self.items)

    def forget(self, ids: Sequence[str] = (), source: str | None = None,
               prefix: str = "") -> int:
        gone = [i for i, it in self.items.items() if i in set(ids)
                or (source is not None and it.source == source and i.startswith(prefix))]
        for i in gone:
            del self.items[i]
        return len(gone)

    def close(self) -> None:
        self.file.write_text(json.dumps([i.to_dict() for i in self.items.values()]))


class TooMany(Good):
    """Returns every match, whatever k."""

    def query(self, text: str, k: int) -> list[Hit]:
        return super().query(text, 10_000)


class Stranger(Good):
    """Returns its own row numbers instead of the ids it was given."""

    def query(self, text: str, k: int) -> list[Hit]:
        return [Hit(str(n), h.score) for n, h in enumerate(super().query(text, k))]


class WorstFirst(Good):
    """Returns the top k worst first."""

    def query(self, text: str, k: int) -> list[Hit]:
        return super().query(text, k)[::-1]


class NanScore(Good):
    """Scores every hit NaN."""

    def query(self, text: str, k: int) -> list[Hit]:
        return [Hit(h.id, float("nan"), h.source, h.timestamp) for h in super().query(text, k)]


class ShortWrite(Good):
    """Answers a write of n items with n - 1 results."""

    def write(self, items: Sequence[Item]) -> list[WriteResult]:
        return super().write(items)[:-1] if len(items) > 1 else super().write(items)


class LyingProvenance(Good):
    """Reports the write time of the newest item for every hit."""

    def query(self, text: str, k: int) -> list[Hit]:
        newest = max(i.timestamp for i in self.items.values()) if self.items else None
        return [Hit(h.id, h.score, h.source, newest) for h in super().query(text, k)]


class OpenGate(Good):
    """Declares a gate that refuses nothing."""

    def _refusal(self, item: Item) -> str | None:
        return None


class FixedStrength(Good):
    """Declares strength that never changes."""

    def strength(self, ids: Sequence[str]) -> list[float | None]:
        return [0.5 if i in self.items else None for i in ids]


class LeakyRemove(Good):
    """Says it removed what it keeps."""

    def remove(self, prefix: str) -> int:
        return self.count(prefix)


class LikePrefix(Good):
    """Matches a prefix as an unescaped SQL LIKE pattern (`_`: any character, `%`: any)."""

    def _match(self, prefix: str) -> Any:
        import re

        pattern = "".join(".*" if c == "%" else "." if c == "_" else re.escape(c)
                          for c in prefix)
        return re.compile(pattern).match

    def remove(self, prefix: str) -> int:
        gone = [i for i in self.items if self._match(prefix)(i)]
        for i in gone:
            del self.items[i]
        return len(gone)

    def count(self, prefix: str) -> int:
        return sum(bool(self._match(prefix)(i)) for i in self.items)


class Shared(Good):
    """Keeps one store for every instance (state shared between pairs)."""

    STORE: ClassVar[dict[str, Item]] = {}

    def __init__(self, workdir: Path) -> None:
        super().__init__(workdir)
        self.items = Shared.STORE


class Forgetful(Good):
    """Declares persistent, keeps nothing across a reopen."""

    def close(self) -> None:
        pass


class NoForget(Good):
    """Declares forget and does not implement it."""

    def forget(self, ids: Sequence[str] = (), source: str | None = None,
               prefix: str = "") -> int:
        raise NotSupportedError("no forgetting here")


class SourceDeaf(Good):
    """Forgets by id and ignores the source."""

    def forget(self, ids: Sequence[str] = (), source: str | None = None,
               prefix: str = "") -> int:
        return super().forget(ids)


class HiddenForget(Good):
    """Forget hides items from count but query still returns them."""

    def __init__(self, workdir: Path) -> None:
        super().__init__(workdir)
        self.hidden: set[str] = set()

    def forget(self, ids: Sequence[str] = (), source: str | None = None,
               prefix: str = "") -> int:
        new = {i for i, it in self.items.items() if i not in self.hidden and (
            i in set(ids) or (source is not None and it.source == source))}
        self.hidden |= new
        return len(new)

    def count(self, prefix: str) -> int:
        return sum(i.startswith(prefix) and i not in self.hidden for i in self.items)


class Shuffled(Good):
    """Keeps the scores in descending order but shuffles the ids under them (a fixed
    shuffle for each k: every answer looks well-formed, the top 3 still hold the
    item's own text)."""

    def query(self, text: str, k: int) -> list[Hit]:
        import random

        hits = super().query(text, k)
        ids = [h.id for h in hits]
        random.Random(k).shuffle(ids)
        return [Hit(i, h.score, self.items[i].source, self.items[i].timestamp)
                for i, h in zip(ids, hits, strict=True)]


class Stale(Good):
    """Ranks an id by the text it was first written with: a re-write updates the stored
    item but not its vector."""

    def __init__(self, workdir: Path) -> None:
        super().__init__(workdir)
        self.indexed: dict[str, str] = {i: it.text for i, it in self.items.items()}

    def write(self, items: Sequence[Item]) -> list[WriteResult]:
        for item in items:
            self.indexed.setdefault(item.id, item.text)
        return super().write(items)

    def _ranked(self, text: str) -> list[tuple[float, Item]]:
        q = _words(text)
        scored = [(len(q & _words(self.indexed.get(i.id, i.text))) / max(len(q), 1), i)
                  for i in self.items.values()]
        scored = [(s, i) for s, i in scored if s > 0]
        scored.sort(key=lambda t: (-t[0], t[1].id))
        return scored


class QueryBlind(Good):
    """Returns the newest k items whatever the question, scored by recency."""

    def query(self, text: str, k: int) -> list[Hit]:
        newest = sorted(self.items.values(), key=lambda i: (i.timestamp, i.id))[::-1][:k]
        return [Hit(i.id, 1.0 / (n + 1), i.source, i.timestamp) for n, i in enumerate(newest)]


class ShortK(Good):
    """Returns at most 2 hits whatever k (an adapter with its own k)."""

    def query(self, text: str, k: int) -> list[Hit]:
        return super().query(text, min(k, 2))


class LiveStore(Good):
    """Not broken: a live store that already holds a note of its user's, which queries
    may return (an id the harness never gave it, outside the harness's prefix)."""

    NOTE = "note-of-the-user"

    def __init__(self, workdir: Path) -> None:
        super().__init__(workdir)
        from datetime import UTC, datetime

        self.items[self.NOTE] = Item(self.NOTE, "Mara Olsen and Ivo Brandt: call on Tuesday",
                                     "user", datetime(2020, 1, 1, tzinfo=UTC))
        self.strengths[self.NOTE] = 0.3


def _make(cls: type[Good]) -> Any:
    def factory(options: dict[str, Any], ctx: BackendContext) -> Good:
        return cls(ctx.workdir)

    return factory


BROKEN: dict[str, tuple[type[Good], list[Capability], str]] = {
    # name: (class, capabilities, the check that must fail)
    "kit-too-many": (TooMany, ALL, "query"),
    "kit-stranger": (Stranger, [], "query"),
    "kit-worst-first": (WorstFirst, [], "query"),
    "kit-nan": (NanScore, [], "query"),
    "kit-short-write": (ShortWrite, [], "write"),
    "kit-lying-provenance": (LyingProvenance, [Capability.PROVENANCE], "provenance"),
    "kit-open-gate": (OpenGate, [Capability.GATE], "gate"),
    "kit-fixed-strength": (FixedStrength, [Capability.STRENGTH], "strength"),
    "kit-leaky-remove": (LeakyRemove, [], "remove-count"),
    "kit-like-prefix": (LikePrefix, [], "prefix-literal"),
    "kit-shared": (Shared, [], "fresh-store"),
    "kit-forgetful": (Forgetful, [Capability.PERSISTENT], "persistent"),
    "kit-no-forget": (NoForget, [Capability.FORGET], "forget"),
    "kit-source-deaf": (SourceDeaf, [Capability.FORGET], "forget"),
    "kit-hidden-forget": (HiddenForget, [Capability.FORGET], "forget"),
    "kit-shuffled": (Shuffled, [], "whole-list"),
    "kit-stale": (Stale, [], "rewrite"),
    "kit-query-blind": (QueryBlind, [], "query-blind"),
    "kit-short-k": (ShortK, [], "whole-list"),
}


@hookimpl
def memory_bench_register_backends(registry) -> None:
    registry.add("kit-good", factory=_make(Good), description="test: keeps every promise",
                 version="0.0.1", capabilities=ALL)
    for name, (cls, caps, _) in BROKEN.items():
        registry.add(name, factory=_make(cls), description=f"test: {cls.__doc__}",
                     version="0.0.1", capabilities=caps)
    registry.add("kit-live", factory=_make(LiveStore), description=f"test: {LiveStore.__doc__}",
                 version="0.0.1", capabilities=[Capability.PROVENANCE, Capability.PERSISTENT])
    registry.add("kit-bad-default", factory=_make(Good), version="0.0.1",
                 description="test: an option whose default its declaration refuses",
                 options=[Option("k", int, "five", "a number")])
