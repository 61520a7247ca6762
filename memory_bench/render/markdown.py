"""The Markdown report of a result file: the publishable comparison.

Sections and their order are shared with the HTML report (``sections.py``):
results, capabilities, paired verdicts, what this does not show, then the
detail a sceptic checks (method, differences, misses, scenario, manifest).
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
from typing import Any

from memory_bench.render import document as D
from memory_bench.render import sections as S
from memory_bench.results.model import Result

__all__ = ["md_code", "md_escape", "md_prose", "render_headline", "render_markdown"]


# What would make a user-given string live: a link or image (``[t](u)``, ``![t](u)``,
# ``[t][r]``, a reference definition ``[r]: u`` all need ``](``, ``][`` or ``]:``), or a
# bare URL that GitHub links (``https://``, ``www.``). Raw HTML and ``<autolinks>`` are
# taken by html.escape.
_LINK_END = re.compile(r"\](?=[(\[:])")
_SCHEME = re.compile(r"(?<=[A-Za-z0-9]):(?=//)")
_WWW = re.compile(r"(?i)\b(www)\.")
_CODE_SPAN = re.compile(r"`([^`]+)`")


def md_escape(text: Any) -> str:
    """Safe in a Markdown table cell or paragraph: no raw HTML, no cell breaks, no
    link, image or autolink. Backslashes are doubled first, so none can undo an
    escape; what is escaped renders as the same characters."""
    out = html.escape(str(text), quote=False).replace("\\", "\\\\")
    out = _LINK_END.sub(r"\\]", out).replace("![", "!\\[")
    out = _WWW.sub(r"\1\\.", _SCHEME.sub(r"\\:", out))
    return out.replace("|", "\\|").replace("\n", " ").replace("\r", " ")


def md_prose(text: Any) -> str:
    """:func:`md_escape` for prose with `code` spans (caveats, notes): the spans stay
    code (inert), the rest is escaped; unpaired backticks are escaped as well."""
    text = str(text)
    if text.count("`") % 2 or "``" in text:
        return md_escape(text).replace("`", "\\`")
    parts = _CODE_SPAN.split(text)  # even: prose, odd: code
    return "".join(md_code(p) if i % 2 else md_escape(p) for i, p in enumerate(parts))


def _table(head: list[str], rows: list[list[str]]) -> list[str]:
    out = ["| " + " | ".join(md_escape(h) for h in head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(md_escape(c) for c in r) + " |" for r in rows]
    return [*out, ""]


def _longest_run(text: str, ch: str) -> int:
    return max((len(m) for m in re.findall(f"{re.escape(ch)}+", text)), default=0)


def md_code(text: Any) -> str:
    """A span that shows text literally (nothing inside a code span is live): its fence
    is longer than any run of backticks in the text. Not for table cells."""
    text = str(text).replace("\n", " ").replace("\r", " ")
    fence = "`" * (_longest_run(text, "`") + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def render_headline(result: Result) -> str:
    """The results table and its legend alone: what the README quotes."""
    seeds = len(result.seeds)
    lines = _table(*S.results_table(result))
    lines.append(md_escape(f"{result.scenario.name} scenario, {seeds} seed(s), run "
                           f"{result.run_id}. {S.RESULTS_NOTE} {S.exposure_note(result)}"))
    return "\n".join(lines) + "\n"


def _bullet(b: D.Bullet) -> str:
    text = md_prose(b.text) if b.prose else md_escape(b.text)
    label = f"**{md_escape(b.label)}**: " if b.label is not None else ""
    code = f" {md_code(b.code)}" if b.code is not None else ""
    return f"- {label}{text}{code}"


def _lines(block: D.Block, images: Mapping[str, str]) -> list[str]:
    if isinstance(block, D.Heading):
        return [f"{'#' * block.level} {md_escape(block.text)}", ""]
    if isinstance(block, D.Para):
        text = md_escape(block.text)
        return [f"**{text}**" if block.bold else text, ""]
    if isinstance(block, D.Table):
        return _table(block.head, block.rows)
    if isinstance(block, D.Image):
        return [f"![{block.alt}]({images[block.name]})", ""] if block.name in images else []
    if isinstance(block, D.Bullets):
        return [*(_bullet(b) for b in block.items), ""]
    return _block(block.text)


def render_markdown(result: Result, images: Mapping[str, str] | None = None) -> str:
    """``images`` maps a plot name (``bars``, ``quality-latency``) to a relative path."""
    images = images or {}
    return "\n".join(line for block in D.report_blocks(result, images)
                     for line in _lines(block, images)).rstrip("\n") + "\n"


def _block(text: str) -> list[str]:
    """A fenced block whose fence no line of ``text`` can close early."""
    fence = "`" * max(3, _longest_run(text, "`") + 1)
    return [fence + "json", text, fence, ""]
