"""memory-bench plugin: registers the ``rshl`` backend.

Imports nothing heavy: the lattice (numpy) is loaded by the factory only.
"""

from __future__ import annotations

from typing import Any

from memory_bench import BackendContext, Option, hookimpl

__all__ = ["OPTIONS", "memory_bench_register_backends"]

from memory_bench_rshl import __version__ as VERSION


def _multiple_of_64(value: int) -> str | None:
    return None if value % 64 == 0 else "is not a multiple of 64 (codes are packed in 64 bits)"


def _store_path(value: str) -> str | None:
    """A live store must be a lattice, a new or empty directory: never the user's files."""
    if not value.strip():
        return "is empty"
    from pathlib import Path

    from memory_bench_rshl.persist import store_problem  # numpy: only when a path is given

    problem = store_problem(Path(value).expanduser())
    return None if problem is None else f"cannot be used: {problem}"


OPTIONS = [
    Option("dim", int, 4096, "hypervector dimension (multiple of 64; 4096 or 16384)",
           minimum=64, maximum=65536, check=_multiple_of_64),
    Option("seed", int, 0, "seed of the random index vectors (same on every machine)"),
    Option("path", str, None, "lattice directory used as a live store (default: the workdir)",
           check=_store_path),
    Option("min_words", int, 3, "gate: fewer words than this is refused as too_short",
           minimum=1, maximum=1000),
    Option("merge_cosine", float, 0.90, "near-duplicate merge: minimum cosine",
           minimum=0.0, maximum=1.0),
    Option("merge_jaccard", float, 0.80, "near-duplicate merge: minimum content-word overlap",
           minimum=0.0, maximum=1.0),
    Option("supersede", str, "auto",
           "supersession key: auto (tags when present, else text), tags, text, off",
           choices=("auto", "tags", "text", "off"),
           # auto and tags read the subject:/relation: tags when a (structured) scenario
           # writes them: the report then marks the row [structured].
           reads={"auto": ("tags",), "tags": ("tags",)}),
    Option("superseded_factor", float, 0.5, "similarity multiplier of a superseded cell",
           minimum=0.0, maximum=1.0),
    Option("show_superseded", bool, True,
           "list superseded cells (below their successors); false hides them from results"),
    Option("initial_strength", float, 0.3, "strength of a new cell", minimum=0.0, maximum=1.0),
    Option("eta", float, 0.2, "Hebbian rate: s <- s + eta (1 - s) per retrieval",
           minimum=0.0, maximum=1.0),
    Option("half_life_days", float, 30.0, "strength half-life in logical (item) time",
           minimum=1e-6, maximum=1e9),
    Option("strength_weight", float, 0.02, "weight of strength in the score (tie-break)",
           minimum=0.0, maximum=1.0),
    Option("prune_floor", float, 0.02, "sleep prunes cells weaker than this",
           minimum=0.0, maximum=1.0),
    Option("candidates", int, 64, "candidates kept by the packed-code scan for rescoring",
           minimum=1, maximum=1_000_000),
    Option("sketch_bits", int, 1024, "bits of the code scanned first (more: better recall "
           "of weak matches in very large lattices, slower)", minimum=64, maximum=65536,
           check=_multiple_of_64),
    Option("prefilter", int, 4096, "rows kept by the sketch scan for full-code Hamming",
           minimum=1, maximum=100_000_000),
    Option("reinforce", bool, True, "strengthen cells when they are retrieved"),
]

NOTES = [
    "Lexical, model-free encoder: hypervectors from seeded random indexing of words, bound word "
    "pairs, capitalised name spans and character trigrams, weighted by IDF learned online. No "
    "language model; the name-span feature relies on capital letters.",
    "Supersession (supersede=auto) uses the generator's subject:/relation: tags when an item "
    "has them; without tags it falls back to the text (the most similar current cell sharing a "
    "proper name). Baselines ignore tags. With supersede=text, updateWinRate was 0.987 "
    "(min 0.967) on the default scenario, 5 seeds.",
    "Lineage-aware ranking: a superseded cell's similarity is multiplied by superseded_factor "
    "(0.5), and a query that matches it also returns its newest successor, scored just above "
    "the old cell's unpenalised similarity. The old cell stays in the results (staleRate high) "
    "unless show_superseded=false.",
    "Strength decays over logical time (item timestamps, 'now' = latest timestamp written) and "
    "adds strength_weight x strength (0.02) to the score: it breaks near-ties only.",
]


def _factory(options: dict[str, Any], ctx: BackendContext) -> Any:
    from memory_bench_rshl.backend import RshlBackend

    return RshlBackend(options, ctx)


@hookimpl
def memory_bench_register_backends(registry: Any) -> None:
    registry.add(
        "rshl",
        factory=_factory,
        description="RSHL lattice: model-free hypervector cells with provenance, Hebbian "
        "strength, logical-time decay, gated consolidation, supersession lineage and sleep.",
        version=VERSION,
        capabilities=["provenance", "strength", "gate", "consolidate", "persistent"],
        options=OPTIONS,
        notes=NOTES,
    )
