"""What every generator shares: the logical clock and how an item is stamped."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from memory_bench.contract.items import Item
from memory_bench.scenarios.continual.data import UNBOUND_RUN

__all__ = ["EPOCH", "WHITESPACE", "ItemStamper"]

EPOCH = datetime(2026, 1, 1, tzinfo=UTC)
WHITESPACE = ("", " ", "   ", "\t", "\n", " \t\n", "\n\n", "\t \t", "  \n  ", "\r\n")


class ItemStamper:
    """Makes items in write order: ``bench-<unbound run>-<prefix>-NNNN`` ids and
    sources, and timestamps from the scenario's logical clock (one minute per item,
    never the wall clock), so a seed always gives the same items."""

    def __init__(self, region: str) -> None:
        self.region = region
        self._t = EPOCH

    def __call__(self, prefix: str, i: int, text: str, tags: tuple[str, ...]) -> Item:
        self._t += timedelta(minutes=1)
        run = f"bench-{UNBOUND_RUN}"
        return Item(
            id=f"{run}-{prefix}-{i:04d}",
            text=text,
            source=f"{run}-{prefix}",
            timestamp=self._t,
            region=self.region,
            tags=tags,
        )
