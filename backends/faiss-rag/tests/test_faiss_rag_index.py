"""The faiss index wrapper on random unit vectors: removal, tombstones, determinism."""

from __future__ import annotations

import numpy as np
import pytest
from memory_bench_faiss_rag.index import VectorIndex

DIM = 32


def _unit(n: int, seed: int) -> np.ndarray:
    x = np.random.default_rng(seed).normal(size=(n, DIM)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def _filled(kind: str, n: int = 300, seed: int = 0) -> tuple[VectorIndex, np.ndarray]:
    idx = VectorIndex(DIM, kind=kind, hnsw_m=16, ef_construction=64, ef_search=64, seed=seed)
    x = _unit(n, 1)
    idx.add(range(n), x)
    return idx, x


@pytest.mark.parametrize("kind", ["flat", "hnsw"])
def test_search_finds_each_vector_itself(kind: str) -> None:
    idx, x = _filled(kind)
    for i in range(0, 300, 7):
        scores, labels = idx.search(x[i], 5)
        assert labels[0] == i and scores[0] == pytest.approx(1.0, abs=1e-5)
        assert list(scores) == sorted(scores, reverse=True)


def test_flat_is_exact() -> None:
    idx, x = _filled("flat")
    q = _unit(1, 9)[0]
    _scores, labels = idx.search(q, 10)
    assert list(labels) == list(np.argsort(-(x @ q))[:10])


@pytest.mark.parametrize("kind", ["flat", "hnsw"])
def test_removed_labels_never_come_back_and_k_live_results_do(kind: str) -> None:
    idx, x = _filled(kind)
    gone = list(range(0, 100))
    live = {i: x[i] for i in range(100, 300)}
    idx.remove(gone, live)
    assert idx.live == 200
    for i in range(0, 100, 3):
        _, labels = idx.search(x[i], 10)
        assert len(labels) == 10
        assert not set(labels.tolist()) & set(gone)
    if kind == "hnsw":
        assert idx.tombstones == set(gone) and idx.rebuilds == 0


def test_hnsw_rebuilds_once_tombstones_outnumber_live_vectors() -> None:
    idx, x = _filled("hnsw")
    idx.remove(list(range(200)), {i: x[i] for i in range(200, 300)})
    assert idx.rebuilds == 1 and not idx.tombstones and idx.live == 100
    _, labels = idx.search(x[250], 3)
    assert labels[0] == 250 and min(labels) >= 200


def test_hnsw_is_reproducible_for_a_seed() -> None:
    q = _unit(50, 5)
    a, _ = _filled("hnsw", seed=3)
    b, _ = _filled("hnsw", seed=3)
    for v in q:
        assert a.search(v, 10)[1].tolist() == b.search(v, 10)[1].tolist()


def test_search_on_an_empty_index_returns_nothing() -> None:
    idx = VectorIndex(DIM, kind="hnsw")
    scores, labels = idx.search(_unit(1, 0)[0], 5)
    assert len(scores) == 0 and len(labels) == 0


@pytest.mark.parametrize("kind", ["flat", "hnsw"])
def test_excluded_labels_are_skipped_and_n_results_still_come_back(kind: str) -> None:
    idx, x = _filled(kind)
    skip = set(range(0, 300, 2))
    for i in range(0, 40, 3):
        _, labels = idx.search(x[i], 10, exclude=skip)
        assert len(labels) == 10 and not set(labels.tolist()) & skip
    _, labels = idx.search(x[0], 500, exclude=skip)
    assert len(labels) <= 150
