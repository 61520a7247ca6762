"""What a well-formed answer from a backend looks like, checked in one place.

The runner checks every write and query a backend answers during a run (a
broken answer is a :class:`~memory_bench.contract.backend.ContractError` and
the pair fails); the conformance kit (``memory_bench.testing``) checks the
same promises before a run. Each function returns the promises an answer
breaks, one line each (empty when it keeps them all).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from datetime import datetime
from numbers import Real
from typing import Any

from memory_bench.contract.items import Hit, Item, WriteResult

__all__ = ["SCORE_SLACK", "hit_problems", "write_problems"]

# Scores may wobble by float rounding where a backend ranks by one number and
# reports another computed the same way; anything larger is a real increase.
SCORE_SLACK = 1e-9


def write_problems(items: Sequence[Item], results: Any) -> list[str]:
    """One WriteResult per item, in order, with the item's id and a bool ``accepted``."""
    if not isinstance(results, list):
        return [f"write returned {type(results).__name__}, not a list of WriteResult"]
    if len(results) != len(items):
        return [f"write of {len(items)} item(s) returned {len(results)} result(s)"]
    for n, (item, res) in enumerate(zip(items, results, strict=True)):
        if not isinstance(res, WriteResult):
            return [f"write result {n} is {type(res).__name__}, not a WriteResult"]
        if res.id != item.id:
            return [f"write result {n} has id {res.id!r} for item {item.id!r} "
                    "(one result per item, in order)"]
        if not isinstance(res.accepted, bool):
            return [f"write result for {item.id!r}: accepted is {res.accepted!r}, not a bool"]
    return []


def _score(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, Real):
        return None
    return float(value)


def _types(n: int, hit: Any) -> str | None:
    if not isinstance(hit, Hit):
        return f"hit {n} is {type(hit).__name__}, not a Hit"
    if not isinstance(hit.id, str):
        return f"hit {n} has id {hit.id!r}, not a string"
    score = _score(hit.score)
    if score is None or not math.isfinite(score):
        return f"hit {n} ({hit.id!r}) has score {hit.score!r}, not a finite number"
    if hit.source is not None and not isinstance(hit.source, str):
        return f"hit {n} ({hit.id!r}) has source {hit.source!r}, not a string"
    if hit.timestamp is not None and (not isinstance(hit.timestamp, datetime)
                                      or hit.timestamp.tzinfo is None):
        return f"hit {n} ({hit.id!r}) has timestamp {hit.timestamp!r}, not timezone-aware"
    return None


def hit_problems(hits: Any, k: int, written: Callable[[str], bool]) -> dict[str, str]:
    """The promises a query answer breaks, keyed by promise, one line each.

    At most ``k`` Hits, of the right types with finite scores, each of an id
    ``written`` accepts, each id once, scores not increasing (best first).
    """
    if not isinstance(hits, list):
        return {"types": f"query returned {type(hits).__name__}, not a list of Hit"}
    out: dict[str, str] = {}
    if len(hits) > k:
        out["at most k"] = f"query returned {len(hits)} hits for k={k} (at most k)"
    for n, hit in enumerate(hits):
        problem = _types(n, hit)
        if problem is not None:
            out["types"] = problem
            return out  # the checks below read ids and scores
    ids = [h.id for h in hits]
    stranger = next((i for i in ids if not written(i)), None)
    if stranger is not None:
        out["written ids"] = f"query returned {stranger!r}, an id it was never given"
    repeated = next((i for n, i in enumerate(ids) if i in ids[:n]), None)
    if repeated is not None:
        out["each id once"] = f"query returned {repeated!r} twice"
    scores = [float(h.score) for h in hits]
    for n in range(1, len(scores)):
        before, now = scores[n - 1], scores[n]
        if now > before + SCORE_SLACK * max(1.0, abs(before)):
            out["best first"] = (f"hit {n} ({ids[n]!r}) scores {now:.6g} after {before:.6g}: "
                                 "scores increase (hits come best first)")
            break
    return out
