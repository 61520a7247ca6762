"""How long a pair is expected to take, so that parallel pairs start longest first.

With N pairs at once a run ends when its last pair does: a 70-second rerank pair
started last leaves every other core idle while it runs. So the process executor
starts pairs in order of their row's expected seconds, longest first (stable: seed
order within a row, the matrix's order between rows of one cost). The figures are
seconds per seed of make bench's hard rows, each pair's own wall time as published
(reports/ of 2026-12-02, 2 shared cores), the library stores' in their in-memory mode
(``benchmarks/store_modes.py``) and rerank's at its depth of 20 (0.4x its depth 50's);
a row not listed counts as short. Only the order
depends on them, never a value of a result.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from memory_bench.harness.executors.base import Job

__all__ = ["EXPECTED_S", "available_cores", "expected_seconds", "longest_first"]

EXPECTED_S: dict[str, float] = {
    "graphiti": 56.0, "rerank": 28.0, "mem0": 20.0, "rshl:encoder=hybrid": 3.8,
    "neural-memory": 3.5, "chroma": 3.0, "rshl": 2.2, "mem0:scoring=store": 2.0,
    "rshl:encoder=dense": 1.6, "qdrant": 1.5, "hybrid": 1.0,
}
SHORT_S = 0.5  # faiss-rag, bm25, the audit rows: a tenth of a second to half a second


def expected_seconds(label: str, name: str) -> float:
    """A row's expected seconds per pair: by its label, else its backend's name."""
    return EXPECTED_S.get(label, EXPECTED_S.get(name, SHORT_S))


def longest_first(jobs: Sequence[Job]) -> list[Job]:
    """``jobs`` with the longest rows' pairs first (stable)."""
    return sorted(jobs, key=lambda j: -expected_seconds(j.spec.label, j.selection.info.name))


def available_cores() -> int:
    """The cores this process may run on (its affinity mask, which a container or
    ``taskset`` narrows), else the machine's count."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)
