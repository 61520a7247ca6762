"""Analyse a result again with this checkout's analysis, as a new report set.

    python scripts/reanalyse.py RESULT.json[.gz] [REPORTS_DIR]

The pairs' records and metrics are kept as they are; the summaries, paired tests and
verdicts are computed again (``memory_bench.analysis.compare.analyse``), so a file
analysed by an older version (``analysis.version``) gets the current method. The new
set is reserved and written as ``run --save`` writes one (default ``reports/``, never
over an existing name: the run's own name takes a ``-2`` suffix), and the result
records when and from which version it was analysed again (``resumes``). Exit 2 on a
file it cannot read.

    python scripts/reanalyse.py RESULT --backends faiss-rag,mem0,graphiti --part models

keeps only those rows (their verdicts then corrected over their own comparisons) in a
set named ``…-<run id>-<part>``: how a result too large to publish in one file is split.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from memory_bench.analysis.compare import ANALYSIS_VERSION, analyse
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
        print(f"reanalyse: {exc}", file=sys.stderr)
        return 2
    note: dict = {}
    if args.backends:
        keep = args.backends.split(",")
        missing = sorted(set(keep) - {b.label for b in result.backends})
        if missing:
            print(f"reanalyse: no row {missing[0]!r} in {args.result}", file=sys.stderr)
            return 2
        result.backends = [b for b in result.backends if b.label in keep]
        note["selection"] = keep
    before = (result.analysis or {}).get("version")
    analyse(result)
    result.resumes.append({"at": now_iso(), "command": ["scripts/reanalyse.py"],
                           "reanalysed": {"from_version": before,
                                          "to_version": ANALYSIS_VERSION, **note}})
    run = f"{result.run_id}-{args.part}" if args.part else result.run_id
    paths = reserve_report_paths(Path(args.reports), result.scenario.name, run)
    save_report(result, paths)
    print(f"analysis {before} -> {ANALYSIS_VERSION}: {paths.md}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
