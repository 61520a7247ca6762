"""The ``memory-bench`` command: parses arguments, runs the command, maps problems to exit
statuses. The commands themselves are in ``commands.py``; nothing here imports numpy.

Exit status: 0 success; 1 a run finished but some pairs failed (or left items
behind in a store, or a run of every backend lacked a plugin that failed to
load), or ``check`` found a broken promise, or it failed outside a pair, or an
unexpected error (one line; ``MEMORY_BENCH_DEBUG=1`` shows the traceback), or a
plugin's native crash (one line naming it, the signal and the phase); 2 bad
input (one line on stderr, nothing written), argparse's errors included; 130
interrupted (the message says whether the result file holds finished pairs to
``--resume``).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from memory_bench import __version__
from memory_bench.errors import BadInput, Interrupted, MemoryBenchError, printable
from memory_bench.harness.executors.base import EXECUTORS
from memory_bench.harness.isolation import DEFAULT_TIMEOUT, ISOLATION_MODES

__all__ = ["main"]

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


def _names(text: str) -> list[str]:
    names = [n.strip() for n in text.split(",") if n.strip()]
    if not names:
        raise argparse.ArgumentTypeError("expected metric names separated by commas")
    return names


def _parser() -> argparse.ArgumentParser:
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
        sp.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="override a scenario parameter (repeatable)")
        sp.add_argument("--out", type=Path, metavar="PATH",
                        help="result JSON (default: runs/<run id>.json)")
        sp.add_argument("--save", action="store_true",
                        help="also write JSON, Markdown, HTML, CSV and PNG plots under "
                             "reports/, never overwriting")
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
    r.add_argument("--workers", type=_int_in(1, MAX_WORKERS), metavar="N",
                   help="process: N pairs at once (default 1; pairs that share a store "
                   "still one at a time); dask: a local cluster of N single-threaded workers "
                   "on 127.0.0.1 (default 2); with --scheduler, wait for N workers (default 1)")
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

    site = sub.add_parser("site", help="build the static leaderboard of every published run")
    site.add_argument("reports", nargs="?", default=Path("reports"), type=Path,
                      help="the published results (default: reports)")
    site.add_argument("out", nargs="?", default=Path("site/leaderboard"), type=Path,
                      help="the site's directory, replaced whole (default: site/leaderboard)")
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
    return p


def main(argv: Sequence[str] | None = None, *, guard: bool | None = None) -> int:
    """The command. ``guard`` (default: when ``argv`` is None, i.e. this process's own
    command line) runs it in a watched child, so that a plugin's native crash is
    named in one line instead of killing the command silently (``crashguard``)."""
    if guard if guard is not None else argv is None:
        from memory_bench.crashguard import guarded

        return guarded(lambda: _command(argv))
    return _command(argv)


def _command(argv: Sequence[str] | None) -> int:
    from memory_bench.commands import COMMANDS, stdout_to_devnull

    args = _parser().parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except BadInput as exc:
        print(f"memory-bench: error: {printable(exc)}", file=sys.stderr)
        return 2
    except Interrupted as exc:
        print(f"memory-bench: {printable(exc)}", file=sys.stderr)
        return exc.exit_status
    except MemoryBenchError as exc:  # the result file says "failed", with this error
        print(f"memory-bench: error: {printable(exc)}", file=sys.stderr)
        return exc.exit_status
    except KeyboardInterrupt:
        print("memory-bench: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `memory-bench ... | head`: the reader left; end quietly
        stdout_to_devnull()
        return 0
    except Exception as exc:  # a bug or the machine (disk full, out of memory): one line
        if os.environ.get("MEMORY_BENCH_DEBUG"):
            raise
        print(f"memory-bench: error: {type(exc).__name__}: {printable(exc)} "
              "(MEMORY_BENCH_DEBUG=1 shows the traceback)", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
