"""The lattice index: packed sign codes for a fast scan, int8 accumulators for exact rescoring.

Storage per cell at D = 4096: the sign code (D/8 = 512 bytes, uint64 words),
a column-major copy of its first ``sketch_bits`` bits (128 bytes) for the first
stage of the scan, and the accumulator quantised to int8 with one float32
scale (D bytes + 4). A float32 accumulator would be 16 KiB a cell (16 GB at a
million cells); int8 with a per-row scale moves the cosine by under 1e-3
(6e-4 at most in ``test_rshl_index``), below the 0.02 strength tie-break band.

Search is three stages, all linear scans or small gathers:

1. Hamming distance on the sketch over every live row, keep the ``prefilter``
   nearest. The sketch is stored column-major (one contiguous uint64 vector per
   word), so the scan is a few long XOR / popcount / add passes that numpy runs
   at memory speed, and the nearest are selected from a histogram of the small
   integer distances instead of a sort;
2. Hamming distance on the full code for those, keep ``candidates``;
3. exact cosine between the query's float accumulator and the candidates'
   dequantised accumulators.

Below ``full_scan_below`` rows stage 1 is skipped (the full code is cheap there).

An encoder with a dense part (``dense``, ``hybrid``) also stores each cell's
embedding (float32, ``vector_dim`` wide: 1,536 bytes at d = 384), which stage 3
rescores by its exact cosine and re-encoding reuses; ``dense`` stores no
accumulator (``accumulators=False``). Which parts a similarity combines is the
encoder's business (``encoding.TextEncoder.similarity``).
"""

from __future__ import annotations

import numpy as np

from memory_bench_rshl.encoder import pack_signs
from memory_bench_rshl.encoding import Encoding

__all__ = ["CodeIndex", "hamming", "hamming_columns", "quantise"]

_CHUNK = 4096
_COLUMN_CHUNK = 1 << 16
_ROW_ARRAYS = ("codes", "acc", "scale", "norm", "vec")


def hamming(codes: np.ndarray, q: np.ndarray, rows: int | None = None) -> np.ndarray:
    """Hamming distances (uint16) between ``q`` (W,) and the first ``rows`` of ``codes`` (n, W)."""
    n = codes.shape[0] if rows is None else rows
    w = codes.shape[1]
    out = np.empty(n, dtype=np.uint16)
    chunk = min(_CHUNK, max(n, 1))
    buf = np.empty((chunk, w), dtype=np.uint64)
    cnt = np.empty((chunk, w), dtype=np.uint8)
    for s in range(0, n, chunk):
        e = min(n, s + chunk)
        m = e - s
        np.bitwise_xor(codes[s:e], q, out=buf[:m])
        np.bitwise_count(buf[:m], out=cnt[:m])
        np.add.reduce(cnt[:m], axis=1, dtype=np.uint16, out=out[s:e])
    return out


def hamming_columns(columns: np.ndarray, q: np.ndarray, n: int) -> np.ndarray:
    """Hamming distances (uint16) of ``q`` (w,) to the first ``n`` columns of (w, capacity)."""
    out = np.empty(n, dtype=np.uint16)
    chunk = min(_COLUMN_CHUNK, max(n, 1))
    x = np.empty(chunk, dtype=np.uint64)
    c = np.empty(chunk, dtype=np.uint8)
    for s in range(0, n, chunk):
        e = min(n, s + chunk)
        m = e - s
        o = out[s:e]
        for w in range(columns.shape[0]):
            np.bitwise_xor(columns[w, s:e], q[w], out=x[:m])
            np.bitwise_count(x[:m], out=c[:m])
            if w == 0:
                o[:] = c[:m]
            else:
                np.add(o, c[:m], out=o)
    return out


def quantise(acc: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """float32 accumulators (n, D) -> (int8 (n, D), float32 scale (n,))."""
    acc = np.atleast_2d(acc)
    peak = np.abs(acc).max(axis=1)
    scale = np.where(peak > 0, peak / 127.0, 1.0).astype(np.float32)
    q = np.rint(acc / scale[:, None]).astype(np.int8)
    return q, scale


def _smallest(values: np.ndarray, m: int) -> np.ndarray:
    """Indices of the ``m`` smallest values, in no particular order.

    Hamming distances are small integers: on long arrays a histogram finds the
    cut-off in one pass, far faster than ``argpartition``; ties at the cut-off
    are broken by row order.
    """
    n = values.shape[0]
    if m >= n:
        return np.arange(n)
    if n < 8 * m or values.dtype != np.uint16:
        return np.argpartition(values, m - 1)[:m]
    counts = np.cumsum(np.bincount(values))
    cut = int(np.searchsorted(counts, m))  # values <= cut hold at least m rows
    below = np.flatnonzero(values < cut)
    at = np.flatnonzero(values == cut)[: m - len(below)]
    return np.concatenate([below, at])


class CodeIndex:
    """Growable arrays of codes, quantised accumulators and embeddings, addressed by row."""

    def __init__(
        self,
        dim: int,
        *,
        sketch_bits: int = 1024,
        full_scan_below: int = 16_384,
        prefilter: int = 4096,
        capacity: int = 1024,
        accumulators: bool = True,
        vector_dim: int = 0,
    ) -> None:
        self.dim = dim
        self.words = dim // 64
        self.sketch_words = max(1, min(self.words, sketch_bits // 64))
        self.full_scan_below = full_scan_below
        self.prefilter = prefilter
        self.accumulators = accumulators
        self.vector_dim = vector_dim
        self.n = 0
        self.codes = np.zeros((capacity, self.words), dtype=np.uint64)
        self.sketch = np.zeros((self.sketch_words, capacity), dtype=np.uint64)  # column-major
        self.acc = np.zeros((capacity, dim if accumulators else 0), dtype=np.int8)
        self.scale = np.zeros(capacity, dtype=np.float32)
        self.norm = np.zeros(capacity, dtype=np.float32)  # of the dequantised accumulator
        self.vec = np.zeros((capacity, vector_dim), dtype=np.float32)  # embeddings, if any

    # -- storage -----------------------------------------------------------
    def _grow(self, need: int) -> None:
        cap = self.codes.shape[0]
        if need <= cap:
            return
        new = max(need, cap * 2)
        for name in _ROW_ARRAYS:
            old = getattr(self, name)
            arr = np.zeros((new, *old.shape[1:]), dtype=old.dtype)
            arr[: self.n] = old[: self.n]
            setattr(self, name, arr)
        sketch = np.zeros((self.sketch_words, new), dtype=np.uint64)
        sketch[:, : self.n] = self.sketch[:, : self.n]
        self.sketch = sketch

    def append(self, acc: np.ndarray | None = None, *, code: np.ndarray | None = None,
               vec: np.ndarray | None = None) -> int:
        """Add one row (see :meth:`set`); return it."""
        self._grow(self.n + 1)
        row = self.n
        self.n += 1
        self.set(row, acc, code=code, vec=vec)
        return row

    def add(self, enc: Encoding) -> int:
        """Add one encoded text; return its row."""
        return self.append(enc.lexical, code=enc.code, vec=enc.dense)

    def set(self, row: int, acc: np.ndarray | None = None, *, code: np.ndarray | None = None,
            vec: np.ndarray | None = None) -> None:
        """(Re)write a row: a float32 accumulator (quantised here), the packed code
        (the accumulator's signs unless given) and the embedding (if the index keeps them)."""
        if acc is not None and self.accumulators:
            q, scale = quantise(acc)
            self.acc[row] = q[0]
            self.scale[row] = scale[0]
            self.norm[row] = float(np.linalg.norm(q[0].astype(np.float32))) * scale[0]
        if code is None:
            if acc is None:
                raise ValueError("a row needs a code or an accumulator")
            code = pack_signs(acc)
        self.codes[row] = code
        self.sketch[:, row] = code[: self.sketch_words]
        if self.vector_dim:
            if vec is None:
                raise ValueError("this index keeps embeddings: a row needs one")
            self.vec[row] = vec

    def put(self, row: int, enc: Encoding) -> None:
        """Rewrite a row from an encoded text."""
        self.set(row, enc.lexical, code=enc.code, vec=enc.dense)

    def encoding(self, row: int) -> Encoding:
        """A stored row as an encoding (accumulator dequantised), e.g. for sleep's merge scan."""
        acc = self.acc[row].astype(np.float32) * self.scale[row] if self.accumulators else None
        vec = self.vec[row].copy() if self.vector_dim else None
        return Encoding(self.codes[row].copy(), acc, vec)

    def load_arrays(self, codes: np.ndarray, acc: np.ndarray, scale: np.ndarray,
                    vec: np.ndarray | None = None) -> None:
        """Replace the contents with saved arrays (norms and sketches are derived)."""
        n = codes.shape[0]
        self.n = 0
        self._grow(max(n, 1))
        self.n = n
        self.codes[:n] = codes
        self.sketch[:, :n] = codes[:, : self.sketch_words].T
        self.acc[:n] = acc
        self.scale[:n] = scale
        if self.vector_dim:
            if vec is None or vec.shape != (n, self.vector_dim):
                raise ValueError(f"expected {n} embeddings of {self.vector_dim} dimensions")
            self.vec[:n] = vec
        if self.accumulators:
            for s in range(0, n, _CHUNK):
                e = min(n, s + _CHUNK)
                self.norm[s:e] = np.linalg.norm(acc[s:e].astype(np.float32), axis=1) * scale[s:e]

    def compact(self, keep: np.ndarray) -> None:
        """Keep only the rows in ``keep`` (sorted row numbers), renumbered 0..len-1."""
        n = len(keep)
        for name in _ROW_ARRAYS:
            arr = getattr(self, name)
            arr[:n] = arr[keep]
        self.sketch[:, :n] = self.sketch[:, keep]
        self.n = n

    def nbytes_per_row(self) -> int:
        return int(
            self.codes.itemsize * self.words
            + self.sketch.itemsize * self.sketch_words
            + self.acc.shape[1]
            + 8
            + self.vec.itemsize * self.vector_dim
        )

    # -- search ------------------------------------------------------------
    def candidates(self, q_code: np.ndarray, m: int, dead: np.ndarray | None = None) -> np.ndarray:
        """Rows of the ``m`` nearest codes by Hamming distance (unordered).

        ``dead`` is a boolean mask over rows that must never be returned.
        """
        n = self.n
        if n == 0:
            return np.zeros(0, dtype=np.int64)
        if n < self.full_scan_below:
            d = hamming(self.codes, q_code, n)
            rows = np.arange(n)
        else:
            d1 = hamming_columns(self.sketch, q_code[: self.sketch_words], n)
            if dead is not None:
                d1[np.flatnonzero(dead[:n])] = np.iinfo(np.uint16).max
            # Keep 1/64 of the rows, at most ``prefilter``: enough margin for the
            # sketch's noise, and no full-code work wasted on mid-sized lattices.
            rows = _smallest(d1, max(m * 4, min(self.prefilter, n // 64)))
            d = hamming(self.codes[rows], q_code)
        if dead is not None:
            d = d.copy()
            d[dead[rows]] = np.iinfo(np.uint16).max
        keep = _smallest(d, m)
        rows, d = rows[keep], d[keep]
        if dead is not None:
            rows = rows[~dead[rows]]
        return rows

    def dense_cosine(self, q_vec: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """Exact cosine between a query embedding and the given rows' embeddings."""
        qn = float(np.linalg.norm(q_vec))
        if qn == 0.0 or len(rows) == 0:
            return np.zeros(len(rows), dtype=np.float32)
        vecs = self.vec[rows]
        dots = np.einsum("rd,d->r", vecs, q_vec.astype(np.float32))  # no BLAS threads
        denom = np.linalg.norm(vecs, axis=1) * qn
        with np.errstate(divide="ignore", invalid="ignore"):
            cos = np.where(denom > 0, dots / denom, 0.0)
        return cos.astype(np.float32)

    def cosine(self, q_acc: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """Exact cosine between a float32 query accumulator and the given rows."""
        qn = float(np.linalg.norm(q_acc))
        if qn == 0.0 or len(rows) == 0:
            return np.zeros(len(rows), dtype=np.float32)
        dots = np.einsum("rd,d->r", self.acc[rows].astype(np.float32), q_acc)  # no BLAS threads
        denom = self.norm[rows] * qn
        with np.errstate(divide="ignore", invalid="ignore"):
            cos = np.where(denom > 0, dots * self.scale[rows] / denom, 0.0)
        return cos.astype(np.float32)
