"""Write the whole published set for a result: JSON, Markdown, HTML, CSV and PNGs."""

from __future__ import annotations

from pathlib import Path

from memory_bench.analysis.compare import ensure_analysis
from memory_bench.results.io import write_bytes_atomic, write_result
from memory_bench.results.model import Result
from memory_bench.results.paths import ReportPaths

__all__ = ["save_report"]


def save_report(
    result: Result, paths: ReportPaths, *, written: Path | None = None
) -> ReportPaths:
    """Analyse when needed, then write every file of ``paths`` (made unique beforehand).

    ``written``: a result file already holding exactly ``result`` (the run's own),
    compressed instead of encoded again (a 7 x 5 default run is ~6 MB of JSON; the
    published copy is gzipped, and every reader takes .json.gz).
    The Markdown links the PNGs by file name, so the set stays readable when the
    directory is moved; the HTML carries its own copies inline.
    """
    from memory_bench.render.csvfile import render_csv
    from memory_bench.render.html import render_html
    from memory_bench.render.markdown import render_markdown
    from memory_bench.render.plots import render_plots

    ensure_analysis(result)
    plots = render_plots(result)
    if written is not None:
        write_bytes_atomic(paths.json, written.read_bytes())
    else:
        write_result(paths.json, result)
    for name, png in plots.items():
        paths.plots[name].write_bytes(png)
    images = {name: p.name for name, p in paths.plots.items() if name in plots}
    paths.md.write_text(render_markdown(result, images), encoding="utf-8")
    paths.html.write_text(render_html(result, plots), encoding="utf-8")
    paths.csv.write_text(render_csv(result), encoding="utf-8")
    return paths
