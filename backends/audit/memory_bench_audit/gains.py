"""What reading the protocol buys, as lines of text (``scripts/audit_gains.py``).

The gains themselves (each audit row against its base on the metric it targets, with
the paired statistics, and what the rule pays for them) are computed by the core, from
an analysed result: ``memory_bench.results.audit``; the report shows the same table.
"""

from __future__ import annotations

from memory_bench.results.audit import Gain, audit_gains

__all__ = ["Gain", "audit_gains", "format_gains"]


def _num(x: float | None) -> str:
    return "n/a" if x is None else f"{x:+.3f}"


def format_gains(gains: list[Gain]) -> list[str]:
    """One line per row: gain [95% interval] on its target over its base, what it paid."""
    lines = []
    for g in gains:
        line = (f"{g.row:28} {g.metric:14} over {g.base:22} {_num(g.effect)} "
                f"[{_num(g.low)}, {_num(g.high)}] n={g.questions}")
        for c in g.costs:
            line += f"; {c.metric} {_num(c.effect)} [{_num(c.low)}, {_num(c.high)}]"
        status = g.status
        lines.append(line + ("" if status == "no gain" else f"  {status}"))
    return lines
