"""The text of ``memory-bench compare``: old vs new per backend and metric."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memory_bench.metrics.spec import MetricSpec
from memory_bench.render.format import NOT_SUPPORTED, cell, num
from memory_bench.results.model import MetricSummary

__all__ = ["render_comparison"]

MARK = {"regression": "REGRESSION", "improvement": "improved", "same": "same",
        "insufficient data": "n<2", "not supported": NOT_SUPPORTED}


def render_comparison(report: dict[str, Any], specs: Mapping[str, MetricSpec]) -> str:
    head = ["backend", "metric", "old", "new", "new − old [95% CI]", "pairing", "status"]
    rows = [head]
    for r in report["rows"]:
        m = specs[r["metric"]]
        if r["diff"] is None:
            diff = NOT_SUPPORTED
        else:
            diff = (f"{num(r['diff'], m)} [{num(r['ci_low'], m)}, {num(r['ci_high'], m)}]")
        old, new = MetricSummary(**r["old"]), MetricSummary(**r["new"])
        rows.append([r["backend"], m.label, cell(old, m), cell(new, m), diff,
                     r["pairing"] or NOT_SUPPORTED, MARK.get(r["status"], r["status"])])
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    lines = [f"old {report['old']} → new {report['new']}", ""]
    for n, row in enumerate(rows):
        lines.append("  ".join(c.ljust(w) if i in (0, 1, 5, 6) else c.rjust(w)
                               for i, (c, w) in enumerate(zip(row, widths, strict=True)))
                     .rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    lines.append("")
    for label in report["only_old"]:
        lines.append(f"only in old: {label}")
    for label in report["only_new"]:
        lines.append(f"only in new: {label}")
    for note in report["notes"]:
        lines.append(f"note: {note}")
    regs = report["regressions"]
    lines.append(f"{len(regs)} regression(s)" + (": " + ", ".join(
        f"{r['backend']} {specs[r['metric']].label}" for r in regs) if regs else ""))
    lines.append("A regression: the 95% interval of new − old excludes 0 in the metric's "
                 "worse direction (paired by seed when both runs share seeds and data).")
    return "\n".join(lines)
