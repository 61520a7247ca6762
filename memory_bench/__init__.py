"""memory-bench: score memory systems side by side with one continual-memory protocol."""

from __future__ import annotations

from memory_bench.backend import Backend, BackendContext, NotSupportedError
from memory_bench.capabilities import Capability
from memory_bench.hookspecs import hookimpl
from memory_bench.items import Hit, Item, WriteResult
from memory_bench.options import Option
from memory_bench.registry import BackendRegistry

__version__ = "0.1.0"
SCHEMA = "memory-bench/1.0"

__all__ = [
    "SCHEMA",
    "Backend",
    "BackendContext",
    "BackendRegistry",
    "Capability",
    "Hit",
    "Item",
    "NotSupportedError",
    "Option",
    "WriteResult",
    "__version__",
    "hookimpl",
]
