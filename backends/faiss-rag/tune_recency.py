"""Sweep faiss-rag-recency's weight and half-life on seeds the benchmark does not use.

    .venv/bin/python backends/faiss-rag/tune_recency.py --seeds 100,101,102

Replays the protocol's three ranking moments by brute force over the real
embeddings (exact, as the flat index is): phase 2 (facts only), phase 5
(facts and noise) and phase 6 (after the updates), with "now" the newest
timestamp written at each moment, and prints the metrics per setting.
"""

from __future__ import annotations

import argparse

import numpy as np
from memory_bench_embed import get_embedder

from memory_bench.results.paths import default_cache_dir
from memory_bench.scenarios.builtin import continual_data as generate
from memory_bench.scenarios.spec import load_scenario

WEIGHTS = (0.0, 0.05, 0.1, 0.15, 0.2, 0.3)
HALF_LIVES = (0.5, 1.0, 3.0, 6.0, 24.0)


def _prepare(scenario_name: str, seeds: list[int]):
    s = load_scenario(scenario_name)
    emb = get_embedder(cache_dir=default_cache_dir(), cache_queries=True)
    out = []
    for seed in seeds:
        d = generate(s, seed)
        items = [f.item for f in d.facts] + list(d.noise) + [u.item for u in d.updates]
        t0 = items[0].timestamp
        hours = np.array([(i.timestamp - t0).total_seconds() / 3600 for i in items])
        out.append((
            d,
            emb.encode([i.text for i in items]),
            emb.encode([f.question for f in d.facts]),
            emb.encode([u.question for u in d.updates]),
            hours,
            s.k,
        ))
    emb.close()
    return out


def _top(vecs, hours, q, n: int, k: int, weight: float, half_life: float) -> list[int]:
    """Top-k of the first n items under cosine + recency, now = item n's time."""
    bonus = weight * 0.5 ** ((hours[n - 1] - hours[:n]) / half_life)
    return list(np.argsort(-(vecs[:n] @ q + bonus), kind="stable")[:k])


def _metrics(prepared, weight: float, half_life: float) -> np.ndarray:
    rows = []
    for d, vecs, q_facts, q_updates, hours, k in prepared:
        nf, nn, nu = len(d.facts), len(d.noise), len(d.updates)

        def top(q: np.ndarray, n: int, vecs=vecs, hours=hours, k=k) -> list[int]:
            return _top(vecs, hours, q, n, k, weight, half_life)

        r1b = np.mean([top(q_facts[i], nf)[0] == i for i in range(nf)])
        r1a = np.mean([top(q_facts[i], nf + nn)[0] == i for i in range(nf)])
        wins = stale = 0
        for j, u in enumerate(d.updates):
            t = top(q_updates[j], nf + nn + nu)
            new, old = nf + nn + j, u.fact
            wins += new in t and (old not in t or t.index(new) < t.index(old))
            stale += old in t
        rows.append((r1b, r1a, r1a / r1b if r1b else np.nan, wins / nu, stale / nu))
    return np.mean(rows, axis=0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenario", default="default")
    ap.add_argument("--seeds", default="100,101,102", help="comma-separated; not the bench's")
    args = ap.parse_args()
    prepared = _prepare(args.scenario, [int(x) for x in args.seeds.split(",")])
    print("weight  half_life  recall1_before  recall1_after  retention  updateWinRate  staleRate")
    for w in WEIGHTS:
        for hl in HALF_LIVES if w > 0 else (1.0,):
            m = _metrics(prepared, w, hl)
            print(f"{w:<7} {hl:<10} " + "  ".join(f"{x:13.3f}" for x in m))


if __name__ == "__main__":
    main()
