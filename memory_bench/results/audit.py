"""What reading the protocol buys: each exploit-audit row of a result against its base.

An audit row (``backends/audit``) is an honest store plus one rule that reads only the
protocol; its manifest says which (``"audit": {"base", "metric", "costs", "reads"}``).
Its gain is the paired comparison the analysis already made (row - base on the target
metric, with its 95% cluster-bootstrap interval), read here from ``result.comparisons``.

A row *leaks* when the gain's interval lies above 0 at no cost. It *trades* when the
gain is paid for beyond its interval on one of its ``costs``: metrics that the rule
gives up by its nature, which a memory must also be good at (the form gate refuses more
clean items; the position rule, which keeps old facts by ignoring what is new, loses
updates: retention measures stability, updateWinRate the plasticity that pays for it).
"""

from __future__ import annotations

from dataclasses import dataclass

from memory_bench.results.model import Comparison, Result

__all__ = ["Cost", "Gain", "audit_gains", "audit_spec"]


@dataclass(frozen=True)
class Cost:
    """The row against its base on one cost metric; ``paid``: worse beyond the interval."""

    metric: str
    effect: float | None
    low: float | None
    high: float | None
    paid: bool


@dataclass(frozen=True)
class Gain:
    row: str
    base: str
    metric: str
    reads: str
    effect: float | None
    low: float | None
    high: float | None
    questions: int
    costs: tuple[Cost, ...] = ()

    @property
    def beyond(self) -> bool:
        """The gain's interval lies above 0."""
        return self.low is not None and self.low > 0

    @property
    def leak(self) -> bool:
        return self.beyond and not any(c.paid for c in self.costs)

    @property
    def status(self) -> str:
        if not self.beyond:
            return "no gain"
        return "trade" if not self.leak else "LEAK"


def audit_spec(result: Result, label: str) -> dict | None:
    """The audit spec a backend's manifest declares, or None for an honest row."""
    spec = (result.manifest.get("backends") or {}).get(label, {})
    audit = spec.get("audit") if isinstance(spec, dict) else None
    return audit if isinstance(audit, dict) and audit.get("base") and audit.get("metric") \
        else None


def _oriented(result: Result, row: str, base: str, metric: str
              ) -> tuple[float | None, float | None, float | None, int] | None:
    """row - base on ``metric`` from the result's comparisons (either order)."""
    for c in result.comparisons or ():
        if c.metric != metric or {c.a, c.b} != {row, base}:
            continue
        return _signed(c, c.a == row)
    return None


def _signed(c: Comparison, forward: bool) -> tuple[float | None, float | None, float | None, int]:
    if forward:
        return c.effect, c.effect_low, c.effect_high, c.questions or 0
    neg = [None if x is None else -x for x in (c.effect, c.effect_high, c.effect_low)]
    return neg[0], neg[1], neg[2], c.questions or 0


def audit_gains(result: Result) -> list[Gain]:
    """Every audit row of an analysed ``result`` whose base is in it too."""
    labels = {b.label for b in result.backends}
    out = []
    for b in result.backends:
        spec = audit_spec(result, b.label)
        if spec is None or spec["base"] not in labels:
            continue
        got = _oriented(result, b.label, spec["base"], spec["metric"])
        if got is None:
            continue
        costs = []
        for name in spec.get("costs") or ():
            c = _oriented(result, b.label, spec["base"], name)
            if c is None or name not in {m.name for m in result.metrics}:
                continue
            m = result.metric(name)
            worse = (c[2] is not None and c[2] < 0) if m.higher_is_better else \
                (c[1] is not None and c[1] > 0)
            costs.append(Cost(name, c[0], c[1], c[2], worse))
        out.append(Gain(b.label, spec["base"], spec["metric"], str(spec.get("reads", "")),
                        *got, costs=tuple(costs)))
    return out
