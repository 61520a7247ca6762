"""The report as a list of blocks, built once; Markdown and HTML only render blocks.

The order of sections, their headings, notes and tables are decided here, from an
analysed result (``sections.py`` computes the cells). A renderer turns each kind
of block into its format and escapes every string it did not write itself.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass, field

from memory_bench.render import sections as S
from memory_bench.results.manifest import dirty_line
from memory_bench.results.model import Result

__all__ = ["Block", "Bullets", "Code", "Heading", "Image", "Para", "Table", "report_blocks"]


@dataclass(frozen=True)
class Heading:
    level: int
    text: str


@dataclass(frozen=True)
class Para:
    text: str
    note: bool = False  # an explanation beside a table (shown quieter)
    bold: bool = False


@dataclass(frozen=True)
class Table:
    head: list[str]
    rows: list[list[str]]
    verdicts: bool = False  # cells start with ahead / behind / tie
    wrap: bool = False  # long text cells wrap


@dataclass(frozen=True)
class Image:
    name: str  # a plot of ``render_plots``
    alt: str


@dataclass(frozen=True)
class Bullet:
    text: str
    label: str | None = None  # shown bold before the text
    code: str | None = None  # shown literally after the text
    prose: bool = False  # the text may hold `code` spans (caveats, notes)


@dataclass(frozen=True)
class Bullets:
    items: list[Bullet] = field(default_factory=list)
    kind: str | None = None  # caveats: styled as such in HTML


@dataclass(frozen=True)
class Code:
    text: str  # a block shown literally (JSON)


Block = Heading | Para | Table | Image | Bullets | Code


def title(result: Result) -> str:
    return f"memory-bench comparison — {result.scenario.name}"


def _results(result: Result, plots: Collection[str]) -> list[Block]:
    out: list[Block] = [Heading(2, "Results"), Para(S.RESULTS_NOTE, note=True),
                        Para(S.exposure_note(result), note=True),
                        Table(*S.results_table(result))]
    if "bars" in plots:
        out.append(Image("bars", "Per-metric means with 95% intervals"))
    if "quality-latency" in plots:
        out.append(Image("quality-latency", "Quality against e2e p50 latency"))
    head, rows = S.audit_table(result)
    if rows:
        out += [Heading(3, "What reading the protocol buys"), Para(S.AUDIT_NOTE, note=True),
                Table(head, rows)]
    head, rows = S.other_table(result)
    if len(head) > 2:
        out += [Heading(3, "Other metrics"), Table(head, rows)]
        ingest = S.ingest_note(result)
        if ingest:
            out.append(Para(ingest, note=True))
    head, rows = S.curve_table(result)
    if rows:
        out += [Heading(3, "Recall@1 over the stream"), Para(S.CURVE_NOTE, note=True),
                Table(head, rows)]
    categories = S.category_tables(result)
    if categories:
        out += [Heading(3, "By category"), Para(S.CATEGORY_NOTE, note=True)]
        for label, head, rows in categories:
            out += [Para(label, bold=True), Table(head, rows)]
    return out


def _verdicts(result: Result) -> list[Block]:
    out: list[Block] = [Heading(2, "Capabilities"), Para(S.CAPS_NOTE, note=True),
                        Table(*S.capability_table(result)),
                        Heading(2, "Paired verdicts"), Para(S.VERDICT_NOTE, note=True)]
    head, rows = S.verdict_table(result)
    out.append(Table(head, rows, verdicts=True) if rows
               else Para("Only one backend: nothing to compare."))
    return out


def _caveats(result: Result) -> list[Block]:
    out: list[Block] = [Heading(2, "What this does not show"), Bullets(
        [Bullet(c, prose=True) for c in S.caveat_lines(result)], kind="caveats")]
    notes = S.notes(result)
    if notes:
        out += [Heading(3, "Backend notes"), Para("As each backend's author states them:"),
                Bullets([Bullet(n, label=label, prose=True) for label, n in notes])]
    fails = S.failures(result)
    if fails:
        out += [Heading(2, "Failures"),
                Bullets([Bullet(f"{lbl} seed {seed}: {err}") for lbl, seed, err in fails])]
    return out


def _detail(result: Result) -> list[Block]:
    out: list[Block] = [Heading(2, "Method"),
                        Bullets([Bullet(v, label=k) for k, v in S.method(result)])]
    head, rows = S.difference_table(result)
    if rows:
        out += [Heading(2, "Paired differences"), Para(S.DIFF_NOTE, note=True),
                Table(head, rows, verdicts=True)]
    misses = S.misses(result)
    if misses:
        out += [Heading(2, "Sample misses"), Para(S.MISSES_NOTE, note=True),
                Table(*misses, wrap=True)]
    params = S.scenario_params(result)
    out += [Heading(2, "Scenario"), Code(json.dumps(params, indent=1, ensure_ascii=False)),
            Para("Data hashes per seed:"),
            Bullets([Bullet(f"seed {s}:", code=str(h))
                     for s, h in result.scenario.data_hashes.items()]),
            Heading(2, "Manifest"),
            Code(json.dumps(result.manifest, indent=1, ensure_ascii=False))]
    return out


def report_blocks(result: Result, plots: Collection[str] = ()) -> list[Block]:
    """Every section of the report of an analysed ``result``, in order; ``plots``: the
    names of the plots that were drawn (an image block only for those)."""
    dirty = dirty_line(result.manifest)  # at the top: the numbers' code is no commit
    lead = S.lead_sentence(result)
    return [Heading(1, title(result)), *([Para(dirty, bold=True)] if dirty else []),
            *([Para(lead, bold=True)] if lead else []),
            Para(S.run_line(result)), *_results(result, plots),
            *_verdicts(result), *_caveats(result), *_detail(result)]
