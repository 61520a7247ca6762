"""``make bench``'s matrix encoded once per run against encoded by every backend, in one sitting.

    .venv/bin/python benchmarks/bench_speed.py               # 10 seeds, as make bench
    .venv/bin/python benchmarks/bench_speed.py --seeds 2     # on a loaded machine
    .venv/bin/python benchmarks/bench_speed.py --repeat 2    # A B B A: less noise

Both sides are this checkout: ``memory-bench run --scenario hard --no-cache`` with
the Makefile's ``BENCH_BACKENDS`` and executor, once with ``--encode once`` (each
seed's distinct texts encoded once per embedder identity, in batches, into a
table every embedding backend reads) and once with ``--encode per-backend`` (each
backend encodes what it stores and asks, as before issue 23). Runs alternate, in
a scratch directory (nothing is written under this checkout).

It prints, with the load average before and after:

1. wall(once) / wall(per-backend) (target <= 0.3), the CPU ratio, and each side's
   pairs' recorded seconds;
2. whether every quality metric of every (backend, seed) pair is identical on the
   two sides (latency, ingest and memory are costs, not compared), and how many
   values were compared;
3. the vector tables' misses over every pair (target 0).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from makefile_vars import bench_backends

ROOT = Path(__file__).resolve().parent.parent
TARGET_RATIO = 0.3
COSTS = ("latency", "ingest", "rss", "_ms", "_per_s", "_mb", "seconds")
MODES = ("once", "per-backend")


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f}"


def _run(args: list[str], work: Path) -> tuple[float, float]:
    """Wall and CPU seconds (user + system, every process) of one CLI run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "memory_bench.cli", *args], cwd=work,
                          capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"exit {done.returncode}: {done.stderr[-3000:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _quality(result: dict[str, Any]) -> dict[tuple[str, int, str], float | None]:
    """(backend, seed, metric) -> value, over the metrics that are not costs."""
    out = {}
    for b in result["backends"]:
        for r in b["runs"]:
            for name, value in r["metrics"].items():
                if not any(c in name for c in COSTS):
                    out[(b["label"], r["seed"], name)] = value
    return out


def _pairs_seconds(result: dict[str, Any]) -> float:
    return sum(r["seconds"] for b in result["backends"] for r in b["runs"])


def _misses(result: dict[str, Any]) -> int:
    return sum(int((r.get("encoding") or {}).get("misses", 0)) for b in result["backends"]
               for r in b["runs"])


def _executor() -> list[str]:
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    for line in text.splitlines():
        if line.startswith("BENCH_EXECUTOR"):
            return line.split("=", 1)[1].split()
    return []


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=10, help="seeds per run (make bench: 10)")
    ap.add_argument("--repeat", type=int, default=1,
                    help="timed runs per side, alternating A B B A ... (default 1)")
    ap.add_argument("--json", type=Path, help="also write the measurements here")
    ap.add_argument("--keep", action="store_true", help="keep the scratch directory")
    args = ap.parse_args()

    matrix = bench_backends(ROOT)
    executor = _executor()
    load_before = _load()
    scratch = Path(tempfile.mkdtemp(prefix="memory-bench-speed-"))
    walls: dict[str, list[float]] = {m: [] for m in MODES}
    cpus: dict[str, list[float]] = {m: [] for m in MODES}
    pairs: dict[str, list[float]] = {m: [] for m in MODES}
    results: dict[str, dict[str, Any]] = {}
    try:
        print(f"load before: {load_before}  (1, 5, 15 min; {os.cpu_count()} cores); "
              f"{len(matrix)} backends x {args.seeds} seeds, {' '.join(executor)}", flush=True)
        plan: list[str] = []
        for i in range(args.repeat):
            plan += list(MODES) if i % 2 == 0 else list(MODES)[::-1]
        for n, mode in enumerate(plan):
            work = scratch / f"run-{n}-{mode}"
            work.mkdir()
            shutil.copytree(ROOT / "scenarios", work / "scenarios")
            out = work / "r.json"
            wall, cpu = _run(["run", "--scenario", "hard", "--seeds", str(args.seeds),
                              "--no-cache", "--quiet", *executor, "--encode", mode,
                              *(a for b in matrix for a in ("--backend", b)),
                              "--out", str(out)], work)
            doc = json.loads(out.read_text())
            walls[mode].append(wall)
            cpus[mode].append(cpu)
            pairs[mode].append(_pairs_seconds(doc))
            results.setdefault(mode, doc)
            print(f"  {mode:11s} {wall:7.1f} s wall, {cpu:7.1f} s CPU, pairs "
                  f"{pairs[mode][-1]:7.1f} s   (load {_load()})", flush=True)
        load_after = _load()
    finally:
        if args.keep:
            print(f"scratch kept: {scratch}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)

    once, per = (statistics.median(walls[m]) for m in MODES)
    ratio = once / per
    qa, qb = _quality(results["once"]), _quality(results["per-backend"])
    differ = sorted(k for k in qa.keys() | qb.keys() if qa.get(k) != qb.get(k))
    misses = _misses(results["once"])
    print()
    print(f"{args.seeds} seed(s), {args.repeat} run(s) per side; load before {load_before}, "
          f"after {load_after}")
    print(f"1. wall: once {once:.1f} s, per-backend {per:.1f} s, ratio {ratio:.3f} "
          f"(target <= {TARGET_RATIO}); CPU ratio "
          f"{statistics.median(cpus['once']) / statistics.median(cpus['per-backend']):.3f}; "
          f"pairs' seconds once {statistics.median(pairs['once']):.1f}, per-backend "
          f"{statistics.median(pairs['per-backend']):.1f}")
    print(f"2. quality metrics: {len(qa)} values compared, {len(differ)} differ"
          + (": " + ", ".join(f"{b} s{s} {m}" for b, s, m in differ[:10]) if differ else
             " (identical)"))
    print(f"3. vector-table misses over every pair: {misses}")
    ok = ratio <= TARGET_RATIO and not differ and misses == 0
    print("all targets met" if ok else "NOT all targets met")
    if args.json:
        args.json.write_text(json.dumps({
            "seeds": args.seeds, "repeat": args.repeat, "matrix": matrix,
            "executor": executor, "load_before": load_before, "load_after": load_after,
            "walls": walls, "cpu": cpus, "pairs_seconds": pairs, "ratio": ratio,
            "quality_values": len(qa), "quality_differ": [list(k) for k in differ],
            "misses": misses}, indent=1))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
