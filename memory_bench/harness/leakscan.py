"""The learned leak scan over a scenario's seeds: scripts generated here, scored by
``scenarios/continual/leakscan.py``. Used by ``memory-bench leaks`` and, in its small
form, when a continual run starts (the report's caveats quote it)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from memory_bench.harness.pair import generate_script
from memory_bench.plugins.manager import LoadedPlugins
from memory_bench.scenarios.continual.leakscan import (
    CONTINUAL_GENERATORS,
    MODELS,
    NEGATIVES,
    LeakScan,
    scan,
    summary,
)

__all__ = ["CONTINUAL_GENERATORS", "LEAK_SCAN_ENV", "QUICK", "quick_scan", "scan_scenario"]

# The small scan a run computes: 3 train seeds, 2 test seeds, logistic regression,
# 10 candidates a question: ~3 s of one core on hard (40 s for the full scan).
QUICK: dict[str, Any] = {"train": (100, 101, 102), "test": (0, 1), "models": ("logistic",),
                         "negatives": 10}


LEAK_SCAN_ENV = "MEMORY_BENCH_LEAK_SCAN"  # "off": a run keeps no small scan
_QUICK_DONE: dict[str, dict[str, Any]] = {}  # one small scan per scenario and process


def scan_scenario(plugins: LoadedPlugins, name: str, ref: Mapping[str, Any],
                  train: Sequence[int], test: Sequence[int], *,
                  models: Sequence[str] = MODELS, negatives: int = NEGATIVES,
                  bounded_only: bool = False) -> LeakScan:
    """Scan scenario ``ref`` (a ScenarioSpec's ``ref()``): fit on ``train`` seeds' scripts,
    score on ``test`` seeds'."""
    return scan(name, (generate_script(plugins, ref, s) for s in train),
                (generate_script(plugins, ref, s) for s in test), models, negatives,
                bounded_only=bounded_only)


def quick_scan(plugins: LoadedPlugins, name: str, ref: Mapping[str, Any]) -> dict[str, Any]:
    """The small scan's summary for a run's result, or ``{"error": ...}``: a scan that
    fails must not cost the run."""
    import json

    key = json.dumps([name, ref.get("generator"), ref.get("params")], sort_keys=True,
                     default=str)
    if key in _QUICK_DONE:
        return dict(_QUICK_DONE[key])
    try:
        found = scan_scenario(plugins, name, ref, QUICK["train"], QUICK["test"],
                              models=QUICK["models"], negatives=QUICK["negatives"],
                              bounded_only=True)
    except Exception as exc:
        return {"error": f"{type(exc).__name__}: {exc}"}
    _QUICK_DONE[key] = {**summary(found), "negatives_per_question": QUICK["negatives"]}
    return dict(_QUICK_DONE[key])
