"""``python -m memory_bench.site [REPORTS] [OUT]``: build the leaderboard (``make site``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from memory_bench.results.io import ResultError
from memory_bench.site import SiteError, build_site


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m memory_bench.site",
                                 description="Build a static leaderboard of every run "
                                             "published under REPORTS.")
    ap.add_argument("reports", nargs="?", default="reports", type=Path,
                    help="the published results (default: reports)")
    ap.add_argument("out", nargs="?", default="site/leaderboard", type=Path,
                    help="the site's directory, replaced whole (default: site/leaderboard)")
    args = ap.parse_args(argv)
    try:
        summary = build_site(args.reports, args.out,
                             say=lambda m: print(f"memory-bench site: {m}", file=sys.stderr,
                                                 flush=True))
    except (SiteError, ResultError, OSError) as exc:
        print(f"memory-bench site: {exc}", file=sys.stderr)
        return 2
    for name, why in summary.skipped:
        print(f"memory-bench site: skipped {name}: {why}", file=sys.stderr)
    print(f"site: {summary.out_dir / 'index.html'} ({summary.runs} runs, {summary.sweeps} "
          f"sweep(s), {len(summary.pages)} pages)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
