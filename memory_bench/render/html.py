"""The HTML report: one self-contained file, plots inlined, every string escaped.

No script, no external stylesheet or font, no remote image: the file can be
mailed, archived or opened offline and shows exactly what the Markdown shows.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Mapping
from html import escape
from typing import Any

from memory_bench.render import sections as S
from memory_bench.results.model import Result

__all__ = ["render_html"]

CSS = """
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;max-width:1200px;margin:2em auto;
padding:0 1em;color:#1b1b1b}
h1{font-size:1.6em}h2{margin-top:1.8em;border-bottom:1px solid #ddd;padding-bottom:.2em}
.scroll{overflow-x:auto;max-width:100%;margin:.6em 0 1.2em}
table{border-collapse:collapse;font-size:13px}
p,li{overflow-wrap:anywhere}
th,td{border:1px solid #d4d4d4;padding:.25em .55em;text-align:right;white-space:nowrap}
th{background:#f3f3f3}td:first-child,th:first-child,td.l{text-align:left}
tr:nth-child(even) td{background:#fafafa}
td.ahead{color:#05631d;font-weight:600}td.behind{color:#9a1010;font-weight:600}
td.tie{color:#666}.wrap td{white-space:normal}
code{background:#f2f2f2;padding:0 .2em;border-radius:3px}
pre{background:#f6f6f6;padding:.8em;overflow:auto;font-size:12px}
img{max-width:100%;height:auto;border:1px solid #eee;margin:.5em 0}
.note{color:#555}.caveats li{margin:.3em 0}
"""


def _text(s: Any) -> str:
    """Escape, then turn the caveats' `code` spans into <code> (safe: already escaped)."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", escape(str(s)))


def _verdict_class(cell: str) -> str:
    word = cell.split(" ", 1)[0]
    return f' class="{word}"' if word in ("ahead", "behind", "tie") else ""


def _table(head: list[str], rows: list[list[str]], *, verdicts: bool = False,
           wrap: bool = False) -> str:
    th = "".join(f"<th>{escape(h)}</th>" for h in head)
    body = []
    for r in rows:
        tds = "".join(
            f"<td{_verdict_class(c) if verdicts else ''}>{escape(str(c))}</td>" for c in r
        )
        body.append(f"<tr>{tds}</tr>")
    cls = ' class="wrap"' if wrap else ""
    # A wide table scrolls inside its own box: the page itself never scrolls sideways.
    return (f'<div class="scroll"><table{cls}><thead><tr>{th}</tr></thead>'
            f"<tbody>{''.join(body)}</tbody></table></div>")


def _img(png: bytes, alt: str) -> str:
    data = base64.b64encode(png).decode("ascii")
    return f'<img alt="{escape(alt)}" src="data:image/png;base64,{data}">'


def render_html(result: Result, plots: Mapping[str, bytes] | None = None) -> str:
    """``plots``: PNG bytes by name (``render_plots``); drawn here when not given."""
    if plots is None:
        from memory_bench.render.plots import render_plots

        plots = render_plots(result)
    scen = result.scenario
    title = f"memory-bench comparison — {scen.name}"
    parts = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(title)}</title><style>{CSS}</style></head><body>",
        f"<h1>{escape(title)}</h1>", f"<p>{escape(S.run_line(result))}</p>",
        "<h2>Results</h2>", f'<p class="note">{escape(S.RESULTS_NOTE)}</p>',
        f'<p class="note">{escape(S.exposure_note(result))}</p>',
        _table(*S.results_table(result)),
    ]
    if "bars" in plots:
        parts.append(_img(plots["bars"], "Per-metric means with 95% intervals"))
    if "quality-latency" in plots:
        parts.append(_img(plots["quality-latency"], "Quality against p50 latency"))
    head, rows = S.other_table(result)
    if len(head) > 2:
        parts += ["<h3>Other metrics</h3>", _table(head, rows)]
        ingest = S.ingest_note(result)
        if ingest:
            parts.append(f'<p class="note">{escape(ingest)}</p>')
    categories = S.category_tables(result)
    if categories:
        parts += ["<h3>By category</h3>", f'<p class="note">{escape(S.CATEGORY_NOTE)}</p>']
        for label, head, rows in categories:
            parts += [f"<p><b>{escape(label)}</b></p>", _table(head, rows)]
    parts += ["<h2>Capabilities</h2>", f'<p class="note">{escape(S.CAPS_NOTE)}</p>',
              _table(*S.capability_table(result)),
              "<h2>Paired verdicts</h2>", f'<p class="note">{escape(S.VERDICT_NOTE)}</p>']
    head, rows = S.verdict_table(result)
    parts.append(_table(head, rows, verdicts=True) if rows
                 else "<p>Only one backend: nothing to compare.</p>")
    parts += ["<h2>What this does not show</h2>", '<ul class="caveats">']
    parts += [f"<li>{_text(c)}</li>" for c in S.caveat_lines(result)]
    parts.append("</ul>")
    notes = S.notes(result)
    if notes:
        parts += ["<h3>Backend notes</h3>", "<p>As each backend's author states them:</p><ul>"]
        parts += [f"<li><b>{escape(lbl)}</b>: {escape(n)}</li>" for lbl, n in notes]
        parts.append("</ul>")
    fails = S.failures(result)
    if fails:
        parts += ["<h2>Failures</h2>", "<ul>"]
        parts += [f"<li>{escape(lbl)} seed {escape(str(seed))}: {escape(err)}</li>"
                  for lbl, seed, err in fails]
        parts.append("</ul>")
    parts += ["<h2>Method</h2>", "<ul>"]
    parts += [f"<li><b>{escape(k)}</b>: {escape(v)}</li>" for k, v in S.method(result)]
    parts.append("</ul>")
    head, rows = S.difference_table(result)
    if rows:
        parts += ["<h2>Paired differences</h2>", f'<p class="note">{escape(S.DIFF_NOTE)}</p>',
                  _table(head, rows, verdicts=True)]
    misses = S.misses(result)
    if misses:
        parts += ["<h2>Sample misses</h2>", f'<p class="note">{escape(S.MISSES_NOTE)}</p>',
                  _table(*misses, wrap=True)]
    params = S.scenario_params(result)
    hashes = scen.data_hashes
    parts += [
        "<h2>Scenario</h2>", f"<pre>{escape(json.dumps(params, indent=1, ensure_ascii=False))}"
        "</pre>", "<p>Data hashes per seed:</p><ul>",
        *(f"<li>seed {escape(str(s))}: <code>{escape(str(h))}</code></li>"
          for s, h in hashes.items()),
        "</ul>", "<h2>Manifest</h2>",
        f"<pre>{escape(json.dumps(result.manifest, indent=1, ensure_ascii=False))}"
        "</pre>", "</body></html>", "",
    ]
    return "\n".join(parts)
