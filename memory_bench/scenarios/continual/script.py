"""The continual protocol (PROTOCOL.md's phases) as one stream of steps: which layout.

The published scenarios use the blind stream (``blind.py``): no role readable from the
order, count or grouping of calls. The phased stream (``phased.py``, the 2026-12-02
layout) stays for the scale sweep, which grows its one long interference run, and for
anyone who sets ``stream = "phased"`` to compare.
"""

from __future__ import annotations

from memory_bench.scenarios.continual.blind import blind_script
from memory_bench.scenarios.continual.data import ScenarioData
from memory_bench.scenarios.continual.params import ContinualParams
from memory_bench.scenarios.continual.phased import phased_script
from memory_bench.scenarios.continual.stream import MIN_GAP, PHASES
from memory_bench.scenarios.script import Script

__all__ = ["MIN_GAP", "PHASES", "continual_script"]


def continual_script(p: ContinualParams, data: ScenarioData) -> Script:
    """``data`` as the stream ``p.stream`` names."""
    return phased_script(p, data) if p.stream == "phased" else blind_script(p, data)
