"""The encode-once tables built by one child against as many children as workers, in
one sitting.

    .venv/bin/python benchmarks/table_parts.py            # hard, 10 seeds
    .venv/bin/python benchmarks/table_parts.py --seeds 4

Both sides run ``memory-bench run --scenario hard --no-cache`` with faiss-rag alone
(its pairs take a fraction of a second, so a run's wall time is the tables' build,
the leak scan and the analysis) and ``--workers 1`` (one child builds every seed's
table) against ``--workers N`` (N children, a share of the seeds each; default: the
cores this process may use). Prints each side's wall time, the ratio, the load
average before and after, and whether faiss-rag's quality values are identical (the
tables must be the same). Runs in a scratch directory; nothing is written here.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CLI = ROOT / ".venv" / "bin" / "memory-bench"
COSTS = ("latency", "ingest", "rss", "_ms", "_per_s", "_mb", "seconds")


def _run(workers: int, seeds: int, where: Path) -> tuple[float, dict]:
    out = where / f"w{workers}.json"
    start = time.perf_counter()
    done = subprocess.run([str(CLI), "run", "--scenario", "hard", "--seeds", str(seeds),
                           "--no-cache", "--quiet", "--backend", "faiss-rag", "--workers",
                           str(workers), "--out", str(out)], cwd=where, capture_output=True,
                          text=True, env={**os.environ, "MEMORY_BENCH_LEAK_SCAN": "off"})
    wall = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"table_parts: the run with --workers {workers} failed: "
                 f"{done.stderr.strip().splitlines()[-1:]}")
    return wall, json.loads(out.read_text())


def _quality(result: dict) -> list[dict]:
    return [{k: v for k, v in run["metrics"].items() if not any(c in k for c in COSTS)}
            for be in result["backends"] for run in be["runs"]]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--workers", type=int, default=len(os.sched_getaffinity(0)))
    args = ap.parse_args()
    print(f"load average before: {os.getloadavg()}")
    with tempfile.TemporaryDirectory() as tmp:
        one, r1 = _run(1, args.seeds, Path(tmp))
        many, rn = _run(args.workers, args.seeds, Path(tmp))
    print(f"--workers 1: {one:.1f} s; --workers {args.workers}: {many:.1f} s; "
          f"ratio {many / one:.3f}")
    enc = [next(iter(r["execution"]["encoders"].values())) for r in (r1, rn)]
    print("tables: items encoded", [e["items"] for e in enc], "item encode s",
          [e["item_encode_s"] for e in enc], "question p50 ms",
          [e["query_encode_p50_ms"] for e in enc])
    same = _quality(r1) == _quality(rn)
    print(f"faiss-rag's quality values identical: {same}")
    print(f"load average after: {os.getloadavg()}")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
