"""Where a run writes: checked before anything is written, never overwriting."""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from datetime import date
from pathlib import Path

__all__ = [
    "OutputError",
    "ReportPaths",
    "check_writable",
    "default_cache_dir",
    "report_paths",
    "unique_report_paths",
]


class OutputError(ValueError):
    """An output path that cannot be written, or that would overwrite a result."""


def default_cache_dir() -> Path:
    env = os.environ.get("MEMORY_BENCH_CACHE")
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "memory-bench"


def check_writable(path: Path, *, allow_existing: bool = False) -> None:
    """Raise OutputError unless ``path`` can be created as a new file."""
    if path.exists() and path.is_dir():
        raise OutputError(f"--out {path} is a directory")
    if path.exists() and not allow_existing:
        raise OutputError(f"--out {path} exists; a run never overwrites an earlier result")
    parent = path.parent
    while not parent.exists():
        if parent.parent == parent:
            break
        parent = parent.parent
    if not parent.is_dir():
        raise OutputError(f"--out {path}: {parent} is not a directory")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise OutputError(f"--out {path}: {parent} is not writable")
    # os.access says yes to root and knows nothing of read-only mounts or /proc:
    # create (and remove at once) a file where the result's directory would go.
    try:
        fd, probe = tempfile.mkstemp(prefix=".memory-bench-probe-", dir=parent)
    except OSError as exc:
        raise OutputError(f"--out {path}: cannot create a file in {parent}: "
                          f"{exc.strerror or exc}") from None
    os.close(fd)
    os.unlink(probe)


@dataclass(frozen=True)
class ReportPaths:
    """Every file ``--save`` writes for one run, side by side under ``reports/``."""

    json: Path
    md: Path
    html: Path
    csv: Path
    plots: dict[str, Path]

    def all(self) -> list[Path]:
        return [self.json, self.md, self.html, self.csv, *self.plots.values()]


PLOT_NAMES = ("bars", "quality-latency")


def report_paths(reports: Path, stem: str) -> ReportPaths:
    return ReportPaths(
        json=reports / f"{stem}.json.gz",  # per-probe records: compressed to ~1/8
        md=reports / f"{stem}.md",
        html=reports / f"{stem}.html",
        csv=reports / f"{stem}.csv",
        plots={name: reports / f"{stem}-{name}.png" for name in PLOT_NAMES},
    )


def unique_report_paths(reports: Path, scenario: str, run_id: str) -> ReportPaths:
    """``reports/<date>-<scenario>-<run id>.{json.gz,md,html,csv}`` and ``-<plot>.png``,
    suffixed ``-2``, ``-3``… if any of them is ever taken."""
    stem = f"{date.today().isoformat()}-{scenario}-{run_id}"
    n = 1
    while True:
        paths = report_paths(reports, stem if n == 1 else f"{stem}-{n}")
        if not any(p.exists() for p in paths.all()):
            return paths
        n += 1
