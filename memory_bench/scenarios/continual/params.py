"""The continual protocol's parameters (PROTOCOL.md's defaults), declared as options.

Every generator of the continual kind (templated, natural) declares these, so a
scenario file or ``--set`` is validated the way a backend's options are:
unknown key, wrong type, NaN or out of bounds is one line and exit status 2.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

from memory_bench.contract.options import Option

__all__ = [
    "CONTINUAL_PARAMETERS",
    "HARD_PARAMETERS",
    "ContinualParams",
    "HardParams",
    "check_continual",
    "check_hard",
]

_BIG = 1_000_000  # no count beyond this: a typo should not exhaust the machine's memory


def _count(name: str, default: int, help: str, minimum: int = 0) -> Option:
    return Option(name, int, default, help, minimum=minimum, maximum=_BIG)


CONTINUAL_PARAMETERS: tuple[Option, ...] = (
    _count("facts", 120, "N: facts written and probed (seed, probe)", minimum=1),
    _count("noise", 600, "M: noise items, three fifths of them the interference every "
                         "re-probe is measured against (interfere)", minimum=1),
    _count("updates", 30, "U: facts given a new value, then asked (update)", minimum=1),
    Option("update_history", float, 0.0, "share of the updates followed by a history item: "
           "the old value recalled in the past tense, from a third source, after the update; "
           "the new value must outrank it too (hard and natural generators)", minimum=0.0,
           maximum=1.0),
    _count("gate_empty", 20, "refusable: empty or whitespace"),
    _count("gate_short", 20, "refusable: under 3 words"),
    _count("gate_duplicate", 20, "refusable: exact duplicates of stored texts, same source"),
    _count("gate_near_duplicate", 0, "refusable: stored facts reworded (by their own source "
                                     "or another, as often)"),
    _count("gate_chitchat", 0, "refusable: content-free chat of 3+ words ('haha sure thing')"),
    _count("gate_boilerplate", 0, "refusable: signatures, disclaimers, notices"),
    _count("gate_fragment", 0, "refusable: sentences cut off before they state anything"),
    _count("gate_clean", 30, "C: clean new facts the gate must accept"),
    _count("gate_clean_short", 0, "clean too: short real facts ('Ivo resigned.', 'Ann is 34.')"),
    _count("corroborations", 0, "facts stated again by another source after the updates, "
                                "then probed: every source should be reported"),
    _count("forget_ids", 6, "up to this many facts forgotten by id before the gate, then "
                            "asked: none may come back (needs `forget`)"),
    _count("forget_sources", 3, "up to this many sources forgotten whole, each holding only "
                                "facts (as many as the data has)"),
    _count("forget_updated", 3, "up to this many updated facts forgotten by id, old and new "
                                "value both"),
    _count("reinforce_cells", 10, "S: cells whose strength is read"),
    _count("reinforce_queries", 5, "P: queries per reinforced cell"),
    Option("k", int, 5, "top-k of every probe (at least 5, for recall@5)", minimum=5,
           maximum=1000),
    Option("consolidate", bool, False, "a consolidate step: the backend's sleep, when it has one"),
    Option("write_batch", int, 32, "items per write call", minimum=1, maximum=100_000),
    Option("region", str, "benchmark", "the region every item is written to"),
    Option("structured", bool, False, "give items subject:/relation: tags: a labelled "
           "structured track (off: backends get text, source and timestamp only)"),
    Option("stream", str, "blind", "the stream's layout: blind (roles drawn independently "
           "of the schedule: docs/stream.md) or phased (the 2026-12-02 layout the scale sweep "
           "grows)", choices=("blind", "phased")),
)


@dataclass(frozen=True)
class ContinualParams:
    """Resolved parameters, by attribute: ``p.facts``, ``p.noise``, ..."""

    facts: int = 120
    noise: int = 600
    updates: int = 30
    update_history: float = 0.0
    gate_empty: int = 20
    gate_short: int = 20
    gate_duplicate: int = 20
    gate_near_duplicate: int = 0
    gate_chitchat: int = 0
    gate_boilerplate: int = 0
    gate_fragment: int = 0
    gate_clean: int = 30
    gate_clean_short: int = 0
    corroborations: int = 0
    forget_ids: int = 6
    forget_sources: int = 3
    forget_updated: int = 3
    reinforce_cells: int = 10
    reinforce_queries: int = 5
    k: int = 5
    consolidate: bool = False
    write_batch: int = 32
    region: str = "benchmark"
    structured: bool = False
    stream: str = "blind"

    def gate_count(self, kind: str) -> int:
        """How many gate items of ``kind`` (one of GATE_KINDS) the scenario asks for."""
        return getattr(self, f"gate_{kind}")

    @property
    def gate_refusable(self) -> int:
        return (self.gate_empty + self.gate_short + self.gate_duplicate
                + self.gate_near_duplicate + self.gate_chitchat + self.gate_boilerplate
                + self.gate_fragment)

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> ContinualParams:
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in params.items() if k in names})


def check_continual(params: Mapping[str, Any]) -> str | None:
    """The checks that involve more than one parameter."""
    p = ContinualParams.from_params(params)
    if p.updates > p.facts:
        return f"updates ({p.updates}) > facts ({p.facts})"
    if p.reinforce_cells + p.corroborations > p.facts - p.updates:
        return (f"reinforce_cells + corroborations ({p.reinforce_cells + p.corroborations}) "
                f"exceeds the facts that are not updated ({p.facts - p.updates})")
    if (p.gate_duplicate or p.gate_near_duplicate) and not p.noise:
        return "gate duplicates copy noise items, so noise must be > 0"
    return None


# The hard generator's own parameters: families of people with near-identical names.
HARD_PARAMETERS: tuple[Option, ...] = (
    *(replace(o, default=0.5) if o.name == "update_history" else o
      for o in CONTINUAL_PARAMETERS),
    Option("family_size", int, 4, "people per family of near-identical names (one letter "
           "apart, or sharing a first or last name)", minimum=1, maximum=5),
    Option("family_relations", int, 4, "relations stated for every member of a family",
           minimum=1, maximum=12),
    Option("probed_per_person", int, 2, "of those, how many are probed facts (the others "
           "are written as noise: same person, other relation)", minimum=1, maximum=12),
    Option("update_distractors", int, 30, "new values of the families' noise facts (same "
           "person, other relation; or same relation, a near-identical name), written among "
           "the updates", minimum=0, maximum=_BIG),
    Option("unrelated_people", float, 0.5, "share of the unrelated noise that is about "
           "people outside the families (the rest: companies and towns)", minimum=0.0,
           maximum=1.0),
)


@dataclass(frozen=True)
class HardParams(ContinualParams):
    family_size: int = 4
    family_relations: int = 4
    probed_per_person: int = 2
    update_distractors: int = 30
    update_history: float = 0.5  # hard's own default (the published scenario's)
    unrelated_people: float = 0.5


def check_hard(params: Mapping[str, Any]) -> str | None:
    p = HardParams.from_params(params)
    if p.probed_per_person > p.family_relations:
        return (f"probed_per_person ({p.probed_per_person}) > family_relations "
                f"({p.family_relations})")
    return check_continual(params)
