"""Scenarios for the core's tests: the built-in generators, without entry points."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memory_bench.harness.pair import generate_script
from memory_bench.plugins import load_plugins
from memory_bench.scenarios.builtin import continual_data
from memory_bench.scenarios.continual import ScenarioData
from memory_bench.scenarios.script import Script
from memory_bench.scenarios.spec import ScenarioSpec
from memory_bench.scenarios.spec import load_scenario as _load

PLUGINS = load_plugins(autoload=False)


def load_scenario(name: str, overrides: Mapping[str, Any] | None = None) -> ScenarioSpec:
    return _load(name, overrides, registry=PLUGINS.scenarios)


def generate(spec: ScenarioSpec, seed: int) -> ScenarioData:
    """The continual data a built-in generator makes for ``spec`` and ``seed``."""
    return continual_data(spec, seed)


def script(spec: ScenarioSpec, seed: int) -> Script:
    return generate_script(PLUGINS, spec.ref(), seed)
