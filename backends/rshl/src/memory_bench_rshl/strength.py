"""Hebbian reinforcement, once per logical moment, and lazy decay over logical time."""

from __future__ import annotations

__all__ = ["decayed", "new_moment", "reinforced"]


def decayed(strength: float, t_ref: float, now: float, half_life_s: float) -> float:
    """Strength at logical time ``now``: halves every ``half_life_s`` since ``t_ref``.

    Computed on read, so nothing runs while the lattice is idle; a ``now``
    earlier than ``t_ref`` (an item written out of order) never raises strength.
    """
    dt = max(0.0, now - t_ref)
    return strength * 0.5 ** (dt / half_life_s)


def new_moment(last_retrieval: float | None, now: float) -> bool:
    """Whether a retrieval at ``now`` strengthens a cell last retrieved at ``last_retrieval``:
    once per logical moment.

    The lattice's clock moves only with the items written, so questions asked with no item
    written between them are simultaneous: a cell they return again and again (a hub, near
    many of them) was used at one moment, and gains one Hebbian step, not one per question.
    Retrievals at distinct moments each earn a full step, as before.
    """
    return last_retrieval is None or now > last_retrieval


def reinforced(strength: float, eta: float, relevance: float = 1.0) -> float:
    """One Hebbian step toward 1: s + eta * relevance * (1 - s), bounded in [0, 1]."""
    r = min(1.0, max(0.0, relevance))
    return min(1.0, strength + eta * r * (1.0 - strength))
