"""Properties every summary and verdict must keep, on generated samples."""

from __future__ import annotations

from constructed_results import backend, result
from hypothesis import given, settings
from hypothesis import strategies as st

from memory_bench.analysis.compare import analyse
from memory_bench.analysis.stats import sign_flip_p, summarize

shares = st.lists(st.floats(0, 1, allow_nan=False), min_size=2, max_size=8)
pairs = st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1)), min_size=5, max_size=5)


@settings(deadline=None)
@given(shares)
def test_interval_holds_the_mean_and_stays_in_range(values: list[float]) -> None:
    s = summarize(values, bounds=(0.0, 1.0))
    assert 0.0 <= s["ci_low"] <= s["mean"] + 1e-12 and s["mean"] - 1e-12 <= s["ci_high"] <= 1.0
    assert s["n"] == len(values) and s["std"] >= 0


@settings(deadline=None)
@given(st.lists(st.floats(-1, 1, allow_nan=False), min_size=1, max_size=10))
def test_sign_flip_p_is_a_probability_not_below_its_floor(diffs: list[float]) -> None:
    p = sign_flip_p(diffs)
    assert 2 / 2 ** len(diffs) - 1e-12 <= p <= 1.0


@settings(max_examples=25, deadline=None)
@given(pairs)
def test_verdicts_are_antisymmetric(values: list[tuple[float, float]]) -> None:
    a = backend("A", {"recall1_before": [x for x, _ in values]})
    b = backend("B", {"recall1_before": [y for _, y in values]})
    ab = analyse(result(a, b)).comparisons or []
    ba = analyse(result(b, a)).comparisons or []
    flip = {"ahead": "behind", "behind": "ahead", "tie": "tie"}
    v_ab = next(c.verdict for c in ab if c.metric == "recall1_before")
    v_ba = next(c.verdict for c in ba if c.metric == "recall1_before")
    assert flip[v_ab] == v_ba
