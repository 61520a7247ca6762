"""Hebbian reinforcement, spaced over logical time, and lazy decay."""

from __future__ import annotations

__all__ = ["decayed", "reinforced", "spacing"]


def decayed(strength: float, t_ref: float, now: float, half_life_s: float) -> float:
    """Strength at logical time ``now``: halves every ``half_life_s`` since ``t_ref``.

    Computed on read, so nothing runs while the lattice is idle; a ``now``
    earlier than ``t_ref`` (an item written out of order) never raises strength.
    """
    dt = max(0.0, now - t_ref)
    return strength * 0.5 ** (dt / half_life_s)


def spacing(last_retrieval: float | None, now: float, half_life_s: float) -> float:
    """The share of a full Hebbian step a retrieval at ``now`` earns: 1 for a cell's first
    retrieval, else 1 - 2^(-dt / half_life_s), dt the logical time since its last one.

    Massed repetition is one use, spaced repetition several: many questions asked at one
    logical moment (no item written between them) strengthen a cell once, not once per
    question, so a cell that is near many questions (a hub) does not outgrow the rest
    in one burst of asking. A retrieval one half-life later earns half a step, as decay
    took half of the strength meanwhile.
    """
    if last_retrieval is None:
        return 1.0
    dt = max(0.0, now - last_retrieval)
    return 1.0 - 0.5 ** (dt / half_life_s)


def reinforced(strength: float, eta: float, relevance: float = 1.0) -> float:
    """One Hebbian step toward 1: s + eta * relevance * (1 - s), bounded in [0, 1]."""
    r = min(1.0, max(0.0, relevance))
    return min(1.0, strength + eta * r * (1.0 - strength))
