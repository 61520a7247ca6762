"""The latency parts every protocol declares beside its query latency (issue 23).

With encode once, a backend's query call is its store's own time given the
question's vector; the encoder's per-question time is measured once per embedder
identity at batch 1 on the same questions, recorded per probe (``encode_ms``). So
each protocol declares, besides ``latency_p50_ms`` / ``latency_p95_ms`` (the call):

- ``encode_p50_ms`` / ``encode_p95_ms``: the encoder's part (none when the backend
  encoded its own questions inside the call, or has no encoder);
- ``e2e_p50_ms`` / ``e2e_p95_ms``: both, question by question: the figure to compare
  across backends whatever the encode mode.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from memory_bench.metrics import kinds
from memory_bench.metrics.spec import Metric, declare

__all__ = ["TIMINGS", "is_timing", "latency_parts"]

_LATENCY = {"decimals": 2, "small_digits": 2, "bounds": (0.0, math.inf),
            "higher_is_better": False, "section": "other", "terminal": False}


def latency_parts(tags: Sequence[str], who: str) -> list[Metric]:
    """The encoder's and the end-to-end p50 and p95 over the probes of ``tags``."""
    out = []
    for q in (50, 95):
        agg = f"p{q}"
        what = "median" if q == 50 else "95th percentile"
        out += [
            declare(f"encode_p{q}_ms", f"encode {agg} ms", reads=tuple(tags),
                    aggregate=agg, outcomes=kinds.latency_outcomes(*tags, part="encode"),
                    undefined="the backend encoded its own questions (or has no encoder)",
                    description=f"{what} time of the encoder for a question at batch 1 "
                                f"({who}), measured once per embedder identity (encode once)",
                    **_LATENCY),
            declare(f"e2e_p{q}_ms", f"e2e {agg} ms", reads=tuple(tags),
                    aggregate=agg, outcomes=kinds.latency_outcomes(*tags, part="e2e"),
                    description=f"{what} end-to-end query latency ({who}): the query call "
                                "plus, when the run encoded once, the encoder's time for the "
                                "question", **_LATENCY),
        ]
    return out


# Every declared timing (the query call, its parts, ingest): what two runs of the same
# code on the same data may differ in, and the only thing. Tests compare all the rest.
TIMINGS = frozenset({"latency_p50_ms", "latency_p95_ms", "ingest_items_per_s", "forget_p50_ms",
                     *(f"{part}_p{q}_ms" for part in ("encode", "e2e") for q in (50, 95))})


def is_timing(metric: str) -> bool:
    """A timing metric, or a per-category key of one (``name/category``)."""
    return metric.split("/", 1)[0] in TIMINGS
