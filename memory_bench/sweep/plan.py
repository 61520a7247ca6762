"""A scale sweep, validated before anything runs: sizes, backends per size, seeds per size.

A sweep is one ordinary run per size of a scenario whose generator takes a
``size`` parameter (``scale``): the runner never knows it is part of a sweep.
``--limit LABEL=SIZE`` stops a backend after that size (a store that cannot
hold 10⁶ items on this machine); ``--seeds-at SIZE=N`` runs fewer seeds where
one pair takes many minutes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from memory_bench.errors import BadInput
from memory_bench.plugins.manager import LoadedPlugins
from memory_bench.plugins.selection import BackendSelection, select_backends
from memory_bench.scenarios.spec import ScenarioSpec, load_scenario

__all__ = ["SizePlan", "SweepError", "SweepPlan", "parse_sizes", "plan_sweep"]


class SweepError(BadInput):
    """A sweep that cannot run as asked (one line, exit status 2)."""


@dataclass(frozen=True)
class SizePlan:
    size: int
    scenario: ScenarioSpec
    selections: list[BackendSelection]
    seeds: list[int]


@dataclass(frozen=True)
class SweepPlan:
    scenario: str
    sizes: list[SizePlan]
    labels: list[str]  # every backend of the sweep, in the order given
    limits: dict[str, int] = field(default_factory=dict)


MAX_COUNT = 10**9  # sizes, limits and seed counts: finite, and far beyond any machine here


def _int(text: str, what: str) -> int:
    try:
        value = float(text)  # 1e5 is a size too
    except ValueError:
        raise SweepError(f"{what}: {text!r} is not a number") from None
    if not math.isfinite(value) or not 1 <= value <= MAX_COUNT or value != int(value):
        raise SweepError(f"{what}: {text!r} is not a whole number between 1 and "
                         f"{MAX_COUNT:,}")
    return int(value)


def parse_sizes(text: str) -> list[int]:
    """``1000,1e4,100000`` -> [1000, 10000, 100000]: distinct, ascending."""
    sizes = [_int(t.strip(), "--sizes") for t in text.split(",") if t.strip()]
    if not sizes:
        raise SweepError("--sizes is empty: give sizes such as 1000,10000,100000")
    if sorted(set(sizes)) != sizes:
        raise SweepError(f"--sizes must be distinct and ascending, got {text!r}")
    return sizes


def _pairs(items: Sequence[str], flag: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items:
        key, eq, value = item.rpartition("=")
        if not eq or not key:
            raise SweepError(f"{flag} {item!r}: expected KEY=VALUE")
        out[key] = value
    return out


def plan_sweep(plugins: LoadedPlugins, *, scenario: str, sizes: Sequence[int],
               backends: Sequence[str], seeds: int | None, seeds_at: Sequence[str] = (),
               limits: Sequence[str] = (), overrides: Mapping[str, Any] | None = None
               ) -> SweepPlan:
    """Every size's scenario (``size`` set, validated by its generator), backends and
    seeds. Raises SweepError (or the scenario's and selection's own errors)."""
    selections = select_backends(plugins.registry, list(backends))
    labels = [s.label for s in selections]
    limit = {k: _int(v, f"--limit {k}") for k, v in _pairs(limits, "--limit").items()}
    unknown = sorted(set(limit) - set(labels))
    if unknown:
        raise SweepError(f"--limit {unknown[0]}: not a backend of this sweep "
                         f"(backends: {', '.join(labels)})")
    seed_at = {_int(k, "--seeds-at"): _int(v, f"--seeds-at {k}")
               for k, v in _pairs(seeds_at, "--seeds-at").items()}
    stray = sorted(set(seed_at) - set(sizes))
    if stray:
        raise SweepError(f"--seeds-at {stray[0]}: not one of --sizes")
    first = load_scenario(scenario, registry=plugins.scenarios)
    if "size" not in first.params:
        raise SweepError(f"scenario {first.name}: its generator {first.generator} takes no "
                         "`size` (use a scale scenario, e.g. --scenario scale)")
    out = []
    for size in sizes:
        spec = load_scenario(scenario, {**(overrides or {}), "size": str(size)},
                             registry=plugins.scenarios)
        here = [s for s in selections if limit.get(s.label, size) >= size]
        count = seed_at.get(size, seeds)
        out.append(SizePlan(size, spec, here, spec.seed_list(count)))
    return SweepPlan(scenario=out[0].scenario.name, sizes=out, labels=labels, limits=limit)
