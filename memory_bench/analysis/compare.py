"""Paired comparisons between backends of one run, and one run against another.

Backends in one run answer the same questions on the same seeds (the
``data_hash`` of each run says so), so two backends are compared question by
question (``paired.py``): the effect with its cluster-bootstrap interval and a
paired test, whose p-values are Holm-corrected over every comparison of the
result. The verdict reads from the first backend's side: "ahead" or "behind"
when the Holm-adjusted p is at most 0.05, "tie" otherwise; a metric one side
cannot report gives "not supported" and no paired question "insufficient
data": never a winner. A metric without per-question outcomes (or a file
written before them) falls back to the per-seed differences, whose exact
sign-flip p enters the same correction. The per-seed t-interval of the mean
difference is kept beside every verdict. Summaries: ``stats.py``.
"""

from __future__ import annotations

import itertools
import math
import multiprocessing
from collections.abc import Iterable, Sequence
from typing import Any

from memory_bench.analysis.paired import (
    BOOT_DRAWS,
    BOOT_DRAWS_PERCENTILE,
    DRAWS,
    TESTS,
    holm,
    paired_rows,
    paired_test,
)
from memory_bench.analysis.stats import (
    BOOTSTRAP_SEED,
    CONFIDENCE,
    N_RESAMPLES,
    SIGN_FLIP_DRAWS,
    sign_flip_p,
    summarize,
    t_interval,
    t_quantile,
)
from memory_bench.contract.forksafety import fork_unsafe_reason
from memory_bench.metrics.curve import summarize_curves
from memory_bench.metrics.spec import MetricSpec
from memory_bench.results.derived import E2E_INGEST
from memory_bench.results.model import BackendEntry, Comparison, MetricSummary, Result

__all__ = [
    "ANALYSIS_VERSION",
    "METHOD",
    "analyse",
    "compare_runs",
    "ensure_analysis",
    "paired_comparison",
    "per_seed",
    "summarize_backends",
]

# 3: a randomization p beyond every swap is the null's normal tail; 4: a verdict also
# needs its interval to exclude 0 on its side; 5: the seed-level sign-flip's Monte Carlo
# (above 16 seeds) is p = (1 + hits) / (1 + draws), never 0; the draws are recorded
ANALYSIS_VERSION = 5
ALPHA = 0.05
METHOD = {
    "confidence": CONFIDENCE,
    "ci": "summaries: Student-t interval of the mean over per-seed values, clipped to the "
          "metric's range ([0, 1] for shares, non-negative for ratios, latencies and rates)",
    "why t": "with 5-10 seeds the percentile bootstrap of a mean is biased narrow (divisor "
             "n, quantile 1.96 instead of 2.26-2.78) and covers well under 95%; BCa corrects "
             "skew, not that, so the wider standard interval is the summary's; the BCa "
             "interval is kept as boot_low/boot_high",
    "bootstrap": f"summaries: BCa, scipy.stats.bootstrap, {N_RESAMPLES} resamples, seed "
                 f"{BOOTSTRAP_SEED}",
    "paired": "question by question: on every seed where both backends ran on the same data "
              "(data hash), the questions both have outcomes for, matched by key",
    "effect": "mean over seeds of metric(first) - metric(second), each recomputed from the "
              "paired questions by the metric's aggregate (the metric's own units); 95% "
              f"interval from a two-stage cluster bootstrap (seeds, then questions within "
              f"seeds), {BOOT_DRAWS} draws ({BOOT_DRAWS_PERCENTILE} for latency percentiles), "
              "percentile interval (for latency percentiles the normal interval of the same "
              "draws, effect +- 1.96 SE, which their p shares: see test)",
    "test": "two-sided paired randomization test, each question's two outcomes swapped with "
            "probability 1/2, seeds kept apart; by comparison (test): "
            + "; ".join(f"{k} = {v}" for k, v in TESTS.items()),
    "multiplicity": "Holm's step-down correction over every comparison in this file (all "
                    "backend pairs x all declared metrics)",
    "verdict": f"Holm-adjusted p <= {ALPHA} and the effect's 95% interval excluding 0 on its "
               "side: ahead or behind by the test's direction and the metric's; otherwise "
               "tie; no paired question: insufficient data",
}


# The Monte Carlo draws behind each test's p (the verdict tables' "borderline" reads them).
DRAWS_BY_TEST = {"randomization": DRAWS, "quantile-bootstrap": BOOT_DRAWS_PERCENTILE,
                 "seed-sign-flip": SIGN_FLIP_DRAWS}


def per_seed(backend: BackendEntry, key: str) -> dict[int, tuple[float, str | None]]:
    """Seed -> (value, data hash) over the successful runs with a non-null value."""
    out = {}
    for run in backend.ok_runs():
        value = run.metrics.get(key)
        if value is not None:
            out[run.seed] = (float(value), run.data_hash)
    return out


def _summary(values: list[float], spec: MetricSpec, bootstrap: bool) -> MetricSummary:
    return MetricSummary(**summarize(values, bounds=spec.bounds, bootstrap=bootstrap))


def summarize_metric(result: Result, key: str, *, bootstrap: bool = False) -> None:
    """Fill one metric's summary on every backend (a metric derived after the run)."""
    for b in result.backends:
        b.summary[key] = _summary([v for v, _ in per_seed(b, key).values()],
                                  result.metric(key), bootstrap)


def summarize_backends(result: Result, *, bootstrap: bool = False) -> None:
    """Fill each backend's ``summary`` from the metrics of its successful runs."""
    keys = result.metric_keys()
    for b in result.backends:
        b.summary = {
            k: _summary([v for v, _ in per_seed(b, k).values()], result.metric(k), bootstrap)
            for k in keys
        }
        b.curve = summarize_curves([r.curve for r in b.ok_runs() if r.curve])


def _direction(c: Comparison, metric: MetricSpec) -> str:
    """ahead or behind, from the first backend's side, by the test's statistic."""
    if c.discordant is not None and c.discordant[0] != c.discordant[1]:
        up = c.discordant[0] > c.discordant[1]
    else:
        up = (c.effect if c.effect is not None else c.mean_diff or 0.0) > 0
    return "ahead" if up == metric.higher_is_better else "behind"


def _interval_agrees(c: Comparison) -> bool:
    """The effect's 95% interval excludes 0 on the effect's side (or there is none): the
    randomization p is conditional on the questions asked, the cluster interval speaks
    to other seeds, and a verdict must not point where its own interval does not."""
    low, high = c.effect_low, c.effect_high
    if low is None or high is None or c.effect is None:
        return True
    return low > 0 if c.effect > 0 else high < 0 if c.effect < 0 else False


def paired_comparison(a: BackendEntry, b: BackendEntry, metric: MetricSpec,
                      key: str | None = None) -> Comparison:
    """Backend ``a`` against ``b`` on one metric: the per-question test where both sides
    have outcomes, the per-seed one otherwise. ``verdict`` is provisional ("tie" or
    "significant") until :func:`analyse` corrects every p of the result together."""
    key = key or metric.name
    va, vb = per_seed(a, key), per_seed(b, key)
    common = sorted(set(va) & set(vb))
    seeds = [s for s in common if va[s][1] == vb[s][1]]
    out = Comparison(a=a.label, b=b.label, metric=key, n=len(seeds), verdict="",
                     seeds=seeds, unpaired_seeds=[s for s in common if s not in seeds])
    if not va or not vb:
        ran = all(x.ok_runs() for x in (a, b))
        out.verdict = "not supported" if ran else "insufficient data"
        return out
    diffs = [va[s][0] - vb[s][0] for s in seeds]
    if diffs:
        out.mean_diff = sum(diffs) / len(diffs)
        out.p_sign_flip = sign_flip_p(diffs)
    if len(diffs) >= 2:
        out.ci_low, out.ci_high = t_interval(diffs)
    rows = paired_rows(a, b, key) if metric.aggregate else None
    if rows is not None and metric.aggregate:
        t = paired_test(metric.aggregate, rows)
        out.test, out.questions, out.discordant = t.test, t.questions, t.discordant
        out.effect, out.effect_low, out.effect_high, out.p = t.effect, t.low, t.high, t.p
        if not t.questions:
            out.verdict = "insufficient data"
            return out
    elif diffs:
        out.test = "seed-sign-flip"
        out.effect, out.p = out.mean_diff, out.p_sign_flip
        out.effect_low, out.effect_high = out.ci_low, out.ci_high
    if out.p is None:
        out.verdict = "insufficient data"
        return out
    out.verdict = "pending"
    return out


# The result a forked analysis worker reads (copy-on-write: nothing is pickled to it).
_FORKED: Result | None = None


def _pair(ab: tuple[int, int], result: Result | None = None) -> list[Comparison]:
    """Every metric's comparison of one pair of backends (by index)."""
    r = result if result is not None else _FORKED
    assert r is not None
    a, b = r.backends[ab[0]], r.backends[ab[1]]
    # a derived figure (results/derived.py) is shown, never tested: the tests' family
    # (Holm's correction) is the run's declared metrics
    return [paired_comparison(a, b, m) for m in r.metrics if m.name != E2E_INGEST]


def _compare_all(result: Result, workers: int) -> list[Comparison]:
    """Every pairwise comparison, in order; with ``workers`` > 1 the backend pairs are
    spread over that many forked processes (each comparison is seeded on its own, so
    the values are the same as one process's)."""
    global _FORKED
    pairs = list(itertools.combinations(range(len(result.backends)), 2))
    if (workers <= 1 or len(pairs) < 2 or "fork" not in multiprocessing.get_all_start_methods()
            or fork_unsafe_reason() is not None):  # a library's threads forbid forking here
        return [c for ab in pairs for c in _pair(ab, result)]
    _FORKED = result
    try:
        with multiprocessing.get_context("fork").Pool(min(workers, len(pairs))) as pool:
            chunks = pool.map(_pair, pairs, chunksize=1)
    finally:
        _FORKED = None
    return [c for chunk in chunks for c in chunk]


def analyse(result: Result, *, workers: int = 1) -> Result:
    """Fill summaries (with bootstrap) and every pairwise comparison into ``result``,
    with Holm's correction over all of them and the verdicts that follow; ``workers``
    processes compare backend pairs at once.

    The result file then holds what the report shows. Per-category keys are
    summarised but not compared.
    """
    summarize_backends(result, bootstrap=True)
    comparisons = _compare_all(result, workers)
    tested = [c for c in comparisons if c.verdict == "pending"]
    for c, adjusted in zip(tested, holm([c.p for c in tested if c.p is not None]),
                           strict=True):
        c.p_holm = adjusted
        c.verdict = (_direction(c, result.metric(c.metric))
                     if adjusted <= ALPHA and _interval_agrees(c) else "tie")
    result.comparisons = comparisons
    result.analysis = {"version": ANALYSIS_VERSION, **METHOD, "comparisons": len(tested),
                       "alpha": ALPHA, "draws": DRAWS_BY_TEST}
    return result


def ensure_analysis(result: Result) -> Result:
    """Analyse a file written without comparisons (1.x files before they existed)."""
    if result.comparisons is None or (result.analysis or {}).get("version") is None:
        analyse(result)
    return result


def _welch(old: Sequence[float], new: Sequence[float]) -> tuple[float, float]:
    """t-interval of mean(new) - mean(old) for two independent samples (Welch)."""
    n1, n2 = len(old), len(new)
    m1, m2 = sum(old) / n1, sum(new) / n2
    v1 = sum((x - m1) ** 2 for x in old) / (n1 - 1)
    v2 = sum((x - m2) ** 2 for x in new) / (n2 - 1)
    se2 = v1 / n1 + v2 / n2
    diff = m2 - m1
    if se2 == 0:
        return diff, diff
    df = se2**2 / ((v1 / n1) ** 2 / (n1 - 1) + (v2 / n2) ** 2 / (n2 - 1))
    half = t_quantile(max(1, math.floor(df))) * math.sqrt(se2)
    return diff - half, diff + half


def _compare_metric(old_b: BackendEntry, new_b: BackendEntry, metric: MetricSpec) -> dict:
    vo, vn = per_seed(old_b, metric.name), per_seed(new_b, metric.name)
    bounds = metric.bounds
    row: dict[str, Any] = {
        "backend": new_b.label, "metric": metric.name,
        "old": summarize([v for v, _ in vo.values()], bounds=bounds),
        "new": summarize([v for v, _ in vn.values()], bounds=bounds),
        "diff": None, "ci_low": None, "ci_high": None, "pairing": None,
    }
    if not vo and not vn:
        row["status"] = "not supported"
        return row
    common = sorted(set(vo) & set(vn))
    paired = [s for s in common if vo[s][1] == vn[s][1] and vo[s][1]]
    if len(paired) >= 2 and len(paired) == len(common):  # same data on every shared seed
        diffs = [vn[s][0] - vo[s][0] for s in paired]
        low, high = t_interval(diffs)
        row.update(diff=sum(diffs) / len(diffs), pairing="paired by seed")
    elif len(vo) >= 2 and len(vn) >= 2:
        low, high = _welch([v for v, _ in vo.values()], [v for v, _ in vn.values()])
        row.update(diff=row["new"]["mean"] - row["old"]["mean"], pairing="unpaired (Welch)")
    else:
        row["status"] = "insufficient data"
        return row
    row.update(ci_low=low, ci_high=high)
    if low <= 0 <= high:
        row["status"] = "same"
    else:
        worse = (row["diff"] < 0) if metric.higher_is_better else (row["diff"] > 0)
        row["status"] = "regression" if worse else "improvement"
    return row


def _machine(result: Result) -> tuple[Any, ...]:
    m = result.manifest
    return (m.get("platform"), m.get("machine"), m.get("cpu_count"))


def compare_runs(old: Result, new: Result, metrics: Iterable[str] | None = None
                 ) -> dict[str, Any]:
    """Per backend (matched by label) and metric: old vs new, and a flag where they separate.

    "Separate" means the 95% interval of new - old excludes 0: paired by seed
    when both runs used the same seeds and data hashes, Welch otherwise. A
    regression is a separation in the metric's worse direction. Metrics are the
    new run's declarations.
    """
    chosen = [new.metric(m) for m in metrics] if metrics else list(new.metrics)
    old_by = {b.label: b for b in old.backends}
    new_by = {b.label: b for b in new.backends}
    rows = [
        _compare_metric(old_by[label], new_by[label], m)
        for label in new_by if label in old_by
        for m in chosen
    ]
    notes = []
    if old.scenario.params_key() != new.scenario.params_key():
        notes.append("the scenarios differ: differences may come from the data, not the backend")
    elif old.scenario.data_hashes != new.scenario.data_hashes:
        notes.append("the data hashes differ for some seeds: those are compared unpaired")
    redefined = [m.name for m in chosen if any(
        o.name == m.name and o.definition != m.definition for o in old.metrics)]
    if redefined:
        notes.append(f"defined differently in the two files: {', '.join(redefined)} "
                     "(their old and new values measure different things)")
    if _machine(old) != _machine(new):
        notes.append(f"different machines ({_machine(old)} vs {_machine(new)}): latency and "
                     "ingest rates are not comparable")
    return {
        "old": old.run_id, "new": new.run_id,
        "rows": rows,
        "regressions": [r for r in rows if r["status"] == "regression"],
        "only_old": sorted(set(old_by) - set(new_by)),
        "only_new": sorted(set(new_by) - set(old_by)),
        "notes": notes,
    }
