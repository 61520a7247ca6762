"""Every PROTOCOL.md metric, each computed in one place from the per-probe records."""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass

import numpy as np

from memory_bench.capabilities import Capability
from memory_bench.records import SeedRecords

__all__ = ["METRICS", "Metric", "compute_metrics"]

Value = float | None


def _share(flags: list[bool]) -> Value:
    return sum(flags) / len(flags) if flags else None


def recall1_before(r: SeedRecords, caps: Collection[Capability]) -> Value:
    return _share([p.rank(p.expected) == 1 for p in r.phase("probe")])


def recall5_before(r: SeedRecords, caps: Collection[Capability]) -> Value:
    return _share([(p.rank(p.expected) or 99) <= 5 for p in r.phase("probe")])


def recall1_after(r: SeedRecords, caps: Collection[Capability]) -> Value:
    return _share([p.rank(p.expected) == 1 for p in r.phase("reprobe")])


def retention(r: SeedRecords, caps: Collection[Capability]) -> Value:
    before, after = recall1_before(r, caps), recall1_after(r, caps)
    if not before or after is None:
        return None
    return after / before


def update_win_rate(r: SeedRecords, caps: Collection[Capability]) -> Value:
    """New outranks old; old absent and new present wins; new absent loses."""
    wins = []
    for p in r.phase("update"):
        new, old = p.rank(p.expected), p.rank(p.old)
        wins.append(new is not None and (old is None or new < old))
    return _share(wins)


def stale_rate(r: SeedRecords, caps: Collection[Capability]) -> Value:
    """The old value is still in the top-k: erasure, which updateWinRate does not measure."""
    return _share([p.rank(p.old) is not None for p in r.phase("update")])


def provenance_accuracy(r: SeedRecords, caps: Collection[Capability]) -> Value:
    """Top hit reports the source and timestamp written for the item it names.

    0 by construction for a backend that reports none (METHOD.md).
    """
    probes = r.phase("probe")
    return _share(
        [
            bool(p.returned)
            and p.top_source is not None
            and p.top_timestamp is not None
            and p.top_source == p.written_source
            and p.top_timestamp == p.written_timestamp
            for p in probes
        ]
    )


def gate_recall(r: SeedRecords, caps: Collection[Capability]) -> Value:
    return _share([not g.accepted for g in r.gate if g.refusable])


def false_refusals(r: SeedRecords, caps: Collection[Capability]) -> Value:
    return _share([not g.accepted for g in r.gate if not g.refusable])


def reinforcement_delta(r: SeedRecords, caps: Collection[Capability]) -> Value:
    pairs = [(x.before, x.after) for x in r.reinforce]
    deltas = [a - b for b, a in pairs if a is not None and b is not None]
    return float(np.mean(deltas)) if deltas else None


def _latencies(r: SeedRecords) -> list[float]:
    return [p.latency_ms for p in r.probes if p.phase in ("probe", "reprobe")]


def latency_p50_ms(r: SeedRecords, caps: Collection[Capability]) -> Value:
    lat = _latencies(r)
    return float(np.percentile(lat, 50)) if lat else None


def latency_p95_ms(r: SeedRecords, caps: Collection[Capability]) -> Value:
    lat = _latencies(r)
    return float(np.percentile(lat, 95)) if lat else None


def ingest_items_per_s(r: SeedRecords, caps: Collection[Capability]) -> Value:
    writes = [w for w in r.writes if w.phase in ("seed", "interfere")]
    seconds = sum(w.seconds for w in writes)
    return sum(w.items for w in writes) / seconds if seconds > 0 else None


@dataclass(frozen=True)
class Metric:
    name: str
    fn: Callable[[SeedRecords, Collection[Capability]], Value]
    label: str  # column header in tables
    higher_is_better: bool = True
    share: bool = True  # a proportion in [0, 1]
    # The capability the metric needs; without it the value is None (not supported).
    needs: Capability | None = None


METRICS: tuple[Metric, ...] = (
    Metric("recall1_before", recall1_before, "recall@1"),
    Metric("recall5_before", recall5_before, "recall@5"),
    Metric("recall1_after", recall1_after, "recall@1 after"),
    Metric("retention", retention, "retention", share=False),
    Metric("updateWinRate", update_win_rate, "updateWin"),
    Metric("staleRate", stale_rate, "stale", higher_is_better=False),
    Metric("provenanceAccuracy", provenance_accuracy, "provenance"),
    Metric("gateRecall", gate_recall, "gateRecall", needs=Capability.GATE),
    Metric("falseRefusals", false_refusals, "falseRefusals", higher_is_better=False,
           needs=Capability.GATE),
    Metric("reinforcementDelta", reinforcement_delta, "reinforceΔ", share=False,
           needs=Capability.STRENGTH),
    Metric("latency_p50_ms", latency_p50_ms, "p50 ms", higher_is_better=False, share=False),
    Metric("latency_p95_ms", latency_p95_ms, "p95 ms", higher_is_better=False, share=False),
    Metric("ingest_items_per_s", ingest_items_per_s, "ingest/s", share=False),
)
BY_NAME = {m.name: m for m in METRICS}


def compute_metrics(records: SeedRecords, capabilities: Collection[Capability]) -> dict[str, Value]:
    """Every metric for one (backend, seed); None where a capability is missing."""
    return {
        m.name: None if m.needs and m.needs not in capabilities else m.fn(records, capabilities)
        for m in METRICS
    }
