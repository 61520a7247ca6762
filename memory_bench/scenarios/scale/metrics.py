"""What a store costs to hold: resident memory, from the RSS the harness reads after each write."""

from __future__ import annotations

from memory_bench.metrics.spec import Metric, RecordView, Value, declare

__all__ = ["SCALE_METRICS"]

_WRITES = ("seed", "interfere")


def bytes_per_item(v: RecordView) -> Value:
    """Resident bytes the pair's process gained per item written, from after its
    first write to after its last seed or interference write: the marginal cost of
    an item, without the fixed cost of opening the store and the first write."""
    writes = [w for w in v.writes(*_WRITES) if w.rss_bytes is not None]
    if len(writes) < 2:
        return None
    items = sum(w.items for w in writes[1:])
    return (writes[-1].rss_bytes - writes[0].rss_bytes) / items if items else None


def rss_mb(v: RecordView) -> Value:
    """Resident memory of the pair's process after its last interference write (MB)."""
    writes = [w for w in v.writes(*_WRITES) if w.rss_bytes is not None]
    return writes[-1].rss_bytes / 1e6 if writes else None


SCALE_METRICS: tuple[Metric, ...] = (
    declare("bytes_per_item", "bytes/item", bytes_per_item, reads=_WRITES, section="other",
            bounds=None, higher_is_better=False, decimals=0, thousands=True,
            undefined="the process's resident memory could not be read (not Linux)",
            description="resident bytes the pair's process gained per item written, from "
                        "after its first write to after its last interference write",
            caveat="`bytes_per_item` is the growth of the whole pair process's resident "
                   "memory (RSS) per item written: the store, its index and what the "
                   "backend keeps, but also allocator slack. It is a marginal cost at large "
                   "sizes and mostly noise at small ones."),
    declare("rss_mb", "RSS MB", rss_mb, reads=_WRITES, section="other", bounds=None,
            higher_is_better=False, decimals=0, thousands=True,
            undefined="the process's resident memory could not be read (not Linux)",
            description="resident memory of the pair's process after interference (MB), "
                        "model and script included"),
)
