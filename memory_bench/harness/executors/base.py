"""What every executor is: the jobs it receives, how it answers, and the helpers they share.

An executor is where pairs run. The runner hands one a list of jobs and is told,
pair by pair, how each ended; it never knows where the work happened. A new
executor (a cluster, say) implements :class:`Executor`: it receives plain data
(:class:`~memory_bench.harness.pair.PairSpec`) and must answer every job with a
:class:`~memory_bench.results.model.PairRun`, failed or not.
"""

from __future__ import annotations

import contextlib
import os
import threading
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from memory_bench import crashguard
from memory_bench.contract.forksafety import fork_unsafe_reason
from memory_bench.errors import BadInput
from memory_bench.harness.isolation import fork_available, run_forked
from memory_bench.harness.pair import PairSpec
from memory_bench.plugins.selection import BackendSelection
from memory_bench.results.model import PairRun

__all__ = ["EXECUTORS", "RECOVERY_TIMEOUT", "Done", "Executor", "ExecutorError", "Job",
           "call_here", "call_in_process", "preload_here", "thread_limit"]

EXECUTORS = ("process", "local", "dask")

RECOVERY_TIMEOUT = 120.0  # seconds to reopen a killed pair's store and remove its items


@dataclass(frozen=True)
class Job:
    """One pair to run: its plain-data spec, and the selection it resolves to here."""

    spec: PairSpec
    selection: BackendSelection
    seed_index: int
    seeds: int


Done = Callable[[Job, PairRun], None]


class ExecutorError(BadInput):
    """The executor asked for cannot be set up (bad input: exit status 2, nothing written)."""


class Executor(Protocol):
    name: str
    # How many children ``call`` may run at once for work that splits (the encode-once
    # tables, a share of the seeds each): the cores the pairs would use.
    table_parts: int

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
        before = _threads()
        try:
            with crashguard.doing(f"backend {sel.label} (plugin {sel.info.plugin})",
                                  "its preload"):
                sel.info.preload(dict(sel.options), cache_dir)
        except Exception as exc:  # its pairs will fail and say why
            errors[sel.label] = f"{type(exc).__name__}: {exc}"
        started = _threads() - before
        if started > 0:
            warnings.warn(
                f"memory-bench: backend {sel.info.name}'s preload started {started} "
                "thread(s); pairs are forked after preloading and a forked thread pool can "
                "deadlock: start them in the backend's factory instead (or run with "
                "--executor local)", RuntimeWarning, stacklevel=2)
    return errors


def _threads() -> int:
    """This process's threads, native ones included (Linux), else Python's."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return threading.active_count()


def call_here(fn: Callable[[], Any], timeout: float | None) -> dict[str, Any]:
    """``fn()`` in a forked child of this process (in-process when forking is unsafe),
    in the shape of :meth:`Executor.call`."""
    if fork_available() and fork_unsafe_reason() is None:
        outcome = run_forked(lambda send: fn(), timeout=timeout)
        if outcome.status == "ok":
            return {"status": "ok", "value": outcome.value}
        return {"status": outcome.status, "error": outcome.error}
    return call_in_process(fn)


def call_in_process(fn: Callable[[], Any]) -> dict[str, Any]:
    try:
        return {"status": "ok", "value": fn()}
    except Exception as exc:
        return {"status": "error", "error": f"{type(exc).__name__}: {exc}"}


def thread_limit(threads: int | None) -> contextlib.AbstractContextManager[Any]:
    """BLAS and OpenMP pools of at most ``threads`` threads while a pair runs (pairs
    running at once share the cores; OpenMP's limit holds for the calling thread, so
    it is set in the pair's own thread)."""
    if not threads:
        return contextlib.nullcontext()
    from threadpoolctl import threadpool_limits

    return threadpool_limits(threads)
