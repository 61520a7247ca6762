"""The continual protocol's metrics (PROTOCOL.md's names and definitions), declared once.

Tags are the continual script's: ``probe`` (phase 2), ``reprobe`` (phase 5),
``update`` (phase 6), ``gate`` (phase 7), ``reinforce`` (phase 8), and the
writes ``seed`` and ``interfere`` (phases 1 and 3).
"""

from __future__ import annotations

import math

from memory_bench.contract.capabilities import Capability
from memory_bench.metrics import kinds
from memory_bench.metrics.spec import Metric, declare

__all__ = ["CONTINUAL_METRICS", "GATE_ACCEPT"]

GATE_ACCEPT = ("clean",)  # the gate items a backend must accept; every other kind is junk
_RATE = (0.0, math.inf)
_LATENCY = {"decimals": 2, "small_digits": 2, "bounds": _RATE, "higher_is_better": False}
_recall1_before = kinds.recall_at(1, "probe")

CONTINUAL_METRICS: tuple[Metric, ...] = (
    declare("recall1_before", "recall@1", _recall1_before, reads=("probe",), axis="quality",
            description="share of the fact probes whose fact is ranked first"),
    declare("recall5_before", "recall@5", kinds.recall_at(5, "probe"), reads=("probe",),
            section="other", description="share of the fact probes whose fact is in the top 5"),
    declare("recall1_after", "recall@1 after", kinds.recall_at(1, "reprobe"),
            reads=("reprobe",), section="other", terminal=False,
            description="recall@1 of the same probes after interference"),
    declare("retention", "retention", kinds.ratio(kinds.recall_at(1, "reprobe"),
                                                  _recall1_before),
            reads=("probe", "reprobe"), bounds=_RATE, axis="quality",
            description="recall1_after / recall1_before",
            undefined="recall@1 before interference was 0 on every seed"),
    declare("updateWinRate", "updateWin", kinds.outranks("update"), reads=("update",),
            description="share of updated facts whose new item outranks the old in the top-k",
            caveat="`updateWinRate` is ranking, not erasure: it asks whether the new value "
                   "outranks the old, not whether the old one is gone. `staleRate` (the old "
                   "value still in the top-k) measures erasure."),
    declare("staleRate", "stale", kinds.still_ranked("update"), reads=("update",),
            higher_is_better=False,
            description="share of updated facts whose old item is still in the top-k"),
    declare("provenanceAccuracy", "provenance", kinds.provenance("probe"), reads=("probe",),
            description="share of fact probes whose top hit reports the source and timestamp "
                        "written for the item it names; 0 for a backend that reports none"),
    declare("gateRecall", "gateRecall",
            kinds.refused("gate", accept=GATE_ACCEPT, among_accept=False), reads=("gate",),
            needs=Capability.GATE, description="refused refusable items / refusable items"),
    declare("falseRefusals", "falseRefusals",
            kinds.refused("gate", accept=GATE_ACCEPT, among_accept=True), reads=("gate",),
            needs=Capability.GATE, higher_is_better=False,
            description="refused clean items / clean items"),
    declare("reinforcementDelta", "reinforceΔ", kinds.strength_delta("reinforce"),
            reads=("reinforce",), needs=Capability.STRENGTH, bounds=None,
            description="mean strength after - before over the reinforced cells"),
    declare("latency_p50_ms", "p50 ms", kinds.latency_percentile(50, "probe", "reprobe"),
            reads=("probe", "reprobe"), axis="latency", **_LATENCY,
            description="median query latency in the probe and re-probe phases"),
    declare("latency_p95_ms", "p95 ms", kinds.latency_percentile(95, "probe", "reprobe"),
            reads=("probe", "reprobe"), **_LATENCY,
            description="95th percentile query latency in the probe and re-probe phases"),
    declare("ingest_items_per_s", "ingest/s", kinds.ingest_rate("seed", "interfere"),
            reads=("seed", "interfere"), section="other", bounds=_RATE, decimals=0,
            thousands=True, description="items written per second over seed and interference"),
)
