"""``make bench``'s matrix two ways, in one sitting: the new matrix against the old, or
encoded once against encoded by every backend.

    .venv/bin/python benchmarks/bench_speed.py --compare matrix --seeds 1   # issue 38
    .venv/bin/python benchmarks/bench_speed.py               # encode modes, 10 seeds
    .venv/bin/python benchmarks/bench_speed.py --seeds 2     # on a loaded machine
    .venv/bin/python benchmarks/bench_speed.py --repeat 2    # A B B A: less noise

Both sides are this checkout: ``memory-bench run --scenario hard --no-cache`` with
the Makefile's ``BENCH_BACKENDS`` and executor. ``--compare matrix`` (issue 38): the
new matrix as make bench runs it (library stores in memory, ``--workers auto``, the
longest rows first, rerank at its default depth) against the old one (the stores'
``mode=persistent``, one pair at a time, ``rerank:depth=50``), rows paired by their
place in the matrix. ``--compare encode`` (issue 23, the default): ``--encode once``
(each seed's distinct texts encoded once per embedder identity, in batches, into a
table every embedding backend reads) against ``--encode per-backend`` (each backend
encodes what it stores and asks). Runs alternate, in a scratch directory (nothing is
written under this checkout).

It prints, with the load average before and after:

1. wall(first) / wall(second) (target <= 0.3 for encode; the matrix ratio is
   reported), the CPU ratio, and each side's pairs' recorded wall and CPU seconds;
2. whether every quality metric of every (row, seed) pair is identical on the
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
# The old matrix's rows where they differ from today's (main at 839123e).
OLD_ROWS = {"chroma": "chroma:mode=persistent", "qdrant": "qdrant:mode=persistent",
            "mem0": "mem0:mode=persistent",
            "mem0:scoring=store": "mem0:scoring=store,mode=persistent",
            "rerank": "rerank:depth=50"}


def _sides(compare: str, matrix: list[str]) -> dict[str, tuple[list[str], list[str]]]:
    """side -> (its run's extra arguments, its rows in the matrix's order)."""
    if compare == "matrix":
        return {"new": (["--workers", "auto"], matrix),
                "old": (["--workers", "1"], [OLD_ROWS.get(b, b) for b in matrix])}
    return {"once": (["--encode", "once"], matrix),
            "per-backend": (["--encode", "per-backend"], matrix)}


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


def _quality(result: dict[str, Any]) -> dict[tuple[int, int, str], float | None]:
    """(row's place, seed, metric) -> value, over the metrics that are not costs."""
    out = {}
    for i, b in enumerate(result["backends"]):
        for r in b["runs"]:
            for name, value in r["metrics"].items():
                if not any(c in name for c in COSTS):
                    out[(i, r["seed"], name)] = value
    return out


def _pairs_seconds(result: dict[str, Any]) -> float:
    return sum(r["seconds"] for b in result["backends"] for r in b["runs"])


def _pairs_cpu(result: dict[str, Any]) -> float:
    """The pairs' own CPU seconds (recorded since issue 38; 0 before)."""
    return sum((r.get("worker") or {}).get("cpu_s") or 0.0 for b in result["backends"]
               for r in b["runs"])


def _rows(result: dict[str, Any]) -> list[tuple[str, float, float]]:
    """(row, its pairs' wall seconds, their CPU seconds), the longest first."""
    out = [(b["label"], sum(r["seconds"] for r in b["runs"]),
            sum((r.get("worker") or {}).get("cpu_s") or 0.0 for r in b["runs"]))
           for b in result["backends"]]
    return sorted(out, key=lambda x: -x[1])


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
    ap.add_argument("--compare", choices=("encode", "matrix"), default="encode",
                    help="encode: once vs per-backend (issue 23); matrix: the new make "
                    "bench matrix vs the old (issue 38)")
    ap.add_argument("--seeds", type=int, default=10, help="seeds per run (make bench: 10)")
    ap.add_argument("--repeat", type=int, default=1,
                    help="timed runs per side, alternating A B B A ... (default 1)")
    ap.add_argument("--json", type=Path, help="also write the measurements here")
    ap.add_argument("--keep", action="store_true", help="keep the scratch directory")
    args = ap.parse_args()

    matrix = bench_backends(ROOT)
    sides = _sides(args.compare, matrix)
    modes = tuple(sides)  # the two sides, in the order they first run
    executor = _executor()
    load_before = _load()
    scratch = Path(tempfile.mkdtemp(prefix="memory-bench-speed-"))
    walls: dict[str, list[float]] = {m: [] for m in modes}
    cpus: dict[str, list[float]] = {m: [] for m in modes}
    pairs: dict[str, list[float]] = {m: [] for m in modes}
    pairs_cpu: dict[str, list[float]] = {m: [] for m in modes}
    results: dict[str, dict[str, Any]] = {}
    try:
        print(f"load before: {load_before}  (1, 5, 15 min; {os.cpu_count()} cores); "
              f"{len(matrix)} backends x {args.seeds} seeds, {' '.join(executor)}", flush=True)
        plan: list[str] = []
        for i in range(args.repeat):
            plan += list(modes) if i % 2 == 0 else list(modes)[::-1]
        for n, mode in enumerate(plan):
            work = scratch / f"run-{n}-{mode}"
            work.mkdir()
            shutil.copytree(ROOT / "scenarios", work / "scenarios")
            out = work / "r.json"
            extra, rows = sides[mode]
            wall, cpu = _run(["run", "--scenario", "hard", "--seeds", str(args.seeds),
                              "--no-cache", "--quiet", *executor, *extra,
                              *(a for b in rows for a in ("--backend", b)),
                              "--out", str(out)], work)
            doc = json.loads(out.read_text())
            walls[mode].append(wall)
            cpus[mode].append(cpu)
            pairs[mode].append(_pairs_seconds(doc))
            pairs_cpu[mode].append(_pairs_cpu(doc))
            results.setdefault(mode, doc)
            print(f"  {mode:11s} {wall:7.1f} s wall, {cpu:7.1f} s CPU, pairs "
                  f"{pairs[mode][-1]:7.1f} s wall {pairs_cpu[mode][-1]:7.1f} s CPU   "
                  f"(load {_load()})", flush=True)
            for label, wall_s, cpu_s in _rows(doc):
                print(f"      {label:36s} {wall_s:7.1f} s wall {cpu_s:7.1f} s CPU")
        load_after = _load()
    finally:
        if args.keep:
            print(f"scratch kept: {scratch}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)

    once, per = (statistics.median(walls[m]) for m in modes)
    ratio = once / per
    qa, qb = _quality(results[modes[0]]), _quality(results[modes[1]])
    differ = sorted(k for k in qa.keys() | qb.keys() if qa.get(k) != qb.get(k))
    misses = _misses(results[modes[0]])
    print()
    print(f"{args.seeds} seed(s), {args.repeat} run(s) per side; load before {load_before}, "
          f"after {load_after}")
    a, b = modes
    print(f"1. wall: {a} {once:.1f} s, {b} {per:.1f} s, ratio {ratio:.3f}"
          + (f" (target <= {TARGET_RATIO})" if args.compare == "encode" else "")
          + f"; CPU ratio {statistics.median(cpus[a]) / statistics.median(cpus[b]):.3f}; "
          f"pairs' seconds {a} {statistics.median(pairs[a]):.1f}, {b} "
          f"{statistics.median(pairs[b]):.1f}; pairs' CPU seconds {a} "
          f"{statistics.median(pairs_cpu[a]):.1f}, {b} {statistics.median(pairs_cpu[b]):.1f}")
    names = [x["label"] for x in results[a]["backends"]]
    print(f"2. quality metrics: {len(qa)} values compared, {len(differ)} differ"
          + (": " + ", ".join(f"{names[i]} s{s} {m}" for i, s, m in differ[:10]) if differ
             else " (identical)"))
    print(f"3. vector-table misses over every pair: {misses}")
    target = ratio <= TARGET_RATIO if args.compare == "encode" else True
    ok = target and not differ and misses == 0
    print("all targets met" if ok else "NOT all targets met")
    if args.json:
        args.json.write_text(json.dumps({
            "seeds": args.seeds, "repeat": args.repeat, "matrix": matrix,
            "executor": executor, "load_before": load_before, "load_after": load_after,
            "compare": args.compare, "walls": walls, "cpu": cpus, "pairs_seconds": pairs,
            "pairs_cpu_seconds": pairs_cpu, "ratio": ratio,
            "quality_values": len(qa), "quality_differ": [list(k) for k in differ],
            "misses": misses}, indent=1))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
