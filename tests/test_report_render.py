"""The Markdown, HTML and CSV reports of constructed results."""

from __future__ import annotations

import csv
import io
import re
from html.parser import HTMLParser

from constructed_results import backend, result
from test_compare_paired import hits

from memory_bench.analysis.compare import analyse
from memory_bench.metrics.continual import CONTINUAL_METRICS
from memory_bench.metrics.latency import qualify_latency
from memory_bench.records.records import ProbeRecord, Records
from memory_bench.render.caveats import caveats
from memory_bench.render.csvfile import FIXED_COLUMNS, render_csv
from memory_bench.render.html import render_html
from memory_bench.render.markdown import render_markdown
from memory_bench.scenarios.continual.caveats import continual_caveats

EVIL = "<script>alert('x')</script>"


def _doc():
    a = backend("rshl", {"gateRecall": [1.0] * 5, "falseRefusals": [0.0] * 5,
                         "reinforcementDelta": [0.05] * 5},
                capabilities=("gate", "provenance", "strength"),
                notes=("uses subject/relation tags to detect supersession",),
                outcomes={"recall1_before": hits(0.9, seed=11)})
    b = backend("rag", {"provenanceAccuracy": [0.0] * 5},
                capabilities=(), failed_seeds=(4,),
                outcomes={"recall1_before": hits(0.5, seed=12)})
    doc = analyse(result(a, b))
    probe = ProbeRecord(tag="probe", question=f"Who does {EVIL} work for?",
                        expected=["bench-x-e1-0001"], returned=["bench-x-n-0009"], scores=[0.5],
                        latency_ms=1.0)
    doc.backends[1].runs[0].records = Records(probes=[probe])
    doc.backends[1].runs[4].error = f"ValueError: {EVIL}"
    doc.backends[0].notes.append(f"note with {EVIL}")
    return doc


def test_markdown_has_the_method_table_capabilities_verdicts_and_caveats() -> None:
    md = render_markdown(_doc())
    head = ("| backend | runs ok | recall@1 | recall@1 after | retention | updateWin | stale | "
            "provenance | "
            "prov. update | prov. sources | gateRecall | falseRefusals | reinforceΔ | "
            "forgotten back | e2e p50 ms | e2e p95 ms |")
    assert head in md
    assert "| rshl | 5/5 | 0.878 ± 0.016 |" in md
    rag_row = next(line for line in md.splitlines() if line.startswith("| rag | 4/5"))
    cells = [c.strip() for c in rag_row.strip("|").split("|")]
    assert cells[10:13] == ["—", "—", "—"]  # gate metrics (not supported), reinforcement
    assert "| rshl | yes | yes | yes | — | — | — |" in md  # ... gate consolidate persistent reads
    assert re.search(r"\| rshl \| rag \| ahead \+0\.[34]\d\d \|", md)
    # every comparison shows its effect, interval, test and Holm p
    assert re.search(r"\| rshl \| rag \| recall@1 \| 4 \| 480 \| 0\.[34]\d\d \| \[0\.\d+, "
                     r"0\.\d+\] \| mcnemar \| &lt;1e-16 \| &lt;1e-16 \| ahead \|", md)
    for section in ("## Paired verdicts", "## What this does not show", "## Method",
                    "## Scenario", "## Manifest", "### Backend notes", "## Failures"):
        assert section in md
    assert "<script>" not in md and "&lt;script&gt;" in md
    shared = result(backend("A", {}, notes=("same note", "own note")),
                    backend("B", {}, notes=("same note",)))
    notes_md = render_markdown(analyse(shared))
    assert "- **A, B**: same note" in notes_md and "- **A**: own note" in notes_md


def test_a_metric_undefined_on_some_seeds_shows_its_n() -> None:
    doc = analyse(result(backend("A", {"retention": [1.0, None, 0.9, 0.95, None]})))
    # recall@1, recall@1 after (beside retention in the headline), retention: a share,
    # its interval clipped to [0, 1]
    assert ("| A | 5/5 | 0.500 ± 0.000 | 0.500 ± 0.000 | 0.950 [0.826, 1.000] (n=3) |"
            in render_markdown(doc))


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: set[str] = set()
        self.attrs: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.tags.add(tag)
        self.attrs |= {name for name, _ in attrs}


def test_html_holds_only_the_tags_the_renderer_writes() -> None:
    parser = _Tags()
    parser.feed(render_html(_doc(), plots={"bars": b"x", "quality-latency": b"y"}))
    assert parser.tags <= {"html", "head", "meta", "title", "style", "body", "h1", "h2", "h3",
                           "p", "table", "thead", "tbody", "tr", "th", "td", "img", "ul",
                           "li", "b", "code", "pre", "div",  # div: a table's scroll box
                           "span"}  # span: a cell's mean and interval, which may wrap
    assert parser.attrs <= {"lang", "charset", "name", "content", "class", "alt", "src"}


def test_caveats_come_from_the_run() -> None:
    text = "\n".join(caveats(_doc()))
    assert "Synthetic facts" in text and "`templated`" in text
    assert "5 seeds" in text and "0.0625" in text and "Holm's correction over all" in text
    assert "opaque ids" in text  # what backends were given
    assert "`rag` reports no gateRecall, falseRefusals (no `gate` capability)" in text
    # reinforceΔ reads ranks, needs no capability: only the data can leave it undefined
    assert "reinforceΔ (the scenario asks no reinforced and control facts" in text
    assert "reinforceΔ (no `strength` capability)" not in text
    assert "`rag` keeps no provenance, so it scores 0" in text
    assert "`rag` failed on 1 of 5 seeds" in text
    assert "ranking, not erasure" in text and "staleRate" in text
    assert "One machine: Linux-test, 2 CPUs" in text
    natural = result(backend("A", {}), generator="natural")
    natural.scenario.data_stats = {
        str(s): {"question_overlap": {"probe": {"n": 120, "zero_overlap_share": 0.25,
                                                "share": {"mean": 0.4 + s / 100}}}}
        for s in range(5)}
    natural.scenario.caveats = continual_caveats("natural")(
        {"consolidate": False}, natural.scenario.data_stats)  # as the run writes them
    text_natural = "\n".join(caveats(analyse(natural)))
    assert "Synthetic facts" not in text_natural
    assert "shares on average 42% of its content words" in text_natural
    assert "25% of questions share none (mean over 5 seed(s))" in text_natural
    assert "Word overlap" not in text
    one = analyse(result(backend("A", {}, n_seeds=1), n_seeds=1))
    assert "say nothing about other draws" in "\n".join(caveats(one))


def test_html_escapes_everything_and_is_self_contained() -> None:
    page = render_html(_doc(), plots={"bars": b"\x89PNG-bars", "quality-latency": b"\x89PNG-q"})
    assert "<script" not in page.lower()
    assert page.count("&lt;script&gt;") >= 3  # the question, the error and the note
    assert "Who does &lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; work for?" in page
    assert 'src="data:image/png;base64,iVBORy1iYXJz"' in page
    assert not re.search(r"""(src|href)=["']?(https?:|//)""", page)
    assert "<link" not in page and "@import" not in page
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert re.search(r'<td class="ahead">ahead \+0\.[34]\d\d</td>', page)


def test_html_draws_real_plots() -> None:
    page = render_html(_doc())
    pngs = re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', page)
    assert len(pngs) == 2 and all(p.startswith("iVBORw0KGgo") for p in pngs)  # PNG magic


def test_csv_has_a_row_per_backend_and_seed() -> None:
    rows = list(csv.DictReader(io.StringIO(render_csv(_doc()))))
    # in the order shown: each end-to-end latency before its store part
    shown = qualify_latency([m.spec for m in CONTINUAL_METRICS], None)
    columns = (*FIXED_COLUMNS, *(m.name for m in shown))
    assert len(rows) == 10 and tuple(rows[0]) == columns
    rag = [r for r in rows if r["backend"] == "rag"]
    assert rag[0]["gateRecall"] == "" and float(rag[0]["recall1_before"]) == 65 / 120
    assert rag[0]["structured"] == ""  # a text-only row
    assert rag[4]["status"] == "failed" and rag[4]["recall1_before"] == ""
