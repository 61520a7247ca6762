"""What embedding a dataset scenario costs, with and without the shared embedding cache.

    .venv/bin/python benchmarks/dataset_embedding_cost.py --scenario longmemeval \\
        --set path=longmemeval_s.json [--set granularity=session] [--sample 256]

Generates every fold's script (nothing is run), counts the items written and the
distinct texts among them (the cache is content-addressed: a text is encoded once,
for every embedding backend, fold and later run), then times the frozen MiniLM
on a sample of the scenario's own distinct texts and on texts at the model's
256-word-piece cap (the most one item can cost), in one sitting, on the
embedder's default single torch thread. It prints the projected encode time of
one run with the cache (distinct texts once) and without it (every item, for
each embedding backend), and their ratio. Questions are encoded on every query
and are counted apart.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _rate(embedder, texts: list[str]) -> float:
    """Texts per second of the model alone (no cache), after one warm-up batch."""
    embedder.encode(texts[:8], use_cache=False)
    t0 = time.perf_counter()
    embedder.encode(texts, use_cache=False)
    return len(texts) / (time.perf_counter() - t0)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--scenario", required=True)
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    p.add_argument("--sample", type=int, default=256, help="texts timed per kind")
    args = p.parse_args(argv)

    from memory_bench_embed import get_embedder

    from memory_bench.harness.pair import generate_script
    from memory_bench.plugins import load_plugins
    from memory_bench.scenarios.spec import load_scenario

    loaded = load_plugins()
    overrides = dict(kv.split("=", 1) for kv in args.set)
    spec = load_scenario(args.scenario, overrides, registry=loaded.scenarios)
    items, questions = 0, 0
    distinct: dict[str, None] = {}
    for seed in spec.seed_list():
        script = generate_script(loaded, spec.ref(), seed)
        for item in script.items():
            items += 1
            distinct.setdefault(item.text, None)
        questions += len(script.probes())
    texts = list(distinct)

    embedder = get_embedder()
    tok = embedder._m.st.tokenizer
    sample = random.Random(0).sample(texts, min(args.sample, len(texts)))
    lengths = [min(len(tok(t)["input_ids"]), 256) for t in sample]
    words = " ".join(sample).split() or ["memory"]
    capped = [" ".join(random.Random(i).choices(words, k=400)) for i in range(len(sample))]
    own, cap = _rate(embedder, sample), _rate(embedder, capped)

    def hours(n: int, rate: float) -> str:
        return f"{n / rate / 3600:.2f} h"

    print(f"scenario {spec.name} ({spec.generator}), {len(spec.seed_list())} fold(s): "
          f"{items:,} items written, {len(texts):,} distinct texts "
          f"({items / max(len(texts), 1):.2f} items per text), {questions:,} questions")
    print(f"sampled texts: mean {sum(lengths) / len(lengths):.0f} word pieces "
          f"(capped at 256); {sum(n >= 256 for n in lengths) / len(lengths):.0%} at the cap")
    print(f"MiniLM, 1 torch thread: {own:.1f} texts/s on the sample, {cap:.1f} texts/s at "
          f"the 256-piece cap (ratio {own / cap:.2f})")
    print(f"projected encode time of the stored texts: with the cache {hours(len(texts), own)} "
          f"once (cap: {hours(len(texts), cap)}); without it {hours(items, own)} per "
          f"embedding backend (ratio {items / max(len(texts), 1):.2f})")
    print(f"questions, encoded on every query: {questions:,} per embedding backend, "
          f"{questions / own / 60:.1f} min")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
