"""The plugin author's guide is true: the example plugin runs the protocol, and the
backend author's page (docs/writing-a-backend.md) shows its code verbatim."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

from memory_bench.harness.runner import RunConfig
from memory_bench.plugins import load_plugins
from memory_bench.plugins.selection import select_backends
from memory_bench.scenarios.spec import load_scenario
from memory_bench.session.pipeline import execute
from memory_bench.testing import conformance_tests

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "minimal-plugin"


@pytest.fixture
def keyword_plugin(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.syspath_prepend(str(EXAMPLE / "src"))
    yield importlib.import_module("memory_bench_keyword.plugin")
    sys.modules.pop("memory_bench_keyword.plugin", None)
    sys.modules.pop("memory_bench_keyword", None)


def test_example_plugin_runs_the_protocol(keyword_plugin, tmp_path: Path) -> None:
    loaded = load_plugins([("keyword", keyword_plugin)], autoload=False)
    cfg = RunConfig(
        plugins=loaded,
        selections=select_backends(loaded.registry, ["keyword:min_overlap=0.1"]),
        scenario=load_scenario("smoke"),
        seeds=[0],
        out=tmp_path / "r.json",
        executor="local",  # not what this test is about; the isolation tests fork
    )
    result = execute(cfg)
    run = result.backends[0].runs[0]
    assert run.status == "ok", run.error
    m = run.metrics
    assert m["recall5_before"] >= 0.9
    assert m["provenanceAccuracy"] == 1.0
    assert m["gateRecall"] is None  # no gate capability: not supported, not 0
    assert run.cleanup is not None and run.cleanup.ok


@pytest.fixture
def memory_bench_plugins(keyword_plugin):
    """The kit checks the example as its author would, without installing it."""
    return load_plugins([("keyword", keyword_plugin)], autoload=False)


test_example_plugin_keeps_every_promise = conformance_tests("keyword", "keyword:min_overlap=0.2")


def test_docs_show_the_example_verbatim() -> None:
    page = (ROOT / "docs" / "writing-a-backend.md").read_text()
    for name in ("src/memory_bench_keyword/plugin.py", "pyproject.toml"):
        code = (EXAMPLE / name).read_text()
        assert code.strip() in page, f"docs/writing-a-backend.md's copy of {name} is out of date"


SCENARIO_EXAMPLE = ROOT / "examples" / "scenario-plugin"


@pytest.fixture
def diary_plugin(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.syspath_prepend(str(SCENARIO_EXAMPLE / "src"))
    yield importlib.import_module("memory_bench_diary.plugin")
    sys.modules.pop("memory_bench_diary.plugin", None)
    sys.modules.pop("memory_bench_diary", None)


def test_example_scenario_plugin_runs_with_the_example_backend(
        diary_plugin, keyword_plugin, tmp_path: Path) -> None:
    from memory_bench.scenarios.spec import resolve_scenario

    loaded = load_plugins([("diary", diary_plugin), ("keyword", keyword_plugin)],
                          autoload=False)
    scenario = resolve_scenario(loaded.scenarios, {"name": "diary", "generator": "diary",
                                                   "days": 30, "questions": 10}, "test")
    cfg = RunConfig(plugins=loaded, selections=select_backends(loaded.registry, ["keyword"]),
                    scenario=scenario, seeds=[0, 1], out=tmp_path / "r.json",
                    executor="local")
    result = execute(cfg)
    run = result.backends[0].runs[0]
    assert run.status == "ok", run.error
    assert run.metrics["hit_at_1"] == 1.0  # the place names the entry: a keyword finds it
    assert {"hit_at_1/old", "hit_at_1/recent"} <= set(run.metrics)
    assert [m.name for m in result.metrics] == ["hit_at_1"]
    assert result.scenario.caveats[0].startswith("A teaching example")


def test_docs_show_the_scenario_example_verbatim() -> None:
    page = (ROOT / "docs" / "writing-a-scenario.md").read_text()
    for name in ("src/memory_bench_diary/plugin.py", "pyproject.toml"):
        code = (SCENARIO_EXAMPLE / name).read_text()
        assert code.strip() in page, f"docs/writing-a-scenario.md's copy of {name} is out of date"
