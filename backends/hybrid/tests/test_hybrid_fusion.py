"""The two fusions, on ranked lists written by hand (no model, no index)."""

from __future__ import annotations

import pytest
from memory_bench_hybrid.fusion import fuse

DENSE = [("a", 0.9), ("b", 0.8), ("c", 0.1)]
LEXICAL = [("b", 12.0), ("c", 3.0)]


def test_rrf_sums_reciprocal_ranks_on_a_unit_scale() -> None:
    got = dict(fuse(DENSE, LEXICAL, k=60))
    best = 2 / 61
    assert got["b"] == pytest.approx((1 / 62 + 1 / 61) / best)
    assert got["c"] == pytest.approx((1 / 63 + 1 / 62) / best)
    assert got["a"] == pytest.approx((1 / 61) / best)  # absent from bm25: nothing from it
    assert [i for i, _ in fuse(DENSE, LEXICAL, k=60)] == ["b", "c", "a"]
    assert fuse([("x", 0.5)], [("x", 7.0)], k=60) == [("x", pytest.approx(1.0))]


def test_rrf_k_sets_how_much_one_first_place_counts() -> None:
    # x is first on one side only; y is fourth on both.
    dense = [("x", 0.9), ("p", 0.8), ("q", 0.7), ("y", 0.6)]
    lexical = [("r", 9.0), ("s", 8.0), ("t", 7.0), ("y", 6.0)]
    assert fuse(dense, lexical, k=1)[0][0] == "x"  # 1/2 > 2/5
    assert fuse(dense, lexical, k=60)[0][0] == "y"  # 2/64 > 1/61


def test_weighted_min_max_normalises_each_side() -> None:
    got = dict(fuse(DENSE, LEXICAL, method="weighted", weight=0.5))
    assert got["a"] == pytest.approx(0.5 * 1.0)
    assert got["b"] == pytest.approx(0.5 * (0.7 / 0.8) + 0.5 * 1.0)
    assert got["c"] == pytest.approx(0.5 * 0.0 + 0.5 * 0.0)
    dense_only = fuse(DENSE, LEXICAL, method="weighted", weight=1.0)
    assert [i for i, _ in dense_only] == ["a", "b", "c"]
    lexical_only = fuse(DENSE, LEXICAL, method="weighted", weight=0.0)
    assert [i for i, _ in lexical_only] == ["b", "a", "c"]  # a and c tie at 0: dense rank


def test_equal_scores_normalise_to_one_and_ties_follow_dense_rank() -> None:
    got = fuse([("a", 0.3), ("b", 0.3)], [], method="weighted", weight=0.5)
    assert got == [("a", 0.5), ("b", 0.5)]
    # Tied fused scores: the better dense rank first, then the better lexical rank.
    assert [i for i, _ in fuse([("x", 1.0), ("y", 0.5)], [("y", 2.0), ("x", 1.0)])] == ["x", "y"]
    assert [i for i, _ in fuse([], [("p", 2.0), ("q", 2.0)])] == ["p", "q"]


def test_empty_lists_and_unknown_method() -> None:
    assert fuse([], []) == []
    with pytest.raises(ValueError, match="fusion 'max'"):
        fuse(DENSE, LEXICAL, method="max")
