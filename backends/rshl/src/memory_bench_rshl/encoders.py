"""The encoder a lattice configuration names: lexical, dense or hybrid.

Apart from ``encoding.py`` (the interface every encoder implements and returns), so
that the interface imports no implementation: ``encoder.py`` and ``dense.py`` import
``encoding.py``, this module imports all three, and nothing imports back.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from memory_bench_rshl.encoding import Embedding, TextEncoder

if TYPE_CHECKING:
    from memory_bench_rshl.config import LatticeConfig

__all__ = ["make_encoder"]


def make_encoder(config: LatticeConfig, embedding: Embedding | None = None,
                 identity: Mapping[str, Any] | None = None) -> TextEncoder:
    """The encoder ``config.encoder`` names. ``dense`` and ``hybrid`` need an
    ``embedding`` and its ``identity`` (model name, weights hash, ...)."""
    from memory_bench_rshl.encoder import Encoder  # numpy and the lexicon: when asked

    c = config
    lexical = Encoder(c.dim, c.seed, adjacent_weight=c.adjacent_weight,
                      pair_weight=c.pair_weight, ngram_weight=c.ngram_weight,
                      name_weight=c.name_weight)
    if c.encoder == "lexical":
        return lexical
    if embedding is None:
        raise ValueError(f"encoder={c.encoder} needs an embedding: "
                         "make_encoder(config, embedding, identity)")
    from memory_bench_rshl.dense import DenseEncoder, HybridEncoder

    dense = DenseEncoder(c.dim, c.seed, embedding, identity or {})
    if c.encoder == "dense":
        return dense
    return HybridEncoder(lexical, dense, c.dense_weight)
