"""Analyse a result again with this checkout's analysis, as a new report set.

    python scripts/reanalyse.py RESULT.json[.gz] [REPORTS_DIR]

The pairs' records and metrics are kept as they are; the summaries, paired tests and
verdicts are computed again (``memory_bench.analysis.compare.analyse``), so a file
analysed by an older version (``analysis.version``) gets the current method. The new
set is reserved and written as ``run --save`` writes one (default ``reports/``, never
over an existing name: the run's own name takes a ``-2`` suffix), and the result
records when and from which version it was analysed again (``resumes``). Exit 2, one
line, on a file it cannot read or analyse (a damaged or ragged outcome row) and on a
reports directory it cannot write (read-only, not permitted); exit 1, one line, when the
disk fills while writing: the set is staged under temporary names and renamed into
place only once complete, so no partial set is left.

    python scripts/reanalyse.py RESULT --backends faiss-rag,mem0,graphiti --part models

keeps only those rows (their verdicts then corrected over their own comparisons) in a
set named ``…-<run id>-<part>``: how a result too large to publish in one file is split.
"""

from __future__ import annotations

import argparse
import errno
import sys
from pathlib import Path

from memory_bench.analysis.compare import ANALYSIS_VERSION, analyse
from memory_bench.errors import BadInput, printable
from memory_bench.render.save import save_report
from memory_bench.results.io import load_result, now_iso
from memory_bench.results.paths import reserve_report_paths


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="reanalyse.py")
    ap.add_argument("result")
    ap.add_argument("reports", nargs="?", default="reports")
    ap.add_argument("--backends", help="keep only these rows (labels, comma-separated)")
    ap.add_argument("--part", help="with --backends: the name's suffix for this part")
    args = ap.parse_args(argv)
    if bool(args.backends) != bool(args.part):
        ap.error("--backends and --part go together")
    try:
        result = load_result(Path(args.result))
    except (OSError, ValueError) as exc:
        return _say(exc, 2)
    note: dict = {}
    if args.backends:
        keep = args.backends.split(",")
        missing = sorted(set(keep) - {b.label for b in result.backends})
        if missing:
            return _say(f"no row {missing[0]!r} in {args.result}", 2)
        result.backends = [b for b in result.backends if b.label in keep]
        note["selection"] = keep
    before = (result.analysis or {}).get("version")
    try:
        analyse(result)
    except (ValueError, TypeError, KeyError, ArithmeticError) as exc:  # rows the reader took
        return _say(f"{args.result} cannot be analysed: {type(exc).__name__}: {exc}", 2)
    result.resumes.append({"at": now_iso(), "command": ["scripts/reanalyse.py"],
                           "reanalysed": {"from_version": before,
                                          "to_version": ANALYSIS_VERSION, **note}})
    run = f"{result.run_id}-{args.part}" if args.part else result.run_id
    try:
        paths = reserve_report_paths(Path(args.reports), result.scenario.name, run)
        save_report(result, paths)
    except BadInput as exc:
        return _say(exc, 2)
    except OSError as exc:
        return _say(f"cannot write the report set in {args.reports}: {exc.strerror or exc}"
                    f"{'; nothing was published' if exc.errno in FULL else ''}",
                    1 if exc.errno in FULL else 2)
    print(printable(f"analysis {before} -> {ANALYSIS_VERSION}: {paths.md}"))
    return 0


FULL = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)  # the machine's, not the input's: exit 1


def _say(problem: object, status: int) -> int:
    print(f"reanalyse: {printable(problem)}", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
