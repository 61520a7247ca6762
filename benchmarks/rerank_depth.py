"""Does rerank rank the same over a top 20 as over a top 50? Counted on hard, in one sitting.

    .venv/bin/python benchmarks/rerank_depth.py              # hard, seeds 0-2
    .venv/bin/python benchmarks/rerank_depth.py --seeds 5

One ``memory-bench run --scenario hard --no-cache`` holds ``rerank:depth=50`` and
``rerank:depth=20`` (same data, same first stage; the cross-encoder scores each
(question, passage) pair alone, so a pair's score does not depend on the depth).
It prints, with the load average, every question's first hit compared across the
two depths (and the top 5), each quality metric's mean at both depths, and each
row's pairs' seconds (the cost ratio). LoCoMo is not shipped: pass
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
ROWS = ("rerank:depth=50", "rerank:depth=20")
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
    ap.add_argument("--json", type=Path, help="also write the counts here")
    args = ap.parse_args()

    scratch = Path(tempfile.mkdtemp(prefix="memory-bench-rerank-depth-"))
    before = _load()
    try:
        shutil.copytree(ROOT / "scenarios", scratch / "scenarios")
        out = scratch / "r.json"
        done = subprocess.run(
            [sys.executable, "-m", "memory_bench.cli", "run", "--scenario", args.scenario,
             "--seeds", str(args.seeds), "--no-cache", "--quiet",
             *(a for s in args.set for a in ("--set", s)),
             *(a for row in ROWS for a in ("--backend", row)), "--out", str(out)],
            cwd=scratch, capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"exit {done.returncode}: {done.stderr[-3000:]}")
        doc = json.loads(out.read_text())
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    deep, shallow = (_probes(doc, row) for row in ROWS)
    keys = sorted(deep.keys() & shallow.keys())
    top1 = sum(deep[k][:1] == shallow[k][:1] for k in keys)
    top5 = sum(deep[k][:5] == shallow[k][:5] for k in keys)
    rows = {b["label"]: b for b in doc["backends"]}
    seconds = {row: sum(r["seconds"] for r in rows[row]["runs"]) for row in ROWS}
    quality = {}
    for name in rows[ROWS[0]]["runs"][0]["metrics"]:
        if any(c in name for c in COSTS):
            continue
        vals = [[r["metrics"].get(name) for r in rows[row]["runs"]] for row in ROWS]
        if all(v is not None for vs in vals for v in vs):
            quality[name] = [statistics.fmean(vs) for vs in vals]
    print(f"{args.scenario}, {args.seeds} seed(s); load before {before}, after {_load()} "
          f"({os.cpu_count()} cores)")
    print(f"first hit unchanged at depth 20: {top1} of {len(keys)} questions; "
          f"top 5 unchanged: {top5} of {len(keys)}")
    print(f"pairs' seconds: depth 50 {seconds[ROWS[0]]:.1f}, depth 20 {seconds[ROWS[1]]:.1f} "
          f"(ratio {seconds[ROWS[1]] / seconds[ROWS[0]]:.2f})")
    for name, (a, b) in quality.items():
        print(f"  {name:24s} depth 50 {a:.4f}   depth 20 {b:.4f}" + ("" if a == b else "  *"))
    if args.json:
        args.json.write_text(json.dumps({"scenario": args.scenario, "seeds": args.seeds,
                                         "questions": len(keys), "top1_same": top1,
                                         "top5_same": top5, "seconds": seconds,
                                         "quality": quality}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
