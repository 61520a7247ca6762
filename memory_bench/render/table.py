"""The side-by-side comparison table printed at the end of a run, fitted to the terminal.

The table is drawn with rich. When the metrics do not fit the width, they are
split over several tables, each repeating the backend column, so that no line
is wider than the terminal (``COLUMNS``); ``columns`` picks the metrics to show.
The files a run saves always hold every column.
"""

from __future__ import annotations

import shutil
import textwrap
from collections.abc import Sequence

from memory_bench.metrics.spec import category_key, split_key
from memory_bench.render.format import STRUCTURED, cell, column, row_label, run_counts
from memory_bench.render.sections import measured, same_as, shown_once
from memory_bench.results.model import Result

__all__ = ["render_table"]


_GAP = 3  # rich pads each cell by a space on either side, and a column rule between


def _chunks(head: list[str], rows: list[list[str]], fixed: int, width: int) -> list[list[int]]:
    """Column indices per table: the first ``fixed`` columns in every table, the others
    in order, as many per table as fit in ``width``."""
    widths = [max(len(r[i]) for r in [head, *rows]) + _GAP for i in range(len(head))]
    base, out, cur, used = list(range(fixed)), [], [], sum(widths[:fixed])
    for i in range(fixed, len(head)):
        if cur and used + widths[i] > width:
            out.append(base + cur)
            cur, used = [], sum(widths[:fixed])
        cur.append(i)
        used += widths[i]
    if cur or not out:
        out.append(base + cur)
    return out


def _grid(head: list[str], rows: list[list[str]], width: int, left: int = 1) -> list[str]:
    """Aligned columns (the first ``left`` flush left) in tables no wider than ``width``."""
    from rich import box
    from rich.console import Console
    from rich.table import Table

    console = Console(width=width, color_system=None, force_terminal=False,
                      legacy_windows=False, soft_wrap=False)
    lines: list[str] = []
    for cols in _chunks(head, rows, left, width):
        table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False)
        for i in cols:
            table.add_column(head[i], justify="left" if i < left else "right", no_wrap=True,
                             overflow="ellipsis")
        for r in rows:
            table.add_row(*(r[i] for i in cols))
        with console.capture() as cap:
            console.print(table)
        if lines:
            lines.append("")
        lines += [line.rstrip() for line in cap.get().splitlines() if line.strip()]
    return lines


def terminal_width() -> int:
    """The terminal's width (``COLUMNS`` when set), at least 40."""
    return max(40, shutil.get_terminal_size((100, 24)).columns)


def _by_category(result: Result, width: int) -> list[str]:
    """A row per backend and category for the terminal metrics declared per category."""
    metrics = [m for m in result.metrics if m.terminal and m.per_category]
    keys = result.category_keys()
    categories = list(dict.fromkeys(split_key(k)[1] for k in keys
                                    if split_key(k)[0] in {m.name for m in metrics}))
    if not metrics or not categories:
        return []
    head = ["backend", "category"] + [m.label for m in metrics]
    rows = []
    for b in result.backends:
        for c in categories:
            values = [b.summary.get(category_key(m.name, str(c))) for m in metrics]
            if any(v is not None and v.mean is not None for v in values):
                # a backend that cannot report these (no gate) gets no rows of dashes
                rows.append([b.label, str(c)] + [cell(v, m) for v, m in
                                                 zip(values, metrics, strict=True)])
    if not rows:
        return []
    return ["", "by category:", *_grid(head, rows, width, left=2)]


def _pick(result: Result, columns: Sequence[str] | None) -> list:
    metrics = measured(result, [m for m in result.metrics if m.terminal])
    if not columns:
        return metrics
    by = {m.name: m for m in result.metrics} | {m.label: m for m in result.metrics}
    return [by[c] for c in columns if c in by]


def render_table(result: Result, *, width: int | None = None,
                 columns: Sequence[str] | None = None) -> str:
    """A row per backend, mean ± 95% CI half-width per metric declared for the terminal
    (or the ``columns`` named, by metric name or label); then, where metrics are
    declared per category, a row per backend and category. No line is wider than
    ``width`` (default: the terminal's)."""
    width = width or terminal_width()
    metrics = _pick(result, columns)
    head = ["backend", "runs ok"] + [m.label for m in metrics]
    twins = same_as(result)
    oks: list[int | None] = [None] * len(result.backends)
    cols = [column([b.summary.get(m.name) for b in result.backends], m, oks) for m in metrics]
    rows = [[row_label(result, b), run_counts(b),
             *shown_once([col[i] for col in cols], metrics, twins.get(b.label))]
            for i, b in enumerate(result.backends)]
    lines = [*_grid(head, rows, width, left=2), *_by_category(result, width)]
    notes = [f"scenario {result.scenario.name} · {len(result.seeds)} seed(s) · mean ± "
             "half-width of the 95% t-interval · — = not supported by the backend"]
    if any(b.structure_used(result.scenario) for b in result.backends):
        notes.append(f"{STRUCTURED}: the row read the item tags this structured scenario "
                     "wrote; not comparable with text-only rows")
    notes += [f"{b.label} seed {r.seed}: {r.status}: {r.error}"
              for b in result.backends for r in b.runs if not r.ok]
    lines.append("")
    for note in notes:
        lines += textwrap.wrap(note, width, break_long_words=True) or [""]
    return "\n".join(lines)
