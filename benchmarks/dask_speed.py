"""Wall time of the ``make bench`` matrix: the dask executor against the process executor.

    .venv/bin/python benchmarks/dask_speed.py [--workers 2] [--repeats 1] [--seeds 5]
                                              [--backend SPEC ...] [--json]

Both sides run in this one sitting, as ``make bench`` runs them (``memory-bench
run --scenario default --seeds 5 --save`` with the Makefile's BENCH_BACKENDS), each
a fresh ``memory-bench`` process timed from start to exit: plugin loading, model
preload, the cluster's start-up and shutdown, the pairs, statistics and the
saved report all count. Everything is written under a temporary directory,
including the embedding cache, which one untimed run warms first so that both
sides read the same warm cache (``make bench`` on a developer's machine does).
With ``--repeats N`` the order alternates (process first, then dask first).

It prints each run's seconds, the ratio dask / process (the median over
repeats), the target (<= 0.65) and whether every quality metric agrees between
the two executors. Run it on a quiet machine: the load average before and
after is printed so that a number taken under load says so.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from makefile_vars import bench_backends as makefile_bench_backends

ROOT = Path(__file__).resolve().parent.parent
MB = Path(sys.executable).parent / "memory-bench"
TARGET = 0.65
TIMING = {"latency_p50_ms", "latency_p95_ms", "ingest_items_per_s"}


def bench_backends() -> list[str]:
    """BENCH_BACKENDS from the Makefile: the matrix ``make bench`` runs."""
    return makefile_bench_backends(ROOT)


def run(args: list[str], cwd: Path) -> float:
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    t0 = time.perf_counter()
    out = subprocess.run([str(MB), "run", *args], cwd=cwd, env=env, capture_output=True,
                         text=True)
    seconds = time.perf_counter() - t0
    if out.returncode != 0:
        raise SystemExit(f"memory-bench run {' '.join(args)} exited {out.returncode}:\n"
                         f"{out.stderr[-2000:]}")
    return seconds


def quality(path: Path) -> dict[tuple[str, int], dict[str, float | None]]:
    doc = json.loads(path.read_text(encoding="utf-8"))
    return {(b["label"], r["seed"]): {k: v for k, v in r["metrics"].items() if k not in TIMING}
            for b in doc["backends"] for r in b["runs"]}


def differences(a: Path, b: Path) -> list[str]:
    """Quality metrics that differ beyond float noise (rshl's strengthDelta moves
    in its ninth digit between two runs of one executor)."""
    qa, qb = quality(a), quality(b)
    out = [f"{key}: only in one run" for key in qa.keys() ^ qb.keys()]
    for key in qa.keys() & qb.keys():
        for name in qa[key].keys() | qb[key].keys():
            x, y = qa[key].get(name), qb[key].get(name)
            if (x is None) != (y is None) or (x is not None and abs(x - y) > 1e-6 * max(
                    1.0, abs(x))):
                out.append(f"{key[0]} seed {key[1]} {name}: {x} vs {y}")
    return sorted(out)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--repeats", type=int, default=1)
    p.add_argument("--seeds", type=int, default=5)
    p.add_argument("--scenario", default="default")
    p.add_argument("--backend", action="append", default=[],
                   help="default: the Makefile's BENCH_BACKENDS")
    p.add_argument("--json", action="store_true", help="also print the numbers as JSON")
    a = p.parse_args()
    backends = a.backend or bench_backends()
    load_before = os.getloadavg()
    sides = {"process": ["--executor", "process"],
             "dask": ["--executor", "dask", "--workers", str(a.workers)]}
    times: dict[str, list[float]] = {"process": [], "dask": []}
    with tempfile.TemporaryDirectory(prefix="memory-bench-dask-speed-") as tmp:
        work = Path(tmp)
        common = ["--scenario", a.scenario, "--seeds", str(a.seeds), "--quiet",
                  "--cache-dir", str(work / "cache")]
        print(f"matrix: {len(backends)} backends x {a.seeds} seeds ({' '.join(backends)}), "
              f"scenario {a.scenario}; {os.cpu_count()} CPUs; "
              f"load average {load_before[0]:.2f} {load_before[1]:.2f} {load_before[2]:.2f}")
        warm = run([*common, "--backend", "faiss-rag", "--out", str(work / "warm.json")], work)
        print(f"cache warmed (untimed): {warm:.1f} s")
        for i in range(a.repeats):
            order = ["process", "dask"] if i % 2 == 0 else ["dask", "process"]
            for side in order:
                out = work / f"{side}-{i}.json"
                flags = [f"--backend={b}" for b in backends]
                seconds = run([*common, *flags, *sides[side], "--save", "--out", str(out)], work)
                times[side].append(seconds)
                print(f"repeat {i + 1}: {side:7s} {seconds:7.1f} s")
        diff = differences(work / "process-0.json", work / "dask-0.json")
    load_after = os.getloadavg()
    ratio = statistics.median(times["dask"]) / statistics.median(times["process"])
    verdict = "meets" if ratio <= TARGET else "misses"
    print(f"dask ({a.workers} workers) / process: {ratio:.3f} (target <= {TARGET}: {verdict} it)")
    print(f"quality metrics: {'identical' if not diff else f'{len(diff)} differ'}")
    for line in diff[:20]:
        print(f"  {line}")
    print(f"load average after: {load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f}")
    if a.json:
        print(json.dumps({"process_s": times["process"], "dask_s": times["dask"],
                          "ratio": ratio, "target": TARGET, "workers": a.workers,
                          "quality_differences": diff, "load_before": load_before,
                          "load_after": load_after, "backends": backends, "seeds": a.seeds}))
    return 0 if not diff else 1


if __name__ == "__main__":
    sys.exit(main())
