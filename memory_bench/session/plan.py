"""A validated run: everything a run needs, checked before anything is written.

:class:`RunRequest` is what a caller asks for (the CLI fills it from its
arguments; a library caller directly); :func:`plan_run` checks it against the
installed plugins and returns a :class:`RunPlan`, or raises a
:class:`~memory_bench.errors.BadInput` naming the first problem. A resume is
planned from its result file (``resume.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from memory_bench.errors import BadInput, printable
from memory_bench.harness.lock import RunLockError, held_by, take_back
from memory_bench.harness.runner import new_run_id
from memory_bench.plugins.manager import LoadedPlugins
from memory_bench.plugins.selection import BackendSelection, SelectionError, select_backends
from memory_bench.results.model import Result
from memory_bench.results.pairs import pairs_dir_for
from memory_bench.results.paths import (
    ReportPaths,
    check_writable,
    default_cache_dir,
    reserve_report_paths,
    unique_report_paths,
)
from memory_bench.scenarios.spec import ScenarioSpec, load_scenario

__all__ = ["DEFAULT_SCENARIO", "REPORTS", "RunPlan", "RunRequest", "UsageError", "overrides",
           "plan_run"]

REPORTS = Path("reports")
# The published headline's scenario, so that a first run tells the README's story.
DEFAULT_SCENARIO = "hard"


class UsageError(BadInput):
    """Options that do not fit together."""


@dataclass
class RunRequest:
    """What a run is asked to do; every field as the user gave it (None: not given)."""

    backends: Sequence[str] = ()
    scenario: str | None = None
    sets: Sequence[str] = ()
    seeds: int | None = None
    seed: int | None = None
    out: Path | None = None
    save: bool = False
    allow_dirty: bool = False
    publish_seeds: bool = False
    cache_dir: Path | None = None
    no_cache: bool = False
    resume: Path | None = None


@dataclass
class RunPlan:
    plugins: LoadedPlugins
    scenario: ScenarioSpec
    seeds: list[int]
    selections: list[BackendSelection]
    run_id: str
    out: Path
    cache_dir: Path | None
    save: bool
    resume: Result | None = None
    pending: int | None = None
    broken: list = field(default_factory=list)
    seed_draw: dict | None = None  # --publish-seeds: how the seeds were drawn

    def describe(self) -> str:
        s = self.scenario
        lines = [f"run {self.run_id} (not started)", "backends:"]
        for sel in self.selections:
            opts = ", ".join(f"{k}={v}" for k, v in sel.options.items()) or "no options"
            lines.append(f"  {sel.label}: {sel.info.name} {sel.info.version} ({opts})")
        params = ", ".join(f"{k} {v}" for k, v in s.params.items())
        lines += [
            f"scenario: {s.name} (generator {s.generator}) — {params}",
            f"seeds: {', '.join(map(str, self.seeds))}",
            f"pairs: {len(self.selections) * len(self.seeds)}",
            f"result: {self.out}",
            f"embedding cache: {self.cache_dir or 'off'}",
        ]
        if self.save:
            md = unique_report_paths(REPORTS, self.scenario.name, self.run_id).md
            lines.append(f"report: {md} (+ .json .html .csv and PNGs)")
        return "\n".join(printable(line) for line in lines)  # a path's newline stays shown

    def scenario_metrics(self) -> list:
        """The declarations of the metrics this run's scenario is scored with."""
        gen = self.plugins.scenarios.get(self.scenario.generator)
        return [m.spec for m in gen.metrics] if gen is not None else []

    def reserve_reports(self) -> ReportPaths:
        """The ``--save`` names, claimed now (never another run's)."""
        return reserve_report_paths(REPORTS, self.scenario.name, self.run_id)


PUBLISH_SEED_MIN = 1_000_000  # above the development (0-9) and tuning (100-109) seeds


def draw_seeds(run_id: str, n: int, *, cwd: Path | None = None) -> dict:
    """``n`` consecutive seeds from SHA-256 of the run id (its start time and a random
    suffix) and the checkout's commit: a value that did not exist before the run starts,
    so no backend can have been tuned on the seeds; anyone can recompute them from the
    result (``manifest.seed_draw``)."""
    import hashlib

    from memory_bench.results.manifest import git_state

    state = git_state(cwd or Path.cwd())
    commit = state["commit"] if state else "none"
    digest = hashlib.sha256(f"{run_id}|{commit}".encode()).hexdigest()
    base = PUBLISH_SEED_MIN + int(digest[:12], 16) % (2**31 - 1 - PUBLISH_SEED_MIN - n)
    return {"rule": "base = 1000000 + int(sha256(run_id + '|' + commit)[:12], 16) "
                    "% (2**31 - 1000001 - n); seeds base .. base + n - 1",
            "run_id": run_id, "commit": commit, "seeds": [base + i for i in range(n)]}


def check_clean(*, allow_dirty: bool, cwd: Path | None = None) -> None:
    """``--save`` publishes: refuse a checkout with uncommitted changes unless the user
    accepts a result labelled dirty (``--allow-dirty``; the diff's hash is recorded)."""
    from memory_bench.results.manifest import git_state

    state = git_state(cwd or Path.cwd())
    if state is not None and state["dirty"] and not allow_dirty:
        raise UsageError(f"--save: the checkout has uncommitted changes on "
                         f"{state['commit'][:12]}; commit them, or pass --allow-dirty to "
                         "publish a result labelled dirty")


def overrides(pairs: Sequence[str]) -> dict[str, str]:
    """``KEY=VALUE`` strings (``--set``) as a dict."""
    out: dict[str, str] = {}
    for pair in pairs:
        key, eq, value = pair.partition("=")
        if not eq or not key.strip():
            raise UsageError(f"--set {pair!r}: expected KEY=VALUE")
        out[key.strip()] = value
    return out


def naming_broken(exc: SelectionError, loaded: LoadedPlugins) -> SelectionError:
    """An unknown backend may be one whose plugin failed to load: say which failed."""
    if loaded.broken and ("unknown backend" in str(exc) or "no backends" in str(exc)):
        names = "; ".join(f"{b.entry_point} ({b.error[:120]})" for b in loaded.broken)
        return SelectionError(f"{exc}; plugins that failed to load: {names}")
    return exc


def _fresh(req: RunRequest, loaded: LoadedPlugins) -> dict:
    scenario = load_scenario(DEFAULT_SCENARIO if req.scenario is None else req.scenario,
                             overrides(req.sets),
                             registry=loaded.scenarios)
    selections = select_backends(loaded.registry, list(req.backends))
    seeds = [req.seed] if req.seed is not None else scenario.seed_list(req.seeds)
    run_id = new_run_id()
    draw = None
    if req.publish_seeds:
        draw = draw_seeds(run_id, len(seeds))
        seeds = draw["seeds"]
    scenario.check_seeds(seeds)
    out = req.out or Path("runs") / f"{run_id}.json"
    holder = held_by(out)
    if holder:
        raise RunLockError(f"--out {out}: another run is writing this result: {holder}")
    if out.name and not out.is_dir():  # else check_writable says what it is
        take_back(out)  # a claim a dead run left, with nothing in it
        pairs = pairs_dir_for(out)
        if out.is_file() and pairs.is_dir():
            raise RunLockError(f"--out {out} exists; a run never overwrites an earlier "
                               f"result (an interrupted one is finished by `memory-bench run "
                               f"--resume {out}`; or choose another --out)")
        if not out.exists() and (pairs.exists() or pairs.is_symlink()):
            raise RunLockError(f"--out {out}: {pairs} exists without its result (left by "
                               f"an earlier run): remove it (`rm -r {pairs}`) or choose "
                               "another --out")
    check_writable(out)
    check_writable(pairs_dir_for(out))
    return dict(scenario=scenario, seeds=seeds, selections=selections, run_id=run_id, out=out,
                seed_draw=draw)


def _resumed(req: RunRequest, loaded: LoadedPlugins) -> dict:
    from memory_bench.session.resume import plan_resume

    assert req.resume is not None
    if req.out is not None:
        raise UsageError("--out cannot be used with --resume: the result file is rewritten")
    plan = plan_resume(req.resume, loaded, scenario=req.scenario, overrides=overrides(req.sets),
                       seeds=None if req.seed is None else [req.seed], seed_count=req.seeds,
                       specs=list(req.backends))
    check_writable(req.resume, allow_existing=True)
    return dict(scenario=plan.scenario, seeds=plan.seeds, selections=plan.selections,
                run_id=plan.run_id, out=req.resume, resume=plan.result, pending=plan.pending)


def plan_run(req: RunRequest, loaded: LoadedPlugins) -> RunPlan:
    """Check ``req`` against the installed plugins; nothing is written."""
    if req.publish_seeds and (req.resume is not None or req.seed is not None):
        raise UsageError("--publish-seeds draws the seeds of a new run: not with --resume "
                         "or --seed")
    try:
        parts = _resumed(req, loaded) if req.resume is not None else _fresh(req, loaded)
    except SelectionError as exc:
        raise naming_broken(exc, loaded) from None
    cache = None if req.no_cache else (req.cache_dir or default_cache_dir())
    if req.save:
        check_writable(REPORTS / "x.json", allow_existing=True)
        check_clean(allow_dirty=req.allow_dirty)
    return RunPlan(plugins=loaded, cache_dir=cache, save=req.save, broken=list(loaded.broken),
                   **parts)
