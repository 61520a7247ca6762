"""Where a run writes: checked before anything is written, never overwriting."""

from __future__ import annotations

import os
import tempfile
from datetime import date
from pathlib import Path

__all__ = ["OutputError", "check_writable", "default_cache_dir", "unique_report_paths"]


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


def unique_report_paths(reports: Path, scenario: str, run_id: str) -> tuple[Path, Path]:
    """``reports/<date>-<scenario>-<run id>.{json,md}``, suffixed if ever taken."""
    stem = f"{date.today().isoformat()}-{scenario}-{run_id}"
    n = 1
    while True:
        name = stem if n == 1 else f"{stem}-{n}"
        js, md = reports / f"{name}.json", reports / f"{name}.md"
        if not js.exists() and not md.exists():
            return js, md
        n += 1
