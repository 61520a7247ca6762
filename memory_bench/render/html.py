"""The HTML report: one self-contained file, plots inlined, every string escaped.

No script, no external stylesheet or font, no remote image: the file can be
mailed, archived or opened offline and shows exactly what the Markdown shows.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Mapping
from html import escape
from typing import Any

from memory_bench.render import document as D
from memory_bench.results.model import Result

__all__ = ["render_html"]

CSS = """
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;max-width:1360px;margin:2em auto;
padding:0 1em;color:#1b1b1b}
h1{font-size:1.6em}h2{margin-top:1.8em;border-bottom:1px solid #ddd;padding-bottom:.2em}
.scroll{overflow-x:auto;max-width:100%;margin:.6em 0 1.2em}
table{border-collapse:collapse;font-size:13px;width:100%}
p,li{overflow-wrap:anywhere}
th,td{border:1px solid #d4d4d4;padding:.25em .4em;text-align:right;vertical-align:top}
th{background:#f3f3f3;overflow-wrap:anywhere;font-size:12px}
td:first-child,th:first-child,td.l{text-align:left}
td:first-child,td .m{white-space:nowrap}td .ci{color:#555;font-size:12px}
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


def _cell(text: str) -> str:
    """A value cell whose interval (``± 0.012``, ``[0.900, 1.000]``) may wrap under its
    mean, so that a table of many metrics fits a 1,400 px window without a scrollbar."""
    for mark in (" ± ", " ["):
        mean, sep, rest = text.partition(mark)
        if sep:
            interval = sep.lstrip().replace("± ", "±\u00a0") + rest
            return (f'<span class="m">{escape(mean)}</span> '
                    f'<span class="ci">{escape(interval)}</span>')
    return escape(text)


def _table(head: list[str], rows: list[list[str]], *, verdicts: bool = False,
           wrap: bool = False) -> str:
    th = "".join(f"<th>{escape(h)}</th>" for h in head)
    body = []
    for r in rows:
        tds = "".join(
            f"<td{_verdict_class(c) if verdicts else ''}>{_cell(str(c))}</td>" for c in r
        )
        body.append(f"<tr>{tds}</tr>")
    cls = ' class="wrap"' if wrap else ""
    # A wide table scrolls inside its own box: the page itself never scrolls sideways.
    return (f'<div class="scroll"><table{cls}><thead><tr>{th}</tr></thead>'
            f"<tbody>{''.join(body)}</tbody></table></div>")


def _img(png: bytes, alt: str) -> str:
    data = base64.b64encode(png).decode("ascii")
    return f'<img alt="{escape(alt)}" src="data:image/png;base64,{data}">'


def _bullet(b: D.Bullet) -> str:
    text = _text(b.text) if b.prose else escape(b.text)
    label = f"<b>{escape(b.label)}</b>: " if b.label is not None else ""
    code = f" <code>{escape(b.code)}</code>" if b.code is not None else ""
    return f"<li>{label}{text}{code}</li>"


def _html(block: D.Block, plots: Mapping[str, bytes]) -> str:
    if isinstance(block, D.Heading):
        return f"<h{block.level}>{escape(block.text)}</h{block.level}>"
    if isinstance(block, D.Para):
        if block.bold:
            return f"<p><b>{escape(block.text)}</b></p>"
        return f'<p class="note">{escape(block.text)}</p>' if block.note else (
            f"<p>{escape(block.text)}</p>")
    if isinstance(block, D.Table):
        return _table(block.head, block.rows, verdicts=block.verdicts, wrap=block.wrap)
    if isinstance(block, D.Image):
        return _img(plots[block.name], block.alt) if block.name in plots else ""
    if isinstance(block, D.Bullets):
        cls = f' class="{block.kind}"' if block.kind else ""
        return "\n".join([f"<ul{cls}>", *(_bullet(b) for b in block.items), "</ul>"])
    return f"<pre>{escape(block.text)}</pre>"


def render_html(result: Result, plots: Mapping[str, bytes] | None = None) -> str:
    """``plots``: PNG bytes by name (``render_plots``); drawn here when not given."""
    if plots is None:
        from memory_bench.render.plots import render_plots

        plots = render_plots(result)
    title = D.title(result)
    head = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>{escape(title)}</title><style>{CSS}</style></head><body>"]
    body = [_html(b, plots) for b in D.report_blocks(result, plots)]
    return "\n".join([*head, *filter(None, body), "</body></html>", ""])
