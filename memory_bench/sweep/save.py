"""Writing a sweep: its summary, plots and Markdown beside the per-size results, and
with ``--save`` the published set under ``reports/``: reserved and written by the
one path ``run --save`` uses (never overwriting; a killed publish taken back)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from memory_bench.results.io import write_reserved, write_set_atomic
from memory_bench.results.paths import reserve_set, slug
from memory_bench.sweep.markdown import render_sweep_markdown
from memory_bench.sweep.plots import render_sweep_plots
from memory_bench.sweep.run import SweepRun
from memory_bench.sweep.summary import build_summary

__all__ = ["SweepPaths", "reserve_sweep_paths", "sweep_paths", "write_sweep"]


@dataclass(frozen=True)
class SweepPaths:
    """A sweep's files: summary, Markdown, plots and (published) each size's result."""

    summary: Path
    md: Path
    plots: dict[str, Path]
    sizes: tuple[int, ...] = ()  # the sizes whose results are published beside it
    claim: Path | None = field(default=None, compare=False)  # held while being written

    def result(self, size: int, *, gz: bool) -> Path:
        stem = self.summary.name.removesuffix(".json")
        return self.summary.with_name(f"{stem}-size-{size}.json{'.gz' if gz else ''}")

    def all(self) -> list[Path]:
        return [self.summary, self.md, *self.plots.values(),
                *(self.result(s, gz=True) for s in self.sizes)]


def sweep_paths(directory: Path, stem: str, sizes: tuple[int, ...] = ()) -> SweepPaths:
    return SweepPaths(directory / f"{stem}.json", directory / f"{stem}.md",
                      {n: directory / f"{stem}-{n}.png" for n in ("quality", "cost")}, sizes)


def reserve_sweep_paths(reports: Path, scenario: str, sweep_id: str, sizes: list[int]
                        ) -> SweepPaths:
    """``reports/<date>-sweep-<scenario>-<id>…`` (``-2``, ``-3``… if taken), reserved as
    ``run --save`` reserves its set (:func:`~memory_bench.results.paths.reserve_set`)."""
    stem = f"{date.today().isoformat()}-sweep-{slug(scenario, 'scenario')}-{slug(sweep_id, 'run')}"
    return reserve_set(reports, stem, lambda d, name: sweep_paths(d, name, tuple(sizes)))


def _files(paths: SweepPaths, summary: dict[str, Any], results: dict[str, str],
           plots: dict[str, bytes]) -> dict[Path, bytes]:
    doc = {**summary, "results": results}
    images = {n: p.name for n, p in paths.plots.items() if n in plots}
    return {**{paths.plots[name]: png for name, png in plots.items()},
            paths.summary: (json.dumps(doc, indent=1) + "\n").encode(),
            paths.md: render_sweep_markdown(doc, images).encode()}


def write_sweep(sweep: SweepRun, out_dir: Path, *, command: list[str],
                publish: Callable[[list[int]], SweepPaths] | None = None
                ) -> tuple[SweepPaths, SweepPaths | None]:
    """The summary, plots and Markdown in ``out_dir`` (``sweep.*``); with ``publish``
    (reserving the published names, given the sizes), the same set plus each size's
    result (gzipped) there too, written as ``run --save`` writes its set. Returns both
    sets (the second None without ``publish``)."""
    here = sweep_paths(out_dir, "sweep")
    summary = build_summary(sweep, command=command)
    plots = render_sweep_plots(summary)  # once: the published set shows the same figures
    write_set_atomic(_files(here, summary, {str(s): p.name for s, p in sweep.files.items()},
                            plots))
    if publish is None:
        return here, None
    out = publish(list(sweep.files))

    def render() -> dict[Path, bytes]:
        results = {out.result(size, gz=True): path.read_bytes()  # gzipped once, by its name
                   for size, path in sweep.files.items()}
        names = {str(size): out.result(size, gz=True).name for size in sweep.files}
        return {**results, **_files(out, summary, names, plots)}

    write_reserved(out, render)
    return here, out
