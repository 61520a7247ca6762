"""Capacity and interference of the memory, measured on a scenario's own items.

Writes the facts and noise of a scenario seed in protocol order, then reads
every stored item back by its own key, e(text), and reports top-1 recall by
age (how many writes ago the item was written). This separates what M holds
from what the question-to-key gap costs. Run::

    python -m memory_bench_neural_memory.capacity --seed 0 memory=linear values=random
"""

from __future__ import annotations

import argparse
import json
from itertools import pairwise
from pathlib import Path

import numpy as np

from memory_bench.contract.options import resolve_options
from memory_bench_neural_memory.backend import build_memory
from memory_bench_neural_memory.codebook import Codebook
from memory_bench_neural_memory.plugin import OPTIONS

__all__ = ["recall_by_age"]

AGE_EDGES = (0, 50, 100, 200, 400, 800, 1600)


def recall_by_age(keys: np.ndarray, options: dict, seed: int) -> dict[str, float]:
    """Top-1 self-recall after writing every key, by age bucket."""
    mem = build_memory(options, keys.shape[1], seed)
    if options["values"] == "random":
        values = np.random.default_rng([seed, 1]).standard_normal(keys.shape)
        values /= np.linalg.norm(values, axis=1, keepdims=True)
    else:
        values = keys
    mem.write(keys, values)
    book = Codebook(keys.shape[1])
    book.add([str(i) for i in range(len(keys))], values)
    top = [book.decode(y, 1) for y in mem.forward(keys)]
    hit = np.array([bool(t) and t[0][0] == str(i) for i, t in enumerate(top)])
    age = len(keys) - 1 - np.arange(len(keys))
    out: dict[str, float] = {}
    for lo, hi in pairwise(AGE_EDGES):
        sel = (age >= lo) & (age < hi)
        if sel.any():
            out[f"{lo}-{hi}"] = float(hit[sel].mean())
    out["all"] = float(hit.mean())
    return out


def main(argv: list[str] | None = None) -> None:
    from memory_bench_embed import get_embedder

    from memory_bench.scenarios.builtin import continual_data as generate
    from memory_bench.scenarios.spec import load_scenario

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenario", default="default")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--cache-dir", type=Path, default=None)
    ap.add_argument("options", nargs="*", help="backend options as key=value")
    args = ap.parse_args(argv)
    raw = dict(o.split("=", 1) for o in args.options)
    options = resolve_options("neural-memory", OPTIONS, raw)
    data = generate(load_scenario(args.scenario), args.seed)
    texts = [f.item.text for f in data.facts] + [i.text for i in data.noise]
    emb = get_embedder(options["model"], cache_dir=args.cache_dir)
    keys = np.asarray(emb.encode(texts), dtype=np.float64)
    print(
        json.dumps(
            {
                "options": raw,
                "seed": args.seed,
                "items": len(texts),
                "recall_by_age": recall_by_age(keys, options, args.seed),
            }
        )
    )


if __name__ == "__main__":
    main()
