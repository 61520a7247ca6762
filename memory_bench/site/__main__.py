"""``python -m memory_bench.site [REPORTS] [OUT]``: build the leaderboard (``make site``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from memory_bench import interrupts
from memory_bench.errors import printable
from memory_bench.results.io import ResultError
from memory_bench.site import INTERRUPTED, SiteError, build_site


def main(argv: list[str] | None = None) -> int:
    undo = interrupts.install()  # SIGTERM as Ctrl-C: the build's own cleanup runs
    try:
        return _main(argv)
    except KeyboardInterrupt:
        print(f"memory-bench site: {INTERRUPTED}", file=sys.stderr)
        return 130
    finally:
        undo()


def _main(argv: list[str] | None) -> int:
    ap = argparse.ArgumentParser(prog="python -m memory_bench.site",
                                 description="Build a static leaderboard of every run "
                                             "published under REPORTS.")
    ap.add_argument("reports", nargs="?", default="reports", type=Path,
                    help="the published results (default: reports)")
    ap.add_argument("out", nargs="?", default="site/leaderboard", type=Path,
                    help="the site's directory, replaced whole (default: site/leaderboard)")
    ap.add_argument("--strict", action="store_true",
                    help="a file that cannot be published is an error (exit 2), not skipped")
    args = ap.parse_args(argv)
    try:
        summary = build_site(args.reports, args.out, strict=args.strict,
                             say=lambda m: print(f"memory-bench site: {m}", file=sys.stderr,
                                                 flush=True))
    except (SiteError, ResultError) as exc:
        print(f"memory-bench site: {printable(exc)}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"memory-bench site: {printable(exc)}", file=sys.stderr)
        return 2 if isinstance(exc, PermissionError) else 1
    for name, why in summary.skipped:
        print(printable(f"memory-bench site: skipped {name}: {why}"), file=sys.stderr)
    print(printable(f"site: {summary.out_dir / 'index.html'} ({summary.runs} runs, "
                    f"{summary.sweeps} sweep(s), {len(summary.pages)} pages)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
