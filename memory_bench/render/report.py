"""``memory-bench report``: render a saved result in one format, to stdout or a file."""

from __future__ import annotations

import json
from pathlib import Path

from memory_bench.results.model import Result
from memory_bench.results.paths import PLOT_NAMES, OutputError, check_writable

__all__ = ["render_text", "render_to"]


def render_text(result: Result, fmt: str) -> str:
    """One text format of an analysed result."""
    if fmt == "json":
        return json.dumps(result.to_dict(), indent=1, ensure_ascii=False)
    if fmt == "table":
        from memory_bench.render.table import render_table

        return render_table(result)
    if fmt == "html":
        from memory_bench.render.html import render_html

        return render_html(result)
    if fmt == "csv":
        from memory_bench.render.csvfile import render_csv

        return render_csv(result)
    from memory_bench.render.markdown import render_headline, render_markdown

    return render_headline(result) if fmt == "headline" else render_markdown(result)


def _write_plots(result: Result, out: Path | None, stem: str) -> None:
    """PNGs need a directory: ``<out>/<stem>-<plot>.png``, never overwriting."""
    from memory_bench.render.plots import render_plots

    if out is None:
        raise OutputError("--format png writes files: give --out DIR")
    if out.exists() and not out.is_dir():
        raise OutputError(f"--out {out} is not a directory")
    targets = {name: out / f"{stem}-{name}.png" for name in PLOT_NAMES}
    for path in targets.values():
        check_writable(path)
    out.mkdir(parents=True, exist_ok=True)
    for name, png in render_plots(result).items():
        targets[name].write_bytes(png)
        print(targets[name])


def render_to(result: Result, fmt: str, out: Path | None, *, stem: str) -> int:
    """Print or write one format of an analysed result."""
    if fmt == "png":
        _write_plots(result, out, stem)
        return 0
    if out is not None:
        check_writable(out)
    text = render_text(result, fmt)
    if out is None:
        print(text, end="" if text.endswith("\n") else "\n")
    else:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
    return 0
