"""The encode-once tables built by one child against as many children as workers, in
one sitting.

    .venv/bin/python benchmarks/table_parts.py            # hard, 10 seeds
    .venv/bin/python benchmarks/table_parts.py --seeds 4

Both sides run ``memory-bench run --scenario hard --no-cache`` with faiss-rag alone
(its pairs take a fraction of a second, so a run's wall time is the tables' build and
the analysis; the leak scan is off on both sides) and ``--workers 1`` (one child builds every seed's
table) against ``--workers N`` (N children, a share of the seeds each; default: the
cores this process may use). Prints each side's wall and CPU time, the ratio, the load
average before and after, and whether faiss-rag's quality values are identical (the
tables must be the same). Runs in a scratch directory; nothing is written here.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from pathlib import Path

from bench_speed import _load, _quality, _run


def _side(workers: int, seeds: int, where: Path) -> tuple[float, float, dict]:
    out = where / f"w{workers}.json"
    wall, cpu = _run(["run", "--scenario", "hard", "--seeds", str(seeds), "--no-cache",
                      "--quiet", "--backend", "faiss-rag", "--workers", str(workers),
                      "--out", str(out)], where)
    return wall, cpu, json.loads(out.read_text())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--workers", type=int, default=len(os.sched_getaffinity(0)))
    args = ap.parse_args()
    os.environ["MEMORY_BENCH_LEAK_SCAN"] = "off"  # the same on both sides; seconds each
    print(f"load average before: {_load()}")
    with tempfile.TemporaryDirectory() as tmp:
        one, cpu1, r1 = _side(1, args.seeds, Path(tmp))
        many, cpun, rn = _side(args.workers, args.seeds, Path(tmp))
    print(f"--workers 1: {one:.1f} s ({cpu1:.1f} s CPU); --workers {args.workers}: "
          f"{many:.1f} s ({cpun:.1f} s CPU); ratio {many / one:.3f}")
    enc = [next(iter(r["execution"]["encoders"].values())) for r in (r1, rn)]
    print("tables: items encoded", [e["items"] for e in enc], "item encode s",
          [e["item_encode_s"] for e in enc], "question p50 ms",
          [e["query_encode_p50_ms"] for e in enc])
    same = _quality(r1) == _quality(rn)
    print(f"faiss-rag's quality values identical: {same}")
    print(f"load average after: {_load()}")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
