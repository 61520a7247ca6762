"""Runs every (backend, seed) pair, each on an empty store of its own, and
assembles the result file after each finished pair."""

from __future__ import annotations

import secrets
import shutil
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memory_bench.backend import BackendContext
from memory_bench.data import ScenarioData
from memory_bench.generators import generate
from memory_bench.metrics import compute_metrics
from memory_bench.phases import run_phases
from memory_bench.progress import Progress
from memory_bench.result import SCHEMA, now_iso, summarize_backends, write_result
from memory_bench.scenario import Scenario
from memory_bench.selection import BackendSelection

__all__ = ["RunConfig", "new_run_id", "run_benchmark", "run_pair"]


def new_run_id() -> str:
    """Sortable and unique: UTC time plus random hex."""
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%S") + "-" + secrets.token_hex(2)


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


def run_pair(
    sel: BackendSelection,
    scenario: Scenario,
    data: ScenarioData,
    *,
    run_id: str,
    cache_dir: Path | None,
    progress: Progress | None = None,
    keep_work: bool = False,
) -> dict[str, Any]:
    """One (backend, seed) on a fresh store: status, error, metrics and records.

    A backend that raises is recorded as ``failed`` with its error; its items are
    removed and the count checked on failure too.
    """
    workdir = Path(tempfile.mkdtemp(prefix=f"memory-bench-{sel.info.name}-s{data.seed}-"))
    prefix = f"bench-{data.run}-"
    out: dict[str, Any] = {"seed": data.seed, "status": "ok", "error": None}
    t0 = time.perf_counter()
    backend = None
    records = None
    try:
        ctx = BackendContext(workdir=workdir, seed=data.seed, run_id=run_id, cache_dir=cache_dir)
        backend = sel.info.factory(dict(sel.options), ctx)
        records = run_phases(
            backend,
            sel.info.capabilities,
            scenario,
            data,
            on_phase=progress.phase if progress else None,
        )
    except Exception as exc:
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
        if not keep_work:
            shutil.rmtree(workdir, ignore_errors=True)
    out["seconds"] = time.perf_counter() - t0
    if records is not None and out["status"] == "ok":
        out["metrics"] = compute_metrics(records, sel.info.capabilities)
        out["records"] = records.to_dict()
    return out


def _cleanup(backend: Any, prefix: str) -> dict[str, Any]:
    """Remove this run's items and check that none is left (METHOD.md §4)."""
    try:
        removed = backend.remove(prefix)
        left = backend.count(prefix)
        return {"prefix": prefix, "removed": removed, "left": left, "ok": left == 0}
    except Exception as exc:
        return {"prefix": prefix, "ok": False, "error": f"{type(exc).__name__}: {exc}"}


def _new_result(cfg: RunConfig) -> dict[str, Any]:
    return {
        "schema": SCHEMA,
        "run_id": cfg.run_id,
        "status": "running",
        "started_at": now_iso(),
        "finished_at": None,
        "scenario": {**cfg.scenario.to_dict(), "data_hashes": {}},
        "seeds": list(cfg.seeds),
        "manifest": cfg.manifest,
        "backends": [
            {
                "label": s.label,
                "spec": s.spec,
                **s.info.to_dict(),
                "options": s.options,
                "declared_options": [o.to_dict() for o in s.info.options],
                "runs": [],
                "summary": {},
            }
            for s in cfg.selections
        ],
    }


def run_benchmark(cfg: RunConfig, progress: Progress | None = None) -> dict[str, Any]:
    """Every pair, seed by seed; the result file is rewritten after each pair."""
    result = _new_result(cfg)
    by_label = {b["label"]: b for b in result["backends"]}
    write_result(cfg.out, result)
    try:
        for si, seed in enumerate(cfg.seeds):
            raw = generate(cfg.scenario, seed)
            result["scenario"]["data_hashes"][str(seed)] = raw.items_hash()
            data = raw.bind(f"{cfg.run_id}-s{seed}")
            for sel in cfg.selections:
                if progress:
                    progress.pair(sel.label, si, len(cfg.seeds))
                pair = run_pair(
                    sel,
                    cfg.scenario,
                    data,
                    run_id=cfg.run_id,
                    cache_dir=cfg.cache_dir,
                    progress=progress,
                    keep_work=cfg.keep_work,
                )
                pair["data_hash"] = result["scenario"]["data_hashes"][str(seed)]
                by_label[sel.label]["runs"].append(pair)
                summarize_backends(result)
                write_result(cfg.out, result)
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
