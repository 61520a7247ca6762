"""Verdicts whose Holm p lies within Monte Carlo error of the threshold ("borderline").

Several tests read their p off random draws: the paired randomization (a share
of swaps, or the normal tail of the same null draws), the quantile bootstrap
(p = 2 Phi(-|effect| / SE), SE from the draws) and the seed-level sign-flip
above 16 seeds. Another random stream gives another p; near the threshold the
verdict can flip (of 10,858 verdicts recomputed with another stream, 20 did, all
with Holm p between 0.017 and 0.073). A verdict is borderline when its Holm p
is within 1.96 Monte Carlo standard errors of alpha: the tables say so rather
than let the stream decide. Exact tests (McNemar, the exact sign-flip) never are.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from statistics import NormalDist
from typing import Any

from memory_bench.results.model import Comparison

__all__ = ["BORDERLINE_Z", "borderline", "holm_mc_error"]

BORDERLINE_Z = 1.96
# The draws of analyses that did not record them (versions <= 4).
_DEFAULT_DRAWS = {"randomization": 9999, "quantile-bootstrap": 999, "seed-sign-flip": 20000}
_EXACT_SIGN_FLIP_MAX_N = 16
_NORMAL = NormalDist()


def _tail_error(p: float, draws: int) -> float:
    """Error of p = 2 Phi(-z) when z's scale is a standard deviation estimated from
    ``draws`` draws (relative SE about 1 / sqrt(2 (draws - 1)))."""
    if p / 2 <= 0.0:
        return 0.0
    z = -_NORMAL.inv_cdf(p / 2)  # not inv_cdf(1 - p / 2): 1 - 1e-20 rounds to 1
    return 2 * _NORMAL.pdf(z) * z / math.sqrt(2 * max(1, draws - 1))


def holm_mc_error(c: Comparison, analysis: Mapping[str, Any] | None) -> float | None:
    """The Monte Carlo standard error of ``c``'s Holm p (None for an exact test)."""
    p, adjusted = c.p, c.p_holm
    if p is None or adjusted is None or not 0 < p < 1:
        return None
    draws = {**_DEFAULT_DRAWS, **((analysis or {}).get("draws") or {})}
    if c.test == "randomization":
        n = int(draws["randomization"])
        # Below 1 / (n + 1) no swap reached the effect: p is the null draws' normal tail.
        err = (_tail_error(p, n) if p * (n + 1) < 1 - 1e-9
               else math.sqrt(p * (1 - p) / (n + 1)))
    elif c.test == "quantile-bootstrap":
        err = _tail_error(p, int(draws["quantile-bootstrap"]))
    elif c.test == "seed-sign-flip" and c.n > _EXACT_SIGN_FLIP_MAX_N:
        err = math.sqrt(p * (1 - p) / int(draws["seed-sign-flip"]))
    else:
        return None
    return err * adjusted / p  # Holm scales p by at most the number of comparisons


def borderline(c: Comparison, analysis: Mapping[str, Any] | None) -> bool:
    """Is the Holm p within ``BORDERLINE_Z`` Monte Carlo errors of alpha?"""
    err = holm_mc_error(c, analysis)
    if err is None or c.p_holm is None:
        return False
    alpha = float((analysis or {}).get("alpha", 0.05))
    return abs(c.p_holm - alpha) <= BORDERLINE_Z * err
