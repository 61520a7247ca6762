"""Saving a lattice to a directory and loading it back: numpy arrays plus JSON, no pickle.

Layout (``FORMAT`` = 1)::

    meta.json     format, config, clock, regions, IDF counts, cells (with provenance)
    codes.npy     uint64 (n, D/64)   packed sign codes
    acc.npy       int8   (n, D)      quantised accumulators
    scale.npy     float32 (n,)       per-row quantisation scale
    norm.npy      float32 (n,)       accumulator norms (saved, not recomputed, so
                                     a reloaded lattice scores bit-identically)
    dead.npy      bool   (n,)        rows removed since the last sleep
    region.npy    int32  (n,)        region id per row

The directory is written beside the target and swapped in by rename, so a crash
mid-save leaves the previous copy intact.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import tempfile
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from memory_bench_rshl.cell import Cell
from memory_bench_rshl.config import LatticeConfig

if TYPE_CHECKING:
    from memory_bench_rshl.lattice import Lattice

__all__ = ["FORMAT", "is_lattice_dir", "load", "save"]

FORMAT = 1
_ARRAYS = ("codes", "acc", "scale", "norm")


def is_lattice_dir(path: Path) -> bool:
    return (path / "meta.json").is_file()


def save(lat: Lattice, path: Path) -> None:
    path = path.resolve()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{path.name}.", dir=path.parent))
    n = lat.index.n
    for name in _ARRAYS:
        np.save(tmp / f"{name}.npy", getattr(lat.index, name)[:n], allow_pickle=False)
    np.save(tmp / "dead.npy", lat.dead[:n], allow_pickle=False)
    np.save(tmp / "region.npy", lat.region_of_row[:n], allow_pickle=False)
    meta = {
        "format": FORMAT,
        "kind": "rshl-lattice",
        "config": lat.config.to_dict(),
        "now": None if lat.now == -math.inf else lat.now,
        "encoded_at_docs": lat.encoded_at_docs,
        "regions": lat.regions,
        "idf": {"n_docs": lat.stats.n_docs, "df": dict(lat.stats.df)},
        "cells": [None if c is None else c.to_dict() for c in lat.cells],
    }
    with (tmp / "meta.json").open("w", encoding="utf-8") as fh:
        json.dump(meta, fh, ensure_ascii=False)
    old = None
    if path.exists():
        old = path.with_name(f".{path.name}.old")
        shutil.rmtree(old, ignore_errors=True)
        os.replace(path, old)
    os.replace(tmp, path)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def load(path: Path) -> Lattice:
    from memory_bench_rshl.lattice import Lattice

    with (path / "meta.json").open(encoding="utf-8") as fh:
        meta = json.load(fh)
    if meta.get("kind") != "rshl-lattice" or meta.get("format") != FORMAT:
        raise ValueError(f"{path} is not an RSHL lattice directory of format {FORMAT}")
    lat = Lattice(LatticeConfig.from_dict(meta["config"]))
    arrays = {n: np.load(path / f"{n}.npy", allow_pickle=False) for n in _ARRAYS}
    lat.index.load_arrays(arrays["codes"], arrays["acc"], arrays["scale"])
    n = lat.index.n
    lat.index.norm[:n] = arrays["norm"]
    cap = lat.index.codes.shape[0]
    lat.dead = np.zeros(cap, dtype=bool)
    lat.dead[:n] = np.load(path / "dead.npy", allow_pickle=False)
    lat.region_of_row = np.zeros(cap, dtype=np.int32)
    lat.region_of_row[:n] = np.load(path / "region.npy", allow_pickle=False)
    lat.now = -math.inf if meta["now"] is None else float(meta["now"])
    lat.encoded_at_docs = int(meta["encoded_at_docs"])
    lat.regions = {k: int(v) for k, v in meta["regions"].items()}
    lat.stats.n_docs = int(meta["idf"]["n_docs"])
    lat.stats.df = Counter({k: int(v) for k, v in meta["idf"]["df"].items()})
    lat.cells = [None if d is None else Cell.from_dict(d) for d in meta["cells"]]
    lat._rebuild_maps()
    return lat
