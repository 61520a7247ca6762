"""The Titans update rule in isolation: gradients, write/read, overwrite, forgetting."""

from __future__ import annotations

import numpy as np
import pytest
from memory_bench_neural_memory.backend import build_memory
from memory_bench_neural_memory.codebook import Codebook
from memory_bench_neural_memory.rule import LinearMemory, MLPMemory, UpdateRule

DIM = 32


def unit(rng: np.random.Generator, n: int, dim: int = DIM) -> np.ndarray:
    x = rng.standard_normal((n, dim))
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def memories(seed: int = 0) -> list:
    opts = {"eta": 0.5, "alpha": 0.001, "theta": None, "hidden": 64}
    return [
        build_memory({**opts, "memory": "linear"}, DIM, seed),
        build_memory({**opts, "memory": "mlp"}, DIM, seed),
    ]


@pytest.mark.parametrize("kind", ["linear", "mlp"])
def test_gradient_matches_finite_differences(kind: str) -> None:
    rng = np.random.default_rng(1)
    rule = UpdateRule()
    mem = LinearMemory(DIM, rule) if kind == "linear" else MLPMemory(DIM, 16, rule, 3)
    for p in mem.params:  # a generic point, not the all-zero start
        p += 0.1 * rng.standard_normal(p.shape)
    k, v = unit(rng, 2)
    _, grads = mem.loss_and_grads(k, v)
    eps = 1e-6
    for p, g in zip(mem.params, grads, strict=True):
        for idx in [tuple(rng.integers(0, s) for s in p.shape) for _ in range(5)]:
            old = p[idx]
            p[idx] = old + eps
            up, _ = mem.loss_and_grads(k, v)
            p[idx] = old - eps
            down, _ = mem.loss_and_grads(k, v)
            p[idx] = old
            assert g[idx] == pytest.approx((up - down) / (2 * eps), rel=1e-4, abs=1e-7)


def test_one_update_follows_the_paper_formulas() -> None:
    """S_t = η·S_{t−1} − θ·∇ℓ ; M_t = (1 − α)·M_{t−1} + S_t, checked by hand."""
    rng = np.random.default_rng(2)
    rule = UpdateRule(theta=0.3, eta=0.7, alpha=0.1)
    mem = LinearMemory(DIM, rule)
    (k1, v1), (k2, v2) = unit(rng, 2), unit(rng, 2)
    mem.write(k1[None], v1[None])
    s1 = -0.3 * 2 * np.outer(-v1, k1)
    np.testing.assert_allclose(mem.params[0], s1)
    mem.write(k2[None], v2[None])
    s2 = 0.7 * s1 - 0.3 * 2 * np.outer(s1 @ k2 - v2, k2)
    np.testing.assert_allclose(mem.params[0], 0.9 * s1 + s2)
    np.testing.assert_allclose(mem.momentum[0], s2)


@pytest.mark.parametrize("index", [0, 1], ids=["linear", "mlp"])
def test_write_then_read_returns_the_value(index: int) -> None:
    rng = np.random.default_rng(4)
    keys, values = unit(rng, 5), unit(rng, 5)
    mem = memories()[index]
    book = Codebook(DIM)
    mem.write(keys, values)
    book.add([f"v{i}" for i in range(5)], values)
    for i in range(5):
        assert book.decode(mem.forward(keys[i][None])[0], 1)[0][0] == f"v{i}"


@pytest.mark.parametrize("index", [0, 1], ids=["linear", "mlp"])
def test_a_similar_key_with_a_new_value_wins(index: int) -> None:
    rng = np.random.default_rng(5)
    k1 = unit(rng, 1)[0]
    k2 = k1 + 0.15 * unit(rng, 1)[0]
    k2 /= np.linalg.norm(k2)
    assert k1 @ k2 > 0.95
    old, new = unit(rng, 2)
    mem = memories()[index]
    book = Codebook(DIM)
    mem.write(k1[None], old[None])
    book.add(["old"], old[None])
    assert book.decode(mem.forward(k1[None])[0], 1)[0][0] == "old"
    mem.write(k2[None], new[None])
    book.add(["new"], new[None])
    ranked = book.decode(mem.forward(k1[None])[0], 2)
    assert [i for i, _ in ranked] == ["new", "old"]


def test_with_alpha_an_old_association_fades_and_without_it_stays() -> None:
    rng = np.random.default_rng(6)
    k, v = unit(rng, 2)
    # Later writes on keys orthogonal to k: any fading of M(k) is the forgetting term.
    others = unit(rng, 200)
    others -= np.outer(others @ k, k)
    others /= np.linalg.norm(others, axis=1, keepdims=True)
    recall = {}
    for alpha in (0.0, 0.02):
        mem = LinearMemory(DIM, UpdateRule(theta=0.5, eta=0.5, alpha=alpha))
        mem.write(k[None], v[None])
        mem.write(others[:10], unit(rng, 10))  # let the momentum settle
        before = mem.forward(k[None])[0] @ v
        mem.write(others[10:], unit(rng, 190))
        recall[alpha] = (before, mem.forward(k[None])[0] @ v)
    before, after = recall[0.0]
    assert after == pytest.approx(before, rel=1e-2)
    before, after = recall[0.02]
    assert after < 0.05 * before
    assert after == pytest.approx(before * 0.98**190, rel=0.05)


def test_batch_write_is_the_sequential_rule() -> None:
    rng = np.random.default_rng(7)
    keys, values = unit(rng, 20), unit(rng, 20)
    a, b = memories()[1], memories()[1]
    a.write(keys, values)
    for i in range(20):
        b.write(keys[i : i + 1], values[i : i + 1])
    for pa, pb in zip(a.params, b.params, strict=True):
        np.testing.assert_allclose(pa, pb)
    c = memories()[1]
    c.write(keys[::-1], values[::-1])
    assert not np.allclose(a.params[1], c.params[1])  # order matters


def test_surprise_drops_when_a_pair_is_seen_again() -> None:
    rng = np.random.default_rng(8)
    k, v = unit(rng, 2)
    for mem in memories():
        first = mem.write(k[None], v[None])[0]
        second = mem.write(k[None], v[None])[0]
        assert first == pytest.approx(1.0)  # M starts at 0: ℓ = ‖v‖²
        assert second < 0.5 * first


def test_capacity_is_finite_for_a_linear_map() -> None:
    """Past d random pairs a linear map cannot hold them all: interference is real."""
    rng = np.random.default_rng(9)
    few_k, few_v = unit(rng, 8), unit(rng, 8)
    many_k, many_v = unit(rng, 4 * DIM), unit(rng, 4 * DIM)

    def recall(keys: np.ndarray, values: np.ndarray) -> float:
        mem = LinearMemory(DIM, UpdateRule(theta=0.5, eta=0.0, alpha=0.0))
        mem.write(keys, values)
        book = Codebook(DIM)
        book.add([str(i) for i in range(len(keys))], values)
        hits = [book.decode(y, 1)[0][0] == str(i) for i, y in enumerate(mem.forward(keys))]
        return float(np.mean(hits))

    assert recall(few_k, few_v) == 1.0
    assert recall(many_k, many_v) < 0.6


def test_identity_control_learns_nothing_and_passes_the_query_through() -> None:
    rng = np.random.default_rng(10)
    keys = unit(rng, 4)
    opts = {"eta": 0.5, "alpha": 0.1, "theta": None, "hidden": 8, "memory": "identity"}
    mem = build_memory(opts, DIM, 0)
    assert mem.write(keys, keys).tolist() == [0.0] * 4  # k = v: nothing to learn
    np.testing.assert_allclose(mem.forward(keys), keys)
    assert mem.params == []


def test_recall_by_age_sees_only_the_recent_past_when_overfull() -> None:
    from memory_bench_neural_memory.capacity import recall_by_age

    rng = np.random.default_rng(11)
    opts = {"eta": 0.5, "alpha": 0.0, "theta": None, "hidden": 8, "memory": "linear"}
    few = recall_by_age(unit(rng, 10), {**opts, "values": "random"}, 0)
    assert few["all"] == 1.0
    many = recall_by_age(unit(rng, 400), {**opts, "values": "random"}, 0)
    assert many["0-50"] > many["200-400"]
    assert many["all"] < 0.5
