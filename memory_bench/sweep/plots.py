"""The sweep's plots as PNG bytes: quality against size, and costs against size.

One line per backend, 95% intervals as error bars where there are two seeds or
more. Sizes are on a log axis; latency, ingest and memory are log-log, and the
latency panels carry a dotted reference line proportional to size (a linear
scan's growth), so a reader sees at a glance which backend grows like one.
"""

from __future__ import annotations

from typing import Any

from memory_bench.render.plots import MARKERS, _colors, _png, _pyplot

__all__ = ["render_sweep_plots"]



def _declared(summary: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(quality, cost) panels from the declarations: the headline shares (terminal
    columns bounded to [0, 1]); latencies and counted costs (items/s, bytes)."""
    have = {name for r in summary["rows"] for name, m in r["metrics"].items()
            if m and m.get("mean") is not None}
    specs = [m for m in summary["metrics"] if m["name"] in have]
    quality = [m for m in specs if m.get("terminal", True) and m.get("bounds") == [0.0, 1.0]]
    # a latency end to end, or the store's part under encode once; never the call where
    # backends encoded their own questions ("call p50 ms": it equals the e2e panel)
    cost = [m for m in specs if (m.get("axis") == "latency" or m.get("thousands")
                                 or m["name"].startswith(("latency_", "e2e_")))
            and not str(m.get("label", "")).startswith("call ")]
    return quality, cost


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


def _panel(ax: Any, summary: dict[str, Any], spec: dict[str, Any], colors: list[Any], *,
           loglog: bool) -> None:
    metric = spec["name"]
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
    better = "" if spec.get("higher_is_better", True) else " (lower is better)"
    ax.set_title(f"{spec.get('label', metric)}{better}", fontsize=10)
    ax.grid(True, which="major", alpha=0.3)
    if loglog:
        ax.set_yscale("log")
        if positive and metric.startswith(("latency", "e2e_")):  # the call, or end to end
            smallest = min(x for x, _ in positive)
            at = sorted(y for x, y in positive if x == smallest)
            y0 = at[len(at) // 2]  # through the median backend at the smallest size
            sizes = sorted({x for x, _ in positive})
            ax.plot(sizes, [y0 * s / smallest for s in sizes], linestyle=":", color="grey",
                    label="∝ size (linear)")
    else:
        ax.set_ylim(-0.03, 1.03)
    ax.set_xlabel("items in the store")


def _figure(summary: dict[str, Any], metrics: list[dict[str, Any]], *, loglog: bool,
            title: str) -> bytes:
    plt = _pyplot()
    colors = _colors(plt, len(summary["backends"]))
    cols = 2 if len(metrics) <= 4 else 3
    rows = max(1, -(-len(metrics) // cols))
    fig, axes = plt.subplots(rows, cols, figsize=(5.5 * cols, 4.1 * rows), squeeze=False)
    legend: dict[str, Any] = {}
    for ax in list(axes.flat)[len(metrics):]:
        ax.set_visible(False)
    for ax, metric in zip(axes.flat, metrics, strict=False):
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
    """``{"quality": png, "cost": png}`` (a figure with no metric to show is left out)."""
    name = summary["scenario"]
    quality, cost = _declared(summary)
    out = {}
    if quality:
        out["quality"] = _figure(summary, quality, loglog=False,
                                 title=f"{name}: quality against store size (mean, 95% interval)")
    if cost:
        out["cost"] = _figure(summary, cost, loglog=True,
                              title=f"{name}: latency, ingest and memory against store "
                                    "size (log-log; dotted: proportional to size)")
    return out
