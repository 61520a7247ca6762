"""The dask executor: pairs on a dask cluster, a local one or an existing scheduler.

``workers=N`` starts a LocalCluster of N single-threaded worker processes bound
to 127.0.0.1 (no dashboard); ``scheduler=ADDRESS`` connects to a running
scheduler (dask-jobqueue on Slurm or PBS, Kubernetes, ``dask scheduler`` by
hand). Pairs go out as plain data and come back as ``PairRun`` dicts, which
the runner writes as they arrive. What runs on a worker is ``dask_worker.py``.

The parent keeps what the process executor guarantees:

- **Timeout**: measured from the pair's ``start`` event; on expiry the pair is
  cancelled and its worker restarted through its nanny (a thread cannot be
  stopped), and the pair is recorded as ``timeout``.
- **Lost worker**: dask's own rescheduling is switched off on a local cluster
  (``allowed-failures`` 0), so the parent sees the loss, cleans the pair's
  store on that host, and runs the pair once more (recorded in its
  ``warnings``); lost twice, it is ``failed``. Only that pair is touched: no
  more pairs are out than the cluster has threads, so none waits queued on a
  worker that dies (one that did is queued again, not counted as an attempt).
- **Persistent backends** run one pair at a time per selection: a store the
  user named (a directory, a server) is shared by every pair of that
  selection, and concurrent pairs would see each other's items.
- **Ctrl-C** cancels what is queued, stops what runs, removes its items, and
  leaves a resumable run.

A local cluster's workers are forked from the parent once it has preloaded (one
model load, shared copy-on-write, with the parent's environment and hash seed,
as the process executor's children), or spawned where forking is unsafe.
"""

from __future__ import annotations

import contextlib
import logging
import os
import queue
import re
import socket
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import dask
import distributed
from distributed import Client, LocalCluster
from distributed.scheduler import KilledWorker

from memory_bench import __version__
from memory_bench.contract.forksafety import fork_unsafe_reason
from memory_bench.harness.executors import dask_worker
from memory_bench.harness.executors.base import (
    RECOVERY_TIMEOUT,
    Done,
    ExecutorError,
    Job,
    call_here,
    preload_here,
)
from memory_bench.harness.executors.recovery import lost_cleanup
from memory_bench.harness.isolation import fork_available
from memory_bench.harness.progress import Progress
from memory_bench.plugins.manager import LoadedPlugins
from memory_bench.plugins.selection import BackendSelection
from memory_bench.records.reader import Reader
from memory_bench.results.model import Cleanup, PairRun
from memory_bench.results.paths import default_cache_dir

__all__ = ["MAX_ATTEMPTS", "MAX_LOCAL_WORKERS_PER_CPU", "DaskExecutor"]

MAX_LOCAL_WORKERS_PER_CPU = 8

MAX_ATTEMPTS = 2  # a pair whose worker is lost runs once more, then is failed
MAX_RECOVERY_TRIES = 3
MAX_REQUEUES = 2  # a pair lost before it started (queued on a worker that died)
CONNECT_TIMEOUT = 10.0  # seconds to reach an existing scheduler
WORKERS_TIMEOUT = 300.0  # seconds to wait for an existing cluster's workers
RESTART_TIMEOUT = 120.0  # seconds for a nanny to restart a worker (it preloads again)
_TICK = 1.0  # the longest the loop sleeps between checks


def _quiet_environ() -> dict[str, Any]:
    """dask's worker environment (one-thread BLAS and OpenMP: N workers share the
    cores) without its MALLOC_TRIM_THRESHOLD_: with it, one rshl pair on the default
    scenario took 9-11 s instead of 4.5 s in a plain process (measured here)."""
    environ = dict(dask.config.get("distributed.nanny.pre-spawn-environ", {}))
    environ.pop("MALLOC_TRIM_THRESHOLD_", None)
    return environ


# The local cluster's scheduler and workers. Lost workers are the parent's to retry
# (after cleaning up); a worker holds only the task it runs, so a death touches that
# pair alone. A pair runs in a worker thread beside the worker's event loop: every
# wake-up of that loop takes the GIL from the pair, which on a loaded machine costs
# a time slice each, so the statistical profiler and the frequent monitors are off
# or slowed (the first pair of a worker took 12-20 s with dask's defaults, 4-5 s
# without them and in a plain process; rshl, default scenario, load average ~7).
LOCAL_CLUSTER_CONFIG: dict[str, Any] = {
    "distributed.scheduler.allowed-failures": 0,
    "distributed.scheduler.worker-saturation": 1.0,
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.worker.memory.monitor-interval": "1s",
    "distributed.admin.system-monitor.interval": "2s",
}


@dataclass
class _Flight:
    """One task in flight: a pair's attempt, or the cleanup after a lost one."""

    job: Job
    kind: str  # pair | recover
    attempt: int
    future: Any
    submitted: float
    started: float | None = None
    address: str | None = None  # the worker's, from its start event
    run: PairRun | None = None  # recover: the pair's outcome, waiting for its cleanup
    retry: bool = False  # recover: run the pair again afterwards
    notes: list[str] = field(default_factory=list)
    tries: int = 1  # recover: a cleanup whose worker another pair killed is tried again
    requeues: int = 0  # pair: times it was lost before it started


def _host(address: str | None) -> str | None:
    """``tcp://10.0.0.5:4242`` -> ``10.0.0.5`` (a host restriction dask understands)."""
    if not address:
        return None
    m = re.match(r"^[a-z0-9+]+://\[?([^\]]+?)\]?:\d+$", address)
    return m.group(1) if m else None


def _key_slug(label: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.=-]+", "_", label)[:40]


def _refused(address: str) -> str | None:
    """Why nothing listens at a ``tcp://host:port`` scheduler, known at once (the
    connection is refused); None when something answers, or for any other address or
    error (dask's own connect then says what went wrong)."""
    from urllib.parse import urlsplit

    if not address.startswith("tcp://"):
        return None
    try:
        url = urlsplit(address)
        host, port = url.hostname, url.port
    except ValueError:
        return None
    if not host or not port:
        return None
    try:
        with socket.create_connection((host, port), timeout=CONNECT_TIMEOUT):
            return None
    except ConnectionRefusedError as exc:
        return f"ConnectionRefusedError: {exc.strerror or exc}"
    except OSError:
        return None


class DaskExecutor:
    """Pairs as dask tasks; the parent streams them back, times them, and recovers."""

    name = "dask"
    table_parts = 1  # the tables are built by one child of the parent, beside the cluster

    def __init__(self, plugins: LoadedPlugins, progress: Progress | None = None, *,
                 keep_work: bool = False, timeout: float | None = None,
                 workers: int | None = None, scheduler: str | None = None) -> None:
        if workers is not None and workers < 1:
            raise ExecutorError("--workers must be at least 1")
        most = MAX_LOCAL_WORKERS_PER_CPU * (os.cpu_count() or 1)
        if scheduler is None and workers is not None and workers > most:
            raise ExecutorError(f"--workers {workers}: a local cluster forks one process per "
                                f"worker; at most {most} on this machine "
                                f"({MAX_LOCAL_WORKERS_PER_CPU} per CPU)")
        self.plugins = plugins
        self.progress = progress
        self.keep_work = keep_work
        self.timeout = timeout
        self.scheduler = scheduler
        self.cluster: LocalCluster | None = None
        self._events: queue.SimpleQueue[tuple[str, Any]] = queue.SimpleQueue()
        self._topics: list[str] = []
        self._run_ids: set[str] = set()
        self._shown: str | None = None
        # The state of one run() (the runner calls it once per executor).
        self._flights: dict[str, _Flight] = {}
        self._busy: set[str] = set()  # selections sharing a store, with a pair in flight
        self._priority: dict[int, int] = {}
        self._done: Done | None = None
        self._no_workers_since: float | None = None
        self._local_workers = workers or 2
        self.start_method: str | None = None  # a local cluster's: fork or spawn
        self.pair_threads: int | None = None  # BLAS/OpenMP threads of a pair, if capped
        self._config: Any = None
        self._environ: dict[str, str] | None = None
        self.client: Client | None = None
        self.workers = 0
        if scheduler is not None:
            self._use(self._connect(workers, scheduler))

    def _use(self, client: Client) -> None:
        self.client = client
        self.workers = len(client.scheduler_info(n_workers=-1)["workers"])

    # -- the cluster ----------------------------------------------------------------

    def _connect(self, workers: int | None, scheduler: str) -> Client:
        refused = _refused(scheduler)
        if refused is not None:  # at once: dask's Client retries until its timeout
            raise ExecutorError(f"cannot reach the dask scheduler {scheduler}: {refused}")
        # In a daemon thread with a hard deadline: a listener that accepts and never
        # answers (or answers in another protocol) must not hang the command, at exit
        # either (a pool's worker threads are joined when the interpreter ends).
        got: queue.SimpleQueue[tuple[str, Any]] = queue.SimpleQueue()

        def attempt() -> None:
            try:
                got.put(("ok", Client(scheduler, timeout=CONNECT_TIMEOUT)))
            except BaseException as exc:
                got.put(("error", exc))

        threading.Thread(target=attempt, name="dask-connect", daemon=True).start()
        try:
            kind, value = got.get(timeout=CONNECT_TIMEOUT + 5)
        except queue.Empty:
            raise ExecutorError(f"cannot reach the dask scheduler {scheduler}: no answer "
                                f"in {CONNECT_TIMEOUT + 5:g} s") from None
        if kind == "error":  # HTTP on the port, TLS without certificates, ...
            raise ExecutorError(f"cannot reach the dask scheduler {scheduler}: "
                                f"{type(value).__name__}: {str(value)[:200]}") from None
        client = value
        try:
            client.wait_for_workers(workers or 1, timeout=WORKERS_TIMEOUT)
        except TimeoutError:
            client.close()
            raise ExecutorError(f"the dask scheduler {scheduler} has fewer than "
                                f"{workers or 1} worker(s) after {WORKERS_TIMEOUT:g} s") from None
        return client

    def _start_local(self, selections: Sequence[BackendSelection], cache_dir: Path | None
                     ) -> dict[str, str]:
        """Start the local cluster; with fork, after preloading here, so that every
        worker starts with the model and libraries already loaded (copy-on-write, as the
        process executor's children do) and with this process's environment, threads
        and hash seed. Where this process must not be forked, workers are spawned and
        preload for themselves."""
        fork = fork_available() and fork_unsafe_reason() is None
        self.start_method = "fork" if fork else "spawn"
        # Forked workers inherit this process's BLAS/OpenMP pools (one per core); N
        # workers sharing the cores each get their share (spawned ones get 1 from dask).
        self.pair_threads = max(1, (os.cpu_count() or 1) // self._local_workers) if fork else None
        errors = preload_here(selections, cache_dir) if fork else {}
        # A nanny writes its pre-spawn environment into this process's os.environ (and
        # again at every restart): this config stays set while the cluster lives, and
        # the environment is restored when it closes.
        self._environ = dict(os.environ)
        self._config = dask.config.set({
            **LOCAL_CLUSTER_CONFIG, "distributed.worker.multiprocessing-method": self.start_method,
            "distributed.nanny.pre-spawn-environ": {} if fork else _quiet_environ()})
        self.cluster = LocalCluster(
            n_workers=self._local_workers, threads_per_worker=1, processes=True,
            host="127.0.0.1", dashboard_address=None,
            scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},  # health routes only
            silence_logs=logging.CRITICAL,
        )
        self._use(Client(self.cluster))
        return errors

    def describe(self) -> dict[str, Any]:
        return {
            "executor": self.name, "isolation": "worker process", "timeout_s": self.timeout,
            "cluster": "local" if self.scheduler is None else "scheduler",
            "workers": self.workers, "threads_per_worker": 1 if self.scheduler is None else None,
            "start_method": self.start_method, "pair_threads": self.pair_threads,
            "lost_worker_attempts": MAX_ATTEMPTS, "distributed": distributed.__version__,
            "persistent_pairs": "one at a time per backend when its pairs share a store; "
                                "in parallel when each pair's store is its own workdir",
            "pairs_in_flight": "at most the cluster's worker threads",
        }

    def _worker_cache(self, cache_dir: str | None) -> bool:
        """Should workers use their own default cache instead of ``cache_dir``? Yes on
        an existing cluster when it is this machine's default: that path means
        nothing (or a network file system, unsafe for SQLite) on the workers' hosts."""
        return (self.cluster is None and cache_dir is not None
                and Path(cache_dir) == default_cache_dir())

    def preload(self, selections: Sequence[BackendSelection], cache_dir: Path | None
                ) -> dict[str, str]:
        """Each backend's preload on every worker, now and on any worker that starts
        later (a restart, an autoscaled node); errors by label, naming the worker."""
        errors: dict[str, str] = {}
        if self.client is None:
            errors = self._start_local(selections, cache_dir)
        assert self.client is not None
        cache = None if cache_dir is None else str(cache_dir)
        plugin = dask_worker.Preload([s.spec for s in selections], cache,
                                     worker_cache=self._worker_cache(cache))
        self.client.register_plugin(plugin, name=dask_worker.PRELOAD_PLUGIN)
        by_spec = {s.spec: s.label for s in selections}
        for address, found in sorted(self.client.run(dask_worker.preload_errors).items()):
            for key, error in found.items():
                label = by_spec.get(key, key)
                errors.setdefault(label, f"on worker {address}: {error}")
        return errors

    def call(self, fn: Callable[[], Any], timeout: float | None) -> dict[str, Any]:
        """The live-store checks run here, in the parent: a store named by path or
        server must be reachable from this machine and from the workers alike."""
        return call_here(fn, timeout)

    # -- submitting -----------------------------------------------------------------

    def _topic(self, run_id: str) -> str:
        topic = f"memory-bench-{run_id}"
        if topic not in self._topics:
            self.client.subscribe_topic(topic, lambda event: self._events.put(("event",
                                                                                event[1])))
            self._topics.append(topic)
        return topic

    def _on_done(self, future: Any) -> None:
        self._events.put(("done", future.key))

    def _expect(self, job: Job) -> dict[str, str]:
        gen = self.plugins.scenarios.get(job.spec.scenario["generator"])
        out = {"memory-bench": __version__, "backend": job.selection.info.version}
        if gen is not None:
            out["generator"] = gen.version
        return out

    def _submit_pair(self, job: Job, attempt: int, notes: Sequence[str], requeues: int = 0
                     ) -> None:
        spec = job.spec
        key = (f"memory-bench-{spec.run_id}-{spec.index:03d}-{_key_slug(spec.label)}"
               f"-s{spec.seed}-a{attempt}" + (f"-q{requeues}" if requeues else ""))
        future = self.client.submit(
            dask_worker.run_pair_task, spec.to_dict(), self._expect(job),
            self._topic(spec.run_id), key, keep_work=self.keep_work,
            worker_cache=self._worker_cache(spec.cache_dir), threads=self.pair_threads,
            key=key, pure=False, priority=self._priority[id(job)],
        )
        future.add_done_callback(self._on_done)
        self._flights[key] = _Flight(job, "pair", attempt, future, time.monotonic(),
                                     notes=list(notes), requeues=requeues)

    def _recover(self, f: _Flight, run: PairRun, *, retry: bool, tries: int = 1) -> None:
        """Clean up after a pair whose worker died or was stopped, then ``_recovered``.

        A local cluster shares this host: the parent reopens the store itself (forked,
        with a timeout), as the process executor does. On another cluster a task does
        it on a worker of the pair's host (its workdir is there)."""
        spec = f.job.spec
        if self.cluster is not None:
            got = call_here(lambda: dask_worker.recover_pair(
                spec.to_dict(), self.keep_work, plugins=self.plugins), RECOVERY_TIMEOUT)
            if got["status"] == "ok":
                cleanup = Cleanup.read(Reader(got["value"], "cleanup"))
            else:
                cleanup = lost_cleanup(spec, got["error"])
            self._recovered(f, run, cleanup, retry)
            return
        key = f"memory-bench-{spec.run_id}-{spec.index:03d}-s{spec.seed}-recover-a{f.attempt}"
        host = _host(f.address)
        future = self.client.submit(
            dask_worker.recover_pair, spec.to_dict(), self.keep_work, key=f"{key}-{tries}",
            pure=False, priority=1 << 30, workers=[host] if host else None,
            allow_other_workers=False,
        )
        future.add_done_callback(self._on_done)
        self._flights[future.key] = _Flight(
            f.job, "recover", f.attempt, future, time.monotonic(), address=f.address,
            run=run, retry=retry, notes=f.notes, tries=tries)

    def _recovered(self, f: _Flight, run: PairRun, cleanup: Cleanup, retry: bool) -> None:
        if retry:
            self._submit_pair(f.job, f.attempt + 1, [
                *f.notes, f"attempt {f.attempt}: {run.error}; its store was cleaned "
                f"(ok={cleanup.ok}) and the pair ran again"])
            return
        run.cleanup = cleanup
        self._finish(f.job, run)

    def _finish(self, job: Job, run: PairRun) -> None:
        self._busy.discard(job.spec.label)
        assert self._done is not None
        self._done(job, run)

    # -- the loop -------------------------------------------------------------------

    def run(self, jobs: Sequence[Job], done: Done) -> None:
        if self.client is None:
            self.preload([], None)
        waiting = list(jobs)
        self._flights, self._busy, self._done = {}, set(), done
        self._priority = {id(job): len(jobs) - i for i, job in enumerate(jobs)}
        self._run_ids.update(job.spec.run_id for job in jobs)
        try:
            while waiting or self._flights:
                # No more pairs out than threads to run them: dask would queue the rest
                # on busy workers, where a worker's death would take them down unstarted.
                out = sum(f.kind == "pair" for f in self._flights.values())
                free = self._threads() - out if waiting else 0
                for job in list(waiting):
                    if free <= 0:
                        break
                    label = job.spec.label
                    sel = job.selection
                    shared = sel.info.shares_store(sel.options)
                    if shared and label in self._busy:
                        continue
                    waiting.remove(job)
                    if shared:
                        self._busy.add(label)
                    self._submit_pair(job, 1, [])
                    free -= 1
                self._step()
        except BaseException:
            self._abort()
            raise

    def _threads(self) -> int:
        """The cluster's worker threads now; raises when it has had none for too long."""
        threads = sum(self.client.nthreads().values())
        now = time.monotonic()
        if threads:
            self._no_workers_since = None
        elif self._no_workers_since is None:
            self._no_workers_since = now
        elif now - self._no_workers_since > WORKERS_TIMEOUT:
            raise RuntimeError(f"the dask cluster has had no worker for {WORKERS_TIMEOUT:g} s")
        return threads

    def _step(self) -> None:
        """Wait for the next event (or deadline), then handle everything that is ready."""
        try:
            items = [self._events.get(timeout=self._wait_for())]
        except queue.Empty:
            items = []
        while True:
            try:
                items.append(self._events.get_nowait())
            except queue.Empty:
                break
        for kind, payload in items:
            if kind == "event":
                self._on_event(payload)
            elif payload in self._flights:
                self._on_finished(self._flights.pop(payload))
        self._check_deadlines()
        if self.client.status not in ("running", "connecting"):
            raise RuntimeError(f"lost the dask scheduler (client {self.client.status})")

    def _wait_for(self) -> float:
        now, wait = time.monotonic(), _TICK
        for f in self._flights.values():
            deadline = self._deadline(f)
            if deadline is not None:
                wait = min(wait, max(0.0, deadline - now))
        return wait

    def _deadline(self, f: _Flight) -> float | None:
        if f.kind == "recover":
            return f.submitted + RECOVERY_TIMEOUT
        if self.timeout is None or f.started is None:
            return None
        return f.started + self.timeout

    def _on_event(self, msg: dict[str, Any]) -> None:
        f = self._flights.get(msg.get("key", ""))
        if f is None or f.kind != "pair":
            return  # a late event of a pair already settled
        job = f.job
        if msg.get("kind") == "start":
            f.started, f.address = time.monotonic(), msg.get("address")
        if self.progress is None:
            return
        if msg.get("kind") == "start" or self._shown != f.future.key:
            self.progress.pair(job.spec.label, job.seed_index, job.seeds)
            self._shown = f.future.key
        if msg.get("kind") == "phase":
            self.progress.phase(str(msg.get("tag")))

    def _on_finished(self, f: _Flight) -> None:
        spec, status = f.job.spec, f.future.status
        exc = f.future.exception() if status == "error" else None
        if f.kind == "recover":
            assert f.run is not None
            if isinstance(exc, KilledWorker) and f.tries < MAX_RECOVERY_TRIES:
                self._recover(f, f.run, retry=f.retry, tries=f.tries + 1)  # another pair's fault
                return
            self._recovered(f, f.run, self._cleanup_of(f), f.retry)
            return
        if status == "finished":
            run = PairRun.read(Reader(f.future.result(), f"pair {spec.label} seed {spec.seed}"))
            run.warnings[:0] = f.notes
            if f.attempt > 1:
                run.worker["attempts"] = f.attempt
            self._finish(f.job, run)
            return
        if isinstance(exc, KilledWorker) and f.started is None and f.requeues < MAX_REQUEUES:
            lost = getattr(exc.last_worker, "address", None)
            self._submit_pair(f.job, f.attempt, [
                *f.notes, f"queued on worker {lost}, which died before the pair started; "
                "queued again"], f.requeues + 1)
            return
        if isinstance(exc, KilledWorker):
            f.address = f.address or getattr(exc.last_worker, "address", None)
            run = PairRun(seed=spec.seed, status="failed", warnings=list(f.notes),
                          error=f"the worker running the pair died ({f.address})",
                          seconds=time.monotonic() - (f.started or f.submitted),
                          worker={"address": f.address, "attempts": f.attempt})
            self._recover(f, run, retry=f.attempt < MAX_ATTEMPTS)
            return
        error = (f"{type(exc).__name__}: {exc}" if exc is not None
                 else f"the dask task ended {status}")
        tb = None
        with contextlib.suppress(Exception):
            tb = "".join(traceback.format_tb(f.future.traceback())) or None
        self._finish(f.job, PairRun(seed=spec.seed, status="failed", error=error, traceback=tb,
                                    warnings=list(f.notes), worker={"address": f.address}))

    def _cleanup_of(self, f: _Flight) -> Cleanup:
        spec = f.job.spec
        if f.future.status == "finished":
            return Cleanup.read(Reader(f.future.result(), "cleanup"))
        exc = f.future.exception() if f.future.status == "error" else None
        error = f"{type(exc).__name__}: {exc}" if exc else f"cleanup task {f.future.status}"
        return lost_cleanup(spec, error)

    def _check_deadlines(self) -> None:
        now = time.monotonic()
        for key, f in list(self._flights.items()):
            deadline = self._deadline(f)
            if deadline is None or now < deadline:
                continue
            del self._flights[key]
            f.future.cancel()
            if f.kind == "recover":
                assert f.run is not None
                host = _host(f.address) or "any host"
                why = f"no worker on {host} finished the cleanup in {RECOVERY_TIMEOUT:g} s"
                self._recovered(f, f.run, lost_cleanup(f.job.spec, why), retry=False)
                continue
            notes = [*f.notes, *self._restart([f.address])]
            run = PairRun(seed=f.job.spec.seed, status="timeout", warnings=notes,
                          error=f"timeout: no result after {self.timeout:g} s; worker restarted",
                          seconds=now - (f.started or now),
                          worker={"address": f.address, "attempts": f.attempt})
            self._recover(f, run, retry=False)

    def _restart(self, addresses: Sequence[str | None]) -> list[str]:
        """Restart these workers through their nannies (stopping what they run)."""
        todo = [a for a in addresses if a]
        if not todo:
            return []
        try:
            got = self.client.restart_workers(todo, timeout=RESTART_TIMEOUT,
                                              raise_for_error=False)
        except Exception as exc:
            return [f"restarting worker(s) {', '.join(todo)} failed: {type(exc).__name__}: {exc}"]
        return [f"worker {a}: restart {s}" for a, s in sorted(got.items()) if s != "OK"]

    def _abort(self) -> None:
        """Ctrl-C (or a lost scheduler): cancel everything, stop the pairs that run,
        and remove their items, so that ``--resume`` starts from clean stores."""
        flights = list(self._flights.values())
        self._flights = {}
        running = [f for f in flights if f.kind == "pair" and f.started is not None]
        with contextlib.suppress(Exception):
            self.client.cancel([f.future for f in flights], force=True)
        if self.cluster is not None:  # its workers share this host: stop them, clean here
            self._close_cluster()
            for f in running:
                spec = f.job.spec.to_dict()
                call_here(lambda s=spec: dask_worker.recover_pair(s, self.keep_work,
                                                                   plugins=self.plugins),
                          RECOVERY_TIMEOUT)
            return
        self._restart([f.address for f in running])
        cleanups = []
        for f in running:
            host = _host(f.address)
            cleanups.append(self.client.submit(
                dask_worker.recover_pair, f.job.spec.to_dict(), self.keep_work, pure=False,
                priority=1 << 30, workers=[host] if host else None, allow_other_workers=False))
        with contextlib.suppress(Exception):
            distributed.wait(cleanups, timeout=RECOVERY_TIMEOUT)

    # -- closing --------------------------------------------------------------------

    def _close_cluster(self) -> None:
        if self.client is not None:
            with contextlib.suppress(Exception):
                self.client.close(timeout=10)
        if self.cluster is not None:
            with contextlib.suppress(Exception):
                self.cluster.close(timeout=30)
        if self._config is not None:
            self._config.__exit__(None, None, None)
            self._config = None
        if self._environ is not None:  # undo what the nannies wrote into os.environ
            os.environ.clear()
            os.environ.update(self._environ)
            self._environ = None

    def close(self) -> None:
        client = self.client
        if client is not None and client.status == "running":
            with contextlib.suppress(Exception):
                for topic in self._topics:
                    client.unsubscribe_topic(topic)
            if not self.keep_work:
                for run_id in self._run_ids:
                    with contextlib.suppress(Exception):
                        client.run(dask_worker.remove_run_root, run_id)
            if self.cluster is None:
                with contextlib.suppress(Exception):
                    client.unregister_worker_plugin(dask_worker.PRELOAD_PLUGIN)
        self._close_cluster()
        if self.cluster is not None and not self.keep_work:
            for run_id in self._run_ids:  # a worker that died left its pair's workdir here
                dask_worker.remove_run_root(run_id)
