"""Running a sweep: one ordinary memory-bench run per size, then the sweep's summary.

Each size is a complete run (its own result file, pair files and analysis,
readable by ``memory-bench report`` and ``compare``), written as it finishes,
so a sweep interrupted at 10⁶ keeps every smaller size. Before each run the
sweep times generating one seed's script, which the runner then reuses (the
harness caches scripts per process): that is the noise generation rate the
report states.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memory_bench.harness.pair import generate_script
from memory_bench.harness.progress import Progress
from memory_bench.plugins.manager import LoadedPlugins
from memory_bench.results.model import Result
from memory_bench.sweep.plan import SweepPlan

__all__ = ["SweepRun", "run_sweep"]


@dataclass
class SweepRun:
    """Every size's result, and what the sweep measured around them."""

    plan: SweepPlan
    results: dict[int, Result] = field(default_factory=dict)
    files: dict[int, Path] = field(default_factory=dict)
    generation: dict[int, dict[str, Any]] = field(default_factory=dict)
    load: dict[int, list[float]] = field(default_factory=dict)  # load average before each size
    walls: dict[int, float] = field(default_factory=dict)


def _generation(plugins: LoadedPlugins, ref: dict[str, Any], seed: int) -> dict[str, Any]:
    t0 = time.perf_counter()
    script = generate_script(plugins, ref, seed)
    seconds = time.perf_counter() - t0
    scale = script.stats.get("scale", {})
    noise = int(scale.get("noise", 0))
    return {"seed": seed, "seconds": round(seconds, 3), "noise": noise,
            "items": len(script.items()),
            "noise_per_s": round(noise / seconds) if seconds > 0 else None}


def run_sweep(sweep: SweepRun, plugins: LoadedPlugins, out_dir: Path, *,
              manifest: dict[str, Any], cache_dir: Path | None, executor: str,
              timeout: float | None, progress: Progress | None = None,
              say: Any = None) -> SweepRun:
    """Run every size of ``sweep.plan`` in order, smallest first, filling ``sweep`` as
    each finishes (so a caller interrupted at a large size still has the small ones)."""
    from memory_bench.harness.runner import RunConfig, new_run_id
    from memory_bench.session.pipeline import execute

    for sp in sweep.plan.sizes:
        if not sp.selections:
            continue
        sweep.load[sp.size] = [round(x, 2) for x in os.getloadavg()]
        sweep.generation[sp.size] = _generation(plugins, sp.scenario.ref(), sp.seeds[0])
        if say:
            g = sweep.generation[sp.size]
            say(f"size {sp.size:,}: {len(sp.selections)} backend(s) x {len(sp.seeds)} seed(s); "
                f"script generated in {g['seconds']:.1f} s ({g['noise_per_s'] or 0:,} noise "
                f"items/s)")
        run_id = new_run_id()
        out = out_dir / f"size-{sp.size}.json"
        cfg = RunConfig(plugins=plugins, selections=sp.selections, scenario=sp.scenario,
                        seeds=sp.seeds, out=out, run_id=run_id, cache_dir=cache_dir,
                        manifest=manifest, executor=executor, timeout=timeout,
                        # a sweep's ingest and latency figures are the whole backend's,
                        # encoder included, at each size: each backend encodes its own
                        encode="per-backend")
        t0 = time.perf_counter()
        result = execute(cfg, progress)  # locked, run, analysed and written once
        sweep.walls[sp.size] = time.perf_counter() - t0
        sweep.results[sp.size], sweep.files[sp.size] = result, out
    return sweep
