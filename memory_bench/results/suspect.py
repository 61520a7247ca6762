"""Rows whose values look like a broken adapter rather than a weak memory.

A plugin that mislabels its hits (ids shuffled under their scores) or ignores the
question still runs to the end and exits 0; its row then has a shape no memory
has: almost nothing right at rank 1 yet everything "retained" (the ratio of two
near-zero recalls), or one and the same top k for every question asked with no
write between them. The report's caveats name such rows (``render/caveats.py``); the conformance kit
(``memory-bench check``) is what finds the fault.
"""

from __future__ import annotations

from statistics import fmean

from memory_bench.records.records import ProbeRecord, Records
from memory_bench.results.model import BackendEntry, Result

__all__ = ["MIN_QUESTIONS", "suspect_lines"]

RECALL_FLOOR = 0.05
RETENTION_CEILING = 0.95
MIN_QUESTIONS = 5  # questions in one run before "the same top k for all" means anything


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


def _groups(records: Records) -> list[list[ProbeRecord]]:
    """The questions asked with no write between them (the ask steps), or all of them
    when the records keep no steps: within one, a store answers from the same items."""
    probes = records.probes
    if not records.blocks:
        return [probes]
    return [probes[start:start + count] for start, count, *_ in records.blocks]


def _one_answer(b: BackendEntry) -> int:
    """How many questions got the same non-empty top k as every other question of their
    ask step, where every step of two or more questions did so (0: not so)."""
    questions, most = 0, 0  # most: in one run (a run of 4 questions says little)
    for r in b.ok_runs():
        if r.records is None:
            continue
        here = 0
        for group in _groups(r.records):
            if len({p.question for p in group}) < 2:
                continue
            answers = {tuple(p.returned) for p in group}
            if len(answers) != 1 or answers == {()}:
                return 0
            here += len(group)
        questions, most = questions + here, max(most, here)
    return questions if most >= MIN_QUESTIONS else 0


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
            out.append(f"`{b.label}` looks broken, not weak: it returned the same top k to "
                       f"every question of each ask step ({same} questions), so its answers "
                       "do not depend on the question. "
                       f"Run `memory-bench check {b.label}` before reading its row.")
    return out
