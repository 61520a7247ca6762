"""The continual protocol's data for one seed: facts, noise, updates, gate, reinforce.

A generator of the continual kind (templated, natural) makes this; the
continual script (``script.py``) turns it into steps. Its hash is the one the
result records for the seed, so it is computed here, from the unbound data.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from memory_bench.contract.items import Item

__all__ = ["UNBOUND_RUN", "Fact", "GateCase", "ScenarioData", "Update"]

# Generators write ids and sources with this run tag (``bench-RUN-...``, the
# script's unbound prefix); the runner binds the real one. The data hash is taken
# before binding, so it depends on the parameters and the seed only.
UNBOUND_RUN = "RUN"


@dataclass(frozen=True)
class Fact:
    """A seeded fact and the question that probes it."""

    item: Item
    question: str
    subject: str
    relation: str
    value: str


@dataclass(frozen=True)
class Update:
    """A new value for facts[fact]; probed with ``question``."""

    fact: int
    item: Item
    question: str
    value: str


@dataclass(frozen=True)
class GateCase:
    """An item of the gate phase; ``kind`` is empty, short, duplicate or clean."""

    item: Item
    kind: str

    @property
    def refusable(self) -> bool:
        return self.kind != "clean"


@dataclass(frozen=True)
class ScenarioData:
    """Everything one seed of a scenario writes and asks, in phase order."""

    seed: int
    facts: tuple[Fact, ...]
    noise: tuple[Item, ...]
    updates: tuple[Update, ...]
    gate: tuple[GateCase, ...]
    reinforce: tuple[int, ...]  # indices into facts
    run: str = UNBOUND_RUN
    # Facts about the data a reader should know (e.g. question/fact overlap).
    stats: dict[str, Any] = field(default_factory=dict, compare=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "seed": self.seed,
            "facts": [
                {
                    "item": f.item.to_dict(),
                    "question": f.question,
                    "subject": f.subject,
                    "relation": f.relation,
                    "value": f.value,
                }
                for f in self.facts
            ],
            "noise": [i.to_dict() for i in self.noise],
            "updates": [
                {"fact": u.fact, "item": u.item.to_dict(), "question": u.question, "value": u.value}
                for u in self.updates
            ],
            "gate": [{"item": g.item.to_dict(), "kind": g.kind} for g in self.gate],
            "reinforce": list(self.reinforce),
        }

    def items_hash(self) -> str:
        """sha256 of the canonical JSON of the unbound data: same seed, same hash."""
        if self.run != UNBOUND_RUN:
            raise ValueError("hash the data before binding it to a run")
        blob = json.dumps(self.to_dict(), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        return "sha256:" + hashlib.sha256(blob.encode("utf-8")).hexdigest()

    def all_items(self) -> list[Item]:
        """Every item in write order: facts, noise, updates, gate."""
        return (
            [f.item for f in self.facts]
            + list(self.noise)
            + [u.item for u in self.updates]
            + [g.item for g in self.gate]
        )
