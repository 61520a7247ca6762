"""How a metric is made from its per-question outcomes, by name, vectorised.

A metric that declares per-question outcomes (one row of numbers per question,
keyed so that the same question can be found in another backend's records)
names one of these aggregates: the metric of a pair is the aggregate of its
rows. The analysis (``memory_bench.analysis.paired``) recomputes it on
resampled and permuted rows: ``of_rows`` takes an array of shape
``(..., questions, columns)``; where the aggregate depends on the column sums
only (means, ratios of means, rates), ``of_sums`` takes ``(..., columns)`` sums
and the question count, which lets a permutation or a bootstrap be one matrix
product. ``test`` names the paired test that suits it (see ``paired.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

__all__ = ["AGGREGATES", "Aggregate", "aggregate", "value_of"]


@dataclass(frozen=True)
class Aggregate:
    name: str
    of_rows: Callable[[np.ndarray], np.ndarray]
    of_sums: Callable[[np.ndarray, int], np.ndarray] | None
    # "randomization": the paired randomization test of this aggregate (exact when every
    # value is 0 or 1); "bootstrap": the cluster bootstrap of the quantile difference, its
    # interval and p from one normal approximation (analysis/paired.py), for quantiles.
    test: str
    description: str
    # The metric of one pair from its rows (questions x columns), in plain floats: the
    # value a result file records (None when the rows cannot make one).
    value: Callable[[list[tuple[float, ...]]], float | None]


def _div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(b > 0, a / np.where(b > 0, b, 1.0), np.nan)


def _rows_via_sums(of_sums: Callable[[np.ndarray, int], np.ndarray]
                   ) -> Callable[[np.ndarray], np.ndarray]:
    return lambda a: of_sums(a.sum(axis=-2), a.shape[-2])


def _mean(s: np.ndarray, n: int) -> np.ndarray:
    return s[..., 0] / n


def _ratio(s: np.ndarray, n: int) -> np.ndarray:
    return _div(s[..., 1], s[..., 0])


def _rate(s: np.ndarray, n: int) -> np.ndarray:
    return _div(s[..., 0], s[..., 1])


def _contrast(s: np.ndarray, n: int) -> np.ndarray:
    return _div(s[..., 1], s[..., 0]) - _div(s[..., 3], s[..., 2])


def _percentile(q: float) -> Callable[[np.ndarray], np.ndarray]:
    return lambda a: np.percentile(a[..., 0], q, axis=-1)


def _col(rows: list[tuple[float, ...]], i: int) -> list[float]:
    return [r[i] for r in rows]


def _mean_value(rows: list[tuple[float, ...]]) -> float | None:
    return sum(_col(rows, 0)) / len(rows) if rows else None


def _ratio_value(rows: list[tuple[float, ...]]) -> float | None:
    # mean / mean, in this order (not sum / sum): retention as recall@1 after over
    # recall@1 before, to the last bit
    if not rows:
        return None
    below = sum(_col(rows, 0)) / len(rows)
    return sum(_col(rows, 1)) / len(rows) / below if below else None


def _sum_ratio_value(rows: list[tuple[float, ...]]) -> float | None:
    below = sum(_col(rows, 0))
    return sum(_col(rows, 1)) / below if below else None


def _rate_value(rows: list[tuple[float, ...]]) -> float | None:
    seconds = sum(_col(rows, 1))
    return sum(_col(rows, 0)) / seconds if seconds > 0 else None


def _contrast_value(rows: list[tuple[float, ...]]) -> float | None:
    # (in group A, value if A, in group B, value if B) per question: mean of A's values
    # minus mean of B's, None unless both groups have a question
    a, b = sum(_col(rows, 0)), sum(_col(rows, 2))
    if not rows or a <= 0 or b <= 0:
        return None
    return sum(_col(rows, 1)) / a - sum(_col(rows, 3)) / b


def _percentile_value(q: float) -> Callable[[list[tuple[float, ...]]], float | None]:
    return lambda rows: float(np.percentile(_col(rows, 0), q)) if rows else None


AGGREGATES: dict[str, Aggregate] = {a.name: a for a in (
    Aggregate("mean", _rows_via_sums(_mean), _mean, "randomization",
              "the mean of one value per question (a share, when the values are 0/1)",
              _mean_value),
    Aggregate("ratio", _rows_via_sums(_ratio), _ratio, "randomization",
              "mean of the second column / mean of the first (retention: after / before)",
              _ratio_value),
    Aggregate("sum_ratio", _rows_via_sums(_ratio), _ratio, "randomization",
              "sum of the second column / sum of the first: the ratio of means on the same "
              "questions, as the datasets' retention@k has always been computed",
              _sum_ratio_value),
    Aggregate("rate", _rows_via_sums(_rate), _rate, "randomization",
              "sum of the first column / sum of the second (items / seconds)", _rate_value),
    Aggregate("contrast", _rows_via_sums(_contrast), _contrast, "randomization",
              "mean of the second column over the questions flagged in the first, minus the "
              "mean of the fourth over those flagged in the third: two groups of questions "
              "(reinforcementDelta: reinforced facts against their controls)",
              _contrast_value),
    Aggregate("p50", _percentile(50), None, "bootstrap", "the median over questions",
              _percentile_value(50)),
    Aggregate("p95", _percentile(95), None, "bootstrap", "the 95th percentile over questions",
              _percentile_value(95)),
)}


def aggregate(name: str, rows: np.ndarray | list) -> float:
    """The metric from one pair's rows (questions x columns), vectorised."""
    return float(AGGREGATES[name].of_rows(np.asarray(rows, dtype=float)))


def value_of(name: str, rows: list[tuple[float, ...]]) -> float | None:
    """The metric a pair records, from its rows (the analysis resamples the same rows)."""
    return AGGREGATES[name].value(rows)
