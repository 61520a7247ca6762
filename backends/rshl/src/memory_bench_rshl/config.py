"""Every tunable of the lattice, with the defaults the benchmark uses."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

__all__ = ["CALIBRATED", "ENCODERS", "SUPERSEDE_MODES", "LatticeConfig", "threshold"]

SUPERSEDE_MODES = ("auto", "tags", "text", "off")
ENCODERS = ("lexical", "dense", "hybrid")
# The thresholds whose meaning depends on the encoder's similarity, per encoder.
# merge_cosine: lexical the design value; dense and hybrid (at the default dense_weight
# 0.65) merge no more new-value edits than lexical does at 0.90. Supersession (a minimum
# relation overlap, claims.py, and a minimum similarity): the pair that maximises right
# minus wrong links. All from benchmarks/rshl_calibrate.py on seeds 100-109 of the default
# and natural scenarios, disjoint from every published seed (backends/rshl/README.md,
# "Calibration").
CALIBRATED: dict[str, dict[str, float]] = {
    "lexical": {"merge_cosine": 0.90, "supersede_text_cosine": 0.30, "supersede_relation": 0.25},
    "dense": {"merge_cosine": 0.97, "supersede_text_cosine": 0.54, "supersede_relation": 0.25},
    "hybrid": {"merge_cosine": 0.95, "supersede_text_cosine": 0.48, "supersede_relation": 0.20},
}


def threshold(encoder: str, field: str, given: float | None) -> float:
    """``given``, or the encoder's calibrated value of ``field`` when it is None."""
    return float(CALIBRATED[encoder][field] if given is None else given)


@dataclass(frozen=True)
class LatticeConfig:
    """Lattice parameters. Times are logical seconds (item timestamps), never the wall clock."""

    dim: int = 4096
    seed: int = 0
    encoder: str = "lexical"  # lexical, dense or hybrid (encoding.py)
    dense_weight: float = 0.65  # hybrid: share of the dense cosine in the similarity
    # encoder feature weights (before IDF)
    adjacent_weight: float = 1.2  # bound pair of neighbouring content words
    pair_weight: float = 0.5  # bound pair two or three content words apart
    ngram_weight: float = 0.25  # character trigrams of a word, in total
    name_weight: float = 2.0  # a capitalised name span, bound as one feature
    # gate
    min_words: int = 1  # a hard floor; the gate judges content (gate.py)
    merge_cosine: float = 0.90  # near-duplicate: cosine at least this ...
    merge_jaccard: float = 0.80  # ... and this overlap of content words
    supersede: str = "auto"  # auto: tags when present, else text; tags; text; off
    supersede_text_cosine: float = 0.30  # text-only supersession: minimum similarity
    supersede_relation: float = 0.25  # ... and minimum relation overlap (claims.py)
    superseded_factor: float = 0.5  # a superseded cell's similarity is scaled by this
    show_superseded: bool = True  # False: a superseded cell never appears in results
    # strength
    initial_strength: float = 0.3
    eta: float = 0.2  # Hebbian rate: s <- s + eta * relevance * (1 - s)
    half_life_s: float = 30 * 86_400.0  # decay half-life in logical seconds
    strength_weight: float = 0.02  # strength only breaks near-ties of the similarity
    # learned cue associations (cues.py), lexical encoder only; 0 = off
    cue_weight: float = 0.6  # weight of the cue accumulator beside the question's own
    cue_words: int = 8  # stored words each question word brings, at most
    # sleep
    prune_floor: float = 0.02
    replay_threshold: float = 0.6
    replay_eta: float = 0.05
    # index
    candidates: int = 64
    sketch_bits: int = 1024  # bits of the code scanned first (column-major sketch)
    full_scan_below: int = 16_384  # below this many rows, scan the full codes directly
    prefilter: int = 4096  # at most this many rows (and n/64) kept by the sketch scan
    reinforce: bool = True

    def __post_init__(self) -> None:
        if self.dim % 64 or self.dim < 64:
            raise ValueError(f"dim must be a positive multiple of 64, got {self.dim}")
        if self.encoder not in ENCODERS:
            raise ValueError(f"encoder must be one of {ENCODERS}, got {self.encoder!r}")
        if not 0.0 <= self.dense_weight <= 1.0:
            raise ValueError("dense_weight must be in [0, 1]")
        if self.supersede not in SUPERSEDE_MODES:
            raise ValueError(f"supersede must be one of {SUPERSEDE_MODES}, got {self.supersede!r}")
        if not 0.0 <= self.eta <= 1.0:
            raise ValueError("eta must be in [0, 1]")
        if self.half_life_s <= 0:
            raise ValueError("half_life_s must be positive")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def calibrated(cls, encoder: str = "lexical", **settings: Any) -> LatticeConfig:
        """A configuration for ``encoder`` with its calibrated thresholds (``CALIBRATED``),
        unless ``settings`` give them."""
        if encoder not in CALIBRATED:
            raise ValueError(f"encoder must be one of {ENCODERS}, got {encoder!r}")
        return cls(encoder=encoder, **{**CALIBRATED[encoder], **settings})

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> LatticeConfig:
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in d.items() if k in names})
