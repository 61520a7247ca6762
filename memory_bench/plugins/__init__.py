"""Plugins: the hooks, the two registries (backends, scenario generators), loading,
and turning ``--backend`` specs into selections."""

from __future__ import annotations

from memory_bench.contract.hooks import hookimpl
from memory_bench.plugins.backends import BackendInfo, BackendRegistry, DuplicateBackendError
from memory_bench.plugins.manager import BrokenPlugin, LoadedPlugins, load_plugins
from memory_bench.scenarios.registry import (
    DuplicateScenarioError,
    GeneratorInfo,
    ScenarioRegistry,
)

__all__ = [
    "BackendInfo",
    "BackendRegistry",
    "BrokenPlugin",
    "DuplicateBackendError",
    "DuplicateScenarioError",
    "GeneratorInfo",
    "LoadedPlugins",
    "ScenarioRegistry",
    "hookimpl",
    "load_plugins",
]
