"""Latency the right way round (issue 38): every format leads with the end-to-end latency
and never shows the store's part under a plain ``p50 ms``, for a run written today and
for a file written when ``p50 ms`` was the store's part alone."""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest
from constructed_results import backend, result

from memory_bench.analysis.compare import analyse
from memory_bench.metrics.continual import CONTINUAL_METRICS
from memory_bench.metrics.latency import qualify_latency
from memory_bench.render.csvfile import render_csv
from memory_bench.render.html import render_html
from memory_bench.render.markdown import render_headline, render_markdown
from memory_bench.render.table import render_table
from memory_bench.results.model import Result
from memory_bench.site.pages import run_table

# A latency or ingest label, with what precedes it on its line.
_LATENCY = re.compile(r"(?:p50/)?p(?:50|95) ms|ingest/s")
_QUALIFIERS = ("e2e", "store", "encode", "forget", "call")


def unqualified(text: str) -> list[str]:
    """Each latency or ingest label not preceded by a word that says which part it is."""
    bad = []
    for m in _LATENCY.finditer(text):
        before = text[max(0, m.start() - 12):m.start()].rstrip().lower()
        if not before.endswith(_QUALIFIERS):
            bad.append(text[max(0, m.start() - 30):m.end()])
    return bad


def _per_seed() -> dict[str, list[float | None]]:
    # a store-only figure far below its end-to-end one (faiss-rag's encode-once shape)
    return {"latency_p50_ms": [0.075] * 5, "e2e_p50_ms": [16.3] * 5,
            "latency_p95_ms": [0.15] * 5, "e2e_p95_ms": [20.0] * 5,
            "encode_p50_ms": [16.2] * 5, "encode_p95_ms": [19.8] * 5}


def _encode_once(old_labels: bool) -> Result:
    """A result under encode once; ``old_labels``: the declarations as files before
    issue 38 held them (the call's latency labelled ``p50 ms`` with the plot's axis)."""
    r = result(backend("faiss-rag", _per_seed()), backend("rshl", {"e2e_p50_ms": [0.83] * 5,
                                                                    "latency_p50_ms": [0.83] * 5}))
    doc: dict[str, Any] = copy.deepcopy(r.to_dict())
    doc["execution"] = {"encode": "once", "cache": "off"}
    if old_labels:
        for m in doc["metrics"]:
            if m["name"] in ("latency_p50_ms", "latency_p95_ms"):
                m.update(label=m["label"].replace("store ", "").replace("call ", ""),
                         section="results", terminal=True)
            if m["name"] == "latency_p50_ms":
                m["axis"] = "latency"
            if m["name"].startswith(("e2e_", "encode_")):
                m.update(section="other", terminal=False, axis=None)
            if m["name"] == "ingest_items_per_s":
                m["label"] = "ingest/s"
    return analyse(Result.from_dict(doc))


def _plot_axis_labels(monkeypatch: pytest.MonkeyPatch, r: Result) -> list[str]:
    from matplotlib.axes import Axes

    from memory_bench.render.plots import render_plots

    seen: list[str] = []
    original = Axes.set_xlabel

    def spy(self: Axes, label: str, *a: Any, **k: Any) -> Any:
        seen.append(label)
        return original(self, label, *a, **k)

    monkeypatch.setattr(Axes, "set_xlabel", spy)
    assert "quality-latency" in render_plots(r)
    return seen


@pytest.mark.parametrize("old_labels", [False, True], ids=["today", "before-issue-38"])
def test_every_format_leads_with_e2e_and_qualifies_the_store(
        old_labels: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    r = _encode_once(old_labels)
    outputs = {"terminal": render_table(r, width=400), "markdown": render_markdown(r),
               "headline": render_headline(r), "html": render_html(r, plots={}),
               "site": run_table(r)}
    for name, text in outputs.items():
        assert unqualified(text) == [], name
        assert "e2e p50 ms" in text and "store p50 ms" in text, name
        # e2e first, its store part beside it
        assert text.index("e2e p50 ms") < text.index("store p50 ms"), name
    # the headline row: faiss-rag's end-to-end figure is shown, not its store's alone
    assert "16.30" in outputs["headline"] and "0.075" in outputs["headline"]
    # the verdicts compare end to end as well
    assert re.search(r"first.*second.*e2e p50 ms.*store p50 ms", outputs["markdown"])
    # the CSV keeps every part under its own name
    head = render_csv(r).splitlines()[0].split(",")
    assert {"e2e_p50_ms", "latency_p50_ms", "encode_p50_ms"} <= set(head)
    assert _plot_axis_labels(monkeypatch, r)[-1].startswith("e2e p50 ms")


def test_the_check_catches_a_store_latency_shown_plain() -> None:
    assert unqualified("| backend | p50 ms | ingest/s |") == ["| backend | p50 ms",
                                                              "| backend | p50 ms | ingest/s"]
    assert unqualified("<th>e2e p50 ms</th><th>store p50 ms</th> e2e p50/p95 ms") == []


def test_qualify_is_idempotent_and_knows_the_encode_mode() -> None:
    specs = [m.spec for m in CONTINUAL_METRICS]
    once = qualify_latency(specs, "once")
    assert qualify_latency(once, "once") == once
    by = {m.name: m for m in once}
    assert by["e2e_p50_ms"].axis == "latency" and by["latency_p50_ms"].axis is None
    assert by["latency_p50_ms"].label == "store p50 ms"
    assert by["ingest_items_per_s"].label == "store ingest/s"
    # backends encoded their own questions: the call is end to end, e2e leads, the call
    # (equal to it) goes to the other metrics
    own = {m.name: m for m in qualify_latency(specs, "per-backend")}
    assert own["latency_p50_ms"].label == "call p50 ms"
    assert own["latency_p50_ms"].section == "other"
    assert own["e2e_p50_ms"].section == "results"
    assert own["ingest_items_per_s"].label == "e2e ingest/s"
    # a file from before the parts were declared: the call is all there is
    bare = [s for s in specs if not s.name.startswith(("e2e_", "encode_"))]
    assert {m.name: m.label for m in qualify_latency(bare, None)}["latency_p50_ms"] \
        == "e2e p50 ms"
    assert {m.name: m.label for m in qualify_latency(bare, "once")}["latency_p50_ms"] \
        == "store p50 ms"


def test_ingest_end_to_end_is_derived_beside_the_stores_rate() -> None:
    from memory_bench.analysis.compare import summarize_metric
    from memory_bench.results.derived import E2E_INGEST, add_e2e_ingest

    r = _encode_once(old_labels=True)
    r.execution["encoders"] = {"m onnx": {"read_by": ["faiss-rag"], "item_texts_per_s": 250.0}}
    assert add_e2e_ingest(r) and not add_e2e_ingest(r)  # once
    summarize_metric(r, E2E_INGEST)
    # faiss-rag: 1 / (1/1000 + 1/250) = 200 items/s; rshl reads no encoder: its own 1000
    by = {b.label: b.summary[E2E_INGEST].mean for b in r.backends}
    assert by == {"faiss-rag": pytest.approx(200.0), "rshl": pytest.approx(1000.0)}
    text = render_table(r, width=400)
    assert unqualified(text) == []
    assert text.index("e2e ingest/s") < text.index("store ingest/s")
    assert not any(c.metric == E2E_INGEST for c in analyse(r).comparisons or [])
