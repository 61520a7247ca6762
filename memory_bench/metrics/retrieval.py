"""Ranked-retrieval metrics for real datasets (LoCoMo, LongMemEval, a user's JSONL), declared once.

The dataset generators tag their probes with one vocabulary:

- ``ask``: a question asked after everything it could draw on has been written
  (LoCoMo: after the whole conversation; LongMemEval: after the haystack);
- ``early``: an earlier ask of the same question (same probe key), e.g. LoCoMo's
  ask right after the session holding its last evidence turn;
- ``abstain``: a question whose right answer is that the memory does not hold it
  (LoCoMo category 5, LongMemEval ``_abs``). Kept apart: a retrieval-only run
  cannot score abstention, and mixing these into recall would blur both.

Every metric reads only probes that name at least one expected id. recall_any@k
and recall_all@k, NDCG@k and MRR follow LongMemEval's retrieval evaluation
(``src/retrieval/eval_utils.py``) except that NDCG uses the standard discount
1/log2(i+1) at every rank (theirs gives ranks 1 and 2 the same weight).
"""

from __future__ import annotations

import math

from memory_bench.metrics import kinds
from memory_bench.metrics.latency import latency_parts
from memory_bench.metrics.spec import Metric, declare

__all__ = ["ABSTAIN", "ASK", "EARLY", "QUERY_TAGS", "TOP_K", "WRITE", "retrieval_metrics"]

ASK, EARLY, ABSTAIN, WRITE = "ask", "early", "abstain", "write"
QUERY_TAGS = (ASK, EARLY, ABSTAIN)
TOP_K = 10  # every query asks for this many hits: the metrics go to @10
_KS = (5, 10)
_RATE = (0.0, math.inf)
_LATENCY = {"decimals": 2, "small_digits": 2, "bounds": _RATE, "higher_is_better": False,
            "outcomes": kinds.latency_outcomes(*QUERY_TAGS)}
# In the headline table (and plots); every other metric is in the secondary table.
_HEADLINE = {"recall_any@5", "recall_all@5", "ndcg@5", "recall_any@10", "recall_all@10",
             "ndcg@10", "mrr"}
_TERMINAL = {"recall_any@5", "recall_all@5", "ndcg@10", "mrr"}


def _family(tag: str, suffix: str, label: str, who: str, *, main: bool) -> list[Metric]:
    """recall_any@k, recall_all@k, NDCG@k (k = 5, 10) and MRR of the probes of ``tag``."""
    out = []
    for k in _KS:
        out += [
            (f"recall_any@{k}", f"R_any@{k}", kinds.any_at(k),
             f"share of {who} with at least one evidence item in the top {k}"),
            (f"recall_all@{k}", f"R_all@{k}", kinds.all_at(k),
             f"share of {who} with every evidence item in the top {k}"),
            (f"ndcg@{k}", f"NDCG@{k}", kinds.ndcg(k),
             f"mean NDCG@{k} of {who} (binary relevance: an evidence item is relevant)"),
        ]
    out.append(("mrr", "MRR", kinds.reciprocal,
                f"mean reciprocal rank of the first evidence item in the top {TOP_K} of "
                f"{who} (0 when none is returned)"))
    metrics = []
    for base, short, score, description in out:
        headline = main and base in _HEADLINE
        metrics.append(declare(
            base + suffix, (short + label).strip(), reads=(tag,),
            per_category=main, section="results" if headline else "other",
            terminal=(main and base in _TERMINAL), description=description,
            axis="quality" if main and base == "recall_any@5" else None,
            undefined=f"no {tag} question named an evidence item",
            outcomes=kinds.scored_outcomes(score, tag), aggregate="mean",
        ))
    return metrics


def retrieval_metrics(*, early: bool, final: str = "") -> tuple[Metric, ...]:
    """The metrics of a dataset scenario. ``early``: its questions are also asked early
    (recall of the early asks, and retention = late / early on the same questions);
    ``final`` names the ``ask`` in labels (``late`` for LoCoMo)."""
    label = f" {final}" if final else ""
    metrics = _family(ASK, "", label, "the questions", main=True)
    if early:
        early_metrics = _family(EARLY, "_early", " early", "the early asks", main=False)
        first = early_metrics[0]  # recall_any@5_early: in the headline, beside its late value
        early_metrics[0] = declare(
            first.name, first.spec.label, reads=(EARLY,), per_category=True,
            terminal=True, description=first.spec.description, outcomes=first.outcomes,
            aggregate="mean",
            undefined="the data asks no question early")
        retention = declare(
            "retention@5", "retention@5", reads=(EARLY, ASK), bounds=_RATE, per_category=True,
            axis="quality",
            outcomes=kinds.paired_recall_outcomes(5, EARLY, ASK), aggregate="sum_ratio",
            description="recall_any@5 of the final asks over that of the early asks, on the "
                        "questions asked both times: what is still found after the rest of "
                        "the data was written",
            undefined="no question asked early was found early (or none was asked early)")
        # late, early, their ratio: side by side in the headline (the late ask first, as the
        # number the literature reports and the one a report's misses are drawn from)
        metrics = [*metrics[:1], early_metrics[0], retention, *metrics[1:], *early_metrics[1:]]
    metrics += [
        declare(f"abstain_recall_any@{k}", f"abstain R_any@{k}", reads=(ABSTAIN,),
                section="other", terminal=False,
                outcomes=kinds.scored_outcomes(kinds.any_at(k), ABSTAIN), aggregate="mean",
                undefined="no abstention question named an evidence item",
                description=f"abstention questions (reported apart): share with the evidence "
                            f"their false premise distorts in the top {k}. Retrieval alone "
                            "cannot abstain; this only shows whether the near miss an answer "
                            "model would have to reject comes up")
        for k in _KS
    ]
    metrics += [
        *latency_parts(QUERY_TAGS, "every ask", p95_shown=False),
        declare("latency_p50_ms", "store p50 ms", reads=QUERY_TAGS, aggregate="p50",
                **_LATENCY,
                description="median time of the query call over every ask (encode once: the "
                            "store's own, given the question's vector; e2e_p50_ms adds the "
                            "encoder's part)"),
        declare("latency_p95_ms", "store p95 ms", reads=QUERY_TAGS, section="other",
                terminal=False, aggregate="p95", **_LATENCY,
                description="95th percentile time of the query call over every ask (encode "
                            "once: the store's own; e2e_p95_ms adds the encoder's)"),
        declare("ingest_items_per_s", "ingest/s", reads=(WRITE,),
                section="other", terminal=False, bounds=_RATE, decimals=0, thousands=True,
                outcomes=kinds.ingest_outcomes(WRITE), aggregate="rate",
                description="items written per second of write calls"),
    ]
    return tuple(metrics)
