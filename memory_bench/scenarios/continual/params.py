"""The continual protocol's parameters (PROTOCOL.md's defaults), declared as options.

Every generator of the continual kind (templated, natural) declares these, so a
scenario file or ``--set`` is validated the way a backend's options are:
unknown key, wrong type, NaN or out of bounds is one line and exit status 2.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from memory_bench.contract.options import Option

__all__ = ["CONTINUAL_PARAMETERS", "ContinualParams", "check_continual"]

_BIG = 1_000_000  # no count beyond this: a typo should not exhaust the machine's memory


def _count(name: str, default: int, help: str, minimum: int = 0) -> Option:
    return Option(name, int, default, help, minimum=minimum, maximum=_BIG)


CONTINUAL_PARAMETERS: tuple[Option, ...] = (
    _count("facts", 120, "N: facts seeded in phase 1", minimum=1),
    _count("noise", 600, "M: interfering items in phase 3", minimum=1),
    _count("updates", 30, "U: facts given a new value in phase 6", minimum=1),
    _count("gate_empty", 20, "refusable: empty or whitespace"),
    _count("gate_short", 20, "refusable: under 3 words"),
    _count("gate_duplicate", 20, "refusable: exact duplicates of stored texts"),
    _count("gate_clean", 30, "C: clean new facts the gate must accept"),
    _count("reinforce_cells", 10, "S: cells whose strength is read"),
    _count("reinforce_queries", 5, "P: queries per reinforced cell"),
    Option("k", int, 5, "top-k of every probe (at least 5, for recall@5)", minimum=5,
           maximum=1000),
    Option("consolidate", bool, False, "phase 4: the backend's sleep, when it has one"),
    Option("write_batch", int, 32, "items per write call", minimum=1, maximum=100_000),
    Option("region", str, "benchmark", "the region every item is written to"),
)


@dataclass(frozen=True)
class ContinualParams:
    """Resolved parameters, by attribute: ``p.facts``, ``p.noise``, ..."""

    facts: int = 120
    noise: int = 600
    updates: int = 30
    gate_empty: int = 20
    gate_short: int = 20
    gate_duplicate: int = 20
    gate_clean: int = 30
    reinforce_cells: int = 10
    reinforce_queries: int = 5
    k: int = 5
    consolidate: bool = False
    write_batch: int = 32
    region: str = "benchmark"

    @property
    def gate_refusable(self) -> int:
        return self.gate_empty + self.gate_short + self.gate_duplicate

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> ContinualParams:
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in params.items() if k in names})


def check_continual(params: Mapping[str, Any]) -> str | None:
    """The checks that involve more than one parameter."""
    p = ContinualParams.from_params(params)
    if p.updates > p.facts:
        return f"updates ({p.updates}) > facts ({p.facts})"
    if p.reinforce_cells > p.facts - p.updates:
        return (f"reinforce_cells ({p.reinforce_cells}) exceeds the facts that are not "
                f"updated ({p.facts - p.updates})")
    return None
