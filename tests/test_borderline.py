"""Monte Carlo p-values: the seed-level sign-flip's is never 0, and a verdict whose Holm p
lies within Monte Carlo error of 0.05 is flagged borderline in the verdict tables."""

from __future__ import annotations

import pytest
from constructed_results import backend, result

from memory_bench.analysis.compare import analyse
from memory_bench.analysis.stats import SIGN_FLIP_DRAWS, sign_flip_p
from memory_bench.render.sections import difference_table, verdict_table
from memory_bench.results.borderline import borderline, holm_mc_error
from memory_bench.results.model import Comparison

V5 = {"alpha": 0.05, "draws": {"randomization": 9999, "quantile-bootstrap": 999,
                               "seed-sign-flip": 20000}}


def test_monte_carlo_sign_flip_counts_the_observed_signs() -> None:
    """Above 16 seeds: p = (1 + hits) / (1 + draws), so all-positive differences give the
    floor 1 / (1 + draws), not 0."""
    assert sign_flip_p([1.0] * 20) == pytest.approx(1 / (1 + SIGN_FLIP_DRAWS))
    p = sign_flip_p([1.0, -0.9] * 10)
    assert p is not None and p * (1 + SIGN_FLIP_DRAWS) == pytest.approx(round(p * 20001))
    assert sign_flip_p([1.0] * 16) == pytest.approx(2 / 2**16)  # exact up to 16


def _c(test: str, p: float, p_holm: float, n: int = 10) -> Comparison:
    return Comparison("a", "b", "recall1_before", n, "ahead" if p_holm <= 0.05 else "tie",
                      test=test, p=p, p_holm=p_holm, effect=0.1, effect_low=0.05,
                      effect_high=0.15)


def test_a_holm_p_near_alpha_from_draws_is_borderline() -> None:
    # raw 2e-4 from 9999 swaps (2 hits): SE ~1.4e-4, times Holm's 240: ~0.034
    assert borderline(_c("randomization", 2e-4, 0.048), V5)
    assert borderline(_c("randomization", 2e-4, 0.06), V5)
    assert not borderline(_c("randomization", 0.01, 0.011), V5)  # SE ~1e-3 at 0.011
    assert borderline(_c("quantile-bootstrap", 0.001, 0.049), V5)
    assert not borderline(_c("quantile-bootstrap", 0.001, 0.2), V5)


def test_exact_tests_are_never_borderline() -> None:
    assert holm_mc_error(_c("mcnemar", 2e-4, 0.05), V5) is None
    assert not borderline(_c("mcnemar", 2e-4, 0.05), V5)
    assert not borderline(_c("seed-sign-flip", 0.002, 0.05, n=10), V5)  # exact at 10 seeds
    assert borderline(_c("seed-sign-flip", 0.002, 0.05, n=20), V5)  # Monte Carlo at 20


def test_the_verdict_tables_say_borderline() -> None:
    r = analyse(result(backend("a", {"recall1_before": [0.6] * 5}),
                       backend("b", {"recall1_before": [0.5] * 5})))
    cmp = next(c for c in r.comparisons or [] if c.metric == "recall1_before")
    cmp.test, cmp.p, cmp.p_holm, cmp.verdict = "randomization", 2e-4, 0.049, "ahead"
    cmp.effect, cmp.effect_low, cmp.effect_high = 0.1, 0.05, 0.15
    r.analysis = {**(r.analysis or {}), **V5}
    head, rows = verdict_table(r)
    cell = rows[0][head.index("recall@1")]
    assert cell.startswith("ahead +") and cell.endswith(" (borderline)")
    head, rows = difference_table(r)
    row = next(x for x in rows if x[2] == "recall@1")
    assert row[head.index("verdict")] == "ahead (borderline)"
    cmp.p_holm = 0.001
    head, rows = verdict_table(r)
    assert "borderline" not in rows[0][head.index("recall@1")]


def test_a_p_too_small_for_one_minus_p_is_not_an_error() -> None:
    assert holm_mc_error(_c("quantile-bootstrap", 1e-300, 1e-297), V5) == pytest.approx(0.0)
    assert not borderline(_c("randomization", 1e-30, 1e-28), V5)
