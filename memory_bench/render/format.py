"""Number formatting shared by the renderers: one place decides how a cell reads."""

from __future__ import annotations

import math
from typing import Any

from memory_bench.metrics import Metric

__all__ = ["NOT_SUPPORTED", "REPORT_METRICS", "cell", "num", "run_counts", "verdict_cell"]

NOT_SUPPORTED = "—"

# METHOD.md §6's results table, in its order: the report's headline columns.
REPORT_METRICS = (
    "recall1_before",
    "retention",
    "updateWinRate",
    "staleRate",
    "provenanceAccuracy",
    "gateRecall",
    "falseRefusals",
    "reinforcementDelta",
    "latency_p50_ms",
    "latency_p95_ms",
)


def _decimals(value: float, metric: Metric) -> int:
    """Shares to 3 places; latency to 2, or 2 significant digits (at most 4 places)
    below 1 ms."""
    if metric.name == "ingest_items_per_s":
        return 0
    if metric.name.startswith("latency"):
        if value == 0 or abs(value) >= 1:
            return 2
        return min(4, max(2, 1 - math.floor(math.log10(abs(value)))))
    return 3


def num(value: float, metric: Metric, *, like: float | None = None) -> str:
    """``value`` in the metric's format; ``like`` takes the decimals from another
    number (an interval's half-width is written to the precision of its mean)."""
    places = _decimals(value if like is None else like, metric)
    return f"{value:,.{places}f}" if metric.name == "ingest_items_per_s" else f"{value:.{places}f}"


def cell(summary: dict[str, Any] | None, metric: Metric, *, ci: bool = True,
         runs_ok: int | None = None) -> str:
    """``mean ± half-width`` of the 95% CI (``mean [low, high]`` when clipped), or —.

    ``(n=k)`` follows when the metric has fewer values than ``runs_ok`` successful
    runs (a seed where it was undefined, e.g. retention after recall@1 of 0).
    """
    if not summary or summary.get("mean") is None:
        return NOT_SUPPORTED
    mean = summary["mean"]
    n = summary.get("n", 0)
    text = num(mean, metric)
    low, high = summary.get("ci_low"), summary.get("ci_high")
    if ci and n >= 2 and low is not None and high is not None:
        half = (high - low) / 2
        like = min(abs(mean), half) if half > 0 and mean else mean  # show the spread's digits
        text = num(mean, metric, like=like)
        if abs((mean - low) - (high - mean)) <= 1e-9 * max(1.0, abs(mean)):
            text += f" ± {num(half, metric, like=like)}"
        else:
            text += f" [{num(low, metric, like=like)}, {num(high, metric, like=like)}]"
    if runs_ok is not None and n < runs_ok:
        text += f" (n={n})"
    return text


def verdict_cell(comparison: dict[str, Any] | None, metric: Metric) -> str:
    """A paired verdict in a table cell: ``ahead +0.120``, ``tie``, ``n<2`` or —."""
    if not comparison or comparison["verdict"] == "not supported":
        return NOT_SUPPORTED
    if comparison["verdict"] == "insufficient data":
        return f"n={comparison['n']}, no verdict"
    if comparison["verdict"] == "tie":
        return "tie"
    diff = comparison["mean_diff"]
    sign = "+" if diff >= 0 else "−"
    return f"{comparison['verdict']} {sign}{num(abs(diff), metric)}"


def run_counts(backend: dict[str, Any]) -> str:
    runs = backend.get("runs", [])
    ok = sum(r.get("status") == "ok" for r in runs)
    return f"{ok}/{len(runs)}"
