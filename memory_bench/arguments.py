"""The ``memory-bench`` command line's grammar: every subcommand and its options, checked
as argparse reads them (bad input is one line and exit 2). ``cli.py`` runs what it parses.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import Any, NoReturn

from memory_bench import __version__
from memory_bench.harness.executors.base import EXECUTORS
from memory_bench.harness.isolation import DEFAULT_TIMEOUT, ISOLATION_MODES

__all__ = ["build_parser"]

MAX_TIMEOUT = 7 * 86_400.0  # a week per pair: finite, and within what poll() can wait
MAX_SEEDS = 10_000
MAX_WORKERS = 1_024  # dask workers: a local cluster forks this many processes


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


def _workers(text: str) -> int:
    """``--workers``: a whole number, or ``auto``: the cores this process may use."""
    if text.strip().lower() == "auto":
        from memory_bench.harness.executors.cost import available_cores

        return min(MAX_WORKERS, available_cores())
    return _int_in(1, MAX_WORKERS)(text)


def _names(text: str) -> list[str]:
    names = [n.strip() for n in text.split(",") if n.strip()]
    if not names:
        raise argparse.ArgumentTypeError("expected metric names separated by commas")
    return names


def _seed_list(text: str) -> tuple[int, ...]:
    """An argparse type: seeds as ``100-109``, ``0,3,5`` or a mix, ascending, distinct."""
    seeds: list[int] = []
    try:
        for part in text.split(","):
            low, dash, high = part.strip().partition("-")
            a = int(low)
            b = int(high) if dash else a
            if not 0 <= a <= b <= 2**31 - 1 or b - a >= MAX_SEEDS:
                raise ValueError
            seeds += range(a, b + 1)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected seeds such as 100-109 or 0,3,5, got {text!r}") from None
    if len(set(seeds)) != len(seeds) or len(seeds) > MAX_SEEDS:
        raise argparse.ArgumentTypeError(f"seeds repeat or are too many in {text!r}")
    return tuple(sorted(seeds))


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="memory-bench",
        description="Score memory systems side by side with one continual-memory protocol.",
    )
    p.add_argument("--version", action="version", version=f"memory-bench {__version__}")
    sub = p.add_subparsers(dest="command", required=True)

    b = sub.add_parser("backends", help="list installed backends (one line each: name, kind, "
                       "capabilities) and broken plugins; with NAME, one backend in full")
    b.add_argument("name", nargs="?", metavar="NAME", help="show this backend in full: its "
                   "description, options, notes, plugin")
    b.add_argument("--json", action="store_true", help="machine-readable output")
    sc = sub.add_parser("scenarios", help="list scenario files and generators, one line "
                        "each; with NAME, every parameter at the value it runs with")
    sc.add_argument("name", nargs="?", metavar="NAME", help="a scenario (file) or generator")
    sc.add_argument("--json", action="store_true", help="machine-readable output")

    def run_options(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("--backend", action="append", default=[], metavar="SPEC",
                        help="NAME or NAME:key=value,... (repeatable; default: every backend)")
        sp.add_argument("--scenario", metavar="NAME|PATH",
                        help="scenario name in scenarios/ or a TOML file (default: hard, the "
                             "published headline)")
        seeds = sp.add_mutually_exclusive_group()
        seeds.add_argument("--seeds", type=_int_in(1, MAX_SEEDS), metavar="N",
                           help="run N seeds (default: scenario)")
        seeds.add_argument("--seed", type=_int_in(0, 2**31 - 1), metavar="N",
                           help="run this one seed")
        sp.add_argument("--publish-seeds", action="store_true",
                        help="draw the seeds (as many as --seeds or the scenario's) from "
                             "SHA-256 of the run id and the commit, at start: held out from "
                             "any tuning; recorded in the manifest (seed_draw)")
        sp.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="override a scenario parameter (repeatable)")
        sp.add_argument("--out", type=Path, metavar="PATH",
                        help="result JSON (default: runs/<run id>.json)")
        sp.add_argument("--save", action="store_true",
                        help="also write JSON, Markdown, HTML, CSV and PNG plots under "
                             "reports/, never overwriting; refused from a checkout with "
                             "uncommitted changes")
        sp.add_argument("--allow-dirty", action="store_true",
                        help="--save from a checkout with uncommitted changes: the result "
                             "records the diff's hash and is labelled dirty everywhere")
        sp.add_argument("--cache-dir", type=Path, metavar="DIR",
                        help="embedding cache (default: ~/.cache/memory-bench, or "
                             "$MEMORY_BENCH_CACHE)")
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
    r.add_argument("--columns", type=_names, metavar="NAME,NAME,...",
                   help="the metrics the terminal table shows, by name or label (default: "
                        "the headline ones, split over several tables to fit the terminal; "
                        "the saved files hold every metric)")
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
    r.add_argument("--workers", type=_workers, metavar="N|auto",
                   help="process: N pairs at once, the longest rows first (default 1; auto: "
                   "the cores this process may use; pairs that share a store still one at "
                   "a time; the analysis runs its backend pairs on as many); dask: a local "
                   "cluster of N single-threaded workers on 127.0.0.1 (default 2); with "
                   "--scheduler, wait for N workers (default 1)")
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
                    help="also publish the sweep under reports/, never overwriting; "
                         "refused from a checkout with uncommitted changes")
    sw.add_argument("--allow-dirty", action="store_true",
                    help="--save from a dirty checkout, labelled dirty")
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

    site = sub.add_parser("site", help="build the static leaderboard of every published run")
    site.add_argument("reports", nargs="?", default=Path("reports"), type=Path,
                      help="the published results (default: reports)")
    site.add_argument("out", nargs="?", default=Path("site/leaderboard"), type=Path,
                      help="the site's directory, replaced whole (default: site/leaderboard)")
    site.add_argument("--strict", action="store_true",
                      help="a file that cannot be published is an error (exit 2), not skipped")
    ver = sub.add_parser("verify", help="check a result as a leaderboard entry: complete, "
                         "clean provenance, versions, records, data hashes, and every metric "
                         "and verdict recomputed from the records (exit 1 if any check fails)")
    ver.add_argument("result", type=Path)
    ver.add_argument("--json", action="store_true", help="machine-readable output")
    ver.add_argument("--save", action="store_true", help="also write <stem>.verified beside "
                     "the result (the site marks a verified entry; never overwritten)")
    rp = sub.add_parser("reproduce", help="run a published result again from its file and "
                        "say, per metric, whether the new value lies within the published "
                        "interval (exit 1 if a quality value does not)")
    rp.add_argument("result", type=Path)
    rp.add_argument("--seeds", metavar="SEEDS", help="only these seeds: 0-1 or 0,3,5 "
                    "(default: the result's)")
    rp.add_argument("--out", type=Path, metavar="PATH",
                    help="the new result (default: runs/reproduce-<run id>.json)")
    rp.add_argument("--cache-dir", type=Path, metavar="DIR",
                    help="an embedding cache (default: none)")
    rp.add_argument("--quiet", action="store_true", help="no progress display")
    val = sub.add_parser("validate", help="check a memory-bench-jsonl/1 file, line by line, "
                         "or a runbook (FILE.toml)")
    val.add_argument("file", type=Path)
    exp = sub.add_parser("export", help="write one seed's script of any scenario as a "
                         "memory-bench-jsonl/1 file or a runbook (docs/runbooks.md)")
    exp.add_argument("--scenario", required=True, metavar="NAME|PATH")
    exp.add_argument("--seed", type=_int_in(0, 2**31 - 1), default=0, metavar="N")
    exp.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                     help="override a scenario parameter (repeatable)")
    exp.add_argument("--format", choices=("jsonl", "runbook"), default="jsonl",
                     dest="export_format", help="jsonl (memory-bench-jsonl/1, the default) or "
                     "runbook (memory-bench-runbook/1 TOML, run by --scenario runbook)")
    exp.add_argument("file", type=Path, help="the new file (never overwritten)")
    lk = sub.add_parser("leaks", help="the learned leak scan: held-out ROC AUC of classifiers "
                        "that predict the answer key from what a backend sees (docs/leaks.md)")
    lk.add_argument("--scenario", default="hard", metavar="NAME|PATH",
                    help="scenario name in scenarios/ or a TOML file (default: hard)")
    lk.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="override a scenario parameter (repeatable)")
    lk.add_argument("--train-seeds", type=_seed_list, default=tuple(range(100, 110)),
                    metavar="SEEDS", help="fit on these seeds (default: 100-109, which no "
                    "published run uses)")
    lk.add_argument("--test-seeds", type=_seed_list, default=tuple(range(10)), metavar="SEEDS",
                    help="score on these seeds (default: 0-9, the published ones)")
    lk.add_argument("--model", action="append", choices=("logistic", "boosting"), default=[],
                    help="fit only this model (repeatable; default: both, the larger AUC "
                         "reported)")
    lk.add_argument("--negatives", type=_int_in(1, 10_000), default=40, metavar="N",
                    help="candidates drawn per question beside its answers (default: 40)")
    lk.add_argument("--json", type=Path, metavar="FILE",
                    help="also write the numbers to this new file (never overwritten)")
    lk.add_argument("--strict", action="store_true",
                    help="exit 1 when a bound is broken (default: report, exit 0)")
    return p


