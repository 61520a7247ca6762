"""The Python API: ``memory_bench.run(...)`` returns the analysed, typed Result and
writes the same file as ``memory-bench run``; bad input raises before anything is
written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import memory_bench
from memory_bench.errors import BadInput
from memory_bench.results.model import Result

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def plugins():
    import fake_backends

    from memory_bench.plugins import load_plugins

    return load_plugins([("fake_backends", fake_backends)], autoload=False)


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    import shutil

    shutil.copytree(ROOT / "scenarios", tmp_path / "scenarios")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_run_returns_the_analysed_result(here: Path, plugins) -> None:
    result = memory_bench.run(scenario="smoke", backends=["fake-perfect", "fake-noprov"],
                              seeds=2, sets={"noise": 30}, out="r.json", plugins=plugins)
    assert isinstance(result, Result) and result.status == "complete"
    assert [b.label for b in result.backends] == ["fake-perfect", "fake-noprov"]
    assert result.seeds == [0, 1] and result.scenario.params["noise"] == 30
    perfect = result.backend("fake-perfect")
    assert perfect is not None  # summarised: the mean of its seeds' own values
    seeds = [r.metrics["recall1_before"] for r in perfect.runs]
    assert perfect.summary["recall1_before"].mean == pytest.approx(sum(seeds) / len(seeds))
    assert result.comparisons is not None  # analysed: paired verdicts are there
    doc = json.loads((here / "r.json").read_text())
    assert doc["run_id"] == result.run_id and doc["status"] == "complete"


def test_run_with_local_execution_and_one_seed(here: Path, plugins) -> None:
    result = memory_bench.run(scenario="smoke", backends=["fake-perfect"], seed=3,
                              execution=memory_bench.api.Execution(executor="local"),
                              plugins=plugins)
    assert result.seeds == [3] and result.execution["executor"] == "local"
    assert (here / "runs" / f"{result.run_id}.json").is_file()


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"backends": ["nope"]}, "unknown backend 'nope'"),
    ({"backends": ["fake-perfect"], "sets": {"flavour": 1}}, "unknown parameter 'flavour'"),
    ({"backends": ["fake-perfect"], "scenario": "nope"}, "unknown scenario 'nope'"),
])
def test_bad_input_raises_and_writes_nothing(here: Path, plugins, kwargs: dict,
                                             message: str) -> None:
    with pytest.raises(BadInput, match=message):
        memory_bench.run(**{"scenario": "smoke", **kwargs}, plugins=plugins)
    assert not (here / "runs").exists()
