"""Where a run writes: checked before anything is written, never overwriting.

Every user-given string that reaches a file name (a scenario's name, a run id
read from a result file) is reduced to a slug first, so no name leaves
``reports/``; ``--save`` names (a run's report set, a sweep's) are reserved by
creating each file exclusively, under a claim (``reports/.<stem>.claim``, locked
while its run lives, listing the set's names) so a set left empty by a killed
run is taken back by the next ``--save``, whatever it publishes.
"""

from __future__ import annotations

import dataclasses
import fcntl
import glob
import itertools
import os
import re
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Protocol, TypeVar

from memory_bench.errors import BadInput

__all__ = [
    "FileSet",
    "OutputError",
    "ReportPaths",
    "check_writable",
    "default_cache_dir",
    "release_report_paths",
    "report_paths",
    "reserve_report_paths",
    "reserve_set",
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
    claim: Path | None = field(default=None, compare=False)  # held while being written

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


def _stem(scenario: str, run_id: str) -> str:
    return f"{date.today().isoformat()}-{slug(scenario, 'scenario')}-{slug(run_id, 'run')}"


def _suffixed(stem: str) -> Iterator[str]:
    """``stem``, then ``stem-2``, ``stem-3``…: the names a set tries in turn."""
    yield stem
    yield from (f"{stem}-{n}" for n in itertools.count(2))


def unique_report_paths(reports: Path, scenario: str, run_id: str) -> ReportPaths:
    """``reports/<date>-<scenario>-<run id>.{json.gz,md,html,csv}`` and ``-<plot>.png``,
    suffixed ``-2``, ``-3``… if any of them is taken now (a look, not a claim: see
    :func:`reserve_report_paths`)."""
    for name in _suffixed(_stem(scenario, run_id)):
        paths = report_paths(reports, name)
        if not any(p.exists() for p in paths.all()):
            return paths
    raise AssertionError("unreachable")


class FileSet(Protocol):
    """A set of files published together (``--save``): a run's report set, a sweep's; a
    frozen dataclass with a ``claim`` field (:func:`reserve_set` sets it)."""

    @property
    def claim(self) -> Path | None: ...

    def all(self) -> list[Path]: ...


S = TypeVar("S", bound=FileSet)

# Claim files this process holds: path -> the open, locked descriptor.
_HELD: dict[Path, int] = {}


def _claim_path(reports: Path, stem: str) -> Path:
    return reports / f".{stem}.claim"


def _take_back(claim: Path, files: list[Path]) -> bool:
    """A claim whose lock no process holds is a killed run's: remove the empty files
    (and temporary files) of its set and the claim. False when the claim is live.
    A non-empty file is never touched (the name then stays taken)."""
    try:
        fd = os.open(claim, os.O_RDWR)
    except FileNotFoundError:
        return True
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False  # its run is alive
        try:
            if os.stat(claim).st_ino != os.fstat(fd).st_ino:
                return True  # taken back and claimed again meanwhile: look again
        except FileNotFoundError:
            return True
        for p in files:
            for tmp in p.parent.glob(f".{glob.escape(p.name)}.*.tmp"):
                tmp.unlink(missing_ok=True)
            try:
                if p.stat().st_size == 0:
                    p.unlink()
            except FileNotFoundError:
                pass
        claim.unlink(missing_ok=True)
        return True
    finally:
        os.close(fd)


def _claimed_names(claim: Path) -> list[Path]:
    """The files a claim reserved, as it lists them after its pid line (plain names in
    its own directory only: a claim is never a way to remove a file elsewhere)."""
    if not claim.is_file():  # never read a FIFO: the next --save would wait for good
        return []
    try:
        lines = claim.read_text(encoding="utf-8", errors="replace").splitlines()[1:]
    except OSError:
        return []
    return [claim.parent / n for n in lines
            if n and not n.startswith(".") and not _UNSAFE.search(n)]


def _take_back_dead(reports: Path) -> None:
    """Take back every set a killed ``--save`` left in ``reports`` (its claim unlocked),
    whatever its name: a killed sweep's set is never reserved under its name again."""
    for claim in reports.glob(".*.claim"):
        names = _claimed_names(claim)
        if names:
            _take_back(claim, names)


def _claim(paths: FileSet, claim: Path) -> Path | None:
    """Create the set's claim, already locked (made under a temporary name, then
    linked into place), listing the set's names; take back a dead one first. None: a
    live run holds it."""
    fd, tmp = tempfile.mkstemp(prefix=f"{claim.name}.", suffix=".new", dir=claim.parent)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        names = "".join(f"{p.name}\n" for p in paths.all())
        os.write(fd, f"{os.getpid()}\n{names}".encode())
        for _ in range(5):
            try:
                os.link(tmp, claim)
            except FileExistsError:
                if not _take_back(claim, paths.all()):
                    break
                continue
            _HELD[claim] = fd
            return claim
        os.close(fd)
        return None
    except BaseException:
        os.close(fd)
        raise
    finally:
        os.unlink(tmp)


def release_report_paths(paths: FileSet) -> None:
    """Drop the claim of a set written (or removed): its names are plain files now."""
    if paths.claim is None:
        return
    fd = _HELD.pop(paths.claim, None)
    paths.claim.unlink(missing_ok=True)
    if fd is not None:
        os.close(fd)


def reserve_set(reports: Path, stem: str, build: Callable[[Path, str], S]) -> S:
    """The set ``build(reports, stem)`` (suffixed ``-2``, ``-3``… when taken), claimed:
    every file is created empty with ``O_EXCL`` under a locked claim, so two runs
    saving at once never get one name, and the empty files of a killed ``--save`` are
    taken back, not skipped. The claimer writes them (replacing its own empty files,
    :func:`~memory_bench.results.io.write_reserved`) or removes them, then calls
    :func:`release_report_paths`. ``stem`` must be made of slugs (:func:`slug`)."""
    reports.mkdir(parents=True, exist_ok=True)
    _take_back_dead(reports)
    for name in _suffixed(stem):
        paths = build(reports, name)
        assert all(p.parent == reports for p in paths.all()), paths  # a slug never leaves
        claim = _claim(paths, _claim_path(reports, name))
        if claim is None:
            continue
        claimed = dataclasses.replace(paths, claim=claim)  # a FileSet is a dataclass
        made: list[Path] = []
        try:
            for p in paths.all():
                os.close(os.open(p, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
                made.append(p)
            return claimed
        except BaseException as exc:  # FileExistsError: an earlier set has the name
            for p in made:
                p.unlink(missing_ok=True)
            release_report_paths(claimed)
            if not isinstance(exc, FileExistsError):
                raise
    raise AssertionError("unreachable")


def reserve_report_paths(reports: Path, scenario: str, run_id: str) -> ReportPaths:
    """As :func:`unique_report_paths`, but claimed (:func:`reserve_set`)."""
    return reserve_set(reports, _stem(scenario, run_id), report_paths)
