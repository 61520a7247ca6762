"""The readout codebook: the only way the memory can name an item.

M(q) is a vector, not an id. The codebook holds one value vector per stored
item (rows in write order) and decodes M(q) to the items whose values are
nearest by cosine. It is a nearest-neighbour index, and the README says so.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["Codebook"]


class Codebook:
    """Ids and their unit-norm value vectors, in write order."""

    def __init__(self, dim: int) -> None:
        self.dim = dim
        self.ids: list[str] = []
        self._rows = np.zeros((0, dim), dtype=np.float64)

    def __len__(self) -> int:
        return len(self.ids)

    def add(self, ids: Sequence[str], values: np.ndarray) -> None:
        """Append rows; an id written again moves to the end with its new value."""
        again = set(ids) & set(self.ids)
        if again:
            self._keep([i not in again for i in self.ids])
        self.ids.extend(ids)
        norms = np.linalg.norm(values, axis=1, keepdims=True)
        self._rows = np.vstack([self._rows, values / np.maximum(norms, 1e-12)])

    def remove(self, prefix: str) -> int:
        keep = [not i.startswith(prefix) for i in self.ids]
        gone = len(keep) - sum(keep)
        if gone:
            self._keep(keep)
        return gone

    def count(self, prefix: str) -> int:
        return sum(1 for i in self.ids if i.startswith(prefix))

    def _keep(self, mask: list[bool]) -> None:
        self.ids = [i for i, m in zip(self.ids, mask, strict=True) if m]
        self._rows = self._rows[np.asarray(mask, dtype=bool)]

    def decode(self, y: np.ndarray, k: int) -> list[tuple[str, float]]:
        """The ``k`` ids whose values are nearest to ``y`` by cosine, best first.

        Ties keep write order. A zero ``y`` (nothing recalled) decodes to nothing.
        """
        norm = float(np.linalg.norm(y))
        if k <= 0 or not self.ids or norm < 1e-12:
            return []
        scores = self._rows @ (y / norm)
        order = np.argsort(-scores, kind="stable")[:k]
        return [(self.ids[j], float(scores[j])) for j in order]
