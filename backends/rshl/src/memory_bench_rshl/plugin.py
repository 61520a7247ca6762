"""memory-bench plugin: registers the ``rshl`` backend.

Imports nothing heavy: the lattice (numpy) is loaded by the factory only, and the
embedding model (``encoder=dense|hybrid``) by the shared embedder in the factory
or the harness's preload. memory-bench-embed is optional (``memory-bench-rshl[semantic]``):
without it the plugin still registers ``rshl``, with the lexical encoder only.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memory_bench import BackendContext, Option, hookimpl
from memory_bench_rshl import __version__ as VERSION
from memory_bench_rshl.config import CALIBRATED, ENCODERS, threshold

try:  # light: numpy and sqlite3; the model loads with the first embedder
    import memory_bench_embed as _embed
except ModuleNotFoundError as exc:  # only its absence is tolerated, never a broken import
    if exc.name != "memory_bench_embed":
        raise
    _embed = None

__all__ = ["OPTIONS", "memory_bench_register_backends"]


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


def _encoder_available(value: str) -> str | None:
    if value == "lexical" or _embed is not None:
        return None
    return ("needs memory-bench-embed, the shared embedder "
            "(pip install 'memory-bench-rshl[semantic]')")


def _thresholds(field: str) -> str:
    return ", ".join(f"{e} {CALIBRATED[e][field]:g}" for e in ENCODERS)


OPTIONS = [
    Option("dim", int, 4096, "hypervector dimension (multiple of 64; 4096 or 16384)",
           minimum=64, maximum=65536, check=_multiple_of_64),
    Option("seed", int, 0, "seed of the random index vectors and of the dense projection "
           "(same on every machine)"),
    Option("encoder", str, "lexical",
           "lexical = model-free random indexing (numpy only); dense = the shared embedder's "
           "vector (same model, runtime and cache as faiss-rag): SimHash code, exact cosine; "
           "hybrid = weighted bundle of both", choices=ENCODERS, check=_encoder_available),
    Option("dense_weight", float, 0.65, "encoder=hybrid: share of the dense cosine in the "
           "similarity, (1 - w) lexical + w dense", minimum=0.0, maximum=1.0),
    Option("path", str, None, "lattice directory used as a live store (default: the workdir)",
           check=_store_path),
    Option("min_words", int, 1, "gate: fewer words than this is refused as too_short "
           "(a floor: the gate refuses texts with under two informative words anyway)",
           minimum=1, maximum=1000),
    Option("merge_cosine", float, None, "near-duplicate merge: minimum similarity (unset: the "
           f"encoder's calibrated value: {_thresholds('merge_cosine')})",
           minimum=-1.0, maximum=1.0),
    Option("merge_jaccard", float, 0.80, "near-duplicate merge: minimum content-word overlap",
           minimum=0.0, maximum=1.0),
    Option("supersede", str, "auto",
           "supersession key: auto (tags when present, else text), tags, text, off",
           choices=("auto", "tags", "text", "off"),
           # auto and tags read the subject:/relation: tags when a (structured) scenario
           # writes them: the report then marks the row [structured].
           reads={"auto": ("tags",), "tags": ("tags",)}),
    Option("supersede_cosine", float, None, "text-only supersession: minimum similarity of "
           "the new text to the cell it supersedes (unset: the encoder's calibrated value: "
           f"{_thresholds('supersede_text_cosine')})", minimum=-1.0, maximum=1.0),
    Option("supersede_relation", float, None, "text-only supersession: minimum overlap of "
           "the relation words (content words outside names and numbers, IDF-weighted "
           "containment) of the new text and the cell it supersedes (unset: the encoder's "
           f"calibrated value: {_thresholds('supersede_relation')})", minimum=0.0, maximum=1.0),
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
    Option("cue_weight", float, 0.6, "lexical: weight of the learned cue associations in a "
           "question that names someone (cues.py; 0 = off)", minimum=0.0, maximum=4.0),
    Option("cue_words", int, 8, "lexical: stored words each question word brings, at most",
           minimum=0, maximum=64),
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
    # encoder=dense|hybrid: the shared embedder's options, with faiss-rag's meaning.
    *(_embed.embedding_options() if _embed is not None else []),
]

NOTES = [
    "Lexical, model-free encoder: hypervectors from seeded random indexing of words, bound word "
    "pairs, capitalised name spans and character trigrams, weighted by IDF learned online. No "
    "language model; the name-span feature relies on capital letters.",
    "Supersession (supersede=auto) uses the generator's subject:/relation: tags when an item "
    "has them; without tags it reads the text: a new cell supersedes a current one that shares "
    "a name with it (the subject; a dialogue turn's speaker is never one), says something else "
    "of it (other names or numbers: a new value) and shares its relation words (content words "
    "outside names and numbers, supersede_relation) with a similarity of at least "
    "supersede_cosine. Baselines ignore tags.",
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


def _semantic(options: Mapping[str, Any]) -> bool:
    return options.get("encoder", "lexical") != "lexical"


def _preload(options: dict[str, Any], cache_dir: Any) -> None:
    """encoder=dense|hybrid: load the model once before the harness forks a pair process."""
    if _semantic(options) and _embed is not None:
        _embed.preload(options, "memory_bench_rshl.backend", "memory_bench_rshl.dense")


def _manifest(options: dict[str, Any]) -> dict[str, Any]:
    """The thresholds that ran (an unset option is the encoder's calibrated value, which
    the recorded options do not show), and the embedding model of a dense or hybrid
    lattice."""
    encoder = options.get("encoder", "lexical")
    ran: dict[str, Any] = {
        "encoder": encoder,
        "merge_cosine": threshold(encoder, "merge_cosine", options.get("merge_cosine")),
        "supersede_cosine": threshold(encoder, "supersede_text_cosine",
                                      options.get("supersede_cosine")),
        "supersede_relation": threshold(encoder, "supersede_relation",
                                        options.get("supersede_relation")),
    }
    if encoder == "hybrid":
        ran["dense_weight"] = float(options["dense_weight"])
    out: dict[str, Any] = {"similarity": ran}
    if _semantic(options) and _embed is not None:
        out.update(_embed.backend_manifest(options))
    return out


def _own_store(options: dict[str, Any]) -> bool:
    """Each pair's lattice in its workdir, unless a lattice directory is named."""
    return not options.get("path")


def _vectors(options: dict[str, Any]) -> Any:
    """encoder=dense|hybrid: the shared embedder identity the run's vectors are read
    with; lexical encodes no vector (None)."""
    if not _semantic(options) or _embed is None:
        return None
    return _embed.shared_vectors(options)


@hookimpl
def memory_bench_register_backends(registry: Any) -> None:
    registry.add(
        "rshl",
        factory=_factory,
        description="RSHL lattice: model-free hypervector cells with provenance, Hebbian "
        "strength, logical-time decay, gated consolidation, supersession lineage and sleep.",
        version=VERSION,
        capabilities=["provenance", "strength", "gate", "consolidate", "persistent", "forget"],
        options=OPTIONS,
        notes=NOTES,
        # benchmarks/rshl_calibrate.py, rshl_cues.py, rshl_spacing.py (README): the
        # thresholds, cue weight and reinforcement were chosen on these seeds.
        tuned_on={name: range(100, 110) for name in ("default", "natural", "hard")},
        preload=_preload,
        own_store=_own_store,
        manifest=_manifest,
        vectors=_vectors,
        libraries=tuple(_embed.LIBRARIES) if _embed is not None else (),
    )
