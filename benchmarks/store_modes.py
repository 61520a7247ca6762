"""What a persistent write costs: each library store in memory and on disk, in one sitting.

    .venv/bin/python benchmarks/store_modes.py              # hard, seeds 0-1
    .venv/bin/python benchmarks/store_modes.py --seeds 1

One ``memory-bench run --scenario hard --no-cache`` holds every store twice: as the
published matrix runs it (``mode=memory``: qdrant's ``:memory:`` location, chroma's
EphemeralClient, mem0 with its history, FAISS store and id table in memory) and as
``mode=persistent`` (the library's on-disk store in the pair's workdir, every write
synced as the library does it). Both rows of a store run in the same run, so on the
same data and under the same load; a scratch directory holds everything.

It prints the load average before and after and, per store: the pairs' own seconds
(wall, summed over seeds) and the CPU seconds, ingest/s and store p50 ms in each mode
with the persistent / memory ratios, and whether every quality value of every seed is
identical in the two modes.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
STORES = ("chroma", "qdrant", "mem0", "mem0:scoring=store")
COSTS = ("latency", "ingest", "rss", "_ms", "_per_s", "_mb", "seconds")


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f}"


def persistent(spec: str) -> str:
    """``mem0:scoring=store`` -> ``mem0:scoring=store,mode=persistent``."""
    return f"{spec},mode=persistent" if ":" in spec else f"{spec}:mode=persistent"


def _row(doc: dict[str, Any], label: str) -> dict[str, Any]:
    b = next(b for b in doc["backends"] if b["label"] == label)
    runs = [r for r in b["runs"] if r["status"] == "ok"]
    if len(runs) != len(b["runs"]):
        bad = next(r for r in b["runs"] if r["status"] != "ok")
        raise SystemExit(f"{label} seed {bad['seed']}: {bad['status']}: {bad.get('error')}")

    def mean(metric: str) -> float:
        return statistics.fmean(r["metrics"][metric] for r in runs)

    return {"seconds": sum(r["seconds"] for r in runs),
            "cpu": sum((r.get("worker") or {}).get("cpu_s") or 0.0 for r in runs),
            "ingest": mean("ingest_items_per_s"), "store_p50": mean("latency_p50_ms"),
            "quality": {(r["seed"], k): v for r in runs for k, v in r["metrics"].items()
                        if not any(c in k for c in COSTS)}}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=2, help="seeds 0..N-1 (default 2)")
    ap.add_argument("--json", type=Path, help="also write the measurements here")
    args = ap.parse_args()

    specs = [s for store in STORES for s in (store, persistent(store))]
    scratch = Path(tempfile.mkdtemp(prefix="memory-bench-store-modes-"))
    load_before = _load()
    try:
        shutil.copytree(ROOT / "scenarios", scratch / "scenarios")
        out = scratch / "r.json"
        t0 = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "memory_bench.cli", "run", "--scenario", "hard", "--seeds",
             str(args.seeds), "--no-cache", "--quiet", "--executor", "process",
             *(a for s in specs for a in ("--backend", s)), "--out", str(out)],
            cwd=scratch, capture_output=True, text=True)
        wall = time.perf_counter() - t0
        if done.returncode != 0:
            raise SystemExit(f"exit {done.returncode}: {done.stderr[-3000:]}")
        doc = json.loads(out.read_text())
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    load_after = _load()

    print(f"hard, {args.seeds} seed(s), one run of {len(specs)} rows, {wall:.0f} s wall; "
          f"load before {load_before}, after {load_after} (1, 5, 15 min; "
          f"{os.cpu_count()} cores)")
    print(f"{'store':20s} {'pairs s mem':>11s} {'persist':>8s} {'ratio':>6s}  "
          f"{'CPU s mem':>9s} {'persist':>8s}  "
          f"{'ingest/s mem':>12s} {'persist':>8s} {'ratio':>6s}  {'store p50 mem':>13s} "
          f"{'persist':>8s}  quality")
    rows = {}
    for store in STORES:
        m, p = _row(doc, store), _row(doc, persistent(store))
        same = m["quality"] == p["quality"]
        rows[store] = {"memory": {k: v for k, v in m.items() if k != "quality"},
                       "persistent": {k: v for k, v in p.items() if k != "quality"},
                       "quality_identical": same, "quality_values": len(m["quality"])}
        print(f"{store:20s} {m['seconds']:11.1f} {p['seconds']:8.1f} "
              f"{p['seconds'] / m['seconds']:6.2f}  {m['cpu']:9.1f} {p['cpu']:8.1f}  "
              f"{m['ingest']:12,.0f} {p['ingest']:8,.0f} "
              f"{m['ingest'] / p['ingest']:6.2f}  {m['store_p50']:13.3f} {p['store_p50']:8.3f}"
              f"  {'identical' if same else 'DIFFER'} ({len(m['quality'])} values)")
    if args.json:
        args.json.write_text(json.dumps({"seeds": args.seeds, "wall_s": wall,
                                         "load_before": load_before, "load_after": load_after,
                                         "rows": rows}, indent=1))
    return 0 if all(r["quality_identical"] for r in rows.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
