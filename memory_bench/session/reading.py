"""Reading a result to show or compare it: validated, migrated, and analysed.

Renderers only render: a file written without comparisons (1.x files, or a run
whose analysis failed) is analysed here, once, before any renderer sees it.
"""

from __future__ import annotations

from pathlib import Path

from memory_bench.analysis.compare import ensure_analysis
from memory_bench.results.io import load_result
from memory_bench.results.model import Result

__all__ = ["load_analysed"]


def load_analysed(path: Path) -> Result:
    return ensure_analysis(load_result(path))
