"""Does rerank rank the same over a shallower top as over a top 50? Counted on hard, in
one sitting.

    .venv/bin/python benchmarks/rerank_depth.py              # hard, seeds 0-2, 50 vs 20
    .venv/bin/python benchmarks/rerank_depth.py --seeds 5
    .venv/bin/python benchmarks/rerank_depth.py --seeds 1 --depths 50,20,10

One ``memory-bench run --scenario hard --no-cache`` holds ``rerank:depth=D`` for each
depth (same data, same first stage; the cross-encoder scores each (question, passage)
pair alone, so a pair's score does not depend on the depth). It prints, with the load
average, every question's first hit (and top 5) at each shallower depth compared with
the deepest, each quality metric's mean at every depth, and each row's pairs' seconds
(the cost ratio to the deepest). LoCoMo is not shipped: pass
``--scenario locomo --set path=...`` to count there too.
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
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
COSTS = ("latency", "ingest", "rss", "_ms", "_per_s", "_mb", "seconds")


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _probes(doc: dict[str, Any], label: str) -> dict[tuple[int, str, str], list[str]]:
    """(seed, tag, question key or index) -> the returned ids, for every probe."""
    b = next(b for b in doc["backends"] if b["label"] == label)
    out = {}
    for r in b["runs"]:
        if r["status"] != "ok":
            raise SystemExit(f"{label} seed {r['seed']}: {r['status']}: {r.get('error')}")
        for i, p in enumerate(r["records"]["probes"]):
            out[(r["seed"], p["tag"], p.get("key") or str(i))] = p["returned"]
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=3, help="seeds 0..N-1 (default 3)")
    ap.add_argument("--scenario", default="hard")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="a scenario parameter (e.g. path=... for locomo)")
    ap.add_argument("--depths", default="50,20",
                    help="comma-separated depths, the first the reference (default 50,20)")
    ap.add_argument("--json", type=Path, help="also write the counts here")
    args = ap.parse_args()
    depths = [int(d) for d in args.depths.split(",")]
    labels = [f"rerank:depth={d}" for d in depths]

    scratch = Path(tempfile.mkdtemp(prefix="memory-bench-rerank-depth-"))
    before = _load()
    try:
        shutil.copytree(ROOT / "scenarios", scratch / "scenarios")
        out = scratch / "r.json"
        done = subprocess.run(
            [sys.executable, "-m", "memory_bench.cli", "run", "--scenario", args.scenario,
             "--seeds", str(args.seeds), "--no-cache", "--quiet",
             *(a for s in args.set for a in ("--set", s)),
             *(a for row in labels for a in ("--backend", row)), "--out", str(out)],
            cwd=scratch, capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"exit {done.returncode}: {done.stderr[-3000:]}")
        doc = json.loads(out.read_text())
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    probes = {row: _probes(doc, row) for row in labels}
    deep = probes[labels[0]]
    rows = {b["label"]: b for b in doc["backends"]}
    seconds = {row: sum(r["seconds"] for r in rows[row]["runs"]) for row in labels}
    quality = {}
    for name in rows[labels[0]]["runs"][0]["metrics"]:
        if any(c in name for c in COSTS):
            continue
        vals = [[r["metrics"].get(name) for r in rows[row]["runs"]] for row in labels]
        if all(v is not None for vs in vals for v in vs):
            quality[name] = [statistics.fmean(vs) for vs in vals]
    print(f"{args.scenario}, {args.seeds} seed(s); load before {before}, after {_load()} "
          f"({os.cpu_count()} cores)")
    same = {}
    for d, row in zip(depths[1:], labels[1:], strict=True):
        keys = sorted(deep.keys() & probes[row].keys())
        top1 = sum(deep[k][:1] == probes[row][k][:1] for k in keys)
        top5 = sum(deep[k][:5] == probes[row][k][:5] for k in keys)
        same[d] = {"questions": len(keys), "top1_same": top1, "top5_same": top5}
        print(f"first hit unchanged at depth {d} (against {depths[0]}): {top1} of {len(keys)}"
              f" questions; top 5 unchanged: {top5} of {len(keys)}; pairs' seconds "
              f"{seconds[row]:.1f} against {seconds[labels[0]]:.1f} "
              f"(ratio {seconds[row] / seconds[labels[0]]:.2f})")
    print("  metric                   " + "   ".join(f"depth {d:<4d}" for d in depths))
    for name, vals in quality.items():
        print(f"  {name:24s} " + "   ".join(f"{v:10.4f}" for v in vals)
              + ("" if len(set(vals)) == 1 else "  *"))
    if args.json:
        args.json.write_text(json.dumps({"scenario": args.scenario, "seeds": args.seeds,
                                         "depths": depths, "same": same,
                                         "seconds": seconds, "quality": quality}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
