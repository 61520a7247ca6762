"""The values that cross the backend boundary: items written, hits returned."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

__all__ = ["STRUCTURE", "Hit", "Item", "WriteResult", "parse_timestamp"]

# What an item carries beyond its text, source and timestamp. A backend that reads
# any of it declares so (``reads``), and a report marks its row when the scenario
# exposed it: tags are written only by scenarios that ask for them (structured).
STRUCTURE = ("tags", "region", "id")


def parse_timestamp(value: str) -> datetime:
    """Parse an ISO-8601 timestamp and insist it is timezone-aware."""
    ts = datetime.fromisoformat(value)
    if ts.tzinfo is None:
        raise ValueError(f"timestamp {value!r} has no timezone")
    return ts


@dataclass(frozen=True, slots=True)
class Item:
    """One thing the harness writes.

    ``timestamp`` comes from the scenario's logical clock, never the wall clock,
    so a run is reproducible. ``tags`` are free-form ``key:value`` strings,
    written only by a scenario that asks for structure (``structured = true``:
    ``subject:`` and ``relation:``); a backend that uses them declares it
    (``reads``) and its row is marked. Ids are opaque: the run's prefix, then
    a random token.
    """

    id: str
    text: str
    source: str
    timestamp: datetime
    region: str = "benchmark"
    tags: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.timestamp.tzinfo is None:
            raise ValueError(f"item {self.id}: timestamp must be timezone-aware")

    def tag(self, key: str) -> str | None:
        """The value of the first ``key:value`` tag, or None."""
        prefix = key + ":"
        for t in self.tags:
            if t.startswith(prefix):
                return t[len(prefix) :]
        return None

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "text": self.text,
            "source": self.source,
            "timestamp": self.timestamp.isoformat(),
            "region": self.region,
            "tags": list(self.tags),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Item:
        return cls(
            id=d["id"],
            text=d["text"],
            source=d["source"],
            timestamp=parse_timestamp(d["timestamp"]),
            region=d.get("region", "benchmark"),
            tags=tuple(d.get("tags", ())),
        )


@dataclass(frozen=True, slots=True)
class Hit:
    """One answer to a query, best first.

    ``id`` is the item id as written. ``source``, ``timestamp`` and ``strength``
    are None when the backend does not keep them; a backend that merged several
    items into one cell may list every source it keeps in ``sources``.
    """

    id: str
    score: float
    source: str | None = None
    timestamp: datetime | None = None
    strength: float | None = None
    sources: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "score": float(self.score),
            "source": self.source,
            "timestamp": self.timestamp.isoformat() if self.timestamp else None,
            "strength": None if self.strength is None else float(self.strength),
        }


@dataclass(frozen=True, slots=True)
class WriteResult:
    """The answer to writing one item: accepted, or refused with a reason."""

    id: str
    accepted: bool
    reason: str | None = None
    # When the backend folded the item into an existing cell (near-duplicate merge)
    # or linked it to one it supersedes, the id of that cell.
    merged_into: str | None = None
    supersedes: str | None = None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"id": self.id, "accepted": self.accepted}
        for key in ("reason", "merged_into", "supersedes"):
            value = getattr(self, key)
            if value is not None:
                d[key] = value
        return d
