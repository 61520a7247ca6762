"""The open protocol: scenario plugins, declared metrics, typed results, plain-data pairs."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import fake_backends
import pytest

from memory_bench.contract.capabilities import Capability
from memory_bench.harness.pair import PairSpec, run_pair
from memory_bench.metrics.spec import compute_metrics
from memory_bench.plugins import load_plugins
from memory_bench.results.io import load_result
from memory_bench.scenarios.script import UNBOUND_PREFIX, Probe, Script, ScriptError, Write

ROOT = Path(__file__).resolve().parent.parent
REPORTS = ROOT / "reports"
PUBLISHED = sorted(REPORTS.glob("2026-11-29-*.json.gz"))
PLUGIN_ENV = {"MEMORY_BENCH_PLUGINS": "fake_backends,scenario_plugin"}


def test_scenarios_json_lists_generators_files_and_their_plugin(cli) -> None:
    out = cli("scenarios", "--json", env_extra=PLUGIN_ENV)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    gens = {g["name"]: g for g in doc["generators"]}
    assert {"templated", "natural", "colours"} <= set(gens)
    assert gens["templated"]["plugin"].startswith("memory_bench.scenarios.builtin")
    assert gens["colours"]["plugin"].startswith("scenario_plugin")
    facts = next(p for p in gens["templated"]["parameters"] if p["name"] == "facts")
    assert facts == {"name": "facts", "type": "int", "default": 120,
                     "help": "N: facts written and probed (seed, probe)", "choices": None,
                     "minimum": 1,
                     "maximum": 1_000_000}
    files = {f["name"]: f for f in doc["files"]}
    assert {"default", "natural", "smoke"} <= set(files)
    assert files["smoke"]["generator"] == "templated" and files["smoke"]["sets"]["facts"] == 12


COLOURS = 'name = "colours"\ngenerator = "colours"\npeople = 8\nseeds = 2\n'


def test_a_third_party_scenario_runs_end_to_end_with_its_own_metrics(cli) -> None:
    (cli.cwd / "scenarios" / "colours.toml").write_text(COLOURS)
    out = cli("run", "--backend", "fake-perfect", "--backend", "fake-noprov",
              "--scenario", "colours", "--out", "r.json", "--quiet", env_extra=PLUGIN_ENV)
    assert out.returncode == 0, out.stderr
    header = out.stdout.splitlines()[0]
    assert "found@1" in header and "in top-k" in header and "recall@1" not in header
    doc = load_result(cli.cwd / "r.json")
    assert [m.name for m in doc.metrics] == ["found", "in_top"]
    run = doc.backends[0].runs[0]
    assert run.metrics["found"] == 1.0
    assert run.metrics["found/direct"] == 1.0 and run.metrics["found/indirect"] == 1.0
    assert doc.scenario.caveats == ["A toy plugin: 8 people."]
    md = cli("report", "r.json", env_extra=PLUGIN_ENV).stdout
    assert "### By category" in md and "| backend | direct | indirect |" in md
    assert "A toy plugin: 8 people." in md
    csv = cli("report", "r.json", "--format", "csv").stdout  # no plugin needed to render
    assert csv.splitlines()[0].endswith(",found,in_top,found/direct,found/indirect")


@pytest.mark.parametrize(("sets", "message"), [
    (["people=7"], "scenario colours: people must be even"),
    (["people=0"], "parameter people: 0 is below 1"),
    (["weight=nan"], "parameter weight: NaN is not a number it accepts"),
    (["weight=inf"], "parameter weight: inf is not finite"),
    (["flavour=1"], "unknown parameter 'flavour'"),
])
def test_plugin_parameters_are_validated_like_backend_options(cli, sets, message) -> None:
    (cli.cwd / "scenarios" / "colours.toml").write_text(COLOURS)
    args = [a for s in sets for a in ("--set", s)]
    out = cli("run", "--backend", "fake-perfect", "--scenario", "colours", *args,
              env_extra=PLUGIN_ENV)
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], out.stderr
    assert not (cli.cwd / "runs").exists()


# -- the typed result ---------------------------------------------------------------------


def _damaged(doc: dict, how: str) -> str:
    d = json.loads(json.dumps(doc))
    if how == "backends-string":
        d["backends"] = "rshl"
    elif how == "no-label":
        del d["backends"][0]["label"]
    elif how == "scenario-list":
        d["scenario"] = [1, 2]
    elif how == "metric-string":
        d["backends"][0]["runs"][0]["metrics"]["recall1_before"] = "x"
    elif how == "deep-record":
        d["backends"][0]["runs"][0]["records"]["probes"][3]["returned"] = 5
    elif how == "seeds-string":
        d["seeds"] = "0,1,2"
    elif how == "pairs-elsewhere":
        d["status"], d["pairs"] = "interrupted", "../../etc"
    elif how == "nan":
        return json.dumps(d).replace('"latency_ms":', '"latency_ms":NaN,"x":', 1)
    return json.dumps(d)


@pytest.mark.parametrize(("how", "path"), [
    ("backends-string", "backends: expected an array, got \"rshl\""),
    ("no-label", "backends[0].label: missing"),
    ("scenario-list", "scenario: expected an object, got an array"),
    ("metric-string", "backends[0].runs[0].metrics.recall1_before: expected a number or null, "
                      "got \"x\""),
    ("deep-record", "backends[0].runs[0].records.probes[3].returned: expected an array, got 5"),
    ("seeds-string", "seeds: expected an array, got \"0,1,2\""),
    ("pairs-elsewhere", "pairs: expected the name of a directory beside the result, "
                        "got '../../etc'"),
    ("nan", "records.probes[0].latency_ms: expected a number, got NaN"),
])
def test_a_damaged_result_is_refused_with_its_json_path(cli, how: str, path: str) -> None:
    assert cli("run", "--backend", "fake-perfect", "--scenario", "smoke", "--seed", "0",
               "--out", "good.json", "--quiet").returncode == 0
    doc = json.loads((cli.cwd / "good.json").read_text())
    (cli.cwd / "bad.json").write_text(_damaged(doc, how))
    for args in (["report", "bad.json"], ["compare", "good.json", "bad.json"],
                 ["run", "--resume", "bad.json"]):
        out = cli(*args)
        assert out.returncode == 2, (args, out.stderr)
        lines = out.stderr.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in out.stderr, out.stderr
        assert "result file bad.json: " in lines[0] and path in lines[0], lines[0]


def test_deep_nesting_is_refused_not_a_recursion_error(cli) -> None:
    (cli.cwd / "deep.json").write_text('{"schema": "memory-bench/2.0", "x": ' + "[" * 200_000)
    (cli.cwd / "deep2.json").write_text('{"schema": "memory-bench/2.0", "manifest": '
                                        + "[" * 100_000 + "]" * 100_000 + "}")
    for name in ("deep.json", "deep2.json"):
        out = cli("report", name)
        assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr
        assert len(out.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("path", PUBLISHED, ids=lambda p: p.name)
def test_published_1_0_files_migrate_and_recompute_exactly(path: Path) -> None:
    """Every metric of a 1.0 file, recomputed by the declared metrics from its migrated
    records, is the number the old harness stored (to the last bit); the two issue 34
    redefined, by their old definitions. Metrics declared since (update provenance, gate
    kinds) are computed too but were never stored."""
    result = load_result(path)
    assert result.migrated_from == "memory-bench/1.0" and result.schema == "memory-bench/2.0"
    gen = load_plugins(autoload=False).scenarios.get(result.scenario.generator)
    assert gen is not None
    checked = 0
    for b in result.backends:
        for run in b.ok_runs():
            assert run.records is not None
            again = compute_metrics(gen.metrics, run.records, b.capabilities)
            # issue 34 redefined two: the file's values are the old definitions, which the
            # records still give (recall@1 after / before; the self-reported strength delta)
            stored = dict(run.metrics)
            old_retention = stored.pop("retention")
            old_delta = stored.pop("reinforcementDelta")
            assert {k: again[k] for k in stored} == stored, (b.label, run.seed)
            assert old_retention == (again["recall1_after"] / again["recall1_before"]
                                     if again["recall1_before"] else None)
            assert old_delta == again["strengthDelta"], (b.label, run.seed)
            checked += 1
    assert checked == 35  # 7 backends x 5 seeds


# -- pairs as plain data ------------------------------------------------------------------


def test_a_pair_spec_travels_as_json_and_runs_elsewhere(tmp_path: Path) -> None:
    loaded = load_plugins([("fake_backends", fake_backends)], autoload=False)
    scenario = {"name": "smoke", "generator": "templated",
                "params": {"facts": 12, "noise": 24, "updates": 4, "gate_empty": 3,
                           "gate_short": 3, "gate_duplicate": 3, "gate_clean": 4,
                           "reinforce_cells": 3, "reinforce_queries": 2, "k": 5,
                           "consolidate": False, "write_batch": 8, "region": "benchmark"}}
    spec = PairSpec(run_id="r1", index=0, label="fake-perfect", backend="fake-perfect",
                    scenario=scenario, seed=3)
    wire = json.dumps(spec.to_dict())
    here = run_pair(PairSpec.from_dict(json.loads(wire)), plugins=loaded)
    code = ("import json, sys\nfrom memory_bench.harness.pair import PairSpec, run_pair\n"
            "run = run_pair(PairSpec.from_dict(json.loads(sys.stdin.read())))\n"
            "print(json.dumps(run.to_dict()))")
    env = {"PYTHONPATH": str(ROOT / "tests"), "MEMORY_BENCH_PLUGINS": "fake_backends",
           "MEMORY_BENCH_DISABLE_PLUGIN_AUTOLOAD": "1", "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", code], input=wire, capture_output=True,
                         text=True, env=env, timeout=120, check=True)
    there = json.loads(out.stdout)
    assert there["status"] == "ok" and here.ok
    from memory_bench.metrics.latency import TIMINGS as timing
    assert {k: v for k, v in there["metrics"].items() if k not in timing} == {
        k: v for k, v in here.metrics.items() if k not in timing}
    assert there["data_hash"] == here.data_hash
    assert here.cleanup is not None and here.cleanup.prefix == "bench-r1-s3-"


# -- scripts ------------------------------------------------------------------------------


def _item(i: str) -> object:
    from datetime import UTC, datetime

    from memory_bench import Item

    return Item(id=UNBOUND_PREFIX + i, text=f"text {i}", source="s",
                timestamp=datetime(2026, 1, 1, tzinfo=UTC))


def test_a_script_refuses_ids_outside_the_prefix_duplicates_and_forward_references() -> None:
    from datetime import UTC, datetime

    from memory_bench import Item

    ok = Script((Write((_item("a"),), "w"), Probe("q", (UNBOUND_PREFIX + "a",), "p")), k=5,
                seed=0)
    ok.check()
    outside = Item(id="mine-1", text="t", source="s", timestamp=datetime(2026, 1, 1, tzinfo=UTC))
    bad = [
        (Write((outside,), "w"),),
        (Write((_item("a"), _item("a")), "w"),),
        (Probe("q", (UNBOUND_PREFIX + "a",), "p"), Write((_item("a"),), "w")),
        (Write((_item("a"),), "w", ("x", "y")),),
    ]
    for steps in bad:
        with pytest.raises(ScriptError):
            Script(steps, k=5, seed=0).check()
    assert ok.bind("bench-R-s0-").steps[1].expected == ("bench-R-s0-a",)
    assert ok.bind("bench-R-s0-").data_hash == ok.data_hash


# -- the layout ---------------------------------------------------------------------------


def _imports(path: Path, package: str, known: set[str]) -> set[str]:
    """Modules of ``package`` a file imports at load time (not inside functions or
    TYPE_CHECKING blocks); ``from pkg import submodule`` depends on the submodule."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            continue
        for sub in ast.walk(node) if isinstance(node, ast.Import | ast.ImportFrom) else []:
            if isinstance(sub, ast.ImportFrom) and sub.module and sub.level == 0:
                if sub.module.startswith(package):
                    subs = {f"{sub.module}.{a.name}" for a in sub.names} & known
                    out |= subs or {sub.module}
            elif isinstance(sub, ast.Import):
                out |= {a.name for a in sub.names if a.name.startswith(package)}
    return out


def test_no_import_cycles_and_no_model_in_the_core() -> None:
    core = ROOT / "memory_bench"
    modules = {}
    for f in core.rglob("*.py"):
        rel = f.relative_to(ROOT).with_suffix("")
        name = ".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts)
        modules[name] = f
        text = f.read_text(encoding="utf-8")
        for heavy in ("import torch", "sentence_transformers", "memory_bench_embed"):
            assert heavy not in text, f"{name} mentions {heavy}"
    graph = {m: {i for i in _imports(f, "memory_bench", set(modules))
                 if i in modules and i != m} for m, f in modules.items()}
    state: dict[str, int] = {}

    def visit(m: str, stack: list[str]) -> None:
        state[m] = 1
        for n in graph[m]:
            if state.get(n) == 1:
                cycle = [*stack[stack.index(n):], n] if n in stack else [m, n]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            elif n not in state:
                visit(n, [*stack, n])
        state[m] = 2

    for m in graph:
        if m not in state:
            visit(m, [m])


def test_capabilities_in_results_are_the_vocabulary() -> None:
    # calibrated (issue 27): scores that are probabilities, which abstention needs
    assert {c.value for c in Capability} == {"provenance", "strength", "gate", "consolidate",
                                             "persistent", "calibrated", "forget"}
