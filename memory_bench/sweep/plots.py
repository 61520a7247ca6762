"""The sweep's plots as PNG bytes: quality against size, and costs against size.

One line per backend, 95% intervals as error bars where there are two seeds or
more. Sizes are on a log axis; latency, ingest and memory are log-log, and the
latency panels carry a dotted reference line proportional to size (a linear
scan's growth), so a reader sees at a glance which backend grows like one.
"""

from __future__ import annotations

from typing import Any

from memory_bench.render.plots import MARKERS, _colors, _png, _pyplot

__all__ = ["COST", "QUALITY", "render_sweep_plots"]

QUALITY = ("recall1_before", "recall1_after", "updateWinRate", "staleRate")
COST = ("latency_p50_ms", "latency_p95_ms", "ingest_items_per_s", "bytes_per_item")
_LABELS = {"recall1_before": "recall@1 (before interference)",
           "recall1_after": "recall@1 after interference",
           "updateWinRate": "updateWinRate", "staleRate": "staleRate (lower is better)",
           "latency_p50_ms": "query p50 (ms)", "latency_p95_ms": "query p95 (ms)",
           "ingest_items_per_s": "ingest (items/s)",
           "bytes_per_item": "resident bytes per item"}


def _series(summary: dict[str, Any], label: str, metric: str
            ) -> tuple[list[int], list[float], list[list[float]]]:
    xs, ys, err = [], [], [[], []]
    for row in summary["rows"]:
        m = row["metrics"].get(metric) if row["label"] == label else None
        if not m or m["mean"] is None:
            continue
        xs.append(row["size"])
        ys.append(m["mean"])
        lo = m["ci_low"] if m["ci_low"] is not None and m["n"] >= 2 else m["mean"]
        hi = m["ci_high"] if m["ci_high"] is not None and m["n"] >= 2 else m["mean"]
        err[0].append(max(0.0, m["mean"] - lo))
        err[1].append(max(0.0, hi - m["mean"]))
    return xs, ys, err


def _panel(ax: Any, summary: dict[str, Any], metric: str, colors: list[Any], *,
           loglog: bool) -> None:
    positive = []
    for i, label in enumerate(summary["backends"]):
        xs, ys, err = _series(summary, label, metric)
        if not xs:
            continue
        if loglog and any(y <= 0 for y in ys):
            keep = [j for j, y in enumerate(ys) if y > 0]
            xs, ys = [xs[j] for j in keep], [ys[j] for j in keep]
            err = [[e[j] for j in keep] for e in err]
        ax.errorbar(xs, ys, yerr=err, marker=MARKERS[i % len(MARKERS)], color=colors[i],
                    label=label, capsize=3, linewidth=1.4, markersize=5)
        positive += [(x, y) for x, y in zip(xs, ys, strict=True) if y > 0]
    ax.set_xscale("log")
    ax.set_title(_LABELS.get(metric, metric), fontsize=10)
    ax.grid(True, which="major", alpha=0.3)
    if loglog:
        ax.set_yscale("log")
        if positive and metric.startswith("latency"):
            smallest = min(x for x, _ in positive)
            at = sorted(y for x, y in positive if x == smallest)
            y0 = at[len(at) // 2]  # through the median backend at the smallest size
            sizes = sorted({x for x, _ in positive})
            ax.plot(sizes, [y0 * s / smallest for s in sizes], linestyle=":", color="grey",
                    label="∝ size (linear)")
    else:
        ax.set_ylim(-0.03, 1.03)
    ax.set_xlabel("items in the store")


def _figure(summary: dict[str, Any], metrics: tuple[str, ...], *, loglog: bool,
            title: str) -> bytes:
    plt = _pyplot()
    colors = _colors(plt, len(summary["backends"]))
    fig, axes = plt.subplots(2, 2, figsize=(11, 8.2))
    legend: dict[str, Any] = {}
    for ax, metric in zip(axes.flat, metrics, strict=True):
        _panel(ax, summary, metric, colors, loglog=loglog)
        for h, lab in zip(*ax.get_legend_handles_labels(), strict=True):
            legend.setdefault(lab, h)
    handles, labels = list(legend.values()), list(legend)
    fig.legend(handles, labels, loc="lower center", ncol=min(5, len(labels)), fontsize=9,
               frameon=False)
    fig.suptitle(title, fontsize=11)
    fig.tight_layout(rect=(0, 0.07, 1, 0.96))
    return _png(plt, fig)


def render_sweep_plots(summary: dict[str, Any]) -> dict[str, bytes]:
    """``{"quality": png, "cost": png}``."""
    name = summary["scenario"]
    return {
        "quality": _figure(summary, QUALITY, loglog=False,
                           title=f"{name}: quality against store size (mean, 95% interval)"),
        "cost": _figure(summary, COST, loglog=True,
                        title=f"{name}: latency, ingest and memory against store "
                              "size (log-log; dotted: proportional to size)"),
    }
