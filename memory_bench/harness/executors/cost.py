"""How long a pair is expected to take, so that parallel pairs start longest first.

With N pairs at once a run ends when its last pair does: a 70-second rerank pair
started last leaves every other core idle while it runs. So the process executor
starts pairs in order of their row's expected seconds, longest first (stable: seed
order within a row, the matrix's order between rows of one cost). The figures are
seconds per seed of make bench's hard rows on the blind stream, each pair's own wall
time in the make bench of 2026-12-04 (run 20261204T232031-0058: 2 idle cores, two pairs
at once, the library stores in memory, rerank at its depth of 20; the same-encoder rshl
rows from the run before it, at load 7-13); a row not listed counts as short. Only the
order depends on them, never a value of a result.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from memory_bench.harness.executors.base import Job

__all__ = ["EXPECTED_S", "available_cores", "expected_seconds", "longest_first"]

EXPECTED_S: dict[str, float] = {
    "rerank": 109.0, "graphiti": 37.2, "mem0": 10.6, "chroma": 2.1, "rshl": 1.7,
    "rshl:encoder=hybrid": 3.2, "rshl:encoder=dense": 1.3, "mem0:scoring=store": 0.9,
    "hybrid": 0.9, "qdrant": 0.8, "bm25": 0.6, "neural-memory": 0.5,
}
SHORT_S = 0.3  # faiss-rag and its variants, the audit rows: 0.2-0.6 s


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
