"""The shared embedder on the GPU against the CPU: texts/s and the same rankings.

    .venv/bin/python benchmarks/gpu_check.py                      # cuda against onnx
    .venv/bin/python benchmarks/gpu_check.py --runtimes onnx,torch   # no GPU: the check itself

A short, prepared check for a lent GPU machine (issue 38). The texts are one seed of
the hard scenario (``memory-bench export``): its stored texts and its questions. For
each runtime it prints the stored texts encoded per second (batched, after a warm-up)
and, against the first runtime, for every question over every stored text: the top 1
and top 10 by cosine that are identical, and the largest difference of a cosine.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np


def _strings(node: Any, key: str, out: list[str]) -> None:
    if isinstance(node, dict):
        for k, v in node.items():
            if k == key and isinstance(v, str) and v.strip():
                out.append(v)
            else:
                _strings(v, key, out)
    elif isinstance(node, list):
        for v in node:
            _strings(v, key, out)


def _texts(seed: int) -> tuple[list[str], list[str]]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "hard.jsonl"
        subprocess.run([sys.executable, "-m", "memory_bench.cli", "export", "--scenario",
                        "hard", "--seed", str(seed), str(path)], check=True)
        items: list[str] = []
        questions: list[str] = []
        for line in path.read_text().splitlines():
            doc = json.loads(line)
            _strings(doc, "text", items)
            _strings(doc, "question", questions)
    return list(dict.fromkeys(items)), list(dict.fromkeys(questions))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runtimes", default="onnx,cuda", help="the first is the reference")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--batch-size", type=int, default=256)
    args = ap.parse_args()
    from memory_bench_embed import get_embedder

    items, questions = _texts(args.seed)
    print(f"hard seed {args.seed}: {len(items)} stored texts, {len(questions)} questions")
    ranked: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for name in args.runtimes.split(","):
        emb = get_embedder("all-MiniLM-L6-v2", cache_dir=None, threads=0, runtime=name)
        emb.batch_size = args.batch_size
        emb.encode(items[:64], use_cache=False)  # warm-up (CUDA kernels, ONNX session)
        t0 = time.perf_counter()
        vecs = emb.encode(items, use_cache=False)
        rate = len(items) / (time.perf_counter() - t0)
        qs = np.stack([emb.encode_query(q) for q in questions])
        sims = qs @ vecs.T
        ranked[name] = (sims, np.argsort(-sims, axis=1, kind="stable")[:, :10])
        emb.close()
        print(f"  {name:10s} {rate:12,.0f} stored texts/s (batch {args.batch_size})")
    ref, (ref_sims, ref_top) = next(iter(ranked.items()))
    for name, (sims, top) in list(ranked.items())[1:]:
        top1 = int((top[:, 0] == ref_top[:, 0]).sum())
        top10 = int((top == ref_top).all(axis=1).sum())
        print(f"  {name} against {ref}: top 1 identical for {top1} of {len(questions)}, "
              f"top 10 for {top10}; largest cosine difference "
              f"{float(np.abs(sims - ref_sims).max()):.2e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
