"""Number formatting shared by the renderers: one place decides how a cell reads."""

from __future__ import annotations

from typing import Any

from memory_bench.metrics import Metric

__all__ = ["NOT_SUPPORTED", "cell", "run_counts"]

NOT_SUPPORTED = "—"


def _num(value: float, metric: Metric) -> str:
    if metric.name.startswith("latency"):
        return f"{value:.2f}"
    if metric.name == "ingest_items_per_s":
        return f"{value:,.0f}"
    return f"{value:.3f}"


def cell(summary: dict[str, Any] | None, metric: Metric, *, ci: bool = True) -> str:
    """``mean ± half-width`` of the 95% CI, or — when not supported / no data."""
    if not summary or summary.get("mean") is None:
        return NOT_SUPPORTED
    text = _num(summary["mean"], metric)
    if ci and summary.get("n", 0) > 1 and summary.get("ci_low") is not None:
        half = (summary["ci_high"] - summary["ci_low"]) / 2
        text += f" ± {_num(half, metric)}"
    return text


def run_counts(backend: dict[str, Any]) -> str:
    runs = backend.get("runs", [])
    ok = sum(r.get("status") == "ok" for r in runs)
    return f"{ok}/{len(runs)}"
