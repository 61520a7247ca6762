"""The runner checks every query answer as it checks writes: a broken answer fails the
pair with a ContractError naming the backend, and the other pairs still run."""

from __future__ import annotations

from pathlib import Path

import broken_backends
import pytest

from memory_bench.harness.runner import RunConfig
from memory_bench.plugins import load_plugins
from memory_bench.plugins.selection import select_backends
from memory_bench.scenarios.spec import load_scenario
from memory_bench.session.pipeline import execute

PLUGINS = load_plugins([("broken_backends", broken_backends)], autoload=False)


def _run(tmp_path: Path, *specs: str):
    cfg = RunConfig(plugins=PLUGINS, selections=select_backends(PLUGINS.registry, list(specs)),
                    scenario=load_scenario("smoke", {"stream": "phased"}), seeds=[0],
                    out=tmp_path / "r.json", executor="local")
    return {b.label: b.runs[0] for b in execute(cfg).backends}


@pytest.mark.parametrize(("name", "error"), [
    ("kit-too-many", "ContractError: backend kit-too-many: query returned "),
    ("kit-stranger", "ContractError: backend kit-stranger: query returned '0', an id it was "
                     "never given"),
    ("kit-worst-first", "scores increase (hits come best first)"),
    ("kit-nan", "ContractError: backend kit-nan: hit 0 "),
])
def test_a_broken_answer_fails_the_pair_naming_the_backend(tmp_path: Path, name: str,
                                                           error: str) -> None:
    runs = _run(tmp_path, name, "kit-good")
    bad, good = runs[name], runs["kit-good"]
    assert bad.status == "failed" and error in bad.error, bad.error
    assert bad.metrics == {} or all(v is None for v in bad.metrics.values())
    assert bad.cleanup is not None and bad.cleanup.ok  # its items were removed all the same
    assert good.status == "ok", good.error


def test_too_many_hits_are_an_error_not_a_silent_truncation(tmp_path: Path) -> None:
    run = _run(tmp_path, "kit-too-many")["kit-too-many"]
    assert "for k=5 (at most k)" in run.error


def test_a_persistent_store_may_return_its_users_own_items(tmp_path: Path) -> None:
    """A live store holds items the run never wrote, outside the run's prefix: they count
    as misses, not as a broken contract."""
    run = _run(tmp_path, "kit-live")["kit-live"]
    assert run.status == "ok", run.error
    returned = {i for p in run.records.probes for i in p.returned}
    assert broken_backends.LiveStore.NOTE in returned
