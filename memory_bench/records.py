"""Per-probe records: what the runner saw, kept in the result file.

Every metric is computed from these (``metrics.py``), so a reader who does not
trust the harness can recompute any number from the result file alone.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = ["GateRecord", "ProbeRecord", "ReinforceRecord", "SeedRecords", "WriteRecord"]


@dataclass
class ProbeRecord:
    """One query: the question, the expected id, the ids returned in order, the latency.

    ``top_*`` is what the backend reported for its top hit; ``written_*`` is what
    the harness wrote for the item that hit names (None when the id is unknown).
    """

    phase: str  # probe | reprobe | update | reinforce
    question: str
    expected: str
    returned: list[str]
    scores: list[float]
    latency_ms: float
    old: str | None = None  # update probes: the superseded fact's id
    top_source: str | None = None
    top_timestamp: str | None = None
    written_source: str | None = None
    written_timestamp: str | None = None

    def rank(self, item_id: str | None) -> int | None:
        """1-based rank of ``item_id`` in the returned ids, or None."""
        if item_id is None:
            return None
        try:
            return self.returned.index(item_id) + 1
        except ValueError:
            return None


@dataclass
class WriteRecord:
    """One write call: phase, item count, accepted count, wall seconds."""

    phase: str  # seed | interfere | update | gate
    items: int
    accepted: int
    seconds: float


@dataclass
class GateRecord:
    """One gate item: what kind it was and what the backend did with it."""

    id: str
    kind: str  # empty | short | duplicate | clean
    refusable: bool
    accepted: bool
    reason: str | None = None


@dataclass
class ReinforceRecord:
    """Strength of one cell before and after ``queries`` retrievals by its question."""

    id: str
    before: float | None
    after: float | None
    queries: int


@dataclass
class SeedRecords:
    """Everything one (backend, seed) pair produced."""

    probes: list[ProbeRecord] = field(default_factory=list)
    writes: list[WriteRecord] = field(default_factory=list)
    gate: list[GateRecord] = field(default_factory=list)
    reinforce: list[ReinforceRecord] = field(default_factory=list)
    consolidation: dict[str, Any] | None = None
    cleanup: dict[str, Any] | None = None

    def phase(self, name: str) -> list[ProbeRecord]:
        return [p for p in self.probes if p.phase == name]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> SeedRecords:
        return cls(
            probes=[ProbeRecord(**p) for p in d.get("probes", [])],
            writes=[WriteRecord(**w) for w in d.get("writes", [])],
            gate=[GateRecord(**g) for g in d.get("gate", [])],
            reinforce=[ReinforceRecord(**r) for r in d.get("reinforce", [])],
            consolidation=d.get("consolidation"),
            cleanup=d.get("cleanup"),
        )
