"""The report's plots as PNG bytes: per-metric bars with 95% intervals, and quality
against latency. matplotlib is imported inside, with the Agg backend, so that the
CLI never pays for it unless a plot is drawn."""

from __future__ import annotations

import io
from typing import Any

from memory_bench.metrics import BY_NAME
from memory_bench.paths import PLOT_NAMES
from memory_bench.render.format import REPORT_METRICS

__all__ = ["PLOTS", "render_plots"]

PLOTS = PLOT_NAMES  # the file names --save gives them come from paths.py
DPI = 110
MARKERS = "osD^vPX*"


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def _colors(plt: Any, n: int) -> list[Any]:
    cmap = plt.get_cmap("tab10" if n <= 10 else "tab20")
    return [cmap(i % cmap.N) for i in range(n)]


def _err(s: dict[str, Any]) -> tuple[float, float]:
    """Lower and upper error-bar lengths from a summary (0 without an interval)."""
    if s.get("ci_low") is None or s.get("n", 0) < 2:
        return 0.0, 0.0
    return max(0.0, s["mean"] - s["ci_low"]), max(0.0, s["ci_high"] - s["mean"])


def _short(x: float) -> str:
    return f"{x:.2f}" if abs(x) >= 0.01 or x == 0 else f"{x:.1g}"


def _png(plt: Any, fig: Any) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI,
                metadata={"Software": None})  # no version string: same input, same bytes
    plt.close(fig)
    return buf.getvalue()


def _bars(plt: Any, result: dict[str, Any]) -> bytes:
    backends = result["backends"]
    colors = _colors(plt, len(backends))
    cols = 5
    rows = -(-len(REPORT_METRICS) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(3.1 * cols, 2.9 * rows + 0.8), squeeze=False)
    for ax, name in zip(axes.flat, REPORT_METRICS, strict=False):
        metric = BY_NAME[name]
        tops = []
        for i, b in enumerate(backends):
            s = b.get("summary", {}).get(name) or {}
            if s.get("mean") is None:
                continue
            lo, hi = _err(s)
            ax.bar(i, s["mean"], color=colors[i], width=0.75,
                   yerr=[[lo], [hi]], capsize=4, ecolor="0.15", error_kw={"lw": 1.2})
            tops.append(s["mean"] + hi)
        if metric.share:
            ax.set_ylim(0, 1.12)
        elif tops and max(tops) > 0:
            ax.set_ylim(0, max(tops) * 1.15)
        ymax = ax.get_ylim()[1]
        for i, b in enumerate(backends):
            s = b.get("summary", {}).get(name) or {}
            if s.get("mean") is None:
                ax.text(i, ymax * 0.03, "not supported", rotation=90, ha="center",
                        va="bottom", fontsize=7, color="0.45")
            else:
                ax.text(i, s["mean"] + _err(s)[1] + ymax * 0.01, _short(s["mean"]),
                        ha="center", va="bottom", fontsize=6.5, color="0.2")
        arrow = "↑" if metric.higher_is_better else "↓"
        ax.set_title(f"{metric.label} ({arrow} better)", fontsize=10)
        ax.set_xticks([])
        ax.set_xlim(-0.6, len(backends) - 0.4)
        ax.grid(axis="y", alpha=0.3)
        ax.tick_params(labelsize=8)
    for ax in list(axes.flat)[len(REPORT_METRICS):]:
        ax.axis("off")
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in colors]
    fig.legend(handles, [b["label"] for b in backends], loc="lower center",
               ncol=min(len(backends), 6), frameon=False, fontsize=9)
    n = len(result.get("seeds", []))
    fig.suptitle(f"Mean over {n} seed(s) with 95% t-interval", fontsize=11)
    # Fixed margins instead of tight_layout: one draw instead of three (~1 s saved).
    fig.subplots_adjust(left=0.04, right=0.99, top=0.86, bottom=0.12, wspace=0.28, hspace=0.3)
    return _png(plt, fig)


def _quality_latency(plt: Any, result: dict[str, Any]) -> bytes:
    from matplotlib import ticker

    backends = result["backends"]
    colors = _colors(plt, len(backends))
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.4))
    lats = [((b.get("summary", {}).get("latency_p50_ms") or {}).get("mean")) for b in backends]
    positive = [x for x in lats if x]
    log = bool(positive) and max(positive) / min(positive) > 20
    for ax, name in zip(axes, ("recall1_before", "retention"), strict=True):
        for i, b in enumerate(backends):
            s = b.get("summary", {})
            q, lat = s.get(name) or {}, s.get("latency_p50_ms") or {}
            if q.get("mean") is None or lat.get("mean") is None:
                continue
            ylo, yhi = _err(q)
            xlo, xhi = _err(lat)
            ax.errorbar(lat["mean"], q["mean"], yerr=[[ylo], [yhi]], xerr=[[xlo], [xhi]],
                        fmt=MARKERS[i % len(MARKERS)], ms=8, color=colors[i],
                        ecolor=colors[i], capsize=3, label=b["label"], alpha=0.9)
        if log:
            ax.set_xscale("log")
            ax.xaxis.set_major_formatter(ticker.FuncFormatter(lambda x, _: f"{x:g}"))
            ax.xaxis.set_minor_formatter(ticker.NullFormatter())
        else:
            ax.set_xlim(left=0)
        ax.set_xlabel("p50 query latency, ms" + (" (log scale)" if log else ""))
        ax.set_ylabel(BY_NAME[name].label)
        tops = [((b.get("summary", {}).get(name) or {}).get("ci_high") or 0) for b in backends]
        ax.set_ylim(bottom=-0.03, top=max([1.08, *(t * 1.05 for t in tops)]))
        ax.grid(alpha=0.3)
        ax.set_title(f"{BY_NAME[name].label} against latency (up and left is better)",
                     fontsize=10)
    handles, labels = axes[0].get_legend_handles_labels()
    ncol = max(1, min(len(labels), 4))
    rows = -(-len(labels) // ncol)
    if handles:
        fig.legend(handles, labels, loc="lower center", ncol=ncol, frameon=False, fontsize=9)
    # Room under the axes' labels for every legend row, so they never overlap.
    fig.subplots_adjust(left=0.07, right=0.98, top=0.92, bottom=0.17 + 0.055 * rows,
                        wspace=0.22)
    return _png(plt, fig)


def render_plots(result: dict[str, Any]) -> dict[str, bytes]:
    """Every plot, by name (``PLOTS``), as PNG bytes."""
    plt = _pyplot()
    return {"bars": _bars(plt, result), "quality-latency": _quality_latency(plt, result)}
