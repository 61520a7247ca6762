"""The ``memory-bench`` command: parses arguments and delegates; no logic of its own.

Exit status: 0 success; 1 a run finished but some pairs failed; 2 bad input
(one line on stderr, nothing written).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memory_bench import __version__
from memory_bench.options import OptionError
from memory_bench.paths import OutputError, check_writable, default_cache_dir, unique_report_paths
from memory_bench.plugins import LoadedPlugins, load_plugins
from memory_bench.registry import DuplicateBackendError
from memory_bench.result import ResultError, load_result, write_result
from memory_bench.scenario import Scenario, ScenarioError, load_scenario
from memory_bench.selection import BackendSelection, SelectionError, select_backends

__all__ = ["main"]

BAD_INPUT = (OptionError, ScenarioError, SelectionError, OutputError, ResultError,
             DuplicateBackendError)


class UsageError(Exception):
    """Bad input: reported on one line, exit status 2."""


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="memory-bench",
        description="Score memory systems side by side with one continual-memory protocol.",
    )
    p.add_argument("--version", action="version", version=f"memory-bench {__version__}")
    sub = p.add_subparsers(dest="command", required=True)

    b = sub.add_parser("backends", help="list installed backends and broken plugins")
    b.add_argument("--json", action="store_true", help="machine-readable output")

    def run_options(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("--backend", action="append", default=[], metavar="SPEC",
                        help="NAME or NAME:key=value,... (repeatable; default: every backend)")
        sp.add_argument("--scenario", default="default", metavar="NAME|PATH",
                        help="scenario name in scenarios/ or a TOML file (default: default)")
        seeds = sp.add_mutually_exclusive_group()
        seeds.add_argument("--seeds", type=int, metavar="N", help="run N seeds (default: scenario)")
        seeds.add_argument("--seed", type=int, metavar="N", help="run this one seed")
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
    r = sub.add_parser("run", help="run the protocol and print the comparison")
    run_options(r)
    r.add_argument("--quiet", action="store_true", help="no progress display")
    r.add_argument("--keep-work", action="store_true", help="keep each pair's store directory")

    rep = sub.add_parser("report", help="render a saved result again")
    rep.add_argument("result", type=Path)
    rep.add_argument("--format", default="md",
                     choices=("md", "headline", "json", "table", "html", "csv", "png"),
                     help="md (default), headline (the results table alone, for a README), "
                          "json, table, html (plots inlined), csv (per-seed metrics), png "
                          "(the plots; needs --out DIR)")
    rep.add_argument("--out", type=Path, metavar="PATH",
                     help="write to this new file instead of stdout (png: a directory)")

    cmp = sub.add_parser("compare", help="compare two result files, backend by backend")
    cmp.add_argument("old", type=Path)
    cmp.add_argument("new", type=Path)
    cmp.add_argument("--metric", action="append", default=[], metavar="NAME",
                     help="only these metrics (repeatable; default: every metric)")
    cmp.add_argument("--json", action="store_true", help="machine-readable output")
    cmp.add_argument("--fail-on-regression", action="store_true",
                     help="exit 1 when any metric of any backend regressed")
    return p


def _plugins() -> LoadedPlugins:
    return load_plugins()


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
        from memory_bench.runner import new_run_id

        self.scenario: Scenario = load_scenario(args.scenario, _overrides(args.set))
        try:
            self.selections: list[BackendSelection] = select_backends(
                loaded.registry, args.backend
            )
        except SelectionError as exc:
            if loaded.broken and "unknown backend" in str(exc):
                names = ", ".join(b.entry_point for b in loaded.broken)
                raise SelectionError(f"{exc}; plugins that failed to load: {names}") from None
            raise
        if args.seed is not None:
            self.seeds = [args.seed]
        elif args.seeds is not None:
            if args.seeds <= 0:
                raise UsageError("--seeds must be positive")
            self.seeds = self.scenario.seed_list(args.seeds)
        else:
            self.seeds = self.scenario.seed_list()
        self.run_id = new_run_id()
        self.out: Path = args.out or Path("runs") / f"{self.run_id}.json"
        check_writable(self.out)
        self.cache_dir = None if args.no_cache else (args.cache_dir or default_cache_dir())
        self.save = args.save
        if self.save:
            check_writable(Path("reports") / "x.json", allow_existing=True)
            self.report_paths = unique_report_paths(Path("reports"), self.scenario.name,
                                                    self.run_id)

    def describe(self) -> str:
        s = self.scenario
        lines = [f"run {self.run_id} (not started)", "backends:"]
        for sel in self.selections:
            opts = ", ".join(f"{k}={v}" for k, v in sel.options.items()) or "no options"
            lines.append(f"  {sel.label}: {sel.info.name} {sel.info.version} ({opts})")
        lines += [
            f"scenario: {s.name} (generator {s.generator}) — facts {s.facts}, noise {s.noise}, "
            f"updates {s.updates}, gate {s.gate_refusable} refusable + {s.gate_clean} clean, "
            f"reinforce {s.reinforce_cells}×{s.reinforce_queries}, k {s.k}, "
            f"consolidate {'on' if s.consolidate else 'off'}",
            f"seeds: {', '.join(map(str, self.seeds))}",
            f"pairs: {len(self.selections) * len(self.seeds)}",
            f"result: {self.out}",
            f"embedding cache: {self.cache_dir or 'off'}",
        ]
        if self.save:
            lines.append(f"report: {self.report_paths.md} (+ .json .html .csv and PNGs)")
        return "\n".join(lines)


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


def cmd_plan(args: argparse.Namespace) -> int:
    print(_Plan(args, _plugins()).describe())
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    from memory_bench.compare import analyse
    from memory_bench.manifest import build_manifest
    from memory_bench.progress import Progress
    from memory_bench.render.save import save_report
    from memory_bench.render.table import render_table
    from memory_bench.runner import RunConfig, run_benchmark

    plan = _Plan(args, _plugins())
    cfg = RunConfig(
        selections=plan.selections,
        scenario=plan.scenario,
        seeds=plan.seeds,
        out=plan.out,
        run_id=plan.run_id,
        cache_dir=plan.cache_dir,
        manifest=build_manifest(plan.selections),
        keep_work=args.keep_work,
    )
    progress = Progress(enabled=False if args.quiet else None)
    result = run_benchmark(cfg, progress)
    analyse(result)  # summaries with bootstrap and paired comparisons, kept in the file
    write_result(plan.out, result)
    print(render_table(result))
    say = (lambda m: None) if args.quiet else (lambda m: print(m, file=sys.stderr))
    say(f"result: {plan.out}")
    if plan.save:
        paths = save_report(result, plan.report_paths, written=plan.out)
        say(f"report: {paths.md} (also {paths.html.name}, {paths.csv.name}, "
            f"{paths.json.name} and PNGs)")
    failed = [r for b in result["backends"] for r in b["runs"] if r.get("status") != "ok"]
    return 1 if failed else 0


def cmd_report(args: argparse.Namespace) -> int:
    from memory_bench.render.report import render_to

    result = load_result(args.result)
    return render_to(result, args.format, args.out, stem=args.result.stem)


def cmd_compare(args: argparse.Namespace) -> int:
    from memory_bench.compare import compare_runs
    from memory_bench.metrics import BY_NAME
    from memory_bench.render.comparison import render_comparison

    unknown = [m for m in args.metric if m not in BY_NAME]
    if unknown:
        raise UsageError(f"unknown metric {unknown[0]!r} (known: {', '.join(BY_NAME)})")
    old, new = load_result(args.old), load_result(args.new)
    report = compare_runs(old, new, args.metric or None)
    print(json.dumps(report, indent=1) if args.json else render_comparison(report))
    return 1 if args.fail_on_regression and report["regressions"] else 0


COMMANDS = {"backends": cmd_backends, "plan": cmd_plan, "run": cmd_run, "report": cmd_report,
            "compare": cmd_compare}


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except (UsageError, *BAD_INPUT) as exc:
        print(f"memory-bench: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("memory-bench: interrupted; finished pairs are in the result file", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
