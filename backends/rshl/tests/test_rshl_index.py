"""The packed-code index: Hamming kernels, selection, int8 rescoring, the sketch path."""

from __future__ import annotations

import numpy as np
from memory_bench_rshl.encoder import Encoder, pack_signs
from memory_bench_rshl.index import CodeIndex, _smallest, hamming, hamming_columns


def _brute(codes: np.ndarray, q: np.ndarray) -> np.ndarray:
    return np.unpackbits((codes ^ q).view(np.uint8), axis=1).sum(axis=1)


def test_hamming_kernels_match_brute_force() -> None:
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 2**63, size=(5000, 8), dtype=np.uint64)
    q = rng.integers(0, 2**63, size=8, dtype=np.uint64)
    expected = _brute(codes, q)
    assert np.array_equal(hamming(codes, q), expected)
    assert np.array_equal(hamming_columns(np.ascontiguousarray(codes.T), q, 5000), expected)


def test_histogram_selection_returns_the_m_smallest() -> None:
    rng = np.random.default_rng(1)
    values = rng.integers(0, 600, size=100_000).astype(np.uint16)
    picked = _smallest(values, 777)
    assert len(picked) == len(set(picked.tolist())) == 777
    assert values[picked].max() <= np.sort(values)[776]


def test_int8_accumulators_keep_the_cosine() -> None:
    enc = Encoder(4096, seed=2)
    texts = [f"Person{i} Olsen works for Company{i % 7} in Town{i % 5}." for i in range(50)]
    accs = np.stack([enc.encode(t) for t in texts])
    idx = CodeIndex(4096)
    for a in accs:
        idx.append(a)
    q = enc.encode("Who does Person3 Olsen work for?")
    exact = accs @ q / (np.linalg.norm(accs, axis=1) * np.linalg.norm(q))
    approx = idx.cosine(q, np.arange(50))
    assert np.max(np.abs(exact - approx)) < 2e-3
    assert int(np.argmax(approx)) == 3


def test_sketch_path_finds_what_the_full_scan_finds() -> None:
    enc = Encoder(4096, seed=3)
    texts = [f"Item{i} Quill is stored in Depot{i % 11} shelf {i % 13}." for i in range(3000)]
    full, sketched = CodeIndex(4096), CodeIndex(4096, full_scan_below=1, prefilter=256)
    for t in texts:
        a = enc.encode(t)
        full.append(a)
        sketched.append(a)
    for i in (0, 17, 1234, 2999):
        q = enc.encode(f"Where is Item{i} Quill stored?")
        code = pack_signs(q)
        a, b = full.candidates(code, 8), sketched.candidates(code, 8)
        best_a = a[np.argmax(full.cosine(q, a))]
        best_b = b[np.argmax(sketched.cosine(q, b))]
        assert best_a == best_b == i


def test_dead_rows_are_never_candidates() -> None:
    enc = Encoder(1024)
    idx = CodeIndex(1024, full_scan_below=1, prefilter=4)
    for i in range(20):
        idx.append(enc.encode(f"Thing{i} sits on shelf{i}"))
    dead = np.zeros(20, dtype=bool)
    dead[5] = True
    rows = idx.candidates(pack_signs(enc.encode("Thing5 sits on shelf5")), 3, dead)
    assert 5 not in rows.tolist() and len(rows) == 3
