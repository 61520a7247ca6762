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
from memory_bench.metrics.continual import GATE_ACCEPT

__all__ = [
    "GATE_ACCEPT",
    "GATE_KINDS",
    "UNBOUND_RUN",
    "Aside",
    "Corroboration",
    "Fact",
    "GateCase",
    "ScenarioData",
    "Statement",
    "Update",
]

# The gate's kinds, in the order a report lists them. Refusable: nothing a memory
# should keep (no content, or content it already has from the same source).
# Accepted: real facts, short ones included.
GATE_KINDS = ("empty", "short", "duplicate", "near_duplicate", "chitchat", "boilerplate",
              "fragment", "clean", "clean_short")

# Generators write ids and sources with this run tag (``bench-RUN-...``, the
# script's unbound prefix); the runner binds the real one. The data hash is taken
# before binding, so it depends on the parameters and the seed only.
UNBOUND_RUN = "RUN"


@dataclass(frozen=True)
class Fact:
    """A seeded fact, the question that probes it and the other wording that re-probes it
    (never the probe's string: a re-probe read from a query cache would score retention
    without memory). Empty ``reprobe``: asked again as ``question``."""

    item: Item
    question: str
    subject: str
    relation: str
    value: str
    reprobe: str = ""
    # Every distinct wording the generator can ask this fact in, ``question`` and
    # ``reprobe`` first: the stream asks each follow-up in a wording not asked before
    # (a repeated string is a query cache's free answer).
    wordings: tuple[str, ...] = ()

    @property
    def reprobe_question(self) -> str:
        return self.reprobe or self.question

    @property
    def all_wordings(self) -> tuple[str, ...]:
        """``wordings``, or the question and re-probe where the generator gives no more."""
        if self.wordings:
            return self.wordings
        return tuple(dict.fromkeys((self.question, self.reprobe_question)))


@dataclass(frozen=True)
class Update:
    """A new value for facts[fact]; probed with ``question``. ``history``, when set, is
    written after the update from a third source and recalls the old value in the past
    tense ("Mara Olsen used to live in Oslo."): the newest item about the subject is then
    not the answer, so "newest first" does not win an update by itself, and the new value
    must outrank it as it must outrank the old one."""

    fact: int
    item: Item
    question: str
    value: str
    history: Item | None = None
    # Distinct wordings of the update question (``question`` first), and questions about
    # the former value ("Where did Mara Olsen live before?"), answered by the old fact and
    # the history item, which must outrank the new value.
    wordings: tuple[str, ...] = ()
    past_wordings: tuple[str, ...] = ()

    @property
    def all_wordings(self) -> tuple[str, ...]:
        return self.wordings or (self.question,)

    @property
    def history_ids(self) -> tuple[str, ...]:
        """The history item's id, or none: what the new value outranks beside the old."""
        return (self.history.id,) if self.history is not None else ()


@dataclass(frozen=True)
class Statement:
    """What one item says: ``subject``'s ``relation`` is ``value``. The generator's
    answer key, kept for the fairness check, never written to a backend."""

    subject: str
    relation: str
    value: str
    past: bool = False  # a former value recalled in the past tense (an update's history)


@dataclass(frozen=True)
class Corroboration:
    """facts[fact] stated again by another source (the same text or other words):
    probed afterwards, both items answer, and every source should be reported."""

    fact: int
    item: Item
    question: str


@dataclass(frozen=True)
class Aside:
    """A question about an item outside the facts (noise, a distractor's new value, a
    clean gate fact): asked at the same rate and times as the facts are, so that a rule
    cannot demote whatever no question seems to be about. ``outrank``: ids the item must
    beat (an older value of the same statement). ``until``: the id of an item whose write
    makes the question's answer another item (a new value): the question is asked before it."""

    item: Item
    wordings: tuple[str, ...]
    outrank: tuple[str, ...] = ()
    until: str | None = None


@dataclass(frozen=True)
class GateCase:
    """An item of the gate phase; ``kind`` is one of GATE_KINDS. ``copy_of`` is the id of
    the stored item a duplicate or near-duplicate restates (the answer key only)."""

    item: Item
    kind: str
    copy_of: str | None = field(default=None, compare=False)

    @property
    def refusable(self) -> bool:
        return self.kind not in GATE_ACCEPT


@dataclass(frozen=True)
class ScenarioData:
    """Everything one seed of a scenario writes and asks, in phase order."""

    seed: int
    facts: tuple[Fact, ...]
    noise: tuple[Item, ...]
    updates: tuple[Update, ...]
    gate: tuple[GateCase, ...]
    reinforce: tuple[int, ...]  # indices into facts
    corroborations: tuple[Corroboration, ...] = ()
    # New values of noise statements, written among the updates (a hard scenario's
    # distractors: the newest item about a person is not always the answer).
    update_noise: tuple[Item, ...] = ()
    # Questions about items outside the facts (generators that can ask them).
    asides: tuple[Aside, ...] = ()
    run: str = UNBOUND_RUN
    # Facts about the data a reader should know (e.g. question/fact overlap).
    stats: dict[str, Any] = field(default_factory=dict, compare=False)
    # Item id -> what the item states, where the generator keeps it (fairness.py);
    # derived from the data above, so not part of its hash.
    stated: dict[str, Statement] = field(default_factory=dict, compare=False)

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
                    "reprobe": f.reprobe_question,
                }
                for f in self.facts
            ],
            "noise": [i.to_dict() for i in self.noise],
            "updates": [
                {"fact": u.fact, "item": u.item.to_dict(), "question": u.question, "value": u.value,
                 **({"history": u.history.to_dict()} if u.history else {})}
                for u in self.updates
            ],
            "gate": [{"item": g.item.to_dict(), "kind": g.kind} for g in self.gate],
            "reinforce": list(self.reinforce),
            "corroborations": [{"fact": c.fact, "item": c.item.to_dict(), "question": c.question}
                               for c in self.corroborations],
            "update_noise": [i.to_dict() for i in self.update_noise],
            **({"wordings": [list(f.all_wordings) for f in self.facts]}
               if any(f.wordings for f in self.facts) else {}),
            **({"update_wordings": [[list(u.wordings), list(u.past_wordings)]
                                    for u in self.updates]}
               if any(u.wordings or u.past_wordings for u in self.updates) else {}),
            **({"asides": [{"item": a.item.id, "wordings": list(a.wordings),
                            "outrank": list(a.outrank), "until": a.until}
                           for a in self.asides]} if self.asides else {}),
        }

    def items_hash(self) -> str:
        """sha256 of the canonical JSON of the unbound data: same seed, same hash."""
        if self.run != UNBOUND_RUN:
            raise ValueError("hash the data before binding it to a run")
        blob = json.dumps(self.to_dict(), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        return "sha256:" + hashlib.sha256(blob.encode("utf-8")).hexdigest()

    def update_phase_items(self) -> list[Item]:
        """The update phase's writes: updates and update noise, in the order stamped."""
        return sorted([u.item for u in self.updates] + list(self.update_noise),
                      key=lambda i: i.timestamp)

    def history_items(self) -> list[Item]:
        """The updates' history items (generators stamp them last)."""
        return [u.history for u in self.updates if u.history is not None]

    def all_items(self) -> list[Item]:
        """Every item in the order stamped: facts, noise, updates, corroborations, gate,
        history items."""
        return (
            [f.item for f in self.facts]
            + list(self.noise)
            + self.update_phase_items()
            + [c.item for c in self.corroborations]
            + [g.item for g in self.gate]
            + self.history_items()
        )
