"""The Python API: a benchmark run from Python, by the same path as ``memory-bench run``.

::

    import memory_bench

    result = memory_bench.run(scenario="smoke", backends=["bm25", "faiss-rag"], seeds=3)
    for row in result.backends:
        print(row.label, row.summary["recall1_before"].mean)  # and .ci_low, .ci_high

:func:`run` plans (checks every argument against the installed plugins: a
:class:`~memory_bench.errors.BadInput` names the first problem, and nothing is
written), runs every (backend, seed) pair, analyses, writes the result file
(``out``, default ``runs/<run id>.json``; never over an earlier one) and returns
the analysed :class:`~memory_bench.results.model.Result`. The CLI's ``run`` is
:func:`plan` + :func:`run_plan` + :func:`publish`, with a table printed between.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memory_bench.harness.isolation import DEFAULT_TIMEOUT
from memory_bench.harness.progress import Progress
from memory_bench.results.model import Result

if TYPE_CHECKING:
    from memory_bench.plugins.manager import LoadedPlugins
    from memory_bench.results.paths import ReportPaths
    from memory_bench.session.plan import RunPlan

__all__ = ["Execution", "Result", "plan", "publish", "run", "run_plan"]


@dataclass(frozen=True)
class Execution:
    """Where and how the pairs run (the CLI's ``--executor``, ``--workers``, ...)."""

    executor: str = "process"  # process | local | dask
    workers: int | None = None
    scheduler: str | None = None
    timeout: float | None = DEFAULT_TIMEOUT  # per pair
    keep_work: bool = False
    clean_stale: bool = False
    encode: str = "once"  # once | per-backend


def _set_strings(sets: Mapping[str, Any] | Sequence[str] | None) -> list[str]:
    """``{"noise": 1200, "structured": True}`` -> ``["noise=1200", "structured=true"]``."""
    if sets is None:
        return []
    if isinstance(sets, Mapping):
        return [f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in sets.items()]
    return list(sets)


def plan(scenario: str | Path | None = None, backends: Sequence[str] = (), *,
         seeds: int | None = None, seed: int | None = None,
         sets: Mapping[str, Any] | Sequence[str] | None = None, out: str | Path | None = None,
         save: bool = False, cache_dir: str | Path | None = None, no_cache: bool = False,
         resume: str | Path | None = None, plugins: LoadedPlugins | None = None) -> RunPlan:
    """A checked run, nothing written yet (see :func:`run` for the arguments)."""
    from memory_bench.plugins import load_plugins
    from memory_bench.session.plan import RunRequest, plan_run

    request = RunRequest(
        backends=list(backends), scenario=None if scenario is None else str(scenario),
        sets=_set_strings(sets), seeds=seeds, seed=seed,
        out=None if out is None else Path(out), save=save,
        cache_dir=None if cache_dir is None else Path(cache_dir), no_cache=no_cache,
        resume=None if resume is None else Path(resume))
    return plan_run(request, plugins if plugins is not None else load_plugins())


def run_plan(planned: RunPlan, execution: Execution | None = None,
             progress: Progress | None = None) -> Result:
    """Run a plan's pairs under its result's lock, analyse, write the file once."""
    execution = execution or Execution()
    from memory_bench.harness.runner import RunConfig
    from memory_bench.results.manifest import build_manifest
    from memory_bench.session.pipeline import execute

    manifest = build_manifest(planned.selections)
    if planned.broken:
        manifest["broken_plugins"] = [b.to_dict() for b in planned.broken]
    if planned.seed_draw is not None:
        manifest["seed_draw"] = planned.seed_draw
    cfg = RunConfig(plugins=planned.plugins, selections=planned.selections,
                    scenario=planned.scenario, seeds=planned.seeds, out=planned.out,
                    run_id=planned.run_id, cache_dir=planned.cache_dir, manifest=manifest,
                    keep_work=execution.keep_work, executor=execution.executor,
                    workers=execution.workers, scheduler=execution.scheduler,
                    timeout=execution.timeout, clean_stale=execution.clean_stale,
                    encode=execution.encode)
    return execute(cfg, progress, resume=planned.resume)


def publish(planned: RunPlan, result: Result) -> ReportPaths:
    """The ``save`` set of a finished run under ``reports/`` (names never reused)."""
    from memory_bench.session.pipeline import publish as publish_set

    return publish_set(result, planned.reserve_reports(), planned.out)


def run(scenario: str | Path | None = None, backends: Sequence[str] = (), *,
        seeds: int | None = None, seed: int | None = None,
        sets: Mapping[str, Any] | Sequence[str] | None = None, out: str | Path | None = None,
        save: bool = False, cache_dir: str | Path | None = None, no_cache: bool = False,
        execution: Execution | None = None, progress: bool = False,
        plugins: LoadedPlugins | None = None) -> Result:
    """Run the protocol and return the analysed result.

    ``scenario``: a name in ``scenarios/`` or a TOML path (default ``hard``);
    ``backends``: specs as on the command line (``"faiss-rag"``,
    ``"rshl:encoder=dense"``; default every installed backend); ``seeds``: how many
    (default the scenario's) or ``seed``: one; ``sets``: parameter overrides
    (``{"noise": 1200}``); ``out``: the result file (default ``runs/<run id>.json``);
    ``save``: also the report set under ``reports/``; ``cache_dir`` / ``no_cache``:
    the embedding cache; ``execution``: where pairs run; ``progress``: progress lines
    on stderr; ``plugins``: a :func:`~memory_bench.plugins.load_plugins` result
    (default: the installed plugins). A pair that fails is recorded in the result
    (``result.backends[i].runs[j].status``), not raised.
    """
    planned = plan(scenario, backends, seeds=seeds, seed=seed, sets=sets, out=out, save=save,
                   cache_dir=cache_dir, no_cache=no_cache, plugins=plugins)
    result = run_plan(planned, execution, Progress(enabled=None if progress else False))
    if save:
        publish(planned, result)
    return result
