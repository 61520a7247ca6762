"""The executors of this machine: ``local`` (in this process) and ``process`` (each
pair in a forked child with a timeout, ``isolation.py``)."""

from __future__ import annotations

import functools
import shutil
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from multiprocessing.connection import wait
from pathlib import Path
from typing import Any

from memory_bench import crashguard
from memory_bench.harness.executors.base import (
    RECOVERY_TIMEOUT,
    Done,
    ExecutorError,
    Job,
    call_here,
    call_in_process,
    preload_here,
    thread_limit,
)
from memory_bench.harness.executors.cost import available_cores, longest_first
from memory_bench.harness.executors.recovery import lost_cleanup, recover_store
from memory_bench.harness.isolation import Forked, Outcome
from memory_bench.harness.pair import PairSpec, run_pair
from memory_bench.harness.progress import Progress
from memory_bench.plugins.manager import LoadedPlugins
from memory_bench.plugins.selection import BackendSelection
from memory_bench.results.model import Cleanup, PairRun

__all__ = ["LocalExecutor", "ProcessExecutor"]


class LocalExecutor:
    """Pairs in this process, one after another: no timeout, no crash protection."""

    name = "local"
    table_parts = 1  # everything in this process, one thing at a time

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
        return call_in_process(fn)

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
            with crashguard.doing(f"backend {job.spec.label}",
                                  f"its pair with seed {job.spec.seed} (--executor local)"):
                return run_pair(job.spec, plugins=self.plugins, workdir=workdir,
                                on_tag=on_tag)
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
    that died, and records how it ended. ``workers`` pairs run at once (default 1:
    one at a time, so that no pair's latency is another's load); pairs that share a
    store (``BackendInfo.shares_store``) one at a time whatever ``workers`` is, and
    each pair's BLAS/OpenMP pools get its share of the cores."""

    name = "process"

    def __init__(self, plugins: LoadedPlugins, progress: Progress | None = None, *,
                 keep_work: bool = False, timeout: float | None = None,
                 work_root: Path | None = None, workers: int = 1) -> None:
        super().__init__(plugins, progress, keep_work=keep_work, work_root=work_root)
        if workers < 1:
            raise ExecutorError("--workers must be at least 1")
        self.timeout = timeout
        self.workers = workers
        self.pair_threads = (max(1, available_cores() // workers) if workers > 1
                             else None)
        self._shown: Job | None = None
        # The encode-once tables: as many children at once as pairs (a share of the
        # seeds each), so no core waits while they are built.
        self.table_parts = workers

    def describe(self) -> dict[str, Any]:
        out: dict[str, Any] = {"executor": self.name, "isolation": "process",
                               "timeout_s": self.timeout}
        if self.workers > 1:
            out.update(workers=self.workers, pair_threads=self.pair_threads,
                       persistent_pairs="one at a time per backend when its pairs share a "
                       "store; in parallel when each pair's store is its own workdir",
                       pairs_in_flight=f"at most {self.workers}",
                       tables_in_flight=f"at most {self.table_parts} (a share of the seeds each)",
                       order="longest rows first (harness/executors/cost.py)")
        return out

    def call(self, fn: Callable[[], Any], timeout: float | None) -> dict[str, Any]:
        return call_here(fn, timeout)

    def run_one(self, job: Job) -> PairRun:
        flight = self._fork(job)
        try:
            while True:
                outcome = flight.step()
                if outcome is not None:
                    return self._ended(flight, outcome)
                wait(flight.child.waitables, timeout=flight.child.left())
        except BaseException:
            self._abandon([flight])
            raise

    def run(self, jobs: Sequence[Job], done: Done) -> None:
        if self.workers == 1:
            super().run(jobs, done)
            return
        waiting, flights, busy = longest_first(jobs), [], set()
        try:
            while waiting or flights:
                for job in list(waiting):
                    if len(flights) >= self.workers:
                        break
                    shared = job.selection.info.shares_store(job.selection.options)
                    if shared and job.spec.label in busy:
                        continue
                    waiting.remove(job)
                    if shared:
                        busy.add(job.spec.label)
                    self._start(job)
                    flights.append(self._fork(job))
                lefts = [t for f in flights if (t := f.child.left()) is not None]
                wait([w for f in flights for w in f.child.waitables],
                     timeout=min(lefts) if lefts else None)
                for f in list(flights):
                    outcome = f.step()
                    if outcome is None:
                        continue
                    flights.remove(f)
                    busy.discard(f.job.spec.label)
                    done(f.job, self._ended(f, outcome))
        except BaseException:  # Ctrl-C: every child killed, its items removed
            self._abandon(flights)
            raise

    def _fork(self, job: Job) -> _Flight:
        spec, workdir = job.spec, self._workdir(job)
        threads = self.pair_threads

        def pair(send: Callable[[Any], None]) -> PairRun:
            with thread_limit(threads):
                return run_pair(spec, plugins=self.plugins, workdir=workdir, on_tag=send)

        on_tag = functools.partial(self._phase, job) if self.progress is not None else None
        try:
            return _Flight(job, workdir, Forked(pair, timeout=self.timeout, on_message=on_tag))
        except BaseException:
            self._drop(workdir)
            raise

    def _phase(self, job: Job, tag: Any) -> None:
        """A pair's step on the progress line; with several in flight, the line names
        the pair whose step it is."""
        assert self.progress is not None
        if self._shown is not job:
            self.progress.pair(job.spec.label, job.seed_index, job.seeds)
            self._shown = job
        self.progress.phase(tag)

    def _start(self, job: Job) -> None:
        super()._start(job)
        self._shown = job

    def _ended(self, f: _Flight, outcome: Outcome) -> PairRun:
        spec = f.job.spec
        try:
            if outcome.status == "ok":
                return outcome.value
            run = PairRun(seed=spec.seed,
                          status="timeout" if outcome.status == "timeout" else "failed",
                          error=outcome.error, traceback=outcome.traceback,
                          seconds=outcome.seconds)
            run.cleanup = self._recover(f.job.selection, f.workdir, spec)
            return run
        finally:
            self._drop(f.workdir)

    def _abandon(self, flights: Sequence[_Flight]) -> None:
        """The children are killed; leave none of their items behind."""
        for f in flights:
            f.child.kill()
        for f in flights:
            try:
                self._recover(f.job.selection, f.workdir, f.job.spec)
            finally:
                self._drop(f.workdir)

    def _drop(self, workdir: Path) -> None:
        if not self.keep_work:
            shutil.rmtree(workdir, ignore_errors=True)

    def _recover(self, sel: BackendSelection, workdir: Path, spec: PairSpec) -> Cleanup:
        t = RECOVERY_TIMEOUT if self.timeout is None else min(self.timeout, RECOVERY_TIMEOUT)
        got = self.call(lambda: recover_store(sel, spec, [workdir]), t)
        if got["status"] == "ok":
            return got["value"]
        return lost_cleanup(spec, got["error"])


@dataclass
class _Flight:
    """A pair running in a child: its job, its workdir, the child."""

    job: Job
    workdir: Path
    child: Forked

    def step(self) -> Outcome | None:
        return self.child.step()
