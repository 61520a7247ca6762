"""Writing a sweep: its summary, plots and Markdown beside the per-size results, and
with ``--save`` the published set under ``reports/`` (never overwriting)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from memory_bench.results.io import write_bytes_atomic
from memory_bench.sweep.markdown import render_sweep_markdown
from memory_bench.sweep.plots import render_sweep_plots
from memory_bench.sweep.run import SweepRun
from memory_bench.sweep.summary import build_summary

__all__ = ["SweepPaths", "sweep_paths", "unique_sweep_paths", "write_sweep"]


@dataclass(frozen=True)
class SweepPaths:
    summary: Path
    md: Path
    plots: dict[str, Path]

    def result(self, size: int, *, gz: bool) -> Path:
        stem = self.summary.name.removesuffix(".json")
        return self.summary.with_name(f"{stem}-size-{size}.json{'.gz' if gz else ''}")

    def taken(self, sizes: list[int]) -> bool:
        paths = [self.summary, self.md, *self.plots.values(),
                 *(self.result(s, gz=True) for s in sizes)]
        return any(p.exists() for p in paths)


def sweep_paths(directory: Path, stem: str) -> SweepPaths:
    return SweepPaths(directory / f"{stem}.json", directory / f"{stem}.md",
                      {n: directory / f"{stem}-{n}.png" for n in ("quality", "cost")})


def unique_sweep_paths(reports: Path, scenario: str, sweep_id: str, sizes: list[int]
                       ) -> SweepPaths:
    """``reports/<date>-sweep-<scenario>-<id>…``, suffixed ``-2``, ``-3``… if taken."""
    stem = f"{date.today().isoformat()}-sweep-{scenario}-{sweep_id}"
    n = 1
    while True:
        paths = sweep_paths(reports, stem if n == 1 else f"{stem}-{n}")
        if not paths.taken(sizes):
            return paths
        n += 1


def _write(paths: SweepPaths, summary: dict[str, Any], results: dict[str, str],
           plots: dict[str, bytes]) -> None:
    doc = {**summary, "results": results}
    for name, png in plots.items():
        write_bytes_atomic(paths.plots[name], png)
    write_bytes_atomic(paths.summary, (json.dumps(doc, indent=1) + "\n").encode())
    images = {n: p.name for n, p in paths.plots.items() if n in plots}
    paths.md.write_text(render_sweep_markdown(doc, images), encoding="utf-8")


def write_sweep(sweep: SweepRun, out_dir: Path, *, command: list[str],
                publish: SweepPaths | None = None) -> SweepPaths:
    """The summary, plots and Markdown in ``out_dir`` (``sweep.*``); with ``publish``,
    the same set plus each size's result (gzipped) there too. Returns the first."""
    here = sweep_paths(out_dir, "sweep")
    summary = build_summary(sweep, command=command)
    plots = render_sweep_plots(summary)  # once: the published set shows the same figures
    _write(here, summary, {str(s): p.name for s, p in sweep.files.items()}, plots)
    if publish is not None:
        names = {}
        for size, path in sweep.files.items():
            target = publish.result(size, gz=True)
            write_bytes_atomic(target, path.read_bytes())  # gzipped once, by its .gz name
            names[str(size)] = target.name
        _write(publish, summary, names, plots)
    return here
