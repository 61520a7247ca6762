"""Per-seed metrics as CSV: one row per (backend, seed), every metric a column.

The file a reader loads into a spreadsheet or pandas to redo the statistics;
an empty cell is a metric the backend could not report (or a failed run).
"""

from __future__ import annotations

import csv
import io
from typing import Any

from memory_bench.metrics import METRICS

__all__ = ["COLUMNS", "render_csv"]

COLUMNS = ("run_id", "backend", "name", "seed", "data_hash", "status", "error",
           *(m.name for m in METRICS))


def render_csv(result: dict[str, Any]) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(COLUMNS)
    for b in result["backends"]:
        for r in b.get("runs", []):
            metrics = r.get("metrics") or {}
            writer.writerow([
                result.get("run_id"), b["label"], b.get("name", b["label"]), r.get("seed"),
                r.get("data_hash", ""), r.get("status"), r.get("error") or "",
                *("" if metrics.get(m.name) is None else repr(float(metrics[m.name]))
                  for m in METRICS),
            ])
    return buf.getvalue()
