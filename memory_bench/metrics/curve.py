"""The per-step curve: recall@1 at each ask step over the stream.

As big-ann-benchmarks' streaming track reports recall at every search step of a
runbook, this is recall@1 of each ask step (a run of questions with no other
call between them, ``Records.blocks``) against the items written before it.
Only questions with a gold id count (a question about a forgotten fact has
none). Computed from the records, so a reader can recompute it from the file.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from memory_bench.records.records import Records

__all__ = ["CURVE_FIELDS", "SUMMARY_FIELDS", "step_curve", "summarize_curves"]

# One point of a pair's curve, and of a backend's summary over seeds.
CURVE_FIELDS = ("step", "written", "asks", "recall1")
SUMMARY_FIELDS = ("step", "written", "seeds", "mean", "std")


def step_curve(records: Records) -> list[list[float]]:
    """``[step, items written before it, questions scored, recall@1]`` per ask step with
    at least one question that has a gold id; ``step`` counts every ask step from 0."""
    out: list[list[float]] = []
    for step, (first, n, written) in enumerate(records.blocks):
        scored = [p for p in records.probes[first:first + n] if p.expected]
        if scored:
            hits = sum(bool(p.returned) and p.returned[0] in p.expected for p in scored)
            out.append([step, written, len(scored), round(hits / len(scored), 6)])
    return out


def summarize_curves(curves: Sequence[Sequence[Sequence[float]]]) -> list[list[float]]:
    """Per step over seeds: ``[step, mean items written, seeds, mean recall@1, std]``
    (std 0 for one seed); a step missing on some seed is summarised over the others."""
    by_step: dict[int, list[tuple[float, float]]] = {}
    for curve in curves:
        for step, written, _asks, recall in curve:
            by_step.setdefault(int(step), []).append((written, recall))
    out = []
    for step in sorted(by_step):
        pts = by_step[step]
        n = len(pts)
        mean = sum(r for _, r in pts) / n
        std = math.sqrt(sum((r - mean) ** 2 for _, r in pts) / (n - 1)) if n > 1 else 0.0
        out.append([step, round(sum(w for w, _ in pts) / n, 1), n, round(mean, 6),
                    round(std, 6)])
    return out
