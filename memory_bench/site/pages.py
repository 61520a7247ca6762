"""The leaderboard's pages as HTML strings: an index that ranks each scenario's headline
rows (``reports/headline.toml``) and lists every run, and a page per scenario with one
sortable table per run, its plots and links to its report set, superseded runs folded.

Every string that comes from a result file is escaped; the pages load one stylesheet
and one script of the site's own, nothing from the network.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from html import escape
from typing import Any

from memory_bench.metrics.spec import MetricSpec
from memory_bench.render.format import NOT_SUPPORTED, column, row_label, run_counts
from memory_bench.results.manifest import is_dirty
from memory_bench.results.model import Result
from memory_bench.results.paths import slug
from memory_bench.site.collect import Published, PublishedRun, PublishedSweep
from memory_bench.site.headline import CURRENT, HEADLINE, SUPERSEDED, Headline

__all__ = ["index_page", "ranked_table", "scenario_file", "scenario_page"]

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


def _cell_html(text: str) -> str:
    """A value cell: its interval (``± 0.012``, ``[0.900, 1.000]``) may wrap under the
    mean, so that a table of many metric columns fits the page instead of scrolling."""
    for mark in (" ± ", " ["):
        mean, sep, rest = text.partition(mark)
        if sep:  # "± 0.012" stays whole; "[0.943, 1.000]" may break after its comma
            interval = sep.lstrip().replace("± ", "±\u00a0") + rest
            return (f'<span class="m">{escape(mean)}</span> '
                    f'<span class="ci">{escape(interval)}</span>')
    return escape(text)


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
    oks: list[int | None] = [len(b.ok_runs()) for b in result.backends]
    cols = {m.name: column([b.summary.get(m.name) for b in result.backends], m, oks)
            for m in metrics}  # one interval form and fixed decimals per column
    rows = []
    for i, b in enumerate(result.backends):
        row: list[tuple[str, str | None, str]] = [
            (escape(row_label(result, b)), None, "l"),
            (escape(run_counts(b)), repr(len(b.ok_runs())), "")]
        for m in metrics:
            s = b.summary.get(m.name)
            if s is None or s.mean is None:
                row.append((NOT_SUPPORTED, "", ""))
                continue
            cls = "best" if len(result.backends) > 1 and s.mean == best[m.name] else ""
            row.append((_cell_html(cols[m.name][i]), repr(s.mean), cls))
        rows.append(row)
    return _table(head, rows)


def _links(files: Mapping[str, str]) -> str:
    parts = [f'<a href="{escape(href)}">{escape(LINK_NAMES[kind])}</a>'
             for kind, href in files.items() if kind in LINK_NAMES]
    return f'<p class="links">{"".join(parts)}</p>' if parts else ""


def _plots(files: Mapping[str, str]) -> str:
    figs = [f'<figure class="{escape(kind)}"><a href="{escape(href)}"><img src="{escape(href)}" '
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


def _folded(title: str, parts: list[str]) -> list[str]:
    """Superseded runs: kept, marked, and folded away under one summary line."""
    if not parts:
        return []
    return [f'<details class="superseded"><summary>{escape(title)}</summary>', *parts,
            "</details>"]


def _run_section(run: PublishedRun, status: str, hrefs: Mapping[str, Mapping[str, str]]
                 ) -> list[str]:
    mark = {HEADLINE: ' <span class="tag head">headline</span>',
            SUPERSEDED: ' <span class="tag old">superseded</span>'}.get(status, "")
    return [f'<h2 id="{escape(run.stem)}">{escape(run.stem)}{mark}</h2>',
            f'<p class="note">{_run_line(run)}</p>', _links(hrefs[run.stem]),
            run_table(run.result), _plots(hrefs[run.stem])]


def _sweep_section(sweep: PublishedSweep, status: str,
                   hrefs: Mapping[str, Mapping[str, str]]) -> list[str]:
    mark = {HEADLINE: ' <span class="tag head">headline</span>',
            SUPERSEDED: ' <span class="tag old">superseded</span>'}.get(status, "")
    sizes = ", ".join(f"{int(s):,}" for s in sweep.summary.get("sizes", []))
    return [f'<h2 id="{escape(sweep.stem)}">Sweep {escape(sweep.stem)}{mark}</h2>',
            f'<p class="note">Store sizes {escape(sizes)}; every size is also a run below.</p>',
            _links(hrefs[sweep.stem]), _plots(hrefs[sweep.stem])]


def _ordered(items: list, status: Callable[[Any], str]) -> tuple[list, list]:
    """(headline then current, superseded), each newest first (the stem starts with
    the date and the run id's time)."""
    newest = sorted(items, key=lambda x: x.stem, reverse=True)
    rank = {HEADLINE: 0, CURRENT: 1}
    shown = sorted((x for x in newest if status(x) != SUPERSEDED),
                   key=lambda x: rank[status(x)])
    return shown, [x for x in newest if status(x) == SUPERSEDED]


def scenario_page(name: str, runs: list[PublishedRun], sweeps: list[PublishedSweep],
                  hrefs: Mapping[str, Mapping[str, str]], nav: list[tuple[str, str]],
                  status: Callable[[Any], str] = lambda x: CURRENT) -> str:
    """``hrefs``: per run or sweep stem, each of its files' link from the site;
    ``status``: a run's or sweep's place (headline, current, superseded)."""
    body = [f"<h1>Scenario <code>{escape(name)}</code></h1>"]
    desc = runs[0].scenario.description if runs else ""
    if desc:
        body.append(f"<p>{escape(desc)}</p>")
    body.append('<p class="note">The headline run(s) first (<code>reports/headline.toml</code>), '
                "then the other current runs, newest first; superseded runs are folded at "
                "the end, newest first. Click a column's heading to sort by it; the best mean "
                "of each column is in bold. Mean over seeds ± half-width of the 95% Student-t "
                "interval ([low, high] where clipped to the metric's range); — means the "
                "backend cannot report the metric. The paired verdicts are in each HTML "
                "report.</p>")
    shown, old = _ordered(sweeps, status)
    for sweep in shown:
        body += _sweep_section(sweep, status(sweep), hrefs)
    body += _folded(f"{len(old)} superseded sweep(s), newest first",
                    [p for sw in old for p in _sweep_section(sw, SUPERSEDED, hrefs)])
    shown, old = _ordered(runs, status)
    for run in shown:
        body += _run_section(run, status(run), hrefs)
    body += _folded(f"{len(old)} superseded run(s), newest first: kept for the record",
                    [p for run in old for p in _run_section(run, SUPERSEDED, hrefs)])
    return _page(f"memory-bench leaderboard — {name}", nav, scenario_file(name), body)


def _rank_metric(results: list[Result], wanted: str | None) -> MetricSpec | None:
    """The metric the index ranks by: the manifest's, else the first results metric."""
    for r in results:
        shown = _shown_metrics(r)
        for m in shown:
            if m.name == wanted:
                return m
    for r in results:
        shown = [m for m in _shown_metrics(r) if m.terminal]
        if shown:
            return shown[0]
    return None


def ranked_table(results: list[tuple[PublishedRun, Result]], wanted: str | None,
                 page: str) -> str:
    """Every row of the headline files, ranked by one metric (best first), with the
    headline columns (the metrics the terminal table shows) and their intervals; a
    backend in two files is shown once (the same pairs, the same numbers)."""
    rank = _rank_metric([r for _, r in results], wanted)
    metrics: list[MetricSpec] = []
    for _, r in results:
        for m in _shown_metrics(r):
            if m.terminal and all(m.name != x.name for x in metrics):
                metrics.append(m)
    entries = []
    seen: set[str] = set()
    for run, r in results:
        for b in r.backends:
            if b.label not in seen:
                seen.add(b.label)
                entries.append((run, r, b))
    oks: list[int | None] = [len(b.ok_runs()) for _, _, b in entries]
    cols = {m.name: column([b.summary.get(m.name) for _, _, b in entries], m, oks)
            for m in metrics}  # one interval form and fixed decimals per column
    rows: list[tuple[float | None, list[tuple[str, str | None, str]]]] = []
    for i, (run, r, b) in enumerate(entries):
        key = b.summary.get(rank.name) if rank is not None else None
        row: list[tuple[str, str | None, str]] = [
            (f'<a href="{escape(page)}#{escape(run.stem)}">{escape(row_label(r, b))}</a>',
             None, "l")]
        for m in metrics:
            s = b.summary.get(m.name)
            if s is None or s.mean is None:
                row.append((NOT_SUPPORTED, "", ""))
            else:
                row.append((_cell_html(cols[m.name][i]), repr(s.mean), ""))
        rows.append((None if key is None else key.mean, row))
    sign = 1 if rank is None or rank.higher_is_better else -1
    rows.sort(key=lambda x: (x[0] is None, -sign * (x[0] or 0.0)))
    head = [("#", "rank"), ("backend", "the backend's label; links to its run")]
    head += [(m.label, f"{m.name}: {m.description}") for m in metrics]
    numbered = [[(str(i), str(i), ""), *row] for i, (_, row) in enumerate(rows, 1)]
    return _table(head, numbered)


def index_page(published: Published, hrefs: Mapping[str, Mapping[str, str]],
               nav: list[tuple[str, str]], headlines: Mapping[str, Headline] | None = None,
               status: Callable[[Any], str] = lambda x: CURRENT) -> str:
    headlines = headlines or {}
    by_scenario = published.scenarios()
    order = [n for n in headlines if n in by_scenario or any(
        sw.summary.get("scenario") == n for sw in published.sweeps)]
    order += [n for n in by_scenario if n not in order]
    body = ["<h1>memory-bench leaderboard</h1>",
            "<p>Memory systems scored side by side with one protocol. Each scenario's "
            "headline result (named in <code>reports/headline.toml</code>) is ranked here, "
            "best first, with 95% intervals over seeds; its page holds every run's full "
            "table, plots and report, superseded runs folded away. The published "
            "comparison is the <code>hard</code> scenario.</p>"]
    for name in order:
        runs = by_scenario.get(name, [])
        page = scenario_file(name)
        entry = headlines.get(name)
        body.append(f'<h2 id="{escape(name)}"><a href="{escape(page)}">{escape(name)}</a></h2>')
        # the headline's own files in the manifest's order (a sweep's sizes are its own)
        listed = list(entry.results) if entry else []
        heads = sorted((r for r in runs if status(r) == HEADLINE and r.sweep is None),
                       key=lambda r: listed.index(r.stem) if r.stem in listed else len(listed))
        sweeps = [s for s in published.sweeps
                  if s.summary.get("scenario") == name and status(s) == HEADLINE]
        if not heads and not sweeps and runs:
            heads = [sorted(runs, key=lambda r: r.stem)[-1]]
            body.append('<p class="note">No headline named for this scenario: its newest '
                        "run.</p>")
        if heads:
            files = ", ".join(f'<a href="{escape(page)}#{escape(r.stem)}">{escape(r.stem)}</a>'
                              for r in heads)
            seeds = sorted({len(r.result.seeds) for r in heads})
            body.append(f'<p class="note">From {files}; '
                        f"{escape(' or '.join(map(str, seeds)))} seed(s); ranked by "
                        f"{escape(_rank_name(heads, entry))}.</p>")
            body.append(ranked_table([(r, r.result) for r in heads],
                                     entry.rank if entry else None, page))
        for sweep in sweeps:
            body += [f'<p class="note">The headline is a sweep over store sizes: '
                     f'<a href="{escape(page)}#{escape(sweep.stem)}">{escape(sweep.stem)}</a>.'
                     "</p>", _links(hrefs[sweep.stem]), _plots(hrefs[sweep.stem])]
        old = sum(status(r) == SUPERSEDED for r in runs)
        if old:
            body.append(f'<p class="note">{old} superseded run(s) of this scenario are folded '
                        f'on <a href="{escape(page)}">its page</a>.</p>')
    body.append("<h2>Every run</h2>")
    rows = []
    for name in order:
        for run in sorted(by_scenario.get(name, []), key=lambda r: r.stem, reverse=True):
            r = run.result
            link = f"{scenario_file(name)}#{run.stem}"
            rows.append([(f'<a href="{escape(link)}">{escape(run.stem)}</a>', None, "l"),
                         (escape(name), None, "l"), (escape(status(run)), None, "l"),
                         (str(len(r.backends)), str(len(r.backends)), ""),
                         (str(len(r.seeds)), str(len(r.seeds)), ""),
                         (escape(r.status + (" · dirty" if is_dirty(r.manifest) else "")
                                 + (" · verified" if _verified(run) else "")), None, "l"),
                         (_links(hrefs[run.stem]).removeprefix('<p class="links">')
                          .removesuffix("</p>"), None, "l links wrap")])
    body.append(_table([("run", "date, scenario and run id"), ("scenario", ""),
                        ("status", "headline, current or superseded (reports/headline.toml)"),
                        ("backends", ""), ("seeds", ""),
                        ("run state", "complete or not; marked when the run was made from "
                                      "uncommitted code, and when `memory-bench verify` "
                                      "passed on these bytes"),
                        ("files", "")], rows))
    if published.skipped:
        body += ["<h2>Not included</h2>", "<p>Files that are not a result or sweep "
                 "summary the project's reader accepts:</p><ul>",
                 *(f"<li><code>{escape(n)}</code>: {escape(why)}</li>"
                   for n, why in published.skipped), "</ul>"]
    return _page("memory-bench leaderboard", nav, "index.html", body)


def _rank_name(heads: list[PublishedRun], entry: Headline | None) -> str:
    m = _rank_metric([r.result for r in heads], entry.rank if entry else None)
    if m is None:
        return "nothing (no metric has a value)"
    return f"{m.label} ({'higher' if m.higher_is_better else 'lower'} is better)"
