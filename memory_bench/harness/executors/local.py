"""The executors of this machine: ``local`` (in this process) and ``process`` (each
pair in a forked child with a timeout, ``isolation.py``)."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from memory_bench.harness.executors.base import (
    RECOVERY_TIMEOUT,
    Done,
    Job,
    call_here,
    call_in_process,
    preload_here,
)
from memory_bench.harness.executors.recovery import lost_cleanup, recover_store
from memory_bench.harness.isolation import run_forked
from memory_bench.harness.pair import PairSpec, run_pair
from memory_bench.harness.progress import Progress
from memory_bench.plugins.manager import LoadedPlugins
from memory_bench.plugins.selection import BackendSelection
from memory_bench.results.model import Cleanup, PairRun

__all__ = ["LocalExecutor", "ProcessExecutor"]


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
        t = RECOVERY_TIMEOUT if self.timeout is None else min(self.timeout, RECOVERY_TIMEOUT)
        got = self.call(lambda: recover_store(sel, spec, [workdir]), t)
        if got["status"] == "ok":
            return got["value"]
        return lost_cleanup(spec, got["error"])
