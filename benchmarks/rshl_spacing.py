"""What reinforcing once per logical moment (``strength.new_moment``) changes, on seeds
no result is published for.

Before it, every retrieval was a full Hebbian step, so a burst of questions asked at
one logical moment (LoCoMo's late questions: about 150 at the end of a conversation,
no item written between them) made the cells near many of them (hubs) strong enough
for the 0.02 strength tie-break to lift them over answers the cosine ranked higher.
Now a cell gains one step per moment. For each scenario, seed, encoder and mode the
scenario's script runs in order on a fresh lattice in this process
(``rshl_cues.replay``: writes, sleeps, questions, what the harness sends, without the
harness), ``massed`` with a step at every retrieval (``new_moment`` patched to True,
for this comparison only), ``moment`` as the lattice is; it prints recall@1 of the
fact probes before and after interference, retention (after / before over the same
facts) and the update ranking (the new value in the top 5 and above the old one, as
updateWinRate counts it). ``dense`` uses the shared embedder faiss-rag uses
(memory-bench-embed, the default cache).

    python benchmarks/rshl_spacing.py --scenario natural --scenario default \\
        --scenario hard --seeds 100-109 --encoder dense --encoder lexical
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import memory_bench_rshl.lattice as lattice_module
from memory_bench_embed import embedder_from_options, embedding_options
from memory_bench_rshl import Lattice, LatticeConfig
from memory_bench_rshl.backend import embedding_identity
from memory_bench_rshl.encoding import make_encoder
from rshl_cues import rate, replay, seed_range  # the same in-process loop

from memory_bench import BackendContext
from memory_bench.contract.options import resolve_options
from memory_bench.plugins import load_plugins
from memory_bench.results.paths import default_cache_dir

MODES = ("massed", "moment")


@contextlib.contextmanager
def _mode(mode: str) -> Iterator[None]:
    """``massed``: a step at every retrieval (the lattice before ``new_moment``)."""
    real = lattice_module.new_moment
    if mode == "massed":
        lattice_module.new_moment = lambda *_: True
    try:
        yield
    finally:
        lattice_module.new_moment = real


def run(plugins: Any, scenario: str, seed: int, encoder: str,
        embedder: Any) -> dict[str, list[bool]]:
    """Per question kind, the outcomes of one seed's script (``rshl_cues.replay``)."""
    config = LatticeConfig.calibrated(encoder)
    if encoder == "lexical":
        return replay(plugins, scenario, seed, lambda: Lattice(config))
    identity = embedding_identity(embedder)
    return replay(plugins, scenario, seed,
                  lambda: Lattice(config, make_encoder(config, embedder, identity)))


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scenario", action="append", default=None)
    ap.add_argument("--seeds", default="100-109", help="a range, e.g. 100-109 (train seeds)")
    ap.add_argument("--encoder", action="append", default=None, choices=["lexical", "dense"])
    a = ap.parse_args(argv)
    seeds = seed_range(a.seeds)
    if set(seeds) & set(range(10)):
        print("these seeds overlap the published seeds 0-9", file=sys.stderr)
        return 2
    plugins = load_plugins(autoload=True)
    options = resolve_options("rshl", embedding_options(), {"cache_queries": "true"})
    print("scenario  encoder  mode    recall@1  recall@1 after  retention  updateWin")
    with tempfile.TemporaryDirectory() as work:
        ctx = BackendContext(Path(work), 0, "spacing", cache_dir=default_cache_dir())
        embedder = embedder_from_options(options, ctx)
        try:
            for scenario in a.scenario or ["natural", "default", "hard"]:
                for encoder in a.encoder or ["dense", "lexical"]:
                    for mode in MODES:
                        tot: dict[str, list[bool]] = {}
                        with _mode(mode):
                            for seed in seeds:
                                for k, v in run(plugins, scenario, seed, encoder,
                                                embedder).items():
                                    tot.setdefault(k, []).extend(v)
                        before, after = sum(tot["before"]), sum(tot["after"])
                        retention = after / before if before else float("nan")
                        print(f"{scenario:<9} {encoder:<8} {mode:<6}  {rate(tot['probe']):8.3f}"
                              f"  {rate(tot['reprobe']):14.3f}  {retention:9.3f}"
                              f"  {rate(tot['update']):9.3f}", flush=True)
        finally:
            embedder.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
