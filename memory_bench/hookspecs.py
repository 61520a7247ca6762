"""The plugin hooks. A plugin implements them with ``@memory_bench.hookimpl``.

Plugins are found through the ``memory_bench`` entry-point group::

    [project.entry-points.memory_bench]
    my-memory = "my_memory.plugin"

The module named there implements :func:`memory_bench_register_backends`. Keep
it light: import heavy libraries (torch, faiss, chromadb, ...) inside the
factory, never at module level, so that listing backends stays fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    from memory_bench.registry import BackendRegistry

__all__ = ["PROJECT", "hookimpl", "hookspec", "memory_bench_register_backends"]

PROJECT = "memory_bench"
ENTRY_POINT_GROUP = "memory_bench"

hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


@hookspec
def memory_bench_register_backends(registry: BackendRegistry) -> None:
    """Add backends with ``registry.add(name, factory=..., ...)``; one plugin may add many."""
