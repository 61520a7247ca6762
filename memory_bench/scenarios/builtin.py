"""The first-party scenario generators, registered through the plugin hook a third
party uses (an internal plugin: always loaded, before entry points).

``templated``, ``hard`` and ``natural`` all make the continual protocol's data
and run its script; they differ in where the facts come from and how hard
they are to find.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from memory_bench.contract.hooks import hookimpl
from memory_bench.scenarios.continual.caveats import continual_caveats
from memory_bench.scenarios.continual.params import (
    CONTINUAL_PARAMETERS,
    HARD_PARAMETERS,
    check_continual,
    check_hard,
)
from memory_bench.scenarios.registry import ScenarioRegistry
from memory_bench.scenarios.script import Script

__all__ = ["continual_data", "continual_script_of", "memory_bench_register_scenarios"]

# 2.0: opaque ids, phase-free sources, tags only when structured; 2.1: retention per fact
# in the top k, reinforcementDelta by ranks against controls (issue 34)
VERSION = "2.1"
_MODULES = {
    "templated": "memory_bench.scenarios.generators.templated",
    "hard": "memory_bench.scenarios.generators.hard",
    "natural": "memory_bench.scenarios.generators.natural",
}


def _params(name: str, params: Mapping[str, Any]) -> Any:
    from memory_bench.scenarios.continual.params import ContinualParams, HardParams

    return (HardParams if name == "hard" else ContinualParams).from_params(params)


def continual_data(spec: Any, seed: int) -> Any:
    """The continual data (facts, noise, updates, gate) a built-in generator makes for a
    scenario spec and a seed: what scripts and tuning tools outside a run inspect."""
    return importlib.import_module(_MODULES[spec.generator]).generate(
        _params(spec.generator, spec.params), seed)


def continual_script_of(spec: Any, data: Any) -> Script:
    """The interleaved script a run of ``spec`` makes from ``data`` (continual_data's)."""
    from memory_bench.scenarios.continual import continual_script

    return continual_script(_params(spec.generator, spec.params), data)


def _continual(name: str):
    """generate and check for a continual generator module, imported on first use."""
    def module() -> Any:
        return importlib.import_module(_MODULES[name])

    def generate(params: Mapping[str, Any], seed: int) -> Script:
        from memory_bench.scenarios.continual import continual_script
        from memory_bench.scenarios.generators.names import PoolExhausted

        p = _params(name, params)
        try:
            data = module().generate(p, seed)
        except PoolExhausted as exc:  # capacity_error should have caught it: still say why
            raise ValueError(f"seed {seed}: {exc}") from None
        return continual_script(p, data)

    def check(params: Mapping[str, Any]) -> str | None:
        first = check_hard(params) if name == "hard" else check_continual(params)
        return first or module().capacity_error(_params(name, params))

    return generate, check


@hookimpl
def memory_bench_register_scenarios(registry: ScenarioRegistry) -> None:
    from memory_bench.metrics.continual import CONTINUAL_METRICS

    descriptions = {
        "templated": "METHOD.md's protocol on templated synthetic facts about invented names: "
                     "13 relations, 4 fact templates and 3 question phrasings each",
        "hard": "the same protocol made hard and kept fair: families of people with "
                "near-identical names, several facts each, questions and updates in other "
                "words, same-family distractors, every gate kind",
        "natural": "the same protocol on real prose: WordNet 3.0 definitions asked for by a "
                   "synonym the fact does not contain",
    }
    for name, description in descriptions.items():
        generate, check = _continual(name)
        registry.add(
            name,
            generate=generate,
            description=description,
            version=VERSION,
            parameters=HARD_PARAMETERS if name == "hard" else CONTINUAL_PARAMETERS,
            metrics=CONTINUAL_METRICS,
            check=check,
            caveats=continual_caveats(name),
        )
