"""The side-by-side comparison table printed at the end of a run."""

from __future__ import annotations

from typing import Any

from memory_bench.metrics import BY_NAME
from memory_bench.render.format import REPORT_METRICS, cell, run_counts

__all__ = ["TABLE_METRICS", "render_table"]

# The report's columns, plus recall@5 and the ingest rate a terminal has room for.
TABLE_METRICS = (REPORT_METRICS[0], "recall5_before", *REPORT_METRICS[1:], "ingest_items_per_s")


def render_table(result: dict[str, Any]) -> str:
    """Plain-text table: a row per backend, mean ± 95% CI half-width per metric."""
    header = ["backend", "runs ok"] + [BY_NAME[m].label for m in TABLE_METRICS]
    rows = [header]
    for b in result["backends"]:
        row = [b["label"], run_counts(b)]
        row += [cell(b.get("summary", {}).get(m), BY_NAME[m]) for m in TABLE_METRICS]
        rows.append(row)
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    lines = []
    for n, r in enumerate(rows):
        lines.append("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in
                               enumerate(zip(r, widths, strict=True))).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    scen = result["scenario"]
    seeds = result.get("seeds", [])
    lines.append("")
    lines.append(
        f"scenario {scen.get('name')} · {len(seeds)} seed(s) · mean ± half-width of the 95% "
        "t-interval · — = not supported by the backend"
    )
    for b in result["backends"]:
        for r in b.get("runs", []):
            if r.get("status") != "ok":
                lines.append(f"{b['label']} seed {r['seed']}: {r['status']}: {r.get('error')}")
    return "\n".join(lines)
