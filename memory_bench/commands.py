"""What each ``memory-bench`` command does: build a request, call the layer that does the
work, print what came back. Every problem is raised as a
:class:`~memory_bench.errors.MemoryBenchError` and mapped to its exit status by
``cli.main``; heavy modules are imported inside the command that needs them.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from memory_bench import interrupts
from memory_bench.errors import BadInput, printable

__all__ = ["COMMANDS", "print_or_reader_left", "stdout_to_devnull"]


def stdout_to_devnull() -> None:
    """The reader of stdout left (`| head`): later writes, and the flush at exit, go
    nowhere instead of raising BrokenPipeError again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


def print_or_reader_left(text: str) -> None:
    try:
        print(text, flush=True)
    except BrokenPipeError:
        stdout_to_devnull()


def _err(message: str) -> None:
    print(f"memory-bench: {printable(message)}", file=sys.stderr)


def _plugins() -> Any:
    from memory_bench.plugins import load_plugins

    return load_plugins()


def _warn_broken(loaded: Any) -> None:
    """Each plugin that failed to load, on one line of stderr: easy to miss otherwise."""
    for b in loaded.broken:
        _err(f"warning: {b.describe()}; its backends are not available")


def _request(args: argparse.Namespace) -> Any:
    from memory_bench.session.plan import RunRequest

    return RunRequest(backends=args.backend, scenario=args.scenario, sets=args.set,
                      seeds=args.seeds, seed=args.seed, out=args.out, save=args.save,
                      cache_dir=args.cache_dir, no_cache=args.no_cache,
                      resume=getattr(args, "resume", None))


def cmd_backends(args: argparse.Namespace) -> int:
    loaded = _plugins()
    if args.json:
        print(json.dumps({"backends": [b.to_dict() for b in loaded.registry.all()],
                          "plugins": [{"name": n, "distribution": d} for n, d in loaded.plugins],
                          "broken": [b.to_dict() for b in loaded.broken]}, indent=2))
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
    from memory_bench.scenarios.spec import describe_scenario_files

    loaded = _plugins()
    files = describe_scenario_files()
    if args.json:
        print(json.dumps({"generators": [g.to_dict() for g in loaded.scenarios.all()],
                          "files": files, "broken": [b.to_dict() for b in loaded.broken]},
                         indent=2))
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
    from memory_bench.session.plan import plan_run

    plan = plan_run(_request(args), _plugins())
    _warn_broken(plan.plugins)
    print(plan.describe())
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    from memory_bench.plugins.selection import SelectionError, select_backends
    from memory_bench.session.plan import naming_broken
    from memory_bench.testing import check_selection

    loaded = _plugins()
    try:
        selections = select_backends(loaded.registry, args.specs)
    except SelectionError as exc:
        raise naming_broken(exc, loaded) from None
    reports = []
    undo = interrupts.install()  # a backend's own KeyboardInterrupt is a broken promise
    try:
        for sel in selections:
            report = check_selection(sel)
            reports.append(report)
            if not args.json:
                print("\n".join(report.lines()), flush=True)
    finally:
        undo()
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


def _executor(args: argparse.Namespace) -> str:
    from memory_bench.harness.runner import ISOLATION_ALIASES
    from memory_bench.session.plan import UsageError

    executor = args.executor or ("local" if args.isolation == "none" else "process")
    if args.executor and args.isolation and executor != ISOLATION_ALIASES[args.isolation]:
        raise UsageError(f"--executor {args.executor} and --isolation {args.isolation} "
                         "disagree; give one")
    if args.scheduler is not None and executor != "dask":
        raise UsageError("--scheduler needs --executor dask")
    if args.workers is not None and executor not in ("process", "dask"):
        raise UsageError("--workers needs --executor process or dask")
    return executor


def cmd_run(args: argparse.Namespace) -> int:
    from memory_bench.harness.progress import Progress
    from memory_bench.harness.runner import RunConfig
    from memory_bench.render.table import render_table
    from memory_bench.results.manifest import build_manifest
    from memory_bench.session.pipeline import execute, problems, publish
    from memory_bench.session.plan import plan_run

    executor = _executor(args)
    plan = plan_run(_request(args), _plugins())
    known = {m.name for m in plan.scenario_metrics()} | {m.label for m in plan.scenario_metrics()}
    unknown = [c for c in args.columns or [] if c not in known]
    if unknown:
        raise BadInput(f"--columns: unknown metric {unknown[0]!r} (known: "
                       f"{', '.join(m.name for m in plan.scenario_metrics())})")
    say: Callable[[str], None] = ((lambda m: None) if args.quiet
                                  else (lambda m: print(printable(m), file=sys.stderr)))
    manifest = build_manifest(plan.selections)
    if plan.broken:
        manifest["broken_plugins"] = [b.to_dict() for b in plan.broken]
    if plan.resume is not None:
        say(f"resuming {plan.out}: {plan.pending} pair(s) to run")
    cfg = RunConfig(plugins=plan.plugins, selections=plan.selections, scenario=plan.scenario,
                    seeds=plan.seeds, out=plan.out, run_id=plan.run_id, cache_dir=plan.cache_dir,
                    manifest=manifest, keep_work=args.keep_work, executor=executor,
                    workers=args.workers, scheduler=args.scheduler, timeout=args.timeout,
                    clean_stale=args.clean_stale, encode=getattr(args, "encode", "once"))
    undo = interrupts.install()  # Ctrl-C, SIGTERM: the user's, told from a plugin's
    try:
        # the refreshed line and the slow-step lines on a terminal (not in a pipe or a log)
        progress = Progress(enabled=False if args.quiet else None)
        result = execute(cfg, progress, resume=plan.resume)
        print_or_reader_left(render_table(result, columns=args.columns))  # `| head` saves
        _warn_broken(plan.plugins)  # after the run: bad input (a stale store) is one line
        say(f"result: {plan.out}")
        if plan.save:
            progress.note("writing the report set: Markdown, HTML, CSV and the plots")
            paths = publish(result, plan.reserve_reports(), plan.out)
            say(f"report: {paths.md} (also {paths.html.name}, {paths.csv.name}, "
                f"{paths.json.name} and PNGs)")
    finally:
        undo()
    found = problems(result, every_backend_asked=not args.backend and plan.resume is None,
                     broken=plan.broken)
    for line in found.lines:
        _err(line)
    return 1 if found else 0


def cmd_report(args: argparse.Namespace) -> int:
    from memory_bench.render.report import render_to
    from memory_bench.session.reading import load_analysed

    result = load_analysed(args.result)
    stem = args.result.name.removesuffix(".gz").removesuffix(".json")
    return render_to(result, args.format, args.out, stem=stem)


def cmd_sweep(args: argparse.Namespace) -> int:
    from memory_bench.session.plan import overrides
    from memory_bench.sweep.command import sweep_command

    return sweep_command(args, _plugins(), overrides(args.set))


def cmd_compare(args: argparse.Namespace) -> int:
    from memory_bench.analysis.compare import compare_runs
    from memory_bench.render.comparison import render_comparison
    from memory_bench.session.reading import load_analysed

    old = load_analysed(args.old)
    # A file against itself (a check that it reads back) is read once: compare reads only.
    new = old if _same_file(args.old, args.new) else load_analysed(args.new)
    specs = {m.name: m for m in new.metrics}
    unknown = [m for m in args.metric if m not in specs]
    if unknown:
        raise BadInput(f"unknown metric {unknown[0]!r} (known: {', '.join(specs)})")
    report = compare_runs(old, new, args.metric or None)
    print(json.dumps(report, indent=1) if args.json else render_comparison(report, specs))
    return 1 if args.fail_on_regression and report["regressions"] else 0


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.samefile(b)
    except OSError:
        return False


def cmd_validate(args: argparse.Namespace) -> int:
    from memory_bench.session.export import validate_file

    if args.file.suffix == ".toml":  # a runbook (docs/runbooks.md)
        from memory_bench.scenarios.runbook.plugin import validate_runbook

        ok, line = validate_runbook(args.file)
        print(printable(line))
        return 0 if ok else 2
    check = validate_file(args.file)
    for problem in check.problems:
        print(printable(f"{args.file}:{problem.line}: {problem.message}"))
    print(printable(check.summary()))
    return 2 if check.problems else 0


def cmd_export(args: argparse.Namespace) -> int:
    from memory_bench.scenarios.spec import load_scenario
    from memory_bench.session.export import export_script
    from memory_bench.session.plan import overrides

    loaded = _plugins()
    scenario = load_scenario(args.scenario, overrides(args.set), registry=loaded.scenarios)
    lines = export_script(loaded, scenario, args.seed, args.file, args.export_format)
    unit = "steps" if args.export_format == "runbook" else "lines"
    print(printable(f"{args.file}: {lines} {unit} ({scenario.name}, seed {args.seed})"),
          file=sys.stderr)
    return 0


def cmd_leaks(args: argparse.Namespace) -> int:
    from memory_bench.harness.leakscan import scan_scenario
    from memory_bench.render.leakscan import render_leak_scan
    from memory_bench.render.table import terminal_width
    from memory_bench.results.paths import OutputError, check_writable
    from memory_bench.scenarios.spec import load_scenario
    from memory_bench.session.plan import overrides

    both = sorted(set(args.train_seeds) & set(args.test_seeds))
    if both:
        raise BadInput(f"--train-seeds and --test-seeds share seed {both[0]}: a held-out "
                       "score needs seeds the models never saw")
    if args.json is not None:
        if args.json.exists():
            raise OutputError(f"{args.json} exists; leaks never overwrites a file")
        check_writable(args.json)
    loaded = _plugins()
    scenario = load_scenario(args.scenario, overrides(args.set), registry=loaded.scenarios)
    scenario.check_seeds([*args.train_seeds, *args.test_seeds])
    found = scan_scenario(loaded, scenario.name, scenario.ref(), args.train_seeds,
                          args.test_seeds, models=args.model or ("logistic", "boosting"),
                          negatives=args.negatives)
    # Never narrower than the table (a pipe reads as 100 columns): a wrapped line reads,
    # a cut contrast name does not.
    print_or_reader_left(render_leak_scan(found, max(terminal_width(), 130)))
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        try:
            with args.json.open("x", encoding="utf-8") as fh:  # never over a file made meanwhile
                json.dump(found.to_dict(), fh, indent=1)
                fh.write("\n")
        except FileExistsError:
            raise OutputError(f"{args.json} exists; leaks never overwrites a file") from None
        _err(f"scan: {args.json}")
    return 1 if args.strict and found.violations() else 0


def cmd_site(args: argparse.Namespace) -> int:
    from memory_bench.site import build_site

    summary = build_site(args.reports, args.out)
    for name, why in summary.skipped:
        _err(f"skipped {name}: {why}")
    print(printable(f"site: {summary.out_dir / 'index.html'} ({summary.runs} runs, "
                    f"{summary.sweeps} sweep(s), {len(summary.pages)} pages)"))
    return 0


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "backends": cmd_backends, "scenarios": cmd_scenarios, "plan": cmd_plan, "check": cmd_check,
    "run": cmd_run, "report": cmd_report, "compare": cmd_compare, "validate": cmd_validate,
    "export": cmd_export, "sweep": cmd_sweep, "site": cmd_site,
    "leaks": cmd_leaks}
