"""The plugin hooks. A plugin implements either or both with ``@memory_bench.hookimpl``.

Plugins are found through the ``memory_bench`` entry-point group::

    [project.entry-points.memory_bench]
    my-memory = "my_memory.plugin"

The module named there implements :func:`memory_bench_register_backends`
(memory systems to score) and/or :func:`memory_bench_register_scenarios`
(scenario generators: data and the script of steps that asks about it). Keep it
light: import heavy libraries (torch, faiss, chromadb, ...) inside factories,
never at module level, so that listing plugins stays fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    from memory_bench.plugins.backends import BackendRegistry
    from memory_bench.scenarios.registry import ScenarioRegistry

__all__ = [
    "ENTRY_POINT_GROUP",
    "PROJECT",
    "hookimpl",
    "hookspec",
    "memory_bench_register_backends",
    "memory_bench_register_scenarios",
]

PROJECT = "memory_bench"
ENTRY_POINT_GROUP = "memory_bench"

hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


@hookspec
def memory_bench_register_backends(registry: BackendRegistry) -> None:
    """Add backends with ``registry.add(name, factory=..., ...)``; one plugin may add many."""


@hookspec
def memory_bench_register_scenarios(registry: ScenarioRegistry) -> None:
    """Add scenario generators with ``registry.add(name, generate=..., ...)``."""
