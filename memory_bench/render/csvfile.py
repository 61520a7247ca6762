"""Per-seed metrics as CSV: one row per (backend, seed), every metric a column.

The file a reader loads into a spreadsheet or pandas to redo the statistics;
an empty cell is a metric the backend could not report (or a failed run).
Columns are the result's declared metrics, then their per-category keys.
"""

from __future__ import annotations

import csv
import io

from memory_bench.results.model import Result

__all__ = ["FIXED_COLUMNS", "render_csv"]

# structured: the item structure the row read ("tags"), empty for a text-only row.
FIXED_COLUMNS = ("run_id", "backend", "name", "structured", "seed", "data_hash", "status",
                 "error")


def render_csv(result: Result) -> str:
    keys = result.metric_keys()
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow([*FIXED_COLUMNS, *keys])
    for b in result.backends:
        structured = ",".join(b.structure_used(result.scenario))
        for r in b.runs:
            writer.writerow([
                result.run_id, b.label, b.name, structured, r.seed, r.data_hash or "", r.status,
                r.error or "",
                *("" if r.metrics.get(k) is None else repr(float(r.metrics[k])) for k in keys),
            ])
    return buf.getvalue()
