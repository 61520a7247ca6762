"""memory-bench's Backend protocol over a :class:`~memory_bench_rshl.lattice.Lattice`."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memory_bench import BackendContext, Hit, Item, WriteResult
from memory_bench_rshl.config import LatticeConfig
from memory_bench_rshl.lattice import Lattice, Record
from memory_bench_rshl.persist import StoreLock, is_lattice_dir, recover

__all__ = ["RshlBackend", "config_from_options"]

_DAY = 86_400.0
# The lattice settings the options set (half_life_days is half_life_s).
_FIELDS = ("dim", "seed", "min_words", "merge_cosine", "merge_jaccard", "supersede",
           "superseded_factor", "show_superseded", "initial_strength", "eta", "half_life_s",
           "strength_weight", "prune_floor", "candidates", "sketch_bits", "prefilter",
           "reinforce")


def config_from_options(options: dict[str, Any]) -> LatticeConfig:
    """Map the plugin's resolved options onto a lattice configuration."""
    return LatticeConfig(
        dim=int(options["dim"]),
        seed=int(options["seed"]),
        min_words=int(options["min_words"]),
        merge_cosine=float(options["merge_cosine"]),
        merge_jaccard=float(options["merge_jaccard"]),
        supersede=str(options["supersede"]),
        superseded_factor=float(options["superseded_factor"]),
        show_superseded=bool(options["show_superseded"]),
        initial_strength=float(options["initial_strength"]),
        eta=float(options["eta"]),
        half_life_s=float(options["half_life_days"]) * _DAY,
        strength_weight=float(options["strength_weight"]),
        prune_floor=float(options["prune_floor"]),
        candidates=int(options["candidates"]),
        sketch_bits=int(options["sketch_bits"]),
        prefilter=int(options["prefilter"]),
        reinforce=bool(options["reinforce"]),
    )


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
    It is saved on ``close`` and after each ``consolidate``.
    """

    def __init__(self, options: dict[str, Any], ctx: BackendContext) -> None:
        self.path = Path(options["path"]) if options.get("path") else ctx.workdir / "lattice"
        config = config_from_options(options)
        self._lock = StoreLock(self.path).acquire()
        try:
            recover(self.path)
            if is_lattice_dir(self.path):
                self.lattice = Lattice.load(self.path)
                _check_saved(self.path, self.lattice.config, config)
                self.lattice.as_guest()
            else:
                self.lattice = Lattice(config)
        except BaseException:
            self._lock.release()
            raise
        self._closed = False

    def write(self, items: Sequence[Item]) -> list[WriteResult]:
        records = [
            Record(i.id, i.text, i.source, i.timestamp, i.region, tuple(i.tags)) for i in items
        ]
        return [
            WriteResult(o.id, o.accepted, o.reason, o.merged_into, o.supersedes)
            for o in self.lattice.write(records)
        ]

    def query(self, text: str, k: int) -> list[Hit]:
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

    def consolidate(self) -> dict[str, Any]:
        report = self.lattice.consolidate()
        self.lattice.save(self.path)
        return report

    def remove(self, prefix: str) -> int:
        return self.lattice.remove(prefix)

    def count(self, prefix: str) -> int:
        return self.lattice.count(prefix)

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            try:
                self.lattice.save(self.path)
            finally:
                self._lock.release()
