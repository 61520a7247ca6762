"""The continual protocol's metrics (PROTOCOL.md's names and definitions), declared once.

Tags are the continual script's: ``probe`` (phase 2), ``reprobe`` (phase 5),
``update`` (phase 6), ``corroborate`` (6b), ``gate`` (phase 7), ``reinforce``
(phase 8), the writes ``seed`` and ``interfere`` (phases 1 and 3), and the
forget calls ``forget`` with the questions asked about what they forgot,
``forgotten``, and about facts kept, ``kept`` (``scenarios/continual/forgetting.py``). Every
metric declares its per-question outcomes, so that backends are compared
question by question (``memory_bench.analysis.paired``).
"""

from __future__ import annotations

import math

from memory_bench.contract.capabilities import Capability
from memory_bench.metrics import kinds
from memory_bench.metrics.latency import latency_parts
from memory_bench.metrics.spec import Metric, declare

__all__ = ["CONTINUAL_METRICS", "GATE_ACCEPT"]

# The gate kinds a memory should accept (real facts, short ones included); every other
# kind a scenario writes to the gate is refusable. Scenarios name their kinds from this.
GATE_ACCEPT = ("clean", "clean_short")

_RATE = (0.0, math.inf)
_LATENCY = {"decimals": 2, "small_digits": 2, "bounds": _RATE, "higher_is_better": False,
            "outcomes": kinds.latency_outcomes("probe", "reprobe")}


def _share(flag: kinds.Flag, *tags: str) -> dict:
    """The per-question rows of a share: 1/0 per probe, aggregated by their mean."""
    return {"outcomes": kinds.probe_outcomes(flag, *tags), "aggregate": "mean"}


def _gate(among_accept: bool) -> dict:
    return {"outcomes": kinds.refused_outcomes("gate", accept=GATE_ACCEPT,
                                               among_accept=among_accept),
            "aggregate": "mean", "per_category": True}


CONTINUAL_METRICS: tuple[Metric, ...] = (
    declare("recall1_before", "recall@1", reads=("probe",), axis="quality",
            description="share of the fact probes whose fact is ranked first",
            **_share(kinds.hit_at(1), "probe")),
    declare("recall5_before", "recall@5", reads=("probe",),
            section="other", description="share of the fact probes whose fact is in the top 5",
            **_share(kinds.hit_at(5), "probe")),
    declare("recall1_after", "recall@1 after", reads=("reprobe",), section="other", terminal=False,
            description="recall@1 of the same probes after interference",
            **_share(kinds.hit_at(1), "reprobe")),
    declare("retention", "retention", reads=("probe", "reprobe"), bounds=_RATE, axis="quality",
            description="recall1_after / recall1_before",
            undefined="recall@1 before interference was 0 on every seed",
            outcomes=kinds.retention_outcomes("probe", "reprobe"), aggregate="ratio"),
    declare("updateWinRate", "updateWin", reads=("update",),
            description="share of updated facts whose new item outranks the old in the top-k "
                        "(and the old value's history item, where the scenario writes one)",
            caveat="`updateWinRate` is ranking, not erasure: it asks whether the new value "
                   "outranks the old, not whether the old one is gone. `staleRate` (the old "
                   "value still in the top-k) measures erasure.",
            **_share(kinds.wins, "update")),
    declare("staleRate", "stale", reads=("update",),
            higher_is_better=False,
            description="share of updated facts whose old item (or its history item) is still "
                        "in the top-k",
            **_share(kinds.stale, "update")),
    declare("provenanceAccuracy", "provenance", reads=("probe",),
            description="share of fact probes whose top hit reports the source and timestamp "
                        "written for the item it names; 0 for a backend that reports none",
            **_share(kinds.names_its_own, "probe")),
    declare("provenanceUpdate", "prov. update", reads=("update",),
            description="share of update probes whose top hit reports the source and "
                        "timestamp of the new value: the old value's (stale) or none loses",
            **_share(kinds.reports_the_answer, "update")),
    declare("provenanceSources", "prov. sources", reads=("corroborate",),
            description="share of facts written twice by different sources whose first hits "
                        "report both sources (a merged cell listing both, or both items); "
                        "one source of two loses",
            undefined="the scenario wrote no fact twice (corroborations = 0)",
            **_share(kinds.reports_every_source, "corroborate")),
    declare("gateRecall", "gateRecall", reads=("gate",),
            needs=Capability.GATE, description="refused refusable items / refusable items",
            **_gate(among_accept=False)),
    declare("falseRefusals", "falseRefusals", reads=("gate",),
            needs=Capability.GATE, higher_is_better=False,
            description="refused clean items / clean items", **_gate(among_accept=True)),
    declare("reinforcementDelta", "reinforceΔ", reads=("reinforce",),
            needs=Capability.STRENGTH, bounds=None,
            description="mean strength after - before over the reinforced cells",
            outcomes=kinds.strength_outcomes("reinforce"), aggregate="mean"),
    declare("forgottenReturned", "forgotten back", reads=("forgotten",),
            needs=Capability.FORGET, higher_is_better=False,
            description="share of the questions asked about forgotten facts whose top-k "
                        "holds a forgotten item (an updated fact's old value too): 0 is right",
            undefined="the scenario forgot nothing (forget_ids = forget_sources = 0)",
            **_share(kinds.returns_forgotten, "forgotten")),
    declare("forgetKept", "kept after forget", reads=("kept",), needs=Capability.FORGET,
            section="other",
            description="recall@1 of facts not forgotten, asked among the questions about "
                        "forgotten ones: forgetting took only what it was asked for",
            undefined="the scenario forgot nothing (forget_ids = forget_sources = 0)",
            **_share(kinds.hit_at(1), "kept")),
    declare("forget_p50_ms", "forget p50 ms", reads=("forget",), needs=Capability.FORGET,
            section="other", decimals=2, small_digits=2, bounds=_RATE,
            higher_is_better=False, aggregate="p50",
            outcomes=kinds.forget_latency_outcomes("forget"),
            undefined="the scenario forgot nothing (forget_ids = forget_sources = 0)",
            description="median latency of the forget calls, timed by the harness"),
    *latency_parts(("probe", "reprobe"), "probe and re-probe phases"),
    declare("latency_p50_ms", "store p50 ms", reads=("probe", "reprobe"),
            aggregate="p50", **_LATENCY,
            description="median time of the query call in the probe and re-probe phases "
                        "(encode once: the store's own, given the question's vector; "
                        "e2e_p50_ms adds the encoder's part)"),
    declare("latency_p95_ms", "store p95 ms", reads=("probe", "reprobe"), aggregate="p95",
            **_LATENCY,
            description="95th percentile time of the query call in the probe and re-probe "
                        "phases (encode once: the store's own; e2e_p95_ms adds the encoder's)"),
    declare("ingest_items_per_s", "ingest/s", reads=("seed", "interfere"), section="other",
            bounds=_RATE, decimals=0,
            thousands=True, description="items written per second over seed and interference "
                                        "(encode once: the store's rate, the texts encoded "
                                        "before)",
            outcomes=kinds.ingest_outcomes("seed", "interfere"), aggregate="rate"),
)
