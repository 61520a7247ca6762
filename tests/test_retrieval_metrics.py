"""The ranked-retrieval metrics on records built by hand: exact values, and what they ignore."""

from __future__ import annotations

import math

import pytest

from memory_bench.metrics import kinds
from memory_bench.metrics.aggregate import value_of
from memory_bench.metrics.retrieval import retrieval_metrics
from memory_bench.metrics.spec import RecordView, compute_metrics
from memory_bench.records.records import ProbeRecord, Records


def probe(returned: list[str], expected: list[str], tag: str = "ask", key: str | None = None,
          category: str | None = None) -> ProbeRecord:
    return ProbeRecord(tag=tag, question="q", expected=expected, returned=returned,
                       scores=[1.0] * len(returned), latency_ms=1.0, category=category,
                       key=key)


def view(*probes: ProbeRecord) -> RecordView:
    return RecordView(Records(probes=list(probes)))


def scored(score, tag: str = "ask"):
    """A score's metric as declared: its per-question rows, then their mean."""
    return lambda v: value_of("mean", list(kinds.scored_outcomes(score, tag)(v).values()))


def paired_ratio(v: RecordView):
    return value_of("sum_ratio", list(kinds.paired_recall_outcomes(5, "early", "ask")(v).values()))


def test_recall_any_and_all_at_k() -> None:
    v = view(probe(["x", "a", "y", "z", "w", "b"], ["a", "b"]),  # a at 2, b at 6
             probe(["c"], ["c"]),
             probe(["x", "y"], ["d"]))
    assert scored(kinds.any_at(5))(v) == pytest.approx(2 / 3)
    assert scored(kinds.all_at(5))(v) == pytest.approx(1 / 3)  # b is 6th
    assert scored(kinds.all_at(10))(v) == pytest.approx(2 / 3)
    assert scored(kinds.any_at(1))(v) == pytest.approx(1 / 3)


def test_ndcg_binary_with_the_standard_discount() -> None:
    # expected a, b; returned at ranks 2 and 3: DCG = 1/log2(3) + 1/log2(4); IDCG = 1 + 1/log2(3)
    v = view(probe(["x", "a", "b"], ["a", "b"]))
    want = (1 / math.log2(3) + 1 / math.log2(4)) / (1 + 1 / math.log2(3))
    assert scored(kinds.ndcg(10))(v) == pytest.approx(want)
    # only the first k hits count, and an expected id returned twice counts once
    assert scored(kinds.ndcg(2))(view(probe(["x", "a", "b"], ["a", "b"]))) == pytest.approx(
        (1 / math.log2(3)) / (1 + 1 / math.log2(3)))
    assert scored(kinds.ndcg(10))(view(probe(["a", "a"], ["a", "b"]))) == pytest.approx(
        1 / (1 + 1 / math.log2(3)))
    # more expected ids than k: the ideal is k hits, so a perfect top k scores 1
    assert scored(kinds.ndcg(2))(view(probe(["a", "b"], ["a", "b", "c"]))) == 1.0


def test_mrr_is_zero_when_nothing_expected_is_returned() -> None:
    v = view(probe(["x", "x2", "a"], ["a"]), probe(["b"], ["b"]), probe(["y"], ["c"]))
    assert scored(kinds.reciprocal)(v) == pytest.approx((1 / 3 + 1 + 0) / 3)


def test_probes_naming_no_expected_id_are_not_scored() -> None:
    v = view(probe(["a"], ["a"]), probe(["z"], []))
    for fn in (scored(kinds.any_at(5)), scored(kinds.all_at(5)),
               scored(kinds.ndcg(5)), scored(kinds.reciprocal)):
        assert fn(v) == 1.0
    assert scored(kinds.any_at(5))(view(probe(["z"], []))) is None


def test_retention_pairs_early_and_final_asks_by_key() -> None:
    v = view(probe(["a"], ["a"], "early", "q1"), probe(["x"], ["a"], "ask", "q1"),
             probe(["b"], ["b"], "early", "q2"), probe(["b"], ["b"], "ask", "q2"),
             probe(["x"], ["c"], "early", "q3"), probe(["c"], ["c"], "ask", "q3"),
             probe(["d"], ["d"], "ask", "q4"))  # never asked early: not in the ratio
    # over the questions asked both times (q1-q3): 2 found late (q2, q3) / 2 found early
    assert paired_ratio(v) == pytest.approx(1.0)
    v2 = view(probe(["a"], ["a"], "early", "q1"), probe(["x"], ["a"], "ask", "q1"),
              probe(["b"], ["b"], "early", "q2"), probe(["b"], ["b"], "ask", "q2"),
              probe(["d"], ["d"], "ask", "q4"))
    assert paired_ratio(v2) == pytest.approx(0.5)
    assert paired_ratio(view(probe(["a"], ["a"]))) is None


def test_declared_metrics_compute_per_category_and_keep_abstention_apart() -> None:
    records = Records(probes=[
        probe(["a"], ["a"], "ask", "q1", "single-hop"),
        probe(["x"], ["b"], "ask", "q2", "multi-hop"),
        probe(["c"], ["c"], "abstain", "q3", "adversarial"),
        probe(["a"], ["a"], "early", "q1", "single-hop"),
    ])
    out = compute_metrics(retrieval_metrics(early=True, final="late"), records, set())
    assert out["recall_any@5"] == 0.5  # the abstention question is not in it
    assert out["abstain_recall_any@5"] == 1.0
    assert out["recall_any@5/single-hop"] == 1.0 and out["recall_any@5/multi-hop"] == 0.0
    assert "recall_any@5/adversarial" not in out
    assert out["retention@5"] == 1.0 and out["recall_any@5_early"] == 1.0
    names = [m.name for m in retrieval_metrics(early=False)]
    assert "retention@5" not in names and "recall_any@5_early" not in names
    assert len(names) == len(set(names))
