"""The Titans memory update (Behrouz et al., 2025, §3.1), in numpy.

For each write (k, v), in order:

    surprise  g_t = ∇_M ‖M_{t-1}(k) − v‖²
    momentum  S_t = η·S_{t-1} − θ·g_t
    forget    M_t = (1 − α)·M_{t-1} + S_t

applied to every weight tensor of M. In the paper θ_t, η_t, α_t are
data-dependent gates learned in an outer loop; here there is no outer loop,
so they are fixed scalars. Writes are strictly sequential (each surprise is
taken at the weights the previous write left), which is the test-time-learning
semantics; only the work inside one step is vectorised.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = [
    "AssociativeMemory",
    "IdentityMemory",
    "LinearMemory",
    "MLPMemory",
    "UpdateRule",
    "silu_second_moment",
]


@dataclass(frozen=True)
class UpdateRule:
    """θ (surprise step), η (momentum), α (forgetting): fixed scalars, see README."""

    theta: float = 0.5
    eta: float = 0.5
    alpha: float = 0.001


class AssociativeMemory:
    """Weights, their momentum, and the update rule; subclasses give M and ∇ℓ."""

    params: list[np.ndarray]

    def __init__(self, rule: UpdateRule) -> None:
        self.rule = rule
        self.momentum = [np.zeros_like(p) for p in self.params]
        self.writes = 0

    def forward(self, x: np.ndarray) -> np.ndarray:
        """M applied to each row of ``x`` (n, d_in) -> (n, d_out)."""
        raise NotImplementedError

    def loss_and_grads(self, k: np.ndarray, v: np.ndarray) -> tuple[float, list[np.ndarray]]:
        """ℓ = ‖M(k) − v‖² for one pair, and ∇ℓ for each weight tensor."""
        raise NotImplementedError

    def write(self, keys: np.ndarray, values: np.ndarray) -> np.ndarray:
        """Apply the update for each (key, value) row in order; return each surprise ℓ."""
        th, eta, decay = self.rule.theta, self.rule.eta, 1.0 - self.rule.alpha
        losses = np.empty(len(keys), dtype=np.float64)
        for t in range(len(keys)):
            losses[t], grads = self.loss_and_grads(keys[t], values[t])
            for p, s, g in zip(self.params, self.momentum, grads, strict=True):
                s *= eta
                s -= th * g
                if decay != 1.0:
                    p *= decay
                p += s
        self.writes += len(keys)
        return losses

    def weight_norm(self) -> float:
        return float(np.sqrt(sum(float(np.sum(p * p)) for p in self.params)))


class LinearMemory(AssociativeMemory):
    """M(x) = W x, W starting at 0. ∇_W ‖Wk − v‖² = 2(Wk − v)kᵀ."""

    def __init__(self, dim: int, rule: UpdateRule) -> None:
        self.params = [np.zeros((dim, dim), dtype=np.float64)]
        super().__init__(rule)

    def forward(self, x: np.ndarray) -> np.ndarray:
        return x @ self.params[0].T

    def loss_and_grads(self, k: np.ndarray, v: np.ndarray) -> tuple[float, list[np.ndarray]]:
        r = self.params[0] @ k - v
        return float(r @ r), [2.0 * np.outer(r, k)]


class IdentityMemory(AssociativeMemory):
    """M(x) = x, never updated: the control that leaves all the work to the codebook.

    With values = keys it is dense nearest-neighbour retrieval over the stored
    items' embeddings; the difference between it and a learning M is what the
    learning adds (or costs).
    """

    def __init__(self, rule: UpdateRule) -> None:
        self.params = []
        super().__init__(rule)

    def forward(self, x: np.ndarray) -> np.ndarray:
        return np.array(x, dtype=np.float64)

    def loss_and_grads(self, k: np.ndarray, v: np.ndarray) -> tuple[float, list[np.ndarray]]:
        r = k - v
        return float(r @ r), []


def silu_second_moment() -> float:
    """E[silu(z)²] for z ~ N(0, 1), by Gauss-Hermite quadrature (≈ 0.356)."""
    x, w = np.polynomial.hermite_e.hermegauss(80)
    s = x / (1.0 + np.exp(-x))
    return float(np.sum(w * s * s) / np.sum(w))


def _silu(z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """SiLU and its derivative at ``z``."""
    s = 0.5 * (1.0 + np.tanh(0.5 * z))  # the logistic, without overflow
    return z * s, s * (1.0 + z * (1.0 - s))


class MLPMemory(AssociativeMemory):
    """M(x) = W₂·silu(W₁x): the paper's L_M = 2 memory, backpropagated by hand.

    W₁ starts as a seeded Gaussian with unit-variance entries (so that the
    pre-activations of a unit-norm key are ~N(0, 1), in SiLU's non-linear
    range); W₂ starts at 0, so M starts as the zero map, like the linear one.
    """

    def __init__(self, dim: int, hidden: int, rule: UpdateRule, seed: int) -> None:
        rng = np.random.default_rng(seed)
        self.params = [
            rng.standard_normal((hidden, dim)),
            np.zeros((dim, hidden), dtype=np.float64),
        ]
        super().__init__(rule)

    def forward(self, x: np.ndarray) -> np.ndarray:
        h, _ = _silu(x @ self.params[0].T)
        return h @ self.params[1].T

    def loss_and_grads(self, k: np.ndarray, v: np.ndarray) -> tuple[float, list[np.ndarray]]:
        w1, w2 = self.params
        h, dh_dz = _silu(w1 @ k)
        r = w2 @ h - v
        dy = 2.0 * r
        dz = (w2.T @ dy) * dh_dz
        return float(r @ r), [np.outer(dz, k), np.outer(dy, h)]
