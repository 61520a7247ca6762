"""What reading the protocol buys: each audit row against its honest base, question by
question, with the project's paired statistics (``memory_bench.analysis``).

A row *leaks* when its gain on the metric it targets is beyond its 95% interval (the
interval's low end above 0). For the form gate, a gain in gateRecall bought by refusing
more clean items (falseRefusals up beyond its interval) is a trade, not a leak.
"""

from __future__ import annotations

from dataclasses import dataclass

from memory_bench.analysis.compare import paired_comparison
from memory_bench.results.model import Result
from memory_bench_audit.plugin import AUDIT_ROWS

__all__ = ["Gain", "audit_gains", "format_gains"]


@dataclass(frozen=True)
class Gain:
    row: str
    base: str
    metric: str
    effect: float | None
    low: float | None
    high: float | None
    questions: int
    # the form gate: what its gain costs in clean items refused
    cost: tuple[float | None, float | None, float | None] | None = None
    recall: float | None = None  # recall@1 (phase 2) over the base: what the rule costs there

    @property
    def leak(self) -> bool:
        if self.low is None or self.low <= 0:
            return False
        return not (self.cost is not None and self.cost[1] is not None and self.cost[1] > 0)


def _compare(result: Result, row: str, base: str, metric: str
             ) -> tuple[float | None, float | None, float | None, int] | None:
    a, b = result.backend(row), result.backend(base)
    if a is None or b is None or result.metric(metric) is None:
        return None
    c = paired_comparison(a, b, result.metric(metric))
    return c.effect, c.effect_low, c.effect_high, c.questions or 0


def audit_gains(result: Result) -> list[Gain]:
    """Every audit row of ``result`` whose base is in it too."""
    out = []
    for row, spec in AUDIT_ROWS.items():
        got = _compare(result, row, spec.base, spec.metric)
        if got is None:
            continue
        cost = None
        if spec.metric == "gateRecall":
            fr = _compare(result, row, spec.base, "falseRefusals")
            cost = fr[:3] if fr else None
        r1 = _compare(result, row, spec.base, "recall1_before")
        out.append(Gain(row, spec.base, spec.metric, *got, cost=cost,
                        recall=r1[0] if r1 else None))
    return out


def _num(x: float | None) -> str:
    return "n/a" if x is None else f"{x:+.3f}"


def format_gains(gains: list[Gain]) -> list[str]:
    """One line per row: gain [95% interval] on its target over its base."""
    lines = []
    for g in gains:
        line = (f"{g.row:28} {g.metric:14} over {g.base:22} {_num(g.effect)} "
                f"[{_num(g.low)}, {_num(g.high)}] n={g.questions}")
        if g.cost is not None:
            line += f"; falseRefusals {_num(g.cost[0])} [{_num(g.cost[1])}, {_num(g.cost[2])}]"
        line += f"; recall@1 {_num(g.recall)}"
        lines.append(line + ("  LEAK" if g.leak else ""))
    return lines
