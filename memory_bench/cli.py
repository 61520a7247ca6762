"""The ``memory-bench`` command: parses arguments and delegates; no logic of its own.

Exit status: 0 success; 1 a run finished but some pairs failed (or left items
behind in a store, or a run of every backend lacked a plugin that failed to
load), or ``check`` found a broken promise, or it failed outside a pair, or an
unexpected error (one line; ``MEMORY_BENCH_DEBUG=1`` shows the traceback); 2 bad
input (one line on stderr, nothing written), argparse's errors included; 130
interrupted (the message says whether the result file holds finished pairs to
``--resume``).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from memory_bench import __version__
from memory_bench.contract.options import OptionError
from memory_bench.harness.executors import EXECUTORS, ExecutorError
from memory_bench.harness.isolation import DEFAULT_TIMEOUT, ISOLATION_MODES
from memory_bench.harness.livestore import StaleStoreError
from memory_bench.harness.lock import ResultLock, RunLockError, held_by
from memory_bench.harness.pair import GenerationError
from memory_bench.harness.reduce import pairs_dir_for
from memory_bench.harness.resume import ResumeError
from memory_bench.plugins import LoadedPlugins, load_plugins
from memory_bench.plugins.backends import DuplicateBackendError
from memory_bench.plugins.scenarios import DuplicateScenarioError
from memory_bench.plugins.selection import BackendSelection, SelectionError, select_backends
from memory_bench.results.io import ResultError, load_result, write_result
from memory_bench.results.model import Result
from memory_bench.results.paths import (
    OutputError,
    ReportPaths,
    check_writable,
    default_cache_dir,
    reserve_report_paths,
    unique_report_paths,
)
from memory_bench.scenarios.datasets.common import DatasetError
from memory_bench.scenarios.spec import ScenarioError, ScenarioSpec, load_scenario
from memory_bench.sweep.plan import SweepError

__all__ = ["main"]

REPORTS = Path("reports")
BAD_INPUT = (OptionError, ScenarioError, SelectionError, OutputError, ResultError,
             DuplicateBackendError, DuplicateScenarioError, StaleStoreError, ResumeError,
             DatasetError, SweepError, ExecutorError)


class UsageError(Exception):
    """Bad input: reported on one line, exit status 2."""


class Interrupted(Exception):
    """Ctrl-C or SIGTERM during a run: exit status 130, with what was kept."""


MAX_TIMEOUT = 7 * 86_400.0  # a week per pair: finite, and within what poll() can wait
MAX_SEEDS = 10_000


class _Parser(argparse.ArgumentParser):
    """argparse, with its errors on one line (and where to look) instead of the usage."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"memory-bench: error: {message} (see `{self.prog} --help`)\n")


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not math.isfinite(value) or not 0 < value <= MAX_TIMEOUT:
        raise argparse.ArgumentTypeError(
            f"must be a positive number of seconds, at most {MAX_TIMEOUT:g} "
            f"(a week), got {text!r}")
    return value


def _int_in(low: int, high: int) -> Any:
    """An argparse type: a whole number in [low, high]."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be between {low} and {high}, got {value}")
        return value

    return parse


def _parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="memory-bench",
        description="Score memory systems side by side with one continual-memory protocol.",
    )
    p.add_argument("--version", action="version", version=f"memory-bench {__version__}")
    sub = p.add_subparsers(dest="command", required=True)

    b = sub.add_parser("backends", help="list installed backends and broken plugins")
    b.add_argument("--json", action="store_true", help="machine-readable output")
    sc = sub.add_parser("scenarios", help="list scenario generators and scenario files")
    sc.add_argument("--json", action="store_true", help="machine-readable output")

    def run_options(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("--backend", action="append", default=[], metavar="SPEC",
                        help="NAME or NAME:key=value,... (repeatable; default: every backend)")
        sp.add_argument("--scenario", metavar="NAME|PATH",
                        help="scenario name in scenarios/ or a TOML file (default: default)")
        seeds = sp.add_mutually_exclusive_group()
        seeds.add_argument("--seeds", type=_int_in(1, MAX_SEEDS), metavar="N",
                           help="run N seeds (default: scenario)")
        seeds.add_argument("--seed", type=_int_in(0, 2**31 - 1), metavar="N",
                           help="run this one seed")
        sp.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="override a scenario parameter (repeatable)")
        sp.add_argument("--out", type=Path, metavar="PATH",
                        help="result JSON (default: runs/<run id>.json)")
        sp.add_argument("--save", action="store_true",
                        help="also write JSON, Markdown, HTML, CSV and PNG plots under "
                             "reports/, never overwriting")
        sp.add_argument("--cache-dir", type=Path, metavar="DIR",
                        help=f"embedding cache (default: {default_cache_dir()})")
        sp.add_argument("--no-cache", action="store_true", help="switch the embedding cache off")

    run_options(sub.add_parser("plan", help="show what a run would do; writes nothing"))
    ck = sub.add_parser("check", help="check backends against the contract (the conformance "
                        "kit): one line per broken promise, exit 1 if any")
    ck.add_argument("specs", nargs="*", metavar="SPEC",
                    help="NAME or NAME:key=value,... (default: every installed backend)")
    ck.add_argument("--json", action="store_true", help="machine-readable output")
    r = sub.add_parser("run", help="run the protocol and print the comparison")
    run_options(r)
    r.add_argument("--quiet", action="store_true", help="no progress display")
    r.add_argument("--keep-work", action="store_true",
                   help="keep each pair's store directory (under $TMPDIR/memory-bench-kept-*)")
    r.add_argument("--executor", choices=EXECUTORS, default=None,
                   help="process: each (backend, seed) pair in a forked child with a timeout "
                   "(default); local: in this process, no timeout (to measure or debug); "
                   "dask: on a dask cluster (--workers N or --scheduler ADDRESS)")
    r.add_argument("--encode", choices=("once", "per-backend"), default="once",
                   help="once (default): each seed's distinct texts encoded once per embedder "
                   "identity, in batches, into a table every embedding backend of it reads "
                   "(query latency is then the store's own; the encoder's is reported "
                   "beside it); per-backend: each backend encodes what it stores and asks")
    r.add_argument("--workers", type=int, metavar="N",
                   help="dask: a local cluster of N single-threaded workers on 127.0.0.1 "
                   "(default 2); with --scheduler, wait for N workers (default 1)")
    r.add_argument("--scheduler", metavar="ADDRESS",
                   help="dask: an existing scheduler, e.g. tcp://head-node:8786")
    r.add_argument("--isolation", choices=ISOLATION_MODES, default=None,
                   help="the older name of --executor: process, or none (= local)")
    r.add_argument("--timeout", type=_seconds, default=DEFAULT_TIMEOUT, metavar="SECONDS",
                   help=f"per pair, with the process and dask executors "
                        f"(default: {DEFAULT_TIMEOUT:g}, at most {MAX_TIMEOUT:g})")
    r.add_argument("--clean-stale", action="store_true",
                   help="remove bench- items of other runs from live stores instead of refusing")
    r.add_argument("--resume", type=Path, metavar="RESULT.json",
                   help="finish an interrupted run: pairs not ok are run, into the same file; "
                   "scenario, seeds and backends come from the file and must match any given")

    rep = sub.add_parser("report", help="render a saved result again")
    rep.add_argument("result", type=Path)
    rep.add_argument("--format", default="md",
                     choices=("md", "headline", "json", "table", "html", "csv", "png"),
                     help="md (default), headline (the results table alone, for a README), "
                          "json, table, html (plots inlined), csv (per-seed metrics), png "
                          "(the plots; needs --out DIR)")
    rep.add_argument("--out", type=Path, metavar="PATH",
                     help="write to this new file instead of stdout (png: a directory)")

    sw = sub.add_parser("sweep", help="run a scale scenario at several store sizes and plot "
                        "quality and costs against size")
    sw.add_argument("--scenario", default="scale", metavar="NAME|PATH",
                    help="a scenario whose generator takes `size` (default: scale)")
    sw.add_argument("--sizes", default="1000,10000,100000", metavar="N,N,...",
                    help="store sizes, ascending (default: 1000,10000,100000)")
    sw.add_argument("--backend", action="append", default=[], metavar="SPEC",
                    help="NAME or NAME:key=value,... (repeatable; default: every backend)")
    sw.add_argument("--limit", action="append", default=[], metavar="LABEL=SIZE",
                    help="run this backend only up to SIZE (repeatable)")
    sw.add_argument("--seeds", type=_int_in(1, MAX_SEEDS), metavar="N",
                    help="seeds per size (default: scenario)")
    sw.add_argument("--seeds-at", action="append", default=[], metavar="SIZE=N",
                    help="seeds at one size (repeatable), e.g. 1000000=1")
    sw.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="override a scenario parameter at every size (repeatable)")
    sw.add_argument("--out", type=Path, metavar="DIR",
                    help="directory for the per-size results (default: runs/sweep-<id>/)")
    sw.add_argument("--save", action="store_true",
                    help="also publish the sweep under reports/, never overwriting")
    sw.add_argument("--cache-dir", type=Path, metavar="DIR",
                    help="use this embedding cache (default: none, so ingest is measured "
                         "with a cold encoder)")
    sw.add_argument("--executor", choices=EXECUTORS, default="process")
    sw.add_argument("--timeout", type=_seconds, default=DEFAULT_TIMEOUT, metavar="SECONDS",
                    help=f"per pair (default: {DEFAULT_TIMEOUT:g})")
    sw.add_argument("--quiet", action="store_true", help="no progress display")

    cmp = sub.add_parser("compare", help="compare two result files, backend by backend")
    cmp.add_argument("old", type=Path)
    cmp.add_argument("new", type=Path)
    cmp.add_argument("--metric", action="append", default=[], metavar="NAME",
                     help="only these metrics (repeatable; default: every metric)")
    cmp.add_argument("--json", action="store_true", help="machine-readable output")
    cmp.add_argument("--fail-on-regression", action="store_true",
                     help="exit 1 when any metric of any backend regressed")

    val = sub.add_parser("validate", help="check a memory-bench-jsonl/1 file, line by line")
    val.add_argument("file", type=Path)
    exp = sub.add_parser("export", help="write one seed's script of any scenario as a "
                         "memory-bench-jsonl/1 file")
    exp.add_argument("--scenario", required=True, metavar="NAME|PATH")
    exp.add_argument("--seed", type=int, default=0, metavar="N")
    exp.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                     help="override a scenario parameter (repeatable)")
    exp.add_argument("file", type=Path, help="the new file (never overwritten)")
    return p


def _plugins() -> LoadedPlugins:
    return load_plugins()


def _naming_broken(exc: SelectionError, loaded: LoadedPlugins) -> SelectionError:
    """An unknown backend may be one whose plugin failed to load: say which failed."""
    if loaded.broken and "unknown backend" in str(exc):
        names = ", ".join(b.entry_point for b in loaded.broken)
        return SelectionError(f"{exc}; plugins that failed to load: {names}")
    return exc


def _stdout_to_devnull() -> None:
    """The reader of stdout left (`| head`): later writes, and the flush at exit, go
    nowhere instead of raising BrokenPipeError again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


def _print_or_reader_left(text: str) -> None:
    try:
        print(text, flush=True)
    except BrokenPipeError:
        _stdout_to_devnull()


def _warn_broken(loaded: LoadedPlugins) -> None:
    """Each plugin that failed to load, on one line of stderr: easy to miss otherwise."""
    for b in loaded.broken:
        print(f"memory-bench: warning: {b.describe()}; its backends are not available",
              file=sys.stderr)


def _overrides(pairs: Sequence[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for pair in pairs:
        key, eq, value = pair.partition("=")
        if not eq or not key.strip():
            raise UsageError(f"--set {pair!r}: expected KEY=VALUE")
        out[key.strip()] = value
    return out


class _Plan:
    """A validated run: everything is checked before anything is written."""

    def __init__(self, args: argparse.Namespace, loaded: LoadedPlugins) -> None:
        from memory_bench.harness.runner import new_run_id

        self.plugins = loaded
        self.resume: Result | None = None
        try:
            if getattr(args, "resume", None) is not None:
                self._from_result(args, loaded)
            else:
                self.scenario: ScenarioSpec = load_scenario(
                    "default" if args.scenario is None else args.scenario,
                    _overrides(args.set), registry=loaded.scenarios)
                self.selections: list[BackendSelection] = select_backends(
                    loaded.registry, args.backend
                )
                if args.seed is not None:
                    self.seeds = [args.seed]
                else:
                    self.seeds = self.scenario.seed_list(args.seeds)
                self.scenario.check_seeds(self.seeds)
                self.run_id = new_run_id()
                self.out: Path = args.out or Path("runs") / f"{self.run_id}.json"
                holder = held_by(self.out)
                if holder:
                    raise RunLockError(f"--out {self.out}: another run is writing this "
                                       f"result: {holder}")
                check_writable(self.out)
                check_writable(pairs_dir_for(self.out))
        except SelectionError as exc:
            raise _naming_broken(exc, loaded) from None
        self.broken = loaded.broken
        self.cache_dir = None if args.no_cache else (args.cache_dir or default_cache_dir())
        self.save = args.save
        if self.save:
            check_writable(REPORTS / "x.json", allow_existing=True)

    def _from_result(self, args: argparse.Namespace, loaded: LoadedPlugins) -> None:
        from memory_bench.harness.resume import plan_resume

        if args.out is not None:
            raise UsageError("--out cannot be used with --resume: the result file is rewritten")
        plan = plan_resume(
            args.resume,
            loaded,
            scenario=args.scenario,
            overrides=_overrides(args.set),
            seeds=None if args.seed is None else [args.seed],
            seed_count=args.seeds,
            specs=args.backend,
        )
        self.resume = plan.result
        self.pending = plan.pending
        self.scenario, self.seeds = plan.scenario, plan.seeds
        self.selections, self.run_id = plan.selections, plan.run_id
        self.out = args.resume
        check_writable(self.out, allow_existing=True)

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
        return "\n".join(lines)

    def reserve_reports(self) -> ReportPaths:
        """The ``--save`` names, claimed now (never another run's)."""
        return reserve_report_paths(REPORTS, self.scenario.name, self.run_id)


def cmd_backends(args: argparse.Namespace) -> int:
    loaded = _plugins()
    if args.json:
        doc: dict[str, Any] = {
            "backends": [b.to_dict() for b in loaded.registry.all()],
            "plugins": [{"name": n, "distribution": d} for n, d in loaded.plugins],
            "broken": [b.to_dict() for b in loaded.broken],
        }
        print(json.dumps(doc, indent=2))
        return 0
    for b in loaded.registry.all():
        caps = ", ".join(sorted(c.value for c in b.capabilities)) or "none"
        print(f"{b.name} {b.version} — {b.description}")
        print(f"    capabilities: {caps}")
        for o in b.options:
            print(f"    option {o.name} ({o.type.__name__}, default {o.default!r}): {o.help}")
    if not loaded.registry.names():
        print("no backends installed")
    for broken in loaded.broken:
        print(f"BROKEN {broken.describe()}")
    return 0


def cmd_scenarios(args: argparse.Namespace) -> int:
    from memory_bench.scenarios.spec import list_scenario_files, read_scenario_file

    loaded = _plugins()
    files = []
    for path, where in list_scenario_files():
        entry: dict[str, Any] = {"name": path.stem, "file": f"{where}/{path.name}"}
        try:
            data = read_scenario_file(path)
            entry.update(generator=data.get("generator"),
                         description=data.get("description", ""),
                         sets={k: v for k, v in data.items()
                               if k not in ("name", "description", "generator")})
        except ScenarioError as exc:
            entry["error"] = str(exc)
        files.append(entry)
    if args.json:
        doc = {"generators": [g.to_dict() for g in loaded.scenarios.all()], "files": files,
               "broken": [b.to_dict() for b in loaded.broken]}
        print(json.dumps(doc, indent=2))
        return 0
    for g in loaded.scenarios.all():
        print(f"generator {g.name} {g.version} — {g.description}")
        print(f"    plugin: {g.plugin}")
        print(f"    metrics: {', '.join(m.name for m in g.metrics)}")
        for o in g.parameters:
            print(f"    parameter {o.name} ({o.type.__name__}, default {o.default!r}): {o.help}")
    for f in files:
        what = f.get("error") or f"generator {f.get('generator')}: {f.get('description')}"
        print(f"scenario {f['name']} ({f['file']}) — {what}")
    for broken in loaded.broken:
        print(f"BROKEN {broken.describe()}")
    return 0


def cmd_plan(args: argparse.Namespace) -> int:
    plan = _Plan(args, _plugins())
    _warn_broken(plan.plugins)
    print(plan.describe())
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    from memory_bench.testing import check_selection

    loaded = _plugins()
    try:
        selections = select_backends(loaded.registry, args.specs)
    except SelectionError as exc:
        raise _naming_broken(exc, loaded) from None
    reports = []
    for sel in selections:
        report = check_selection(sel)
        reports.append(report)
        if not args.json:
            print("\n".join(report.lines()), flush=True)
    # Asked to check every installed backend, a plugin that failed to load has broken
    # every promise; asked for named ones, it is a warning.
    broken = loaded.broken if not args.specs else []
    if args.json:
        print(json.dumps({"backends": [r.to_dict() for r in reports],
                          "broken": [b.to_dict() for b in loaded.broken]}, indent=2))
    else:
        for b in broken:
            print(f"BROKEN {b.describe()}")
        if args.specs:
            _warn_broken(loaded)
    return 1 if broken or any(r.broken for r in reports) else 0


class _Terminated(KeyboardInterrupt):
    """SIGTERM, handled as Ctrl-C is: children killed, items removed, file written."""


def _on_sigterm(signum: int, frame: Any) -> None:
    raise _Terminated


def cmd_run(args: argparse.Namespace) -> int:
    from memory_bench.analysis.compare import analyse
    from memory_bench.harness.progress import Progress
    from memory_bench.harness.runner import ISOLATION_ALIASES, RunConfig, run_benchmark
    from memory_bench.render.save import save_report
    from memory_bench.render.table import render_table
    from memory_bench.results.manifest import build_manifest

    executor = args.executor or ("local" if args.isolation == "none" else "process")
    if args.executor and args.isolation and executor != ISOLATION_ALIASES[args.isolation]:
        raise UsageError(f"--executor {args.executor} and --isolation {args.isolation} "
                         "disagree; give one")
    if (args.workers is not None or args.scheduler is not None) and executor != "dask":
        raise UsageError("--workers and --scheduler need --executor dask")
    if args.workers is not None and args.workers < 1:
        raise UsageError("--workers must be at least 1")
    plan = _Plan(args, _plugins())
    say = (lambda m: None) if args.quiet else (lambda m: print(m, file=sys.stderr))
    manifest = build_manifest(plan.selections)
    if plan.broken:
        manifest["broken_plugins"] = [b.to_dict() for b in plan.broken]
    if plan.resume is not None:
        say(f"resuming {plan.out}: {plan.pending} pair(s) to run")
    cfg = RunConfig(
        plugins=plan.plugins,
        selections=plan.selections,
        scenario=plan.scenario,
        seeds=plan.seeds,
        out=plan.out,
        run_id=plan.run_id,
        cache_dir=plan.cache_dir,
        manifest=manifest,
        keep_work=args.keep_work,
        executor=executor,
        workers=args.workers,
        scheduler=args.scheduler,
        timeout=args.timeout,
        clean_stale=args.clean_stale,
        encode=args.encode,
    )
    progress = Progress(enabled=False if args.quiet else None)
    signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        with ResultLock(plan.out, fresh=plan.resume is None):
            try:
                result = run_benchmark(cfg, progress, resume=plan.resume)
                analyse(result)  # summaries with bootstrap and paired comparisons, kept
                write_result(plan.out, result)
            except KeyboardInterrupt:
                if plan.resume is None and not plan.out.exists():
                    raise Interrupted("interrupted before the run started; nothing was "
                                      "written") from None
                raise Interrupted(f"interrupted; the finished pairs are in {plan.out} "
                                  f"(finish with --resume {plan.out})") from None
            # `run | head` still saves and exits truly
            _print_or_reader_left(render_table(result))
            _warn_broken(plan.plugins)  # after the run: bad input (a stale store) is one line
            say(f"result: {plan.out}")
            if plan.save:
                paths = save_report(result, plan.reserve_reports(), written=plan.out)
                say(f"report: {paths.md} (also {paths.html.name}, {paths.csv.name}, "
                    f"{paths.json.name} and PNGs)")
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
    runs = [(b.label, r) for b in result.backends for r in b.runs]
    failed = [r for _, r in runs if not r.ok]
    dirty = [(label, r) for label, r in runs if r.cleanup is not None and not r.cleanup.ok]
    for label, r in dirty:
        c = r.cleanup
        assert c is not None
        why = c.error or f"{c.left} item(s) left"
        print(f"memory-bench: {label} seed {r.seed}: cleanup of {c.prefix} failed: {why}",
              file=sys.stderr)
    bad_store = False
    for label, store in result.live_stores.items():
        after = store.get("after") or {}
        value = after.get("value") or {}
        if after and not value.get("ok"):
            why = after.get("error") or f"{value.get('left')} item(s) of this run left"
            print(f"memory-bench: {label}: store check after the run failed: {why}",
                  file=sys.stderr)
            bad_store = True
    # "Every installed backend" was asked for, and a plugin's backends could not run.
    missing = bool(plan.broken) and not args.backend and plan.resume is None
    return 1 if failed or dirty or bad_store or missing else 0


def cmd_report(args: argparse.Namespace) -> int:
    from memory_bench.render.report import render_to

    result = load_result(args.result)
    stem = args.result.name.removesuffix(".gz").removesuffix(".json")
    return render_to(result, args.format, args.out, stem=stem)


def cmd_sweep(args: argparse.Namespace) -> int:
    from memory_bench.sweep.cli import sweep_command

    return sweep_command(args, _plugins(), _overrides(args.set))


def cmd_compare(args: argparse.Namespace) -> int:
    from memory_bench.analysis.compare import compare_runs
    from memory_bench.render.comparison import render_comparison

    old, new = load_result(args.old), load_result(args.new)
    specs = {m.name: m for m in new.metrics}
    unknown = [m for m in args.metric if m not in specs]
    if unknown:
        raise UsageError(f"unknown metric {unknown[0]!r} (known: {', '.join(specs)})")
    report = compare_runs(old, new, args.metric or None)
    print(json.dumps(report, indent=1) if args.json else render_comparison(report, specs))
    return 1 if args.fail_on_regression and report["regressions"] else 0


def cmd_validate(args: argparse.Namespace) -> int:
    from memory_bench.scenarios.export import validate_file

    check = validate_file(args.file)
    for problem in check.problems:
        print(f"{args.file}:{problem.line}: {problem.message}")
    print(check.summary())
    return 2 if check.problems else 0


def cmd_export(args: argparse.Namespace) -> int:
    from memory_bench.scenarios.export import export_script

    loaded = _plugins()
    scenario = load_scenario(args.scenario, _overrides(args.set), registry=loaded.scenarios)
    lines = export_script(loaded, scenario, args.seed, args.file)
    print(f"{args.file}: {lines} lines ({scenario.name}, seed {args.seed})", file=sys.stderr)
    return 0


COMMANDS = {"backends": cmd_backends, "scenarios": cmd_scenarios, "plan": cmd_plan,
            "check": cmd_check, "run": cmd_run, "report": cmd_report, "compare": cmd_compare,
            "validate": cmd_validate, "export": cmd_export, "sweep": cmd_sweep}


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except (UsageError, *BAD_INPUT) as exc:
        print(f"memory-bench: error: {exc}", file=sys.stderr)
        return 2
    except GenerationError as exc:  # the result file says "failed", with this error
        print(f"memory-bench: error: {exc}", file=sys.stderr)
        return 1
    except Interrupted as exc:
        print(f"memory-bench: {exc}", file=sys.stderr)
        return 130
    except KeyboardInterrupt:
        print("memory-bench: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `memory-bench ... | head`: the reader left; end quietly
        _stdout_to_devnull()
        return 0
    except Exception as exc:  # a bug or the machine (disk full, out of memory): one line
        if os.environ.get("MEMORY_BENCH_DEBUG"):
            raise
        print(f"memory-bench: error: {type(exc).__name__}: {exc} (MEMORY_BENCH_DEBUG=1 "
              "shows the traceback)", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
