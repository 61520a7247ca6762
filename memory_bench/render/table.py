"""The side-by-side comparison table printed at the end of a run."""

from __future__ import annotations

from memory_bench.metrics.spec import category_key, split_key
from memory_bench.render.format import STRUCTURED, cell, row_label, run_counts
from memory_bench.render.sections import measured
from memory_bench.results.model import Result

__all__ = ["render_table"]


def _grid(rows: list[list[str]], left: int = 1) -> list[str]:
    """Aligned columns, the first ``left`` flush left; a rule under the header row."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = []
    for n, r in enumerate(rows):
        lines.append("  ".join(c.ljust(w) if i < left else c.rjust(w) for i, (c, w) in
                               enumerate(zip(r, widths, strict=True))).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return lines


def _by_category(result: Result) -> list[str]:
    """A row per backend and category for the terminal metrics declared per category."""
    metrics = [m for m in result.metrics if m.terminal and m.per_category]
    keys = result.category_keys()
    categories = list(dict.fromkeys(split_key(k)[1] for k in keys
                                    if split_key(k)[0] in {m.name for m in metrics}))
    if not metrics or not categories:
        return []
    rows = [["backend", "category"] + [m.label for m in metrics]]
    for b in result.backends:
        for c in categories:
            values = [b.summary.get(category_key(m.name, str(c))) for m in metrics]
            if any(v is not None and v.mean is not None for v in values):
                # a backend that cannot report these (no gate) gets no rows of dashes
                rows.append([b.label, str(c)] + [cell(v, m) for v, m in
                                                 zip(values, metrics, strict=True)])
    if len(rows) == 1:
        return []
    return ["", "by category:", *_grid(rows, left=2)]


def render_table(result: Result) -> str:
    """Plain-text table: a row per backend, mean ± 95% CI half-width per metric
    declared for the terminal; then, where metrics are declared per category, a row
    per backend and category."""
    metrics = measured(result, [m for m in result.metrics if m.terminal])
    header = ["backend", "runs ok"] + [m.label for m in metrics]
    rows = [header]
    for b in result.backends:
        rows.append([row_label(result, b), run_counts(b)]
                    + [cell(b.summary.get(m.name), m) for m in metrics])
    lines = [*_grid(rows), *_by_category(result)]
    lines.append("")
    lines.append(
        f"scenario {result.scenario.name} · {len(result.seeds)} seed(s) · mean ± half-width "
        "of the 95% t-interval · — = not supported by the backend"
    )
    if any(b.structure_used(result.scenario) for b in result.backends):
        lines.append(f"{STRUCTURED}: the row read the item tags this structured scenario "
                     "wrote; not comparable with text-only rows")
    for b in result.backends:
        for r in b.runs:
            if not r.ok:
                lines.append(f"{b.label} seed {r.seed}: {r.status}: {r.error}")
    return "\n".join(lines)
