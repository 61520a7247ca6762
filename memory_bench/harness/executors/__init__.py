"""Executors: where pairs run (see ``base.py`` for what one is).

- ``process`` (the default): each pair in a forked child with a timeout. When a
  library says this process must not be forked (``forksafety.py``), pairs run
  in-process and ``describe()`` says why.
- ``local``: in this process, no timeout (to measure what isolation costs, or to
  debug); a crash ends the run.
- ``dask``: on a dask cluster, a local one (``workers``) or an existing scheduler
  (``scheduler``); ``dask_executor.py``. dask is imported only when it is chosen.
"""

from __future__ import annotations

import warnings
from pathlib import Path

from memory_bench.contract.forksafety import fork_unsafe_reason
from memory_bench.harness.executors.base import (
    EXECUTORS,
    RECOVERY_TIMEOUT,
    Done,
    Executor,
    ExecutorError,
    Job,
    call_here,
    preload_here,
)
from memory_bench.harness.executors.local import LocalExecutor, ProcessExecutor
from memory_bench.harness.isolation import fork_available
from memory_bench.harness.progress import Progress
from memory_bench.plugins.manager import LoadedPlugins

__all__ = ["EXECUTORS", "RECOVERY_TIMEOUT", "Done", "Executor", "ExecutorError", "Job",
           "LocalExecutor", "ProcessExecutor", "call_here", "make_executor", "preload_here"]


def make_executor(kind: str, plugins: LoadedPlugins, progress: Progress | None, *,
                  keep_work: bool = False, timeout: float | None = None,
                  work_root: Path | None = None, workers: int | None = None,
                  scheduler: str | None = None) -> Executor:
    """The executor ``kind`` names; ``process`` falls back to ``local`` (and says why)
    when this process must not be forked. Workdirs are made in ``work_root`` (dask
    workers make theirs on their own host). ``workers``: the process executor's
    pairs at once, or the dask executor's local cluster of that many workers;
    ``scheduler``: the dask executor's existing scheduler."""
    if kind == "local" and workers is not None:
        raise ExecutorError("workers are an option of the process and dask executors")
    if kind != "dask" and scheduler is not None:
        raise ExecutorError("a scheduler is an option of the dask executor")
    if kind == "dask":
        try:
            from memory_bench.harness.executors.dask_executor import DaskExecutor
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
                                   work_root=work_root, workers=workers or 1)
        note = f"{reason}; pairs ran in-process (no timeout)"
        warnings.warn(f"memory-bench: {note}", RuntimeWarning, stacklevel=3)
        return LocalExecutor(plugins, progress, keep_work=keep_work, note=note,
                             work_root=work_root)
    if kind == "local":
        return LocalExecutor(plugins, progress, keep_work=keep_work, work_root=work_root)
    raise ExecutorError(f"unknown executor {kind!r} (known: {', '.join(EXECUTORS)})")
