"""Runbooks (issue 24, item 3): the TOML format, its errors, export and the round trip
to identical metrics, and the documented example."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scenario_helpers import PLUGINS, load_scenario, script

from memory_bench.harness.pair import PairSpec, run_pair
from memory_bench.metrics.curve import step_curve, summarize_curves
from memory_bench.records.records import ProbeRecord, Records
from memory_bench.scenarios.runbook.format import RunbookError, parse
from memory_bench.scenarios.runbook.plugin import generate
from memory_bench.scenarios.runbook.writer import dumps, script_runbook
from memory_bench.scenarios.script import Forget, Probe, Write
from memory_bench.session.export import export_script

DOC = Path(__file__).resolve().parents[1] / "docs" / "runbooks.md"
from memory_bench.metrics.latency import TIMINGS as TIMED  # noqa: E402


def _example() -> str:
    (block,) = re.findall(r"```toml\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    return block


def _pair(scenario: dict, backend: str):
    from memory_bench.plugins.manager import default_plugins

    spec = PairSpec(run_id="t", index=0, label=backend, backend=backend, scenario=scenario,
                    seed=0)
    run = run_pair(spec, plugins=default_plugins())
    assert run.ok, run.error
    return run


def _runbook_ref(path: Path) -> dict:
    return {"name": "runbook", "generator": "runbook", "params": {"path": str(path)}}


@pytest.mark.slow
def test_the_documented_example_runs_and_scores_as_the_doc_says(tmp_path: Path) -> None:
    path = tmp_path / "example.toml"
    path.write_text(_example(), encoding="utf-8")
    run = _pair(_runbook_ref(path), "bm25")
    m = run.metrics
    assert (m["recall1_before"], m["retention"], m["updateWinRate"]) == (1.0, 1.0, 1.0)
    assert m["forgottenReturned"] == 0.0
    forgets = run.records.forgets
    assert [f.removed for f in forgets] == [1, 1, 2]  # lena; pet-register's tobias; both Maras
    assert sorted(p.tag for p in run.records.probes) == [
        "forgotten", "forgotten", "forgotten", "probe", "probe", "reprobe", "update"]
    # the curve: the first two asks, the update ask, the last block (one scored ask of four)
    assert [(int(s), int(w), int(n)) for s, w, n, _ in run.curve] == [
        (0, 4, 2), (1, 5, 1), (2, 7, 1)]


def _broken(old: str, new: str) -> str:
    text = _example()
    assert old in text, old
    return text.replace(old, new, 1)


@pytest.mark.parametrize(("old", "new", "says"), [
    ('gold = ["ivo"]', 'gold = ["ivoo"]', "step 3 (line 31), ask: gold 'ivoo' names no item"),
    ("days = 30", "weeks = 30", "step 4 (line 37), advance: unknown field 'weeks'"),
    ('op = "advance"', 'op = "sleep"', "step 4 (line 37): op 'sleep' is not one of"),
    ("start = 2026-03-01T09:00:00Z", "start = 2026-03-01T09:00:00",
     "field 'start' must be a date-time with a UTC offset, got 2026-03-01T09:00:00 (no offset"),
    ('format = "memory-bench-runbook/1"', 'format = "runbook/0"', "is not 'memory-bench"),
    ('[[step]]\nop = "advance"', '[[step]\nop = "advance"', "not TOML: "),
    ('id = "ivo"', 'id = "mara"', "item 2: id 'mara' is already used"),
    ('source = "pet-register"\n\n[[step]]\nop = "ask"',
     'source = "pet-register"\ntimestamp = 5\n\n[[step]]\nop = "ask"',
     "field 'timestamp' must be a date-time"),
    ('text = "Ivo Brandt was born in the mountain town of Kellsport."\n',
     "", "step 1 (line 6), write, item 2: missing field 'text'"),
    ('ids = ["mara", "mara-2"]', 'ids = ["mara", "nobody"]', "id 'nobody' names no item"),
    ('forgotten = ["lena"]', 'forgotten = ["ivo"]', "forgotten 'ivo' is not forgotten by an"),
    ('gold = []\nforgotten = ["lena"]', 'gold = ["lena"]',
     "gold 'lena' was forgotten earlier"),
    ('gold = []\nforgotten = ["lena"]', "gold = []", "gold is empty and nothing is forgotten"),
    ('source = "pet-register"\n\n[[step]]\nop = "forget"\nids',
     'source = "pet-registry"\n\n[[step]]\nop = "forget"\nids',
     "source 'pet-registry' has no item left to forget"),
    ("days = 30", "days = -1", "the clock only moves forward"),
    ("days = 30", "days = nan", "the clock only moves forward"),
])
def test_a_bad_runbook_is_one_line_naming_the_step_its_line_and_the_field(
        old: str, new: str, says: str) -> None:
    with pytest.raises(RunbookError) as err:
        parse(_broken(old, new), "mine.toml")
    assert says in str(err.value) and str(err.value).startswith("mine.toml")
    assert "\n" not in str(err.value)


def test_a_bad_runbook_exits_2_and_writes_nothing(cli, tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(_broken('gold = ["ivo"]', 'gold = ["ivoo"]'), encoding="utf-8")
    out = cli("run", "--backend", "bm25", "--scenario", "runbook", "--set", f"path={path}",
              "--out", str(tmp_path / "r.json"))
    assert out.returncode == 2
    assert out.stderr.strip().splitlines() == [
        "memory-bench: error: scenario runbook: bad.toml: step 3 (line 31), ask: gold 'ivoo' "
        "names no item written earlier in this episode"]
    assert not (tmp_path / "r.json").exists()


def test_validate_checks_a_runbook(cli, tmp_path: Path) -> None:
    good, bad = tmp_path / "good.toml", tmp_path / "bad.toml"
    good.write_text(_example(), encoding="utf-8")
    bad.write_text(_broken("days = 30", "weeks = 30"), encoding="utf-8")
    out = cli("validate", str(good))
    assert out.returncode == 0 and out.stdout.strip() == (
        "good.toml: valid memory-bench-runbook/1: 14 step(s), 7 item(s), 7 ask(s), "
        "3 forget(s), 1 episode(s)")
    out = cli("validate", str(bad))
    assert out.returncode == 2 and "step 4 (line 37), advance: unknown field 'weeks'" in out.stdout


def test_an_exported_runbook_reads_back_as_the_same_script(tmp_path: Path) -> None:
    spec = load_scenario("smoke")
    out = tmp_path / "smoke.toml"
    steps = export_script(PLUGINS, spec, 0, out, "runbook")
    doc = tomllib.loads(out.read_text(encoding="utf-8"))
    assert doc["format"] == "memory-bench-runbook/1" and len(doc["step"]) == steps
    assert doc["made_by"]["scenario"] == "smoke" and doc["made_by"]["seed"] == 0
    original, again = script(spec, 0), generate({"path": str(out)}, 0)
    assert len(original.steps) == len(again.steps) and original.k == again.k
    ids: dict[str, str] = {}
    for a, b in zip(original.steps, again.steps, strict=True):
        assert type(a) is type(b) and a.tag == b.tag and a.needs == b.needs
        if isinstance(a, Write):
            for x, y in zip(a.items, b.items, strict=True):
                ids[x.id] = y.id
                assert (x.text, x.source, x.timestamp, x.region, x.tags) == (
                    y.text, y.source, y.timestamp, y.region, y.tags)
            assert a.categories == b.categories
        elif isinstance(a, Probe):
            assert (a.question, a.key, a.category) == (b.question, b.key, b.category)
            for name in ("expected", "outrank", "forgotten"):
                assert tuple(ids[i] for i in getattr(a, name)) == getattr(b, name), name
        elif isinstance(a, Forget):
            assert (tuple(ids[i] for i in a.ids), a.source) == (b.ids, b.source)
            assert tuple(ids[i] for i in a.forgotten) == b.forgotten
    assert any(isinstance(s, Forget) for s in again.steps)
    with pytest.raises(Exception, match="never overwrites"):
        export_script(PLUGINS, spec, 0, out, "runbook")


_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)


@settings(max_examples=60, deadline=None)
@given(text=_TEXT, source=_TEXT.filter(bool), question=_TEXT.filter(str.strip))
def test_every_runbook_we_write_reads_back(text: str, source: str, question: str) -> None:
    """Quotes, backslashes, control characters, newlines and non-ASCII survive tomli-w
    and tomllib as written."""
    from memory_bench.contract.items import Item
    from memory_bench.scenarios.script import Script

    spec = script(load_scenario("smoke"), 0)
    first = spec.steps[0]
    assert isinstance(first, Write)
    item = Item(first.items[0].id, text, source, first.items[0].timestamp)
    s = Script((Write((item,), "seed"), Probe(question, (item.id,), "probe", key="q")),
               k=5, seed=0)
    book = parse(dumps(script_runbook(s, {"note": question})))
    (write, ask) = book.steps
    assert (write.items[0].text, write.items[0].source) == (text, source)
    assert write.items[0].timestamp == item.timestamp and ask.ask.question == question


@pytest.mark.slow
@pytest.mark.parametrize("name", ["default", "hard"])
def test_running_an_export_gives_the_scenario_s_metrics(name: str, tmp_path: Path) -> None:
    small = {"facts": 30, "noise": 80, "updates": 8, "corroborations": 2,
             "reinforce_cells": 3, "reinforce_queries": 2}
    if name == "hard":
        small["update_distractors"] = 8
    spec = load_scenario(name, small)
    out = tmp_path / f"{name}.toml"
    export_script(PLUGINS, spec, 0, out, "runbook")
    a, b = _pair(spec.ref(), "bm25"), _pair(_runbook_ref(out), "bm25")
    assert set(a.metrics) == set(b.metrics)
    assert {k: v for k, v in a.metrics.items() if k not in TIMED} == {
        k: v for k, v in b.metrics.items() if k not in TIMED}
    assert a.metrics["forgottenReturned"] is not None and a.curve == b.curve
    for metric in a.outcomes:
        if metric not in TIMED:
            assert a.outcomes[metric]["values"] == b.outcomes[metric]["values"], metric


def test_the_curve_is_recall_at_1_per_ask_step_over_the_stream() -> None:
    def p(expected: list[str], returned: list[str]) -> ProbeRecord:
        return ProbeRecord("probe", "q", expected, returned, [1.0] * len(returned), 1.0)

    recs = Records(probes=[p(["a"], ["a"]), p(["b"], ["c", "b"]), p([], ["x"]),
                           p(["a"], ["a"]), p([], [])],
                   blocks=[[0, 2, 10], [2, 1, 12], [3, 2, 20]])
    curve = step_curve(recs)
    assert curve == [[0, 10, 2, 0.5], [2, 20, 1, 1.0]]  # a block with no gold is no point
    summary = summarize_curves([curve, [[0, 10, 2, 1.0]]])
    assert summary[0][:4] == [0, 10.0, 2, 0.75] and summary[0][4] == pytest.approx(0.353553,
                                                                                 abs=1e-6)
    assert summary[1] == [2, 20.0, 1, 1.0, 0.0]


def test_the_report_shows_the_curve_and_the_result_file_keeps_it() -> None:
    from constructed_results import backend, result

    from memory_bench.render.html import render_html
    from memory_bench.render.markdown import render_markdown
    from memory_bench.results.model import Result

    a, b = backend("A", {}, n_seeds=2), backend("B", {}, n_seeds=2)
    for n, run in enumerate(a["runs"]):
        run["curve"] = [[0, 10, 4, 0.5 + n * 0.25], [1, 30, 4, 1.0]]
    b["runs"][0]["curve"] = [[0, 10, 4, 0.0]]
    r = result(a, b, n_seeds=2)
    assert r.backends[0].curve == [[0, 10.0, 2, 0.625, pytest.approx(0.176777, abs=1e-6)],
                                   [1, 30.0, 2, 1.0, 0.0]]
    again = Result.from_dict(r.to_dict())
    assert again.backends[0].curve == r.backends[0].curve
    assert again.backends[0].runs[1].curve == [[0, 10, 4, 0.75], [1, 30, 4, 1.0]]
    md = render_markdown(r)
    assert "### Recall@1 over the stream" in md
    assert "| backend | step 0 (10) | step 1 (30) |" in md
    assert "| A | 0.625 | 1.000 |" in md and "| B | 0.000 | — |" in md
    assert "Recall@1 over the stream" in render_html(r, plots={})
    bad = r.to_dict()
    bad["backends"][0]["runs"][0]["curve"] = [[0, 10, 4]]
    with pytest.raises(Exception, match="curve"):
        Result.from_dict(bad)
