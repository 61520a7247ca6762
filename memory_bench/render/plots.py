"""The report's plots as PNG bytes: per-metric bars with 95% intervals, and quality
against latency. matplotlib is imported inside, with the Agg backend, so that the
CLI never pays for it unless a plot is drawn."""

from __future__ import annotations

import io
from typing import Any

from memory_bench.render.format import row_label
from memory_bench.render.sections import measured
from memory_bench.results.model import BackendEntry, MetricSummary, Result
from memory_bench.results.paths import PLOT_NAMES

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


def _err(s: MetricSummary) -> tuple[float, float]:
    """Lower and upper error-bar lengths from a summary (0 without an interval)."""
    if s.mean is None or s.ci_low is None or s.ci_high is None or s.n < 2:
        return 0.0, 0.0
    return max(0.0, s.mean - s.ci_low), max(0.0, s.ci_high - s.mean)


def _summary(b: BackendEntry, name: str) -> MetricSummary:
    return b.summary.get(name) or MetricSummary()


def _short(x: float) -> str:
    return f"{x:.2f}" if abs(x) >= 0.01 or x == 0 else f"{x:.1g}"


def _png(plt: Any, fig: Any) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI,
                metadata={"Software": None})  # no version string: same input, same bytes
    plt.close(fig)
    return buf.getvalue()


def _bars(plt: Any, result: Result) -> bytes:
    backends = result.backends
    metrics = measured(result, result.section("results"))
    colors = _colors(plt, len(backends))
    cols = min(5, max(1, len(metrics)))
    rows = max(1, -(-len(metrics) // cols))
    fig, axes = plt.subplots(rows, cols, figsize=(3.1 * cols, 2.9 * rows + 0.8), squeeze=False)
    for ax, metric in zip(axes.flat, metrics, strict=False):
        name = metric.name
        tops = []
        for i, b in enumerate(backends):
            s = _summary(b, name)
            if s.mean is None:
                continue
            lo, hi = _err(s)
            ax.bar(i, s.mean, color=colors[i], width=0.75,
                   yerr=[[lo], [hi]], capsize=4, ecolor="0.15", error_kw={"lw": 1.2})
            tops.append(s.mean + hi)
        if metric.share:
            ax.set_ylim(0, 1.12)
        elif tops and max(tops) > 0:
            ax.set_ylim(0, max(tops) * 1.15)
        ymax = ax.get_ylim()[1]
        # Value labels readable where the figure is shown (a page's width, ~1,400 px):
        # 8 pt, upright over a few bars, turned upward over many narrow ones.
        upward = len(backends) > 6
        if upward:
            ax.set_ylim(0, ymax * 1.25)
        for i, b in enumerate(backends):
            s = _summary(b, name)
            if s.mean is None:
                ax.text(i, ymax * 0.03, "not supported", rotation=90, ha="center",
                        va="bottom", fontsize=8, color="0.45")
            else:
                ax.text(i, s.mean + _err(s)[1] + ymax * 0.01, _short(s.mean),
                        ha="center", va="bottom", fontsize=8, color="0.2",
                        rotation=90 if upward else 0)
        arrow = "↑" if metric.higher_is_better else "↓"
        ax.set_title(f"{metric.label} ({arrow} better)", fontsize=10)
        ax.set_xticks([])
        ax.set_xlim(-0.6, len(backends) - 0.4)
        ax.grid(axis="y", alpha=0.3)
        ax.tick_params(labelsize=8)
    for ax in list(axes.flat)[len(metrics):]:
        ax.axis("off")
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in colors]
    fig.legend(handles, [row_label(result, b) for b in backends], loc="lower center",
               ncol=max(1, min(len(backends), 6)), frameon=False, fontsize=9)
    n = len(result.seeds)
    fig.suptitle(f"Mean over {n} seed(s) with 95% t-interval", fontsize=11)
    # Fixed margins instead of tight_layout: one draw instead of three (~1 s saved).
    fig.subplots_adjust(left=0.04, right=0.99, top=0.86, bottom=0.12, wspace=0.28, hspace=0.3)
    return _png(plt, fig)


def _quality_latency(plt: Any, result: Result) -> bytes | None:
    from matplotlib import ticker

    backends = result.backends
    quality = [m for m in result.metrics if m.axis == "quality"]
    latency = next((m for m in result.metrics if m.axis == "latency"), None)
    if not quality or latency is None:
        return None
    colors = _colors(plt, len(backends))
    fig, axes = plt.subplots(1, len(quality), figsize=(5.5 * len(quality), 4.4), squeeze=False)
    axes = list(axes.flat)
    lats = [_summary(b, latency.name).mean for b in backends]
    positive = [x for x in lats if x]
    log = bool(positive) and max(positive) / min(positive) > 20
    placed: list[tuple[Any, list[tuple[float, float, int]]]] = []
    for ax, metric in zip(axes, quality, strict=True):
        name = metric.name
        points = []
        for i, b in enumerate(backends):
            q, lat = _summary(b, name), _summary(b, latency.name)
            if q.mean is None or lat.mean is None:
                continue
            ylo, yhi = _err(q)
            xlo, xhi = _err(lat)
            ax.errorbar(lat.mean, q.mean, yerr=[[ylo], [yhi]], xerr=[[xlo], [xhi]],
                        fmt=MARKERS[i % len(MARKERS)], ms=8, color=colors[i],
                        ecolor=colors[i], capsize=3, label=f"{i + 1}  {row_label(result, b)}",
                        alpha=0.9)
            points.append((lat.mean, q.mean, i + 1))
        placed.append((ax, points))
        if log:
            ax.set_xscale("log")
            ax.xaxis.set_major_formatter(ticker.FuncFormatter(lambda x, _: f"{x:g}"))
            ax.xaxis.set_minor_formatter(ticker.NullFormatter())
        else:
            ax.set_xlim(left=0)
        ax.set_xlabel(f"{latency.label}" + (" (log scale)" if log else ""))
        ax.set_ylabel(metric.label)
        tops = [_summary(b, name).ci_high or 0 for b in backends]
        ax.set_ylim(bottom=-0.03, top=max([1.08, *(t * 1.05 for t in tops)]))
        ax.grid(alpha=0.3)
        ax.set_title(f"{metric.label} against latency (up and left is better)",
                     fontsize=10)
    handles, labels = axes[0].get_legend_handles_labels()
    ncol = max(1, min(len(labels), 4))
    rows = -(-len(labels) // ncol)
    if handles:
        fig.legend(handles, labels, loc="lower center", ncol=ncol, frameon=False, fontsize=9)
    # Room under the axes' labels for every legend row, so they never overlap.
    fig.subplots_adjust(left=0.07, right=0.98, top=0.92, bottom=0.17 + 0.055 * rows,
                        wspace=0.22)
    renderer = fig.canvas.get_renderer()
    for ax, points in placed:
        _number_points(ax, points, renderer)
    return _png(plt, fig)


# Where a point's number may go, in points from the point, tried in order.
_OFFSETS = ((7, 6), (7, -13), (-7, 6), (-7, -13), (0, 11), (0, -18), (14, 14), (14, -22),
            (-14, 14), (-14, -22), (24, 0), (-24, 0))


def _number_points(ax: Any, points: list[tuple[float, float, int]], renderer: Any) -> None:
    """Write each point's legend number beside it; points that overlap on the page
    (within a marker's width) share one label, ``2·4·6``, so a crowd stays readable.
    Each label takes the first offset that covers no marker and no earlier label."""
    px = [(*ax.transData.transform((x, y)), n) for x, y, n in points]
    groups: list[list[tuple[float, float, int]]] = []
    for p in px:  # single linkage: a point joins (and merges) every group it touches
        merged = [p]
        for g in [g for g in groups if any(abs(p[0] - q[0]) < 12 and abs(p[1] - q[1]) < 12
                                           for q in g)]:
            merged.extend(g)
            groups.remove(g)
        groups.append(merged)
    scale = ax.figure.dpi / 72
    taken = [(x - 6, y - 6, x + 6, y + 6) for x, y, _ in px]  # the markers themselves
    for g in groups:
        gx = sum(p[0] for p in g) / len(g)
        gy = sum(p[1] for p in g) / len(g)
        text = "·".join(str(n) for n in sorted({p[2] for p in g}))
        label = None
        for dx, dy in _OFFSETS:
            if label is not None:
                label.remove()
            label = ax.annotate(text, ax.transData.inverted().transform((gx, gy)),
                                xytext=(dx, dy), textcoords="offset points", fontsize=8,
                                ha="left" if dx > 0 else "right" if dx < 0 else "center",
                                color="0.15", annotation_clip=False)
            box = label.get_window_extent(renderer)
            if not any(box.x0 < x1 and x0 < box.x1 and box.y0 < y1 and y0 < box.y1
                       for x0, y0, x1, y1 in taken):
                break
        if label is not None:
            box = label.get_window_extent(renderer)
            taken.append((box.x0 - scale, box.y0, box.x1 + scale, box.y1))


def render_plots(result: Result) -> dict[str, bytes]:
    """Every plot the result's declarations call for, by name (``PLOTS``), as PNG bytes."""
    plt = _pyplot()
    out = {"bars": _bars(plt, result)}
    ql = _quality_latency(plt, result)
    if ql is not None:
        out["quality-latency"] = ql
    return out
