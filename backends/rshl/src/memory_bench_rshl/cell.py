"""A lattice cell: text, provenance, strength and lineage of one stored fact."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

__all__ = ["Cell", "Provenance", "from_epoch", "to_epoch"]


def to_epoch(ts: datetime) -> float:
    """Logical time as float seconds (the lattice never reads the wall clock)."""
    return ts.timestamp()


def from_epoch(t: float) -> datetime:
    return datetime.fromtimestamp(t, tz=UTC)


@dataclass(slots=True)  # no per-object __dict__: a lattice holds one per item
class Provenance:
    """Where one written item came from; a merged cell keeps one per item."""

    id: str
    source: str
    timestamp: datetime
    norm: str = ""  # the item's whitespace-normalised text: the exact-duplicate key

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "source": self.source,
            "timestamp": self.timestamp.isoformat(),
            "norm": self.norm,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Provenance:
        return cls(d["id"], d["source"], datetime.fromisoformat(d["timestamp"]), d["norm"])


@dataclass(slots=True)
class Cell:
    """One stored fact. ``provenance[0]`` is the item the cell is named after.

    Strength is stored as ``strength`` at logical time ``t_ref`` and decayed
    lazily on read; ``superseded_by``/``supersedes`` form the lineage.
    """

    text: str
    region: str
    provenance: list[Provenance]
    strength: float
    t_ref: float
    retrievals: int = 0
    last_retrieval: float | None = None
    key: tuple[str, str] | None = None  # (subject, relation) from tags
    subject: str | None = None  # text-derived subject, for the tag-free fallback
    superseded_by: str | None = None
    supersedes: list[str] = field(default_factory=list)

    @property
    def id(self) -> str:
        return self.provenance[0].id

    @property
    def source(self) -> str:
        return self.provenance[0].source

    @property
    def timestamp(self) -> datetime:
        return self.provenance[0].timestamp

    def sources(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(p.source for p in self.provenance))

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "region": self.region,
            "provenance": [p.to_dict() for p in self.provenance],
            "strength": self.strength,
            "t_ref": self.t_ref,
            "retrievals": self.retrievals,
            "last_retrieval": self.last_retrieval,
            "key": list(self.key) if self.key else None,
            "subject": self.subject,
            "superseded_by": self.superseded_by,
            "supersedes": list(self.supersedes),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Cell:
        return cls(
            text=d["text"],
            region=d["region"],
            provenance=[Provenance.from_dict(p) for p in d["provenance"]],
            strength=float(d["strength"]),
            t_ref=float(d["t_ref"]),
            retrievals=int(d["retrievals"]),
            last_retrieval=d["last_retrieval"],
            key=tuple(d["key"]) if d["key"] else None,  # type: ignore[arg-type]
            subject=d["subject"],
            superseded_by=d["superseded_by"],
            supersedes=list(d["supersedes"]),
        )
