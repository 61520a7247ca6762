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
from memory_bench.errors import BadInput, Interrupted, printable

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
                      allow_dirty=getattr(args, "allow_dirty", False),
                      publish_seeds=getattr(args, "publish_seeds", False),
                      cache_dir=args.cache_dir, no_cache=args.no_cache,
                      resume=getattr(args, "resume", None))


def _caps(b: Any) -> str:
    return ", ".join(sorted(c.value for c in b.capabilities)) or "none"


def _backend_in_full(b: Any) -> list[str]:
    """``backends NAME``: everything the registry knows about one backend, wrapped."""
    import textwrap

    def wrap(text: str, indent: str = "    ") -> list[str]:
        return textwrap.wrap(text, 88, initial_indent=indent, subsequent_indent=indent)

    lines = [f"{b.name} {b.version} ({b.kind}) from {b.plugin}", *wrap(b.description, "  "),
             f"  capabilities: {_caps(b)}"]
    if b.reads:
        lines.append(f"  reads: {', '.join(b.reads)}")
    for o in b.options:
        lines.append(f"  option {o.name} ({o.type.__name__}, default {o.default!r})")
        lines += wrap(o.help)
    for note in b.notes:
        lines += wrap(f"note: {note}", "  ")
    if b.libraries:
        lines.append(f"  libraries: {', '.join(b.libraries)}")
    return lines


def cmd_backends(args: argparse.Namespace) -> int:
    loaded = _plugins()
    listed = loaded.registry.listed()  # systems, then baselines, then audit rows
    if args.name is not None:
        info = loaded.registry.get(args.name)
        if info is None:
            raise BadInput(f"unknown backend {args.name!r} (installed: "
                           f"{', '.join(loaded.registry.names()) or 'none'})")
        listed = [info]
    if args.json:
        print(json.dumps({"backends": [b.to_dict() for b in listed],
                          "plugins": [{"name": n, "distribution": d} for n, d in loaded.plugins],
                          "broken": [b.to_dict() for b in loaded.broken]}, indent=2))
        return 0
    if args.name is not None:
        print("\n".join(printable(line, limit=10_000) for line in _backend_in_full(listed[0])))
        return 0
    width = max((len(b.name) for b in listed), default=0)
    for b in listed:
        print(printable(f"{b.name:<{width}}  {b.kind:<8}  {_caps(b)}"))
    if listed:
        print("details: memory-bench backends NAME")
    else:
        print("no backends installed")
    for broken in loaded.broken:
        print(printable(f"BROKEN {broken.describe()}"))
    return 0


def _fit(text: str, width: int) -> str:
    """``text`` on one line of at most ``width`` characters (cut with "…")."""
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: width - 1].rstrip() + "…"


def _scenario_in_full(name: str, files: list[dict[str, Any]], generators: Any) -> list[str]:
    """``scenarios NAME``: a scenario file's every parameter at the value it runs with
    (what the file sets, else the generator's default), or a generator's defaults."""
    import textwrap

    entry = next((f for f in files if f["name"] == name), None)
    gen_name = entry.get("generator") if entry else name
    gen = generators.get(gen_name) if gen_name else None
    if entry is None and gen is None:
        known = sorted({f["name"] for f in files} | set(generators.names()))
        raise BadInput(f"unknown scenario {name!r} (known: {', '.join(known)})")
    if entry is not None and entry.get("error"):
        return [f"scenario {name} ({entry['file']}): {entry['error']}"]
    sets = entry.get("sets", {}) if entry else {}
    lines = []
    if entry is not None:
        lines += [f"scenario {name} ({entry['file']}), generator {gen_name}",
                  *textwrap.wrap(entry.get("description") or "", 88, initial_indent="  ",
                                 subsequent_indent="  ")]
    if gen is None:
        return [*lines, f"  generator {gen_name} is not installed"]
    lines += [f"generator {gen.name} {gen.version} from {gen.plugin}",
              *textwrap.wrap(gen.description, 88, initial_indent="  ", subsequent_indent="  ")]
    where = "set by the file" if entry is not None else ""
    for o in gen.parameters:
        value, mark = (sets[o.name], where) if o.name in sets else (o.default, "default")
        lines.append(f"  {o.name} = {value!r}  ({mark})")
        lines += textwrap.wrap(o.help, 88, initial_indent="      ", subsequent_indent="      ")
    extra = sorted(set(sets) - {o.name for o in gen.parameters})
    for key in extra:  # seeds and the like: the file's, not a generator parameter
        lines.append(f"  {key} = {sets[key]!r}  ({where})")
    lines += textwrap.wrap("metrics: " + ", ".join(m.name for m in gen.metrics), 88,
                           initial_indent="  ", subsequent_indent="    ")
    return lines


def cmd_scenarios(args: argparse.Namespace) -> int:
    from memory_bench.scenarios.spec import describe_scenario_files

    loaded = _plugins()
    files = describe_scenario_files()
    if args.json:
        print(json.dumps({"generators": [g.to_dict() for g in loaded.scenarios.all()],
                          "files": files, "broken": [b.to_dict() for b in loaded.broken]},
                         indent=2))
        return 0
    if args.name is not None:
        lines = _scenario_in_full(args.name, files, loaded.scenarios)
        print("\n".join(printable(line, limit=10_000) for line in lines))
        return 0
    # One line each: the scenarios one runs (--scenario NAME), then the generators.
    width = max((len(f["name"]) for f in files), default=0)
    gwidth = max((len(f.get("generator") or "") for f in files), default=0)
    for f in files:
        if f.get("error"):
            print(printable(f"{f['name']:<{width}}  ERROR {f['error']}"))  # whole: it says why
            continue
        gen = f.get("generator") or ""
        print(printable(f"{f['name']:<{width}}  {gen:<{gwidth}}  "
                        f"{_fit(f.get('description') or '', 96 - width - gwidth)}"))
    gens = loaded.scenarios.all()
    if gens:
        print("generators:")
        gw = max(len(g.name) for g in gens)
        for g in gens:
            print(printable(f"  {g.name:<{gw}}  {_fit(g.description, 94 - gw)}"))
    print("details (every parameter at the value it runs with): memory-bench scenarios NAME")
    for broken in loaded.broken:
        print(printable(f"BROKEN {broken.describe()}"))
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
    from memory_bench import api
    from memory_bench.harness.progress import Progress
    from memory_bench.render.table import render_table
    from memory_bench.session.pipeline import problems
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
    if plan.resume is not None:
        say(f"resuming {plan.out}: {plan.pending} pair(s) to run")
    execution = api.Execution(executor=executor, workers=args.workers, scheduler=args.scheduler,
                              timeout=args.timeout, keep_work=args.keep_work,
                              clean_stale=args.clean_stale,
                              encode=getattr(args, "encode", "once"))
    undo = interrupts.install()  # Ctrl-C, SIGTERM: the user's, told from a plugin's
    try:
        # a refreshed line on a terminal, a plain line per pair in a pipe or a log
        progress = Progress(enabled=False if args.quiet else None)
        result = api.run_plan(plan, execution, progress)
        print_or_reader_left(render_table(result, columns=args.columns))  # `| head` saves
        _warn_broken(plan.plugins)  # after the run: bad input (a stale store) is one line
        from memory_bench.results.suspect import suspect_lines

        for line in suspect_lines(result):  # also first among the report's caveats
            _err(f"warning: {line}")
        say(f"result: {plan.out}")
        if plan.save:
            progress.note("writing the report set: Markdown, HTML, CSV and the plots")
            paths = api.publish(plan, result)
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
    from memory_bench.site import INTERRUPTED, build_site

    try:
        summary = build_site(args.reports, args.out, strict=args.strict,
                             say=lambda m: _err(f"site: {m}"))
    except KeyboardInterrupt:
        raise Interrupted(f"site: {INTERRUPTED}") from None
    for name, why in summary.skipped:
        _err(f"skipped {name}: {why}")
    print(printable(f"site: {summary.out_dir / 'index.html'} ({summary.runs} runs, "
                    f"{summary.sweeps} sweep(s), {len(summary.pages)} pages)"))
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    from memory_bench.results.io import load_result
    from memory_bench.session.verify import verify_result

    findings = verify_result(load_result(args.result), _plugins())
    if args.save:
        from memory_bench.session.verify import write_record

        write_record(args.result, findings)
    if args.json:
        print(json.dumps({"result": args.result.name,
                          "verified": all(f.status != "FAIL" for f in findings),
                          "checks": [vars(f) for f in findings]}, indent=2))
    else:
        for f in findings:
            print(printable(str(f)))
    return 1 if any(f.status == "FAIL" for f in findings) else 0


def cmd_reproduce(args: argparse.Namespace) -> int:
    from memory_bench.harness.progress import Progress
    from memory_bench.harness.runner import new_run_id
    from memory_bench.results.io import load_result
    from memory_bench.session.pipeline import execute
    from memory_bench.session.reproduce import (
        compare_reproduction,
        parse_seeds,
        reproduction_config,
    )

    seeds = parse_seeds(args.seeds) if args.seeds else None
    published = load_result(args.result)
    if published.comparisons is None or not any(b.summary for b in published.backends):
        from memory_bench.analysis.compare import ensure_analysis, summarize_backends

        ensure_analysis(published)
        summarize_backends(published)
    out = args.out or Path("runs") / f"reproduce-{new_run_id()}.json"
    cfg = reproduction_config(published, _plugins(), seeds, out, cache_dir=args.cache_dir)
    undo = interrupts.install()
    try:
        new = execute(cfg, Progress(enabled=False if args.quiet else None))
    finally:
        undo()
    lines = compare_reproduction(published, new)
    for line in lines:
        print(printable(str(line)))
    outside = [line for line in lines if line.status == "OUTSIDE"]
    exact = sum(line.status == "exact" for line in lines)
    within = sum(line.status == "within" for line in lines)
    print(printable(f"{exact + within} quality value(s) within the published interval "
                    f"({exact} reproduced exactly), {len(outside)} outside; the new result: "
                    f"{out}"))
    return 1 if outside else 0


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "backends": cmd_backends, "scenarios": cmd_scenarios, "plan": cmd_plan, "check": cmd_check,
    "run": cmd_run, "report": cmd_report, "compare": cmd_compare, "validate": cmd_validate,
    "export": cmd_export, "sweep": cmd_sweep, "site": cmd_site,
    "leaks": cmd_leaks, "verify": cmd_verify, "reproduce": cmd_reproduce}
