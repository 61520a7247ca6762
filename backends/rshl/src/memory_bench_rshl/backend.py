"""memory-bench's Backend protocol over a :class:`~memory_bench_rshl.lattice.Lattice`."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memory_bench import BackendContext, Hit, Item, WriteResult
from memory_bench_rshl.config import LatticeConfig, threshold
from memory_bench_rshl.encoders import make_encoder
from memory_bench_rshl.encoding import TextEncoder
from memory_bench_rshl.lattice import Lattice, Record
from memory_bench_rshl.persist import (
    StoreError,
    StoreLock,
    is_lattice_dir,
    load,
    readable,
    recover,
)

__all__ = ["RshlBackend", "config_from_options", "embedding_identity"]

_DAY = 86_400.0
# The lattice settings the options set (half_life_days is half_life_s).
_FIELDS = ("dim", "seed", "encoder", "dense_weight", "min_words", "merge_cosine",
           "merge_jaccard", "supersede", "supersede_text_cosine", "supersede_relation",
           "superseded_factor",
           "show_superseded", "initial_strength", "eta", "half_life_s", "strength_weight",
           "cue_weight", "cue_words",
           "prune_floor", "candidates", "sketch_bits", "prefilter", "reinforce")


def _calibrated(options: dict[str, Any], option: str, field: str) -> float:
    """The option's value, or the encoder's calibrated one when it is unset (None)."""
    return threshold(options["encoder"], field, options.get(option))


def config_from_options(options: dict[str, Any]) -> LatticeConfig:
    """Map the plugin's resolved options onto a lattice configuration."""
    return LatticeConfig(
        dim=int(options["dim"]),
        seed=int(options["seed"]),
        encoder=str(options["encoder"]),
        dense_weight=float(options["dense_weight"]),
        min_words=int(options["min_words"]),
        merge_cosine=_calibrated(options, "merge_cosine", "merge_cosine"),
        merge_jaccard=float(options["merge_jaccard"]),
        supersede_text_cosine=_calibrated(options, "supersede_cosine", "supersede_text_cosine"),
        supersede=str(options["supersede"]),
        supersede_relation=_calibrated(options, "supersede_relation", "supersede_relation"),
        superseded_factor=float(options["superseded_factor"]),
        show_superseded=bool(options["show_superseded"]),
        initial_strength=float(options["initial_strength"]),
        eta=float(options["eta"]),
        half_life_s=float(options["half_life_days"]) * _DAY,
        strength_weight=float(options["strength_weight"]),
        cue_weight=float(options["cue_weight"]),
        cue_words=int(options["cue_words"]),
        prune_floor=float(options["prune_floor"]),
        candidates=int(options["candidates"]),
        sketch_bits=int(options["sketch_bits"]),
        prefilter=int(options["prefilter"]),
        reinforce=bool(options["reinforce"]),
    )


def embedding_identity(embedder: Any) -> dict[str, Any]:
    """What made a memory-bench-embed ``Embedder``'s vectors, as a saved lattice records it:
    model, weights sha256, dimension and numerics. Runtimes whose vectors agree to float32
    noise (torch and onnx) share ``fp32``, as they share the embedding cache's rows; a
    runtime that quantises (onnx-int8) names its own."""
    runtime = getattr(embedder, "rt", None)  # memory-bench-embed with runtimes
    return {"model": embedder.name, "weights_sha256": embedder.weights_sha256,
            "embedding_dim": int(embedder.dim),
            "numerics": str(getattr(runtime, "numerics", "fp32"))}


def _encoder(config: LatticeConfig, options: dict[str, Any],
             ctx: BackendContext) -> tuple[TextEncoder, Any]:
    """(the encoder the options ask for, the embedder to close or None)."""
    if config.encoder == "lexical":
        return make_encoder(config), None
    from memory_bench_embed import embedder_from_options  # the model: only here

    embedder = embedder_from_options(options, ctx)
    try:
        return make_encoder(config, embedder, embedding_identity(embedder)), embedder
    except BaseException:
        embedder.close()
        raise


def _check_saved(path: Path, saved: LatticeConfig, asked: LatticeConfig) -> None:
    """A loaded lattice runs with its saved settings: refuse options that say otherwise,
    so that the options a result records are the ones that ran."""
    for name in _FIELDS:
        if getattr(saved, name) != getattr(asked, name):
            raise ValueError(
                f"lattice at {path} was saved with {name}={getattr(saved, name)!r}; the "
                f"options ask for {getattr(asked, name)!r} (give the store's value)"
            )


class RshlBackend:
    """An RSHL lattice, embedded in the pair's workdir or opened from a live directory.

    With ``path`` set, the lattice there is the user's (a live, long-lived
    store): it is locked while open, a save a crash interrupted is recovered,
    and it is used as a guest (``Lattice.as_guest``), so the user's cells, clock
    and IDF counts come back unchanged once the benchmark's items are removed.
    It is saved on ``close`` (when something changed) and after each ``consolidate``.

    With ``ctx.read_only`` (the harness only counts: its check of a live store before a
    run) the store is opened under a shared lock, never recovered nor saved, and every
    call that would change it raises: a run refused there leaves every file as it was.

    With ``encoder=dense`` or ``hybrid`` the vectors come from the shared
    embedder (memory-bench-embed: the model, runtime and cache faiss-rag uses),
    and a live store opens only if the same encoder and model made it.
    """

    def __init__(self, options: dict[str, Any], ctx: BackendContext) -> None:
        self.path = Path(options["path"]) if options.get("path") else ctx.workdir / "lattice"
        config = config_from_options(options)
        self.read_only = bool(getattr(ctx, "read_only", False))
        encoder, self._embedder = _encoder(config, options, ctx)
        try:
            self._lock = StoreLock(self.path, shared=self.read_only).acquire()
        except BaseException:
            self._close_embedder()
            raise
        try:
            if not self.read_only:
                recover(self.path)
            if is_lattice_dir(readable(self.path) if self.read_only else self.path):
                self.lattice = load(
                    self.path, encoder, into=Lattice,
                    check=lambda saved: _check_saved(self.path, saved, config),
                    read_only=self.read_only)
                self.lattice.as_guest()
            else:
                self.lattice = Lattice(config, encoder)
        except BaseException:
            self._lock.release()
            self._close_embedder()
            raise
        self._closed = False
        self._changed = False  # saved on close only if so: an unchanged store is not rewritten

    def _writing(self) -> None:
        if self.read_only:
            raise PermissionError(f"lattice {self.path} was opened read-only (a store check)")
        self._changed = True

    def _close_embedder(self) -> None:
        if self._embedder is not None:
            self._embedder.close()
            self._embedder = None

    def write(self, items: Sequence[Item]) -> list[WriteResult]:
        self._writing()
        records = [
            Record(i.id, i.text, i.source, i.timestamp, i.region, tuple(i.tags)) for i in items
        ]
        return [
            WriteResult(o.id, o.accepted, o.reason, o.merged_into, o.supersedes)
            for o in self.lattice.write(records)
        ]

    def query(self, text: str, k: int) -> list[Hit]:
        if not self.read_only:
            self._changed = True  # retrieval strengthens cells
        return [
            Hit(
                id=h.id,
                score=h.score,
                source=h.source,
                timestamp=h.timestamp,
                strength=h.strength,
                sources=h.sources,
            )
            for h in self.lattice.query(text, k)
        ]

    def strength(self, ids: Sequence[str]) -> list[float | None]:
        return self.lattice.strength(ids)

    def _save(self) -> None:
        """Save under the store's lock, or refuse: a lock lost while open (its file removed
        and taken anew by another process) means another writer may be saving."""
        if not self._lock.held():
            raise StoreError(f"lattice {self.path}: its lock file {self._lock.file.name} was "
                             "removed while the store was open; not saved (another process "
                             "may be using the store)")
        self.lattice.save(self.path)
        self._changed = False

    def consolidate(self) -> dict[str, Any]:
        self._writing()
        report = self.lattice.consolidate()
        self._save()
        return report

    def forget(self, ids: Sequence[str] = (), source: str | None = None,
               prefix: str = "") -> int:
        self._writing()
        return self.lattice.forget(ids, source, prefix)

    def remove(self, prefix: str) -> int:
        self._writing()
        return self.lattice.remove(prefix)

    def count(self, prefix: str) -> int:
        return self.lattice.count(prefix)

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            try:
                if self._changed:
                    self._save()
            finally:
                self._lock.release()
                self._close_embedder()
