"""The continual protocol's metrics (PROTOCOL.md's names and definitions), declared once.

Tags are the continual script's: ``probe`` (phase 2), ``reprobe`` (phase 5),
``update`` (phase 6), ``corroborate`` (6b), ``gate`` (phase 7), ``reinforce``
(phase 8: the asks that reinforce, and the strength readings around them), the
writes ``seed`` and ``interfere`` (phases 1 and 3), and the forget calls
``forget`` with the questions asked about what they forgot, ``forgotten``, and
about facts kept, ``kept`` (``scenarios/continual/forgetting.py``). The blind
stream (issue 34) adds ``reinforced`` and ``control`` (each reinforced fact, and
a matched fact that was not, asked again in fresh words after the reinforcement),
``past`` (a question about a former value, answered by the old fact or its
history item) and ``aside`` (a question about an item outside the facts). Every
metric declares its per-question outcomes, so that backends are compared
question by question (``memory_bench.analysis.paired``).

No headline metric reads a number the backend reports about itself: retention and
reinforcementDelta read only ranks (a ratio of recall@1 rose by answering worse at
first, a strength reported as a count of reads earned 2.833; issue 34), and
provenance compares the source and time a hit reports with what the harness wrote,
so reporting cannot score above the truth. ``strengthDelta``, the backend's own
strength number, is kept apart and labelled self-reported.
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
    declare("recall1_after", "recall@1 after", reads=("reprobe",),
            description="recall@1 of the same probes after interference",
            **_share(kinds.hit_at(1), "reprobe")),
    declare("retention", "retention", reads=("probe", "reprobe"), axis="quality",
            description="of the facts ranked first at their first probe, the share still "
                        "ranked first at their re-probes after the interference (a fact "
                        "asked again several times: the share of those asks that rank it "
                        "first; every fact weighs the same); read it beside recall@1 before "
                        "and after: a store that ranks unsure answers lower at first counts "
                        "fewer, easier facts",
            undefined="no fact was ranked first before the interference",
            outcomes=kinds.retention_outcomes("probe", "reprobe"), aggregate="sum_ratio"),
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
    # Provenance is reported by the backend, but scored against what the harness wrote
    # for the item (its source and timestamp): a report cannot score above the truth.
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
    declare("reinforcementDelta", "reinforceΔ",
            reads=("reinforced", "control", "probe", "reprobe"), bounds=(-2.0, 2.0),
            description="mean gain in reciprocal rank (in the top k; 0 when absent) of the "
                        "reinforced facts, asked again in fresh words after being asked P "
                        "times, from their last probe or re-probe, minus the same mean "
                        "over matched facts that were not reinforced: what being asked "
                        "does to later retrieval, in [-2, 2], about 0 without reinforcement",
            undefined="the scenario asks no reinforced and control facts (tags "
                      "`reinforced`, `control`) after a probe or re-probe of them",
            outcomes=kinds.reinforcement_outcomes("reinforced", "control",
                                                  ("probe", "reprobe")),
            aggregate="contrast"),
    declare("strengthDelta", "strengthΔ (self-reported)", reads=("reinforce",),
            needs=Capability.STRENGTH, bounds=None, section="other", terminal=False,
            description="self-reported: mean strength after - before over the reinforced "
                        "cells, as the backend reports it (a count of reads reported as "
                        "strength earned 2.833); reinforcementDelta measures the effect",
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
    declare("pastWinRate", "pastWin", reads=("past",), section="other", terminal=False,
            description="share of the questions about a former value whose old fact (or "
                        "its history item) outranks the new value in the top-k: a memory "
                        "that buries the past to win updates loses here",
            undefined="the scenario asks no question about a former value (tag `past`)",
            **_share(kinds.wins, "past")),
    declare("recall1_aside", "recall@1 aside", reads=("aside",), section="other",
            terminal=False,
            description="share of the questions about items outside the facts (noise, "
                        "interference, their new values) whose item is ranked first",
            undefined="the scenario asks nothing about items outside the facts (tag "
                      "`aside`)",
            **_share(kinds.hit_at(1), "aside")),
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
    declare("ingest_items_per_s", "ingest/s", reads=("seed", "interfere", "write"),
            section="other", bounds=_RATE, decimals=0, thousands=True,
            description="items written per second over the stream's write calls (the seed and "
                        "interference calls in the phased layout; encode once: the store's "
                        "rate, the texts encoded before)",
            outcomes=kinds.ingest_outcomes("seed", "interfere", "write"), aggregate="rate"),
)
