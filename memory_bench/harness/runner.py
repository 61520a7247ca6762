"""Runs every (backend, seed) pair, each on an empty store of its own.

Each pair is a plain-data :class:`~memory_bench.harness.pair.PairSpec`, handed
to an executor (``executors.py``): by default each runs in a forked child with
a timeout, so a backend that raises is ``failed`` with its error, one that
overruns is ``timeout``, one that kills its process is ``failed`` with the
signal, and every other pair still runs; the ``local`` executor runs pairs in
this process. Live stores are checked before the first pair and after the
last (``livestore.py``).

Each finished pair is written as its own file in the run's pair directory
(``<result>.pairs/``); the result file is written when the run starts and
reduced from the pairs when it ends: by the runner when it is interrupted or
fails, by the session (after the one analysis) when it completes, so a run never
rewrites a document of several MB after every pair, nor twice at its end. The runner never knows
which backend or scenario it runs: only pair specs, the Backend protocol, the
declared capabilities and the optional ``preload``.
"""

from __future__ import annotations

import os
import secrets
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memory_bench import interrupts
from memory_bench.harness import livestore, workdirs
from memory_bench.harness.executors import RECOVERY_TIMEOUT, Executor, Job, make_executor
from memory_bench.harness.executors.cost import expected_seconds
from memory_bench.harness.isolation import DEFAULT_TIMEOUT
from memory_bench.harness.leakscan import CONTINUAL_GENERATORS, LEAK_SCAN_ENV, quick_scan
from memory_bench.harness.pair import PairSpec, generate_script, pair_prefix
from memory_bench.harness.progress import Progress
from memory_bench.harness.vectors import ENCODE_MODES, Tables, build_tables, plan_vectors
from memory_bench.harness.workdirs import WorkRoot
from memory_bench.metrics.latency import qualify_latency
from memory_bench.plugins.manager import LoadedPlugins
from memory_bench.plugins.selection import BackendSelection
from memory_bench.results.io import now_iso, write_result
from memory_bench.results.model import BackendEntry, PairRun, Result, ScenarioBlock
from memory_bench.results.pairs import pairs_dir_for, store_pair, write_pair_file
from memory_bench.results.redact import redact_result, redact_run
from memory_bench.scenarios.script import merge_exposure
from memory_bench.scenarios.spec import ScenarioSpec

__all__ = ["DEFAULT_TIMEOUT", "RunConfig", "new_run_id", "pair_prefix", "run_benchmark"]

ISOLATION_ALIASES = {"process": "process", "none": "local"}  # --isolation, kept as an alias


def new_run_id() -> str:
    """Sortable and unique: UTC time plus random hex."""
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%S") + "-" + secrets.token_hex(2)


@dataclass
class RunConfig:
    plugins: LoadedPlugins
    selections: list[BackendSelection]
    scenario: ScenarioSpec
    seeds: list[int]
    out: Path
    run_id: str = field(default_factory=new_run_id)
    cache_dir: Path | None = None
    manifest: dict[str, Any] = field(default_factory=dict)
    keep_work: bool = False
    isolation: str | None = None  # process | none: the older name of the executor
    executor: str = "process"  # process | local | dask (see executors.py)
    workers: int | None = None  # process: pairs at once; dask: a local cluster's workers
    scheduler: str | None = None  # dask: the address of an existing scheduler
    timeout: float | None = DEFAULT_TIMEOUT  # per pair, where the executor can enforce it
    clean_stale: bool = False  # remove other runs' bench- items from live stores
    # once: each seed's distinct texts encoded once per embedder identity, into a table
    # every backend of that identity reads; per-backend: each backend encodes its own
    encode: str = "once"

    def __post_init__(self) -> None:
        if self.encode not in ENCODE_MODES:
            raise ValueError(f"encode must be one of {', '.join(ENCODE_MODES)}")
        if self.isolation is not None:
            if self.isolation not in ISOLATION_ALIASES:
                raise ValueError(f"isolation must be one of {', '.join(ISOLATION_ALIASES)}")
            self.executor = ISOLATION_ALIASES[self.isolation]

    def spec(self, index: int, sel: BackendSelection, seed: int,
             tables: Tables | None = None, identity: str | None = None) -> PairSpec:
        vectors, encode_ms = tables.for_pair(seed, identity) if tables else ({}, {})
        return PairSpec(run_id=self.run_id, index=index, label=sel.label, backend=sel.spec,
                        scenario=self.scenario.ref(), seed=seed,
                        cache_dir=None if self.cache_dir is None else str(self.cache_dir),
                        vectors=vectors, encode_ms=encode_ms)


def backend_entry(s: BackendSelection) -> BackendEntry:
    info = s.info
    return BackendEntry(
        label=s.label, spec=s.spec, name=info.name, version=info.version,
        description=info.description, capabilities=sorted(c.value for c in s.capabilities),
        options=dict(s.options), declared_options=[o.to_dict() for o in info.options],
        plugin=info.plugin, notes=list(info.notes), libraries=list(info.libraries),
        reads=list(s.reads), tuned_on={k: list(v) for k, v in info.tuned_on},
    )


def _execution(cfg: RunConfig, ex: Executor) -> dict[str, Any]:
    return {**ex.describe(), "clean_stale": cfg.clean_stale,
            "cache": "off" if cfg.cache_dir is None else "on", "encode": cfg.encode}


def _new_result(cfg: RunConfig, ex: Executor) -> Result:
    s = cfg.scenario
    gen = cfg.plugins.scenarios.get(s.generator)
    assert gen is not None, s.generator
    return Result(
        run_id=cfg.run_id, status="running", started_at=now_iso(),
        scenario=ScenarioBlock(name=s.name, generator=s.generator, params=dict(s.params),
                               description=s.description, seeds=s.seeds,
                               seed_base=s.seed_base, generator_version=gen.version,
                               plugin=gen.plugin),
        seeds=list(cfg.seeds), manifest=cfg.manifest, execution=_execution(cfg, ex),
        backends=[backend_entry(sel) for sel in cfg.selections],
        metrics=qualify_latency([m.spec for m in gen.metrics], cfg.encode),
        pairs=pairs_dir_for(cfg.out).name,
    )


def _resumed(cfg: RunConfig, ex: Executor, result: Result) -> Result:
    """An interrupted result, reopened: finished pairs stay, the rest will run."""
    result.status, result.finished_at, result.error = "running", None, None
    result.resumes.append({"at": now_iso(), "command": cfg.manifest.get("command"),
                           **_execution(cfg, ex)})
    have = {b.label for b in result.backends}
    result.backends += [backend_entry(s) for s in cfg.selections if s.label not in have]
    result.pairs = result.pairs or pairs_dir_for(cfg.out).name
    return result


def _caveats(cfg: RunConfig, result: Result) -> list[str]:
    gen = cfg.plugins.scenarios.get(cfg.scenario.generator)
    if gen is None or gen.caveats is None:
        return []
    try:
        return [str(c) for c in gen.caveats(dict(cfg.scenario.params),
                                            result.scenario.data_stats)]
    except Exception as exc:  # a plugin's bug must not lose the run's results
        return [f"The generator's caveats could not be written ({type(exc).__name__}: {exc})."]


def _cost(job: Job) -> float:
    """A pair's expected seconds (the executors' longest-first figures), for the ETA."""
    return expected_seconds(job.spec.label, job.selection.info.name)


def _pending(cfg: RunConfig, result: Result, ex: Executor, root: Path | None,
             progress: Progress | None = None) -> list[Job]:
    """Jobs for every pair without an ok run, seed by seed; each seed's script is
    generated here first (its hash and stats go in the result; forked children
    inherit it). With ``encode="once"``, the seeds' vector tables are built next, in
    a child, before any pair runs (``vectors.py``)."""
    by_label = {b.label: b for b in result.backends}
    todo: list[tuple[int, int, BackendSelection]] = []
    scripts = {}
    for si, seed in enumerate(cfg.seeds):
        script = generate_script(cfg.plugins, cfg.scenario.ref(), seed)
        result.scenario.data_hashes[str(seed)] = script.data_hash
        result.scenario.data_stats[str(seed)] = script.stats
        result.scenario.exposure = merge_exposure(result.scenario.exposure, script.exposure())
        for index, sel in enumerate(cfg.selections):
            done = by_label[sel.label].run_for(seed)
            if done is None or not done.ok:
                todo.append((si, index, sel))
                scripts[seed] = script
    if not result.scenario.leak_scan and cfg.scenario.generator in CONTINUAL_GENERATORS \
            and os.environ.get(LEAK_SCAN_ENV, "on") != "off":
        # The small learned leak scan, once per run (seconds): the report quotes it.
        # MEMORY_BENCH_LEAK_SCAN=off skips it (the test suite's hundreds of tiny runs).
        result.scenario.leak_scan = quick_scan(cfg.plugins, cfg.scenario.name,
                                               cfg.scenario.ref())
    tables, plan = None, None
    if cfg.encode == "once" and root is not None:
        plan = plan_vectors([sel for _, _, sel in todo])
        if plan.sources:
            parts = min(ex.table_parts, len(scripts))
            if progress:
                progress.note(f"encoding once: {len(scripts)} seed(s)' texts and questions "
                              f"for {len(plan.sources)} encoder(s) shared by "
                              f"{len(plan.readers)} row(s), {parts} child(ren) at once")
            tables = build_tables(plan, scripts, root, cfg.cache_dir,
                                  lambda fn: ex.call(fn, cfg.timeout), parts=parts)
            result.execution["encoders"] = {
                info["label"]: info for info in tables.encoders.values()}
            errors = {**plan.errors, **{i: e for i, e in tables.errors.items()}}
            if errors:
                result.execution["encoder_errors"] = errors
    return [Job(cfg.spec(index, sel, cfg.seeds[si], tables,
                         plan.readers.get(sel.label) if plan else None),
                sel, si, len(cfg.seeds)) for si, index, sel in todo]


def run_benchmark(cfg: RunConfig, progress: Progress | None = None, *,
                  resume: Result | None = None, executor: Executor | None = None) -> Result:
    """Every pair; each finished pair is written as its own file as it arrives.

    ``resume`` is an interrupted result (checked by ``resume.py``): its ``ok``
    pairs are kept and not run again, the others run, and the same file is
    rewritten. Raises StaleStoreError, before anything is written, when a live
    store holds another run's items and ``cfg.clean_stale`` is not set. A new
    run's result file is created exclusively (FileExistsError if it exists); the
    caller holds the result's lock (``lock.ResultLock``) for the run's life.
    Workdirs live in one temporary root, removed at the end; roots left by runs
    that were killed are removed first (``workdirs.py``).
    """
    workdirs.sweep()
    with WorkRoot(keep=cfg.keep_work) as root:
        ex = executor or make_executor(cfg.executor, cfg.plugins, progress,
                                       keep_work=cfg.keep_work, timeout=cfg.timeout,
                                       work_root=root.path, workers=cfg.workers,
                                       scheduler=cfg.scheduler)
        try:
            return _run(cfg, ex, progress, resume, root.path)
        finally:
            ex.close()


@contextmanager
def _signals_deferred() -> Iterator[None]:
    """Ctrl-C and SIGTERM wait until the block ends (a second Ctrl-C must not stop the
    write that records the first); the interrupt is raised then."""
    got: list[int] = []
    try:
        old = {s: signal.signal(s, lambda signum, frame: got.append(signum))
               for s in interrupts.SIGNALS}
    except ValueError:  # not the main thread: signals are not ours to handle
        yield
        return
    try:
        yield
    finally:
        for s, handler in old.items():
            signal.signal(s, handler)
        if got:
            raise KeyboardInterrupt


def _finish(cfg: RunConfig, result: Result) -> None:
    """Close the record of the run. A run that stopped early is written here (the
    session that asked for it will not get to); a complete one is analysed and
    written once by the session (``memory_bench.session.pipeline``)."""
    result.finished_at = now_iso()
    result.scenario.caveats = _caveats(cfg, result)
    redact_result(result)
    if result.status != "complete":
        write_result(cfg.out, result)


def _run(cfg: RunConfig, ex: Executor, progress: Progress | None,
         resume: Result | None, root: Path | None = None) -> Result:
    if progress:
        progress.note(f"preloading {len(cfg.selections)} backend(s): models load (and export "
                      "to ONNX the first time) here, once")
    signals = interrupts.received()
    preload_errors = ex.preload(cfg.selections, cfg.cache_dir)
    stores = livestore.before_run(
        cfg.selections, run_id=cfg.run_id, cache_dir=cfg.cache_dir,
        clean_stale=cfg.clean_stale, isolate=lambda fn: ex.call(fn, cfg.timeout), root=root,
    )
    interrupts.pending(signals)  # the user's, swallowed by library code in a preload
    result = _new_result(cfg, ex) if resume is None else _resumed(cfg, ex, resume)
    result.preload_errors.update(preload_errors)
    result.live_stores.update(stores)
    by_label = {b.label: b for b in result.backends}
    pairs_dir = pairs_dir_for(cfg.out)
    pairs_dir.mkdir(parents=True, exist_ok=True)

    def done(job: Job, run: PairRun) -> None:
        redact_run(run)  # no path of this machine in a traceback that is published
        run.data_hash = result.scenario.data_hashes[str(job.spec.seed)]
        run.data_stats = None  # kept once per seed in the scenario block
        write_pair_file(pairs_dir, job.spec.index, job.spec.label, run)
        store_pair(by_label[job.spec.label], run, cfg.seeds)
        if progress:
            progress.pair_done(f"[{job.spec.label}] seed {job.seed_index + 1}/{job.seeds}",
                               run.status, run.seconds, cost=_cost(job))
        interrupts.pending(signals)  # one the parent lost while this pair ran: stop here

    with _signals_deferred():
        write_result(cfg.out, result, exclusive=resume is None)
    try:
        jobs = _pending(cfg, result, ex, root, progress)
        if progress:
            progress.plan(len(jobs), sum(_cost(job) for job in jobs))
        ex.run(jobs, done)
        interrupts.pending(signals)
        livestore.after_run(
            cfg.selections, result.live_stores, run_id=cfg.run_id, cache_dir=cfg.cache_dir,
            isolate=lambda fn: ex.call(fn, RECOVERY_TIMEOUT), root=root,
        )
        result.status = "complete"
    except KeyboardInterrupt:
        result.status = "interrupted"
        raise
    except BaseException as exc:
        result.status, result.error = "failed", f"{type(exc).__name__}: {exc}"
        raise
    finally:
        if progress:
            progress.done()
        with _signals_deferred():
            _finish(cfg, result)
    return result
