"""Where a run writes: checked before anything is written, never overwriting.

Every user-given string that reaches a file name (a scenario's name, a run id
read from a result file) is reduced to a slug first, so no name leaves
``reports/``; ``--save`` names are reserved by creating each file exclusively.
"""

from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from memory_bench.errors import BadInput

__all__ = [
    "OutputError",
    "ReportPaths",
    "check_writable",
    "default_cache_dir",
    "report_paths",
    "reserve_report_paths",
    "slug",
    "unique_report_paths",
]

_UNSAFE = re.compile(r"[^A-Za-z0-9._=-]+")


def slug(text: str, fallback: str = "x", limit: int = 60) -> str:
    """``text`` as one safe file-name component: letters, digits, ``. _ = -`` only
    (``x/../../escaped`` -> ``x_.._.._escaped``), never starting or ending with a
    dot, an underscore or a dash (so never ``..``), never empty."""
    return _UNSAFE.sub("_", str(text)).strip("._-")[:limit].strip("._-") or fallback


class OutputError(BadInput):
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


def _candidates(reports: Path, scenario: str, run_id: str):
    stem = f"{date.today().isoformat()}-{slug(scenario, 'scenario')}-{slug(run_id, 'run')}"
    n = 1
    while True:
        yield report_paths(reports, stem if n == 1 else f"{stem}-{n}")
        n += 1


def unique_report_paths(reports: Path, scenario: str, run_id: str) -> ReportPaths:
    """``reports/<date>-<scenario>-<run id>.{json.gz,md,html,csv}`` and ``-<plot>.png``,
    suffixed ``-2``, ``-3``… if any of them is taken now (a look, not a claim: see
    :func:`reserve_report_paths`)."""
    for paths in _candidates(reports, scenario, run_id):
        if not any(p.exists() for p in paths.all()):
            return paths
    raise AssertionError("unreachable")


def reserve_report_paths(reports: Path, scenario: str, run_id: str) -> ReportPaths:
    """As :func:`unique_report_paths`, but claimed: every file is created empty with
    ``O_EXCL``, so two runs saving at once never get one name. The claimer writes
    them (replacing its own empty files) or removes them."""
    reports.mkdir(parents=True, exist_ok=True)
    for paths in _candidates(reports, scenario, run_id):
        made: list[Path] = []
        try:
            for p in paths.all():
                assert p.parent == reports, p  # a slug never leaves reports/
                os.close(os.open(p, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
                made.append(p)
            return paths
        except FileExistsError:
            for p in made:
                p.unlink(missing_ok=True)
    raise AssertionError("unreachable")
