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
}


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
        out = [_DATA.get(generator, f"Facts from the `{generator}` generator.")]
        overlap = _overlap(stats)
        if overlap:
            out.append(overlap)
        if not params.get("consolidate"):
            out.append("Consolidation was off in this scenario: backends that can consolidate "
                       "were not asked to.")
        return out
    return caveats
