"""Saving a lattice to a directory and loading it back: numpy arrays plus JSON, no pickle.

Layout (``FORMAT`` = 1)::

    meta.json     format, config, encoder, clock, regions, IDF counts, cue counts, cells
    codes.npy     uint64 (n, D/64)   packed sign codes
    acc.npy       int8   (n, D)      quantised accumulators (n, 0) for encoder=dense
    scale.npy     float32 (n,)       per-row quantisation scale
    norm.npy      float32 (n,)       accumulator norms (saved, not recomputed, so
                                     a reloaded lattice scores bit-identically)
    dead.npy      bool   (n,)        rows removed since the last sleep
    region.npy    int32  (n,)        region id per row
    vec.npy       float32 (n, d)     embeddings (encoder=dense or hybrid only)

``meta.json`` names the encoder that made the vectors (``encoder``: its kind,
D and seed, and for a dense part the model's name, weights sha256, dimension
and numerics). :func:`load` opens a lattice only with that encoder: vectors of
two models (or of a model and a lexical encoder) are never mixed in one store.
A lattice saved before encoders existed has no ``encoder`` entry: it is lexical.

A save is crash-safe at every step. Each file is written and fsynced in a new
sibling directory ``.DIR.new-*``; then ``DIR`` is renamed to ``.DIR.old``, the
new directory to ``DIR``, and ``.DIR.old`` is deleted, with the parent directory
fsynced after each rename. A crash before the first rename leaves ``DIR``
untouched; between the renames, ``.DIR.old`` is the only copy and
:func:`recover` (called by :func:`load` and :func:`open_dir`) renames it back;
after the second, ``DIR`` is the new copy. ``.DIR.old`` is deleted only while a
valid ``DIR`` exists.

A lattice directory used as a live store is opened under :class:`StoreLock`
(``.DIR.lock`` beside it, there only while a process has the store open), so two
processes never save over each other. Opened read-only (``load(read_only=True)``
under a shared lock), nothing is written: not even a recovery, which is read from
``.DIR.old`` where it stands.
"""

from __future__ import annotations

import errno
import fcntl
import json
import math
import os
import re
import secrets
import shutil
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import numpy as np

from memory_bench_rshl.cell import Cell
from memory_bench_rshl.config import LatticeConfig
from memory_bench_rshl.cues import CueMemory
from memory_bench_rshl.encoders import make_encoder
from memory_bench_rshl.encoding import TextEncoder, mismatch

if TYPE_CHECKING:
    from memory_bench_rshl.lattice import Lattice

__all__ = ["FORMAT", "StoreError", "StoreLock", "is_lattice_dir", "load", "readable", "recover",
           "save", "store_problem"]

FORMAT = 1
_ARRAYS = ("codes", "acc", "scale", "norm")


class StoreError(ValueError):
    """A directory that is not a lattice, a store another process holds, a damaged store."""


def is_lattice_dir(path: Path) -> bool:
    return (path / "meta.json").is_file()


def _old(path: Path) -> Path:
    return path.with_name(f".{path.name}.old")


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write(path: Path, fill: Callable[[IO[bytes]], Any]) -> None:
    """Create ``path``, let ``fill`` write it, and fsync it before anything is renamed."""
    with path.open("wb") as fh:
        fill(fh)
        fh.flush()
        os.fsync(fh.fileno())


# How every saved meta.json starts (``save`` writes format and kind first): enough to tell
# a lattice from another program's meta.json without reading its cells.
_HEAD = re.compile(rb'\s*\{\s*"format"\s*:\s*(\d{1,9})\s*,\s*"kind"\s*:\s*"rshl-lattice"')


def _not_a_lattice(directory: Path) -> str | None:
    """Why the meta.json in ``directory`` is not an RSHL lattice's of this format, or None;
    reads its first bytes only."""
    try:
        with (directory / "meta.json").open("rb") as fh:
            head = fh.read(4096)
    except OSError as exc:
        return f"its meta.json cannot be read ({exc.strerror or exc})"
    found = _HEAD.match(head)
    if found is None:
        return "its meta.json is not an RSHL lattice's"
    if int(found.group(1)) != FORMAT:
        return f"it is an RSHL lattice of format {int(found.group(1))}; this version reads {FORMAT}"
    return None


def store_problem(path: Path) -> str | None:
    """Why ``path`` cannot be used as a lattice directory, or None (a lattice, a
    recoverable one, an empty directory or nothing yet). Never writes."""
    if path.is_file():
        return f"{path} is a file, not a lattice directory"
    for directory in (path, _old(path)):
        if is_lattice_dir(directory):
            why = _not_a_lattice(directory)
            return None if why is None else f"{directory}: {why}: not a store of ours"
    if path.is_dir() and any(path.iterdir()):
        return (f"{path} is a directory holding other files, not an RSHL lattice: "
                "give an empty or new directory")
    return None


def recover(path: Path) -> bool:
    """Finish or undo a save that a crash interrupted; True if ``.DIR.old`` was restored.

    ``.DIR.old`` without a valid ``DIR`` is the last complete copy: it is renamed
    back (an empty ``DIR`` in its way is removed first); beside a valid ``DIR`` it is
    a save's last step not taken, and is deleted. Half-written ``.DIR.new-*``
    directories are deleted. Call it holding the store's lock.
    """
    old = _old(path)
    for stale in path.parent.glob(f".{path.name}.new-*"):
        shutil.rmtree(stale, ignore_errors=True)
    if is_lattice_dir(path):
        if old.exists():
            shutil.rmtree(old, ignore_errors=True)
        return False
    if not is_lattice_dir(old):
        return False
    if path.is_dir() and not any(path.iterdir()):
        path.rmdir()
    elif path.exists():
        raise StoreError(f"{path} is not a lattice and {old} holds one: move one of them away")
    os.replace(old, path)
    _fsync_dir(path.parent)
    return True


def readable(path: Path) -> Path:
    """The directory a read-only open reads: ``path``, or ``.DIR.old`` where a crash left
    the only complete copy (what :func:`recover` would rename back). Never writes."""
    old = _old(path)
    return old if not is_lattice_dir(path) and is_lattice_dir(old) else path


def save(lat: Lattice, path: Path) -> None:
    """Write ``lat`` to ``path`` (see the module docstring for why each step is safe)."""
    path = path.absolute()
    path.parent.mkdir(parents=True, exist_ok=True)
    problem = store_problem(path)
    if problem:
        raise StoreError(problem)
    recover(path)
    tmp = path.with_name(f".{path.name}.new-{secrets.token_hex(4)}")
    tmp.mkdir()  # the umask's mode, as a directory the user made (mkdtemp's is 0700)
    if path.is_dir():
        tmp.chmod(path.stat().st_mode & 0o7777)  # keep the user's permissions
    n = lat.index.n
    arrays = {name: getattr(lat.index, name)[:n] for name in _ARRAYS}
    arrays.update(dead=lat.dead[:n], region=lat.region_of_row[:n])
    if lat.index.vector_dim:
        arrays["vec"] = lat.index.vec[:n]
    for name, arr in arrays.items():
        _write(tmp / f"{name}.npy", lambda fh, a=arr: np.save(fh, a, allow_pickle=False))
    meta = {
        "format": FORMAT,
        "kind": "rshl-lattice",
        "config": lat.config.to_dict(),
        "encoder": lat.encoder.identity(),
        "now": None if lat.now == -math.inf else lat.now,
        "encoded_at_docs": lat.encoded_at_docs,
        "regions": lat.regions,
        "idf": {"n_docs": lat.stats.n_docs, "df": dict(lat.stats.df)},
        "cues": lat.cues.to_dict(),
        "cells": [None if c is None else c.to_dict() for c in lat.cells],
    }
    text = json.dumps(meta, ensure_ascii=False).encode("utf-8")
    _write(tmp / "meta.json", lambda fh: fh.write(text))
    _fsync_dir(tmp)
    old = _old(path)
    if is_lattice_dir(path):
        shutil.rmtree(old, ignore_errors=True)  # a valid DIR exists: .old is left over
        os.replace(path, old)
        _fsync_dir(path.parent)
    elif path.is_dir():
        path.rmdir()  # empty (store_problem said so)
    os.replace(tmp, path)
    _fsync_dir(path.parent)
    shutil.rmtree(old, ignore_errors=True)


def _encoder_for(path: Path, config: LatticeConfig, saved: dict[str, Any],
                 encoder: TextEncoder | None) -> TextEncoder:
    """``encoder`` if it made this lattice's vectors (the lexical one by default)."""
    if encoder is None:
        if config.encoder != "lexical":
            model = saved.get("model", "an embedding model")
            raise StoreError(f"{path} holds {config.encoder} vectors made with {model}: "
                             "open it with that encoder (Lattice.load(path, encoder))")
        encoder = make_encoder(config)
    problem = mismatch(saved, encoder.identity())
    if problem:
        raise StoreError(f"lattice {path} cannot be opened with {problem}: give the "
                         "encoder that made it")
    return encoder


def load(path: Path, encoder: TextEncoder | None = None, *, into: type[Lattice],
         check: Callable[[LatticeConfig], None] | None = None,
         read_only: bool = False) -> Lattice:
    """Read a lattice directory, restoring ``.DIR.old`` first if a save was cut short
    (``read_only``: reading it where it stands, see :func:`readable`).

    ``encoder`` must be the one that made its vectors (see the module docstring).
    ``check`` is called with the saved configuration before the encoder is compared
    or any array read, to refuse a store on the caller's own terms. ``into``: the
    class to build (``Lattice``), given by the caller, so that this module never
    imports lattice.py, which imports it to save and load.
    """
    if read_only:
        path = readable(path)
    else:
        recover(path)
    try:
        with (path / "meta.json").open(encoding="utf-8") as fh:
            meta = json.load(fh)
    except (OSError, ValueError, RecursionError) as exc:
        raise StoreError(f"{path} is not a readable RSHL lattice: {exc}") from None
    if not isinstance(meta, dict) or meta.get("kind") != "rshl-lattice" \
            or meta.get("format") != FORMAT:
        raise StoreError(f"{path} is not an RSHL lattice directory of format {FORMAT}")
    config = LatticeConfig.from_dict(meta["config"])
    if check is not None:
        check(config)
    saved = meta.get("encoder") or {"kind": "lexical", "dim": config.dim, "seed": config.seed}
    lat = into(config, _encoder_for(path, config, saved, encoder))
    arrays = {n: np.load(path / f"{n}.npy", allow_pickle=False) for n in _ARRAYS}
    vec = np.load(path / "vec.npy", allow_pickle=False) if lat.index.vector_dim else None
    lat.index.load_arrays(arrays["codes"], arrays["acc"], arrays["scale"], vec)
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
    lat.cues = CueMemory.from_dict(meta.get("cues"))  # a store saved before cues has none
    lat._rebuild_maps()
    return lat


_UNWRITABLE = (errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOENT)


class StoreLock:
    """A lock on a lattice directory for as long as a process uses it: exclusive for a
    process that may save, shared (``shared=True``) for readers.

    ``flock`` on ``.DIR.lock`` beside the directory (the directory itself is
    replaced on every save, so it cannot carry the lock); the kernel releases it
    when the process dies, so a crash never leaves the store locked. An exclusive
    holder writes its pid there, for the message a second opener gets.

    The file is removed on release by whoever holds it exclusively then, so a closed
    store leaves nothing beside it. A lock taken on a file that was removed meanwhile
    is no lock: :meth:`acquire` checks that the file it locked is still the one at the
    path, and opens it again if not.
    """

    def __init__(self, path: Path, *, shared: bool = False) -> None:
        self.path = path.absolute()
        self.file = self.path.with_name(f".{self.path.name}.lock")
        self.shared = shared
        self._fd: int | None = None

    def _open(self) -> int | None:
        """The lock file, made if need be; None: a reader that cannot make it (a store
        in a directory it may not write), which then reads unlocked."""
        if not self.shared:
            self.file.parent.mkdir(parents=True, exist_ok=True)
        try:
            return os.open(self.file, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            if not self.shared or exc.errno not in _UNWRITABLE:
                raise
        try:
            return os.open(self.file, os.O_RDONLY)  # flock needs no write access
        except OSError:
            return None

    def acquire(self) -> StoreLock:
        while True:
            fd = self._open()
            if fd is None:
                return self
            try:
                fcntl.flock(fd, (fcntl.LOCK_SH if self.shared else fcntl.LOCK_EX)
                            | fcntl.LOCK_NB)
            except OSError as exc:
                holder = os.read(fd, 200).decode("utf-8", "replace").strip()
                os.close(fd)
                if exc.errno in (errno.EAGAIN, errno.EACCES):
                    raise StoreError(f"lattice {self.path} is in use by "
                                     f"{holder or 'another process'}") from None
                raise
            if self._same(fd):
                break
            os.close(fd)  # removed by its last holder meanwhile: take the new one
        if not self.shared:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"pid {os.getpid()}\n".encode(), 0)
        self._fd = fd
        return self

    def held(self) -> bool:
        """Still this store's lock: taken, and its file not removed or replaced since (a
        writer that lost it must not save: another process may hold the new one)."""
        return self._fd is not None and self._same(self._fd)

    def _same(self, fd: int) -> bool:
        try:
            return os.stat(self.file).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            return False

    def release(self) -> None:
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        try:
            if self.shared:  # the last reader removes it; another holder keeps it
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            if self._same(fd):
                self.file.unlink()
        except OSError:
            pass
        finally:
            os.close(fd)  # closing drops the lock

    def __enter__(self) -> StoreLock:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()
