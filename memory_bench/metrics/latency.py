"""The latency parts every protocol declares beside its query latency (issue 23).

With encode once, a backend's query call is its store's own time given the
question's vector; the encoder's per-question time is measured once per embedder
identity at batch 1 on the same questions, recorded per probe (``encode_ms``). So
each protocol declares, besides ``latency_p50_ms`` / ``latency_p95_ms`` (the call):

- ``encode_p50_ms`` / ``encode_p95_ms``: the encoder's part (none when the backend
  encoded its own questions inside the call, or has no encoder);
- ``e2e_p50_ms`` / ``e2e_p95_ms``: both, question by question: the figure to compare
  across backends whatever the encode mode.

Shown (issue 38), a latency is always qualified: ``e2e`` (the figure tables, verdicts
and the quality-latency plot lead with) and ``store`` (the store's part) beside it.
:func:`qualify_latency` applies that to any file's declarations, so that a file
written when ``p50 ms`` was the store's part alone reads the right way round too.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

from memory_bench.metrics import kinds
from memory_bench.metrics.spec import Metric, MetricSpec, declare

__all__ = ["TIMINGS", "is_timing", "latency_parts", "qualify_latency"]

_LATENCY = {"decimals": 2, "small_digits": 2, "bounds": (0.0, math.inf),
            "higher_is_better": False, "section": "other", "terminal": False}


def latency_parts(tags: Sequence[str], who: str, *, p95_shown: bool = True) -> list[Metric]:
    """The encoder's and the end-to-end p50 and p95 over the probes of ``tags``.

    The end-to-end p50 is the latency the tables and plot lead with; its p95 is in the
    main table too unless ``p95_shown`` is false (the call's p95 is not either)."""
    out = []
    for q in (50, 95):
        agg = f"p{q}"
        main = q == 50 or p95_shown
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
                                "question",
                    **{**_LATENCY, "section": "results" if main else "other",
                       "terminal": main, "axis": "latency" if q == 50 else None}),
        ]
    return out


# Every declared timing (the query call, its parts, ingest): what two runs of the same
# code on the same data may differ in, and the only thing. Tests compare all the rest.
TIMINGS = frozenset({"latency_p50_ms", "latency_p95_ms", "ingest_items_per_s", "forget_p50_ms",
                     "e2e_ingest_items_per_s",  # derived (results/derived.py)
                     *(f"{part}_p{q}_ms" for part in ("encode", "e2e") for q in (50, 95))})


def is_timing(metric: str) -> bool:
    """A timing metric, or a per-category key of one (``name/category``)."""
    return metric.split("/", 1)[0] in TIMINGS


def qualify_latency(specs: Sequence[MetricSpec], encode: str | None) -> list[MetricSpec]:
    """The declarations as shown: every query latency labelled ``e2e`` or ``store``.

    ``encode`` is the run's encode mode (``execution.encode``; None in files from before
    encode once). Where the file declares the end-to-end part, it takes the call's place
    (its section, its column in the terminal, the latency axis) just before it, and the
    call is labelled ``store`` (encode once: the store's own time) or, when backends
    encoded their own questions, ``call`` and moved to the other metrics (it equals e2e).
    Where it does not, the call is the only figure: ``store`` under encode once, else
    end to end (the backend encoded inside the call). Ingest likewise: under encode once
    the rate is the store's (the encoders' batched rates are in the run's caveats), else
    end to end. Idempotent: a file written with these labels reads the same.
    """
    once = encode == "once"
    out = list(specs)
    for q in (50, 95):
        call = next((m for m in out if m.name == f"latency_p{q}_ms"), None)
        e2e = next((m for m in out if m.name == f"e2e_p{q}_ms"), None)
        if call is None:
            continue
        if e2e is None:
            out[out.index(call)] = replace(call, label=f"{'store' if once else 'e2e'} p{q} ms")
            continue
        shown = "results" if "results" in (call.section, e2e.section) else e2e.section
        lead = replace(e2e, label=f"e2e p{q} ms", section=shown,
                       terminal=call.terminal or e2e.terminal,
                       axis="latency" if "latency" in (call.axis, e2e.axis) else e2e.axis)
        # the store's part beside the end-to-end figure, wherever that is shown
        part = (replace(call, label=f"store p{q} ms", axis=None, section=lead.section,
                        terminal=lead.terminal) if once else
                replace(call, label=f"call p{q} ms", axis=None, section="other",
                        terminal=False))
        out.remove(e2e)
        i = out.index(call)
        out[i:i + 1] = [lead, part]
    ingest = next((m for m in out if m.name == "ingest_items_per_s"), None)
    if ingest is not None:
        out[out.index(ingest)] = replace(ingest, label=f"{'store' if once else 'e2e'} ingest/s")
    return out
