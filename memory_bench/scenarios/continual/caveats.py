"""What a report of a continual scenario must say about its data, from the data itself."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["continual_caveats"]

_DATA = {
    "templated": "Synthetic facts: the `templated` generator writes templated sentences about "
                 "generated names, not natural language from a real corpus. Retrieval on "
                 "templates is easier than retrieval on prose.",
    "natural": "Facts are WordNet 3.0 definitions (the `natural` generator), asked for by a "
               "synonym. Scores on one corpus slice need not carry over to another.",
    "hard": "Synthetic facts made hard on purpose (the `hard` generator): people with "
            "near-identical names, several facts each, questions in other words than the "
            "facts. Still templates: every question names its subject verbatim, and the "
            "difficulty is the generator's design (names one letter apart, same-family "
            "distractors), not a measured property of real conversations.",
}


_PHASED = ("The stream interleaves writes and questions in three stretches (the phased "
           "layout, docs/stream.md): questions come in seeded bursts, each at least 8 writes "
           "and one other burst after its answer was written; re-probes ask another wording. "
           "A reader of call order can still tell roles apart in this layout (issue 34).")
_BLIND = ("The stream is drawn blind (docs/stream.md): writes of every kind in one seeded "
          "order, cut into calls of drawn sizes that mix kinds; every fact and as many asides "
          "asked soon after their write and again after at least 150 more writes, on one "
          "schedule whether the fact changed or not, each ask in fresh words. Scores are not "
          "comparable with results of the earlier phased streams (fewer writes between a "
          "probe and its re-probe, more questions, other metrics' definitions).")


def _hard(stats: Mapping[str, Any]) -> str | None:
    """What the hard generator built, where it recorded it."""
    seeds = [s["hard"] for s in stats.values() if isinstance(s, dict) and "hard" in s]
    if not seeds:
        return None
    h = seeds[0]
    return (f"Each seed holds {h['families']} families of {h['family_size']} people with "
            f"near-identical names ({h['near_identical_name_pairs']} pairs one letter apart), "
            f"{h['family_distractors']} noise facts about those same people, "
            f"{h['unrelated_noise']} unrelated noise facts and {h.get('update_distractors', 0)} "
            "changed noise facts written among the updates. Every question has exactly one "
            "correct stored item (checked for every seed by "
            "memory_bench/scenarios/continual/fairness.py).")


def _overlap(stats: Mapping[str, Any]) -> str | None:
    """Word overlap of questions with their facts, where the generator recorded it."""
    probes = [((s or {}).get("question_overlap") or {}).get("probe") or {}
              for s in stats.values() if isinstance(s, dict)]
    probes = [p for p in probes if p.get("n") and "share" in p]
    if not probes:
        return None
    share = sum(p["share"]["mean"] for p in probes) / len(probes)
    zero = sum(p.get("zero_overlap_share", 0.0) for p in probes) / len(probes)
    return (f"Word overlap: a phase-2 question shares on average {share:.0%} of its content "
            f"words with its fact, and {zero:.0%} of questions share none (mean over "
            f"{len(probes)} seed(s)). Word matchers gain where the overlap is high and can "
            "only guess where it is zero; compare them with that in mind.")


def continual_caveats(generator: str) -> Callable[[Mapping[str, Any], Mapping[str, Any]],
                                                   list[str]]:
    """The caveats function a continual generator registers."""
    def caveats(params: Mapping[str, Any], stats: Mapping[str, Any]) -> list[str]:
        blind = params.get("stream", "blind") == "blind"
        out = [_DATA.get(generator, f"Facts from the `{generator}` generator."),
               _BLIND if blind else _PHASED]
        squeezed = [s["stream"].get("squeezed_asks", 0) for s in stats.values()
                    if isinstance(s, dict) and isinstance(s.get("stream"), dict)]
        if blind and any(squeezed):
            out.append(f"Up to {max(squeezed)} later asks a seed fell between a fact's first "
                       "asks and its new value with fewer than 150 writes between (squeezed in "
                       "before the update is written).")
        overlap = _overlap(stats)
        if overlap:
            out.append(overlap)
        hard = _hard(stats)
        if hard:
            out.append(hard)
        if not params.get("gate_near_duplicate") and not params.get("gate_chitchat") and \
                not params.get("gate_boilerplate") and not params.get("gate_fragment"):
            out.append("The gate's refusable items are only empty texts, texts under three "
                       "words and exact duplicates: what a three-line rule catches, so "
                       "gateRecall 1 here shows the rules, not judgement.")
        if not params.get("consolidate"):
            out.append("Consolidation was off in this scenario: backends that can consolidate "
                       "were not asked to.")
        return out
    return caveats
