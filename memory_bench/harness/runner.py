"""Runs every (backend, seed) pair, each on an empty store of its own.

Each pair is a plain-data :class:`~memory_bench.harness.pair.PairSpec`. With
``isolation="process"`` (the default) each runs in a forked child with a
timeout (``isolation.py``): a backend that raises is ``failed`` with its error,
one that overruns is ``timeout``, one that kills its process is ``failed`` with
the signal; every other pair still runs. When a child could not clean up after
itself, the parent does: a persistent backend's store is opened again with the
same options and workdir and this pair's items removed and counted; any other
backend's store was the child's memory or its workdir, which is deleted.
``isolation="none"`` runs pairs in this process (to measure what isolation
costs, or to debug): no timeout, and a crash ends the run. A process a library
says must not be forked (``forksafety.py``) runs pairs in-process and the
result's ``execution`` says so.

Each finished pair is written as its own file in the run's pair directory
(``<result>.pairs/``); the result file is written when the run starts and
reduced from the pairs when it ends (or is interrupted), so a run never
rewrites a document of several MB after every pair. The runner never knows
which backend or scenario it runs: only pair specs, the Backend protocol, the
declared capabilities and the optional ``preload``.
"""

from __future__ import annotations

import secrets
import shutil
import tempfile
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memory_bench.analysis.compare import summarize_backends
from memory_bench.contract.backend import BackendContext
from memory_bench.contract.capabilities import Capability
from memory_bench.harness import livestore
from memory_bench.harness.execute import cleanup
from memory_bench.harness.forksafety import fork_unsafe_reason
from memory_bench.harness.isolation import (
    DEFAULT_TIMEOUT,
    ISOLATION_MODES,
    fork_available,
    run_forked,
)
from memory_bench.harness.pair import PairSpec, generate_script, pair_prefix, run_pair
from memory_bench.harness.progress import Progress
from memory_bench.harness.reduce import pairs_dir_for, store_pair, write_pair_file
from memory_bench.plugins.manager import LoadedPlugins
from memory_bench.plugins.selection import BackendSelection
from memory_bench.results.io import now_iso, write_result
from memory_bench.results.model import BackendEntry, Cleanup, PairRun, Result, ScenarioBlock
from memory_bench.scenarios.spec import ScenarioSpec

__all__ = ["DEFAULT_TIMEOUT", "RunConfig", "new_run_id", "pair_prefix", "run_benchmark"]

RECOVERY_TIMEOUT = 120.0  # seconds to reopen a killed pair's store and remove its items


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
    isolation: str = "process"  # process | none
    timeout: float | None = DEFAULT_TIMEOUT  # per pair, process isolation only
    clean_stale: bool = False  # remove other runs' bench- items from live stores

    def __post_init__(self) -> None:
        if self.isolation not in ISOLATION_MODES:
            raise ValueError(f"isolation must be one of {', '.join(ISOLATION_MODES)}")
        if self.isolation == "process" and not fork_available():
            raise ValueError("process isolation needs fork(); use isolation='none'")

    def spec(self, index: int, sel: BackendSelection, seed: int) -> PairSpec:
        return PairSpec(run_id=self.run_id, index=index, label=sel.label, backend=sel.spec,
                        scenario=self.scenario.ref(), seed=seed,
                        cache_dir=None if self.cache_dir is None else str(self.cache_dir))


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


class _Executor:
    """Runs pairs in the configured isolation mode; falls back to in-process when
    a library says this process must not be forked."""

    def __init__(self, cfg: RunConfig, progress: Progress | None) -> None:
        self.cfg = cfg
        self.progress = progress
        self.fallback: str | None = None
        if cfg.isolation == "process":
            reason = fork_unsafe_reason()
            if reason:
                self.fallback = f"{reason}; pairs ran in-process (no timeout)"
                warnings.warn(f"memory-bench: {self.fallback}", RuntimeWarning, stacklevel=3)

    @property
    def isolated(self) -> bool:
        return self.cfg.isolation == "process" and not self.fallback

    def call(self, fn: Callable[[], Any], timeout: float | None) -> dict[str, Any]:
        """``{"status": ok|error|timeout|died, "value"|"error": ...}`` for ``fn()``."""
        if not self.isolated:
            try:
                return {"status": "ok", "value": fn()}
            except Exception as exc:
                return {"status": "error", "error": f"{type(exc).__name__}: {exc}"}
        outcome = run_forked(lambda send: fn(), timeout=timeout)
        if outcome.status == "ok":
            return {"status": "ok", "value": outcome.value}
        return {"status": outcome.status, "error": outcome.error}

    def preload(self) -> dict[str, str]:
        """Each backend's preload, once per distinct options, in this process."""
        errors: dict[str, str] = {}
        done: set[tuple[str, str]] = set()
        for sel in self.cfg.selections:
            key = (sel.info.name, repr(sorted(sel.options.items())))
            if sel.info.preload is None or key in done:
                continue
            done.add(key)
            try:
                sel.info.preload(dict(sel.options), self.cfg.cache_dir)
            except Exception as exc:  # its pairs will fail and say why
                errors[sel.label] = f"{type(exc).__name__}: {exc}"
        return errors

    def pair(self, sel: BackendSelection, spec: PairSpec) -> PairRun:
        cfg = self.cfg
        workdir = Path(tempfile.mkdtemp(prefix=f"memory-bench-{sel.info.name}-s{spec.seed}-"))
        on_tag = self.progress.phase if self.progress else None
        try:
            if not self.isolated:
                return run_pair(spec, plugins=cfg.plugins, workdir=workdir, on_tag=on_tag)
            try:
                outcome = run_forked(
                    lambda send: run_pair(spec, plugins=cfg.plugins, workdir=workdir,
                                          on_tag=send),
                    timeout=cfg.timeout,
                    on_message=on_tag,
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
            if not cfg.keep_work:
                shutil.rmtree(workdir, ignore_errors=True)

    def _recover(self, sel: BackendSelection, workdir: Path, spec: PairSpec) -> Cleanup:
        if not sel.info.has(Capability.PERSISTENT):
            return Cleanup(ok=True, prefix=spec.prefix,
                           by="harness: the store died with its process; workdir deleted")
        cfg = self.cfg
        timeout = RECOVERY_TIMEOUT if cfg.timeout is None else min(cfg.timeout, RECOVERY_TIMEOUT)
        got = self.call(lambda: _reopen_and_clean(sel, workdir, spec), timeout)
        if got["status"] == "ok":
            return got["value"]
        return Cleanup(ok=False, prefix=spec.prefix, by="harness, store reopened",
                       error=got["error"])


def backend_entry(s: BackendSelection) -> BackendEntry:
    info = s.info
    return BackendEntry(
        label=s.label, spec=s.spec, name=info.name, version=info.version,
        description=info.description, capabilities=sorted(c.value for c in info.capabilities),
        options=dict(s.options), declared_options=[o.to_dict() for o in info.options],
        plugin=info.plugin, notes=list(info.notes), libraries=list(info.libraries),
    )


def _execution(cfg: RunConfig, ex: _Executor) -> dict[str, Any]:
    out: dict[str, Any] = {
        "isolation": "process" if ex.isolated else "none",
        "timeout_s": cfg.timeout if ex.isolated else None,
        "clean_stale": cfg.clean_stale,
        "cache": "off" if cfg.cache_dir is None else "on",
    }
    if ex.fallback:
        out["isolation_requested"] = cfg.isolation
        out["isolation_note"] = ex.fallback
    return out


def _new_result(cfg: RunConfig, ex: _Executor) -> Result:
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
        metrics=[m.spec for m in gen.metrics], pairs=pairs_dir_for(cfg.out).name,
    )


def _resumed(cfg: RunConfig, ex: _Executor, result: Result) -> Result:
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


def run_benchmark(cfg: RunConfig, progress: Progress | None = None, *,
                  resume: Result | None = None) -> Result:
    """Every pair, seed by seed; each finished pair is written as its own file.

    ``resume`` is an interrupted result (checked by ``resume.py``): its ``ok``
    pairs are kept and not run again, the others run, and the same file is
    rewritten. Raises StaleStoreError, before anything is written, when a live
    store holds another run's items and ``cfg.clean_stale`` is not set.
    """
    ex = _Executor(cfg, progress)
    preload_errors = ex.preload()
    stores = livestore.before_run(
        cfg.selections, run_id=cfg.run_id, cache_dir=cfg.cache_dir,
        clean_stale=cfg.clean_stale, isolate=lambda fn: ex.call(fn, cfg.timeout),
    )
    result = _new_result(cfg, ex) if resume is None else _resumed(cfg, ex, resume)
    result.preload_errors.update(preload_errors)
    result.live_stores.update(stores)
    by_label = {b.label: b for b in result.backends}
    pairs_dir = pairs_dir_for(cfg.out)
    pairs_dir.mkdir(parents=True, exist_ok=True)
    write_result(cfg.out, result)
    try:
        for si, seed in enumerate(cfg.seeds):
            script = generate_script(cfg.plugins, cfg.scenario.ref(), seed)  # children inherit
            result.scenario.data_hashes[str(seed)] = script.data_hash
            result.scenario.data_stats[str(seed)] = script.stats
            for index, sel in enumerate(cfg.selections):
                entry = by_label[sel.label]
                done = entry.run_for(seed)
                if done is not None and done.ok:
                    continue
                if progress:
                    progress.pair(sel.label, si, len(cfg.seeds))
                run = ex.pair(sel, cfg.spec(index, sel, seed))
                run.data_hash = script.data_hash
                run.data_stats = None  # kept once per seed in the scenario block
                write_pair_file(pairs_dir, index, sel.label, run)
                store_pair(entry, run, cfg.seeds)
        livestore.after_run(
            cfg.selections, result.live_stores, run_id=cfg.run_id, cache_dir=cfg.cache_dir,
            isolate=lambda fn: ex.call(fn, RECOVERY_TIMEOUT),
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
        result.finished_at = now_iso()
        result.scenario.caveats = _caveats(cfg, result)
        summarize_backends(result)
        write_result(cfg.out, result)
    return result
