"""Summaries across seeds: mean, standard deviation, a seeded bootstrap 95% CI, n."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["CONFIDENCE", "N_RESAMPLES", "bootstrap_ci", "summarize"]

CONFIDENCE = 0.95
N_RESAMPLES = 9999
BOOTSTRAP_SEED = 20260817  # fixed: the same per-seed values always give the same CI


def bootstrap_ci(values: Sequence[float], seed: int = BOOTSTRAP_SEED) -> tuple[float, float]:
    """Percentile bootstrap CI of the mean (scipy.stats.bootstrap, seeded).

    A constant sample gives a zero-width interval; a single value gives itself.
    """
    arr = np.asarray(values, dtype=float)
    if arr.size == 0:
        raise ValueError("no values")
    if arr.size == 1 or np.all(arr == arr[0]):
        return float(arr[0]), float(arr[0])
    from scipy.stats import bootstrap  # scipy is slow to import; only when summarising

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = bootstrap(
            (arr,),
            np.mean,
            confidence_level=CONFIDENCE,
            n_resamples=N_RESAMPLES,
            method="percentile",
            vectorized=True,
            rng=np.random.default_rng(seed),
        )
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


def summarize(values: Sequence[float | None]) -> dict[str, Any]:
    """Mean, sample std (ddof=1), 95% CI and n over the non-null per-seed values."""
    present = [float(v) for v in values if v is not None]
    n = len(present)
    if n == 0:
        return {"mean": None, "std": None, "ci_low": None, "ci_high": None, "n": 0}
    arr = np.asarray(present)
    low, high = bootstrap_ci(present)
    return {
        "mean": float(arr.mean()),
        "std": float(arr.std(ddof=1)) if n > 1 else None,
        "ci_low": low,
        "ci_high": high,
        "n": n,
    }
