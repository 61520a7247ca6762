"""One (backend, seed) pair as plain data, and the worker side that runs it.

A :class:`PairSpec` is JSON-serialisable: the backend spec, the scenario
reference (generator and parameters), the seed and the run id. A worker
resolves it by itself (loads plugins, builds the backend, generates the
script), so the same spec runs in a forked child, in this process, or on
another machine. The answer is a :class:`~memory_bench.results.model.PairRun`.
"""

from __future__ import annotations

import gc
import os
import platform
import shutil
import tempfile
import time
import traceback
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from memory_bench import interrupts
from memory_bench.contract.backend import Backend, BackendContext
from memory_bench.errors import RunFailed
from memory_bench.harness.execute import Execution
from memory_bench.metrics.curve import step_curve
from memory_bench.metrics.spec import compute_metrics, compute_outcomes
from memory_bench.plugins.manager import LoadedPlugins, default_plugins
from memory_bench.plugins.selection import BackendSelection, select_backends
from memory_bench.results.model import PairRun
from memory_bench.scenarios.registry import GeneratorInfo
from memory_bench.scenarios.script import Script

__all__ = [
    "GenerationError",
    "PairSpec",
    "generate_script",
    "pair_prefix",
    "process_plugins",
    "resolve_backend",
    "run_pair",
]


class GenerationError(RunFailed):
    """A generator failed to make (or made an unusable) script for a seed."""


def pair_prefix(run_id: str, seed: int) -> str:
    """The id prefix of one pair's items: ``bench-<run id>-s<seed>-``."""
    return f"bench-{run_id}-s{seed}-"


@dataclass(frozen=True)
class PairSpec:
    """Everything a worker needs to run one pair, as plain data."""

    run_id: str
    index: int  # the backend's position in the run: its pair files are named by it
    label: str
    backend: str  # NAME or NAME:key=value,...
    scenario: dict[str, Any]  # {"name", "generator", "params"}
    seed: int
    cache_dir: str | None = None
    # Encode once: identity -> this seed's vector table directory, and question sha256 ->
    # the encoder's ms for it at batch 1, for this backend's identity (harness/vectors.py).
    vectors: dict[str, str] = field(default_factory=dict)
    encode_ms: dict[str, float] = field(default_factory=dict)

    @property
    def prefix(self) -> str:
        return pair_prefix(self.run_id, self.seed)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> PairSpec:
        return cls(**{k: d[k] for k in ("run_id", "index", "label", "backend", "scenario",
                                         "seed")}, cache_dir=d.get("cache_dir"),
                   vectors=dict(d.get("vectors") or {}), encode_ms=dict(d.get("encode_ms") or {}))


def process_plugins() -> LoadedPlugins:
    """This process's plugins, loaded once (a worker resolves many pairs)."""
    return default_plugins()


def resolve_backend(plugins: LoadedPlugins, spec: PairSpec) -> BackendSelection:
    (sel,) = select_backends(plugins.registry, [spec.backend])
    if sel.label != spec.label:
        raise ValueError(f"pair spec {spec.backend!r} resolves to label {sel.label!r}, "
                         f"not {spec.label!r}")
    return sel


def _generator(plugins: LoadedPlugins, name: str) -> GeneratorInfo:
    info = plugins.scenarios.get(name)
    if info is None:
        raise ValueError(f"unknown generator {name!r} (known: "
                         f"{', '.join(plugins.scenarios.names()) or 'none'})")
    return info


_SCRIPTS: dict[tuple[str, str, int], Script] = {}


def generate_script(plugins: LoadedPlugins, scenario: Mapping[str, Any], seed: int) -> Script:
    """The unbound script of one seed, generated once per process and checked.

    A parent that generates before it forks gives every child the script for free.
    """
    import json

    key = (scenario["generator"], json.dumps(scenario["params"], sort_keys=True), seed)
    script = _SCRIPTS.get(key)
    if script is None:
        info = _generator(plugins, scenario["generator"])
        try:
            script = info.generate(dict(scenario["params"]), seed)
            if not isinstance(script, Script):
                raise TypeError(f"it returned {type(script).__name__}, not a Script")
            script.check()
        except Exception as exc:
            raise GenerationError(f"generator {info.name}, seed {seed}: "
                                  f"{type(exc).__name__}: {exc}") from exc
        if len(_SCRIPTS) > 64:
            _SCRIPTS.clear()
        _SCRIPTS[key] = script
    return script


def _opener(sel: BackendSelection, spec: PairSpec, workdir: Path, report: dict[str, Any]
            ) -> Callable[[int], Backend]:
    cache = Path(spec.cache_dir) if spec.cache_dir else None

    def open_backend(episode: int) -> Backend:
        where = workdir if episode == 0 else workdir / f"episode-{episode}"
        where.mkdir(parents=True, exist_ok=True)
        ctx = BackendContext(workdir=where, seed=spec.seed, run_id=spec.run_id, cache_dir=cache,
                             vectors=dict(spec.vectors), report=report)
        return sel.info.create(sel.options, ctx)

    return open_backend


def _tables_here(spec: PairSpec) -> tuple[PairSpec, str | None]:
    """The spec as this host can run it: the run's vector tables are built where the
    run started; a worker on another host that cannot see them encodes its own texts
    (encode per backend, said in a warning), never counts the parent's encoder times."""
    if not spec.vectors or all(Path(d).is_dir() for d in spec.vectors.values()):
        return spec, None
    return replace(spec, vectors={}, encode_ms={}), (
        "encode: the run's vector tables are not on this worker's host; this pair's "
        "backend encoded its own texts (as with --encode per-backend)")


def _encoding(spec: PairSpec, report: dict[str, Any]) -> dict[str, Any] | None:
    """What the pair's result says of its encoding: the run's mode, and each embedder's
    table hits, misses and model encodes (summed over episodes)."""
    embedders = report.get("embedders") or []
    if not embedders:  # no shared embedder: nothing encoded here, or the backend's own
        return None
    keys = ("table_hits", "table_misses", "encoded", "cache_hits")
    total = {k: int(sum(e.get(k, 0) for e in embedders)) for k in keys}
    return {"mode": "once" if spec.vectors else "per-backend",
            "table": bool(spec.encode_ms), "embedders": len(embedders),
            "hits": total["table_hits"], "misses": total["table_misses"],
            "model_encodes": total["encoded"], "cache_hits": total["cache_hits"]}


def run_pair(
    spec: PairSpec,
    *,
    plugins: LoadedPlugins | None = None,
    workdir: Path | None = None,
    on_tag: Callable[[str], None] | None = None,
) -> PairRun:
    """Run one pair on a fresh store. A backend that raises is recorded as ``failed``
    with its error; its items are removed and the count checked on failure too.

    ``workdir`` is owned by the caller when given; otherwise a temporary one is
    made and deleted.
    """
    plugins = plugins or process_plugins()
    spec, away = _tables_here(spec)
    own = workdir is None
    work = Path(tempfile.mkdtemp(prefix="memory-bench-pair-")) if own else workdir
    t0, cpu0 = time.perf_counter(), time.process_time()
    run = PairRun(seed=spec.seed, worker={"host": platform.node(), "pid": os.getpid()})
    execution = None
    frozen = False
    report: dict[str, Any] = {}  # what the backend reports of its run (BackendContext)
    signals = interrupts.received()
    try:
        sel = resolve_backend(plugins, spec)
        info = _generator(plugins, spec.scenario["generator"])
        script = generate_script(plugins, spec.scenario, spec.seed)
        run.data_hash, run.data_stats = script.data_hash, script.stats
        # The script and its bound copy (10⁶ items each in a scale run) are not the
        # backend's: frozen, the cyclic garbage collector skips them, so a Python
        # backend's write and query times hold no collections over the harness's objects.
        gc.freeze()
        frozen = True
        bound = script.bind(spec.prefix)
        caps = {c.value for c in sel.capabilities}
        execution = Execution(bound, _opener(sel, spec, work, report), caps, on_tag=on_tag,
                              label=sel.label, encode_ms=spec.encode_ms)
        gc.freeze()
        records = execution.run()
        run.cleanup = execution.close()
        run.metrics = compute_metrics(info.metrics, records, caps)
        run.outcomes = compute_outcomes(info.metrics, records, caps)
        run.curve = step_curve(records)
        run.records = records
    except BaseException as exc:  # a plugin's SystemExit, bare BaseException or
        if interrupts.by_user(exc, signals):  # KeyboardInterrupt fails its pair; the
            raise  # user's Ctrl-C or SIGTERM ends the run
        run.status = "failed"
        run.error = f"{type(exc).__name__}: {exc}"
        run.traceback = traceback.format_exc(limit=20)
    finally:
        if frozen:
            gc.unfreeze()
        if execution is not None and execution.backend is not None:
            run.cleanup = execution.close()
        if execution is not None:
            run.warnings = execution.warnings
        if away:
            run.warnings.append(away)
        run.encoding = _encoding(spec, report)
        if own:
            shutil.rmtree(work, ignore_errors=True)
    run.seconds = time.perf_counter() - t0
    # the pair's own CPU seconds (every thread of this process: one pair per process
    # under the process executor), beside its wall time: the floor a core can reach
    run.worker["cpu_s"] = round(time.process_time() - cpu0, 3)
    return run
