"""Number formatting shared by the renderers: one place decides how a cell reads."""

from __future__ import annotations

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


def num(value: float, metric: Metric) -> str:
    if metric.name.startswith("latency"):
        return f"{value:.2f}" if abs(value) >= 1 or value == 0 else f"{value:.2g}"
    if metric.name == "ingest_items_per_s":
        return f"{value:,.0f}"
    return f"{value:.3f}"


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
        if abs((mean - low) - (high - mean)) <= 1e-9 * max(1.0, abs(mean)):
            text += f" ± {num((high - low) / 2, metric)}"
        else:
            text += f" [{num(low, metric)}, {num(high, metric)}]"
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
