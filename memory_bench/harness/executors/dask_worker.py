"""The worker side of the dask executor: what runs inside a dask worker process.

A worker receives pair specs as plain data and resolves them itself
(:func:`~memory_bench.harness.pair.run_pair`: its own plugins, backend and
script), so it needs memory-bench and the run's backend distributions installed,
at the versions the parent has: each task carries the versions the parent
expects and a worker that differs fails the pair with one line saying so.

Isolation inside a worker: a pair runs *in the worker process*, in its single
task thread; the worker process is the isolation unit. Forking a child per pair
there (as the process executor does in its parent) is unsafe once the worker
has run the embedding model (the shared embedder then registers a fork
guard: torch's thread pools do not survive a fork), and a dask worker is a
daemonic, multi-threaded process besides. So a pair that kills its process
takes the worker with it: the nanny starts a new worker (which preloads
again) and the scheduler runs the pair once more, or reports it lost; a pair
that overruns is stopped by the parent, which restarts its worker. Either way
only that pair is affected.

Each task reports to the parent through dask's event stream (topic per run):
``start`` (where it runs) and ``phase`` (the step tag), for the progress line
and for the per-pair timeout, which the parent measures from ``start``.
"""

from __future__ import annotations

import asyncio
import os
import platform
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from distributed import WorkerPlugin, get_worker

from memory_bench import __version__
from memory_bench.contract.capabilities import Capability
from memory_bench.harness.executors.base import preload_here, thread_limit
from memory_bench.harness.executors.recovery import recover_store
from memory_bench.harness.pair import PairSpec, process_plugins, resolve_backend, run_pair
from memory_bench.plugins.manager import LoadedPlugins
from memory_bench.plugins.selection import select_backends
from memory_bench.results.model import PairRun
from memory_bench.results.paths import default_cache_dir

__all__ = ["PRELOAD_PLUGIN", "Preload", "preload_errors", "recover_pair", "remove_run_root",
           "run_pair_task", "run_root"]

PRELOAD_PLUGIN = "memory-bench-preload"


def run_root(run_id: str) -> Path:
    """This host's directory for the run's pair workdirs (a lost pair's is found here)."""
    return Path(tempfile.gettempdir()) / f"memory-bench-{run_id}"


def _pair_glob(spec: PairSpec) -> str:
    return f"{spec.index:03d}-s{spec.seed}-*"


def _emit(topic: str, kind: str, key: str, **fields: Any) -> None:
    get_worker().log_event(topic, {"kind": kind, "key": key, **fields})


def _version_mismatch(spec: PairSpec, expect: Mapping[str, str]) -> str | None:
    plugins = process_plugins()
    sel = resolve_backend(plugins, spec)
    have = {"memory-bench": __version__, "backend": sel.info.version}
    gen = plugins.scenarios.get(spec.scenario["generator"])
    if gen is not None:
        have["generator"] = gen.version
    for what, want in expect.items():
        if what in have and have[what] != want:
            return (f"worker {platform.node()} has {what} {have[what]} for {spec.label}; "
                    f"the run uses {want}")
    return None


def _clean_lost_attempts(spec: PairSpec) -> list[str]:
    """Before a pair runs again: remove what an attempt whose worker died left behind."""
    root = run_root(spec.run_id)
    notes = []
    for old in sorted(root.glob(_pair_glob(spec))):
        done = recover_pair(spec.to_dict(), keep_work=False, only=[old])
        notes.append(f"a lost attempt's store was cleaned before this one: "
                     f"{done.get('removed', 0)} item(s) removed, ok={done['ok']}")
    return notes


def run_pair_task(spec_dict: Mapping[str, Any], expect: Mapping[str, str], topic: str,
                  key: str, *, keep_work: bool = False, worker_cache: bool = False,
                  threads: int | None = None) -> dict[str, Any]:
    """One pair in this worker process; the answer is ``PairRun.to_dict()``.

    ``worker_cache``: use this worker's default embedding cache, not the parent's path.
    ``threads``: cap the BLAS and OpenMP thread pools (workers forked from a parent
    inherit its pools, sized for one pair on every core).
    """
    with thread_limit(threads):
        return _run_pair_task(spec_dict, expect, topic, key, keep_work=keep_work,
                              worker_cache=worker_cache)


def _run_pair_task(spec_dict: Mapping[str, Any], expect: Mapping[str, str], topic: str,
                   key: str, *, keep_work: bool, worker_cache: bool) -> dict[str, Any]:
    spec = PairSpec.from_dict(spec_dict)
    if worker_cache:
        spec = replace(spec, cache_dir=str(default_cache_dir()))
    worker = get_worker()
    _emit(topic, "start", key, address=worker.address, host=platform.node(), pid=os.getpid())
    try:
        mismatch = _version_mismatch(spec, expect)
    except Exception as exc:  # the worker lacks the plugin, say
        mismatch = f"worker {platform.node()}: {type(exc).__name__}: {exc}"
    if mismatch:
        run = PairRun(seed=spec.seed, status="failed", error=mismatch)
    else:
        notes = _clean_lost_attempts(spec)
        root = run_root(spec.run_id)
        root.mkdir(parents=True, exist_ok=True)
        workdir = Path(tempfile.mkdtemp(prefix=_pair_glob(spec)[:-1], dir=root))
        try:
            run = run_pair(spec, plugins=process_plugins(), workdir=workdir,
                           on_tag=lambda tag: _emit(topic, "phase", key, tag=tag))
        finally:
            if not keep_work:
                shutil.rmtree(workdir, ignore_errors=True)
        run.warnings[:0] = notes
    run.worker.update(host=platform.node(), pid=os.getpid(), address=worker.address)
    return run.to_dict()


def recover_pair(spec_dict: Mapping[str, Any], keep_work: bool = False,
                 only: Sequence[Path] | None = None, plugins: LoadedPlugins | None = None
                 ) -> dict[str, Any]:
    """After a pair's worker died or was stopped: reopen its store on this host and
    remove its items (a persistent store), then delete its workdirs; a ``Cleanup``
    as a dict. Runs on a worker of the host the pair ran on (or in the parent, for
    a local cluster, whose workers share its host)."""
    spec = PairSpec.from_dict(spec_dict)
    sel = resolve_backend(plugins or process_plugins(), spec)
    dirs = list(only) if only is not None else sorted(run_root(spec.run_id).glob(
        _pair_glob(spec)))
    try:
        if not dirs and Capability.PERSISTENT in sel.capabilities:
            # a store the user named (path, server) is reopened anywhere
            dirs, keep_work = [Path(tempfile.mkdtemp(prefix="memory-bench-recover-"))], False
        return recover_store(sel, spec, dirs, died_with="worker").to_dict()
    finally:
        if not keep_work:
            for where in dirs:
                shutil.rmtree(where, ignore_errors=True)


def remove_run_root(run_id: str) -> None:
    """At the end of a run: this host's leftover workdirs (of lost attempts) go."""
    shutil.rmtree(run_root(run_id), ignore_errors=True)


class Preload(WorkerPlugin):
    """Runs each backend's ``preload`` in every worker, including workers that join
    or are restarted later, so the embedding model is loaded once per worker
    process before its first pair (and never inside a pair's timings)."""

    name = PRELOAD_PLUGIN

    def __init__(self, specs: Sequence[str], cache_dir: str | None, *,
                 worker_cache: bool = False) -> None:
        self.specs = list(specs)
        self.cache_dir = cache_dir
        self.worker_cache = worker_cache
        self.errors: dict[str, str] = {}

    def _load(self) -> dict[str, str]:
        try:
            selections = select_backends(process_plugins().registry, self.specs)
        except Exception as exc:  # its pairs fail with the same error
            return {s: f"{type(exc).__name__}: {exc}" for s in self.specs}
        cache = default_cache_dir() if self.worker_cache else self.cache_dir
        return preload_here(selections, Path(cache) if cache else None)

    async def setup(self, worker: Any) -> None:
        # In a thread: loading a model takes seconds, the worker's event loop must not stall.
        self.errors = await asyncio.get_running_loop().run_in_executor(None, self._load)


def preload_errors(dask_worker: Any) -> dict[str, str]:
    """This worker's preload errors by label (for ``Client.run``)."""
    plugin = dask_worker.plugins.get(PRELOAD_PLUGIN)
    return {} if plugin is None else dict(plugin.errors)
