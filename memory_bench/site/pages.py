"""The leaderboard's pages as HTML strings: an index of every published run, and a page
per scenario with one sortable table per run, its plots and links to its report set.

Every string that comes from a result file is escaped; the pages load one stylesheet
and one script of the site's own, nothing from the network.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from html import escape

from memory_bench.metrics.spec import MetricSpec
from memory_bench.render.format import NOT_SUPPORTED, cell, row_label, run_counts
from memory_bench.results.manifest import is_dirty
from memory_bench.results.model import Result
from memory_bench.results.paths import slug
from memory_bench.site.collect import Published, PublishedRun, PublishedSweep

__all__ = ["index_page", "scenario_file", "scenario_page"]

LINK_NAMES = {"html": "HTML report", "md": "Markdown", "csv": "CSV", "json": "JSON"}
PLOT_CAPTIONS = {"bars": "Every results metric, each backend, with 95% intervals",
                 "quality-latency": "Quality against e2e p50 latency",
                 "quality": "Quality against store size", "cost": "Cost against store size"}


def scenario_file(name: str) -> str:
    return f"scenario-{slug(name, 'scenario')}.html"


def _page(title: str, nav: Iterable[tuple[str, str]], here: str, body: list[str]) -> str:
    links = "".join(f'<a href="{escape(href)}"{" class=here" if href == here else ""}>'
                    f"{escape(text)}</a>" for text, href in nav)
    return "\n".join([
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(title)}</title>", '<link rel="stylesheet" href="site.css">',
        "</head><body>", f"<header><nav>{links}</nav></header>", "<main>", *body,
        "</main>", '<script src="sort.js"></script>', "</body></html>", ""])


def _table(head: list[tuple[str, str]], rows: list[list[tuple[str, str | None, str]]]) -> str:
    """A sortable table in its own scrolling box. ``head``: (text, tooltip);
    a cell is (text, sort value or None for text order, css class)."""
    aligns = [cls for _, _, cls in rows[0]] if rows else [""] * len(head)  # as the cells
    th = "".join(f'<th scope="col" title="{escape(tip)}"'
                 f'{" class=l" if "l" in cls.split() else ""}>{escape(text)}</th>'
                 for (text, tip), cls in zip(head, aligns, strict=True))
    body = []
    for row in rows:
        tds = []
        for text, value, cls in row:
            v = "" if value is None else f' data-v="{escape(value)}"'
            c = f' class="{cls}"' if cls else ""
            tds.append(f"<td{c}{v}>{text}</td>")
        body.append(f"<tr>{''.join(tds)}</tr>")
    return (f'<div class="scroll"><table class="sortable"><thead><tr>{th}</tr></thead>'
            f"<tbody>{''.join(body)}</tbody></table></div>")


def _shown_metrics(result: Result) -> list[MetricSpec]:
    """The results section's metrics that some backend has a value for."""
    return [m for m in result.section("results")
            if any((s := b.summary.get(m.name)) is not None and s.mean is not None
                   for b in result.backends)]


def _best(result: Result, metric: MetricSpec) -> float | None:
    means = [s.mean for b in result.backends
             if (s := b.summary.get(metric.name)) is not None and s.mean is not None]
    if not means:
        return None
    return max(means) if metric.higher_is_better else min(means)


def run_table(result: Result) -> str:
    """One row per backend, one column per results metric; the best mean is marked."""
    metrics = _shown_metrics(result)
    head = [("backend", "the backend's label (its spec)"), ("runs ok", "pairs that finished")]
    for m in metrics:
        arrow = "higher" if m.higher_is_better else "lower"
        head.append((m.label, f"{m.name}: {m.description} ({arrow} is better)".strip()))
    best = {m.name: _best(result, m) for m in metrics}
    rows = []
    for b in result.backends:
        row: list[tuple[str, str | None, str]] = [
            (escape(row_label(result, b)), None, "l"),
            (escape(run_counts(b)), repr(len(b.ok_runs())), "")]
        for m in metrics:
            s = b.summary.get(m.name)
            if s is None or s.mean is None:
                row.append((NOT_SUPPORTED, "", ""))
                continue
            cls = "best" if len(result.backends) > 1 and s.mean == best[m.name] else ""
            row.append((escape(cell(s, m, runs_ok=len(b.ok_runs()))), repr(s.mean), cls))
        rows.append(row)
    return _table(head, rows)


def _links(files: Mapping[str, str]) -> str:
    parts = [f'<a href="{escape(href)}">{escape(LINK_NAMES[kind])}</a>'
             for kind, href in files.items() if kind in LINK_NAMES]
    return f'<p class="links">{"".join(parts)}</p>' if parts else ""


def _plots(files: Mapping[str, str]) -> str:
    figs = [f'<figure><a href="{escape(href)}"><img src="{escape(href)}" '
            f'alt="{escape(PLOT_CAPTIONS[kind])}"></a>'
            f"<figcaption>{escape(PLOT_CAPTIONS[kind])}</figcaption></figure>"
            for kind, href in files.items() if kind in PLOT_CAPTIONS]
    return f'<div class="plots">{"".join(figs)}</div>' if figs else ""


def _verified(run: PublishedRun) -> bool:
    """A ``memory-bench verify --save`` record beside the result says it verified."""
    from memory_bench.session.verify import is_verified

    path = run.files.get("json")
    return path is not None and is_verified(path)


def _run_line(run: PublishedRun) -> str:
    r = run.result
    when = (r.finished_at or r.started_at or "")[:16].replace("T", " ")
    size = r.scenario.params.get("size")
    bits = [f"run {r.run_id}", f"{len(r.seeds)} seed(s)", f"{len(r.backends)} backend(s)",
            f"status {r.status}", f"finished {when} UTC" if when else "",
            "dirty: made from uncommitted code" if is_dirty(r.manifest) else "",
            "verified (memory-bench verify)" if _verified(run) else ""]
    if size is not None:
        bits.insert(1, f"store size {size:,}")
    return " · ".join(escape(b) for b in bits if b)


def scenario_page(name: str, runs: list[PublishedRun], sweeps: list[PublishedSweep],
                  hrefs: Mapping[str, Mapping[str, str]], nav: list[tuple[str, str]]) -> str:
    """``hrefs``: per run or sweep stem, each of its files' link from the site."""
    body = [f"<h1>Scenario <code>{escape(name)}</code></h1>"]
    desc = runs[0].scenario.description if runs else ""
    if desc:
        body.append(f"<p>{escape(desc)}</p>")
    body.append(f'<p class="note">{len(runs)} published run(s), newest first. Click a '
                "column's heading to sort by it; the best mean of each column is in bold. "
                "Mean over seeds ± half-width of the 95% Student-t interval ([low, high] "
                "where clipped to the metric's range); — means the backend cannot report "
                "the metric. The paired verdicts are in each HTML report.</p>")
    for sweep in sweeps:
        body += [f"<h2 id=\"{escape(sweep.stem)}\">Sweep {escape(sweep.stem)}</h2>",
                 '<p class="note">Store sizes '
                 f"{escape(', '.join(f'{int(s):,}' for s in sweep.summary.get('sizes', [])))}"
                 "; every size is also a run below.</p>",
                 _links(hrefs[sweep.stem]), _plots(hrefs[sweep.stem])]
    for run in runs:
        body += [f'<h2 id="{escape(run.stem)}">{escape(run.stem)}</h2>',
                 f'<p class="note">{_run_line(run)}</p>', _links(hrefs[run.stem]),
                 run_table(run.result), _plots(hrefs[run.stem])]
    return _page(f"memory-bench leaderboard — {name}", nav, scenario_file(name), body)


def index_page(published: Published, hrefs: Mapping[str, Mapping[str, str]],
               nav: list[tuple[str, str]]) -> str:
    by_scenario = published.scenarios()
    body = ["<h1>memory-bench leaderboard</h1>",
            "<p>Every run published under <code>reports/</code>: memory systems scored side "
            "by side with one protocol. A page per scenario holds each run's table, plots "
            "and report. The published comparison is the <code>hard</code> scenario.</p>",
            "<h2>Scenarios</h2>"]
    rows = []
    for name, runs in by_scenario.items():
        newest = runs[0]
        rows.append([(f'<a href="{escape(scenario_file(name))}">{escape(name)}</a>', None,
                      "l"),
                     (str(len(runs)), str(len(runs)), ""),
                     (escape(newest.stem), None, "l"),
                     (escape(", ".join(b.label for b in newest.result.backends)), None,
                      "l wrap")])
    body.append(_table([("scenario", ""), ("runs", "published runs"),
                        ("newest", "the newest run's report set"),
                        ("backends of the newest", "")], rows))
    body.append("<h2>Every run</h2>")
    rows = []
    for name, runs in by_scenario.items():
        for run in runs:
            r = run.result
            page = f"{scenario_file(name)}#{run.stem}"
            rows.append([(f'<a href="{escape(page)}">{escape(run.stem)}</a>', None, "l"),
                         (escape(name), None, "l"),
                         (str(len(r.backends)), str(len(r.backends)), ""),
                         (str(len(r.seeds)), str(len(r.seeds)), ""),
                         (escape(r.status + (" · dirty" if is_dirty(r.manifest) else "")
                                 + (" · verified" if _verified(run) else "")), None, "l"),
                         (_links(hrefs[run.stem]).removeprefix('<p class="links">')
                          .removesuffix("</p>"), None, "l links")])
    body.append(_table([("run", "date, scenario and run id"), ("scenario", ""),
                        ("backends", ""), ("seeds", ""), ("status", ""), ("files", "")], rows))
    if published.skipped:
        body += ["<h2>Not included</h2>", "<p>Files that are not a result or sweep "
                 "summary the project's reader accepts:</p><ul>",
                 *(f"<li><code>{escape(n)}</code>: {escape(why)}</li>"
                   for n, why in published.skipped), "</ul>"]
    return _page("memory-bench leaderboard", nav, "index.html", body)
