"""Analyse a result again with this checkout's analysis, as a new report set.

    python scripts/reanalyse.py RESULT.json[.gz] [REPORTS_DIR]

The pairs' records and metrics are kept as they are; the summaries, paired tests and
verdicts are computed again (``memory_bench.analysis.compare.analyse``), so a file
analysed by an older version (``analysis.version``) gets the current method. The new
set is reserved and written as ``run --save`` writes one (default ``reports/``, never
over an existing name: the run's own name takes a ``-2`` suffix), and the result
records when and from which version it was analysed again (``resumes``). Exit 2 on a
file it cannot read.
"""

from __future__ import annotations

import sys
from pathlib import Path

from memory_bench.analysis.compare import ANALYSIS_VERSION, analyse
from memory_bench.render.save import save_report
from memory_bench.results.io import load_result, now_iso
from memory_bench.results.paths import reserve_report_paths


def main(argv: list[str]) -> int:
    if len(argv) not in (1, 2):
        print("usage: python scripts/reanalyse.py RESULT.json[.gz] [REPORTS_DIR]",
              file=sys.stderr)
        return 2
    try:
        result = load_result(Path(argv[0]))
    except (OSError, ValueError) as exc:
        print(f"reanalyse: {exc}", file=sys.stderr)
        return 2
    before = (result.analysis or {}).get("version")
    analyse(result)
    result.resumes.append({"at": now_iso(), "command": ["scripts/reanalyse.py"],
                           "reanalysed": {"from_version": before,
                                          "to_version": ANALYSIS_VERSION}})
    paths = reserve_report_paths(Path(argv[1] if len(argv) == 2 else "reports"),
                                 result.scenario.name, result.run_id)
    save_report(result, paths)
    print(f"analysis {before} -> {ANALYSIS_VERSION}: {paths.md}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
