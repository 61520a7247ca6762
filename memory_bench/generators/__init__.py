"""Scenario data generators, by the name a scenario file gives in ``generator``.

A generator is a module with ``generate(scenario, seed) -> ScenarioData`` and
``capacity_error(scenario) -> str | None``. It is imported only when used.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from memory_bench.data import ScenarioData

__all__ = ["GENERATORS", "check_capacity", "generate"]

GENERATORS = {
    "templated": "memory_bench.generators.templated",
}


def _module(name: str) -> ModuleType:
    from memory_bench.scenario import ScenarioError

    path = GENERATORS.get(name)
    if path is None:
        known = ", ".join(sorted(GENERATORS))
        raise ScenarioError(f"unknown generator {name!r} (known: {known})")
    return importlib.import_module(path)


def check_capacity(scenario) -> None:
    """Raise ScenarioError when the generator cannot make what the scenario asks."""
    from memory_bench.scenario import ScenarioError

    problem = _module(scenario.generator).capacity_error(scenario)
    if problem:
        raise ScenarioError(problem)


def generate(scenario, seed: int) -> ScenarioData:
    """The data of one seed: same scenario and seed, byte-identical items."""
    from memory_bench.generators.names import PoolExhausted
    from memory_bench.scenario import ScenarioError

    try:
        return _module(scenario.generator).generate(scenario, seed)
    except PoolExhausted as exc:  # capacity_error should have caught it: still say why
        raise ScenarioError(f"scenario {scenario.name}, seed {seed}: {exc}") from None
