"""Write the whole published set for a result: JSON, Markdown, HTML, CSV and PNGs."""

from __future__ import annotations

from pathlib import Path

from memory_bench.results.io import dumps, write_reserved
from memory_bench.results.model import Result
from memory_bench.results.paths import ReportPaths

__all__ = ["save_report"]


def save_report(
    result: Result, paths: ReportPaths, *, written: Path | None = None
) -> ReportPaths:
    """Write every file of ``paths`` for an analysed ``result`` (reserved beforehand:
    ``reserve_report_paths``), all rendered and staged before any is renamed into
    place; on any failure the set is removed. The claim is released either way.

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

    def render() -> dict[Path, bytes]:
        plots = render_plots(result)
        images = {name: p.name for name, p in paths.plots.items() if name in plots}
        return {
            paths.json: written.read_bytes() if written is not None else dumps(result.to_dict()),
            **{paths.plots[name]: png for name, png in plots.items()},
            paths.md: render_markdown(result, images).encode(),
            paths.html: render_html(result, plots).encode(),
            paths.csv: render_csv(result).encode(),
        }

    write_reserved(paths, render)
    return paths
