"""The Markdown report of a result file: the publishable comparison.

Sections and their order are shared with the HTML report (``sections.py``):
results, capabilities, paired verdicts, what this does not show, then the
detail a sceptic checks (method, differences, misses, scenario, manifest).
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping
from typing import Any

from memory_bench.render import sections as S
from memory_bench.results.model import Result

__all__ = ["md_escape", "render_headline", "render_markdown"]


def md_escape(text: Any) -> str:
    """Safe in a Markdown table cell or paragraph: no raw HTML, no cell breaks."""
    return html.escape(str(text), quote=False).replace("|", "\\|").replace("\n", " ")


def _table(head: list[str], rows: list[list[str]]) -> list[str]:
    out = ["| " + " | ".join(md_escape(h) for h in head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(md_escape(c) for c in r) + " |" for r in rows]
    return [*out, ""]


def _code(text: str) -> str:
    """A span that shows text literally; html escaping is not needed inside code."""
    text = str(text).replace("\n", " ")
    fence = "``" if "`" in text else "`"
    return f"{fence}{text}{fence}"


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
    out += [f"- {md_escape(c)}" for c in S.caveat_lines(result)]
    out.append("")
    notes = S.notes(result)
    if notes:
        out += ["### Backend notes", "", "As each backend's author states them:", ""]
        out += [f"- **{md_escape(label)}**: {md_escape(n)}" for label, n in notes]
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
    fence = "~~~~" if "```" in text else "```"
    return [fence + "json", text, fence, ""]
