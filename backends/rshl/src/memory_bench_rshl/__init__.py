"""RSHL lattice: a model-free, continually learning, accountable memory.

The library needs numpy only; :mod:`memory_bench_rshl.plugin` and
:mod:`memory_bench_rshl.backend` adapt it to memory-bench. Names are imported
lazily, so that listing memory-bench plugins does not load the lattice.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memory_bench_rshl.config import LatticeConfig
    from memory_bench_rshl.encoder import Encoder, IdfStats
    from memory_bench_rshl.lattice import Lattice, Recall, Record, WriteOutcome

__version__ = "0.2.0"

_LAZY = {
    "Encoder": "memory_bench_rshl.encoder",
    "IdfStats": "memory_bench_rshl.encoder",
    "Lattice": "memory_bench_rshl.lattice",
    "LatticeConfig": "memory_bench_rshl.config",
    "Recall": "memory_bench_rshl.lattice",
    "Record": "memory_bench_rshl.lattice",
    "WriteOutcome": "memory_bench_rshl.lattice",
}

__all__ = [
    "Encoder",
    "IdfStats",
    "Lattice",
    "LatticeConfig",
    "Recall",
    "Record",
    "WriteOutcome",
    "__version__",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'memory_bench_rshl' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
