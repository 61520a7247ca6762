"""The fixed vocabulary a backend uses to say what it keeps or does."""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum

__all__ = ["Capability", "parse_capabilities"]


class Capability(StrEnum):
    """What a backend keeps or does; a metric that needs one is null without it."""

    PROVENANCE = "provenance"  # hits carry the source and timestamp written
    STRENGTH = "strength"  # per-item strength can be read (reinforcement phase)
    GATE = "gate"  # writes can be refused, with a reason (gate phase)
    CONSOLIDATE = "consolidate"  # has a sleep / consolidation step
    PERSISTENT = "persistent"  # can be pointed at a live store that outlives a run
    CALIBRATED = "calibrated"  # a hit's score is a probability that it is relevant


def parse_capabilities(values: Iterable[str | Capability]) -> frozenset[Capability]:
    """Validate capability names against the vocabulary."""
    out: set[Capability] = set()
    for v in values:
        try:
            out.add(Capability(v))
        except ValueError:
            known = ", ".join(c.value for c in Capability)
            raise ValueError(f"unknown capability {v!r} (known: {known})") from None
    return frozenset(out)
