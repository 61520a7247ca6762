"""Live stores: no run is measured on a store holding another run's items (METHOD.md §4).

A backend with the ``persistent`` capability may be pointed at a store that
outlives a run (an RSHL lattice directory, a Chroma directory or server). The
harness cannot tell from the options where the store is, so it asks the
backend itself: before the first pair it opens each persistent selection once,
on a fresh workdir and the user's options, read-only (``BackendContext.read_only``),
and counts ``bench-`` items; it opens the store for writing only to remove some. A
selection whose pairs each keep their store in their own workdir (the backend's
``own_store`` says so for these options) is not opened: that store is empty by
construction and deleted with its pair; a store the user named is checked for real.

- Items of *this* run (an interrupted pair, when resuming) are the harness's
  own: it removes them.
- Items of another run are stale: the run is refused, unless ``clean_stale``
  is set, in which case they are removed and the count checked to be zero.

After the last pair the store is opened again and this run's items counted:
each pair removed its own, and this checks that the removal lasted.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from memory_bench.contract.backend import BackendContext
from memory_bench.contract.capabilities import Capability
from memory_bench.errors import BadInput
from memory_bench.plugins.selection import BackendSelection

__all__ = ["BENCH_PREFIX", "StaleStoreError", "after_run", "before_run", "run_prefix"]

BENCH_PREFIX = "bench-"

# (work in the child, timeout) -> (status, value or error): the runner's isolation.
Runner = Callable[[Callable[[], dict[str, Any]]], dict[str, Any]]


class StaleStoreError(BadInput):
    """A live store holds ``bench-`` items of another run: bad input, exit status 2."""


def run_prefix(run_id: str) -> str:
    return f"{BENCH_PREFIX}{run_id}-"


def persistent(selections: list[BackendSelection]) -> list[BackendSelection]:
    """The selections whose pairs write to a store that outlives them (a path or server
    they were given): a pair's own workdir store starts empty and is deleted with it,
    so there is nothing there to check (``BackendInfo.shares_store``)."""
    return [s for s in selections
            if Capability.PERSISTENT in s.capabilities and s.info.shares_store(s.options)]


def _open(sel: BackendSelection, run_id: str, cache_dir: Path | None, workdir: Path, *,
          read_only: bool = False) -> Any:
    ctx = BackendContext(workdir=workdir, seed=-1, run_id=run_id, cache_dir=cache_dir,
                         read_only=read_only)
    return sel.info.create(sel.options, ctx)


def _counts(sel: BackendSelection, run_id: str, cache_dir: Path | None, workdir: Path
            ) -> dict[str, Any]:
    """The store's bench- items and this run's, counted on a read-only open."""
    backend = _open(sel, run_id, cache_dir, workdir, read_only=True)
    try:
        found, own = backend.count(BENCH_PREFIX), backend.count(run_prefix(run_id))
    finally:
        backend.close()
    return {"found": found, "own": own, "stale": found - own}


def _inspect(
    sel: BackendSelection, run_id: str, cache_dir: Path | None, clean_stale: bool,
    root: Path | None = None,
) -> dict[str, Any]:
    """Count (and remove what may be removed) in the selection's store. Runs isolated.

    The count is read-only: a store the run is refused for (stale items, no
    ``clean_stale``) or that holds nothing to remove is never opened for writing.
    """
    workdir = Path(tempfile.mkdtemp(prefix=f"memory-bench-check-{sel.info.name}-", dir=root))
    try:
        out = _counts(sel, run_id, cache_dir, workdir)
        out["left"] = out["found"]
        if (out["stale"] and not clean_stale) or not (out["own"] or out["stale"]):
            return out
        backend = _open(sel, run_id, cache_dir, workdir)
        try:
            if out["own"]:
                out["removed_own"] = backend.remove(run_prefix(run_id))
            if out["stale"]:
                out["removed_stale"] = backend.remove(BENCH_PREFIX)
            out["left"] = backend.count(BENCH_PREFIX)
        finally:
            backend.close()
        return out
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def _recount(sel: BackendSelection, run_id: str, cache_dir: Path | None,
             root: Path | None = None) -> dict[str, Any]:
    workdir = Path(tempfile.mkdtemp(prefix=f"memory-bench-check-{sel.info.name}-", dir=root))
    backend = None
    try:
        backend = _open(sel, run_id, cache_dir, workdir, read_only=True)
        left = backend.count(run_prefix(run_id))
        return {"prefix": run_prefix(run_id), "left": left, "ok": left == 0}
    finally:
        try:
            if backend is not None:
                backend.close()
        finally:
            shutil.rmtree(workdir, ignore_errors=True)


def before_run(
    selections: list[BackendSelection],
    *,
    run_id: str,
    cache_dir: Path | None,
    clean_stale: bool,
    isolate: Runner,
    root: Path | None = None,
) -> dict[str, dict[str, Any]]:
    """Check every persistent selection's store; raise StaleStoreError to refuse.

    A store that cannot be opened is recorded, not refused: its pairs will fail
    with the same error and be reported as failed.
    """
    report: dict[str, dict[str, Any]] = {}
    for sel in persistent(selections):
        checked = isolate(lambda s=sel: _inspect(s, run_id, cache_dir, clean_stale, root))
        report[sel.label] = {"before": checked}
        if checked.get("status") != "ok":
            continue
        info = checked["value"]
        if info["stale"] and not clean_stale:
            raise StaleStoreError(
                f"backend {sel.label}: its store holds {info['stale']} bench- item(s) of "
                "another run; rerun with --clean-stale to remove them, or use another store"
            )
        if info["left"]:
            raise StaleStoreError(
                f"backend {sel.label}: {info['left']} bench- item(s) are still in its store "
                "after removing them"
            )
    return report


def after_run(
    selections: list[BackendSelection],
    report: dict[str, dict[str, Any]],
    *,
    run_id: str,
    cache_dir: Path | None,
    isolate: Runner,
    root: Path | None = None,
) -> None:
    """Count this run's items in each persistent store, on a fresh instance: must be 0.
    ``root``: where scratch workdirs are made (the run's WorkRoot)."""
    for sel in persistent(selections):
        checked = isolate(lambda s=sel: _recount(s, run_id, cache_dir, root))
        report.setdefault(sel.label, {})["after"] = checked
