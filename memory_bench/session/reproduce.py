"""``memory-bench reproduce RESULT [--seeds …]``: run a published result again and say,
per backend and metric, whether the new value lies within the published interval.

The run is the published one, read from the file: the scenario as recorded (name,
generator, every parameter), every backend spec, and its seeds (or the ones given,
e.g. ``--seeds 0-1`` for a quick check). For each backend and headline metric:
``exact`` when every re-run seed gives its published value on the same data (a
deterministic backend does); otherwise the new mean against the published 95%
interval for a mean of that many seeds (``within`` / ``OUTSIDE``; see
:func:`_interval`). Timings (latency, ingest) are shown but never fail: they are
the machine's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from statistics import fmean
from typing import TYPE_CHECKING

from memory_bench.errors import BadInput
from memory_bench.metrics.latency import is_timing
from memory_bench.plugins.manager import LoadedPlugins
from memory_bench.results.model import MetricSummary, Result

if TYPE_CHECKING:
    from memory_bench.harness.runner import RunConfig

__all__ = ["Line", "compare_reproduction", "parse_seeds", "reproduction_config"]


def parse_seeds(text: str) -> list[int]:
    """``0-1``, ``0,3,5`` or ``2``: the seeds to run again."""
    out: list[int] = []
    try:
        for part in text.split(","):
            low, dash, high = part.strip().partition("-")
            out += list(range(int(low), int(high) + 1)) if dash else [int(low)]
    except ValueError:
        raise BadInput(f"--seeds {text!r}: expected seeds like 0-1 or 0,3,5") from None
    if not out or min(out) < 0:
        raise BadInput(f"--seeds {text!r}: expected seeds like 0-1 or 0,3,5")
    return sorted(set(out))


def reproduction_config(published: Result, plugins: LoadedPlugins, seeds: list[int] | None,
                        out: Path, *, cache_dir: Path | None) -> RunConfig:
    """The RunConfig of the published run on ``seeds`` (all of its seeds by default)."""
    from memory_bench.harness.runner import RunConfig, new_run_id
    from memory_bench.plugins.selection import select_backends
    from memory_bench.results.manifest import build_manifest
    from memory_bench.results.paths import check_writable
    from memory_bench.scenarios.spec import resolve_scenario

    block = published.scenario
    stored = {"name": block.name, "description": block.description,
              "generator": block.generator, "seeds": block.seeds,
              "seed_base": block.seed_base, **block.params}
    scenario = resolve_scenario(plugins.scenarios, stored, "scenario in the published result")
    selections = select_backends(plugins.registry, [b.spec for b in published.backends])
    check_writable(out)
    return RunConfig(plugins=plugins, selections=selections, scenario=scenario,
                     seeds=seeds or list(published.seeds), out=out, run_id=new_run_id(),
                     cache_dir=cache_dir, manifest=build_manifest(selections))


@dataclass(frozen=True)
class Line:
    backend: str
    metric: str
    status: str  # exact | within | OUTSIDE | timing | n/a
    text: str

    def __str__(self) -> str:
        return f"{self.status:<7} {self.backend} {self.metric}: {self.text}"


def _interval(summary: MetricSummary, m: int) -> tuple[float, float]:
    """Where the mean of ``m`` new seeds falls 95% of the time if the published seeds are
    a sample of the same runs: mean ± t(n-1) · sd · sqrt(1/m + 1/n). Not the published
    interval of the mean itself: a 2-seed mean lies outside a 10-seed mean's interval
    far more often than 5% of the time, with every value reproduced."""
    from memory_bench.analysis.stats import t_quantile

    assert summary.mean is not None
    n, sd = summary.n, summary.std
    if n < 2 or sd is None:
        low, high = summary.ci_low, summary.ci_high
        return (summary.mean, summary.mean) if low is None or high is None else (low, high)
    half = t_quantile(n - 1) * sd * math.sqrt(1 / m + 1 / n)
    return summary.mean - half, summary.mean + half


def compare_reproduction(published: Result, new: Result) -> list[Line]:
    """One line per backend and headline metric: ``exact`` when every re-run seed gives
    its published value (same data), else the new mean against the published interval
    for a mean of that many seeds (``within`` / ``OUTSIDE``); ``timing`` for timings."""
    out = []
    for b in published.backends:
        nb = new.backend(b.label)
        for m in published.section("results"):
            summary = b.summary.get(m.name)
            values = {r.seed: r.metrics.get(m.name) for r in (nb.ok_runs() if nb else [])}
            got = [v for v in values.values() if v is not None]
            if summary is None or summary.mean is None or not got:
                out.append(Line(b.label, m.name, "n/a", "no value to compare"))
                continue
            mean = fmean(got)
            low, high = _interval(summary, len(got))
            same = sum(1 for s, v in values.items()
                       if (pr := b.run_for(s)) is not None and pr.ok and v is not None
                       and (old := pr.metrics.get(m.name)) is not None
                       and math.isclose(v, old, rel_tol=1e-9, abs_tol=1e-12)
                       and pr.data_hash == new.scenario.data_hashes.get(str(s)))
            if is_timing(m.name):
                status = "timing"
            elif same == len(got):
                status = "exact"
            else:
                status = "within" if low - 1e-12 <= mean <= high + 1e-12 else "OUTSIDE"
            out.append(Line(b.label, m.name, status,
                            f"{mean:.4g} over seed(s) {', '.join(map(str, sorted(values)))}; "
                            f"published {summary.mean:.4g} over {summary.n}, 95% range of a "
                            f"{len(got)}-seed mean [{low:.4g}, {high:.4g}]; {same} of "
                            f"{len(got)} seed value(s) equal to the published"))
    return out
