"""Rows whose values look like a broken adapter rather than a weak memory.

A plugin that mislabels its hits (ids shuffled under their scores) or ignores the
question still runs to the end and exits 0; its row then has a shape no memory
has: almost nothing right at rank 1 yet everything "retained" (the ratio of two
near-zero recalls), or one and the same top k for every question. The report's
caveats name such rows (``render/caveats.py``); the conformance kit
(``memory-bench check``) is what finds the fault.
"""

from __future__ import annotations

from statistics import fmean

from memory_bench.results.model import BackendEntry, Result

__all__ = ["MIN_QUESTIONS", "suspect_lines"]

RECALL_FLOOR = 0.05
RETENTION_CEILING = 0.95
MIN_QUESTIONS = 5  # distinct questions before "the same top k for all" means anything


def _mean(b: BackendEntry, name: str) -> float | None:
    values = [r.metrics.get(name) for r in b.ok_runs()]
    finite = [v for v in values if isinstance(v, int | float)]
    return fmean(finite) if finite else None


def _recall_at_1(b: BackendEntry) -> float | None:
    """The row's recall@1: its declared metric, else the share of probes whose top hit
    is an expected id (from the records)."""
    declared = _mean(b, "recall1_before")
    if declared is not None:
        return declared
    right = total = 0
    for r in b.ok_runs():
        for p in r.records.probes if r.records is not None else []:
            if p.expected:
                total += 1
                right += bool(p.returned) and p.returned[0] in p.expected
    return right / total if total else None


def _one_answer(b: BackendEntry) -> int:
    """How many distinct questions got one and the same non-empty top k (0: not so)."""
    answers: set[tuple[str, ...]] = set()
    questions: set[str] = set()
    for r in b.ok_runs():
        for p in r.records.probes if r.records is not None else []:
            questions.add(p.question)
            answers.add(tuple(p.returned))
    if len(questions) < MIN_QUESTIONS or len(answers) != 1 or answers == {()}:
        return 0
    return len(questions)


def suspect_lines(result: Result) -> list[str]:
    """One sentence per row that looks like a broken adapter (empty when none does)."""
    out = []
    for b in result.backends:
        if not b.ok_runs():
            continue
        r1, kept = _recall_at_1(b), _mean(b, "retention")
        if r1 is not None and kept is not None and r1 < RECALL_FLOOR and kept > RETENTION_CEILING:
            out.append(f"`{b.label}` looks broken, not weak: recall@1 {r1:.3f} with retention "
                       f"{kept:.3f} is the shape of hits whose ids do not name what they hold. "
                       f"Run `memory-bench check {b.label}` before reading its row.")
        same = _one_answer(b)
        if same:
            out.append(f"`{b.label}` looks broken, not weak: it returned the same top k for "
                       f"all {same} questions, so its answers do not depend on the question. "
                       f"Run `memory-bench check {b.label}` before reading its row.")
    return out
