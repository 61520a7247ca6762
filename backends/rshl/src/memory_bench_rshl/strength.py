"""Hebbian reinforcement and lazy decay over logical time."""

from __future__ import annotations

__all__ = ["decayed", "reinforced"]


def decayed(strength: float, t_ref: float, now: float, half_life_s: float) -> float:
    """Strength at logical time ``now``: halves every ``half_life_s`` since ``t_ref``.

    Computed on read, so nothing runs while the lattice is idle; a ``now``
    earlier than ``t_ref`` (an item written out of order) never raises strength.
    """
    dt = max(0.0, now - t_ref)
    return strength * 0.5 ** (dt / half_life_s)


def reinforced(strength: float, eta: float, relevance: float = 1.0) -> float:
    """One Hebbian step toward 1: s + eta * relevance * (1 - s), bounded in [0, 1]."""
    r = min(1.0, max(0.0, relevance))
    return min(1.0, strength + eta * r * (1.0 - strength))
