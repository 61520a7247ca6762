"""Reading a result to show or compare it: validated, migrated, and analysed.

Renderers only render: a file written without comparisons (1.x files, or a run
whose analysis failed) is analysed here, once, before any renderer sees it.
"""

from __future__ import annotations

from pathlib import Path

from memory_bench.analysis.compare import ensure_analysis, summarize_metric
from memory_bench.results.derived import E2E_INGEST, add_e2e_ingest
from memory_bench.results.io import load_result
from memory_bench.results.model import Result

__all__ = ["load_analysed"]


def load_analysed(path: Path) -> Result:
    result = ensure_analysis(load_result(path))
    if add_e2e_ingest(result):  # a file from before the end-to-end ingest rate
        summarize_metric(result, E2E_INGEST, bootstrap=True)
    return result
