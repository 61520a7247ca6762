"""The sweep's summary: per backend and size, each metric's mean and interval, and costs.

Plain JSON (``schema: memory-bench-sweep/1.0``), the per-size result files
named beside it: everything the plots and the Markdown show, and nothing that
cannot be recomputed from those files.
"""

from __future__ import annotations

import statistics
from typing import Any

from memory_bench.results.model import Result
from memory_bench.results.redact import redact
from memory_bench.sweep.run import SweepRun

__all__ = ["SCHEMA", "build_summary"]

SCHEMA = "memory-bench-sweep/1.0"


def _cell(result: Result, label: str) -> dict[str, Any] | None:
    entry = next((b for b in result.backends if b.label == label), None)
    if entry is None:
        return None
    runs = entry.runs
    ok = [r for r in runs if r.ok]
    metrics = {name: {"mean": s.mean, "ci_low": s.ci_low, "ci_high": s.ci_high, "n": s.n}
               for name, s in entry.summary.items() if "/" not in name}
    return {
        "runs": len(runs), "ok": len(ok),
        "errors": sorted({redact(r.error) or "" for r in runs if not r.ok and r.error}),
        "pair_seconds": statistics.fmean(r.seconds for r in ok) if ok else None,
        "metrics": metrics,
    }


def build_summary(sweep: SweepRun, *, command: list[str]) -> dict[str, Any]:
    """Everything but ``results`` (the per-size file names), which the writer adds."""
    plan = sweep.plan
    rows = []
    for size, result in sorted(sweep.results.items()):
        for label in plan.labels:
            cell = _cell(result, label)
            if cell is not None:
                rows.append({"label": label, "size": size, **cell})
    first = next(iter(sweep.results.values()), None)
    return {
        "schema": SCHEMA,
        "scenario": plan.scenario,
        "generator": first.scenario.generator if first else None,
        "params": ({k: v for k, v in first.scenario.params.items() if k != "size"}
                   if first else {}),
        "sizes": sorted(sweep.results),
        "backends": plan.labels,
        "limits": plan.limits,
        "seeds": {str(s): r.seeds for s, r in sorted(sweep.results.items())},
        "generation": {str(s): g for s, g in sorted(sweep.generation.items())},
        "load_before": {str(s): v for s, v in sorted(sweep.load.items())},
        "wall_s": {str(s): round(v, 1) for s, v in sorted(sweep.walls.items())},
        "execution": first.execution if first else {},
        "metrics": [m.to_dict() for m in first.metrics] if first else [],
        "caveats": {str(s): r.scenario.caveats for s, r in sorted(sweep.results.items())},
        "manifest": _redacted(first.manifest) if first else {},
        "command": [redact(a) or "" for a in command],  # no path of this machine
        "rows": rows,
    }


def _redacted(manifest: dict[str, Any]) -> dict[str, Any]:
    """The first size's manifest, its command line without a path of this machine."""
    out = dict(manifest)
    if isinstance(out.get("command"), list):
        out["command"] = [redact(a) or "" for a in out["command"]]
    return out
