"""Executors: where pairs run. The runner hands one a list of jobs and is told, pair by
pair, how each ended; it never knows where the work happened.

- ``process`` (the default): each pair in a forked child with a timeout
  (``isolation.py``). When a library says this process must not be forked
  (``forksafety.py``), pairs run in-process and ``describe()`` says why.
- ``local``: in this process, no timeout (to measure what isolation costs, or
  to debug); a crash ends the run.
- ``dask``: on a dask cluster, a local one (``workers``) or an existing
  scheduler (``scheduler``); see ``dask_executor.py``. dask is imported only
  when this executor is chosen.

A new executor (a cluster, say) implements :class:`Executor`: it receives plain
data (:class:`~memory_bench.harness.pair.PairSpec`) and must answer every job
with a :class:`~memory_bench.results.model.PairRun`, failed or not.
"""

from __future__ import annotations

import shutil
import tempfile
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from memory_bench.contract.backend import BackendContext
from memory_bench.contract.capabilities import Capability
from memory_bench.harness.execute import cleanup
from memory_bench.harness.forksafety import fork_unsafe_reason
from memory_bench.harness.isolation import fork_available, run_forked
from memory_bench.harness.pair import PairSpec, run_pair
from memory_bench.harness.progress import Progress
from memory_bench.plugins.manager import LoadedPlugins
from memory_bench.plugins.selection import BackendSelection
from memory_bench.results.model import Cleanup, PairRun

__all__ = ["EXECUTORS", "Executor", "ExecutorError", "Job", "LocalExecutor", "ProcessExecutor",
           "call_here", "make_executor"]

RECOVERY_TIMEOUT = 120.0  # seconds to reopen a killed pair's store and remove its items


@dataclass(frozen=True)
class Job:
    """One pair to run: its plain-data spec, and the selection it resolves to here."""

    spec: PairSpec
    selection: BackendSelection
    seed_index: int
    seeds: int


Done = Callable[[Job, PairRun], None]


class ExecutorError(ValueError):
    """The executor asked for cannot be set up (bad input: exit status 2, nothing written)."""


class Executor(Protocol):
    name: str

    def describe(self) -> dict[str, Any]:
        """What the result's ``execution`` block records about this executor."""
        ...

    def preload(self, selections: Sequence[BackendSelection], cache_dir: Path | None
                ) -> dict[str, str]:
        """Run each backend's preload where pairs will run; errors by label."""
        ...

    def call(self, fn: Callable[[], Any], timeout: float | None) -> dict[str, Any]:
        """``{"status": ok|error|timeout|died, "value"|"error": ...}`` for ``fn()``,
        isolated as pairs are (the live-store checks use it)."""
        ...

    def run(self, jobs: Sequence[Job], done: Done) -> None:
        """Run every job; call ``done`` once per job, in the order they finish."""
        ...

    def close(self) -> None:
        ...


def _reopen_and_clean(sel: BackendSelection, workdir: Path, spec: PairSpec) -> Cleanup:
    """The parent's cleanup for a child that could not: same options, same workdir."""
    ctx = BackendContext(workdir=workdir, seed=spec.seed, run_id=spec.run_id,
                         cache_dir=Path(spec.cache_dir) if spec.cache_dir else None)
    backend = sel.info.factory(dict(sel.options), ctx)
    try:
        done = cleanup(backend, spec.prefix)
        done.by = "harness, store reopened"
        return done
    finally:
        backend.close()


def preload_here(selections: Sequence[BackendSelection], cache_dir: Path | None
                 ) -> dict[str, str]:
    """Each backend's preload, once per distinct options, in this process."""
    errors: dict[str, str] = {}
    done: set[tuple[str, str]] = set()
    for sel in selections:
        key = (sel.info.name, repr(sorted(sel.options.items())))
        if sel.info.preload is None or key in done:
            continue
        done.add(key)
        try:
            sel.info.preload(dict(sel.options), cache_dir)
        except Exception as exc:  # its pairs will fail and say why
            errors[sel.label] = f"{type(exc).__name__}: {exc}"
    return errors


def call_here(fn: Callable[[], Any], timeout: float | None) -> dict[str, Any]:
    """``fn()`` in a forked child of this process (in-process when forking is unsafe),
    in the shape of :meth:`Executor.call`."""
    if fork_available() and fork_unsafe_reason() is None:
        outcome = run_forked(lambda send: fn(), timeout=timeout)
        if outcome.status == "ok":
            return {"status": "ok", "value": outcome.value}
        return {"status": outcome.status, "error": outcome.error}
    return _call_in_process(fn)


def _call_in_process(fn: Callable[[], Any]) -> dict[str, Any]:
    try:
        return {"status": "ok", "value": fn()}
    except Exception as exc:
        return {"status": "error", "error": f"{type(exc).__name__}: {exc}"}


class LocalExecutor:
    """Pairs in this process, one after another: no timeout, no crash protection."""

    name = "local"

    def __init__(self, plugins: LoadedPlugins, progress: Progress | None = None, *,
                 keep_work: bool = False, note: str | None = None,
                 work_root: Path | None = None) -> None:
        self.plugins = plugins
        self.progress = progress
        self.keep_work = keep_work
        self.note = note
        self.work_root = work_root  # where workdirs are made (the run's WorkRoot)

    def describe(self) -> dict[str, Any]:
        out: dict[str, Any] = {"executor": self.name, "isolation": "none", "timeout_s": None}
        if self.note:
            out.update(isolation_requested="process", isolation_note=self.note)
        return out

    def preload(self, selections: Sequence[BackendSelection], cache_dir: Path | None
                ) -> dict[str, str]:
        return preload_here(selections, cache_dir)

    def call(self, fn: Callable[[], Any], timeout: float | None) -> dict[str, Any]:
        return _call_in_process(fn)

    def _workdir(self, job: Job) -> Path:
        name = job.selection.info.name
        return Path(tempfile.mkdtemp(prefix=f"memory-bench-{name}-s{job.spec.seed}-",
                                     dir=self.work_root))

    def _start(self, job: Job) -> None:
        if self.progress:
            self.progress.pair(job.spec.label, job.seed_index, job.seeds)

    def run_one(self, job: Job) -> PairRun:
        workdir = self._workdir(job)
        try:
            on_tag = self.progress.phase if self.progress else None
            return run_pair(job.spec, plugins=self.plugins, workdir=workdir, on_tag=on_tag)
        finally:
            if not self.keep_work:
                shutil.rmtree(workdir, ignore_errors=True)

    def run(self, jobs: Sequence[Job], done: Done) -> None:
        for job in jobs:
            self._start(job)
            done(job, self.run_one(job))

    def close(self) -> None:
        pass


class ProcessExecutor(LocalExecutor):
    """Each pair in a forked child with a timeout; the parent cleans up after a child
    that died, and records how it ended."""

    name = "process"

    def __init__(self, plugins: LoadedPlugins, progress: Progress | None = None, *,
                 keep_work: bool = False, timeout: float | None = None,
                 work_root: Path | None = None) -> None:
        super().__init__(plugins, progress, keep_work=keep_work, work_root=work_root)
        self.timeout = timeout

    def describe(self) -> dict[str, Any]:
        return {"executor": self.name, "isolation": "process", "timeout_s": self.timeout}

    def call(self, fn: Callable[[], Any], timeout: float | None) -> dict[str, Any]:
        return call_here(fn, timeout)

    def run_one(self, job: Job) -> PairRun:
        spec, sel = job.spec, job.selection
        workdir = self._workdir(job)
        on_tag = self.progress.phase if self.progress else None
        try:
            try:
                outcome = run_forked(
                    lambda send: run_pair(spec, plugins=self.plugins, workdir=workdir,
                                          on_tag=send),
                    timeout=self.timeout, on_message=on_tag,
                )
            except BaseException:  # Ctrl-C: the child is dead; leave no items behind
                self._recover(sel, workdir, spec)
                raise
            if outcome.status == "ok":
                return outcome.value
            run = PairRun(seed=spec.seed,
                          status="timeout" if outcome.status == "timeout" else "failed",
                          error=outcome.error, traceback=outcome.traceback,
                          seconds=outcome.seconds)
            run.cleanup = self._recover(sel, workdir, spec)
            return run
        finally:
            if not self.keep_work:
                shutil.rmtree(workdir, ignore_errors=True)

    def _recover(self, sel: BackendSelection, workdir: Path, spec: PairSpec) -> Cleanup:
        if not sel.info.has(Capability.PERSISTENT):
            return Cleanup(ok=True, prefix=spec.prefix,
                           by="harness: the store died with its process; workdir deleted")
        t = RECOVERY_TIMEOUT if self.timeout is None else min(self.timeout, RECOVERY_TIMEOUT)
        got = self.call(lambda: _reopen_and_clean(sel, workdir, spec), t)
        if got["status"] == "ok":
            return got["value"]
        return Cleanup(ok=False, prefix=spec.prefix, by="harness, store reopened",
                       error=got["error"])


EXECUTORS = ("process", "local", "dask")


def make_executor(kind: str, plugins: LoadedPlugins, progress: Progress | None, *,
                  keep_work: bool = False, timeout: float | None = None,
                  work_root: Path | None = None, workers: int | None = None,
                  scheduler: str | None = None) -> Executor:
    """The executor ``kind`` names; ``process`` falls back to ``local`` (and says why)
    when this process must not be forked. Workdirs are made in ``work_root`` (dask
    workers make theirs on their own host). ``workers`` and ``scheduler`` are the
    dask executor's (a local cluster of that many workers, or an existing scheduler)."""
    if kind != "dask" and (workers is not None or scheduler is not None):
        raise ExecutorError("workers and a scheduler are options of the dask executor")
    if kind == "dask":
        try:
            from memory_bench.harness.dask_executor import DaskExecutor
        except ImportError as exc:
            raise ExecutorError(f"the dask executor needs dask distributed "
                                f"(pip install 'memory-bench[dask]'): {exc}") from None
        return DaskExecutor(plugins, progress, keep_work=keep_work, timeout=timeout,
                            workers=workers, scheduler=scheduler)
    if kind == "process":
        if not fork_available():
            raise ExecutorError("the process executor needs fork(); use the local executor")
        reason = fork_unsafe_reason()
        if reason is None:
            return ProcessExecutor(plugins, progress, keep_work=keep_work, timeout=timeout,
                                   work_root=work_root)
        note = f"{reason}; pairs ran in-process (no timeout)"
        warnings.warn(f"memory-bench: {note}", RuntimeWarning, stacklevel=3)
        return LocalExecutor(plugins, progress, keep_work=keep_work, note=note,
                             work_root=work_root)
    if kind == "local":
        return LocalExecutor(plugins, progress, keep_work=keep_work, work_root=work_root)
    raise ExecutorError(f"unknown executor {kind!r} (known: {', '.join(EXECUTORS)})")
