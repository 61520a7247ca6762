"""Update, conflict and abstention metrics for data that is not the continual protocol's:
real datasets (BEAM) and a user's JSONL file.

A probe naming ``outrank`` ids is an update, whatever its tag (but the continual
protocol's ``past`` and ``aside``): its expected ids are the new statement, its outrank
ids the old one it replaces. ``updateWinRate`` and
``staleRate`` are PROTOCOL.md's definitions (``kinds.wins``, ``kinds.stale``) over
those probes, so a file exported from the continual protocol scores the same.
"""

from __future__ import annotations

from collections.abc import Callable

from memory_bench.contract.capabilities import Capability
from memory_bench.metrics import kinds
from memory_bench.metrics.spec import Metric, Outcomes, RecordView, declare
from memory_bench.records.records import ProbeRecord

__all__ = ["CONFLICT", "abstention_metrics", "conflict_metrics", "update_metrics"]

CONFLICT = "contradiction_resolution"  # the category of a probe whose evidence conflicts
_KS = (5, 10)


# The continual protocol's tags whose outrank ids are not an update's old value: a
# question about the former value (``past``: the old value must outrank the new) and
# an aside about a renewed item; an exported scenario keeps them out as the scenario does.
NOT_UPDATES = ("past", "aside")


def _updates(v: RecordView) -> list[ProbeRecord]:
    return [p for p in v.records.probes if p.outrank and p.expected
            and p.tag not in NOT_UPDATES
            and (v.category is None or p.category == v.category)]


def _rows(flag: kinds.Flag) -> Callable[[RecordView], Outcomes]:
    """1.0 / 0.0 per update probe, keyed by tag and question as kinds keys probes, every
    ask its own row as there (keyed by question alone, a fact's second update question
    replaced its first, and an exported scenario scored otherwise than the scenario)."""
    def f(v: RecordView) -> Outcomes:
        return kinds.flag_rows(flag, _updates(v))
    return f


def update_metrics(reads: tuple[str, ...], *, section: str = "results",
                   per_category: bool = False) -> tuple[Metric, ...]:
    """updateWinRate and staleRate over every probe (of any tag) that names outrank ids;
    ``reads`` documents the tags where a scenario puts them."""
    undefined = "no question names an old statement to outrank (no update in the data)"
    return (
        declare("updateWinRate", "updateWin", reads=reads,
                section=section, per_category=per_category, undefined=undefined,
                description="share of update questions whose new statement outranks the old "
                            "in the top-k (old absent and new present wins; new absent loses)",
                caveat="`updateWinRate` is ranking, not erasure: it asks whether the new "
                       "statement outranks the old, not whether the old one is gone. "
                       "`staleRate` (the old statement still in the top-k) measures erasure.",
                outcomes=_rows(kinds.wins), aggregate="mean"),
        declare("staleRate", "stale", reads=reads, section=section,
                per_category=per_category, higher_is_better=False, undefined=undefined,
                description="share of update questions whose old statement is still in the "
                            "top-k",
                outcomes=_rows(kinds.stale), aggregate="mean"),
    )


def conflict_metrics(tag: str) -> tuple[Metric, ...]:
    """conflict@k: every statement of a contradiction in the top k (the memory surfaces
    the conflict for a reader to resolve), over the ``tag`` probes of category CONFLICT."""
    out = []
    for k in _KS:
        rows = kinds.scored_outcomes(kinds.all_at(k), tag)
        out.append(declare(
            f"conflict@{k}", f"conflict@{k}", reads=(tag,),
            section="results" if k == 5 else "other", terminal=k == 5,
            undefined="the data has no contradiction question with both statements found",
            description=f"share of contradiction questions with both conflicting statements "
                        f"(every turn either names) in the top {k}: a reader can only "
                        "notice a conflict it is shown",
            outcomes=lambda v, rows=rows: rows(RecordView(v.records, CONFLICT)),
            aggregate="mean"))
    return tuple(out)


def _abstains(p: ProbeRecord) -> bool:
    """A calibrated backend holds nothing relevant: no hit, or the top hit's score (the
    probability that it is relevant) below one half."""
    return not p.scores or p.scores[0] < 0.5


def abstention_metrics(tag: str) -> tuple[Metric, ...]:
    """Abstention, scored only on backends whose scores are calibrated probabilities: an
    uncalibrated score (a BM25 weight, a cosine) has no threshold meaning "not held"."""
    return (declare(
        "abstainRate", "abstain", reads=(tag,), needs=Capability.CALIBRATED,
        section="other", terminal=False,
        undefined="no abstention question was asked",
        description="share of unanswerable questions where a backend with calibrated scores "
                    "returns nothing it rates more likely relevant than not",
        outcomes=kinds.probe_outcomes(_abstains, tag), aggregate="mean"),)
