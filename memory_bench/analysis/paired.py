"""Paired tests of two backends from per-question outcomes, clustered by seed.

Why per question: backends in one run answer the same questions on the same
seeds, so each question is a pair. A test on the per-seed means throws that
away: with n seeds the exact sign-flip test over seeds cannot go below
2 / 2**n (0.0625 at 5 seeds, 0.002 at 10), so after a correction for the
hundreds of comparisons a report makes, no verdict could ever pass. Over
questions it can, when the difference is real.

For backends A and B and one metric that declares per-question outcomes
(``metrics/spec.py``):

- **pairing**: on every seed where both ran on the same data (data hash), the
  questions both have a row for, matched by key;
- **effect**: the mean over seeds of metric(A) − metric(B), each recomputed from
  the paired rows by the metric's aggregate: a difference in the metric's own
  units;
- **interval**: a 95% two-stage cluster bootstrap of the effect (seeds resampled
  with replacement, then the questions within each resampled seed), percentile
  interval, seeded; ``BOOT_DRAWS`` draws (``BOOT_DRAWS_PERCENTILE`` for latency
  percentiles, whose draws each sort a sample, and whose interval is the normal
  one of the same draws: see **p**);
- **p**: a two-sided paired randomization test of the null that A's and B's
  outcomes are exchangeable question by question (each question's two rows
  swapped with probability ½, seeds kept apart). When every outcome is 0 or 1
  and the aggregate is a mean, its distribution is binomial on the questions
  where the two disagree, computed exactly (McNemar's exact test, on the
  pooled count); otherwise Monte Carlo with ``DRAWS`` swaps, p = (1 + #) /
  (1 + DRAWS), and where no swap reaches the observed statistic, the normal tail
  of those same null draws (2·Φ(−|effect| / RMS of the draws), at most the
  Monte Carlo floor): a floor of 1e-4 times the thousands of comparisons Holm
  corrects for would make every such verdict a tie. Percentiles (latency p50,
  p95) are tested on the quantile itself, not on which backend is faster on
  more questions (a sign test of the median question says nothing of the 95th
  percentile, and pointed against its own interval): the same cluster
  bootstrap gives the quantile
  difference's standard error, the interval is effect ± 1.96 SE and p is
  2·Φ(−|effect| / SE), so a verdict (p < 0.05, before Holm's correction makes
  it larger) always has an interval excluding 0 on its own side;
- **multiplicity**: Holm's step-down correction over every comparison of a
  result (:func:`holm`), applied by ``compare.analyse``.

The p-value is conditional on the questions asked (are the backends
exchangeable on them); the interval is the one that speaks to other seeds.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from memory_bench.metrics.aggregate import AGGREGATES, Aggregate
from memory_bench.results.model import BackendEntry

__all__ = ["BOOT_DRAWS", "DRAWS", "TESTS", "PairedRows", "PairedTest", "holm", "paired_rows",
           "paired_test"]

DRAWS = 9999  # Monte Carlo swaps: p can reach 1e-4
BOOT_DRAWS = 1999
# Percentiles (latency) cannot be bootstrapped through sums: each draw sorts its sample,
# the bulk of an analysis's time, so they take fewer draws.
BOOT_DRAWS_PERCENTILE = 999
SEED = 20260817  # every comparison draws the same way: the same file, the same numbers


@lru_cache(maxsize=64)
def _swaps(n: int, seed_index: int) -> np.ndarray:
    """DRAWS x n swap indicators for the seed_index-th seed of a comparison (the same
    for every comparison: drawing them once per analysis is most of its speed)."""
    rng = np.random.default_rng([SEED, n, seed_index])
    return rng.integers(0, 2, size=(DRAWS, n)).astype(float)


@lru_cache(maxsize=64)
def _resample(n: int, seed_index: int) -> np.ndarray:
    """BOOT_DRAWS x n question indices, resampled with replacement (cached likewise)."""
    return np.random.default_rng([SEED, n, seed_index, 1]).integers(0, n, size=(BOOT_DRAWS, n))


def _binary(a: np.ndarray) -> bool:
    return bool(np.all((a == 0.0) | (a == 1.0)))
CONFIDENCE = 0.95


@dataclass
class PairedRows:
    """One comparison's paired rows: per seed, A's and B's rows of the same questions."""

    seeds: list[int] = field(default_factory=list)
    a: list[np.ndarray] = field(default_factory=list)
    b: list[np.ndarray] = field(default_factory=list)

    @property
    def questions(self) -> int:
        return sum(len(x) for x in self.a)


# The tests a comparison names (Comparison.test), in words.
TESTS = {
    "mcnemar": "exact paired randomization over questions (McNemar's exact test: 0/1 "
               "outcomes, binomial on the questions where the two disagree)",
    "randomization": f"paired randomization over questions, {DRAWS} Monte Carlo swaps; "
                     "beyond every swap, the normal tail of the same null draws",
    "sign": "exact sign test on per-question differences (is one higher on more questions; "
            "latency percentiles in files before the quantile bootstrap)",
    "quantile-bootstrap": "two-stage cluster bootstrap of the quantile difference (seeds, "
                          "then questions within seeds); interval effect +- 1.96 bootstrap "
                          "SE and p = 2 Phi(-|effect| / SE) from the same draws, so a "
                          "verdict never points against its interval",
    "seed-sign-flip": "sign-flip test over per-seed differences (no per-question "
                      "outcomes): exact up to 16 seeds, above that a seeded Monte Carlo "
                      "over 20000 sign vectors, p = (1 + hits) / (1 + draws)",
}


@dataclass
class PairedTest:
    effect: float | None
    low: float | None
    high: float | None
    p: float
    test: str
    questions: int
    seeds: list[int]
    discordant: list[int] | None = None  # [A higher, B higher] for the exact tests


def paired_rows(a: BackendEntry, b: BackendEntry, metric: str) -> PairedRows | None:
    """The paired rows of ``metric``, or None when some paired seed has no rows on a
    side (a file from before per-question outcomes, or a metric without them)."""
    out = PairedRows()
    for run_a in a.ok_runs():
        run_b = b.run_for(run_a.seed)
        if run_b is None or not run_b.ok or run_a.data_hash != run_b.data_hash:
            continue
        va, vb = run_a.metrics.get(metric), run_b.metrics.get(metric)
        if va is None or vb is None:
            continue
        ra, rb = run_a.rows(metric), run_b.rows(metric)
        if not ra or not rb:
            return None
        keys = [k for k in ra if k in rb]
        if keys:
            out.seeds.append(run_a.seed)
            out.a.append(np.asarray([ra[k] for k in keys], dtype=float))
            out.b.append(np.asarray([rb[k] for k in keys], dtype=float))
    return out


def _effect(agg: Aggregate, rows: PairedRows) -> float | None:
    diffs = [float(agg.of_rows(x)) - float(agg.of_rows(y)) for x, y in zip(rows.a, rows.b,
                                                                           strict=True)]
    diffs = [d for d in diffs if np.isfinite(d)]
    return float(np.mean(diffs)) if diffs else None


def _binomial_p(higher: int, lower: int) -> float:
    """Two-sided exact p of ``higher`` against ``lower`` successes, p = ½ each."""
    from scipy.special import bdtr  # light: no scipy.stats

    m = higher + lower
    if m == 0:
        return 1.0
    return float(min(1.0, 2.0 * bdtr(min(higher, lower), m, 0.5)))


def _exact(rows: PairedRows, column: int = 0) -> tuple[float, list[int]]:
    d = np.concatenate([x[:, column] - y[:, column] for x, y in zip(rows.a, rows.b,
                                                                    strict=True)])
    higher, lower = int((d > 0).sum()), int((d < 0).sum())
    return _binomial_p(higher, lower), [higher, lower]


def _randomization(agg: Aggregate, rows: PairedRows, observed: float) -> float:
    assert agg.of_sums is not None
    stats = []
    for s, (x, y) in enumerate(zip(rows.a, rows.b, strict=True)):
        n = len(x)
        moved = _swaps(n, s) @ (x - y)  # what the swapped questions take from A, give to B
        sa, sb = x.sum(axis=0) - moved, y.sum(axis=0) + moved
        stats.append(agg.of_sums(sa, n) - agg.of_sums(sb, n))
    with np.errstate(invalid="ignore"):
        null = np.nanmean(np.vstack(stats), axis=0)
    tol = 1e-12 * max(1.0, abs(observed))
    null = null[np.isfinite(null)]
    beyond = int(np.sum(np.abs(null) >= abs(observed) - tol))
    if beyond or null.size < 2:
        return float((1 + beyond) / (DRAWS + 1))
    # No swap reached the observed statistic: the Monte Carlo p would stop at its floor,
    # 1 / (DRAWS + 1), which Holm's correction over a report's thousands of comparisons
    # turns into a tie whatever the effect. The tail is then read off the same null draws
    # as a normal one (centred on 0 under exchangeability, their spread), never above the
    # floor: a large effect gets the small p it has.
    from scipy.special import ndtr  # light: no scipy.stats

    se = float(np.sqrt(np.mean(null ** 2)))
    floor = 1.0 / (DRAWS + 1)
    return floor if se == 0.0 else float(min(floor, 2.0 * ndtr(-abs(observed) / se)))


def _seed_draws(agg: Aggregate, x: np.ndarray, y: np.ndarray, s: int, binary: bool,
                rng: np.random.Generator) -> np.ndarray:
    """BOOT_DRAWS resampled effects of one seed (its questions drawn with replacement)."""
    n = len(x)
    if binary and agg.name == "mean":
        # A 0/1 pair is one of four cells; resampling n questions is a multinomial draw
        # over them, and the effect is (A only - B only) / n: no n-wide arrays.
        d = x[:, 0] - y[:, 0]
        cells = [float((d > 0).mean()), float((d < 0).mean())]
        counts = rng.multinomial(n, [*cells, max(0.0, 1.0 - sum(cells))], size=BOOT_DRAWS)
        return (counts[:, 0] - counts[:, 1]) / n
    idx = _resample(n, s)
    if agg.of_sums is not None:
        return agg.of_sums(x[idx].sum(axis=1), n) - agg.of_sums(y[idx].sum(axis=1), n)
    idx = idx[:BOOT_DRAWS_PERCENTILE]
    return agg.of_rows(x[idx]) - agg.of_rows(y[idx])


def _draws(agg: Aggregate, rows: PairedRows, binary: bool, rng: np.random.Generator
           ) -> np.ndarray:
    """The bootstrap distribution of the effect: seeds resampled, then questions."""
    per_seed = [_seed_draws(agg, x, y, s, binary, rng)
                for s, (x, y) in enumerate(zip(rows.a, rows.b, strict=True))]
    table = np.vstack(per_seed)  # seeds x draws
    b = table.shape[1]
    pick = rng.integers(0, len(per_seed), size=(b, len(per_seed)))
    # A draw is NaN where its resampled questions cannot make the metric (a contrast
    # whose resample holds no control): it is dropped, not warned about.
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        draws = np.nanmean(table[pick, np.arange(b)[:, None]], axis=1)
    return draws[np.isfinite(draws)]


def _bootstrap(agg: Aggregate, rows: PairedRows, binary: bool, rng: np.random.Generator
               ) -> tuple[float | None, float | None]:
    draws = _draws(agg, rows, binary, rng)
    if not draws.size:
        return None, None
    tail = (1 - CONFIDENCE) / 2 * 100
    low, high = np.percentile(draws, [tail, 100 - tail])
    return float(low), float(high)


def _quantile_test(agg: Aggregate, rows: PairedRows, effect: float,
                   rng: np.random.Generator) -> tuple[float, float | None, float | None]:
    """p and the interval of a quantile difference from one normal approximation over
    its bootstrap draws: p < 1 - CONFIDENCE exactly when the interval excludes 0."""
    from scipy.special import ndtr, ndtri  # light: no scipy.stats

    draws = _draws(agg, rows, False, rng)
    if draws.size < 2:
        return 1.0, None, None
    se = float(np.std(draws, ddof=1))
    if se == 0.0:
        return (1.0 if effect == 0.0 else 0.0), effect, effect
    z = float(ndtri(1 - (1 - CONFIDENCE) / 2))
    p = float(min(1.0, 2.0 * ndtr(-abs(effect) / se)))
    return p, effect - z * se, effect + z * se


def paired_test(aggregate: str, rows: PairedRows) -> PairedTest:
    """Effect, its interval and the two-sided p of A against B (module docstring)."""
    agg = AGGREGATES[aggregate]
    rng = np.random.default_rng(SEED)
    effect = _effect(agg, rows)
    n = rows.questions
    if effect is None or n == 0:
        return PairedTest(effect, None, None, 1.0, "none", n, rows.seeds)
    discordant = None
    binary = all(_binary(x) and _binary(y) for x, y in zip(rows.a, rows.b, strict=True))
    if agg.test == "bootstrap":
        p, low, high = _quantile_test(agg, rows, effect, rng)
        return PairedTest(effect, low, high, p, "quantile-bootstrap", n, rows.seeds)
    if agg.name == "mean" and binary:
        p, discordant = _exact(rows)
        test = "mcnemar"
    else:
        p = _randomization(agg, rows, effect) if effect != 0 else 1.0
        test = "randomization"
    low, high = _bootstrap(agg, rows, binary, rng)
    return PairedTest(effect, low, high, p, test, n, rows.seeds, discordant)


def holm(p: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the order given (valid under any
    dependence between the tests)."""
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    out = [1.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        out[i] = running
    return out
