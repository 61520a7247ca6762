"""Runs every (backend, seed) pair, each on an empty store of its own, and
rewrites the result file (atomically) after each finished pair.

With ``isolation="process"`` (the default) each pair runs in a forked child with
a timeout (memory_bench.isolation): a backend that raises is ``failed`` with its
error, one that overruns is ``timeout``, one that kills its process is
``failed`` with the signal; every other pair still runs. When a child could not
clean up after itself, the parent does: a persistent backend's store is opened
again with the same options and workdir and this pair's items removed and
counted; any other backend's store was the child's memory or its workdir, which
is deleted. ``isolation="none"`` runs pairs in this process (to measure what
isolation costs, or to debug): no timeout, and a crash ends the run. A process
that already ran the embedding model cannot be forked safely; it runs pairs
in-process and the result's ``execution`` says so.

The runner never knows which backend it talks to: only the Backend protocol,
the declared capabilities and the optional ``preload``.
"""

from __future__ import annotations

import secrets
import shutil
import sys
import tempfile
import time
import traceback
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memory_bench import livestore
from memory_bench.backend import BackendContext
from memory_bench.capabilities import Capability
from memory_bench.data import ScenarioData
from memory_bench.generators import generate
from memory_bench.isolation import DEFAULT_TIMEOUT, ISOLATION_MODES, fork_available, run_forked
from memory_bench.metrics import compute_metrics
from memory_bench.phases import run_phases
from memory_bench.progress import Progress
from memory_bench.result import SCHEMA, now_iso, summarize_backends, write_result
from memory_bench.scenario import Scenario
from memory_bench.selection import BackendSelection

__all__ = [
    "DEFAULT_TIMEOUT",
    "RunConfig",
    "new_run_id",
    "pair_prefix",
    "run_benchmark",
    "run_pair",
]

RECOVERY_TIMEOUT = 120.0  # seconds to reopen a killed pair's store and remove its items


def new_run_id() -> str:
    """Sortable and unique: UTC time plus random hex."""
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%S") + "-" + secrets.token_hex(2)


def pair_prefix(run: str) -> str:
    """The id prefix of one pair's items: ``bench-<run id>-s<seed>-``."""
    return f"bench-{run}-"


@dataclass
class RunConfig:
    selections: list[BackendSelection]
    scenario: Scenario
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


def run_pair(
    sel: BackendSelection,
    scenario: Scenario,
    data: ScenarioData,
    *,
    workdir: Path,
    run_id: str,
    cache_dir: Path | None,
    on_phase: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """One (backend, seed) on a fresh store in ``workdir``: status, error, metrics, records.

    A backend that raises is recorded as ``failed`` with its error; its items are
    removed and the count checked on failure too. The caller owns ``workdir``.
    """
    prefix = pair_prefix(data.run)
    out: dict[str, Any] = {"seed": data.seed, "status": "ok", "error": None}
    t0 = time.perf_counter()
    backend = None
    records = None
    try:
        ctx = BackendContext(workdir=workdir, seed=data.seed, run_id=run_id, cache_dir=cache_dir)
        backend = sel.info.factory(dict(sel.options), ctx)
        records = run_phases(backend, sel.info.capabilities, scenario, data, on_phase=on_phase)
    except (Exception, SystemExit) as exc:
        out["status"] = "failed"
        out["error"] = f"{type(exc).__name__}: {exc}"
        out["traceback"] = traceback.format_exc(limit=20)
    finally:
        if backend is not None:
            cleanup = _cleanup(backend, prefix)
            if records is not None:
                records.cleanup = cleanup
            out["cleanup"] = cleanup
            try:
                backend.close()
            except Exception as exc:  # a failing close is reported, not fatal
                out.setdefault("warnings", []).append(f"close: {type(exc).__name__}: {exc}")
    out["seconds"] = time.perf_counter() - t0
    if records is not None and out["status"] == "ok":
        out["metrics"] = compute_metrics(records, sel.info.capabilities)
        out["records"] = records.to_dict()
    return out


def _cleanup(backend: Any, prefix: str) -> dict[str, Any]:
    """Remove this pair's items and check that none is left (METHOD.md §4)."""
    try:
        removed = backend.remove(prefix)
        left = backend.count(prefix)
        return {"prefix": prefix, "removed": removed, "left": left, "ok": left == 0}
    except Exception as exc:
        return {"prefix": prefix, "ok": False, "error": f"{type(exc).__name__}: {exc}"}


def _reopen_and_clean(
    sel: BackendSelection, workdir: Path, data: ScenarioData, run_id: str, cache_dir: Path | None
) -> dict[str, Any]:
    """The parent's cleanup for a child that could not: same options, same workdir."""
    ctx = BackendContext(workdir=workdir, seed=data.seed, run_id=run_id, cache_dir=cache_dir)
    backend = sel.info.factory(dict(sel.options), ctx)
    try:
        return {**_cleanup(backend, pair_prefix(data.run)), "by": "harness, store reopened"}
    finally:
        backend.close()


def fork_unsafe_reason() -> str | None:
    """Why forking this process would hang a child, or None.

    A process that ran torch inference has thread pools that do not survive a
    fork: a child using the model would wait forever. The CLI never runs the
    model in the harness process; a library caller (a test) may have.
    """
    embedding = sys.modules.get("memory_bench.embedding")
    if embedding is not None and embedding.ran_inference_here():
        return ("this process ran the embedding model before the run, so forking it is "
                "unsafe; pairs ran in-process (no timeout)")
    return None


class _Executor:
    """Runs work for the runner in the configured isolation mode.

    Process isolation falls back to in-process when forking is unsafe, and the
    result file's ``execution`` says so.
    """

    def __init__(self, cfg: RunConfig, progress: Progress | None) -> None:
        self.cfg = cfg
        self.progress = progress
        self.fallback = fork_unsafe_reason() if cfg.isolation == "process" else None
        if self.fallback:
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

    def pair(self, sel: BackendSelection, data: ScenarioData) -> dict[str, Any]:
        cfg = self.cfg
        workdir = Path(tempfile.mkdtemp(prefix=f"memory-bench-{sel.info.name}-s{data.seed}-"))
        on_phase = self.progress.phase if self.progress else None
        try:
            if not self.isolated:
                return run_pair(sel, cfg.scenario, data, workdir=workdir, run_id=cfg.run_id,
                                cache_dir=cfg.cache_dir, on_phase=on_phase)
            try:
                outcome = run_forked(
                    lambda send: run_pair(sel, cfg.scenario, data, workdir=workdir,
                                          run_id=cfg.run_id, cache_dir=cfg.cache_dir,
                                          on_phase=send),
                    timeout=cfg.timeout,
                    on_message=on_phase,
                )
            except BaseException:  # Ctrl-C: the child is dead; leave no items behind
                self._recover(sel, workdir, data)
                raise
            if outcome.status == "ok":
                return outcome.value
            pair = {
                "seed": data.seed,
                "status": "timeout" if outcome.status == "timeout" else "failed",
                "error": outcome.error,
                "seconds": outcome.seconds,
            }
            if outcome.traceback:
                pair["traceback"] = outcome.traceback
            pair["cleanup"] = self._recover(sel, workdir, data)
            return pair
        finally:
            if not cfg.keep_work:
                shutil.rmtree(workdir, ignore_errors=True)

    def _recover(self, sel: BackendSelection, workdir: Path, data: ScenarioData) -> dict[str, Any]:
        prefix = pair_prefix(data.run)
        if not sel.info.has(Capability.PERSISTENT):
            return {"prefix": prefix, "ok": True,
                    "by": "harness: the store died with its process; workdir deleted"}
        cfg = self.cfg
        timeout = RECOVERY_TIMEOUT if cfg.timeout is None else min(cfg.timeout, RECOVERY_TIMEOUT)
        got = self.call(
            lambda: _reopen_and_clean(sel, workdir, data, cfg.run_id, cfg.cache_dir), timeout
        )
        if got["status"] == "ok":
            return got["value"]
        return {"prefix": prefix, "ok": False, "by": "harness, store reopened",
                "error": got["error"]}


def _backend_entry(s: BackendSelection) -> dict[str, Any]:
    return {
        "label": s.label,
        "spec": s.spec,
        **s.info.to_dict(),
        "options": s.options,
        "declared_options": [o.to_dict() for o in s.info.options],
        "runs": [],
        "summary": {},
    }


def _new_result(cfg: RunConfig, ex: _Executor) -> dict[str, Any]:
    return {
        "schema": SCHEMA,
        "run_id": cfg.run_id,
        "status": "running",
        "started_at": now_iso(),
        "finished_at": None,
        "scenario": {**cfg.scenario.to_dict(), "data_hashes": {}, "data_stats": {}},
        "seeds": list(cfg.seeds),
        "manifest": cfg.manifest,
        "execution": _execution(cfg, ex),
        "backends": [_backend_entry(s) for s in cfg.selections],
    }


def _execution(cfg: RunConfig, ex: _Executor) -> dict[str, Any]:
    out: dict[str, Any] = {
        "isolation": "process" if ex.isolated else "none",
        "timeout_s": cfg.timeout if ex.isolated else None,
        "clean_stale": cfg.clean_stale,
    }
    if ex.fallback:
        out["isolation_requested"] = cfg.isolation
        out["isolation_note"] = ex.fallback
    return out


def _resumed(cfg: RunConfig, ex: _Executor, result: dict[str, Any]) -> dict[str, Any]:
    """An interrupted result, reopened: finished pairs stay, the rest will run."""
    result["status"] = "running"
    result["finished_at"] = None
    result.setdefault("resumes", []).append(
        {"at": now_iso(), "command": cfg.manifest.get("command"), **_execution(cfg, ex)}
    )
    have = {b["label"] for b in result["backends"]}
    result["backends"] += [_backend_entry(s) for s in cfg.selections if s.label not in have]
    return result


def _done(entry: dict[str, Any], seed: int) -> bool:
    return any(r.get("seed") == seed and r.get("status") == "ok" for r in entry["runs"])


def _store_pair(entry: dict[str, Any], pair: dict[str, Any], seeds: list[int]) -> None:
    """Put a pair's run in its backend's list, replacing an earlier failed one; seed order."""
    runs = [r for r in entry["runs"] if r.get("seed") != pair["seed"]] + [pair]
    order = {s: i for i, s in enumerate(seeds)}
    entry["runs"] = sorted(runs, key=lambda r: order.get(r.get("seed"), len(order)))


def run_benchmark(
    cfg: RunConfig,
    progress: Progress | None = None,
    *,
    resume: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Every pair, seed by seed; the result file is rewritten after each pair.

    ``resume`` is an interrupted result (checked by memory_bench.resume): its
    ``ok`` pairs are kept and not run again, the others run, and the same file
    is rewritten. Raises StaleStoreError, before anything is written, when a live
    store holds another run's items and ``cfg.clean_stale`` is not set.
    """
    ex = _Executor(cfg, progress)
    preload_errors = ex.preload()
    stores = livestore.before_run(
        cfg.selections, run_id=cfg.run_id, cache_dir=cfg.cache_dir,
        clean_stale=cfg.clean_stale, isolate=lambda fn: ex.call(fn, cfg.timeout),
    )
    result = _new_result(cfg, ex) if resume is None else _resumed(cfg, ex, resume)
    if preload_errors:
        result["preload_errors"] = preload_errors
    if stores:
        result.setdefault("live_stores", {}).update(stores)
    by_label = {b["label"]: b for b in result["backends"]}
    write_result(cfg.out, result)
    try:
        for si, seed in enumerate(cfg.seeds):
            raw = generate(cfg.scenario, seed)
            result["scenario"]["data_hashes"][str(seed)] = raw.items_hash()
            result["scenario"]["data_stats"][str(seed)] = raw.stats
            data = raw.bind(f"{cfg.run_id}-s{seed}")
            for sel in cfg.selections:
                if _done(by_label[sel.label], seed):
                    continue
                if progress:
                    progress.pair(sel.label, si, len(cfg.seeds))
                pair = ex.pair(sel, data)
                pair["data_hash"] = result["scenario"]["data_hashes"][str(seed)]
                _store_pair(by_label[sel.label], pair, cfg.seeds)
                summarize_backends(result)
                write_result(cfg.out, result)
        livestore.after_run(
            cfg.selections, result.setdefault("live_stores", {}), run_id=cfg.run_id,
            cache_dir=cfg.cache_dir, isolate=lambda fn: ex.call(fn, RECOVERY_TIMEOUT),
        )
        if not result["live_stores"]:
            del result["live_stores"]
        result["status"] = "complete"
    except KeyboardInterrupt:
        result["status"] = "interrupted"
        raise
    finally:
        if progress:
            progress.done()
        result["finished_at"] = now_iso()
        summarize_backends(result)
        write_result(cfg.out, result)
    return result
