"""Paired comparisons between backends of one run, and one run against another.

Backends in one run see the same items on the same seed (the ``data_hash`` of
each run says so), so two backends are compared on their per-seed differences,
not on two independent means: the seed-to-seed variation of the data cancels.
The verdict reads from the first backend's side: "ahead", "behind", or "tie"
when the 95% interval of the mean difference contains 0. Fewer than two paired
seeds give "insufficient data", and a metric one side cannot report gives
"not supported": never a winner. Method and its reasons: ``memory_bench.analysis.stats``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from typing import Any

from memory_bench.analysis.stats import (
    BOOTSTRAP_SEED,
    CONFIDENCE,
    N_RESAMPLES,
    bootstrap_ci,
    sign_flip_p,
    summarize,
    t_interval,
    t_quantile,
)
from memory_bench.metrics.spec import MetricSpec
from memory_bench.results.model import BackendEntry, Comparison, MetricSummary, Result

__all__ = [
    "ANALYSIS_VERSION",
    "METHOD",
    "analyse",
    "compare_runs",
    "ensure_analysis",
    "metric_keys",
    "paired_comparison",
    "per_seed",
    "summarize_backends",
]

ANALYSIS_VERSION = 1
METHOD = {
    "confidence": CONFIDENCE,
    "ci": "Student-t interval of the mean over per-seed values, clipped to the metric's "
          "range ([0, 1] for shares, non-negative for ratios, latencies and rates)",
    "why t": "with 5 seeds the percentile bootstrap is about 37% narrower than the t-interval "
             "(divisor n, quantile 1.96 instead of 2.78) and covers well under 95%; BCa "
             "corrects skew, not that, so the wider standard interval is the headline; its "
             "normality assumption is mild here, as each per-seed value is itself a mean "
             "over many probes",
    "bootstrap": f"BCa, scipy.stats.bootstrap, {N_RESAMPLES} resamples, seed {BOOTSTRAP_SEED} "
                 "(kept as boot_low/boot_high; not used for verdicts)",
    "paired": "per-seed differences A - B over seeds where both runs succeeded with a value "
              "and share the data hash",
    "verdict": "the t-interval of the mean difference excludes 0: ahead or behind by the "
               "metric's direction; it contains 0: tie; fewer than 2 paired seeds: "
               "insufficient data",
    "test": "two-sided sign-flip permutation test on the differences (exact up to 16 seeds); "
            "reported, not used for the verdict",
    "multiplicity": "none: each comparison is at 95% on its own",
}


def per_seed(backend: BackendEntry, key: str) -> dict[int, tuple[float, str | None]]:
    """Seed -> (value, data hash) over the successful runs with a non-null value."""
    out = {}
    for run in backend.ok_runs():
        value = run.metrics.get(key)
        if value is not None:
            out[run.seed] = (float(value), run.data_hash)
    return out


def metric_keys(result: Result) -> list[str]:
    """Every declared metric, then every ``name/category`` key the runs hold."""
    return [m.name for m in result.metrics] + result.category_keys()


def _summary(values: list[float], spec: MetricSpec, bootstrap: bool) -> MetricSummary:
    return MetricSummary(**summarize(values, bounds=spec.bounds, bootstrap=bootstrap))


def summarize_backends(result: Result, *, bootstrap: bool = False) -> None:
    """Fill each backend's ``summary`` from the metrics of its successful runs."""
    keys = metric_keys(result)
    for b in result.backends:
        b.summary = {
            k: _summary([v for v, _ in per_seed(b, k).values()], result.metric(k), bootstrap)
            for k in keys
        }


def _verdict(low: float, high: float, mean: float, metric: MetricSpec) -> str:
    if low <= 0 <= high:
        return "tie"
    return "ahead" if (mean > 0) == metric.higher_is_better else "behind"


def paired_comparison(a: BackendEntry, b: BackendEntry, metric: MetricSpec,
                      key: str | None = None) -> Comparison:
    """Backend ``a`` against ``b`` on one metric, from the per-seed differences a - b."""
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
    if len(diffs) < 2:
        out.verdict = "insufficient data"
        return out
    low, high = t_interval(diffs)
    out.ci_low, out.ci_high, out.p_sign_flip = low, high, sign_flip_p(diffs)
    out.boot_low, out.boot_high = bootstrap_ci(diffs)
    out.verdict = _verdict(low, high, out.mean_diff, metric)
    return out


def analyse(result: Result) -> Result:
    """Fill summaries (with bootstrap) and every pairwise comparison into ``result``.

    The result file then holds what the report shows. Per-category keys are
    summarised but not compared: a verdict per category would multiply the
    comparisons a report makes without a correction for them.
    """
    summarize_backends(result, bootstrap=True)
    result.comparisons = [
        paired_comparison(a, b, m)
        for a, b in itertools.combinations(result.backends, 2)
        for m in result.metrics
    ]
    result.analysis = {"version": ANALYSIS_VERSION, **METHOD}
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
