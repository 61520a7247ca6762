"""Number formatting shared by the renderers: one place decides how a cell reads,
from the metric's declaration (decimals, significant digits, thousands)."""

from __future__ import annotations

from memory_bench.metrics.spec import MetricSpec
from memory_bench.results.model import BackendEntry, Comparison, MetricSummary, Result

__all__ = ["IN_SAMPLE", "NOT_SUPPORTED", "STRUCTURED", "cell", "column", "num", "p_value",
           "row_label",
           "run_counts", "verdict_cell"]

NOT_SUPPORTED = "—"
STRUCTURED = "[structured]"
IN_SAMPLE = "[in-sample]"


def row_label(result: Result, backend: BackendEntry) -> str:
    """A backend's label as every table, plot and CSV shows it: marked when it read
    item structure (tags) that the scenario gave it, so a structured row is never
    read as a text-only one, and when it was scored on the seeds it was tuned on."""
    label = f"{backend.label} {STRUCTURED}" if backend.structure_used(result.scenario) \
        else backend.label
    return f"{label} {IN_SAMPLE}" if backend.in_sample(result.scenario, result.seeds) \
        else label


def p_value(p: float | None) -> str:
    """A p-value in a cell: three significant digits, ``<1e-16`` below that."""
    if p is None:
        return NOT_SUPPORTED
    return "<1e-16" if p < 1e-16 else f"{p:.3g}"


def num(value: float, metric: MetricSpec, *, like: float | None = None) -> str:
    """``value`` in the metric's format; ``like`` takes the decimals from another
    number (an interval's half-width is written to the precision of its mean)."""
    places = metric.places(value if like is None else like)
    if value != 0 and round(value, places) == 0:
        # "-0.000" told a reader neither the sign nor the size (an interval's bound
        # just under 0 is why a verdict is a tie): more places until a digit shows,
        # and a plain 0 when none does within four more.
        more = next((p for p in range(places + 1, places + 5) if round(value, p) != 0), None)
        if more is None:
            value = 0.0
        else:
            places = more
    return f"{value:,.{places}f}" if metric.thousands else f"{value:.{places}f}"


def _clipped(summary: MetricSummary) -> bool:
    """Is the interval asymmetric (clipped to the metric's range)?"""
    mean, low, high = summary.mean, summary.ci_low, summary.ci_high
    if mean is None or low is None or high is None or summary.n < 2:
        return False
    return abs((mean - low) - (high - mean)) > 1e-9 * max(1.0, abs(mean))


def cell(summary: MetricSummary | None, metric: MetricSpec, *, ci: bool = True,
         runs_ok: int | None = None, places: int | None = None,
         bracket: bool | None = None) -> str:
    """``mean ± half-width`` of the 95% CI (``mean [low, high]`` when clipped), or —.

    ``(n=k)`` follows when the metric has fewer values than ``runs_ok`` successful
    runs (a seed where it was undefined, e.g. retention after recall@1 of 0).
    ``places`` and ``bracket`` fix the decimals and the interval's form for a whole
    column (:func:`column`); None decides from this cell alone.
    """
    if summary is None or summary.mean is None:
        return NOT_SUPPORTED
    mean, n = summary.mean, summary.n

    def show(x: float, like: float | None = None) -> str:
        if places is None:
            return num(x, metric, like=like)
        return f"{x:,.{places}f}" if metric.thousands else f"{x:.{places}f}"

    text = show(mean)
    low, high = summary.ci_low, summary.ci_high
    if ci and n >= 2 and low is not None and high is not None:
        half = (high - low) / 2
        like = min(abs(mean), half) if half > 0 and mean else mean  # show the spread's digits
        text = show(mean, like)
        if not (_clipped(summary) if bracket is None else bracket):
            text += f" ± {show(half, like)}"
        else:
            text += f" [{show(low, like)}, {show(high, like)}]"
    if runs_ok is not None and n < runs_ok:
        text += f" (n={n})"
    return text


def column(summaries: list[MetricSummary | None], metric: MetricSpec,
           runs_ok: list[int | None]) -> list[str]:
    """One table column's cells in one form: the same decimals in every cell (enough
    for its smallest nonzero mean, at most 4), and one interval form, ``[low, high]``
    for every cell when any cell's interval is clipped, else ``± half-width``."""
    means = [abs(s.mean) for s in summaries if s is not None and s.mean]
    places = min(4, max((metric.places(m) for m in means), default=metric.decimals))
    bracket = any(_clipped(s) for s in summaries if s is not None)
    return [cell(s, metric, runs_ok=ok, places=places, bracket=bracket)
            for s, ok in zip(summaries, runs_ok, strict=True)]


def verdict_cell(comparison: Comparison | None, metric: MetricSpec, *,
                 borderline: bool = False) -> str:
    """A paired verdict in a table cell: ``ahead +0.120`` (the effect), ``tie``, or —;
    `` (borderline)`` after it when its Holm p is within Monte Carlo error of alpha."""
    cell = _verdict_cell(comparison, metric)
    return f"{cell} (borderline)" if borderline else cell


def _verdict_cell(comparison: Comparison | None, metric: MetricSpec) -> str:
    if comparison is None or comparison.verdict == "not supported":
        return NOT_SUPPORTED
    if comparison.verdict == "insufficient data":
        return f"n={comparison.n}, no verdict"
    diff = comparison.effect if comparison.effect is not None else comparison.mean_diff
    if comparison.verdict == "tie" or diff is None:
        return "tie"
    sign = "+" if diff >= 0 else "−"
    return f"{comparison.verdict} {sign}{num(abs(diff), metric)}"


def run_counts(backend: BackendEntry) -> str:
    return f"{len(backend.ok_runs())}/{len(backend.runs)}"
