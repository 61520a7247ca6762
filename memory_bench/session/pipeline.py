"""The one run pipeline: lock the result, run the pairs, analyse once, write once.

``run``, ``sweep`` (one session per size) and ``run --resume`` all go through
:func:`execute`. The runner writes the result file when the run starts and, if
the run stops early, when it stops; a run that completes is analysed here and
written here, once. :func:`publish` writes the ``--save`` set from the same
analysed result, compressing the file just written instead of encoding it
again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memory_bench.analysis.compare import analyse, summarize_metric
from memory_bench.errors import Interrupted
from memory_bench.harness.executors import Executor
from memory_bench.harness.lock import ResultLock
from memory_bench.harness.progress import Progress
from memory_bench.harness.runner import RunConfig, run_benchmark
from memory_bench.render.save import save_report
from memory_bench.results.derived import E2E_INGEST, add_e2e_ingest
from memory_bench.results.io import write_result
from memory_bench.results.model import Result
from memory_bench.results.paths import ReportPaths

__all__ = ["Problems", "analyse_and_write", "execute", "problems", "publish"]


def analyse_and_write(result: Result, out: Path, *, workers: int = 1) -> Result:
    """Summaries, paired comparisons and verdicts, then the file, each once. A failed
    analysis is recorded (the pairs are kept; ``report`` analyses again)."""
    try:
        analyse(result, workers=workers)
        if add_e2e_ingest(result):  # the store's rate and the encoders' (encode once)
            summarize_metric(result, E2E_INGEST, bootstrap=True)
    except Exception as exc:
        result.status = "failed"
        result.error = result.error or f"analysis: {type(exc).__name__}: {exc}"
    write_result(out, result)
    return result


def execute(cfg: RunConfig, progress: Progress | None = None, *,
            resume: Result | None = None, executor: Executor | None = None) -> Result:
    """Run ``cfg`` under the result's lock, analyse it, write it; an interrupt says
    what was kept. ``executor``: one already made (default: the one ``cfg`` names)."""
    with ResultLock(cfg.out, fresh=resume is None):
        try:
            result = run_benchmark(cfg, progress, resume=resume, executor=executor)
        except KeyboardInterrupt:
            if resume is None and not cfg.out.exists():
                raise Interrupted("interrupted before the run started; nothing was "
                                  "written") from None
            raise Interrupted(f"interrupted; the finished pairs are in {cfg.out} "
                              f"(finish with --resume {cfg.out})") from None
        if progress:
            progress.note("analysing: summaries, paired tests per question, Holm's correction")
        # the run's pairs at once are its analysis's processes too (process executor)
        workers = cfg.workers if cfg.executor == "process" and cfg.workers else 1
        return analyse_and_write(result, cfg.out, workers=workers)


def publish(result: Result, paths: ReportPaths, written: Path) -> ReportPaths:
    """The ``--save`` set of an analysed result whose file is ``written``."""
    return save_report(result, paths, written=written)


@dataclass
class Problems:
    """What went wrong in a finished run, one line each; any of them: exit status 1."""

    lines: list[str] = field(default_factory=list)  # printed on stderr
    failed: int = 0  # pairs not ok (the table shows them)
    missing: bool = False  # every backend was asked for and a plugin failed to load

    def __bool__(self) -> bool:
        return bool(self.lines or self.failed or self.missing)


def problems(result: Result, *, every_backend_asked: bool, broken: list[Any]) -> Problems:
    """Failed pairs, cleanups that left items, live stores left dirty, and (when every
    installed backend was asked for) plugins whose backends could not run."""
    out = Problems()
    runs = [(b.label, r) for b in result.backends for r in b.runs]
    out.failed = sum(not r.ok for _, r in runs)
    for label, r in runs:
        c = r.cleanup
        if c is not None and not c.ok:
            why = c.error or f"{c.left} item(s) left"
            out.lines.append(f"{label} seed {r.seed}: cleanup of {c.prefix} failed: {why}")
    for label, store in result.live_stores.items():
        after = store.get("after") or {}
        value = after.get("value") or {}
        if after and not value.get("ok"):
            why = after.get("error") or f"{value.get('left')} item(s) of this run left"
            out.lines.append(f"{label}: store check after the run failed: {why}")
    out.missing = bool(broken) and every_backend_asked
    return out
