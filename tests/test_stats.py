"""Summaries and tests against values worked out by hand or by scipy directly."""

from __future__ import annotations

import math

import pytest
from scipy import stats as sps

from memory_bench.analysis.stats import (
    bootstrap_ci,
    sign_flip_p,
    summarize,
    t_interval,
)
from memory_bench.metrics.continual import CONTINUAL_METRICS

BY_NAME = {m.name: m.spec for m in CONTINUAL_METRICS}


def metric_bounds(spec):
    return spec.bounds


def test_constant_metric_has_zero_width_interval() -> None:
    s = summarize([0.75] * 5, bootstrap=True)
    assert s == {"mean": 0.75, "std": 0.0, "ci_low": 0.75, "ci_high": 0.75, "n": 5,
                 "boot_low": 0.75, "boot_high": 0.75}


def test_known_sample_gives_known_mean_std_and_t_interval() -> None:
    s = summarize([1.0, 2.0, 3.0, 4.0, 5.0])
    assert s["mean"] == 3.0 and s["n"] == 5
    assert s["std"] == pytest.approx(math.sqrt(2.5))
    # t(0.975, 4) = 2.7764451; half-width = 2.7764451 * sqrt(2.5) / sqrt(5)
    assert s["ci_high"] - 3.0 == pytest.approx(2.7764451 * math.sqrt(0.5), rel=1e-6)
    low, high = sps.t.interval(0.95, 4, loc=3.0, scale=sps.sem([1, 2, 3, 4, 5]))
    assert (s["ci_low"], s["ci_high"]) == (pytest.approx(low), pytest.approx(high))


def test_nulls_are_skipped_and_all_null_gives_n_zero() -> None:
    assert summarize([None, 1.0, None, 3.0])["n"] == 2
    assert summarize([None, None]) == {"mean": None, "std": None, "ci_low": None,
                                       "ci_high": None, "n": 0}


def test_single_value_has_no_spread() -> None:
    s = summarize([0.4])
    assert s["mean"] == 0.4 and s["std"] is None and s["ci_low"] == s["ci_high"] == 0.4


def test_share_interval_is_clipped_to_unit_range() -> None:
    s = summarize([1.0, 1.0, 1.0, 1.0, 0.9], bounds=metric_bounds(BY_NAME["recall1_before"]))
    assert s["ci_high"] == 1.0 and s["ci_low"] < s["mean"] < 1.0
    lat = summarize([0.1, 5.0, 0.1, 0.1, 0.1], bounds=metric_bounds(BY_NAME["latency_p95_ms"]))
    assert lat["ci_low"] == 0.0
    assert metric_bounds(BY_NAME["strengthDelta"]) is None  # self-reported, any number
    assert metric_bounds(BY_NAME["reinforcementDelta"]) == (-2.0, 2.0)  # a rank gain


def test_t_interval_is_wider_than_percentile_bootstrap_at_five_seeds() -> None:
    """The reason the headline interval is t, not the percentile bootstrap (stats.py)."""
    values = [0.81, 0.86, 0.79, 0.9, 0.84]
    t_low, t_high = t_interval(values)
    res = sps.bootstrap((values,), lambda x, axis: x.mean(axis=axis), method="percentile",
                        n_resamples=9999, rng=0)
    assert t_high - t_low > 1.3 * (res.confidence_interval.high - res.confidence_interval.low)


def test_bootstrap_is_seeded_and_brackets_the_mean() -> None:
    values = [0.81, 0.86, 0.79, 0.9, 0.84]
    a, b = bootstrap_ci(values), bootstrap_ci(values)
    assert a == b
    assert min(values) <= a[0] < sum(values) / 5 < a[1] <= max(values)
    assert bootstrap_ci([2.0]) == (2.0, 2.0)
    with pytest.raises(ValueError):
        bootstrap_ci([])


def test_sign_flip_p_exact_values() -> None:
    assert sign_flip_p([1.0] * 5) == pytest.approx(2 / 32)  # the floor at 5 seeds
    assert sign_flip_p([0.0] * 5) == 1.0
    assert sign_flip_p([1.0, -1.0]) == 1.0
    # |mean| of [3, 1, 1]: sign vectors reaching >= 5/3 are +++ and --- only.
    assert sign_flip_p([3.0, 1.0, 1.0]) == pytest.approx(2 / 8)
    assert sign_flip_p([]) is None
    many = sign_flip_p([1.0] * 20)  # Monte Carlo above 16 values, seeded
    assert many == sign_flip_p([1.0] * 20) and many < 0.001


def test_bootstrap_ci_is_scipys_bootstrap_to_the_bit() -> None:
    """stats.py draws and computes as scipy.stats.bootstrap does (without importing it):
    the same interval, BCa and its percentile fallback, ties and degenerate samples too."""
    import warnings

    import numpy as np
    import scipy.stats as sps

    from memory_bench.analysis.stats import BOOTSTRAP_SEED

    rng = np.random.default_rng(7)
    samples = [rng.random(n) for n in (2, 3, 5, 10)] + [
        rng.integers(0, 3, 6) / 2.0, np.round(rng.random(8), 2), np.array([0.0, 0.0, 1.0]),
        np.array([0.5, 0.5, 0.5, 0.75]), np.array([1.0, 0.0])]
    for values in samples:
        expected = None
        for method in ("BCa", "percentile"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ci = sps.bootstrap((values,), np.mean, confidence_level=0.95,
                                   n_resamples=9999, method=method, vectorized=True,
                                   rng=np.random.default_rng(BOOTSTRAP_SEED)).confidence_interval
            if np.isfinite(ci.low) and np.isfinite(ci.high):
                expected = (float(ci.low), float(ci.high))
                break
        assert expected is not None
        assert bootstrap_ci(list(values)) == expected, values
