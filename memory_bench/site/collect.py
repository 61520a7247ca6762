"""What is published under reports/: every result file read back with the project's own
reader, the report files beside it, and the sweep summaries.

Nothing outside the reports directory is ever published: every path is resolved, and a
file that leaves it (a symlink to a private key, ``..``) is skipped with one line.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memory_bench.results.io import ResultError, load_json, load_result
from memory_bench.results.model import Result, ScenarioBlock
from memory_bench.results.paths import report_paths

__all__ = ["OUTSIDE", "Published", "PublishedRun", "PublishedSweep", "collect", "inside"]

# A sweep summary (memory_bench/sweep/summary.py) of any version; read as plain JSON, as
# the sweep itself writes it, without importing the sweep runner.
SWEEP_FAMILY = "memory-bench-sweep/"
SWEEP_PLOTS = ("quality", "cost")
MAX_SIZE = 10**9  # as a sweep's --sizes


@dataclass(frozen=True)
class PublishedRun:
    """One published result and the files of its report set that exist."""

    stem: str
    result: Result
    files: dict[str, Path]  # json, md, html, csv, bars, quality-latency
    sweep: str | None = None  # the stem of the sweep this size belongs to

    @property
    def scenario(self) -> ScenarioBlock:
        return self.result.scenario


@dataclass(frozen=True)
class PublishedSweep:
    stem: str
    summary: dict[str, Any]
    files: dict[str, Path]  # json, md, quality, cost


@dataclass
class Published:
    runs: list[PublishedRun] = field(default_factory=list)
    sweeps: list[PublishedSweep] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (file name, why)

    def scenarios(self) -> dict[str, list[PublishedRun]]:
        """Runs by scenario name, scenarios in name order, runs newest first."""
        out: dict[str, list[PublishedRun]] = {}
        for run in sorted(self.runs, key=lambda r: r.stem, reverse=True):
            out.setdefault(run.scenario.name, []).append(run)
        return dict(sorted(out.items()))


def _stem(path: Path) -> str:
    name = path.name
    return name[: -len(".json.gz")] if name.endswith(".json.gz") else name[: -len(".json")]


def _sweep_problem(doc: dict[str, Any]) -> str | None:
    """Why a sweep summary cannot be shown (the pages read its scenario and sizes), or
    None. Read as plain JSON, it may be hand-edited or foreign: checked, not trusted."""
    if not isinstance(doc.get("scenario"), str):
        return "a sweep summary whose `scenario` is not a name"
    sizes = doc.get("sizes", [])
    if not isinstance(sizes, list) or not all(
            type(s) is int and 0 < s <= MAX_SIZE for s in sizes):
        return f"a sweep summary whose `sizes` are not whole numbers from 1 to {MAX_SIZE:,}"
    return None


OUTSIDE = "a link to a file outside the reports directory: never published"


def inside(path: Path, root: Path) -> Path | None:
    """``path`` resolved, if it is a regular file within ``root`` (resolved); else None."""
    try:
        real = path.resolve(strict=True)
    except (OSError, RuntimeError):  # dangling, a loop
        return None
    return real if real.is_relative_to(root) and real.is_file() else None


def _existing(paths: dict[str, Path], root: Path,
              skipped: list[tuple[str, str]]) -> dict[str, Path]:
    """The files of ``paths`` that exist and resolve inside ``root``; one that leaves
    it is listed in ``skipped``."""
    out = {}
    for kind, p in paths.items():
        if not p.is_file():
            continue
        if inside(p, root) is None:
            skipped.append((p.name, OUTSIDE))
        else:
            out[kind] = p
    return out


def _size_problem(result: Result) -> str | None:
    """The pages print a run's store size with thousands separators: a hand-edited
    ``params.size`` that is not a whole number would stop the whole site."""
    size = result.scenario.params.get("size")
    if size is None or (type(size) is int and 0 <= size <= MAX_SIZE):
        return None
    return f"`params.size` is not a whole number from 0 to {MAX_SIZE:,}"


def collect(reports: Path, on_file: Callable[[int, int, str], None] | None = None
            ) -> Published:
    """Read every ``*.json.gz`` and ``*.json`` directly under ``reports``.

    A file that is not a result or a sweep summary is listed as skipped with the
    reader's one-line reason, never silently dropped. ``on_file(i, n, name)`` is
    called before each file is read (the build's progress lines).
    """
    out = Published()
    root = reports.resolve()
    files = sorted(p for p in reports.iterdir()
                   if p.is_file() and p.name.endswith((".json.gz", ".json")))
    for i, link in enumerate(files, 1):
        if on_file is not None:
            on_file(i, len(files), link.name)
        stem = _stem(link)
        path = inside(link, root)
        if path is None:
            out.skipped.append((link.name, OUTSIDE))
            continue
        try:
            if path.name.endswith(".json"):
                doc = load_json(path)
                if isinstance(doc, dict) and str(doc.get("schema", "")).startswith(SWEEP_FAMILY):
                    problem = _sweep_problem(doc)
                    if problem:
                        out.skipped.append((link.name, problem))
                        continue
                    siblings = {"json": link, "md": reports / f"{stem}.md",
                                **{k: reports / f"{stem}-{k}.png" for k in SWEEP_PLOTS}}
                    out.sweeps.append(PublishedSweep(stem, doc,
                                                     _existing(siblings, root, out.skipped)))
                    continue
            result = load_result(path, merge_pairs=False)
        except ResultError as exc:
            why = str(exc).replace(str(path), link.name).replace(str(reports), reports.name)
            out.skipped.append((link.name, why))
            continue
        problem = _size_problem(result)
        if problem:
            out.skipped.append((link.name, problem))
            continue
        paths = report_paths(reports, stem)
        siblings = {"json": link, "md": paths.md, "html": paths.html, "csv": paths.csv,
                    **paths.plots}
        out.runs.append(PublishedRun(stem, result, _existing(siblings, root, out.skipped)))
    sweeps = {s.stem for s in out.sweeps}
    out.runs = [PublishedRun(r.stem, r.result, r.files,
                             next((s for s in sweeps if r.stem.startswith(f"{s}-size-")), None))
                for r in out.runs]
    return out
