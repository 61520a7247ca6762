"""RSHL lattice: a model-free, continually learning, accountable memory.

The library needs numpy only; :mod:`memory_bench_rshl.plugin` and
:mod:`memory_bench_rshl.backend` adapt it to memory-bench.
"""

from __future__ import annotations

from memory_bench_rshl.config import LatticeConfig
from memory_bench_rshl.encoder import Encoder, IdfStats
from memory_bench_rshl.lattice import Lattice, Recall, Record, WriteOutcome

__version__ = "0.1.0"

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
