"""The Markdown report of a result file: the publishable comparison.

Sections and their order are shared with the HTML report (``sections.py``):
results, capabilities, paired verdicts, what this does not show, then the
detail a sceptic checks (method, differences, misses, scenario, manifest).
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Mapping
from typing import Any

from memory_bench.render import sections as S
from memory_bench.results.model import Result

__all__ = ["md_escape", "md_prose", "render_headline", "render_markdown"]


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
    return "".join(_code(p) if i % 2 else md_escape(p) for i, p in enumerate(parts))


def _table(head: list[str], rows: list[list[str]]) -> list[str]:
    out = ["| " + " | ".join(md_escape(h) for h in head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(md_escape(c) for c in r) + " |" for r in rows]
    return [*out, ""]


def _longest_run(text: str, ch: str) -> int:
    return max((len(m) for m in re.findall(f"{re.escape(ch)}+", text)), default=0)


def _code(text: Any) -> str:
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


def render_markdown(result: Result, images: Mapping[str, str] | None = None) -> str:
    """``images`` maps a plot name (``bars``, ``quality-latency``) to a relative path."""
    scen = result.scenario
    out = [f"# memory-bench comparison — {md_escape(scen.name)}", "",
           md_escape(S.run_line(result)), ""]
    out += ["## Results", "", md_escape(S.RESULTS_NOTE), "", md_escape(S.exposure_note(result)),
            ""]
    out += _table(*S.results_table(result))
    if images and "bars" in images:
        out += [f"![Per-metric means with 95% intervals]({images['bars']})", ""]
    if images and "quality-latency" in images:
        out += [f"![Quality against p50 latency]({images['quality-latency']})", ""]
    head, rows = S.other_table(result)
    if len(head) > 2:
        out += ["### Other metrics", ""]
        out += _table(head, rows)
        ingest = S.ingest_note(result)
        if ingest:
            out += [md_escape(ingest), ""]
    head, rows = S.curve_table(result)
    if rows:
        out += ["### Recall@1 over the stream", "", md_escape(S.CURVE_NOTE), ""]
        out += _table(head, rows)
    categories = S.category_tables(result)
    if categories:
        out += ["### By category", "", md_escape(S.CATEGORY_NOTE), ""]
        for label, head, rows in categories:
            out += [f"**{md_escape(label)}**", ""]
            out += _table(head, rows)
    out += ["## Capabilities", "", md_escape(S.CAPS_NOTE), ""]
    out += _table(*S.capability_table(result))
    out += ["## Paired verdicts", "", md_escape(S.VERDICT_NOTE), ""]
    head, rows = S.verdict_table(result)
    out += _table(head, rows) if rows else ["Only one backend: nothing to compare.", ""]
    out += ["## What this does not show", ""]
    out += [f"- {md_prose(c)}" for c in S.caveat_lines(result)]
    out.append("")
    notes = S.notes(result)
    if notes:
        out += ["### Backend notes", "", "As each backend's author states them:", ""]
        out += [f"- **{md_escape(label)}**: {md_prose(n)}" for label, n in notes]
        out.append("")
    fails = S.failures(result)
    if fails:
        out += ["## Failures", ""]
        out += [f"- {md_escape(lbl)} seed {seed}: {md_escape(err)}" for lbl, seed, err in fails]
        out.append("")
    out += ["## Method", ""]
    out += [f"- **{md_escape(k)}**: {md_escape(v)}" for k, v in S.method(result)]
    out.append("")
    head, rows = S.difference_table(result)
    if rows:
        out += ["## Paired differences", "", md_escape(S.DIFF_NOTE), ""]
        out += _table(head, rows)
    misses = S.misses(result)
    if misses:
        out += ["## Sample misses", "", md_escape(S.MISSES_NOTE), ""]
        out += _table(*misses)
    params = S.scenario_params(result)
    out += ["## Scenario", "", *_block(json.dumps(params, indent=1, ensure_ascii=False)),
            "Data hashes per seed:", ""]
    out += [f"- seed {md_escape(s)}: {_code(h)}" for s, h in scen.data_hashes.items()]
    out += ["", "## Manifest", "",
            *_block(json.dumps(result.manifest, indent=1, ensure_ascii=False))]
    return "\n".join(out)


def _block(text: str) -> list[str]:
    """A fenced block whose fence no line of ``text`` can close early."""
    fence = "`" * max(3, _longest_run(text, "`") + 1)
    return [fence + "json", text, fence, ""]
